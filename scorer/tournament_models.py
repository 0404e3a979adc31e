"""The tournament's rows (docs/rules.md section 13): the evening, its players, rounds and tables.

A tournament has an organiser link (``token``, secret) and a public link
(``view_token``: the beamer, the players).  Each table of each round is a
:class:`~scorer.models.Match` of its own, with the tournament's ruleset for the
table's size: the table phone enters hands on it with the match page as it is.
Nothing about a hand is stored twice; the ranking is read from the matches.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .extensions import db
from .models import Match, new_token, utcnow
from .rules.tournament import DEFAULT_SCHEDULE


def new_seed() -> str:
    """A draw's seed as the organiser sees and prints it: eight hex digits."""
    return secrets.token_hex(4)


class Series(db.Model):  # type: ignore[name-defined]
    """A series of tournament evenings (Binokel-Cup) with one overall ranking.

    ``counting`` is how the evenings add up (``scorer.rules.tournament.SERIES_COUNTING``):
    ``"all"`` evenings, the ``best`` k of them, or only players who played
    ``"every"`` evening.  With ``met_across`` the draw of an evening counts the
    earlier evenings' tables as met, so people meet new opponents across the series.
    """

    __tablename__ = "tournament_series"

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    view_token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    name: Mapped[str] = mapped_column(String(80))
    counting: Mapped[str] = mapped_column(String(8), default="all")
    best: Mapped[int] = mapped_column(default=0)
    met_across: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    version: Mapped[int] = mapped_column(default=1)
    # a restore writing it in parts (services.tournaments.restoring): the moment of its last
    # part; None once complete (its links are stand-ins until then, so nobody finds it)
    restoring: Mapped[datetime | None] = mapped_column(default=None)

    tournaments: Mapped[list[Tournament]] = relationship(
        back_populates="series", order_by="Tournament.id"
    )
    players: Mapped[list[SeriesPlayer]] = relationship(
        back_populates="series", order_by="SeriesPlayer.id", cascade="all, delete-orphan"
    )


