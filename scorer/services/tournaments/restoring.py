"""A checked tournament (or series) file written in short parts, and a half-written one removed.

Why in parts: SQLite has one write lock for the whole database, taken by a
transaction's first write and held until its commit.  A tournament of 50
tables written in one transaction held it for seconds, and every table's save
waited that long (issue 27 §4).  So the rows go in with Core statements
(:mod:`scorer.services.bulk`) in transactions of at most :data:`PART_ROWS`
rows, each holding the lock for a few hundredths of a second; between two
parts a table's save gets it.  (PostgreSQL locks rows, not the database; the
same parts run there.)

Why nobody sees a half-written tournament: every link it has (the
tournament's, the series', each table's match, the replaced links) is written
as a stand-in, a new random token nobody knows, and the tournament and the
series are marked (``restoring``: the moment of the last part).  The last,
small transaction puts in the real links — the file's, or new ones for all
when any of the file's is in use here (the copy) — and clears the marks: the
whole tournament appears with one commit, or not at all.

All or nothing: when a part fails, the parts already written are removed
again (:func:`discard`, in parts too).  A process that dies halfway leaves
marked rows behind with stand-in links, which nothing finds; every restore
first removes those whose mark is older than :data:`STALE`
(:func:`discard_stale`; ``python -m scorer.hall`` does too when it starts) —
a restore that is alive renews its mark with every part.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, select, update

from ...extensions import db
from ...models import (
    GameSession,
    Hand,
    HandEvent,
    HandMeld,
    HandParty,
    Match,
    Seat,
    new_token,
    utcnow,
)
from ...tournament_models import (
    Confirmation,
    Entrant,
    RetiredLink,
    Round,
    Series,
    SeriesPlayer,
    Tournament,
    TournamentTable,
)
from .. import bulk
from ..errors import ConflictError
from ..unit import use_case
from .backup_reader import Link, Loader

PART_ROWS = 1500
"""Rows of one transaction: about 0.05 s of SQLite's write lock on the hall's laptop
(bench/RESULTS.md, "A restore under load")."""
PAUSE = 0.1
"""Seconds between two parts on SQLite.  A writer that finds the lock taken asks again
and again, at first every few milliseconds, after a quarter second every 0.1 s
(SQLite's busy handler): without a pause it may miss the moment between one part's
commit and the next part's first write, part after part."""
STALE = timedelta(minutes=10)
"""A mark this old is a restore's that died: a live one renews it with every part."""
DISCARD_MATCHES = 50
"""Matches removed in one transaction (their hands, lines and history with them)."""
GONE = datetime(2000, 1, 1)
"""The mark of rows being removed: older than every live mark, so the restore that wrote
them (if it is alive after all) finds its mark gone and stops."""


_TOURNAMENTS = Tournament.__table__
_SERIES = Series.__table__


def _chunks(ids: Sequence[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(ids), size):
        yield list(ids[start : start + size])


class _Parts:
    """The transactions of one restore: a commit whenever :data:`PART_ROWS` rows are in."""

    def __init__(self) -> None:
        self.rows = 0
        self.tournament_ids: list[int] = []
        self.series_ids: list[int] = []
        # those of them committed: a part rolled back leaves no row, and its ids may
        # become another's
        self.committed: tuple[list[int], list[int]] = ([], [])

    def add(self, objects: Sequence[Any], *, ids: bool = True) -> None:
        """Insert the objects in this part, whatever their number."""
        if not objects:
            return
        if not self.rows:
            # a part begins by renewing the marks: from here to its commit nobody takes
            # the rows for a dead restore's (SQLite: the write lock; PostgreSQL: the rows')
            _mark(self.tournament_ids, self.series_ids, utcnow())
        bulk.insert(objects, ids=ids)
        self.rows += len(objects)

    def insert(self, objects: Sequence[Any], *, ids: bool = True) -> None:
        """Insert the objects, committing whenever a part is full."""
        start = 0
        while start < len(objects):
            piece = objects[start : start + max(PART_ROWS - self.rows, 1)]
            self.add(piece, ids=ids)
            start += len(piece)
            if self.rows >= PART_ROWS:
                self.commit()

    def make_room(self, rows: int) -> None:
        """Commit what is in unless ``rows`` more fit into this part."""
        if self.rows and self.rows + rows > PART_ROWS:
            self.commit()

    def commit(self) -> None:
        """Commit this part, then let the hall's writers in (SQLite)."""
        db.session.commit()
        self.committed = (list(self.tournament_ids), list(self.series_ids))
        self.rows = 0
        _between_parts()


def _between_parts() -> None:
    """On SQLite: copy this part's pages from the WAL into the database file now (else the
    commit of a table's save that finds the WAL over 1,000 pages does it, and its phone
    waits for it), then pause for :data:`PAUSE`, so that a save waiting for the write lock
    gets it before the next part."""
    if db.session.get_bind().dialect.name != "sqlite":
        return  # PostgreSQL locks the rows written, not the database
    db.session.connection().exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    time.sleep(PAUSE)


def _mark(tournament_ids: list[int], series_ids: list[int], value: datetime | None) -> None:
    """Set the marks of the restore's rows; ConflictError when one is gone (taken for
    removal as a dead restore's: this one stood still longer than :data:`STALE`)."""
    connection = db.session.connection()
    for table, ids in ((_TOURNAMENTS, tournament_ids), (_SERIES, series_ids)):
        for chunk in _chunks(ids, 500):
            done = connection.execute(
                update(table)
                .where(table.c.id.in_(chunk), table.c.restoring > GONE)
                .values(restoring=value)
            ).rowcount
            if done != len(chunk):
                raise ConflictError()


def write(loader: Loader, series: Series | None, tournaments: Sequence[Tournament]) -> bool:
    """Write the rows a :class:`Loader` built, in parts; whether they became a copy.

    Every part is committed; on any failure the parts written are removed again
    and the error raised.  Raises :class:`ConflictError` when the links keep
    being taken by other restores (the unit of work's attempts) or the marks are gone.
    """
    parts = _Parts()
    try:
        _head(parts, series, tournaments)
        tables = [t for evening in tournaments for row in evening.round_rows for t in row.tables]
        for group in _groups(tables, loader.retired):
            _tables(parts, group, loader.retired)
        parts.commit()
        return _finish(parts, loader.links)
    except BaseException:
        db.session.rollback()
        # what cannot be removed now (the database gone) stays marked: the next restore
        # removes it once the mark is stale
        with contextlib.suppress(Exception):
            discard(*parts.committed, None)
        raise


def _head(parts: _Parts, series: Series | None, tournaments: Sequence[Tournament]) -> None:
    """The series with its people, the evenings (marked) with their players and rounds."""
    now = utcnow()
    people: dict[int, int] = {}
    if series is not None:
        series.restoring = now
        parts.add([series])
        parts.series_ids.append(series.id)
        stand_ins = [p.id for p in series.players]
        parts.insert(series.players)
        people = dict(zip(stand_ins, (p.id for p in series.players), strict=True))
    for evening in tournaments:
        evening.restoring = now
    parts.make_room(len(tournaments))
    parts.add(tournaments)
    parts.tournament_ids.extend(t.id for t in tournaments)
    entrants = [e for evening in tournaments for e in evening.entrants]
    for entrant in entrants:
        if entrant.series_player_id is not None:
            entrant.series_player_id = people[entrant.series_player_id]
    stand_ins = [e.id for e in entrants]
    parts.insert(entrants)
    players = dict(zip(stand_ins, (e.id for e in entrants), strict=True))
    parts.insert([row for evening in tournaments for row in evening.round_rows])
    for evening in tournaments:
        for row in evening.round_rows:
            for table in row.tables:
                renumber(table, players)


def renumber(table: TournamentTable, players: dict[int, int]) -> None:
    """Name the table's players by their ids in the database instead of their stand-ins:
    its seats, its paper slip and the slip's history, its confirmations."""

    def slip(value: dict[str, list[int]] | None) -> dict[str, list[int]] | None:
        if value is None:
            return None
        return {str(players[int(key)]): line for key, line in value.items()}

    table.players = [players[p] for p in table.players]
    table.paper = slip(table.paper)
    if table.paper_log is not None:
        table.paper_log = [
            {**entry, "before": slip(entry["before"]), "after": slip(entry["after"])}
            for entry in table.paper_log
        ]
    for confirmation in table.confirmations:
        confirmation.entrant_id = players[confirmation.entrant_id]


def _size(table: TournamentTable, retired: dict[TournamentTable, list[RetiredLink]]) -> int:
    """The rows a table makes: session, match, table, seats, hands with theirs, and so on."""
    hands = table.match.hands
    lines = sum(len(h.parties) + len(h.meld_log) + len(h.events) for h in hands)
    return (
        3
        + len(table.match.seats)
        + len(hands)
        + lines
        + len(table.confirmations)
        + len(retired.get(table, []))
    )


def _groups(
    tables: list[TournamentTable], retired: dict[TournamentTable, list[RetiredLink]]
) -> Iterator[list[TournamentTable]]:
    """The tables in groups of about :data:`PART_ROWS` rows (a bigger table alone)."""
    group: list[TournamentTable] = []
    rows = 0
    for table in tables:
        size = _size(table, retired)
        if group and rows + size > PART_ROWS:
            yield group
            group, rows = [], 0
        group.append(table)
        rows += size
    if group:
        yield group


def _tables(
    parts: _Parts,
    group: list[TournamentTable],
    retired: dict[TournamentTable, list[RetiredLink]],
) -> None:
    """A group of tables with their matches, in this part and the next ones.

    A match and the table row that names it go into one part: :func:`discard` finds a
    match through its table, so no part may leave one without the other.
    """
    matches = [t.match for t in group]
    parts.make_room(3 * len(group))
    parts.add([m.session for m in matches])
    parts.add(matches)
    parts.add(group)
    hands = [h for m in matches for h in m.hands]
    parts.insert([s for m in matches for s in m.seats], ids=False)
    parts.insert(hands)
    parts.insert([p for h in hands for p in h.parties], ids=False)
    parts.insert([m for h in hands for m in h.meld_log], ids=False)
    parts.insert([e for h in hands for e in h.events], ids=False)
    parts.insert([c for t in group for c in t.confirmations], ids=False)
    parts.insert([link for t in group for link in retired.get(t, [])], ids=False)


def in_use(tokens: list[str]) -> bool:
    """Whether any of these tokens names a row here (any kind of link)."""
    columns = (
        Tournament.token,
        Tournament.view_token,
        Series.token,
        Series.view_token,
        Match.token,
        Match.view_token,
        RetiredLink.token,
    )
    wanted = sorted(set(tokens))
    for start in range(0, len(wanted), 400):
        chunk = wanted[start : start + 400]
        for column in columns:
            if db.session.execute(select(column).where(column.in_(chunk)).limit(1)).first():
                return True
    return False


@use_case
def _finish(parts: _Parts, links: list[Link]) -> bool:
    """The last part: the real links in, the marks cleared; whether it became a copy.

    The file's links when none of them is in use here, else new ones for all of
    them (never a mix: some printed table cards would lead to the other copy).
    Another restore of the same file that finished first with these links makes the
    update meet their unique keys: the unit of work runs this again, which then finds
    them in use.
    """
    copy = in_use([link.token for link in links])
    by_column: dict[Any, list[dict[str, str]]] = {}
    for link in links:
        value = new_token() if copy else link.token
        row = {"stand_in": link.stand_in, "value": value}
        by_column.setdefault(link.column, []).append(row)
    for column, values in by_column.items():
        table = column.table
        db.session.execute(
            update(table)
            .where(table.c[column.key] == bindparam("stand_in"))
            .values({column.key: bindparam("value")}),
            values,
        )
    _mark(parts.tournament_ids, parts.series_ids, None)
    return copy


# -- removing a restore that failed or died --------------------------------------------------


def _claim(table: Any, row_id: int, before: datetime | None) -> bool:
    """Mark a tournament or a series as being removed (committed), if it is still marked as
    restoring (and the mark is older than ``before``): a restore that has finished it, or
    renewed its mark meanwhile, keeps it."""
    mark = table.c.restoring
    claimed = mark.is_not(None) if before is None else mark < before
    done = (
        db.session.connection()
        .execute(update(table).where(table.c.id == row_id, claimed).values(restoring=GONE))
        .rowcount
    )
    db.session.commit()
    return bool(done)


def discard(
    tournament_ids: Sequence[int], series_ids: Sequence[int], before: datetime | None
) -> None:
    """Remove these tournaments and series, marked as restoring (before ``before``), with
    every row of theirs, in short transactions."""
    for tournament_id in tournament_ids:
        if not _claim(_TOURNAMENTS, tournament_id, before):
            continue
        matches = list(
            db.session.execute(
                select(TournamentTable.match_id)
                .join(Round, TournamentTable.round_id == Round.id)
                .where(Round.tournament_id == tournament_id)
            ).scalars()
        )
        for chunk in _chunks(matches, DISCARD_MATCHES):
            _discard_matches(chunk)
            db.session.commit()
        rounds = select(Round.id).where(Round.tournament_id == tournament_id)
        db.session.execute(delete(TournamentTable).where(TournamentTable.round_id.in_(rounds)))
        db.session.execute(delete(Round).where(Round.tournament_id == tournament_id))
        db.session.execute(delete(Entrant).where(Entrant.tournament_id == tournament_id))
        db.session.execute(delete(Tournament).where(Tournament.id == tournament_id))
        db.session.commit()
    for series_id in series_ids:
        if not _claim(_SERIES, series_id, before):
            continue
        db.session.execute(delete(SeriesPlayer).where(SeriesPlayer.series_id == series_id))
        db.session.execute(delete(Series).where(Series.id == series_id))
        db.session.commit()


def _discard_matches(matches: list[int]) -> None:
    """Remove these matches of tournament tables, with their tables, sessions and rows."""
    hands = select(Hand.id).where(Hand.match_id.in_(matches))
    tables = select(TournamentTable.id).where(TournamentTable.match_id.in_(matches))
    sessions = list(
        db.session.execute(select(Match.session_id).where(Match.id.in_(matches))).scalars()
    )
    for model in (HandEvent, HandParty, HandMeld):
        db.session.execute(delete(model).where(model.hand_id.in_(hands)))
    db.session.execute(delete(Hand).where(Hand.match_id.in_(matches)))
    db.session.execute(delete(Seat).where(Seat.match_id.in_(matches)))
    db.session.execute(delete(Confirmation).where(Confirmation.table_id.in_(tables)))
    db.session.execute(delete(RetiredLink).where(RetiredLink.match_id.in_(matches)))
    db.session.execute(delete(TournamentTable).where(TournamentTable.match_id.in_(matches)))
    db.session.execute(delete(Match).where(Match.id.in_(matches)))
    db.session.execute(delete(GameSession).where(GameSession.id.in_(sessions)))


def discard_stale() -> None:
    """Remove what restores that died halfway left behind (marks older than :data:`STALE`)."""
    before = utcnow() - STALE
    tournaments = list(
        db.session.execute(select(Tournament.id).where(Tournament.restoring < before)).scalars()
    )
    series = list(db.session.execute(select(Series.id).where(Series.restoring < before)).scalars())
    db.session.rollback()  # the reads' transaction (PostgreSQL) ends before the parts
    if tournaments or series:
        discard(tournaments, series, before)
