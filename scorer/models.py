"""The database rows.  No rules here: every number is computed by ``scorer.rules``.

A *session* (Sitzung) is an evening at one table; it holds matches (Partien).
A match stores its ruleset as JSON, its seats in playing order, and its hands.
Every hand stores what the Schreiber entered (per party: melds, trick points)
and what ``scorer.rules`` settled from it, so the sheet is shown without
recomputation and a correction is a visible event in the hand's history.

Links are unguessable: every session and match has an edit token and a
separate read-only view token (128 bits each, ``secrets.token_urlsafe(16)``).
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .extensions import db


def new_token() -> str:
    """128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Player(db.Model):  # type: ignore[name-defined]
    """A name the Schreiber has typed before, offered again (autocomplete)."""

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)
    last_used_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class GameSession(db.Model):  # type: ignore[name-defined]
    """An evening at one table (Sitzung): several matches, settled in money at the end."""

    __tablename__ = "game_session"

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    view_token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    title: Mapped[str] = mapped_column(String(80), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    stake_cents: Mapped[int] = mapped_column(default=0)
    stake_basis: Mapped[str] = mapped_column(String(16), default="full")
    # "tournament": the one match of a tournament table (no next match, no stakes)
    kind: Mapped[str] = mapped_column(String(12), default="table", server_default="table")
    # the setup form's key: the same form sent twice starts one session (services.start_match)
    # (a unique index, not a constraint: SQLite adds it without rebuilding the table)
    idempotency_key: Mapped[str | None] = mapped_column(
        String(64), unique=True, index=True, default=None
    )

    matches: Mapped[list[Match]] = relationship(
        back_populates="session", order_by="Match.number", cascade="all, delete-orphan"
    )


class Match(db.Model):  # type: ignore[name-defined]
    """A match (Partie), played until its ruleset says it ends."""

    # two "next match" racing: the second insert of a number fails instead of doubling it
    # (a unique index, not a constraint: SQLite adds it without rebuilding the table)
    __table_args__ = (Index("ix_match_session_id_number", "session_id", "number", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("game_session.id"), index=True)
    number: Mapped[int] = mapped_column(default=1)
    token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    view_token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    ruleset: Mapped[dict[str, Any]] = mapped_column(JSON)
    first_dealer: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    # winners as party indices once the match has ended (kept in step by services)
    winners: Mapped[list[int] | None] = mapped_column(JSON, default=None)
    # bumped on every change; a form that carries an older version is a conflict
    version: Mapped[int] = mapped_column(default=1)
    # a cache of the totals after the last hand (services.standing), rewritten by services
    # on every change so the top of the match page needs no replay; the hands are the truth
    standing: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    # why the match takes no more changes from its link ("closed": its tournament round
    # was closed); None for every match outside a tournament
    locked: Mapped[str | None] = mapped_column(String(16), default=None)

    session: Mapped[GameSession] = relationship(back_populates="matches")
    seats: Mapped[list[Seat]] = relationship(
        back_populates="match", order_by="Seat.position", cascade="all, delete-orphan"
    )
    hands: Mapped[list[Hand]] = relationship(
        back_populates="match", order_by="Hand.seq", cascade="all, delete-orphan"
    )


class Seat(db.Model):  # type: ignore[name-defined]
    """A player at a match, in playing order (counterclockwise), with the party it scores for."""

    __table_args__ = (UniqueConstraint("match_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("match.id"), index=True)
    position: Mapped[int]
    party: Mapped[int]
    name: Mapped[str] = mapped_column(String(40))

    match: Mapped[Match] = relationship(back_populates="seats")


class Hand(db.Model):  # type: ignore[name-defined]
    """One deal: what was entered, and what the rules settled.

    ``seq`` orders the hands of a match and is never reused; a deleted hand
    keeps its row (``deleted_at``) so that its history stays visible.
    ``status`` is ``open`` while a two-player hand is still being played (melds
    are written one at a time) and ``closed`` once it is settled.
    """

    __table_args__ = (
        # named: the convention names both "uq_hand_match_id", and PostgreSQL refuses that
        UniqueConstraint("match_id", "seq", name="uq_hand_match_id_seq"),
        UniqueConstraint("match_id", "idempotency_key", name="uq_hand_match_id_idempotency_key"),
        Index("ix_hand_match_live", "match_id", "deleted_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("match.id"))
    seq: Mapped[int]
    dealer_seat: Mapped[int]
    declarer_party: Mapped[int | None]
    # the player who declared, when a party is a team (Kreuzbinokel): a seat, else None
    declarer_seat: Mapped[int | None]
    # a forfeit: the party at fault (None: the declarer, as before the column existed)
    at_fault: Mapped[int | None]
    bid: Mapped[int] = mapped_column(default=0)
    trump: Mapped[str | None] = mapped_column(String(1))
    outcome: Mapped[str] = mapped_column(String(20))
    won: Mapped[bool | None]
    status: Mapped[str] = mapped_column(String(8), default="closed")
    made: Mapped[bool | None]
    declarer_count: Mapped[int | None]
    ended_mid_hand: Mapped[bool] = mapped_column(default=False)
    idempotency_key: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)

    match: Mapped[Match] = relationship(back_populates="hands")
    parties: Mapped[list[HandParty]] = relationship(
        back_populates="hand", order_by="HandParty.party", cascade="all, delete-orphan"
    )
    meld_log: Mapped[list[HandMeld]] = relationship(
        back_populates="hand", order_by="HandMeld.id", cascade="all, delete-orphan"
    )
    events: Mapped[list[HandEvent]] = relationship(
        back_populates="hand", order_by="HandEvent.id", cascade="all, delete-orphan"
    )


class HandParty(db.Model):  # type: ignore[name-defined]
    """One party's line of a hand: entered melds and tricks, settled points."""

    __table_args__ = (UniqueConstraint("hand_id", "party"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hand.id"))
    party: Mapped[int]
    melds: Mapped[int] = mapped_column(default=0)
    # the breakdown, as meld names of docs/rules.md section 3 (from the calculator)
    meld_names: Mapped[list[str] | None] = mapped_column(JSON, default=None)
    tricks: Mapped[int | None]
    took_trick: Mapped[bool | None]
    sits_out: Mapped[bool] = mapped_column(default=False)
    points: Mapped[int] = mapped_column(default=0)
    exact_points: Mapped[int] = mapped_column(default=0)
    stars: Mapped[int] = mapped_column(default=0)

    hand: Mapped[Hand] = relationship(back_populates="parties")


class HandMeld(db.Model):  # type: ignore[name-defined]
    """A meld written while a two-player hand is played (one at a time, as shown)."""

    id: Mapped[int] = mapped_column(primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hand.id"), index=True)
    party: Mapped[int]
    name: Mapped[str] = mapped_column(String(40))
    points: Mapped[int]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    hand: Mapped[Hand] = relationship(back_populates="meld_log")


class HandEvent(db.Model):  # type: ignore[name-defined]
    """The history of a hand: created, corrected, deleted — with what it said then."""

    id: Mapped[int] = mapped_column(primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hand.id"), index=True)
    action: Mapped[str] = mapped_column(String(12))
    # who made the change when it was not the match's own link ("organiser")
    via: Mapped[str | None] = mapped_column(String(16), default=None)
    snapshot: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    hand: Mapped[Hand] = relationship(back_populates="events")
