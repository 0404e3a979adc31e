"""A tournament's players: registration, check-in with start numbers, late arrivals, leaving.

docs/rules.md sections 13 and 13.2.  A player is registered (name, club or town, a
household kept apart in the draw), then checked in when present: that gives
the start number (the next free one, or one the organiser types) and the first
round the player is drawn for — round 1 before the first draw, the next round
for a late arrival.  A player who leaves is withdrawn before the next round
that is not drawn yet: drawn no more, the points so far stay.  Until that round
is drawn the withdrawal can be undone; until a player is drawn, the check-in.

Every change is a use case (``services.unit``) that counts a change of the
tournament (``setup.bump``, guarded at the version read).  A start number is
unique in its tournament in the database: of two tabs giving numbers at once,
the later one runs again on the numbers as they are now; a typed number taken
meanwhile is refused, naming who has it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select

from ...extensions import db
from ...rules import RulesError
from ...rules.tournament import start_numbers, table_sizes
from ...tournament_models import Entrant, Tournament, TournamentTable
from ..errors import NotFound
from ..events import PlayerRenamed
from ..starting import storable
from ..unit import announce, use_case
from .rounds import in_round
from .series_people import link_entrants
from .setup import MAX_ENTRANTS, bump

MAX_NAME = 40
MAX_CLUB = 60
MAX_HOUSEHOLD = 40
MAX_NUMBER = 9999
"""The highest start number (four digits on a table card)."""


@dataclass(frozen=True)
class Added:
    """What a list brought: the players registered and the names skipped, with why."""

    added: list[Entrant] = field(default_factory=list)
    skipped: list[tuple[str, RulesError]] = field(default_factory=list)


def _folded(text: str) -> str:
    return " ".join(str(text).split())


def clean_entry(name: str, club: str = "", household: str = "") -> tuple[str, str, str]:
    """A player's name, club and household as stored, or RulesError saying what is wrong."""
    name, club, household = _folded(name), _folded(club), _folded(household)
    if not storable(name):
        raise RulesError("the name holds control characters, which no name has")
    if not name:
        raise RulesError("a player needs a name")
    if len(name) > MAX_NAME:
        raise RulesError("a name has at most {most} characters", most=MAX_NAME)
    if not storable(club):
        raise RulesError("the club or town holds control characters")
    if len(club) > MAX_CLUB:
        raise RulesError("a club or town has at most {most} characters", most=MAX_CLUB)
    if not storable(household):
        raise RulesError("the household holds control characters")
    if len(household) > MAX_HOUSEHOLD:
        raise RulesError("a household has at most {most} characters", most=MAX_HOUSEHOLD)
    return name, club, household


def _same(a: str, b: str) -> bool:
    return a.casefold() == b.casefold()


def namesakes(
    tournament: Tournament, name: str, *, besides: Entrant | None = None
) -> list[Entrant]:
    """The players of ``tournament`` with this name (whatever their club)."""
    cleaned = " ".join(str(name).split())
    return [e for e in tournament.entrants if e is not besides and _same(e.name, cleaned)]


def _twin(other: Entrant) -> RulesError:
    if other.club:
        return RulesError(
            "{name} ({club}) is registered already: give a club or town to tell "
            "two players of one name apart",
            name=other.name,
            club=other.club,
        )
    return RulesError(
        "{name} is registered already: give a club or town to tell two players of one name apart",
        name=other.name,
    )


def _refuse_twin(tournament: Tournament, name: str, club: str, besides: Entrant | None) -> None:
    for other in namesakes(tournament, name, besides=besides):
        if _same(other.club, club):
            raise _twin(other)


def entrant_of(tournament: Tournament, entrant_id: int) -> Entrant:
    """The player ``entrant_id`` of this tournament, or :class:`NotFound`."""
    found = next((e for e in tournament.entrants if e.id == entrant_id), None)
    if found is None:
        raise NotFound()
    return found


