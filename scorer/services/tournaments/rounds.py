"""The rounds: the draw, drawing again, the tables' matches, closing, replacing a link.

Every write here is a use case (``services.unit``): the database decides the
races.  A round is drawn once: its number is unique in the tournament, so of two
organiser tabs drawing at the same moment the second one runs again and answers
the first one's round.  Every table of the round is a match of its own
(in a session of its own), started with the tournament's ruleset for the
table's size; seat 1 is the Schreiber and deals first.

Closing a round locks its matches (``Match.locked``) and counts a change of
each (a new version, guarded by the version read): a table phone's save that
read the match before the close loses the race and is refused, and every later
one is refused with the reason; a table that changed as the close was made
makes the close run again.  Only the organiser still corrects hands of a
closed round.  Drawing again and a new link guard the matches the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam, func, select, tuple_, update

from ...extensions import db
from ...models import GameSession, Hand, Match, Seat, new_token, utcnow
from ...rules import RulesError
from ...rules.tournament import draw, households_apart, met_again, plays_round
from ...tournament_models import (
    Entrant,
    RedrawnLink,
    RetiredLink,
    Round,
    Tournament,
    TournamentTable,
)
from ..errors import ConflictError
from ..events import RoundClosed, RoundDrawn, RoundRedrawn, TableLinkReplaced
from ..sheets import sheet, standing_of
from ..starting import default_parties
from ..unit import LostRace, announce, use_case
from ..writes import touch
from .series_people import met_before
from .setup import bump, table_ruleset_of

_MATCHES = Match.__table__


def in_round(entrant: Entrant, number: int) -> bool:
    """Whether ``entrant`` is drawn for round ``number`` (the rules' ``plays_round``)."""
    return plays_round(
        number,
        start_number=entrant.number,
        from_round=entrant.from_round,
        withdrawn_before=entrant.withdrawn_before,
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


def _seating(tournament: Tournament, row: Round) -> list[list[Entrant]]:
    """The draw of ``row``: its players at their tables, in seat order."""
    players = drawn_for(tournament, row.number)
    by_number = {e.number: e for e in players}
    tables = draw(
        [e.number or 0 for e in players],
        _met(tournament, row.number),
        seed=row.seed,
        apart=households_apart({e.number or 0: e.household for e in players}),
    )
    return [[by_number[n] for n in numbers] for numbers in tables]


def _seat_tables(tournament: Tournament, row: Round) -> None:
    """Draw ``row`` and start a match for each of its tables (no commit)."""
    for index, seated in enumerate(_seating(tournament, row), start=1):
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


@use_case
def draw_round(tournament: Tournament, number: int) -> Round:
    """Draw round ``number`` (the next one), committed; the one already drawn if it exists.

    Refused (``RulesError``) while the round before is open, after the last
    round, and when the players checked in make no tables (0, 1, 2 or 5).  Of two
    tabs drawing at once, the later one's insert meets the unique round number
    (or its guarded bump the other's): run again, it answers with the other's round.
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
    # first: a withdrawal or a check-in another tab makes at this moment either comes
    # before the draw (which then sees it) or is run again after it
    bump(tournament)
    row = Round(number=number, seed=_seed(tournament, number, 1))
    tournament.round_rows.append(row)
    _seat_tables(tournament, row)
    announce(RoundDrawn(tournament.id, number))
    return row


def next_number(tournament: Tournament) -> int | None:
    """The round the organiser may draw now, or None (one is open, or all are drawn)."""
    rows = tournament.round_rows
    if rows and rows[-1].closed_at is None:
        return None
    number = len(rows) + 1
    return number if number <= tournament.rounds else None


def repeated_pairs(tournament: Tournament, row: Round) -> int | None:
    """How many pairs at ``row``'s tables already shared a table in an earlier round
    (of this evening or, in a series that counts them, of the evenings before); None
    when no table came before (the rules: ``met_again``).

    What the draw achieved, shown beside its seed: 0 is the goal, and the draw
    reaches it wherever a round-by-round draw can.
    """
    numbers = {e.id: e.number or 0 for e in tournament.entrants}
    tables = [tuple(numbers[p] for p in table.players) for table in row.tables]
    return met_again(tables, _met(tournament, row.number))


_MATCH_NOW = select(
    _MATCHES.c.id,
    _MATCHES.c.version,
    _MATCHES.c.finished_at,
    select(func.count())
    .select_from(Hand.__table__)
    .where(Hand.__table__.c.match_id == _MATCHES.c.id)
    .scalar_subquery(),
).where(_MATCHES.c.id.in_(bindparam("ids", expanding=True)))


@dataclass(frozen=True)
class MatchNow:
    """A table's match as one statement read it: the version its hands and end belong to."""

    version: int
    finished: bool
    hands: int


def matches_now(row: Round) -> dict[int, MatchNow]:
    """Every table's match of ``row`` by id, read in one statement (one snapshot).

    The version goes with the hands and the end read with it: a write that acts on
    them guards its UPDATE with that version (:func:`_claim`), so what it read is
    still true when it writes, or it loses.
    """
    ids = [t.match_id for t in row.tables]
    if not ids:
        return {}
    rows = db.session.execute(_MATCH_NOW, {"ids": ids})
    return {
        i: MatchNow(version, finished is not None, hands) for i, version, finished, hands in rows
    }


def _claim(read: dict[int, MatchNow], **values: object) -> None:
    """One guarded UPDATE of the matches of ``read`` at the versions read (with ``values``).

    ``LostRace`` when any of them changed since (a table saved a hand, struck one,
    confirmed): the use case runs again on what the table wrote.
    """
    if not read:
        return
    done = db.session.execute(
        update(_MATCHES)
        .where(
            tuple_(_MATCHES.c.id, _MATCHES.c.version).in_([(i, m.version) for i, m in read.items()])
        )
        .values(version=_MATCHES.c.version + 1, updated_at=utcnow(), **values)
    )
    if done.rowcount != len(read):  # type: ignore[attr-defined]
        raise LostRace()


def started(row: Round, read: dict[int, MatchNow] | None = None) -> list[int]:
    """The numbers of the tables of ``row`` that have begun: a hand entered (struck ones
    count too) or a paper slip typed in (``read``: the matches as read before)."""
    now = matches_now(row) if read is None else read
    return [t.number for t in row.tables if now[t.match_id].hands or t.paper is not None]


def has_hands(row: Round) -> bool:
    """Whether any table of ``row`` has begun (a hand, struck or not, or a paper slip)."""
    return bool(started(row))


_REDRAW = (
    update(Round.__table__)
    .where(Round.__table__.c.id == bindparam("round_id"))
    .where(Round.__table__.c.attempt == bindparam("read"))
    .values(attempt=bindparam("attempt"), seed=bindparam("seed"), drawn_at=bindparam("now"))
)


def _refuse_started(number: int, tables: Sequence[int]) -> None:
    if len(tables) == 1:
        raise RulesError(
            "table {tables} has started: round {number} can no longer be drawn again",
            tables=tables[0],
            number=number,
        )
    if tables:
        raise RulesError(
            "tables {tables} have started: round {number} can no longer be drawn again",
            tables=", ".join(str(n) for n in tables),
            number=number,
        )


@use_case
def redraw(tournament: Tournament, row: Round, attempt: int) -> Round:
    """Draw ``row`` again with the next seed, while no table has begun.

    ``attempt`` is the draw the organiser saw: of two tabs asking at once, one
    draws again and the other gets ``ConflictError`` (it shows the new seating).

    The tables keep their matches: each gets its new players and new links in
    one UPDATE guarded by the version at which it was read without a hand.  Of a
    redraw and a table phone's first hand at the same moment, the database
    decides: the hand came first — the redraw runs again and is refused, naming
    the table; the redraw came first — the hand's own guarded write finds a newer
    version and is refused, and its old link says the table was drawn again
    (:class:`~scorer.tournament_models.RedrawnLink`).
    """
    if row.closed_at is not None:
        raise RulesError("round {number} is closed: the draw stands", number=row.number)
    if attempt != row.attempt:
        raise ConflictError()
    read = matches_now(row)
    _refuse_started(row.number, started(row, read))
    bump(tournament)
    new_attempt = row.attempt + 1
    seed = _seed(tournament, row.number, new_attempt)
    values = {"round_id": row.id, "read": attempt, "attempt": new_attempt, "seed": seed}
    done = db.session.execute(_REDRAW, {**values, "now": utcnow()})
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise LostRace()  # run again: the other tab's redraw is seen (a ConflictError)
    db.session.expire(row, ["attempt", "seed", "drawn_at"])
    now = utcnow()
    old = {t.match_id: t.match.token for t in row.tables}
    # the old links, and the links retired before: all of them name the draw made again
    earlier = db.session.execute(
        select(RetiredLink).where(RetiredLink.match_id.in_(list(old)))
    ).scalars()
    for link in earlier:
        db.session.add(RedrawnLink(token=link.token, round_id=row.id, retired_at=now))
        db.session.delete(link)
    for token in old.values():
        db.session.add(RedrawnLink(token=token, round_id=row.id, retired_at=now))
    seating = _seating(tournament, row)
    tables = sorted(row.tables, key=lambda t: t.number)
    if [len(s) for s in seating] != [len(t.players) for t in tables]:
        # (the players of a drawn round cannot change: a late arrival joins the next one)
        raise RulesError("the players of round {number} have changed", number=row.number)
    for table, seated in zip(tables, seating, strict=True):
        match = table.match
        done = db.session.execute(
            update(_MATCHES)
            .where(_MATCHES.c.id == match.id, _MATCHES.c.version == read[match.id].version)
            .values(
                version=_MATCHES.c.version + 1,
                updated_at=now,
                token=new_token(),
                view_token=new_token(),
            )
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            raise LostRace()  # a table's first hand came in: run again, it is refused
        db.session.expire(match, ["version", "updated_at", "token", "view_token"])
        for seat, entrant in zip(match.seats, seated, strict=True):
            seat.name = entrant.name
        table.players = [e.id for e in seated]
        table.link_number = 1
        table.done_at = None
    db.session.flush()
    for table in tables:
        table.match.standing = standing_of(table.match, sheet(table.match))
    announce(RoundRedrawn(tournament.id, row.number))
    return row


def unfinished(row: Round) -> list[int]:
    """The numbers of the tables of ``row`` that have neither played out nor a paper slip."""
    return [t.number for t in row.tables if t.paper is None and t.match.finished_at is None]


@use_case
def close_round(tournament: Tournament, row: Round) -> None:
    """Close ``row``: its tables write no more (the organiser still corrects).

    Refused while a table has neither played its deals nor a paper slip.
    Closing a closed round again changes nothing.  Every table is locked at the
    version at which it was read finished: a table that struck its last hand at
    the same moment makes the close run again, and then refuse.
    """
    if row.closed_at is not None:
        return
    read = matches_now(row)
    missing = [t.number for t in row.tables if t.paper is None and not read[t.match_id].finished]
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
    bump(tournament)
    row.closed_at = utcnow()
    _claim(read, locked="closed")
    for table in row.tables:
        db.session.expire(table.match, ["locked", "version", "updated_at"])
    announce(RoundClosed(tournament.id, row.number))


@use_case
def replace_link(
    tournament: Tournament, table: TournamentTable, link: int | None = None
) -> str | None:
    """Give ``table`` a new link; the old one writes nothing from now on and says why.

    Returns the new token.  ``link``: the number of the link the organiser's page
    showed; when the table has another one already (the other tab, a double tap),
    that one stands, nothing changes and the answer is None.  The match counts a change (guarded by
    the version read): a hand the old phone saves at the same moment either came
    first and stays, or finds the new version and is refused with the reason.
    """
    if table.round.closed_at is not None:
        raise RulesError("the round is closed: its tables write nothing any more")
    if link is not None and link != table.link_number:
        return None
    match = table.match
    old = match.token
    token = new_token()
    touch(match, token=token)
    db.session.add(RetiredLink(token=old, match_id=match.id, link_number=table.link_number))
    table.link_number += 1
    bump(tournament)
    announce(TableLinkReplaced(tournament.id, table.round.number, table.number))
    return token


def retired(token: str) -> RetiredLink | RedrawnLink | None:
    """The replaced link, or the link of a draw made again, behind ``token``, if it is one."""
    found = db.session.execute(
        select(RetiredLink).where(RetiredLink.token == token)
    ).scalar_one_or_none()
    if found is not None:
        return found
    return db.session.execute(
        select(RedrawnLink).where(RedrawnLink.token == token)
    ).scalar_one_or_none()
