"""The organiser's board: every table of the round at a glance, paper slips, the change list.

The board reads what the tables' matches already store (their standing, their
end, their confirmations) and says per table how far it is, whether it is done
and signed, came on paper, or has been quiet for a while (a phone gone offline).
Its poll asks one Core statement whether anything changed.

A table whose phone failed enters on a paper slip: the organiser types per
player points and lost games (``TournamentTable.paper``); every change of the
slip is logged (``paper_log``) for the change list (:mod:`.changes`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, case, func, select
from sqlalchemy.orm import joinedload, selectinload

from ...extensions import db
from ...models import Match, utcnow
from ...rules import points_step
from ...rules.tournament import check_slip as rules_check_slip
from ...tournament_models import Round, Tournament, TournamentTable
from ..errors import NotFound
from ..sheets import ruleset_of
from ..unit import use_case
from ..writes import touch
from . import board_rows, counting
from .board_rows import RoundTable
from .public_pages import page_count
from .setup import bump, current_round
from .tables import TableState, deals_of

QUIET = timedelta(minutes=10)
"""A table in play that changed nothing for this long may have lost its phone."""

# -- the board -------------------------------------------------------------------------


@dataclass(frozen=True)
class Person:
    """A player as the board names them."""

    id: int
    name: str


@dataclass(frozen=True)
class BoardTable:
    """One table on the board: its state, its players in seat order, quiet since when."""

    id: int
    number: int
    state: TableState
    players: tuple[Person, ...]
    quiet_since: datetime | None

    @property
    def finished(self) -> bool:
        """Played out or typed in from paper: the round may be closed as far as it goes."""
        return self.state.finished

    @property
    def deal(self) -> int:
        """The deal being played now (1 before the first; the last once done)."""
        return min(self.state.played + 1, self.state.deals)


@dataclass(frozen=True)
class Board:
    """The current round as the organiser watches it: what is said of all its tables.

    ``tables`` holds every table of the round (id, number, state) in the order of
    their numbers; a page of the board (:func:`page_of`) names its own tables' players.
    """

    row: Round | None
    tables: tuple[RoundTable, ...]
    finished: int
    signed: int
    unfinished: list[int]
    """Tables still playing (closing the round waits for them)."""
    unsigned: list[int]
    """Tables done but not confirmed by all their players (closing warns of them)."""
    changed: list[int]
    """Tables changed after a player confirmed, waiting for their players again."""
    quiet: list[int]
    """Tables in play that changed nothing for :data:`QUIET` (a phone gone offline?)."""
    now: datetime | None = field(default=None, repr=False, compare=False)


BOARD_ROWS = 100
"""Tables on a page of the board: a hall of 1,000 tables reads in ten pages (what the
board counts, done, signed, changed and quiet, is over every table)."""


@dataclass(frozen=True)
class BoardPage:
    """The tables of one page of the board, which page it is and how many there are."""

    tables: tuple[BoardTable, ...]
    page: int
    pages: int


def round_tables(row: Round) -> list[TournamentTable]:
    """``row``'s tables with their matches, seats and confirmations, in three statements
    whatever the number of tables (the round's page and its paper)."""
    return list(
        db.session.execute(
            select(TournamentTable)
            .where(TournamentTable.round_id == row.id)
            .options(
                joinedload(TournamentTable.match).selectinload(Match.seats),
                selectinload(TournamentTable.confirmations),
            )
            .order_by(TournamentTable.number)
        )
        .unique()
        .scalars()
    )


def quiet_since(state: TableState, closed: bool, now: datetime) -> datetime | None:
    """When a table in play last changed, if that is :data:`QUIET` ago or longer.

    A table done, on paper, or in a closed round is never quiet.

    >>> from types import SimpleNamespace as T
    >>> nine = datetime(2025, 11, 8, 21, 14)
    >>> state = T(done=False, paper=False, last_change=nine)
    >>> quiet_since(state, False, nine + timedelta(minutes=10)) == nine
    True
    >>> quiet_since(state, False, nine + timedelta(minutes=9)) is None
    True
    """
    if closed or state.done or state.paper:
        return None
    return state.last_change if now - state.last_change >= QUIET else None


def board(tournament: Tournament, now: datetime | None = None) -> Board:
    """The board of the tournament's current round (no round yet: no tables).

    Every table of the round is read as plain rows (:func:`.board_rows.states`: a
    fixed number of statements, no ORM objects), enough to count and list what the
    board says of all of them; a page's players are named by :func:`page_of`.
    """
    row = current_round(tournament)
    if row is None:
        return Board(None, (), 0, 0, [], [], [], [])
    now = now or utcnow()
    closed = row.closed_at is not None
    found = tuple(board_rows.states(row.id))
    return Board(
        row=row,
        tables=found,
        finished=sum(1 for t in found if t.state.finished),
        signed=sum(1 for t in found if t.state.signed),
        unfinished=[t.number for t in found if not t.state.finished],
        unsigned=[t.number for t in found if t.state.finished and not t.state.signed],
        changed=[t.number for t in found if t.state.changed],
        quiet=[t.number for t in found if quiet_since(t.state, closed, now) is not None],
        now=now,
    )


def page_of(shown: Board, page: int, rows: int | None = None) -> BoardPage:
    """Page ``page`` (from 1; beyond the last is the last) of the board, balanced, with
    its tables' players named (one statement for the page's players, not the hall's).

    >>> page_of(Board(None, tuple(range(250)), 0, 0, [], [], [], []), 3)
    BoardPage(tables=(), page=3, pages=3)
    """
    pages, per = page_count(len(shown.tables), rows or BOARD_ROWS)
    page = max(1, min(page, pages))
    shown_here = shown.tables[(page - 1) * per : page * per]
    if shown.row is None:
        return BoardPage((), page, pages)
    closed = shown.row.closed_at is not None
    now = shown.now or utcnow()
    people = board_rows.names(p for t in shown_here for p in t.state.players)
    return BoardPage(
        tuple(
            BoardTable(
                id=t.id,
                number=t.number,
                state=t.state,
                players=tuple(Person(p, people[p]) for p in t.state.players),
                quiet_since=quiet_since(t.state, closed, now),
            )
            for t in shown_here
        ),
        page,
        pages,
    )


_T = Tournament.__table__
_COUNT, _LAST = counting.totals(_T.c.id)
_R = Round.__table__
_TT = TournamentTable.__table__
_M = Match.__table__
_EARLIER = _R.alias("earlier")
_LAST_ROUND = (
    select(func.max(_EARLIER.c.number))
    .where(_EARLIER.c.tournament_id == _T.c.id)
    .correlate(_T)
    .scalar_subquery()
)
_POLL = (
    select(
        _T.c.version,
        _T.c.updated_at,
        _COUNT,
        _LAST,
        func.count(_M.c.id),
        func.coalesce(
            func.sum(
                case(
                    (
                        and_(
                            _M.c.finished_at.is_(None), _M.c.updated_at <= bindparam("quiet_before")
                        ),
                        1,
                    ),
                    else_=0,
                )
            ),
            0,
        ),
    )
    .select_from(
        _T.outerjoin(_R, and_(_R.c.tournament_id == _T.c.id, _R.c.number == _LAST_ROUND))
        .outerjoin(_TT, _TT.c.round_id == _R.c.id)
        .outerjoin(_M, _M.c.id == _TT.c.match_id)
    )
    .where(_T.c.token == bindparam("token"))
    .group_by(_T.c.id, _T.c.version, _T.c.updated_at)
)


def poll_state(token: str, now: datetime | None = None) -> tuple[str, datetime] | None:
    """What the board shows, as a tag and its last change; None for no such tournament.

    One Core statement on a connection of its own: the tournament's version and
    its tables' change count (:mod:`.counting`: any change of a table counts),
    and how many tables of the current round in play are quiet (a table turning
    quiet changes the board though nothing was written: the one part that reads
    the round's tables, in the database, for the organiser's one poll every 5 s).
    """
    quiet_before = (now or utcnow()) - QUIET
    with db.engine.connect() as connection:
        found = connection.execute(_POLL, {"token": token, "quiet_before": quiet_before}).first()
    if found is None:
        return None
    version, updated, changes, changed, tables, quiet = found
    tag = f"board.t{version}.n{tables}.c{changes or 0}.q{quiet}"
    return tag, max(updated, changed or updated)


# -- tables by the organiser's address -------------------------------------------------


def table_of(tournament: Tournament, table_id: int) -> TournamentTable:
    """A table of the tournament by its id (an organiser's address), or NotFound."""
    if not 0 < table_id < 2**62:
        raise NotFound()
    table = db.session.get(TournamentTable, table_id)
    if table is None or table.round.tournament_id != tournament.id:
        raise NotFound()
    return table


def seat_names(tournament: Tournament, table: TournamentTable) -> list[str]:
    """The table's players' names in seat order."""
    people = board_rows.names(table.players)
    return [people[p] for p in table.players]


# -- paper slips -----------------------------------------------------------------------

Slip = Mapping[int, tuple[int, int]]
"""A paper slip as typed: entrant id → (points, lost games)."""


def check_slip(table: TournamentTable, slip: Slip) -> dict[str, list[int]]:
    """The slip as stored (``{entrant id: [points, lost]}`` in seat order), or RulesError.

    What a slip may hold is the rules' (:func:`scorer.rules.tournament.check_slip`):
    here the table gives its players, deals and the step of its points.
    """
    checked = rules_check_slip(
        table.players,
        slip,
        deals=deals_of(table.match),
        step=points_step(ruleset_of(table.match)),
        names=[seat.name for seat in table.match.seats],
    )
    return {str(entrant): [points, lost] for entrant, (points, lost) in checked.items()}


def slip_digest(paper: Mapping[str, Any] | None) -> str:
    """A short fingerprint of a slip as a page showed it (a stale form is told apart)."""
    text = json.dumps(paper, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class SlipChangedError(Exception):
    """The slip changed since the organiser's form was loaded (another tab saved)."""


@use_case
def set_paper(
    tournament: Tournament,
    table: TournamentTable,
    slip: Slip | None,
    *,
    shown: str | None = None,
) -> bool:
    """Type in (or change, or with None remove) the table's paper slip; committed.

    ``shown``: :func:`slip_digest` of the slip the form showed; when the slip has
    changed since, :class:`SlipChangedError` (nothing saved) — unless it already
    holds what was sent (the same form sent twice).  Returns whether anything
    changed.  The change is logged for the change list, counts as a change of
    the table's match (the board and the ranking show it) and of the tournament.
    """
    new = None if slip is None else check_slip(table, slip)
    old = table.paper
    if old == new:
        return False
    if shown is not None and shown != slip_digest(old):
        raise SlipChangedError()
    entry = {"at": utcnow().isoformat(), "before": old, "after": new}
    table.paper = new
    table.paper_log = [*(table.paper_log or []), entry]
    # one guarded UPDATE of the match: a table phone's write, or another tab's slip, at
    # the same moment makes this run again on what that one wrote (a slip it changed
    # then refuses this one as stale, above)
    touch(table.match)
    bump(tournament)
    return True
