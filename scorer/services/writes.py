"""The mechanics every write shares: the guarded version bump, the stored end, the history.

A change of a match counts once (:func:`touch`: one UPDATE at the version read,
so of two racing saves the later gets ``ConflictError``); after it the stored
standing and end follow the hands (:func:`after_change`); each hand's history
keeps a snapshot of what it was (:func:`hand_snapshot`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, insert, inspect, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.sql.dml import Update

from ..extensions import db
from ..models import GameSession, Hand, HandEvent, HandParty, Match, utcnow
from ..rules import RulesError
from .errors import ConflictError, LockedError
from .sheets import sheet, standing_of
from .unit import LostRace

MAX_MATCH_HANDS = 500
"""The most hands a match holds.  A match to 1000 takes 10 to 40 hands; 500 hands
render as a PDF in a few seconds, and a backup of them imports again."""

_MATCHES = Match.__table__
_SESSIONS = GameSession.__table__

CHANGED = "scorer.changed_matches"
"""``session.info``: the ids of the matches the open transaction changed (:func:`touch`).

Read once before the commit by what counts a match's changes elsewhere (a tournament
counts its tables' changes: ``services.tournaments.counting``); the match's own
layers only note them."""


def check_room(hands: int) -> None:
    """A match with :data:`MAX_MATCH_HANDS` hands takes no more."""
    if hands >= MAX_MATCH_HANDS:
        raise RulesError(
            "a match holds at most {limit} hands; start the next match", limit=MAX_MATCH_HANDS
        )


ORGANISER = "organiser"
"""``via`` of a change the tournament's organiser made (it passes a closed round's lock)."""


def check_open(match: Match, via: str | None = None) -> None:
    """``LockedError`` when the match is locked (its round closed), unless the organiser writes."""
    if match.locked and via != ORGANISER:
        raise LockedError(match.locked)


def check_version(match: Match, version: int | None) -> None:
    """``ConflictError`` when the form was loaded at another version of the match."""
    if version is not None and version != match.version:
        raise ConflictError()


_SESSION_TOUCHED = (
    update(_SESSIONS)
    .where(_SESSIONS.c.id == bindparam("session_id"))
    .values(updated_at=bindparam("updated_at"))
)


@lru_cache(maxsize=16)
def _bump_statement(columns: tuple[str, ...]) -> Update:
    """UPDATE of the match row at the version read, setting ``columns`` (built once)."""
    return (
        update(_MATCHES)
        .where(_MATCHES.c.id == bindparam("match_id"), _MATCHES.c.version == bindparam("read"))
        .values({name: bindparam(f"new_{name}", type_=_MATCHES.c[name].type) for name in columns})
    )


def touch(match: Match, **columns: Any) -> None:
    """Count a change of the match: a new version and time, with ``columns`` set too.

    One UPDATE that finds the row only at the version this request read: of two
    writes racing on the same version, the later one gets :class:`LostRace` (the
    unit of work rolls its changes back and runs it again on the match as it is
    now) instead of overwriting the first.  Made a use case's first write, it
    claims the match: on PostgreSQL the row stays locked until the commit, on
    SQLite the whole database is this request's until then.
    """
    read = match.version
    values = {"version": read + 1, "updated_at": utcnow(), **columns}
    with db.session.no_autoflush:
        connection = db.session.connection()
        done = connection.execute(
            _bump_statement(tuple(values)),
            {"match_id": match.id, "read": read, **{f"new_{k}": v for k, v in values.items()}},
        ).rowcount
        if done != 1:
            raise LostRace()
        for key, value in values.items():
            set_committed_value(match, key, value)
        db.session.info.setdefault(CHANGED, set()).add(match.id)
        # the session's last change: one UPDATE whether its row is loaded or not
        connection.execute(
            _SESSION_TOUCHED, {"session_id": match.session_id, "updated_at": values["updated_at"]}
        )
        if "session" not in inspect(match).unloaded:
            set_committed_value(match.session, "updated_at", values["updated_at"])


def store(match: Match, **columns: Any) -> None:
    """Write ``columns`` of a match this use case has already claimed (:func:`touch`)."""
    if not columns:
        return
    with db.session.no_autoflush:
        db.session.connection().execute(
            _store_statement(tuple(columns)),
            {"match_id": match.id, **{f"new_{k}": v for k, v in columns.items()}},
        )
        for key, value in columns.items():
            set_committed_value(match, key, value)


@lru_cache(maxsize=16)
def _store_statement(columns: tuple[str, ...]) -> Update:
    return (
        update(_MATCHES)
        .where(_MATCHES.c.id == bindparam("match_id"))
        .values({name: bindparam(f"new_{name}", type_=_MATCHES.c[name].type) for name in columns})
    )


def party_lines(hand: Hand) -> list[dict[str, Any]]:
    """A hand's party lines as plain values, in party order (history and backups)."""
    return [
        {
            "melds": p.melds,
            "meld_names": p.meld_names,
            "tricks": p.tricks,
            "took_trick": p.took_trick,
            "points": p.points,
            "stars": p.stars,
        }
        for p in sorted(hand.parties, key=lambda p: p.party)
    ]


def hand_entered(hand: Hand) -> dict[str, Any]:
    """What the Schreiber entered for a hand besides the party lines (history and backups)."""
    return {
        "declarer": hand.declarer_party,
        "bid": hand.bid,
        "trump": hand.trump,
        "outcome": hand.outcome,
        "won": hand.won,
        "at_fault": hand.at_fault,
        "declarer_seat": hand.declarer_seat,
    }


def hand_snapshot(hand: Hand) -> dict[str, Any]:
    """What a hand was at a moment of its history: what was entered and what it made."""
    return {
        **hand_entered(hand),
        "made": hand.made,
        "parties": [{"party": party, **line} for party, line in enumerate(party_lines(hand))],
    }


_INSERT_HAND = insert(Hand.__table__)
_INSERT_LINE = insert(HandParty.__table__)
_INSERT_EVENT = insert(HandEvent.__table__)


def _columns(row: Any) -> dict[str, Any]:
    """The column values set on a mapped object (Core fills in the defaults of the rest)."""
    values = row.__dict__
    return {
        attr.key: values[attr.key] for attr in inspect(type(row)).column_attrs if attr.key in values
    }


def insert_new_hand(match: Match, hand: Hand, event: HandEvent) -> None:
    """Insert a new hand, its lines and its first event with Core statements.

    A hand is the one write at a table that happens every few minutes; the ORM's
    unit of work for five new objects cost more than the rest of the save.  The
    objects stay outside the session (transient), with their ids filled in, so the
    answer renders from them like from loaded ones.
    """
    connection = db.session.connection()
    key = connection.execute(_INSERT_HAND, _columns(hand)).inserted_primary_key
    assert key is not None
    hand.id = key[0]
    lines = list(hand.parties)
    for line in lines:
        line.hand_id = hand.id
    connection.execute(_INSERT_LINE, [_columns(line) for line in lines])
    event.hand_id = hand.id
    connection.execute(_INSERT_EVENT, _columns(event))
    if "hands" not in inspect(match).unloaded:
        db.session.expire(match, ["hands"])  # a loaded list lacks the new hand


def after_change(match: Match) -> None:
    """Keep the stored end and standing of the match in step with its hands."""
    db.session.flush()
    current = sheet(match)
    match.standing = standing_of(match, current)
    if current.finished:
        match.winners = current.winners
        match.finished_at = match.finished_at or utcnow()
    else:
        match.winners = None
        match.finished_at = None
