"""Use cases of the score sheet: load rows, call ``scorer.rules``, save.

This is the one place that commits.  Views call these functions with plain
values (parsed by the forms) and render what comes back; every number comes
from ``scorer.rules``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from flask import abort
from sqlalchemy import Row, bindparam, case, func, insert, inspect, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import InstanceState, joinedload, selectinload
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.sql.dml import Update

from .extensions import db
from .models import GameSession, Hand, HandEvent, HandMeld, HandParty, Match, Player, Seat, utcnow
from .rules import (
    PRESETS,
    SPECIAL_GAMES,
    HandResult,
    MatchProgress,
    PlayedHand,
    RulesError,
    Ruleset,
    Standing,
    Suit,
    TrickError,
    advance,
    complete_tricks,
    party_of_seat,
    reached_target,
    replay,
    settle_at_table,
)

MAX_NAME = 40
MAX_TITLE = 80
MAX_MATCH_HANDS = 500
"""The most hands a match holds.  A match to 1000 takes 10 to 40 hands; 500 hands
render as a PDF in a few seconds, and a backup of them imports again."""
NEW_MATCH_BELOW = 500
"""A session starts another match only while it holds fewer hands than this, so a
session stays under the 1,000 hands a backup import takes."""
# the largest id a row can have (PostgreSQL's integer); a larger one names no row, and the
# database would refuse to compare with it (SQLite from 2**63 on, PostgreSQL from 2**31 on)
MAX_ID = 2**31 - 1
# control characters (PostgreSQL refuses NUL in text, the others are no part of a name)
# and lone surrogates (not encodable as UTF-8)
_UNSTORABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


class ConflictError(Exception):
    """The match changed since the form was loaded (another phone saved first)."""


class KeyReusedError(ConflictError):
    """An idempotency key came again with something else than it first saved.

    A repeated key means "the same form again": another hand (or another table)
    under it is not saved, and not silently dropped either.
    """


class HandClosedError(ConflictError):
    """A two-player form was for a hand that is no longer the one in play."""


class MatchOverError(Exception):
    """The match has ended; no more hands can be entered."""


# -- reading ---------------------------------------------------------------


def ruleset_of(match: Match) -> Ruleset:
    """The match's ruleset (stored as JSON), parsed once per loaded value of the column."""
    raw = match.ruleset
    memo = match.__dict__.get("_ruleset_memo")
    if memo is not None and memo[0] is raw:
        return memo[1]
    ruleset = Ruleset.from_dict(raw)
    match.__dict__["_ruleset_memo"] = (raw, ruleset)
    return ruleset


# every view of an edit link needs the seats (names) and the session (title, link):
# read with the match in one statement instead of two lazy loads later
_MATCH_BY_TOKEN = (
    select(Match)
    .where(Match.token == bindparam("token"))
    .options(joinedload(Match.session), joinedload(Match.seats))
)


def get_match(token: str) -> Match:
    """The match behind an edit link, or 404."""
    match = db.session.execute(_MATCH_BY_TOKEN, {"token": token}).unique().scalar_one_or_none()
    if match is None:
        abort(404)
    return match


_MATCHES = Match.__table__
_SESSIONS = GameSession.__table__
# what the cached match page needs to know it is still current, in one Core statement
_MATCH_STATE = (
    select(_MATCHES.c.version, _MATCHES.c.updated_at, _SESSIONS.c.token)
    .join(_SESSIONS, _SESSIONS.c.id == _MATCHES.c.session_id)
    .where(_MATCHES.c.token == bindparam("token"))
)


def match_state(token: str) -> Row[Any]:
    """The version, last change and session token of the match behind an edit link, or 404.

    No ORM object is built: the match page answers from its cache when these say
    nothing has changed (``fragments.cached_page``).
    """
    row = db.session.connection().execute(_MATCH_STATE, {"token": token}).first()
    if row is None:
        abort(404)
    return row


def get_match_for_view(token: str) -> Match:
    """The match behind a read-only link, or 404."""
    match = db.session.execute(select(Match).where(Match.view_token == token)).scalar_one_or_none()
    if match is None:
        abort(404)
    return match


def get_session_for_view(token: str) -> GameSession:
    """The session behind a read-only link, or 404."""
    row = db.session.execute(
        select(GameSession).where(GameSession.view_token == token)
    ).scalar_one_or_none()
    if row is None:
        abort(404)
    return row


def get_session(token: str) -> GameSession:
    """The session behind an edit link, or 404."""
    row = db.session.execute(
        select(GameSession).where(GameSession.token == token)
    ).scalar_one_or_none()
    if row is None:
        abort(404)
    return row


def live_hands(match: Match) -> list[Hand]:
    """The hands that count, in playing order (deleted ones left out)."""
    return [h for h in match.hands if h.deleted_at is None]


def party_names(match: Match) -> list[str]:
    """One name per party: the player, or the partners joined with ' & '."""
    ruleset = ruleset_of(match)
    names: list[list[str]] = [[] for _ in range(ruleset.parties)]
    for seat in match.seats:
        names[seat.party].append(seat.name)
    return [" & ".join(n) for n in names]


def recent_sessions(tokens: Sequence[str] = (), limit: int = 12) -> list[dict[str, Any]]:
    """The sessions this device has opened, newest first, for the home page."""
    if not tokens:
        return []
    rows = (
        db.session.execute(
            select(GameSession)
            .where(GameSession.token.in_(list(tokens)))
            .order_by(GameSession.updated_at.desc())
            .limit(limit)
        )
        .scalars()
        .all()
    )
    return [_session_summary(row) for row in rows]


