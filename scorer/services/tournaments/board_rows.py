"""The board's reading: every table of a round as plain rows, in a fixed number of statements.

The organiser's board says of all the round's tables how many are done and
signed, which still play, which changed after signing and which are quiet; a
hall of 1,000 tables asks every 5 s.  Reading them as ORM objects (a table, its
match, seats and confirmations: 8,000 objects) cost a tenth of a second per
poll; here the same facts come as narrow rows — the match's progress read out
of its stored standing by the database — and only a page's players are named.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import bindparam, select

from ...extensions import db
from ...models import Match
from ...tournament_models import Confirmation, Entrant, TournamentTable
from ..sheets import STANDING_VERSION, standing
from .tables import TableState, hands_changed, split_confirmations

_TT = TournamentTable.__table__
_M = Match.__table__
_CF = Confirmation.__table__
_E = Entrant.__table__

# each table with what the board says of it: players, slip, end, last change, and the
# hands played and the deals, read out of the match's stored standing and ruleset
_TABLES = (
    select(
        _TT.c.id,
        _TT.c.number,
        _TT.c.players,
        _TT.c.paper,
        _M.c.id,
        _M.c.finished_at,
        _M.c.updated_at,
        _M.c.standing["v"].as_integer(),
        _M.c.standing["hands"].as_integer(),
        _M.c.ruleset["deals"].as_integer(),
    )
    .select_from(_TT.join(_M, _M.c.id == _TT.c.match_id))
    .where(_TT.c.round_id == bindparam("round_id"))
    .order_by(_TT.c.number)
)
_CONFIRMATIONS = (
    select(_CF.c.table_id, _CF.c.entrant_id, _CF.c.created_at)
    .select_from(_CF.join(_TT, _TT.c.id == _CF.c.table_id))
    .where(_TT.c.round_id == bindparam("round_id"))
    .order_by(_CF.c.id)
)
_NAMES = select(_E.c.id, _E.c.name).where(_E.c.id.in_(bindparam("ids", expanding=True)))


class RoundTable(NamedTuple):
    """A table of the round: its id, its number, how far it is."""

    id: int
    number: int
    state: TableState


def _played(match_id: int, version: Any, hands: Any) -> int:
    """Hands played, from the stored standing (a replay for a match stored without one)."""
    if version == STANDING_VERSION and hands is not None:
        return int(hands)
    return standing(db.session.get_one(Match, match_id)).hand_count


def states(round_id: int) -> list[RoundTable]:
    """Every table of the round in the order of their numbers, with its state.

    Three statements whatever the number of tables: the tables and their matches,
    the confirmations, and when the confirmed tables' hands last changed.
    """
    rows = db.session.execute(_TABLES, {"round_id": round_id}).all()
    given: dict[int, list[Any]] = defaultdict(list)
    for confirmation in db.session.execute(_CONFIRMATIONS, {"round_id": round_id}):
        given[confirmation.table_id].append(confirmation)
    changed: dict[int, datetime] = {}
    if given:
        changed = hands_changed(row[4] for row in rows if row[0] in given)
    out = []
    for table_id, number, players, paper, match_id, finished, updated, v, hands, deals in rows:
        confirmed, stale = split_confirmations(given.get(table_id, ()), changed.get(match_id))
        state = TableState(
            players=tuple(players),
            played=_played(match_id, v, hands),
            deals=12 if deals is None else int(deals),
            done=finished is not None,
            paper=paper is not None,
            confirmed=confirmed,
            last_change=updated,
            stale=stale,
        )
        out.append(RoundTable(table_id, number, state))
    return out


def names(entrant_ids: Iterable[int]) -> dict[int, str]:
    """The names of these players by id (one statement: a page's players, not the hall's)."""
    ids = sorted(set(entrant_ids))
    if not ids:
        return {}
    return {i: name for i, name in db.session.execute(_NAMES, {"ids": ids})}