def _room(tournament: Tournament, more: int = 1) -> None:
    if len(tournament.entrants) + more > MAX_ENTRANTS:
        raise RulesError("a tournament takes at most {most} players", most=MAX_ENTRANTS)


@use_case
def register(
    tournament: Tournament,
    name: str,
    club: str = "",
    household: str = "",
    *,
    present: bool = False,
    number: int | None = None,
) -> Entrant:
    """Register a player, committed; ``present`` checks them in at once (the door).

    The same name twice is allowed only with different clubs; the start number
    of ``present`` is ``number`` or the next free one.  When another tab took
    that number between the check and the check-in, nothing is registered and the
    RulesError says who has the number.
    """
    name, club, household = clean_entry(name, club, household)
    _refuse_twin(tournament, name, club, None)
    _room(tournament)
    if present:
        _check_in_allowed(tournament)
        if number is not None:
            _check_number(tournament, number)
    entrant = Entrant(name=name, club=club, household=household)
    tournament.entrants.append(entrant)
    link_entrants(tournament, [entrant])  # a series evening: the same person as before
    if present:
        # (a number another tab took meanwhile refuses the whole registration, and says who
        # has the number: the form keeps what was typed)
        check_in(tournament, entrant, number)
    else:
        bump(tournament)
    return entrant


@use_case
def register_many(tournament: Tournament, rows: Iterable[tuple[str, str]]) -> Added:
    """Register a list of (name, club), committed at once; names already there are skipped."""
    result = Added()
    known = {(e.name.casefold(), e.club.casefold()): e for e in tournament.entrants}
    room = MAX_ENTRANTS - len(tournament.entrants)
    for name, club in rows:
        try:
            name, club, _ = clean_entry(name, club)
            twin = known.get((name.casefold(), club.casefold()))
            if twin is not None:
                raise _twin(twin)
            if len(result.added) >= room:
                raise RulesError("a tournament takes at most {most} players", most=MAX_ENTRANTS)
        except RulesError as error:
            result.skipped.append((name, error))
            continue
        entrant = Entrant(name=name, club=club)
        tournament.entrants.append(entrant)
        known[name.casefold(), club.casefold()] = entrant
        result.added.append(entrant)
    if result.added:
        link_entrants(tournament, result.added)  # a series evening: the same people as before
        bump(tournament)
    return result


@use_case
def edit(tournament: Tournament, entrant: Entrant, name: str, club: str, household: str) -> None:
    """Correct a player's name, club or household, committed.

    A player already drawn keeps their name on the tables of the rounds drawn
    (the table cards are printed); the ranking shows the new one.
    """
    name, club, household = clean_entry(name, club, household)
    _refuse_twin(tournament, name, club, entrant)
    shown = (entrant.name, entrant.club) != (name, club)
    entrant.name, entrant.club, entrant.household = name, club, household
    bump(tournament)
    if shown:
        announce(PlayerRenamed(tournament.id, entrant.id))


def drawn_rounds(tournament: Tournament) -> int:
    """How many rounds are drawn."""
    return len(tournament.round_rows)


def next_round(tournament: Tournament) -> int:
    """The next round to draw (``rounds + 1`` once all are drawn)."""
    return drawn_rounds(tournament) + 1


def was_drawn(tournament: Tournament, entrant: Entrant) -> bool:
    """Whether ``entrant`` sits at a table of a round drawn."""
    return any(in_round(entrant, row.number) for row in tournament.round_rows)


def _check_in_allowed(tournament: Tournament) -> None:
    if next_round(tournament) > tournament.rounds:
        raise RulesError(
            "all {rounds} rounds are drawn: nobody can join any more", rounds=tournament.rounds
        )


def _holder(tournament: Tournament, number: int) -> Entrant | None:
    return next((e for e in tournament.entrants if e.number == number), None)


def _check_number(tournament: Tournament, number: int, entrant: Entrant | None = None) -> None:
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_NUMBER:
        raise RulesError("a start number is a whole number from 1 to {most}", most=MAX_NUMBER)
    holder = _holder(tournament, number)
    if holder is not None and holder is not entrant:
        raise RulesError(
            "start number {number} already belongs to {name}", number=number, name=holder.name
        )