def _session_summary(row: GameSession) -> dict[str, Any]:
    last = row.matches[-1] if row.matches else None
    players = ", ".join(s.name for s in last.seats) if last else ""
    return {
        "session": row,
        "title": row.title,
        "players": players,
        "when": row.updated_at,
        "match": last,
        "finished": bool(last and last.finished_at),
    }


def known_players(tokens: Sequence[str], prefix: str = "", limit: int = 30) -> list[str]:
    """Names of the sessions with these tokens (the ones this device has opened), most
    recently used first (autocomplete): never a name typed on another device."""
    if not tokens or not storable(prefix):
        return []
    last_used = func.max(Match.created_at)
    query = (
        select(Seat.name)
        .join(Match, Seat.match_id == Match.id)
        .join(GameSession, Match.session_id == GameSession.id)
        .where(GameSession.token.in_(list(tokens)))
        .group_by(Seat.name)
        .order_by(last_used.desc(), Seat.name)
        .limit(limit)
    )
    if prefix:
        query = query.where(func.lower(Seat.name).startswith(prefix.lower(), autoescape=True))
    return list(db.session.execute(query).scalars())


# -- the sheet -------------------------------------------------------------


@dataclass
class SheetRow:
    """One hand as the sheet shows it."""

    hand: Hand
    number: int
    dealer: str
    declarer: str | None
    points: list[int]
    totals: list[int]
    stars: list[int]
    sits_out: list[bool]


@dataclass
class Sheet:
    """Everything the match page and the PDF show, computed once per request."""

    match: Match
    ruleset: Ruleset
    parties: list[str]
    rows: list[SheetRow]
    totals: list[int]
    stars: list[int]
    finished: bool
    winners: list[int]
    next_dealer: int | None
    next_leader: int | None
    next_sits_out: int | None
    open_hand: Hand | None
    progress: MatchProgress
    seat_names: list[str] = field(default_factory=list)
    # the number of hands when ``rows`` were left out (see :func:`standing`)
    played: int | None = None

    @property
    def hand_count(self) -> int:
        """The closed hands on the sheet (known without the rows)."""
        return len(self.rows) if self.played is None else self.played

    @property
    def percent(self) -> list[int]:
        """Each party's way to the target, 0..100 (for the progress bars)."""
        target = self.ruleset.target
        return [max(0, min(100, round(100 * t / target))) for t in self.totals]

    def number_of(self, hand: Hand) -> int | None:
        """The hand's number on the sheet (None for a struck or open hand)."""
        return next((row.number for row in self.rows if row.hand.id == hand.id), None)

    @property
    def winner_names(self) -> list[str]:
        """The names of the winning parties (several on a tie)."""
        return [self.parties[i] for i in self.winners]

    @property
    def leading(self) -> set[int]:
        best = max(self.totals) if self.totals else 0
        return {i for i, t in enumerate(self.totals) if t == best and best > 0}

    @property
    def hands_left(self) -> int | None:
        """With a fixed number of deals: how many are left."""
        if self.ruleset.end != "deals":
            return None
        return max(0, self.ruleset.deals - self.hand_count)


def _played(hand: Hand, parties: int) -> PlayedHand:
    lines = sorted(hand.parties, key=lambda p: p.party)
    points = tuple(p.points for p in lines) if lines else (0,) * parties
    exact = tuple(p.exact_points for p in lines) if lines else points
    stars = tuple(p.stars for p in lines) if lines else (0,) * parties
    declarer_won: bool | None
    if hand.outcome in SPECIAL_GAMES:
        declarer_won = bool(hand.won)
    elif hand.outcome == "played":
        declarer_won = bool(hand.made)
    else:
        declarer_won = None if hand.outcome == "open_play" else False
    return PlayedHand(
        declarer=hand.declarer_party,
        outcome=hand.outcome,
        declarer_won=declarer_won,
        points=points,
        stars=stars,
        exact_points=exact,
        dealer=hand.dealer_seat,
    )


def load_hands(match: Match) -> None:
    """Load the seats, the hands and their lines of ``match`` in three queries.

    Without this, every hand would load its lines on first use (one query per hand).
    """
    state: InstanceState[Match] = inspect(match)
    if state.identity is None:
        return  # not saved yet: everything is in memory
    if {"seats", "hands"} & state.unloaded:
        db.session.execute(
            select(Match)
            .where(Match.id == state.identity[0])
            .options(
                selectinload(Match.seats), selectinload(Match.hands).selectinload(Hand.parties)
            )
        ).scalar_one()
    lazy = [h.id for h in match.hands if h.id and "parties" in inspect(h).unloaded]
    if lazy:
        db.session.execute(
            select(Hand).where(Hand.id.in_(lazy)).options(selectinload(Hand.parties))
        ).scalars().all()


