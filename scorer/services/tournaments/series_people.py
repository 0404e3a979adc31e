"""The same person across a series' evenings (docs/rules.md section 13.1), and what the draw met.

Each evening's player (an :class:`Entrant`) points to a :class:`SeriesPlayer`,
the person across the series.  When a player is registered on an evening of a
series (typed at the door, a pasted list, a CSV or Excel file) :func:`link_entrants`
finds that person by name (``scorer.rules.tournament.name_key``):

- exactly one person of the series with the same name, not yet playing tonight,
  is linked (of several, the one with the same club; a club typed on both
  sides that differs tells two people apart);
- a name only *alike* (``alike_names``: Schäfer/Schaefer, Maier/Meyer,
  "H. Maier", first and last name swapped), or several people of the name that
  the club does not tell apart: the player is left unlinked and the organiser
  chooses (:func:`choices`, :func:`same_person`, :func:`new_person`);
- nobody of that name: a new person of the series.

An unlinked player counts as a person of their own in the series ranking until
the organiser decides; any link can be undone (:func:`unlink`) and chosen again.

:func:`met_before` gives the draw (``rounds._met``) the earlier evenings' tables
as tonight's start numbers, when the series counts them (``Series.met_across``).

This module imports nothing of the other tournament services: the registration
(``entrants``) and the draw (``rounds``) call it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import select

from ...extensions import db
from ...rules import RulesError
from ...rules.tournament import alike_names, name_key
from ...tournament_models import (
    Entrant,
    Round,
    Series,
    SeriesPlayer,
    Tournament,
    TournamentTable,
)
from ..errors import NotFound
from ..unit import use_case


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def evenings_of(series: Series) -> list[Tournament]:
    """The series' evenings in order (the first one made is evening 1)."""
    return sorted(series.tournaments, key=lambda t: t.id)


def _taken(tournament: Tournament) -> set[int]:
    """The people of the series who already have a player on this evening."""
    return {e.series_player_id for e in tournament.entrants if e.series_player_id is not None}


def _new_person(series: Series, entrant: Entrant) -> None:
    person = SeriesPlayer(name=entrant.name, club=entrant.club)
    series.players.append(person)
    db.session.flush()
    entrant.series_player_id = person.id


def _candidates(
    entrant: Entrant, people: Sequence[SeriesPlayer]
) -> tuple[SeriesPlayer | None, list[SeriesPlayer]]:
    """The one person ``entrant`` surely is, else the people to choose from (maybe none)."""
    key = name_key(entrant.name)
    same = [p for p in people if name_key(p.name) == key]
    club = _folded(entrant.club)
    if same:
        if len(same) > 1 and club:
            same_club = [p for p in same if _folded(p.club) == club]
            if len(same_club) == 1:
                return same_club[0], []
        if len(same) == 1:
            other = _folded(same[0].club)
            if not club or not other or club == other:
                return same[0], []
        # several of one name, or one whose club differs: the organiser decides
    alike = [people[i] for i in alike_names(entrant.name, [p.name for p in people])]
    return None, same + [p for p in alike if p not in same]


def link_entrants(tournament: Tournament, entrants: Iterable[Entrant]) -> None:
    """Link newly registered players of a series evening to their people (no commit).

    Called by the registration just before it commits; a tournament outside a
    series is left alone.  See the module's docstring for who is linked.
    """
    series = tournament.series
    if series is None:
        return
    db.session.flush()
    for entrant in entrants:
        if entrant.series_player_id is not None:
            continue
        taken = _taken(tournament)
        people = [p for p in series.players if p.id not in taken]
        person, choose = _candidates(entrant, people)
        if person is not None:
            entrant.series_player_id = person.id
        elif not choose:
            _new_person(series, entrant)


@dataclass(frozen=True)
class Person:
    """A person of the series as a choice names them: name, club, the evenings played (1, 2 …)."""

    id: int
    name: str
    club: str
    evenings: tuple[int, ...]