def _taken(tournament: Tournament) -> set[int]:
    return {e.number for e in tournament.entrants if e.number is not None}


def next_free_number(tournament: Tournament) -> int:
    """The lowest start number nobody has (the rules' ``start_numbers``)."""
    return start_numbers(_taken(tournament), 1)[0]


def absent(tournament: Tournament) -> list[Entrant]:
    """The players registered and not checked in (not withdrawn), in the order they were
    registered: a list's players in the list's order."""
    waiting = [e for e in tournament.entrants if e.number is None and e.withdrawn_before is None]
    return sorted(waiting, key=lambda e: (e.id is None, e.id or 0))


@use_case
def check_in_all(tournament: Tournament) -> list[Entrant]:
    """Check in every player registered and not present ("everyone present"), committed.

    The start numbers follow the order of registration, so a list imported from a
    file keeps the file's order (the rules' ``start_numbers``: the lowest free
    numbers, in order).  Nothing to check in changes nothing.
    """
    waiting = absent(tournament)
    if not waiting:
        return []
    _check_in_allowed(tournament)
    numbers = start_numbers(_taken(tournament), len(waiting))
    first = next_round(tournament)
    # Two tabs at once: the later one's guarded bump (or the unique start number) loses,
    # and the unit of work runs this again on the players as they are now.
    for entrant, number in zip(waiting, numbers, strict=True):
        _check_number(tournament, number, entrant)
        entrant.number = number
        entrant.from_round = first
    bump(tournament)
    db.session.flush()
    return waiting


@use_case
def check_in(tournament: Tournament, entrant: Entrant, number: int | None = None) -> Entrant:
    """Check ``entrant`` in with ``number`` or the next free start number, committed.

    Drawn from the next round not drawn yet (round 1 before the first draw).
    Checking in a player who is in already changes nothing (a double tap).
    """
    if entrant.number is not None and entrant.withdrawn_before is None:
        if number is None or number == entrant.number:
            return entrant
        raise RulesError(
            "{name} has start number {number} already", name=entrant.name, number=entrant.number
        )
    if entrant.withdrawn_before is not None:
        raise RulesError("{name} is withdrawn: undo the withdrawal instead", name=entrant.name)
    _check_in_allowed(tournament)
    # Two tabs giving the next free number at once: the later one's guarded bump (or the
    # unique start number) loses, and the unit of work runs this again on the numbers as
    # they are now.  A typed number taken meanwhile is refused then, naming who has it.
    chosen = number if number is not None else next_free_number(tournament)
    _check_number(tournament, chosen, entrant)
    entrant.number = chosen
    entrant.from_round = next_round(tournament)
    bump(tournament)
    db.session.flush()
    return entrant


@use_case
def check_out(tournament: Tournament, entrant: Entrant) -> None:
    """Undo a check-in (the start number is free again); only before the player is drawn."""
    if entrant.number is None:
        return
    if was_drawn(tournament, entrant):
        raise RulesError("{name} is drawn already: withdraw the player instead", name=entrant.name)
    entrant.number = None
    entrant.from_round = None
    entrant.withdrawn_before = None
    bump(tournament)


@use_case
def withdraw(tournament: Tournament, entrant: Entrant) -> None:
    """Withdraw a player who has played: drawn no more from the next round not drawn yet.

    The points so far stay in the ranking.  A player not drawn yet is checked
    out instead (nothing of them is in any round).
    """
    if entrant.withdrawn_before is not None:
        return
    if entrant.number is None:
        raise RulesError("{name} is not checked in", name=entrant.name)
    if not was_drawn(tournament, entrant):
        check_out(tournament, entrant)
        return
    entrant.withdrawn_before = next_round(tournament)
    bump(tournament)


