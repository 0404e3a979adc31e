"""The Stammtisch's rows (docs/rules.md section 14): the group, its people, years, evenings
and money.

A room of its own, like the tournament's: an evening of the group is a
:class:`~scorer.models.GameSession` as any evening at a table (its matches, its
sheets, its settlement), linked here by :class:`Evening`; the match never knows
it belongs to a group.  The year is computed from the evenings, never stored:
what is stored is only what has no other source — the people and their
membership, who sat in as what, the "bezahlt" taps and the kitty's payouts.

The group's link (``token``) lets every member start evenings and tap
"bezahlt"; its twin (``view_token``) only looks.  Both are unguessable (128 bits).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .extensions import db
from .models import GameSession, new_token, utcnow


class Stammtisch(db.Model):  # type: ignore[name-defined]
    """A group that plays at the same table evening after evening.

    ``season_start`` is the day its year begins (``MM-DD``, ``01-01``: the calendar
    year); ``version`` is bumped by every payment, so that a "bezahlt" tapped on a
    list another phone has changed meanwhile is refused, not counted twice.
    """

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    view_token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    name: Mapped[str] = mapped_column(String(80))
    season_start: Mapped[str] = mapped_column(String(5), default="01-01")
    version: Mapped[int] = mapped_column(default=1)
    # the creation form's key: the same form sent twice makes one group
    idempotency_key: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    people: Mapped[list[Person]] = relationship(
        back_populates="group", order_by="Person.id", cascade="all, delete-orphan"
    )
    years: Mapped[list[Year]] = relationship(
        back_populates="group", order_by="Year.number", cascade="all, delete-orphan"
    )


class Person(db.Model):  # type: ignore[name-defined]
    """Somebody who sat at the group's table: a member of a year, or a guest.

    The same person across years and evenings (balances are his until paid);
    ``key`` is the name as compared (``scorer.rules.tournament.name_key``): two
    people of one group never share it.
    """

    __tablename__ = "stammtisch_person"
    __table_args__ = (UniqueConstraint("group_id", "key", name="uq_stammtisch_person_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("stammtisch.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    key: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    group: Mapped[Stammtisch] = relationship(back_populates="people")


class Year(db.Model):  # type: ignore[name-defined]
    """A year of the group: its season, its members, the rules and stakes of its evenings.

    ``season`` is the first day of the season it is named after (``label``,
    "2025" or "2025/26"), ``starts_on`` the day it was started.  ``ruleset`` is
    the table's house rules (``Ruleset.to_dict``; an evening takes them with its
    own number of seats), ``money_mode`` how an evening's money is kept
    (``scorer.rules.year.MONEY_MODES``), ``ranking_by`` what ranks
    (``RANKING_BY``).  Two taps on "Neues Jahr" make one year (unique number).
    """

    __tablename__ = "stammtisch_year"
    __table_args__ = (UniqueConstraint("group_id", "number", name="uq_stammtisch_year_number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("stammtisch.id"), index=True)
    number: Mapped[int]
    label: Mapped[str] = mapped_column(String(16))
    season: Mapped[date]
    starts_on: Mapped[date]
    ruleset: Mapped[dict[str, Any]] = mapped_column(JSON)
    stake_cents: Mapped[int] = mapped_column(default=0)
    stake_basis: Mapped[str] = mapped_column(String(16), default="full")
    money_mode: Mapped[str] = mapped_column(String(8), default="pay")
    ranking_by: Mapped[str] = mapped_column(String(8), default="points")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    group: Mapped[Stammtisch] = relationship(back_populates="years")
    members: Mapped[list[Member]] = relationship(
        back_populates="year", order_by="Member.position", cascade="all, delete-orphan"
    )


class Member(db.Model):  # type: ignore[name-defined]
    """A person's membership of one year: since when, until when (``left_on``: None while
    a member), and his place in the group's list (the usual seat order)."""

    __tablename__ = "stammtisch_member"
    __table_args__ = (
        UniqueConstraint("year_id", "person_id", name="uq_stammtisch_member_person"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    year_id: Mapped[int] = mapped_column(ForeignKey("stammtisch_year.id"), index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("stammtisch_person.id"), index=True)
    position: Mapped[int] = mapped_column(default=0)
    joined_on: Mapped[date]
    left_on: Mapped[date | None] = mapped_column(default=None)

    year: Mapped[Year] = relationship(back_populates="members")
    person: Mapped[Person] = relationship()


class Evening(db.Model):  # type: ignore[name-defined]
    """An evening of the group: one session of the table, in the year current when it began.

    ``number`` counts the group's evenings (never reused: the evening's address);
    ``money_mode`` is the group's way of keeping money as the evening began.
    """

    __tablename__ = "stammtisch_evening"
    __table_args__ = (
        UniqueConstraint("group_id", "number", name="uq_stammtisch_evening_number"),
        UniqueConstraint("session_id", name="uq_stammtisch_evening_session"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("stammtisch.id"), index=True)
    year_id: Mapped[int] = mapped_column(ForeignKey("stammtisch_year.id"), index=True)
    number: Mapped[int]
    session_id: Mapped[int] = mapped_column(ForeignKey("game_session.id"))
    held_on: Mapped[date]
    money_mode: Mapped[str] = mapped_column(String(8), default="pay")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    group: Mapped[Stammtisch] = relationship()
    year: Mapped[Year] = relationship()
    session: Mapped[GameSession] = relationship()
    sitters: Mapped[list[Sitter]] = relationship(
        back_populates="evening", order_by="Sitter.id", cascade="all, delete-orphan"
    )


class Sitter(db.Model):  # type: ignore[name-defined]
    """Who sat at an evening: the person, the name on the sheets, and whether as a guest."""

    __tablename__ = "stammtisch_sitter"
    __table_args__ = (
        UniqueConstraint("evening_id", "person_id", name="uq_stammtisch_sitter_person"),
        UniqueConstraint("evening_id", "name", name="uq_stammtisch_sitter_name"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("stammtisch_evening.id"), index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("stammtisch_person.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    guest: Mapped[bool] = mapped_column(default=False)

    evening: Mapped[Evening] = relationship(back_populates="sitters")
    person: Mapped[Person] = relationship()


class Payment(db.Model):  # type: ignore[name-defined]
    """Money that changed hands, as tapped (``scorer.rules.year.PAYMENT_KINDS``).

    ``transfer``: ``payer`` paid ``payee``; ``kitty``: ``payer`` paid into the
    kitty; ``payout``: the kitty paid out (``note``: what for).  ``evening``: paid on
    that evening's night.  A payment tapped by mistake is struck (``struck_at``),
    never erased.  ``idempotency_key``: the same tap sent twice is one payment.
    """

    __tablename__ = "stammtisch_payment"
    __table_args__ = (
        UniqueConstraint("group_id", "idempotency_key", name="uq_stammtisch_payment_key"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("stammtisch.id"), index=True)
    kind: Mapped[str] = mapped_column(String(8))
    payer_id: Mapped[int | None] = mapped_column(
        ForeignKey("stammtisch_person.id"), index=True, default=None
    )
    payee_id: Mapped[int | None] = mapped_column(
        ForeignKey("stammtisch_person.id"), index=True, default=None
    )
    cents: Mapped[int]
    paid_on: Mapped[date]
    note: Mapped[str] = mapped_column(String(80), default="")
    evening_id: Mapped[int | None] = mapped_column(
        ForeignKey("stammtisch_evening.id"), index=True, default=None
    )
    idempotency_key: Mapped[str | None] = mapped_column(String(64), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    struck_at: Mapped[datetime | None] = mapped_column(default=None)

    group: Mapped[Stammtisch] = relationship()
    payer: Mapped[Person | None] = relationship(foreign_keys=[payer_id])
    payee: Mapped[Person | None] = relationship(foreign_keys=[payee_id])
    evening: Mapped[Evening | None] = relationship()
