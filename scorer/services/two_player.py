"""Two-player games: the hand in play, its trump and melds written one at a time.

A meld or the trump adds to the hand being played whatever else was written
to it meanwhile: unlike a hand's correction it does not depend on the version
the page was loaded at, so a write that another one beat (the guarded UPDATE of
``writes.touch`` found a newer version, or both opened the hand) is run again by
the unit of work on the new state instead of being refused — a quick tap after
another is never lost.  Only a hand closed in the meantime refuses it
(``HandClosedError``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy.exc import IntegrityError

from ..extensions import db
from ..models import Hand, HandEvent, HandMeld, Match
from ..rules import RulesError, Suit, check_shown_meld, reached_target
from .errors import HandClosedError, MatchOverError, NotFound
from .hands import HandInput, Settled, settle_input, settle_mid_hand, write_hand
from .lookup import MAX_ID
from .sheets import Sheet, ruleset_of, sheet, standing
from .unit import LostRace, use_case
from .writes import after_change, check_room, check_version, hand_snapshot, touch


def _reaches_target(match: Match, points: Sequence[int]) -> bool:
    """Whether the closed hands' totals and ``points`` reach the target (the Swiss game)."""
    now = [t + p for t, p in zip(sheet(match).totals, points, strict=True)]
    return reached_target(ruleset_of(match), now) is not None


def _close(hand: Hand, settled: Settled, *, ended_mid_hand: bool) -> None:
    """The hand in play, settled and closed (by a meld or a trick reaching the target,
    or at the end of its tricks)."""
    write_hand(hand, settled)
    hand.status = "closed"
    hand.ended_mid_hand = ended_mid_hand
    hand.events.append(HandEvent(action="created", snapshot=hand_snapshot(hand)))


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
    check_room(len(current.rows))
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
        # like two saves on one version, decided the same way
        raise LostRace() from None
    return hand


@use_case
def set_trump(match: Match, trump: str, hand_number: int | None = None) -> Hand:
    """Name the trump of the two-player hand being played (the turned card)."""
    suit = Suit.parse(trump)  # CardError (a RulesError) for anything else
    touch(match)
    hand = open_hand(match, hand_number)
    hand.trump = suit.value
    return hand


def open_hand_melds(hand: Hand, parties: int) -> list[int]:
    """Meld points written so far in an open hand, per party."""
    melds = [0] * parties
    for entry in hand.meld_log:
        melds[entry.party] += entry.points
    return melds


@use_case
def write_meld(
    match: Match,
    party: int,
    name: str,
    points: int,
    hand_number: int | None = None,
    *,
    trump: str | None = None,
    seen: int | None = None,
) -> Hand:
    """Write one meld shown during hand ``hand_number`` of a two-player match.

    With ``end = at_once`` the match ends the moment a party's total reaches the
    target, even in the middle of the hand: the hand is closed with the melds
    written so far and no trick points.

    ``points`` must be what the house rules give the meld under the hand's trump
    (``scorer.rules.check_shown_meld``; any trump's value before one is named).
    ``seen``: how many melds of the hand the page that sends it showed.  A meld sent
    again because its answer was lost finds itself written after those: it is not
    written twice.
    """
    ruleset = ruleset_of(match)
    if not 0 <= party < ruleset.parties:
        raise RulesError("there is no party {party}", party=party + 1)
    return _write_meld(match, party, name, points, hand_number, trump, seen)


def already_written(hand: Hand, party: int, name: str, seen: int | None) -> bool:
    """The same meld of the same party was written after the ``seen`` melds the sender knew."""
    if seen is None or not 0 <= seen < len(hand.meld_log):
        return False
    later = sorted(hand.meld_log, key=lambda e: e.id)[seen:]
    return any(e.party == party and e.name == name[:40] for e in later)


def _write_meld(
    match: Match,
    party: int,
    name: str,
    points: int,
    number: int | None,
    trump: str | None,
    seen: int | None = None,
) -> Hand:
    ruleset = ruleset_of(match)
    touch(match)
    hand = open_hand(match, number)
    if already_written(hand, party, name, seen):
        return hand
    if trump in ("E", "G", "H", "S"):
        hand.trump = trump
    # one meld of the house rules, worth what they give it under the trump known now
    check_shown_meld(name, points, hand.trump, ruleset)
    hand.meld_log.append(HandMeld(party=party, name=name[:40], points=points))
    db.session.flush()
    if ruleset.end == "at_once":
        melds = open_hand_melds(hand, ruleset.parties)
        if _reaches_target(match, melds):
            data = HandInput(outcome="open_play", melds=melds, tricks=[0] * ruleset.parties)
            _close(hand, settle_mid_hand(match, data, hand), ended_mid_hand=True)
    after_change(match)
    return hand