def sheet(match: Match) -> Sheet:
    """The sheet of a match: rows with running totals, progress, who deals next, the end."""
    load_hands(match)
    ruleset = ruleset_of(match)
    names = party_names(match)
    seat_names = [s.name for s in match.seats]
    seats = len(match.seats)
    closed = [h for h in live_hands(match) if h.status == "closed"]
    open_hand = next((h for h in live_hands(match) if h.status == "open"), None)
    progress = replay(
        ruleset,
        seats,
        [_played(h, ruleset.parties) for h in closed],
        first_dealer=match.first_dealer,
    )
    rows = []
    for number, (hand, running) in enumerate(zip(closed, progress.running, strict=True), 1):
        lines = sorted(hand.parties, key=lambda p: p.party)
        declarer = names[hand.declarer_party] if hand.declarer_party is not None else None
        rows.append(
            SheetRow(
                hand=hand,
                number=number,
                dealer=seat_names[hand.dealer_seat],
                declarer=declarer,
                points=[p.points for p in lines],
                totals=list(running),
                stars=[p.stars for p in lines],
                sits_out=[p.sits_out for p in lines],
            )
        )
    finished = progress.finished_after is not None
    next_dealer = next_leader = next_sits_out = None
    if not finished:
        next_dealer = progress.next_dealer if open_hand is None else open_hand.dealer_seat
        next_leader = (next_dealer + 1) % seats
        if ruleset.dealer_sits_out:
            next_sits_out = party_of_seat(ruleset, next_dealer)
    return Sheet(
        match=match,
        ruleset=ruleset,
        parties=names,
        rows=rows,
        totals=list(progress.totals),
        stars=list(progress.stars),
        finished=finished,
        winners=list(progress.winners),
        next_dealer=next_dealer,
        next_leader=next_leader,
        next_sits_out=next_sits_out,
        open_hand=open_hand,
        progress=progress,
        seat_names=seat_names,
    )


# the shape of Match.standing; another number makes the old caches fall back to sheet()
STANDING_VERSION = 1


def _standing_of(match: Match, current: Sheet) -> dict[str, Any]:
    """What :func:`standing` needs, from a full sheet (stored on the match)."""
    return {
        "v": STANDING_VERSION,
        "hands": len(current.rows),
        "totals": list(current.totals),
        "stars": list(current.stars),
        "exact": list(current.progress.exact_totals),
        "finished_after": current.progress.finished_after,
        "winners": list(current.winners),
        "dealer": current.progress.next_dealer,
    }


def standing(match: Match) -> Sheet:
    """The top of the sheet without its rows: totals, progress, who deals next, the end.

    Read from ``match.standing``, which every change rewrites, instead of loading
    and replaying every hand, so it costs the same at hand 10 and at hand 500.
    ``rows`` is empty (``hand_count`` says how many there are).  A match without
    the cache (saved before it existed) gets the full :func:`sheet`.
    """
    cached = match.standing
    if not cached or cached.get("v") != STANDING_VERSION:
        return sheet(match)
    ruleset = ruleset_of(match)
    seats = len(match.seats)
    open_hand = None
    if ruleset.open_play:
        open_hand = db.session.execute(
            select(Hand)
            .where(Hand.match_id == match.id, Hand.status == "open", Hand.deleted_at.is_(None))
            .order_by(Hand.seq)
            .limit(1)
        ).scalar_one_or_none()
    dealer = open_hand.dealer_seat if open_hand is not None else int(cached["dealer"])
    finished = cached["finished_after"] is not None
    progress = MatchProgress(
        running=(),
        totals=tuple(cached["totals"]),
        stars=tuple(cached["stars"]),
        exact_totals=tuple(cached["exact"]),
        finished_after=cached["finished_after"],
        winners=tuple(cached["winners"]),
        next_dealer=dealer,
        next_leader=(dealer + 1) % seats,
    )
    sits_out = party_of_seat(ruleset, dealer) if ruleset.dealer_sits_out else None
    return Sheet(
        match=match,
        ruleset=ruleset,
        parties=party_names(match),
        rows=[],
        totals=list(cached["totals"]),
        stars=list(cached["stars"]),
        finished=finished,
        winners=list(cached["winners"]),
        next_dealer=None if finished else dealer,
        next_leader=None if finished else (dealer + 1) % seats,
        next_sits_out=None if finished else sits_out,
        open_hand=open_hand,
        progress=progress,
        seat_names=[s.name for s in match.seats],
        played=int(cached["hands"]),
    )


def last_row(current: Sheet, hand: Hand) -> SheetRow:
    """The sheet's row of ``hand``, the last closed hand, from :func:`standing` (no replay).

    Its running totals are the match's totals, its number the number of hands.
    """
    lines = sorted(hand.parties, key=lambda p: p.party)
    declarer = hand.declarer_party
    return SheetRow(
        hand=hand,
        number=current.hand_count,
        dealer=current.seat_names[hand.dealer_seat],
        declarer=current.parties[declarer] if declarer is not None else None,
        points=[p.points for p in lines],
        totals=list(current.totals),
        stars=[p.stars for p in lines],
        sits_out=[p.sits_out for p in lines],
    )


# -- starting --------------------------------------------------------------


def storable(text: str) -> bool:
    """True when ``text`` holds no control character and no lone surrogate.

    >>> storable("Anna Maria"), storable("An\\x00na"), storable("Anna\\t")
    (True, False, False)
    """
    return _UNSTORABLE.search(text) is None


def clean_name(name: str) -> str:
    """A player's name as stored: trimmed, inner spaces folded."""
    return " ".join(name.split())[:MAX_NAME]


def default_parties(ruleset: Ruleset, seats: int) -> list[int]:
    """The party of every seat: partners sit opposite."""
    return [party_of_seat(ruleset, seat) for seat in range(seats)]