@use_case
def undo_withdrawal(tournament: Tournament, entrant: Entrant) -> None:
    """Take a withdrawal back, while the round it starts with is not drawn yet."""
    if entrant.withdrawn_before is None:
        return
    if entrant.withdrawn_before <= drawn_rounds(tournament):
        raise RulesError(
            "round {round} is drawn without {name}: the withdrawal stands",
            round=entrant.withdrawn_before,
            name=entrant.name,
        )
    entrant.withdrawn_before = None
    bump(tournament)


@use_case
def remove(tournament: Tournament, entrant: Entrant) -> None:
    """Delete a registration (a mistake, a duplicate); only of a player never drawn."""
    if was_drawn(tournament, entrant) or _seated(tournament, entrant):
        raise RulesError("{name} is drawn already: withdraw the player instead", name=entrant.name)
    tournament.entrants.remove(entrant)
    db.session.delete(entrant)
    bump(tournament)


def _seated(tournament: Tournament, entrant: Entrant) -> bool:
    ids = [row.id for row in tournament.round_rows]
    if not ids:
        return False
    tables = db.session.execute(
        select(TournamentTable.players).where(TournamentTable.round_id.in_(ids))
    ).scalars()
    return any(entrant.id in players for players in tables)


# -- who plays the next round ---------------------------------------------------------


@dataclass(frozen=True)
class Count:
    """The players of a tournament as the organiser counts them."""

    registered: int
    present: int
    withdrawn: int
    next_round: int | None
    playing: int
    """Checked in and drawn in the next round (late arrivals included, withdrawn not)."""
    tables: tuple[int, ...] | None
    """The next round's tables (4s first), or None when the players make no round."""
    problem: RulesError | None
    absent: int = 0
    """Registered, neither checked in nor withdrawn: whom a round short of players waits for
    to be marked present."""


def count(tournament: Tournament) -> Count:
    """Who is there and whether they make a round: the rules' ``table_sizes`` decides."""
    entrants = tournament.entrants
    upcoming = next_round(tournament)
    number = upcoming if upcoming <= tournament.rounds else None
    playing = len([e for e in entrants if number is not None and in_round(e, number)])
    tables: tuple[int, ...] | None = None
    problem: RulesError | None = None
    if number is not None:
        try:
            tables = table_sizes(playing)
        except RulesError as error:
            problem = error
    return Count(
        registered=len(entrants),
        present=len([e for e in entrants if e.number is not None and e.withdrawn_before is None]),
        withdrawn=len([e for e in entrants if e.withdrawn_before is not None]),
        next_round=number,
        playing=playing,
        tables=tables,
        problem=problem,
        absent=len([e for e in entrants if e.number is None and e.withdrawn_before is None]),
    )


def status(tournament: Tournament, entrant: Entrant) -> str:
    """A player's state for the list: ``registered``, ``present``, ``late`` or ``withdrawn``."""
    if entrant.withdrawn_before is not None:
        return "withdrawn"
    if entrant.number is None:
        return "registered"
    if (entrant.from_round or 1) > 1:
        return "late"
    return "present"


def search(entrants: Sequence[Entrant], query: str) -> list[Entrant]:
    """The players whose name or club holds ``query``, or whose start number it is."""
    text = " ".join(str(query).split()).casefold()[:MAX_NAME]
    if not text:
        return list(entrants)
    if text.isdecimal() and len(text) <= 5:
        return [e for e in entrants if e.number == int(text)]
    return [e for e in entrants if text in e.name.casefold() or text in e.club.casefold()]


def known_names(tournaments: Sequence[Tournament], prefix: str = "", limit: int = 200) -> list[str]:
    """Names from the tournaments this device organises, for the suggestions at the door."""
    ids = [t.id for t in tournaments]
    if not ids or not storable(prefix):
        return []
    query = select(Entrant.name).where(Entrant.tournament_id.in_(ids))
    if prefix:
        query = query.where(func.lower(Entrant.name).startswith(prefix.lower(), autoescape=True))
    query = query.group_by(Entrant.name).order_by(Entrant.name).limit(limit)
    return list(db.session.execute(query).scalars())
