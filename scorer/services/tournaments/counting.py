"""The tournament's change count: what its polls compare, counted once per commit.

The public pages and the organiser's board poll every few seconds whether
anything changed.  They used to sum the versions of every match of the
tournament for it (a thousand at a big hall, on every poll).  Now every
transaction that changed a table's match (``services.writes.touch`` notes it: a
hand saved, corrected, struck or restored, a confirmation, a paper slip, a new
link) counts one at its tournament's :class:`~scorer.tournament_models.TournamentChanges`
row, and a poll reads those few rows (:data:`SHARDS`).

Why a poll never misses a change: the count is written in the same transaction
as the change, so no poll can read the new count without the change, or the
change without the new count, and every commit that changed a table adds one,
so the total a poll reads (one statement: one moment) grows with each.  Two
transactions counting at once are put in order by the row's lock (``count =
count + 1`` as one statement: neither overwrites the other).  The statement is
the transaction's last before its commit (the session's ``before_commit``), so a
transaction that waits for the lock holds nothing another one waits for, and a
save waits for another one's commit, never for its work; and the count lies in
:data:`SHARDS` rows by the match's id, so that two tables' saves seldom meet at
one row (a hall's 1,000 tables save 16 hands a second).  A tournament's own rows
count in its ``version`` (``setup.bump``), which the polls read beside the count.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, Integer, bindparam, event, func, literal, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from ...extensions import db
from ...models import utcnow
from ...tournament_models import Round, TournamentChanges, TournamentTable
from ..writes import CHANGED

SHARDS = 16
"""Rows a tournament's count lies in (by the match's id); a poll adds them up."""

_C = TournamentChanges.__table__
_R = Round.__table__
_TT = TournamentTable.__table__

# the tournaments and shards of the changed matches (a match outside a tournament has
# none), each once, in order (what one transaction counts in several rows is locked in
# one order)
_SHARD = (_TT.c.match_id % SHARDS).label("shard")
_OWNERS = (
    select(
        _R.c.tournament_id,
        _SHARD,
        literal(1, Integer).label("count"),
        bindparam("now", type_=DateTime()).label("changed_at"),
    )
    .select_from(_TT.join(_R, _R.c.id == _TT.c.round_id))
    .where(_TT.c.match_id.in_(bindparam("match_ids", expanding=True)))
    .distinct()
    .order_by(_R.c.tournament_id, _SHARD)
)


def _upsert(dialect: str) -> Any:
    """INSERT … ON CONFLICT DO UPDATE of the counts (both databases know it, in their words)."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(_C).from_select(["tournament_id", "shard", "count", "changed_at"], _OWNERS)
    return statement.on_conflict_do_update(
        index_elements=[_C.c.tournament_id, _C.c.shard],
        set_={"count": _C.c.count + 1, "changed_at": statement.excluded.changed_at},
    )


_STATEMENTS = {name: _upsert(name) for name in ("postgresql", "sqlite")}


def count_changes(session: Session, now: datetime | None = None) -> None:
    """Count one change at the tournament of every match the open transaction changed.

    Called by the session just before it commits (:func:`listen`); the changes
    of the use case are flushed first, so the count is the transaction's last write.
    """
    changed = session.info.pop(CHANGED, None)
    if not changed:
        return
    session.flush()
    connection = session.connection()
    statement = _STATEMENTS[connection.dialect.name]
    connection.execute(statement, {"match_ids": sorted(changed), "now": now or utcnow()})


def _forget(session: Session, *_: Any) -> None:
    """A transaction begun or rolled back: what an earlier one changed is not counted."""
    session.info.pop(CHANGED, None)


def listen() -> None:
    """Count at every commit of the app's database sessions (once per process)."""
    for name, handler in (
        ("before_commit", count_changes),
        ("after_begin", _forget),
        ("after_rollback", _forget),
    ):
        if not event.contains(db.session, name, handler):
            event.listen(db.session, name, handler)


def totals(tournament: Any) -> tuple[Any, Any]:
    """The change count of ``tournament`` (a column or a value: its id) and its last change,
    as scalar subqueries of its few rows, for a poll's one statement (0, None: none yet)."""
    mine = _C.c.tournament_id == tournament
    count = select(func.coalesce(func.sum(_C.c.count), 0)).where(mine).scalar_subquery()
    last = select(func.max(_C.c.changed_at)).where(mine).scalar_subquery()
    return count, last


def read(tournament_id: int) -> tuple[int, datetime | None]:
    """The tournament's change count and its last change (0, None: nothing counted yet)."""
    count, last = totals(tournament_id)
    with db.engine.connect() as connection:
        found = connection.execute(select(count, last)).one()
    return int(found[0]), found[1]