@use_case
def remove_meld(match: Match, entry_id: int, version: int | None = None) -> None:
    """Take back a meld written by mistake in the open hand."""
    check_version(match, version)
    if not 0 < entry_id <= MAX_ID:
        raise NotFound()
    touch(match)
    entry = db.session.get(HandMeld, entry_id)
    if entry is None or entry.hand.match_id != match.id or entry.hand.status != "open":
        raise NotFound()
    db.session.delete(entry)


def live_totals(current: Sheet) -> list[int]:
    """Each party's total with the melds written so far in the hand being played."""
    parties = len(current.totals)
    if current.open_hand is None:
        return list(current.totals)
    melds = open_hand_melds(current.open_hand, parties)
    return [t + m for t, m in zip(current.totals, melds, strict=True)]


def live_sheet(current: Sheet) -> Sheet:
    """The sheet with the live totals: the progress bars follow the melds as they are written."""
    return replace(current, totals=live_totals(current))


def closed_as_sent(
    match: Match, hand_number: int | None, tricks: Sequence[int | None]
) -> Hand | None:
    """The hand ``hand_number`` when it is closed already with the trick points sent.

    A "close the hand" sent again (its answer was lost, a double tap) is the same
    intent: it finds the hand it closed and changes nothing.  Trick points left empty
    were filled in from the hand's total, so only the ones typed are compared.
    """
    if hand_number is None or not any(t is not None for t in tricks):
        return None
    if hand_number > standing(match).hand_count:
        return None  # the hand in play (the usual case): no sheet to build
    row = next((r for r in sheet(match).rows if r.number == hand_number), None)
    if row is None or row.hand.outcome != "open_play":
        return None
    kept = {p.party: p.tricks for p in row.hand.parties}
    if all(t is None or kept.get(party) == t for party, t in enumerate(tricks)):
        return row.hand
    return None


@use_case
def finish_open_hand(
    match: Match,
    tricks: Sequence[int | None],
    version: int | None = None,
    *,
    ended_early: bool = False,
    hand_number: int | None = None,
) -> Hand:
    """Close the two-player hand with its trick points; melds come from the meld log.

    ``ended_early`` (``end = at_once``, the Swiss game): a party reached the target by
    a trick in the middle of the hand; the trick points taken so far are entered and
    may add up to less than the hand's total.  Refused when nobody reaches the target.
    ``hand_number``: the hand the form was for.  Closed meanwhile with these trick
    points (the same close sent again), that hand and nothing changed; closed
    otherwise, :class:`HandClosedError` — it never closes the next hand.
    """
    # (a close that lost a race runs again: to the same close sent again it finds that
    # close here, to anything else it is refused by its version)
    resent = closed_as_sent(match, hand_number, tricks)
    if resent is not None:
        return resent
    return _finish(match, tricks, version, ended_early=ended_early, hand_number=hand_number)


def _finish(
    match: Match,
    tricks: Sequence[int | None],
    version: int | None,
    *,
    ended_early: bool,
    hand_number: int | None,
) -> Hand:
    """The body of :func:`finish_open_hand`: settle and close the hand in play."""
    check_version(match, version)
    ruleset = ruleset_of(match)
    touch(match)
    hand = open_hand(match, hand_number)
    melds = open_hand_melds(hand, ruleset.parties)
    data = HandInput(
        outcome="open_play",
        melds=melds,
        meld_names=[
            [e.name for e in hand.meld_log if e.party == p] or None for p in range(ruleset.parties)
        ],
        tricks=list(tricks),
    )
    early = ended_early and ruleset.end == "at_once"
    settled = settle_input(match, data, hand.dealer_seat, ended_early=early)
    if early and not _reaches_target(match, settled.points):
        raise RulesError(
            "nobody reaches {target} with these points: play the hand to the end",
            target=ruleset.target,
        )
    _close(hand, settled, ended_mid_hand=early)
    after_change(match)
    return hand
