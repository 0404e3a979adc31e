"""The rounds: the draw, drawing again, the tables' matches, closing, replacing a link.

A round is drawn once: its number is unique in the tournament, so of two
organiser tabs drawing at the same moment the second one's insert fails and it
answers the first one's round.  Every table of the round is a match of its own
(in a session of its own), started with the tournament's ruleset for the
table's size; seat 1 is the Schreiber and deals first.

Closing a round locks its matches (``Match.locked``) and counts a change of
each (a new version): a table phone's save that read the match before the
close loses the race and is refused, and every later one is refused with the
reason.  Only the organiser still corrects hands of a closed round.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.exc import IntegrityError

from ...extensions import db
from ...models import GameSession, Hand, Match, Seat, new_token, utcnow
from ...rules import RulesError
from ...rules.tournament import draw, repeats
from ...tournament_models import Entrant, RetiredLink, Round, Tournament, TournamentTable
from ..errors import ConflictError
from ..sheets import sheet, standing_of
from ..starting import default_parties
from .series_people import met_before
from .setup import bump, table_ruleset_of

_MATCHES = Match.__table__
_LOCK = (
    update(_MATCHES)
    .where(_MATCHES.c.id.in_(bindparam("ids", expanding=True)))
    .values(locked=bindparam("locked"), version=_MATCHES.c.version + 1, updated_at=bindparam("now"))
)


def in_round(entrant: Entrant, number: int) -> bool:
    """Whether ``entrant`` is drawn for round ``number``: checked in by then, not withdrawn."""
    return (
        entrant.number is not None
        and entrant.from_round is not None
        and entrant.from_round <= number
        and (entrant.withdrawn_before is None or entrant.withdrawn_before > number)
    )


def drawn_for(tournament: Tournament, number: int) -> list[Entrant]:
    """The players of round ``number``, by start number."""
    players = [e for e in tournament.entrants if in_round(e, number)]
    return sorted(players, key=lambda e: e.number or 0)


def _seed(tournament: Tournament, number: int, attempt: int) -> str:
    return f"{tournament.seed}-{number}" + (f"-{attempt}" if attempt > 1 else "")


def _met(tournament: Tournament, before: int) -> list[list[tuple[int, ...]]]:
    """The earlier rounds' tables as start numbers (what the draw avoids repeating).

    In a series that counts them, the earlier evenings' tables come first
    (``series_people.met_before``: each person as tonight's start number).
    """
    numbers = {e.id: e.number for e in tournament.entrants}
    return met_before(tournament) + [
        [tuple(numbers[p] or 0 for p in table.players) for table in row.tables]
        for row in tournament.round_rows
        if row.number < before
    ]


def _apart(players: Sequence[Entrant]) -> list[tuple[int, int]]:
    """Pairs of one household (the organiser's word): never at one table."""
    return [
        (a.number or 0, b.number or 0)
        for a, b in combinations(players, 2)
        if a.household and a.household.casefold() == b.household.casefold()
    ]


def _seat_tables(tournament: Tournament, row: Round) -> None:
    """Draw ``row`` and start a match for each of its tables (no commit)."""
    players = drawn_for(tournament, row.number)
    by_number = {e.number: e for e in players}
    tables = draw(
        [e.number or 0 for e in players],
        _met(tournament, row.number),
        seed=row.seed,
        apart=_apart(players),
    )
    for index, numbers in enumerate(tables, start=1):
        seated = [by_number[n] for n in numbers]
        ruleset = table_ruleset_of(tournament, len(seated))
        session = GameSession(
            title=f"{tournament.name} · {row.number}/{index}"[:80], kind="tournament"
        )
        match = Match(session=session, number=1, ruleset=ruleset.to_dict(), first_dealer=0)
        parties = default_parties(ruleset, len(seated))
        for position, (entrant, party) in enumerate(zip(seated, parties, strict=True)):
            match.seats.append(Seat(position=position, party=party, name=entrant.name))
        db.session.add(session)
        db.session.add(match)
        row.tables.append(
            TournamentTable(number=index, match=match, players=[e.id for e in seated])
        )
    # every table's stored standing from the start: the ranking and the board read it
    # for hundreds of tables instead of replaying each sheet
    db.session.flush()
    for table in row.tables:
        table.match.standing = standing_of(table.match, sheet(table.match))


def draw_round(tournament: Tournament, number: int) -> Round:
    """Draw round ``number`` (the next one), committed; the one already drawn if it exists.

    Refused (``RulesError``) while the round before is open, after the last
    round, and when the players checked in make no tables (0, 1, 2 or 5).
    """
    existing = next((r for r in tournament.round_rows if r.number == number), None)
    if existing is not None:
        return existing
    done = len(tournament.round_rows)
    if number != done + 1:
        raise RulesError("round {number} cannot be drawn now", number=number)
    if number > tournament.rounds:
        raise RulesError(
            "the tournament has {rounds} rounds; all are drawn", rounds=tournament.rounds
        )
    if done and tournament.round_rows[-1].closed_at is None:
        raise RulesError("close round {number} before drawing the next", number=done)
    row = Round(number=number, seed=_seed(tournament, number, 1))
    tournament.round_rows.append(row)
    try:
        _seat_tables(tournament, row)
        bump(tournament)
        db.session.commit()
    except RulesError:
        db.session.rollback()
        raise
    except IntegrityError:
        # the other tab's draw committed first: this one answers with it
        db.session.rollback()
        again = db.session.execute(
            select(Round).where(Round.tournament_id == tournament.id, Round.number == number)
        ).scalar_one_or_none()
        if again is None:
            raise ConflictError() from None
        return again
    return row


def next_number(tournament: Tournament) -> int | None:
    """The round the organiser may draw now, or None (one is open, or all are drawn)."""
    rows = tournament.round_rows
    if rows and rows[-1].closed_at is None:
        return None
    number = len(rows) + 1
    return number if number <= tournament.rounds else None


def repeated_pairs(tournament: Tournament, row: Round) -> int:
    """How many pairs at ``row``'s tables already shared a table in an earlier round.

    What the draw achieved, shown beside its seed: 0 is the goal, and the draw
    reaches it wherever a round-by-round draw can (the rules: ``repeats``).
    """
    numbers = {e.id: e.number or 0 for e in tournament.entrants}
    tables = [tuple(numbers[p] for p in table.players) for table in row.tables]
    return repeats(tables, _met(tournament, row.number))


def has_hands(row: Round) -> bool:
    """Whether any table of ``row`` has entered a hand (struck ones count too)."""
    ids = [t.match_id for t in row.tables]
    if not ids:
        return False
    found = db.session.execute(
        select(func.count()).select_from(Hand).where(Hand.match_id.in_(ids))
    ).scalar_one()
    return bool(found)


_REDRAW = (
    update(Round.__table__)
    .where(Round.__table__.c.id == bindparam("round_id"))
    .where(Round.__table__.c.attempt == bindparam("read"))
    .values(attempt=bindparam("attempt"), seed=bindparam("seed"), drawn_at=bindparam("now"))
)


def redraw(tournament: Tournament, row: Round, attempt: int) -> Round:
    """Draw ``row`` again with the next seed, while no table has entered a hand.

    ``attempt`` is the draw the organiser saw: of two tabs asking at once, one
    draws again and the other gets ``ConflictError`` (it shows the new seating).
    """
    if row.closed_at is not None or has_hands(row):
        raise RulesError("a table of this round has entered a hand: the draw stands")
    if attempt != row.attempt:
        raise ConflictError()
    new_attempt = row.attempt + 1
    seed = _seed(tournament, row.number, new_attempt)
    values = {"round_id": row.id, "read": attempt, "attempt": new_attempt, "seed": seed}
    done = db.session.connection().execute(_REDRAW, {**values, "now": utcnow()}).rowcount
    if done != 1:
        db.session.rollback()
        raise ConflictError()
    # A table phone's first hand may have come in since the check above: with the
    # matches locked (a hand now waits, then finds its match gone: a conflict, not
    # a save) look again, or the matches' cascade would delete a saved hand.
    ids = [t.match_id for t in row.tables]
    if ids:
        db.session.execute(select(Match.id).where(Match.id.in_(ids)).with_for_update())
    if has_hands(row):
        db.session.rollback()
        raise RulesError("a table of this round has entered a hand: the draw stands")
    old_matches = [t.match for t in row.tables]
    row.tables.clear()
    db.session.flush()
    for match in old_matches:
        db.session.delete(match.session)
        db.session.delete(match)
    db.session.flush()
    db.session.expire(row, ["attempt", "seed", "drawn_at"])
    _seat_tables(tournament, row)
    bump(tournament)
    db.session.commit()
    return row


def unfinished(row: Round) -> list[int]:
    """The numbers of the tables of ``row`` that have neither played out nor a paper slip."""
    return [t.number for t in row.tables if t.paper is None and t.match.finished_at is None]


def close_round(tournament: Tournament, row: Round) -> None:
    """Close ``row``: its tables write no more (the organiser still corrects).

    Refused while a table has neither played its deals nor a paper slip.
    Closing a closed round again changes nothing.
    """
    if row.closed_at is not None:
        return
    missing = unfinished(row)
    if len(missing) == 1:
        raise RulesError(
            "table {tables} has not finished: wait for it, or type in its paper slip",
            tables=missing[0],
        )
    if missing:
        raise RulesError(
            "tables {tables} have not finished: wait for them, or type in their paper slips",
            tables=", ".join(str(n) for n in missing),
        )
    now = utcnow()
    row.closed_at = now
    ids = [t.match_id for t in row.tables]
    db.session.execute(_LOCK, {"ids": ids, "locked": "closed", "now": now})
    for table in row.tables:
        db.session.expire(table.match, ["locked", "version", "updated_at"])
    bump(tournament)
    db.session.commit()


def replace_link(tournament: Tournament, table: TournamentTable) -> str:
    """Give ``table`` a new link; the old one writes nothing from now on and says why.

    Returns the new token.  The match counts a change, so a form the old phone
    still shows is refused as stale even before its link is looked up.
    """
    match = table.match
    db.session.add(RetiredLink(token=match.token, match_id=match.id, link_number=table.link_number))
    match.token = new_token()
    table.link_number += 1
    match.version += 1
    match.updated_at = utcnow()
    bump(tournament)
    db.session.commit()
    return match.token


def retired(token: str) -> RetiredLink | None:
    """The replaced link behind ``token``, if it is one."""
    return db.session.execute(
        select(RetiredLink).where(RetiredLink.token == token)
    ).scalar_one_or_none()