def start_match(
    *,
    names: Sequence[str],
    ruleset: Ruleset,
    title: str = "",
    parties: Sequence[int] | None = None,
    first_dealer: int = 0,
    stake_cents: int = 0,
    stake_basis: str = "full",
    session: GameSession | None = None,
    idempotency_key: str | None = None,
) -> Match:
    """A new match (in a new session unless one is given), committed.

    A new session remembers ``idempotency_key`` (the setup form's): the same form
    sent again gets the match it started the first time, a form sent again with
    another table or other rules ``KeyReusedError``.  A request that loses a race
    with its twin for the key or for the match's number gets ``ConflictError``
    unless the key tells which match its twin made.
    """
    names = [clean_name(n) for n in names]
    if len(names) != ruleset.players:
        raise RulesError(
            "this ruleset is for {players} players, not {count}",
            players=ruleset.players,
            count=len(names),
        )
    if parties is None:
        parties = default_parties(ruleset, len(names))
    title = title.strip()[:MAX_TITLE]
    first_dealer %= len(names)
    wanted = (names, list(parties), ruleset, first_dealer, title, stake_cents, stake_basis)
    key = idempotency_key if session is None and idempotency_key else None
    if key is not None:
        started = _started_with(key, wanted)
        if started is not None:
            return started
    if session is None:
        session = GameSession(
            title=title,
            stake_cents=stake_cents,
            stake_basis=stake_basis,
            idempotency_key=key,
        )
        db.session.add(session)
    number = max((m.number for m in session.matches), default=0) + 1
    match = Match(
        session=session,
        number=number,
        ruleset=ruleset.to_dict(),
        first_dealer=first_dealer,
    )
    for position, (name, party) in enumerate(zip(names, parties, strict=True)):
        match.seats.append(Seat(position=position, party=party, name=name))
    session.updated_at = utcnow()
    db.session.add(match)
    try:
        _remember_players(names)  # its query flushes the new rows
        db.session.commit()
    except IntegrityError:
        # a twin request committed the same key or the same match number first
        db.session.rollback()
        started = _started_with(key, wanted) if key is not None else None
        if started is None:
            raise ConflictError() from None
        return started
    return match


def _started_with(key: str, wanted: tuple[Any, ...]) -> Match | None:
    """The first match of the session the setup form with ``key`` started, or None.

    ``KeyReusedError`` when it was started with another table, other rules or stakes
    (the form came back, say by the back button, and was changed).
    """
    match = db.session.execute(
        select(Match)
        .join(GameSession, GameSession.id == Match.session_id)
        .where(GameSession.idempotency_key == key)
        .order_by(Match.number)
        .limit(1)
    ).scalar_one_or_none()
    if match is None:
        return None
    row = match.session
    started = (
        [s.name for s in match.seats],
        [s.party for s in match.seats],
        ruleset_of(match),
        match.first_dealer,
        row.title,
        row.stake_cents,
        row.stake_basis,
    )
    if started != wanted:
        raise KeyReusedError()
    return match


def _later_match(match: Match) -> Match | None:
    """The match after ``match`` in its session, if there is one."""
    return db.session.execute(
        select(Match)
        .where(Match.session_id == match.session_id, Match.number > match.number)
        .order_by(Match.number)
        .limit(1)
    ).scalar_one_or_none()


def _check_room(hands: int) -> None:
    """A match with :data:`MAX_MATCH_HANDS` hands takes no more."""
    if hands >= MAX_MATCH_HANDS:
        raise RulesError(
            "a match holds at most {limit} hands; start the next match", limit=MAX_MATCH_HANDS
        )


def next_match(match: Match) -> Match:
    """The next match of the session with the same table and rules; the deal moves on.

    Asked again (a double tap, a second phone, two requests at once) it is the
    same match: the match numbers of a session are unique, so of two requests
    racing to make it the second one's insert fails and it answers the first's.
    """
    later = _later_match(match)
    if later is not None:
        return later
    held = sum(standing(m).hand_count for m in match.session.matches)
    if held >= NEW_MATCH_BELOW:
        raise RulesError(
            "this session holds {hands} hands; start a new session for the next match",
            hands=held,
        )
    names = [s.name for s in match.seats]
    parties = [s.party for s in match.seats]
    first = (match.first_dealer + 1) % len(names)
    try:
        return start_match(
            names=names,
            ruleset=ruleset_of(match),
            parties=parties,
            first_dealer=first,
            session=match.session,
        )
    except ConflictError:
        later = _later_match(match)
        if later is None:
            raise
        return later


def _remember_players(names: Sequence[str]) -> None:
    now = utcnow()
    existing = {
        p.name: p
        for p in db.session.execute(select(Player).where(Player.name.in_(list(names)))).scalars()
    }
    for name in names:
        if name in existing:
            existing[name].last_used_at = now
        else:
            player = Player(name=name, last_used_at=now)
            existing[name] = player
            db.session.add(player)


# -- hands -----------------------------------------------------------------


@dataclass
class HandInput:
    """What the Schreiber entered for one hand, parsed but not yet checked by the rules."""

    declarer: int | None = None
    bid: int = 0
    trump: str | None = None
    outcome: str = "played"
    won: bool | None = None
    melds: list[int] = field(default_factory=list)
    meld_names: list[list[str] | None] = field(default_factory=list)
    tricks: list[int | None] = field(default_factory=list)
    took_trick: list[bool | None] = field(default_factory=list)


@dataclass
class Settled:
    """A hand checked and settled, ready to save or to show before saving."""

    data: HandInput
    dealer_seat: int
    active: list[int]
    tricks: list[int | None]
    result: HandResult
    points: list[int]
    exact_points: list[int]
    stars: list[int]


