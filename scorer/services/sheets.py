"""The score sheet: rows with running totals, the standing, and the standing's cache.

Every number comes from ``scorer.rules`` (:func:`scorer.rules.replay`,
:func:`scorer.rules.advance`); this module only reads the rows and hands them over.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.orm import InstanceState, selectinload

from ..extensions import db
from ..models import Hand, Match
from ..rules import (
    MatchProgress,
    PlayedHand,
    RulesError,
    Ruleset,
    Standing,
    Verdict,
    advance,
    leader_of,
    party_of_seat,
    replay,
    verdict_of,
)


def ruleset_of(match: Match) -> Ruleset:
    """The match's ruleset (stored as JSON), parsed once per loaded value of the column.

    The same rules stored on many matches (every table of a tournament) are parsed
    once per process: a :class:`Ruleset` is frozen, so one value serves them all.
    """
    raw = match.ruleset
    memo = match.__dict__.get("_ruleset_memo")
    if memo is not None and memo[0] is raw:
        return memo[1]
    ruleset = _parsed(json.dumps(raw, sort_keys=True))
    match.__dict__["_ruleset_memo"] = (raw, ruleset)
    return ruleset


@lru_cache(maxsize=64)
def _parsed(stored: str) -> Ruleset:
    return Ruleset.from_dict(json.loads(stored))


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
    def games_won(self) -> list[int] | None:
        """Hands won per party when the match is a best of N (``end = "games"``), else None."""
        if self.ruleset.end != "games":
            return None
        return list(self.progress.games_won) or [0] * len(self.totals)

    @property
    def bar_scale(self) -> int:
        """What a full progress bar stands for: the target; in a match without one
        (a fixed number of deals, a best of N) the highest total so far."""
        if self.ruleset.has_target:
            return self.ruleset.target
        return max([1, *self.totals])

    @property
    def percent(self) -> list[int]:
        """Each party's way to the target (or to the leader), 0..100 (the progress bars)."""
        scale = self.bar_scale
        return [max(0, min(100, round(100 * t / scale))) for t in self.totals]

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


def verdict(hand: Hand) -> Verdict:
    """How a saved hand went for its declarer: the rules read it back from what the
    hand kept of its settlement (:func:`scorer.rules.verdict_of`)."""
    return verdict_of(hand.outcome, made=hand.made, won=hand.won)


def _played(hand: Hand, parties: int) -> PlayedHand:
    lines = sorted(hand.parties, key=lambda p: p.party)
    points = tuple(p.points for p in lines) if lines else (0,) * parties
    exact = tuple(p.exact_points for p in lines) if lines else points
    stars = tuple(p.stars for p in lines) if lines else (0,) * parties
    return PlayedHand(
        declarer=hand.declarer_party,
        outcome=hand.outcome,
        declarer_won=verdict(hand).declarer_won,
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
        declarer = declarer_name(hand, names, seat_names)
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
        next_leader = leader_of(next_dealer, seats)
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


# -- the standing and its cache (Match.standing) ---------------------------------


# the shape of Match.standing; another number makes the old caches fall back to sheet()
STANDING_VERSION = 1


def standing_of(match: Match, current: Sheet) -> dict[str, Any]:
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
        "games": list(current.progress.games_won),
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
        next_leader=leader_of(dealer, seats),
        games_won=tuple(cached.get("games") or ()),
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


def append_standing(match: Match, before: Sheet, hand: Hand) -> dict[str, Any] | None:
    """The stored standing moved on by ``hand``, a new closed hand at the end of the match.

    One step of the match (:func:`scorer.rules.advance`) from the stored totals
    instead of a replay of every hand.  Only for a running match with a valid
    stored standing and no open hand; a hand that ends the match and every other
    case are left to the full replay of ``writes.after_change`` (returns None then).
    The result is the new values of the match's columns, for ``writes.touch`` to write.
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
        games_won=tuple(cached.get("games") or ()),
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
        "games": list(after.games_won),
    }
    return {"standing": standing, "winners": None, "finished_at": None}


def declarer_name(hand: Hand, names: list[str], seat_names: list[str]) -> str | None:
    """Who declared, as the sheet names them: the player at a table of teams (where the
    hand records the seat), else the party; None when nobody declared."""
    if hand.declarer_party is None:
        return None
    seat = hand.declarer_seat
    if seat is not None and 0 <= seat < len(seat_names):
        return seat_names[seat]
    return names[hand.declarer_party] if hand.declarer_party < len(names) else None
