"""A tournament's tables read for its backup file: every match in a few statements, not thousands.

Exported one by one, each table's match loaded its hands, and each hand its party
lines, melds and history, one statement at a time: about 17,000 statements for
a tournament of 200 tables (half a minute on a busy laptop).  Here the matches
of all its tables are read with their seats and hands, the hands' lines, melds
and history, and the tables' confirmations, in a few statements per 400 tables
(``selectinload``) before the file is written.

:class:`Kept` keeps each match's exported part by its version and last change,
for a writer that exports the same tournaments again and again (the hall's
backup folder, ``services.spare.folder``): only the matches that changed since
are read and exported again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ...extensions import db
from ...models import Hand, Match
from ...tournament_models import Tournament, TournamentTable
from ..backup_format import export_match

CHUNK = 400


@dataclass
class Kept:
    """Exported matches by id, each with the version and last change it was exported at."""

    matches: dict[int, tuple[tuple[int, datetime], dict[str, Any]]] = field(default_factory=dict)


def match_exports(tournament: Tournament, kept: Kept | None = None) -> dict[int, dict[str, Any]]:
    """Every table's match of ``tournament`` as the backup file writes it, by match id."""
    tables = [table for row in tournament.round_rows for table in row.tables]
    ids = [table.match_id for table in tables]
    versions: dict[int, tuple[int, datetime]] = {}
    for start in range(0, len(ids), CHUNK):
        found = db.session.execute(
            select(Match.id, Match.version, Match.updated_at).where(
                Match.id.in_(ids[start : start + CHUNK])
            )
        )
        versions.update({row[0]: (row[1], row[2]) for row in found})
    old = kept.matches if kept is not None else {}
    wanted = [i for i in ids if i not in old or old[i][0] != versions.get(i)]
    # (held while exporting: the session keeps loaded rows only as long as someone does)
    loaded = _preload(wanted, [t.id for t in tables])
    out: dict[int, dict[str, Any]] = {}
    for table in tables:
        if table.match_id in wanted:
            out[table.match_id] = export_match(table.match)
            if kept is not None:
                kept.matches[table.match_id] = (versions[table.match_id], out[table.match_id])
        else:
            out[table.match_id] = old[table.match_id][1]
    del loaded
    return out


def _preload(match_ids: list[int], table_ids: list[int]) -> list[Any]:
    """The matches with everything their export reads, and the tables' confirmations."""
    loaded: list[Any] = []
    for start in range(0, len(match_ids), CHUNK):
        loaded += (
            db.session.execute(
                select(Match)
                .where(Match.id.in_(match_ids[start : start + CHUNK]))
                .options(
                    selectinload(Match.seats),
                    selectinload(Match.hands).selectinload(Hand.parties),
                    selectinload(Match.hands).selectinload(Hand.meld_log),
                    selectinload(Match.hands).selectinload(Hand.events),
                )
            )
            .scalars()
            .all()
        )
    for start in range(0, len(table_ids), CHUNK):
        loaded += (
            db.session.execute(
                select(TournamentTable)
                .where(TournamentTable.id.in_(table_ids[start : start + CHUNK]))
                .options(selectinload(TournamentTable.confirmations))
            )
            .scalars()
            .all()
        )
    return loaded
