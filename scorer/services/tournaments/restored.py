"""What a restore or a takeover brought back, as the pages say it.

A tournament brought back on a laptop — from a backup file, or by a spare that
took over — carries a ``restored`` mark: how (``"file"`` or ``"spare"``), the time
of the state it holds (the file's, or the hall's clock of the spare's last
push), when it was brought back, its last round then and how many deals it
held.  The organiser's page says it; the beamer and the public pages say
"restored, state of 20:41" until a new round is drawn; a table link this laptop
does not know says plainly that its table is not here, and what was restored.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from ...extensions import db
from ...models import Hand, utcnow
from ...tournament_models import Round, Tournament, TournamentTable

LATELY = timedelta(hours=12)
"""How long a missing table's page names the restores of this laptop."""


@dataclass(frozen=True)
class Contents:
    """How far a tournament is: its last round (and whether it is closed), its tables in
    that round, and every deal entered (struck ones not counted)."""

    last_round: int
    closed: bool
    tables: int
    deals: int


def contents(tournament: Tournament) -> Contents:
    """What ``tournament`` holds in the database now (two small statements)."""
    rows = tournament.round_rows
    last = rows[-1] if rows else None
    deals = db.session.execute(
        select(func.count(Hand.id))
        .join(TournamentTable, TournamentTable.match_id == Hand.match_id)
        .join(Round, Round.id == TournamentTable.round_id)
        .where(Round.tournament_id == tournament.id, Hand.deleted_at.is_(None))
    ).scalar_one()
    return Contents(
        last_round=last.number if last else 0,
        closed=bool(last and last.closed_at is not None),
        tables=len(last.tables) if last else 0,
        deals=int(deals),
    )


def loaded_contents(tournament: Tournament) -> Contents:
    """What a tournament read from a file holds (its rows not written yet)."""
    rows = tournament.round_rows
    last = rows[-1] if rows else None
    deals = sum(
        1
        for row in rows
        for table in row.tables
        for hand in table.match.hands
        if hand.deleted_at is None
    )
    return Contents(
        last_round=last.number if last else 0,
        closed=bool(last and last.closed_at is not None),
        tables=len(last.tables) if last else 0,
        deals=deals,
    )


def mark(how: str, stand: datetime | None, held: Contents) -> dict[str, Any]:
    """The ``restored`` mark of a tournament brought back now."""
    return {
        "how": how,
        "stand": stand.isoformat(timespec="seconds") if stand else None,
        "at": utcnow().isoformat(timespec="seconds"),
        "round": held.last_round,
        "closed": held.closed,
        "deals": held.deals,
    }


@dataclass(frozen=True)
class Restored:
    """A tournament's restored mark, read: how, the state's time, when, what it held."""

    how: str
    stand: datetime | None
    at: datetime | None
    round: int
    closed: bool
    deals: int


def _time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def read(value: Any) -> Restored | None:
    """The mark of ``Tournament.restored`` (None: never restored, or not a mark)."""
    if not isinstance(value, dict) or value.get("how") not in ("file", "spare"):
        return None
    number = value.get("round")
    deals = value.get("deals")
    return Restored(
        how=str(value["how"]),
        stand=_time(value.get("stand")),
        at=_time(value.get("at")),
        round=number if isinstance(number, int) else 0,
        closed=value.get("closed") is True,
        deals=deals if isinstance(deals, int) else 0,
    )


def public_note(tournament_restored: Any, current_round: int) -> Restored | None:
    """What the public pages say: the mark while the round of the restore is the latest
    (a new round drawn since is the evening going on), else None."""
    found = read(tournament_restored)
    if found is None or current_round > found.round:
        return None
    return found


def public_note_of(tournament_id: int) -> Restored | None:
    """What the public pages of a tournament say of a restore now (one statement, on a
    connection of its own: the public pages read no ORM rows)."""
    with db.engine.connect() as connection:
        found = connection.execute(
            select(Tournament.restored, func.max(Round.number))
            .outerjoin(Round, Round.tournament_id == Tournament.id)
            .where(Tournament.id == tournament_id)
            .group_by(Tournament.id)
        ).first()
    if found is None:
        return None
    return public_note(found[0], int(found[1] or 0))


@dataclass(frozen=True)
class Lately:
    """A tournament this laptop brought back lately (a missing table's page names it)."""

    name: str
    restored: Restored


def lately() -> list[Lately]:
    """The tournaments brought back on this laptop in the last :data:`LATELY`."""
    since = utcnow() - LATELY
    found = db.session.execute(
        select(Tournament.name, Tournament.restored)
        .where(Tournament.restored.is_not(None), Tournament.updated_at >= since)
        .order_by(Tournament.id.desc())
        .limit(5)
    ).all()
    out = []
    for name, value in found:
        mark_ = read(value)
        if mark_ is not None and mark_.at is not None and mark_.at >= since:
            out.append(Lately(name, mark_))
    return out