class SeriesPlayer(db.Model):  # type: ignore[name-defined]
    """A person across the evenings of a series; each evening's entrant points to one."""

    __tablename__ = "tournament_series_player"

    id: Mapped[int] = mapped_column(primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("tournament_series.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    club: Mapped[str] = mapped_column(String(60), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    series: Mapped[Series] = relationship(back_populates="players")


class Tournament(db.Model):  # type: ignore[name-defined]
    """A tournament evening (Binokelturnier)."""

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    view_token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    name: Mapped[str] = mapped_column(String(80))
    held_on: Mapped[str] = mapped_column(String(10), default="")
    place: Mapped[str] = mapped_column(String(80), default="")
    # the ruleset of a table of three (Ruleset.to_dict); a table of four is derived from it
    ruleset: Mapped[dict[str, Any]] = mapped_column(JSON)
    rounds: Mapped[int] = mapped_column(default=3)
    entry_fee_cents: Mapped[int] = mapped_column(default=0)
    # the rules' schedule in its canonical text (read once: services.tournaments.setup.schedule_of)
    fee_schedule: Mapped[str] = mapped_column(String(60), default=str(DEFAULT_SCHEDULE))
    # equal totals ordered by the better best round, then the fewer lost games; off (the
    # village's way, and the default since issue 30): equal totals share a place (1, 1, 3)
    tie_break: Mapped[bool] = mapped_column(default=False)
    seed: Mapped[str] = mapped_column(String(16), default=new_seed)
    # the address the phones reach the app under ("" = the configured or the request's)
    public_url: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # bumped on every change of the tournament's own rows (players, rounds, tables)
    version: Mapped[int] = mapped_column(default=1)
    idempotency_key: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    # the money (services.tournaments.money): what the organiser keeps of the takings,
    # an amount in cents ("amount") or hundredths of a per cent ("percent": 1000 = 10 %)
    keep_kind: Mapped[str] = mapped_column(String(8), default="amount")
    keep_value: Mapped[int] = mapped_column(default=0)
    # the lost-game money goes to the prize fund (else the organiser keeps it)
    lost_money_to_fund: Mapped[bool] = mapped_column(default=True)
    # prizes as "money" (shares of the fund) or "items" (picked in ranking order)
    prize_mode: Mapped[str] = mapped_column(String(8), default="money")
    # the shares of places 1, 2, 3 … in hundredths of a per cent (3000 = 30 %)
    prize_shares: Mapped[list[int]] = mapped_column(JSON, default=list)
    # the prize table, best first, one item per place
    prize_items: Mapped[list[str]] = mapped_column(JSON, default=list)
    # the joke prize of the last place (Trostpreis); "" = none
    joke_prize: Mapped[str] = mapped_column(String(100), default="")
    # the series (Binokel-Cup) this evening belongs to, if any
    series_id: Mapped[int | None] = mapped_column(
        ForeignKey("tournament_series.id"), index=True, default=None
    )
    # a restore writing it in parts (services.tournaments.restoring): the moment of its last
    # part; None once complete (its links are stand-ins until then, so nobody finds it)
    restoring: Mapped[datetime | None] = mapped_column(default=None)
    # brought back on this laptop from a backup or by a spare taking over
    # (services.spare.notes): {"how": "file" | "spare", "stand": the state's time,
    # "at": when, "round": its last round, "deals": the deals it held}; None otherwise
    restored: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)

    series: Mapped[Series | None] = relationship(back_populates="tournaments")
    entrants: Mapped[list[Entrant]] = relationship(
        back_populates="tournament", order_by="Entrant.id", cascade="all, delete-orphan"
    )
    round_rows: Mapped[list[Round]] = relationship(
        back_populates="tournament", order_by="Round.number", cascade="all, delete-orphan"
    )


class Entrant(db.Model):  # type: ignore[name-defined]
    """A registered player; ``number`` is the start number given at check-in."""

    __tablename__ = "tournament_entrant"
    __table_args__ = (
        UniqueConstraint("tournament_id", "number", name="uq_entrant_tournament_number"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    club: Mapped[str] = mapped_column(String(60), default="")
    # players with the same household are never drawn to one table
    household: Mapped[str] = mapped_column(String(40), default="")
    number: Mapped[int | None] = mapped_column(default=None)
    # the first round this player is drawn for (None: not checked in)
    from_round: Mapped[int | None] = mapped_column(default=None)
    # withdrawn before this round (None: still playing)
    withdrawn_before: Mapped[int | None] = mapped_column(default=None)
    # what the player paid at the cash desk (entry fee and lost-game money), and when
    paid_cents: Mapped[int | None] = mapped_column(default=None)
    paid_at: Mapped[datetime | None] = mapped_column(default=None)
    # the same person on the series' other evenings (a tournament in a series only)
    series_player_id: Mapped[int | None] = mapped_column(
        ForeignKey("tournament_series_player.id"), index=True, default=None
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    tournament: Mapped[Tournament] = relationship(back_populates="entrants")


class Round(db.Model):  # type: ignore[name-defined]
    """A drawn round; two organiser tabs drawing at once make one (unique number)."""

    __tablename__ = "tournament_round"
    __table_args__ = (
        UniqueConstraint("tournament_id", "number", name="uq_round_tournament_number"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    number: Mapped[int]
    # the seed the draw ran with (the tournament's seed, the round, the attempt)
    seed: Mapped[str] = mapped_column(String(64))
    attempt: Mapped[int] = mapped_column(default=1)
    drawn_at: Mapped[datetime] = mapped_column(default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(default=None)

    tournament: Mapped[Tournament] = relationship(back_populates="round_rows")
    tables: Mapped[list[TournamentTable]] = relationship(
        back_populates="round", order_by="TournamentTable.number", cascade="all, delete-orphan"
    )


class TournamentTable(db.Model):  # type: ignore[name-defined]
    """One table of one round: its match, and its players in seat order."""

    __table_args__ = (
        UniqueConstraint("round_id", "number", name="uq_table_round_number"),
        UniqueConstraint("match_id", name="uq_table_match"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("tournament_round.id"), index=True)
    number: Mapped[int]
    match_id: Mapped[int] = mapped_column(ForeignKey("match.id"))
    # entrant ids in seat order: seat 1 (index 0) is the Schreiber and deals first
    players: Mapped[list[int]] = mapped_column(JSON)
    # when the table first played its last deal (kept: changes after it are listed)
    done_at: Mapped[datetime | None] = mapped_column(default=None)
    # how many links the table has had (a replaced link counts one more)
    link_number: Mapped[int] = mapped_column(default=1)
    # a paper slip typed in by the organiser: {entrant id: [points, lost games]}
    paper: Mapped[dict[str, list[int]] | None] = mapped_column(JSON, default=None)
    # every change of the slip, for the change list: [{"at", "before", "after"}, …]
    paper_log: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, default=None)

    round: Mapped[Round] = relationship(back_populates="tables")
    match: Mapped[Match] = relationship()
    confirmations: Mapped[list[Confirmation]] = relationship(
        back_populates="table", order_by="Confirmation.id", cascade="all, delete-orphan"
    )


class Confirmation(db.Model):  # type: ignore[name-defined]
    """A player's tap on their name under the table's result (the slip's signature)."""

    __tablename__ = "tournament_confirmation"
    __table_args__ = (UniqueConstraint("table_id", "entrant_id", name="uq_confirmation"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tournament_table.id"), index=True)
    entrant_id: Mapped[int] = mapped_column(ForeignKey("tournament_entrant.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    table: Mapped[TournamentTable] = relationship(back_populates="confirmations")


class RetiredLink(db.Model):  # type: ignore[name-defined]
    """A table's link that the organiser replaced: it writes nothing and says why."""

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32), unique=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("match.id"), index=True)
    link_number: Mapped[int] = mapped_column(default=1)
    retired_at: Mapped[datetime] = mapped_column(default=utcnow)

    match: Mapped[Match] = relationship()

    reason = "replaced"
    """Why the link writes nothing (the page that says so words it)."""


class RedrawnLink(db.Model):  # type: ignore[name-defined]
    """A table's link from a draw the organiser made again: it writes nothing and says why.

    The round's tables keep their matches (a match of the new draw is the old one with
    new players and new links), so a hand the old link sends is refused by the match's
    version, never saved on another table.
    """

    __tablename__ = "tournament_redrawn_link"

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32), unique=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("tournament_round.id"), index=True)
    retired_at: Mapped[datetime] = mapped_column(default=utcnow)

    reason = "redrawn"


class TournamentChanges(db.Model):  # type: ignore[name-defined]
    """How often the tournament's tables changed: what its polls compare, in a few rows.

    Every transaction that changes a table's match (a hand saved, corrected, struck
    or restored, a confirmation, a paper slip, a new link) counts one here as its
    last statement before its commit (``services.tournaments.counting``), so a poll
    that reads the count reads it together with what that commit wrote, and never
    sums the versions of a hall's thousand matches.  The count is kept in
    :data:`~scorer.services.tournaments.counting.SHARDS` rows by the match's id, so
    that two tables saving at once wait for each other's commit only now and then;
    the polls add up those few rows.  No row: nothing counted yet (0).  The
    tournament's own rows count in its ``version`` (``setup.bump``).
    """

    __tablename__ = "tournament_changes"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournament.id", ondelete="CASCADE"), primary_key=True
    )
    shard: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    count: Mapped[int] = mapped_column(default=0)
    changed_at: Mapped[datetime] = mapped_column(default=utcnow)


class PublicSnapshot(db.Model):  # type: ignore[name-defined]
    """What the tournament's public link shows, built once per change for every process.

    ``data`` is the public side as one compressed JSON value
    (``services.tournaments.public_state``): the ranking, the round's progress, the
    seating, and what the next build needs to go on from it.  ``tag`` is the poll
    state it was built from; ``seq`` counts the builds (a process keeps the one it
    read by ``seq``).  ``claimed_at``: a process is building the next one (so that
    of the many polls that see a change, one builds and the others keep showing this).
    """

    __tablename__ = "tournament_public_snapshot"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(default=1)
    tag: Mapped[str] = mapped_column(String(120))
    built_at: Mapped[datetime] = mapped_column(default=utcnow)
    claimed_at: Mapped[datetime | None] = mapped_column(default=None)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class PhoneReport(db.Model):  # type: ignore[name-defined]
    """What a table phone holds that this laptop lacks (``services.tournaments.phone_reports``).

    A phone whose table link is not on this laptop, or whose deals the laptop refused
    (another hand in their place, a closed round), reports the deals it keeps; the
    organiser's page lists them until they are taken in or set aside.  One row per
    table link: a phone reporting again replaces what it said before.  ``deals`` are
    the hand form's fields as the phone kept them, with their keys and places
    (``[{"key", "seq", "deal", "struck", "told", "why", "fields": [[name, value]…]}]``),
    read by the hand form again when they are shown or taken in.
    """

    __tablename__ = "tournament_phone_report"
    __table_args__ = (UniqueConstraint("tournament_id", "token", name="uq_phone_report_link"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    # the table link the phone holds (its match may not be on this laptop)
    token: Mapped[str] = mapped_column(String(32))
    round_number: Mapped[int]
    table_number: Mapped[int]
    # the names at the table in seat order, as the phone showed them
    players: Mapped[list[str]] = mapped_column(JSON)
    deals: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    # "missing": the link names no table here; "refused": the table is here, deals were not
    # taken; "replaced": the organiser gave the table a new link
    why: Mapped[str] = mapped_column(String(12))
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # taken in or set aside by the organiser (None: still listed)
    settled_at: Mapped[datetime | None] = mapped_column(default=None)
    settled: Mapped[str | None] = mapped_column(String(12), default=None)
