"""The hall's side: what changed since the spare's confirmed state, and the pushes that carry it.

Every unit (:mod:`.rows`) has a *fingerprint*: a hash of what changes whenever
its rows change — a table's match version and last change with the table's own
row (players, link number, slip), a tournament's version and last change with
what its players paid and where it is online, a series' version with its people.
Every write of the app counts its change there (a saved deal bumps its match, an
organiser's change its tournament; a "paid" tap changes what was paid), so equal
fingerprints mean equal rows, and the spare keeps per unit the fingerprint of
the state it holds.

A round of the hall's follower (:class:`Survey`) reads, in one snapshot of the
database (SQLite: one read transaction; PostgreSQL: repeatable read), a few
statements over every tournament — their rows, the sum of their matches'
versions, what was paid — and only for a tournament where one of them moved,
its tables' keys.  A unit whose fingerprint differs from the spare's is read
whole and sent.  So a round of a hall where nothing changed costs a few small
statements (and on SQLite none: ``PRAGMA data_version`` says nothing was
committed), and a saved deal costs one table's rows.

Units go in *groups* that stand on their own: a tournament alone, or a series
with all its evenings (an evening's players name the series' people).  A push
holds whole groups, the most recently changed first, up to :data:`BUDGET`
bytes (a group bigger than that goes alone), so that what the spare holds is
always a consistent state of every group.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from ...extensions import db
from ...models import Match
from ...online_models import OnlineLink
from ...tournament_models import Entrant, Round, Series, SeriesPlayer, Tournament, TournamentTable
from .rows import Unit, read_series, read_tables, read_tournaments

BUDGET = 4 * 1024 * 1024
"""Bytes of units (JSON, before compression) a push carries at most, but one group."""

_T = Tournament.__table__
_S = Series.__table__
_P = SeriesPlayer.__table__
_E = Entrant.__table__
_R = Round.__table__
_TT = TournamentTable.__table__
_M = Match.__table__
_O = OnlineLink.__table__

Key = tuple[str, int]
"""A unit's name: its kind and the hall's id."""


def _hash(*parts: Any) -> str:
    text = json.dumps(parts, default=str, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:40]


@contextmanager
def snapshot() -> Iterator[Connection]:
    """The session's connection with every read until the end of the block seeing one state
    of the database (SQLite: one read transaction; PostgreSQL: repeatable read); the
    reads of the ORM in the block (an export) see it too.  Rolled back after."""
    session = db.session
    session.rollback()
    if session.get_bind().dialect.name == "sqlite":
        connection = session.connection()
        # pysqlite begins a transaction only before a write: begin it here, so that the
        # reads share one snapshot of the WAL
        connection.exec_driver_sql("BEGIN")
    else:
        connection = session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
    try:
        yield connection
    finally:
        session.rollback()


_HEADS = select(_T.c.id, _T.c.series_id, _T.c.version, _T.c.updated_at, _T.c.restored).where(
    _T.c.restoring.is_(None)
)
_MATCHES = (
    select(
        _R.c.tournament_id,
        func.coalesce(func.sum(_M.c.version), 0),
        func.count(_M.c.id),
        func.max(_M.c.updated_at),
    )
    .select_from(_R.join(_TT, _TT.c.round_id == _R.c.id).join(_M, _M.c.id == _TT.c.match_id))
    .group_by(_R.c.tournament_id)
)
_PAID = select(
    _E.c.tournament_id,
    func.count(_E.c.paid_at),
    func.coalesce(func.sum(_E.c.paid_cents), 0),
    func.max(_E.c.paid_at),
).group_by(_E.c.tournament_id)
_ONLINE = select(_O.c.tournament_id, _O.c.address, _O.c.key)
_SERIES = select(_S.c.id, _S.c.version, _S.c.updated_at).where(_S.c.restoring.is_(None))
_PEOPLE = select(
    _P.c.series_id, func.count(_P.c.id), func.max(_P.c.id), func.max(_P.c.created_at)
).group_by(_P.c.series_id)
_TABLES = select(
    _TT.c.match_id,
    _TT.c.id,
    _TT.c.round_id,
    _TT.c.number,
    _TT.c.players,
    _TT.c.link_number,
    _TT.c.done_at,
    _TT.c.paper,
    _TT.c.paper_log,
    _M.c.version,
    _M.c.updated_at,
    _M.c.locked,
).select_from(_R.join(_TT, _TT.c.round_id == _R.c.id).join(_M, _M.c.id == _TT.c.match_id))


@dataclass
class Survey:
    """The follower's memory of the hall between rounds: what it read, and every unit's
    fingerprint as of its last round (the hall's state, which a spare should hold)."""

    heads: dict[int, str] = field(default_factory=dict)
    match_sums: dict[int, Any] = field(default_factory=dict)
    fingerprints: dict[Key, str] = field(default_factory=dict)
    tables_of: dict[int, list[int]] = field(default_factory=dict)
    series_of: dict[int, int | None] = field(default_factory=dict)
    changed_at: dict[int, datetime] = field(default_factory=dict)
    last_change: datetime | None = None

    def look(self, connection: Connection) -> None:
        """Bring every fingerprint up to the connection's snapshot (reading only what moved)."""
        heads = {row[0]: row for row in connection.execute(_HEADS)}
        sums = {row[0]: tuple(row[1:]) for row in connection.execute(_MATCHES)}
        paid = {row[0]: tuple(row[1:]) for row in connection.execute(_PAID)}
        online = {row[0]: tuple(row[1:]) for row in connection.execute(_ONLINE)}
        series = {row[0]: tuple(row[1:]) for row in connection.execute(_SERIES)}
        people = {row[0]: tuple(row[1:]) for row in connection.execute(_PEOPLE)}
        fingerprints: dict[Key, str] = {}
        moments: list[datetime] = []
        moved: list[int] = []
        for tournament_id, row in heads.items():
            _, series_id, version, updated_at, restored = row
            if series_id is not None and series_id not in series:
                continue  # its series is being restored: it is not complete yet
            head = _hash(
                series_id,
                version,
                updated_at,
                restored,
                paid.get(tournament_id),
                online.get(tournament_id),
            )
            fingerprints[("t", tournament_id)] = head
            self.series_of[tournament_id] = series_id
            when = [
                updated_at,
                *(
                    v
                    for v in (
                        sums.get(tournament_id, (0, 0, None))[2],
                        paid.get(tournament_id, (0, 0, None))[2],
                    )
                    if v
                ),
            ]
            self.changed_at[tournament_id] = max(when)
            moments.append(self.changed_at[tournament_id])
            if (
                self.heads.get(tournament_id) != head
                or self.match_sums.get(tournament_id) != sums.get(tournament_id)
                or tournament_id not in self.tables_of
            ):
                moved.append(tournament_id)
            self.heads[tournament_id] = head
            self.match_sums[tournament_id] = sums.get(tournament_id)
        for tournament_id in moved:
            self._tables(connection, tournament_id)
        for tournament_id in list(self.tables_of):
            if ("t", tournament_id) not in fingerprints:
                self.forget(tournament_id)
                continue
            for match_id in self.tables_of[tournament_id]:
                key = ("m", match_id)
                if key in self.fingerprints:
                    fingerprints[key] = self.fingerprints[key]
        for series_id, series_row in series.items():
            fingerprints[("s", series_id)] = _hash(series_row, people.get(series_id))
            moments.append(series_row[1])
        self.fingerprints = fingerprints
        self.last_change = max(moments) if moments else None

    def _tables(self, connection: Connection, tournament_id: int) -> None:
        """The fingerprints of one tournament's tables (one statement)."""
        found = connection.execute(
            _TABLES.where(_R.c.tournament_id == tournament_id).order_by(_TT.c.match_id)
        )
        matches = []
        for row in found:
            match_id = int(row[0])
            matches.append(match_id)
            self.fingerprints[("m", match_id)] = _hash(*row)
        self.tables_of[tournament_id] = matches

    def forget(self, tournament_id: int) -> None:
        for match_id in self.tables_of.pop(tournament_id, []):
            self.fingerprints.pop(("m", match_id), None)
        self.heads.pop(tournament_id, None)
        self.match_sums.pop(tournament_id, None)
        self.series_of.pop(tournament_id, None)
        self.changed_at.pop(tournament_id, None)

    # -- what to send -----------------------------------------------------------------------

    def groups(self) -> list[list[Key]]:
        """Every unit of the hall in its group (a tournament; a series with its evenings),
        the most recently changed group first."""
        evenings: dict[int, list[int]] = {}
        alone: list[int] = []
        for tournament_id, series_id in self.series_of.items():
            if ("t", tournament_id) not in self.fingerprints:
                continue
            if series_id is None:
                alone.append(tournament_id)
            else:
                evenings.setdefault(series_id, []).append(tournament_id)
        out: list[tuple[datetime | None, list[Key]]] = []
        for tournament_id in alone:
            out.append((self.changed_at.get(tournament_id), self._group([tournament_id])))
        for series_id, ids in evenings.items():
            if ("s", series_id) not in self.fingerprints:
                continue
            when = max((self.changed_at[t] for t in ids if t in self.changed_at), default=None)
            out.append((when, [("s", series_id), *self._group(sorted(ids))]))
        for key in self.fingerprints:
            if key[0] == "s" and key[1] not in evenings:
                out.append((None, [key]))  # a series without an evening (yet)
        out.sort(key=lambda item: item[0] or datetime.min, reverse=True)
        return [keys for _, keys in out]

    def _group(self, tournaments: list[int]) -> list[Key]:
        keys: list[Key] = []
        for tournament_id in tournaments:
            keys.append(("t", tournament_id))
            keys.extend(("m", m) for m in self.tables_of.get(tournament_id, []))
        return keys


@dataclass
class Push:
    """What one push carries: units to hold (with their fingerprints) and units gone."""

    units: list[tuple[Unit, str]] = field(default_factory=list)
    gone: list[Key] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.units or self.gone)