@dataclass(frozen=True)
class Choice:
    """An evening's player not linked yet, and the people of the series they may be."""

    entrant_id: int
    name: str
    club: str
    people: tuple[Person, ...]


def _played(series: Series) -> dict[int, list[int]]:
    """Per person id: the evenings (1, 2 …) they have a player on."""
    played: dict[int, list[int]] = {}
    for index, evening in enumerate(evenings_of(series), start=1):
        for e in evening.entrants:
            if e.series_player_id is not None:
                played.setdefault(e.series_player_id, []).append(index)
    return played


def _person(person: SeriesPlayer, played: dict[int, list[int]]) -> Person:
    return Person(person.id, person.name, person.club, tuple(played.get(person.id, [])))


def choices(tournament: Tournament) -> list[Choice]:
    """The players of this evening the organiser still has to decide on (same person or new)."""
    series = tournament.series
    if series is None:
        return []
    played = _played(series)
    taken = _taken(tournament)
    people = [p for p in series.players if p.id not in taken]
    found = []
    for entrant in tournament.entrants:
        if entrant.series_player_id is not None:
            continue
        _, choose = _candidates(entrant, people)
        found.append(
            Choice(
                entrant.id,
                entrant.name,
                entrant.club,
                tuple(_person(p, played) for p in choose),
            )
        )
    return found


def linked(tournament: Tournament) -> dict[int, Person]:
    """Per player (entrant id) of this evening: the person of the series they are linked to."""
    series = tournament.series
    if series is None:
        return {}
    played = _played(series)
    people = {p.id: p for p in series.players}
    return {
        e.id: _person(people[e.series_player_id], played)
        for e in tournament.entrants
        if e.series_player_id is not None and e.series_player_id in people
    }


def _entrant(tournament: Tournament, entrant_id: int) -> Entrant:
    found = next((e for e in tournament.entrants if e.id == entrant_id), None)
    if found is None or tournament.series is None:
        raise NotFound()
    return found


def _changed(tournament: Tournament) -> None:
    from .setup import bump  # the registration imports this module; setup is plain

    series = tournament.series
    if series is not None:
        series.version = (series.version or 0) + 1
    bump(tournament)


@use_case
def same_person(tournament: Tournament, entrant_id: int, person_id: int) -> None:
    """The organiser's choice: this evening's player ``entrant_id`` is person ``person_id``.

    Refused when that person already plays tonight as another player (one
    person, one start number); choosing again what holds changes nothing.
    """
    entrant = _entrant(tournament, entrant_id)
    series = tournament.series
    assert series is not None
    person = next((p for p in series.players if p.id == person_id), None)
    if person is None:
        raise NotFound()
    if entrant.series_player_id == person.id:
        return
    other = next(
        (e for e in tournament.entrants if e.series_player_id == person.id and e is not entrant),
        None,
    )
    if other is not None:
        raise RulesError(
            "{name} plays tonight already (as {other}): one person, one start number",
            name=person.name,
            other=other.name,
        )
    old = entrant.series_player_id
    entrant.series_player_id = person.id
    _drop_unused(series, old)
    _changed(tournament)


@use_case
def new_person(tournament: Tournament, entrant_id: int) -> None:
    """The organiser's choice: this evening's player is a new person of the series."""
    entrant = _entrant(tournament, entrant_id)
    series = tournament.series
    assert series is not None
    old = entrant.series_player_id
    if old is not None and len(_played(series).get(old, [])) == 1:
        return  # a person of this evening alone already: nothing to do (a double tap)
    _new_person(series, entrant)
    _drop_unused(series, old)
    _changed(tournament)


@use_case
def unlink(tournament: Tournament, entrant_id: int) -> None:
    """Undo a link (a wrong choice): the player is to be decided on again."""
    entrant = _entrant(tournament, entrant_id)
    series = tournament.series
    assert series is not None
    old = entrant.series_player_id
    if old is None:
        return
    entrant.series_player_id = None
    _drop_unused(series, old)
    _changed(tournament)