def settle_input(
    match: Match, data: HandInput, dealer_seat: int, *, ended_early: bool = False
) -> Settled:
    """Check a hand with the rules and settle it; RulesError when it is not possible.

    :func:`scorer.rules.settle_at_table` does it all: the dealer sitting out, the
    trick value filled in from the trick total, the parties put back at their places.
    """
    table = settle_at_table(
        ruleset_of(match),
        len(match.seats),
        dealer_seat,
        declarer=data.declarer,
        bid=data.bid,
        outcome=data.outcome,
        won=data.won,
        melds=data.melds,
        tricks=data.tricks,
        took_trick=data.took_trick,
        ended_early=ended_early,
    )
    return Settled(
        data=data,
        dealer_seat=dealer_seat,
        active=list(table.active),
        tricks=list(table.tricks),
        result=table.result,
        points=list(table.points),
        exact_points=list(table.exact_points),
        stars=list(table.stars),
    )


def preview(match: Match, data: HandInput, hand: Hand | None = None) -> Settled:
    """Settle without saving (the live result under the form)."""
    return settle_input(match, data, _dealer_for(match, hand))


def _dealer_for(match: Match, hand: Hand | None) -> int:
    if hand is not None:
        return hand.dealer_seat
    current = standing(match)
    if current.open_hand is not None:
        return current.open_hand.dealer_seat
    return current.progress.next_dealer


def _check_version(match: Match, version: int | None) -> None:
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


def _touch(match: Match, **columns: Any) -> None:
    """Count a change of the match: a new version and time, with ``columns`` set too.

    One UPDATE that finds the row only at the version this request read: of two
    saves racing on the same version, the later one gets ``ConflictError``, its
    changes rolled back, instead of overwriting the first.
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
            # nothing of this request's change may stay in the session (the 409 page
            # renders the match as it is now)
            db.session.rollback()
            raise ConflictError()
        for key, value in values.items():
            set_committed_value(match, key, value)
        # the session's last change: one UPDATE whether its row is loaded or not
        connection.execute(
            _SESSION_TOUCHED, {"session_id": match.session_id, "updated_at": values["updated_at"]}
        )
        if "session" not in inspect(match).unloaded:
            set_committed_value(match.session, "updated_at", values["updated_at"])


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


def _snapshot(hand: Hand) -> dict[str, Any]:
    return {
        "declarer": hand.declarer_party,
        "bid": hand.bid,
        "trump": hand.trump,
        "outcome": hand.outcome,
        "won": hand.won,
        "made": hand.made,
        "parties": [{"party": party, **line} for party, line in enumerate(party_lines(hand))],
    }


def _write(hand: Hand, settled: Settled) -> None:
    data = settled.data
    hand.declarer_party = data.declarer
    hand.bid = data.bid if data.outcome in ("played", "gone_off", "forfeit") else 0
    hand.trump = data.trump
    hand.outcome = data.outcome
    hand.won = data.won if data.outcome in SPECIAL_GAMES else None
    hand.made = settled.result.made
    hand.declarer_count = settled.result.declarer_count
    hand.updated_at = utcnow()
    lines = {p.party: p for p in hand.parties}
    parties = len(settled.points)
    melds = list(data.melds) + [0] * (parties - len(data.melds))
    names = list(data.meld_names) + [None] * (parties - len(data.meld_names))
    took = list(data.took_trick) + [None] * (parties - len(data.took_trick))
    for party in range(parties):
        line = lines.get(party)
        if line is None:
            line = HandParty(party=party)
            hand.parties.append(line)
        line.sits_out = party not in settled.active
        line.melds = 0 if line.sits_out else melds[party]
        line.meld_names = None if line.sits_out else names[party]
        line.tricks = settled.tricks[party]
        line.took_trick = took[party]
        line.points = settled.points[party]
        line.exact_points = settled.exact_points[party]
        line.stars = settled.stars[party]


_HANDS = Hand.__table__
# the last seq of a match and the hand a key already saved, in one statement
_LAST_SEQ_AND_KEY = select(
    func.max(_HANDS.c.seq),
    func.max(case((_HANDS.c.idempotency_key == bindparam("key"), _HANDS.c.id))),
).where(_HANDS.c.match_id == bindparam("match_id"))
_INSERT_HAND = insert(_HANDS)
_INSERT_LINE = insert(HandParty.__table__)
_INSERT_EVENT = insert(HandEvent.__table__)


def save_hand(
    match: Match,
    data: HandInput,
    *,
    hand: Hand | None = None,
    version: int | None = None,
    idempotency_key: str | None = None,
) -> Hand:
    """Save a new hand, or correct ``hand``; the match's end is recomputed.

    A repeated submission with the same idempotency key returns the hand it
    created the first time instead of a second one; the same key with another
    hand raises ``KeyReusedError`` (nothing is saved).
    """
    last = None
    if hand is None:
        # the key's hand, if this is a repeated submission, and the last seq: one query
        last, existing_id = (
            db.session.connection()
            .execute(_LAST_SEQ_AND_KEY, {"match_id": match.id, "key": idempotency_key})
            .one()
        )
        if idempotency_key and existing_id is not None:
            return _saved_before(match, db.session.get_one(Hand, existing_id), data)
    _check_version(match, version)
    before: Sheet | None = None
    if hand is None:
        before = standing(match)
        if before.finished:
            raise MatchOverError()
        _check_room(before.hand_count)
        dealer = (
            before.open_hand.dealer_seat
            if before.open_hand is not None
            else before.progress.next_dealer
        )
    else:
        dealer = hand.dealer_seat
    settled = settle_input(match, data, dealer)
    action = "corrected"
    appended = False
    if hand is None:
        action = "created"
        # built outside the ORM session and inserted with three Core statements (below)
        hand = Hand(
            match_id=match.id,
            seq=(last or 0) + 1,
            dealer_seat=settled.dealer_seat,
            outcome=data.outcome,
            idempotency_key=idempotency_key or None,
        )
        appended = True
    _write(hand, settled)
    hand.status = "closed"
    event = HandEvent(action=action, snapshot=_snapshot(hand))
    try:
        if appended:
            # meets a twin request's row (same key or seq) at once: IntegrityError
            _insert_new_hand(match, hand, event)
        else:
            hand.events.append(event)
        moved = _append_standing(match, before, hand) if appended and before else None
        if moved is None:
            _after_change(match)
        # last: one UPDATE of the match for its version, time and standing together
        _touch(match, **(moved or {}))
        _commit_keeping_loaded()
    except IntegrityError:
        db.session.rollback()
        if idempotency_key:
            again = db.session.execute(
                select(Hand).where(
                    Hand.match_id == match.id, Hand.idempotency_key == idempotency_key
                )
            ).scalar_one_or_none()
            if again is not None:
                return _saved_before(match, again, data)
        raise ConflictError() from None
    return hand


def _saved_before(match: Match, hand: Hand, data: HandInput) -> Hand:
    """``hand``, saved before under the key ``data`` came with, if ``data`` is that hand.

    Compared is what was entered as it is stored (settled and written the same
    way, so an empty trick field filled in by hand is the same hand), against
    what the key first saved: a correction made since does not make a resend of
    the original a different hand.  ``KeyReusedError`` if it is another hand.
    """
    try:
        settled = settle_input(match, data, hand.dealer_seat)
    except RulesError:
        raise KeyReusedError() from None
    resent = Hand(outcome=data.outcome)
    _write(resent, settled)
    created = next((e.snapshot for e in hand.events if e.action == "created"), None)
    if _entered(_snapshot(resent)) != _entered(created or _snapshot(hand)):
        raise KeyReusedError()
    return hand


def _entered(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What the Schreiber entered, from a hand's snapshot (without what was settled)."""
    keys = ("declarer", "bid", "trump", "outcome", "won")
    lines = ("melds", "meld_names", "tricks", "took_trick")
    return {
        **{key: snapshot.get(key) for key in keys},
        "parties": [{key: p.get(key) for key in lines} for p in snapshot.get("parties", [])],
    }