def plan(
    connection: Connection, survey: Survey, confirmed: dict[Key, str], budget: int = BUDGET
) -> Push:
    """The next push: whole groups whose units differ from what the spare ``confirmed``,
    read in the connection's snapshot, up to ``budget`` bytes; and the units it holds
    that the hall has no more."""
    push = Push(gone=[key for key in confirmed if key not in survey.fingerprints])
    size = 0
    for keys in survey.groups():
        wanted = [k for k in keys if confirmed.get(k) != survey.fingerprints.get(k)]
        if not wanted:
            continue
        if push.units and size >= budget:
            break
        units = _read(connection, wanted)
        for key in wanted:
            unit = units.get(key)
            if unit is None:
                continue
            push.units.append((unit, survey.fingerprints[key]))
            size += len(json.dumps(unit.rows, default=str))
    return push


def _read(connection: Connection, keys: list[Key]) -> dict[Key, Unit]:
    by_kind: dict[str, list[int]] = {}
    for kind, unit_id in keys:
        by_kind.setdefault(kind, []).append(unit_id)
    found: dict[Key, Unit] = {}
    readers = {"s": read_series, "t": read_tournaments, "m": read_tables}
    for kind, ids in by_kind.items():
        for unit_id, unit in readers[kind](connection, ids).items():
            found[(kind, unit_id)] = unit
    return found


def last_change() -> datetime | None:
    """The hall's last save: of a deal, a tournament's rows, a "paid" tap (three statements)."""
    found = [
        db.session.execute(select(func.max(_M.c.updated_at))).scalar(),
        db.session.execute(select(func.max(_T.c.updated_at))).scalar(),
        db.session.execute(select(func.max(_E.c.paid_at))).scalar(),
    ]
    moments = [m for m in found if m is not None]
    return max(moments) if moments else None
