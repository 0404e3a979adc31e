"""A Stammtisch with all its evenings as one backup file (restored by :mod:`.restoring`).

The file (``dumps`` of :func:`export_group`)::

    {"format": "scorer-stammtisch", "version": 1, "release": "...", "exported_at": "...",
     "stammtisch": {"token", "view_token", "name", "season_start", "created_at",
                    "people": [{"name", "created_at"}],
                    "years": [{"number", "label", "season", "starts_on", "ruleset", "stake_cents",
                               "stake_basis", "money_mode", "ranking_by",
                               "members": [{"person", "position", "joined_on", "left_on"}]}],
                    "evenings": [{"number", "year", "held_on", "money_mode",
                                  "sitters": [{"person", "name", "guest"}],
                                  "session": <a session of the match backups>}],
                    "payments": [{"kind", "payer", "payee", "cents", "paid_on", "note",
                                  "evening", "created_at", "struck_at"}]}}

People are named by their place in ``people`` (1, 2, 3 …), a year by its number,
an evening by its number, never by a database id.  Each evening's session is
written by the match backups (:func:`scorer.services.backup_format.export_session`):
its hands are settled again by the rules when the file is restored, and their
history travels with them.  The versions follow the match backups' (one
``VERSION`` for every kind of scorer file).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ...extensions import db
from ...models import GameSession, Hand, Match
from ...resources import RELEASE
from ...stammtisch_models import Payment, Stammtisch
from ..backup_format import VERSION, compact_rules, export_session
from .evenings import evenings_of

FORMAT = "scorer-stammtisch"


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds")


def _day(value: date | None) -> str | None:
    return None if value is None else value.isoformat()


def _load_sessions(ids: list[int]) -> list[GameSession]:
    """Every evening's session with its matches, seats, hands and their lines, melds and
    history in a statement per table (a year has thousands of hands: one query each would
    take the export tens of seconds).  The caller keeps the list: the session's identity
    map holds its rows weakly, and rows nobody holds are loaded again, one by one."""
    if not ids:
        return []
    return list(
        db.session.execute(
            select(GameSession)
            .where(GameSession.id.in_(ids))
            .options(
                selectinload(GameSession.matches).selectinload(Match.seats),
                selectinload(GameSession.matches)
                .selectinload(Match.hands)
                .options(
                    selectinload(Hand.parties),
                    selectinload(Hand.meld_log),
                    selectinload(Hand.events),
                ),
            )
        ).scalars()
    )


def export_group(group: Stammtisch) -> dict[str, Any]:
    """The backup file of a group with every year, evening and payment, as plain JSON values."""
    index = {p.id: position for position, p in enumerate(group.people, 1)}
    evenings = evenings_of(group)
    sessions = {s.id: s for s in _load_sessions([e.session_id for e in evenings])}
    numbers = {e.id: e.number for e in evenings}
    years = {y.id: y.number for y in group.years}
    payments = db.session.execute(
        select(Payment).where(Payment.group_id == group.id).order_by(Payment.id)
    ).scalars()
    return {
        "format": FORMAT,
        "version": VERSION,
        "release": RELEASE,
        "exported_at": _time(datetime.now(UTC).replace(tzinfo=None)),
        "stammtisch": {
            "token": group.token,
            "view_token": group.view_token,
            "name": group.name,
            "season_start": group.season_start,
            "created_at": _time(group.created_at),
            "people": [{"name": p.name, "created_at": _time(p.created_at)} for p in group.people],
            "years": [
                {
                    "number": y.number,
                    "label": y.label,
                    "season": _day(y.season),
                    "starts_on": _day(y.starts_on),
                    "ruleset": compact_rules(y.ruleset),
                    "stake_cents": y.stake_cents,
                    "stake_basis": y.stake_basis,
                    "money_mode": y.money_mode,
                    "ranking_by": y.ranking_by,
                    "members": [
                        {
                            "person": index[m.person_id],
                            "position": m.position,
                            "joined_on": _day(m.joined_on),
                            "left_on": _day(m.left_on),
                        }
                        for m in y.members
                    ],
                }
                for y in group.years
            ],
            "evenings": [
                {
                    "number": e.number,
                    "year": years[e.year_id],
                    "held_on": _day(e.held_on),
                    "money_mode": e.money_mode,
                    "sitters": [
                        {"person": index[s.person_id], "name": s.name, "guest": s.guest}
                        for s in e.sitters
                    ],
                    "session": export_session(sessions[e.session_id]),
                }
                for e in evenings
            ],
            "payments": [
                {
                    "kind": p.kind,
                    "payer": None if p.payer_id is None else index[p.payer_id],
                    "payee": None if p.payee_id is None else index[p.payee_id],
                    "cents": p.cents,
                    "paid_on": _day(p.paid_on),
                    "note": p.note,
                    "evening": None if p.evening_id is None else numbers[p.evening_id],
                    "created_at": _time(p.created_at),
                    "struck_at": _time(p.struck_at),
                }
                for p in payments
            ],
        },
    }