def _columns(row: Any) -> dict[str, Any]:
    """The column values set on a mapped object (Core fills in the defaults of the rest)."""
    values = row.__dict__
    return {
        attr.key: values[attr.key] for attr in inspect(type(row)).column_attrs if attr.key in values
    }


def _insert_new_hand(match: Match, hand: Hand, event: HandEvent) -> None:
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


def _commit_keeping_loaded() -> None:
    """Commit without expiring what the request holds.

    The objects hold exactly what was just written, so the answer to a save is
    rendered from them instead of reading the match, its seats, the hand and its
    lines again.
    """
    session = db.session()
    session.expire_on_commit = False
    try:
        session.commit()
    finally:
        session.expire_on_commit = True


def delete_hand(match: Match, hand: Hand, version: int | None = None) -> None:
    """Strike a hand from the sheet; it stays in the history."""
    _check_version(match, version)
    hand.deleted_at = utcnow()
    hand.events.append(HandEvent(action="deleted", snapshot=_snapshot(hand)))
    _touch(match)
    _after_change(match)
    db.session.commit()


def restore_hand(match: Match, hand: Hand, version: int | None = None) -> None:
    """Bring a struck hand back onto the sheet."""
    _check_version(match, version)
    hand.deleted_at = None
    hand.events.append(HandEvent(action="restored", snapshot=_snapshot(hand)))
    _touch(match)
    _after_change(match)
    db.session.commit()


def _after_change(match: Match) -> None:
    """Keep the stored end and standing of the match in step with its hands."""
    db.session.flush()
    current = sheet(match)
    match.standing = _standing_of(match, current)
    if current.finished:
        match.winners = current.winners
        match.finished_at = match.finished_at or utcnow()
    else:
        match.winners = None
        match.finished_at = None


def _append_standing(match: Match, before: Sheet, hand: Hand) -> dict[str, Any] | None:
    """The stored standing moved on by ``hand``, a new closed hand at the end of the match.

    One step of the match (:func:`scorer.rules.advance`) from the stored totals
    instead of a replay of every hand.  Only for a running match with a valid
    stored standing and no open hand; a hand that ends the match and every other
    case are left to the full replay of :func:`_after_change` (returns None then).
    The result is the new values of the match's columns, for :func:`_touch` to write.
    """
    cached = match.standing
    ruleset = before.ruleset
    if (
        before.played is None  # the standing came from the full sheet: no stored cache
        or not cached
        or cached.get("v") != STANDING_VERSION
        or cached.get("finished_after") is not None
        or before.open_hand is not None
        or ruleset.open_play
    ):
        return None
    now = Standing(
        seats=len(match.seats),
        first_dealer=match.first_dealer,
        hands=int(cached["hands"]),
        totals=tuple(cached["totals"]),
        exact_totals=tuple(cached["exact"]),
        stars=tuple(cached["stars"]),
        next_dealer=int(cached["dealer"]),
    )
    try:
        after = advance(ruleset, now, _played(hand, ruleset.parties))
    except RulesError:
        return None
    if after.finished:
        return None  # the end and its winners: the full replay decides
    standing = {
        "v": STANDING_VERSION,
        "hands": after.hands,
        "totals": list(after.totals),
        "stars": list(after.stars),
        "exact": list(after.exact_totals),
        "finished_after": None,
        "winners": [],
        "dealer": after.next_dealer,
    }
    return {"standing": standing, "winners": None, "finished_at": None}


