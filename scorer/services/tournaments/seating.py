"""The public pages' lists: where everybody sits, and a player's own page.

Read from the :class:`~.standings.Standings` the ranking builds, so the seating,
the name list and a player's page show the same state as the ranking beside them.
"""

from __future__ import annotations

from collections.abc import Iterable

from .standings import MAX_NUMBER, Player, PlayerPage, Seat, Standings, alphabetical

# the German way to type an umlaut without one (Mueller for Müller)
_SPELLED_OUT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})

MAX_QUERY = 40
"""The longest search the seating page takes (longer is cut)."""


def by_name(current: Standings) -> list[Seat]:
    """The current round's seating, alphabetical by name (then start number)."""
    return sorted(current.seats, key=lambda s: (alphabetical(s.player.name), s.player.number or 0))


def search_keys(name: str) -> tuple[str, str]:
    """A name as a search finds it: case and accents aside, and umlauts spelled out too.

    >>> search_keys("Jörg Müller-Straße")
    ('jorg muller-strasse', 'joerg mueller-strasse')
    """
    return alphabetical(name), alphabetical(name.translate(_SPELLED_OUT))


def search(seats: Iterable[Seat], typed: str) -> list[Seat]:
    """The seats whose player a player at the door means by ``typed``.

    A number is a start number (exactly); words are parts of the name, in any
    order, case, accents and umlauts aside ("mue", "Müller", "muller", "anna m").

    >>> from types import SimpleNamespace as P
    >>> people = [P(player=P(name=n, number=i)) for i, n in enumerate(
    ...     ["Jörg Müller", "Anna Maier", "Ümit Öztürk", "Hans Mayer"], 1)]
    >>> def names(typed): return [s.player.name for s in search(people, typed)]
    >>> names("mueller"), names("MULLER"), names("müll"), names("oezt"), names("umit")
    (['Jörg Müller'], ['Jörg Müller'], ['Jörg Müller'], ['Ümit Öztürk'], ['Ümit Öztürk'])
    >>> names("ma"), names("anna m"), names("3"), names(" 2 "), names("12")
    (['Anna Maier', 'Hans Mayer'], ['Anna Maier'], ['Ümit Öztürk'], ['Anna Maier'], [])
    """
    words = alphabetical(typed[:MAX_QUERY]).split()
    if not words:
        return list(seats)
    number = start_number(typed) if len(words) == 1 else None
    if number is not None:
        return [seat for seat in seats if seat.player.number == number]
    return [
        seat
        for seat in seats
        if any(all(w in key for w in words) for key in search_keys(seat.player.name))
    ]


def by_table(current: Standings) -> list[tuple[int, list[Seat]]]:
    """The current round's seating by table, each table in seat order (seat 1: Schreiber)."""
    tables: dict[int, list[Seat]] = {}
    for seat in current.seats:
        tables.setdefault(seat.table, []).append(seat)
    return [(number, sorted(tables[number], key=lambda s: s.seat)) for number in sorted(tables)]


def listed(current: Standings) -> list[Player]:
    """The players with a start number, alphabetical: the list to pick one's name from."""
    found = [p for p in current.players if p.number is not None]
    return sorted(found, key=lambda p: (alphabetical(p.name), p.number or 0))


def start_number(text: str | None) -> int | None:
    """A typed start number, or None for anything that is not one (junk, 0, -1, 10**20).

    >>> [start_number(t) for t in ("7", " 12 ", "-1", "abc", "99999999999999999999", None)]
    [7, 12, None, None, None, None]
    """
    value = (text or "").strip()
    if not value.isascii() or not value.isdigit() or len(value) > len(str(MAX_NUMBER)):
        return None
    number = int(value)
    return number if 0 < number <= MAX_NUMBER else None


def player_page(current: Standings, number: int) -> PlayerPage | None:
    """The page of the player with start number ``number``, or None when nobody has it."""
    found = current.lookup
    player = found.numbers.get(number)
    if player is None:
        return None
    seat = found.seats.get(player.entrant_id)
    at = seat.table if seat is not None else None
    progress = current.progress
    return PlayerPage(
        player=player,
        line=found.lines.get(player.entrant_id),
        seat=seat,
        mates=found.tables.get(at, ()) if at is not None else (),
        table=found.progress.get(at) if progress is not None and at is not None else None,
        round=progress.round if progress is not None else None,
    )