def _drop_unused(series: Series, person_id: int | None) -> None:
    """Forget a person no evening's player points to any more (no commit)."""
    if person_id is None:
        return
    db.session.flush()
    used = db.session.execute(
        select(Entrant.id).where(Entrant.series_player_id == person_id).limit(1)
    ).first()
    if used is None:
        person = next((p for p in series.players if p.id == person_id), None)
        if person is not None:
            series.players.remove(person)


# -- the draw ---------------------------------------------------------------------------


def earlier_counted(tournament: Tournament) -> int:
    """How many earlier evenings of its series this evening's draw counts (``met_across``;
    0 outside a series or when the series does not count them)."""
    series = tournament.series
    if series is None or not series.met_across:
        return 0
    return sum(1 for t in evenings_of(series) if t.id < tournament.id)


def met_before(tournament: Tournament) -> list[list[tuple[int, ...]]]:
    """The earlier evenings' tables as tonight's start numbers (every round of each).

    Empty outside a series or when the series does not count them
    (``met_across``).  A player of an earlier evening who is not here tonight
    (or not linked to a person yet) is left out of their table; a table left
    with fewer than two is dropped.
    """
    series = tournament.series
    if series is None or not series.met_across:
        return []
    earlier = [t.id for t in evenings_of(series) if t.id < tournament.id]
    if not earlier:
        return []
    tonight: dict[int, int] = {}
    for e in tournament.entrants:
        if e.series_player_id is not None and e.number is not None:
            tonight[e.series_player_id] = e.number
    person_of: dict[int, int] = {
        entrant_id: person_id
        for entrant_id, person_id in db.session.execute(
            select(Entrant.id, Entrant.series_player_id).where(
                Entrant.tournament_id.in_(earlier), Entrant.series_player_id.is_not(None)
            )
        ).all()
        if person_id is not None
    }
    rows = db.session.execute(
        select(Round.tournament_id, Round.number, TournamentTable.players)
        .join(TournamentTable, TournamentTable.round_id == Round.id)
        .where(Round.tournament_id.in_(earlier))
        .order_by(Round.tournament_id, Round.number, TournamentTable.number)
    ).all()
    met: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    for tournament_id, number, players in rows:
        seated = tuple(
            tonight[person_of[p]] for p in players if p in person_of and person_of[p] in tonight
        )
        tables = met.setdefault((tournament_id, number), [])
        if len(seated) >= 2:
            tables.append(seated)
    return [tables for tables in met.values() if tables]


def absent_people(tournament: Tournament) -> list[SeriesPlayer]:
    """The series' people without a player on this evening yet, by name.

    Left out: a person a player of this evening may be (a choice still open,
    "Hans Schaefer" for "Hans Schäfer"), or they would be registered twice.
    """
    series = tournament.series
    if series is None:
        return []
    taken = _taken(tournament)
    pending = {person.id for choice in choices(tournament) for person in choice.people}
    here = {(name_key(e.name), _folded(e.club).casefold()) for e in tournament.entrants}
    return sorted(
        (
            p
            for p in series.players
            if p.id not in taken
            and p.id not in pending
            and (name_key(p.name), _folded(p.club).casefold()) not in here
        ),
        key=lambda p: (name_key(p.name), p.id),
    )


@use_case
def register_people(tournament: Tournament) -> list[Entrant]:
    """Register the series' people who have no player on this evening, committed.

    The list of the earlier evenings as the door's list: each is registered as
    that person (not checked in; who comes gets a start number at check-in).
    A second tap registers nobody twice.
    """
    from .setup import MAX_ENTRANTS  # setup is plain (see _changed)

    if tournament.series is None:
        raise NotFound()
    people = absent_people(tournament)
    if len(tournament.entrants) + len(people) > MAX_ENTRANTS:
        raise RulesError("a tournament takes at most {most} players", most=MAX_ENTRANTS)
    added = [Entrant(name=p.name, club=p.club, series_player_id=p.id) for p in people]
    if added:
        tournament.entrants.extend(added)
        _changed(tournament)
    return added