def get_hand(match: Match, hand_id: int) -> Hand:
    """A hand of this match, or 404."""
    if not 0 < hand_id <= MAX_ID:
        abort(404)
    hand = db.session.get(Hand, hand_id)
    if hand is None or hand.match_id != match.id:
        abort(404)
    return hand


def input_of(hand: Hand) -> HandInput:
    """What was entered for a saved hand (to fill the correction form)."""
    lines = sorted(hand.parties, key=lambda p: p.party)
    return HandInput(
        declarer=hand.declarer_party,
        bid=hand.bid,
        trump=hand.trump,
        outcome=hand.outcome,
        won=hand.won,
        melds=[p.melds for p in lines],
        meld_names=[p.meld_names for p in lines],
        tricks=[p.tricks for p in lines],
        took_trick=[p.took_trick for p in lines],
    )


# -- two-player games: melds written one at a time ---------------------------


def open_hand(match: Match, number: int | None = None) -> Hand:
    """The hand being played in a two-player match (opened on first use).

    ``number`` is the hand the form was for (its number on the sheet): when
    another phone has closed that hand since, :class:`HandClosedError`.
    """
    current = sheet(match)
    if current.finished:
        raise MatchOverError()
    if number is not None and number != len(current.rows) + 1:
        raise HandClosedError()
    if current.open_hand is not None:
        return current.open_hand
    _check_room(len(current.rows))
    seq = max((h.seq for h in match.hands), default=0) + 1
    hand = Hand(
        seq=seq,
        dealer_seat=current.progress.next_dealer,
        outcome="open_play",
        status="open",
    )
    match.hands.append(hand)
    try:
        db.session.flush()
    except IntegrityError:
        # another phone opened the hand at the same moment (its row has this seq): a race
        # like two saves on one version, and answered the same way
        db.session.rollback()
        raise ConflictError() from None
    return hand


def _in_play(write: Callable[[], Hand]) -> Hand:
    """Run a write to the hand in play; when it lost a race, run it again on the new state.

    A meld shown or the trump named adds to the hand being played, whatever else was
    written to it in the meantime: unlike a hand's correction it does not depend on
    the version the page was loaded at.  So a write that another one beat (the
    guarded UPDATE of :func:`_touch` found a newer version, or both opened the hand)
    is done again instead of being refused — a quick tap after another is never
    lost.  Only a hand closed in the meantime (:class:`HandClosedError`) refuses it.
    """
    for attempt in range(3):
        try:
            return write()
        except HandClosedError:
            raise
        except ConflictError:
            db.session.rollback()  # the match is read again on the next try
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def set_trump(match: Match, trump: str, hand_number: int | None = None) -> Hand:
    """Name the trump of the two-player hand being played (the turned card)."""
    suit = Suit.parse(trump)  # CardError (a RulesError) for anything else

    def write() -> Hand:
        hand = open_hand(match, hand_number)
        hand.trump = suit.value
        _touch(match)
        db.session.commit()
        return hand

    return _in_play(write)


def open_hand_melds(hand: Hand, parties: int) -> list[int]:
    """Meld points written so far in an open hand, per party."""
    melds = [0] * parties
    for entry in hand.meld_log:
        melds[entry.party] += entry.points
    return melds


def write_meld(
    match: Match,
    party: int,
    name: str,
    points: int,
    hand_number: int | None = None,
    *,
    trump: str | None = None,
) -> Hand:
    """Write one meld shown during hand ``hand_number`` of a two-player match.

    With ``end = at_once`` the match ends the moment a party's total reaches the
    target, even in the middle of the hand: the hand is closed with the melds
    written so far and no trick points.
    """
    ruleset = ruleset_of(match)
    if not 0 <= party < ruleset.parties:
        raise RulesError("there is no party {party}", party=party + 1)
    if points <= 0 or points > 5000:
        raise RulesError("a meld is worth 1 to 5000 points, not {points}", points=points)
    return _in_play(lambda: _write_meld(match, party, name, points, hand_number, trump))


def _write_meld(
    match: Match, party: int, name: str, points: int, number: int | None, trump: str | None
) -> Hand:
    ruleset = ruleset_of(match)
    hand = open_hand(match, number)
    if trump in ("E", "G", "H", "S"):
        hand.trump = trump
    hand.meld_log.append(HandMeld(party=party, name=name[:40], points=points))
    db.session.flush()
    if ruleset.end == "at_once":
        before = sheet(match).totals
        melds = open_hand_melds(hand, ruleset.parties)
        now = [t + m for t, m in zip(before, melds, strict=True)]
        if reached_target(ruleset, now) is not None:
            data = HandInput(outcome="open_play", melds=melds, tricks=[0] * ruleset.parties)
            settled = _settle_mid_hand(match, data, hand)
            _write(hand, settled)
            hand.status = "closed"
            hand.ended_mid_hand = True
            hand.events.append(HandEvent(action="created", snapshot=_snapshot(hand)))
    _touch(match)
    _after_change(match)
    db.session.commit()
    return hand


