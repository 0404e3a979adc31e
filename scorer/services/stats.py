"""The evening at a glance: what every player did, over a session or all of a device's.

Nothing is computed again here: how a hand went is what the rules say of what they
settled when it was saved (:func:`scorer.services.sheets.verdict`: made, failed, gone
off, a special game won or lost; a forfeit is counted as declared only),
``HandParty.melds`` the melds, a match's winners are its standing's
(:func:`scorer.services.standing`, from ``scorer.rules``).  This module only counts:
struck hands (``deleted_at``) and the open hand of a two-player match are left out,
as on the sheet.

A player is a name, as the autocomplete knows them: the same name in two sessions is
the same player.  In a team game the hand names the partner who declared
(``Hand.declarer_seat``); where it does not, both partners count as having declared.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..models import GameSession, Hand, Match
from ..rules import Verdict
from .lookup import device_sessions
from .sheets import standing, verdict


@dataclass
class PlayerStats:
    """One player's numbers."""

    name: str
    matches: int = 0
    matches_won: int = 0
    hands: int = 0
    declared: int = 0
    made: int = 0
    failed: int = 0
    gone_off: int = 0
    special: int = 0
    special_won: int = 0
    bid_sum: int = 0
    bids: int = 0
    best_meld: int = 0

    @property
    def average_bid(self) -> int | None:
        """The mean of the player's bids (declared hands with a bid), rounded; None if none."""
        if not self.bids:
            return None
        return round(self.bid_sum / self.bids)


@dataclass
class Stats:
    """The players' numbers over some sessions, best first (matches won, then hands made)."""

    players: list[PlayerStats] = field(default_factory=list)
    sessions: int = 0
    matches: int = 0
    hands: int = 0


def _matches_of(session_ids: Sequence[int]) -> list[Match]:
    if not session_ids:
        return []
    return list(
        db.session.execute(
            select(Match)
            .where(Match.session_id.in_(list(session_ids)))
            .order_by(Match.session_id, Match.number)
            .options(
                selectinload(Match.seats),
                selectinload(Match.hands).selectinload(Hand.parties),
            )
        ).scalars()
    )


def _count(matches: Iterable[Match], sessions: int) -> Stats:
    players: dict[str, PlayerStats] = {}
    total_matches = total_hands = 0
    for match in matches:
        current = standing(match)
        total_matches += 1
        members: dict[int, list[PlayerStats]] = {}
        at_seat: dict[int, PlayerStats] = {}
        for seat in match.seats:
            player = players.setdefault(seat.name, PlayerStats(seat.name))
            at_seat[seat.position] = player
            player.matches += 1
            if current.finished and seat.party in current.winners:
                player.matches_won += 1
            members.setdefault(seat.party, []).append(player)
        for hand in match.hands:
            if hand.deleted_at is not None or hand.status != "closed":
                continue
            total_hands += 1
            for line in hand.parties:
                for player in members.get(line.party, []):
                    if not line.sits_out:
                        player.hands += 1
                    player.best_meld = max(player.best_meld, line.melds)
            if hand.declarer_party is None:
                continue
            declarers = members.get(hand.declarer_party, [])
            if hand.declarer_seat is not None and hand.declarer_seat in at_seat:
                declarers = [at_seat[hand.declarer_seat]]  # the partner who declared
            for player in declarers:
                _declared(player, hand)
    ranked = sorted(players.values(), key=lambda p: (-p.matches_won, -p.made, p.name.lower()))
    return Stats(ranked, sessions, total_matches, total_hands)


def _declared(player: PlayerStats, hand: Hand) -> None:
    """Count a hand the player's party declared, by how the rules say it went."""
    player.declared += 1
    if hand.bid:
        player.bids += 1
        player.bid_sum += hand.bid
    went = verdict(hand)
    if went is Verdict.MADE:
        player.made += 1
    elif went is Verdict.FAILED:
        player.failed += 1
    elif went is Verdict.GONE_OFF:
        player.gone_off += 1
    elif went in (Verdict.WON, Verdict.LOST):
        player.special += 1
        if went is Verdict.WON:
            player.special_won += 1


def session_stats(row: GameSession) -> Stats:
    """The players' numbers over one session."""
    return _count(_matches_of([row.id]), 1)


def device_stats(tokens: Sequence[str]) -> Stats:
    """The players' numbers over every session this device has opened (``tokens``)."""
    rows = device_sessions(tokens)
    return _count(_matches_of([r.id for r in rows]), len(rows))
