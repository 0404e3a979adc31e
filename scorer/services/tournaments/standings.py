"""What the public link shows (docs/rules.md section 13.4): ranking, progress, seating, a player.

The values here (:class:`Standings` and its parts) are what the beamer, "where do
I sit?" and each player's page are rendered from; :mod:`.public_state` builds
them (a fixed number of statements, going on from the previous build) and
:mod:`.published` shares each build between all processes.

The public pages poll every few seconds.  :func:`poll_state` answers in one
statement on the tournament's row whether anything they show can have changed:
the tournament's version (players, rounds, tables, settings: ``setup.bump``)
together with the count of its tables' changes (every saved, corrected or struck
hand, every confirmation and paper slip counts one: :mod:`.counting`) — the same
work at 10 tables and at 1,000.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import NamedTuple, TypeVar

from sqlalchemy import bindparam, select

from ...extensions import db
from ...tournament_models import Tournament
from . import counting

MAX_NUMBER = 10**6
"""No start number is larger; a larger one typed or in an address names nobody."""


@dataclass(frozen=True)
class Player:
    """A registered player as the public pages name them."""

    entrant_id: int
    number: int | None
    name: str
    club: str
    from_round: int | None
    withdrawn: bool


@dataclass(frozen=True)
class Line:
    """One line of the ranking: a player's points per drawn round, total, lost games, place.

    ``rounds`` lines up with :attr:`Standings.rounds`; ``None`` is a round the
    player did not play (a late arrival's first rounds, a withdrawn player's
    last), shown as "–" and counted 0.
    """

    player: Player
    rounds: tuple[int | None, ...]
    paper: tuple[bool, ...]
    total: int
    lost: int
    place: int


@dataclass(frozen=True)
class TableProgress:
    """A table of the current round: deal ``played`` of ``deals``, done, from paper."""

    number: int
    played: int
    deals: int
    done: bool
    paper: bool

    @property
    def finished(self) -> bool:
        """Played out or typed in from its paper slip: the table counts as done."""
        return self.done or self.paper


@dataclass(frozen=True)
class Progress:
    """The current round: its number, whether it is closed, and each table's progress."""

    round: int
    closed: bool
    tables: tuple[TableProgress, ...]

    @property
    def finished(self) -> int:
        """How many tables are done ("17 von 20 Tischen fertig")."""
        return sum(1 for t in self.tables if t.finished)

    @property
    def waiting(self) -> list[TableProgress]:
        """The tables still playing, the furthest behind first (whom the hall waits for)."""
        return sorted(
            (t for t in self.tables if not t.finished), key=lambda t: (t.played, t.number)
        )


@dataclass(frozen=True)
class Seat:
    """Where a player sits in the current round: table and seat (seat 1 is the Schreiber)."""

    player: Player
    table: int
    seat: int

    @property
    def schreiber(self) -> bool:
        """Seat 1 keeps the score (and deals first)."""
        return self.seat == 1


@dataclass(frozen=True)
class Standings:
    """Everything the public pages show of a tournament, read at one moment."""

    tournament_id: int
    name: str
    rounds_planned: int
    rounds: tuple[int, ...]
    lines: tuple[Line, ...]
    players: tuple[Player, ...]
    progress: Progress | None
    seats: tuple[Seat, ...]
    tie_break: bool
    place: str = ""
    held_on: str = ""
    series: tuple[str, str] | None = None
    """The series' name and public link, for an evening of a series."""

    @cached_property
    def lookup(self) -> Lookup:
        """Each player's line, seat and table by entrant id, made once per build: a hall's
        3,000 phones each ask for their own page, which is then looked up, not searched."""
        tables: dict[int, list[Seat]] = {}
        for seat in self.seats:
            tables.setdefault(seat.table, []).append(seat)
        progress = self.progress.tables if self.progress is not None else ()
        return Lookup(
            numbers=_first((p.number, p) for p in self.players if p.number is not None),
            seats=_first((s.player.entrant_id, s) for s in self.seats),
            lines=_first((x.player.entrant_id, x) for x in self.lines),
            tables={n: tuple(sorted(seats, key=lambda s: s.seat)) for n, seats in tables.items()},
            progress=_first((t.number, t) for t in progress),
        )

    @property
    def drawn(self) -> bool:
        """Whether a round has been drawn (before that: the registered players only)."""
        return bool(self.rounds)

    @property
    def provisional(self) -> bool:
        """Whether the ranking may still change: the current round is not closed."""
        return self.progress is not None and not self.progress.closed

    @property
    def final(self) -> bool:
        """Whether the last round is closed: the ranking is the tournament's result."""
        return (
            self.progress is not None
            and self.progress.closed
            and self.progress.round >= self.rounds_planned
        )


K = TypeVar("K")
V = TypeVar("V")


def _first(pairs: Iterable[tuple[K, V]]) -> dict[K, V]:
    """The pairs as a dict, the first value of a key kept (as a search from the top finds)."""
    found: dict[K, V] = {}
    for key, value in pairs:
        found.setdefault(key, value)
    return found


@dataclass(frozen=True)
class Lookup:
    """The standings by key: players by start number, their seat and line by entrant id,
    each table's seats (in seat order) and progress by table number."""

    numbers: dict[int, Player]
    seats: dict[int, Seat]
    lines: dict[int, Line]
    tables: dict[int, tuple[Seat, ...]]
    progress: dict[int, TableProgress]


@dataclass(frozen=True)
class PlayerPage:
    """A player's own page: their line of the ranking and where they sit this round."""

    player: Player
    line: Line | None
    seat: Seat | None
    mates: tuple[Seat, ...]
    table: TableProgress | None
    round: int | None


class PollState(NamedTuple):
    """What the public pages' polls compare: a tag of everything they show, its last change."""

    tournament_id: int
    tag: str
    last_modified: datetime


# -- the poll ------------------------------------------------------------------

_TOURNAMENTS = Tournament.__table__
_COUNT, _LAST = counting.totals(_TOURNAMENTS.c.id)
# One row by the (unique, indexed) public link, whatever the size of the hall: the
# tournament's version (its own rows: players, rounds, tables, settings) and the count
# of its tables' changes (every saved, corrected or struck hand, every confirmation and
# paper slip; ``counting``: a few rows by the tournament's key), each written in the
# transaction of the change it counts.
_POLL_STATE = select(
    _TOURNAMENTS.c.id, _TOURNAMENTS.c.version, _TOURNAMENTS.c.updated_at, _COUNT, _LAST
).where(_TOURNAMENTS.c.view_token == bindparam("view_token"))


def poll_state(view_token: str) -> PollState | None:
    """The tag and last change of everything the public pages of ``view_token`` show.

    None when the link names no tournament.  Read on a connection of its own
    (no ORM objects, no session of the request): nearly every poll ends here.
    """
    with db.engine.connect() as connection:
        row = connection.execute(_POLL_STATE, {"view_token": view_token}).first()
    if row is None:
        return None
    tournament_id, version, updated_at, changes, changed = row
    last = max(updated_at, changed) if changed is not None else updated_at
    return PollState(tournament_id, f"t{tournament_id}.{version}.c{changes or 0}", last)


# -- names in order -----------------------------------------------------------


def alphabetical(name: str) -> str:
    """A name's key in an alphabetical list: case and accents aside (Ä with A, as in a phone book).

    >>> sorted(["Zenzi", "Ärnst", "anna", "Otto"], key=alphabetical)
    ['anna', 'Ärnst', 'Otto', 'Zenzi']
    """
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))