def _settle_mid_hand(match: Match, data: HandInput, hand: Hand) -> Settled:
    """A hand ended by a meld: melds count, tricks are not played out (none recorded)."""
    unplayed = replace(data, tricks=[None] * len(data.melds))
    return settle_input(match, unplayed, hand.dealer_seat, ended_early=True)


def remove_meld(match: Match, entry_id: int, version: int | None = None) -> None:
    """Take back a meld written by mistake in the open hand."""
    _check_version(match, version)
    if not 0 < entry_id <= MAX_ID:
        abort(404)
    entry = db.session.get(HandMeld, entry_id)
    if entry is None or entry.hand.match_id != match.id or entry.hand.status != "open":
        abort(404)
    db.session.delete(entry)
    _touch(match)
    db.session.commit()


def finish_open_hand(
    match: Match, tricks: Sequence[int | None], version: int | None = None
) -> Hand:
    """Close the two-player hand with its trick points; melds come from the meld log."""
    _check_version(match, version)
    ruleset = ruleset_of(match)
    hand = open_hand(match)
    melds = open_hand_melds(hand, ruleset.parties)
    data = HandInput(
        outcome="open_play",
        melds=melds,
        meld_names=[
            [e.name for e in hand.meld_log if e.party == p] or None for p in range(ruleset.parties)
        ],
        tricks=list(tricks),
    )
    settled = settle_input(match, data, hand.dealer_seat)
    _write(hand, settled)
    hand.status = "closed"
    hand.events.append(HandEvent(action="created", snapshot=_snapshot(hand)))
    _touch(match)
    _after_change(match)
    db.session.commit()
    return hand


def trick_error_fill(match: Match, tricks: Sequence[int | None]) -> list[int] | None:
    """The trick points completed from the total, or None when they cannot be."""
    try:
        return list(complete_tricks(ruleset_of(match), list(tricks)))
    except TrickError:
        return None


PRESET_NAMES = tuple(PRESETS)


# -- sessions, stakes, backup -------------------------------------------------


def remember_players(names: Sequence[str]) -> None:
    """Offer these names again in the autocomplete (no commit)."""
    _remember_players(names)


def settle_mid_hand(match: Match, data: HandInput, hand: Hand) -> Settled:
    """A two-player hand ended by a meld (``end = at_once``), settled again (for imports)."""
    return _settle_mid_hand(match, data, hand)


def write_settled(hand: Hand, settled: Settled) -> None:
    """Store a settled hand's lines on ``hand`` (no history, no commit; for imports)."""
    _write(hand, settled)


def refresh_end(match: Match) -> None:
    """Recompute the stored end and winners of a match (no commit)."""
    _after_change(match)


@dataclass
class MatchMoney:
    """One match of a session with what it costs every player (finished matches only)."""

    match: Match
    sheet: Sheet
    payments: dict[str, int]
    error: str | None = None


@dataclass
class Settlement:
    """The money of a session: per match, per player, and the fewest transfers."""

    session: GameSession
    matches: list[MatchMoney]
    balances: dict[str, int]
    transfers: list[tuple[str, str, int]]
    error: RulesError | None = None

    @property
    def open_matches(self) -> int:
        return sum(1 for m in self.matches if not m.sheet.finished)


def match_payments(match: Match, current: Sheet, stake_cents: int, basis: str) -> dict[str, int]:
    """Net cents per player for one finished match.

    Every player gets the total of his party; in team play both partners of
    the winning team are winners, so each partner pays or receives the team's
    amount (RULES.md section 7).
    """
    from .rules import stake_payments

    totals = {seat.name: current.totals[seat.party] for seat in match.seats}
    winners = [seat.name for seat in match.seats if seat.party in current.winners]
    return stake_payments(totals, winners, stake_cents, basis)


def settlement(row: GameSession) -> Settlement:
    """Balances over the session's finished matches and the fewest transfers that settle them."""
    from .rules import minimal_transfers

    balances: dict[str, int] = {}
    matches: list[MatchMoney] = []
    # every match with its seats in two queries; the totals come from the standings (no rows)
    in_session = db.session.execute(
        select(Match)
        .where(Match.session_id == row.id)
        .order_by(Match.number)
        .options(selectinload(Match.seats))
    ).scalars()
    for match in in_session:
        current = standing(match)
        for seat in match.seats:
            balances.setdefault(seat.name, 0)
        payments: dict[str, int] = {}
        problem: str | None = None
        if current.finished:
            try:
                payments = match_payments(match, current, row.stake_cents, row.stake_basis)
            except RulesError as exc:
                problem = str(exc)
            for name, cents in payments.items():
                balances[name] += cents
        matches.append(MatchMoney(match=match, sheet=current, payments=payments, error=problem))
    try:
        transfers = minimal_transfers(balances)
    except RulesError as exc:
        return Settlement(row, matches, balances, [], error=exc)
    return Settlement(row, matches, balances, transfers)


def set_stake(row: GameSession, stake_cents: int, basis: str) -> None:
    """Change the session's stake; the settlement follows (committed)."""
    from .rules import BASES

    if basis not in BASES or not 0 <= stake_cents <= 100_000:
        raise RulesError("the stake must be 0 to 1000 € per {basis}", basis=basis)
    row.stake_cents = stake_cents
    row.stake_basis = basis
    row.updated_at = utcnow()
    db.session.commit()


def import_backup(raw: bytes | str) -> list[GameSession]:
    """Import a backup file in one transaction: all of it, or nothing (BackupError)."""
    from . import backup

    try:
        rows = backup.load(backup.parse(raw))
        db.session.commit()
    except Exception:
        db.session.rollback()
        raise
    return rows
