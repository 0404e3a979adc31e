"""A hand: what was entered, settled by the rules, saved, corrected, struck and restored.

:func:`settle_input` is the one path from what the Schreiber entered to a
settled hand: the form's preview, the save and the backup import all use it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import bindparam, case, func, select
from sqlalchemy.exc import IntegrityError

from ..extensions import db
from ..models import Hand, HandEvent, HandParty, Match, utcnow
from ..rules import HandEntry, HandResult, RulesError, kept_entry, settle_entry
from .errors import KeyReusedError, MatchOverError, OutOfPlaceError
from .sheets import Sheet, append_standing, ruleset_of, standing
from .unit import LostRace, unit_of_work, use_case
from .writes import (
    after_change,
    check_open,
    check_room,
    check_version,
    hand_snapshot,
    insert_new_hand,
    store,
    touch,
)

HandInput = HandEntry
"""What the Schreiber entered for one hand (the rules' frozen :class:`HandEntry`)."""


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
    tricks_sum: int = 0


def settle_input(
    match: Match,
    data: HandInput,
    dealer_seat: int,
    *,
    ended_early: bool = False,
    restoring: bool = False,
) -> Settled:
    """Check a hand with the rules and settle it; RulesError when it is not possible.

    ``restoring``: a hand from a backup, restored as it was saved — its trick points
    are not checked against the counting scheme (hands saved before that check).

    :func:`scorer.rules.settle_entry` does it all: the dealer sitting out, the
    trick value filled in from the trick total, the parties put back at their places.
    A forfeit is charged to ``data.at_fault`` (the declarer when None).
    """
    table = settle_entry(
        ruleset_of(match),
        len(match.seats),
        dealer_seat,
        data,
        ended_early=ended_early,
        restoring=restoring,
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
        tricks_sum=table.tricks_sum,
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


def settle_mid_hand(match: Match, data: HandInput, hand: Hand) -> Settled:
    """A two-player hand ended by a meld (``end = at_once``): melds count, tricks are
    not played out (none recorded)."""
    unplayed = replace(data, tricks=[None] * len(data.melds))
    return settle_input(match, unplayed, hand.dealer_seat, ended_early=True)


def write_hand(hand: Hand, settled: Settled) -> None:
    """Store a settled hand on ``hand`` and its party lines (no history, no commit)."""
    data = settled.data
    hand.declarer_party = data.declarer
    hand.declarer_seat = data.declarer_seat if data.declarer is not None else None
    hand.bid, hand.won, hand.at_fault = kept_entry(
        data.outcome, bid=data.bid, won=data.won, at_fault=data.at_fault
    )
    hand.trump = data.trump
    hand.outcome = data.outcome
    hand.made = settled.result.made
    hand.declarer_count = settled.result.declarer_count
    hand.updated_at = utcnow()
    lines = {p.party: p for p in hand.parties}
    parties = len(settled.points)
    melds = list(data.melds) + [0] * (parties - len(data.melds))
    names = [None if n is None else list(n) for n in data.meld_names]
    names += [None] * (parties - len(names))
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


@unit_of_work(keep_loaded=True)
def save_hand(
    match: Match,
    data: HandInput,
    *,
    hand: Hand | None = None,
    version: int | None = None,
    idempotency_key: str | None = None,
    via: str | None = None,
    seq: int | None = None,
) -> Hand:
    """Save a new hand, or correct ``hand``; the match's end is recomputed.

    ``via``: who changes it when not the match's own link (``"organiser"``: kept in the
    hand's history, and it passes the lock of a closed tournament round).

    ``seq``: a new hand sent again from a table phone's memory
    (``services.tournaments.witness``) is saved only at the place it was first saved
    at — right after hand ``seq - 1`` — so that it is counted with the dealer it was
    played with; else ``OutOfPlaceError`` (nothing is saved).  Its key is looked
    for first: a hand already here is answered as saved wherever it is.

    A repeated submission with the same idempotency key returns the hand it
    created the first time instead of a second one — also when the first one
    commits while this one is under way (the unit of work runs it again, and it
    finds the key) — and the same key with another hand raises
    ``KeyReusedError`` (nothing is saved).
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
            # A resend: its first send may have committed after this request read the
            # match, which is then read again, or the answer would show the sheet
            # without the hand (and the standing cached for the old version).
            db.session.expire(match)
            return _saved_before(match, db.session.get_one(Hand, existing_id), data)
    check_open(match, via)
    check_version(match, version)
    if hand is None and seq is not None and (last or 0) + 1 != seq:
        raise OutOfPlaceError(seq, last or 0)
    before: Sheet | None = None
    if hand is None:
        before = standing(match)
        if before.finished:
            raise MatchOverError()
        check_room(before.hand_count)
        dealer = (
            before.open_hand.dealer_seat
            if before.open_hand is not None
            else before.progress.next_dealer
        )
    else:
        dealer = hand.dealer_seat
    settled = settle_input(match, data, dealer)
    # The first write: the match at the version this request read, or LostRace (another
    # write came first; run again, this request sees it).  From here the row is this
    # request's until it commits, on SQLite and PostgreSQL alike.
    touch(match)
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
    write_hand(hand, settled)
    hand.status = "closed"
    event = HandEvent(action=action, snapshot=hand_snapshot(hand), via=via)
    if appended:
        try:
            insert_new_hand(match, hand, event)
        except IntegrityError:
            # a twin (same seq or key) got in although the match was claimed: decide again
            raise LostRace() from None
    else:
        hand.events.append(event)
    moved = append_standing(match, before, hand) if appended and before else None
    if moved is None:
        after_change(match)
    else:
        store(match, **moved)
    return hand


def saved_with_key(match: Match, data: HandInput, idempotency_key: str) -> Hand | None:
    """The hand ``idempotency_key`` saved in ``match``, if ``data`` is that hand; else None.

    A save resent after its answer was lost is recognised by its key, also where
    nothing can be saved any more (the phone's link was replaced since): no key, a
    key that saved nothing here, or a key that saved another hand find nothing.
    """
    if not idempotency_key:
        return None
    found = db.session.execute(
        select(Hand).where(Hand.match_id == match.id, Hand.idempotency_key == idempotency_key)
    ).scalar_one_or_none()
    if found is None:
        return None
    try:
        return _saved_before(match, found, data)
    except KeyReusedError:
        return None


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
    write_hand(resent, settled)
    created = next((e.snapshot for e in hand.events if e.action == "created"), None)
    if _entered(hand_snapshot(resent)) != _entered(created or hand_snapshot(hand)):
        raise KeyReusedError()
    return hand


def _entered(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What the Schreiber entered, from a hand's snapshot (without what was settled)."""
    keys = ("declarer", "bid", "trump", "outcome", "won", "at_fault", "declarer_seat")
    lines = ("melds", "meld_names", "tricks", "took_trick")
    return {
        **{key: snapshot.get(key) for key in keys},
        "parties": [{key: p.get(key) for key in lines} for p in snapshot.get("parties", [])],
    }


@use_case
def delete_hand(
    match: Match, hand: Hand, version: int | None = None, *, via: str | None = None
) -> None:
    """Strike a hand from the sheet; it stays in the history."""
    check_open(match, via)
    check_version(match, version)
    hand.deleted_at = utcnow()
    hand.events.append(HandEvent(action="deleted", snapshot=hand_snapshot(hand), via=via))
    touch(match)
    after_change(match)


@use_case
def restore_hand(
    match: Match, hand: Hand, version: int | None = None, *, via: str | None = None
) -> None:
    """Bring a struck hand back onto the sheet."""
    check_open(match, via)
    check_version(match, version)
    hand.deleted_at = None
    hand.events.append(HandEvent(action="restored", snapshot=hand_snapshot(hand), via=via))
    touch(match)
    after_change(match)


def correctable(hand: Hand) -> bool:
    """Whether the correction form takes ``hand``: a closed, live hand of a played deal.

    Not a struck hand (it is restored first: its update would be refused), not a
    two-player hand still in play or ended by a meld mid-hand (its melds are its own
    record).  The match's own page and the organiser's correction both ask this.
    """
    return (
        hand.status == "closed"
        and not hand.ended_mid_hand
        and hand.outcome != "open_play"
        and hand.deleted_at is None
    )


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
        at_fault=hand.at_fault,
        declarer_seat=hand.declarer_seat,
    )
