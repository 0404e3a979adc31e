"""Settlement of one hand: docs/rules.md sections 4, 5 and the options of section 8.

A package of topics beside it: :mod:`.bids` (what a bid may be), :mod:`.tricks` (trick
points: the values a scheme can produce, the cross-check, the value filled in),
:mod:`.outcomes` (the outcomes, and how a hand went for its declarer) and :mod:`.whole`
(whole numbers as input).

:func:`settle` takes what the Schreiber enters for a hand — the outcome, the
bid, every party's melds and exact trick points — and returns a
:class:`HandResult` with what goes on the sheet and why.  :func:`settle_hand`
is the short form that returns the points alone.

The inputs, one entry per *party* (a player, or a team in team play):

- ``players`` — the number of players dealt in (for ``"per_player N"``
  bonuses: 30 with three, 40 with four).  It must be the number of parties
  times the ruleset's ``team_size``.
- ``bidder`` — the declarer's party index, ``None`` in open play.
- ``melds`` and ``tricks`` — as declared and as counted; the number of parties
  is ``len(tricks)`` or else ``len(melds)``; when neither is given (a special
  game needs neither) it is ``players // team_size``.  With
  ``dealer_sits_out`` the caller passes only the active parties (the dealer
  scores nothing that hand; :func:`scorer.rules.table.expand_active` puts the
  result back at the table's places).
- ``took_trick`` — whether a party took a trick; defaults to
  ``tricks[i] > 0`` (the declarer's pressed cards count as trick points
  without being a trick, and with sevens a trick can be worth 0).

Decisions where docs/rules.md is silent (kept in the rules page of the app too):

- A bid is at most :data:`~scorer.rules.bids.MAX_BID` (10 000): no real hand comes near it, and
  a typo (``3900`` for ``390``) is caught.
- **forfeit** without trick points (the fault showed before play): the
  opponents score their melds without needing a trick, plus ``failed_bonus``.
  With trick points it is scored exactly like a failed game.
- **gone_off**: no trick points are entered (only zeros are accepted).
  "Unreachable" (``unreachable_bid_doubles``) means the bid is above the
  declarer's declared melds plus the trick total; then he pays 2 × bid.
- **open_play**: in an open-play ruleset the outcome ``"played"`` means open
  play.  Trick points may be left out for a hand that ended in the middle
  (the Swiss game ends at once at the target); when given they must add up.
- ``won`` is read for the special games only; ``bid`` is ignored for the
  special games and for open play.
- **Caught signalling** (docs/rules.md section 12, seed 002): ``at_fault`` names
  the party at fault of a ``forfeit`` (``None``: the declarer, as before).  An
  opposing party at fault scores as a failed declarer (−(failed_multiplier ×
  bid + failed_extra), its melds and tricks void); the declarer's game counts
  as made: his melds (no trick needed, the hand was broken off) plus the trick
  points he took, at least the bid; every other party scores as the opponents
  of a failed game (melds with a trick, tricks, ``failed_bonus``), the
  declarer's party included.  ``at_fault`` is read for a forfeit only.
- **Trick points a counting scheme cannot produce** are refused: every
  party's value must be a sum of some card values of the deck, with or
  without the last trick (:func:`~scorer.rules.tricks.possible_trick_points`).
  ``scheme_checked=False`` (``settle``, ``complete_tricks``, ``settle_at_table``)
  skips that check and
  keeps the others: a backup restores hands as they were saved, also those saved
  before the check existed.
- A hand of the Swiss game closed in the middle (``ended_early``) may have
  trick points that add up to less than the trick total, never more.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .bids import check_bid
from .errors import RulesError, TrickError
from .outcomes import BID_OUTCOMES, OUTCOMES, Verdict, verdict_of
from .ruleset import MAX_PLAYERS, MIN_PLAYERS, SPECIAL_GAMES, Bonus, Ruleset
from .tricks import (
    check_trick_sum,
    check_trick_values,
    possible_trick_points,
    round_trick_points,
)
from .whole import is_whole, whole_numbers

REASONS: tuple[str, ...] = (
    "made",
    "failed",
    "forfeit",
    "gone_off",
    "gone_off_doubled",
    "won",
    "lost",
    "open",
)
"""The values of :attr:`HandResult.reason`."""


@dataclass(frozen=True)
class HandResult:
    """What one hand puts on the sheet, per party, and why.

    ``points`` is what goes on the sheet; with ``round_tricks`` the trick
    points in it are rounded, and ``exact_points`` holds the same hand with
    the exact trick points (they decide a tie at the end of the match).
    ``melds`` are the melds that counted (0 without a trick, for a failed
    declarer, for the declarer's party going off), ``tricks`` every party's
    trick points as credited (rounded with ``round_tricks``; a failed
    declarer's are listed but void) and ``bonus`` the going-off or failed
    bonus; the declarer's negative score is not split into them.
    ``declarer_count`` is the number compared with the bid (melds if he took
    a trick + exact trick points), ``made`` whether it reached the bid; both
    are ``None`` where no bid is compared.
    ``declarer_won`` is True for a made game or a won special game, False for
    a failed, forfeited or gone-off game or a lost special game, ``None`` in
    open play.  ``reason`` is one of :data:`REASONS`.  ``at_fault`` is the
    party at fault of a forfeited hand (the declarer's, or an opposing party
    caught signalling), ``None`` for every other outcome.
    """

    outcome: str
    declarer: int | None
    bid: int
    points: tuple[int, ...]
    stars: tuple[int, ...]
    made: bool | None
    declarer_won: bool | None
    declarer_count: int | None
    melds: tuple[int, ...]
    tricks: tuple[int, ...]
    bonus: tuple[int, ...]
    exact_points: tuple[int, ...]
    reason: str
    at_fault: int | None = None

    @property
    def verdict(self) -> Verdict:
        """How the hand went for the declarer (:func:`~scorer.rules.outcomes.verdict_of`):
        the words of the preview, and what a saved hand says again.

        >>> settle(Ruleset(), players=3, bidder=0, bid=300, outcome="forfeit",
        ...        melds=[100, 40, 0], at_fault=2).verdict
        <Verdict.CAUGHT: 'caught'>
        """
        won = self.declarer_won if self.outcome in SPECIAL_GAMES else None
        return verdict_of(self.outcome, made=self.made, won=won)


def points_step(ruleset: Ruleset) -> int:
    """The step every hand's points come in under ``ruleset``: each is a multiple of it.

    A hand's points are built of melds, trick points as credited (rounded to
    10 with ``round_tricks``, else sums of card values), bids (``min_bid`` and
    steps of ``bid_step``), the bonuses and the special games' values; the
    greatest common divisor of all of them divides every hand's points, and so
    every sum of hands.  A total that is no multiple of it cannot have been
    played (the tournament's paper slips are checked with it).

    >>> points_step(Ruleset())  # cards 11-10-4-3-2: trick points of any step
    1
    >>> from .ruleset import PRESETS
    >>> points_step(PRESETS["turnier"])  # tricks rounded, half the bid rounded up to 10
    10
    """
    values = [
        ruleset.pair,
        ruleset.trump_pair,
        ruleset.family,
        ruleset.trump_family,
        ruleset.double_family,
        ruleset.binokel,
        ruleset.double_binokel,
        ruleset.gross_binokel,
        ruleset.four_aces,
        ruleset.four_kings,
        ruleset.four_obers,
        ruleset.four_unters,
        ruleset.four_tens,
        ruleset.eight_of_a_kind,
        ruleset.diss,
        ruleset.min_bid,
        ruleset.bid_step,
        ruleset.failed_extra,
        *(ruleset.special_value(name) for name in ruleset.specials),
    ]
    flat = ruleset.rundgang.split()
    if len(flat) == 2 and flat[1].isdigit():
        values.append(int(flat[1]))
    for bonus in (ruleset.going_off, ruleset.failed):
        values.append(10 if bonus.kind == "half_bid" else bonus.amount)
    if ruleset.round_tricks:
        values.append(10)
    else:
        values.append(math.gcd(*possible_trick_points(ruleset)))
    return math.gcd(*(value for value in values if value)) or 1


def bonus_points(spec: str | Bonus, *, bid: int, players: int) -> int:
    """The value of a ``going_off_bonus`` / ``failed_bonus`` for one opposing party.

    >>> bonus_points("per_player 10", bid=250, players=3)
    30
    >>> bonus_points("half_bid", bid=310, players=3), bonus_points("flat 30", bid=310, players=4)
    (160, 30)
    """
    bonus = spec if isinstance(spec, Bonus) else Bonus.parse(spec)
    return bonus.points(bid=bid, players=players)


# -- settlement ------------------------------------------------------------


def _resolve_outcome(ruleset: Ruleset, outcome: object) -> str:
    if not isinstance(outcome, str) or outcome not in OUTCOMES:
        raise RulesError(
            "'{outcome}' is not an outcome: use one of {choices}",
            outcome=outcome,
            choices=", ".join(OUTCOMES),
        )
    if ruleset.open_play:
        if outcome in ("played", "open_play"):
            return "open_play"
        if outcome in BID_OUTCOMES:
            raise RulesError(
                "'{outcome}' needs a bid; this table plays open without bidding", outcome=outcome
            )
    elif outcome == "open_play":
        raise RulesError("open play is the two-player game without bidding; this table bids")
    if outcome in SPECIAL_GAMES and ruleset.special_value(outcome) is None:
        raise RulesError("this table does not play {outcome}", outcome=outcome)
    return outcome


def settle(
    ruleset: Ruleset,
    *,
    players: int,
    bidder: int | None,
    bid: int = 0,
    outcome: str = "played",
    won: bool | None = None,
    melds: Sequence[int] = (),
    tricks: Sequence[int] = (),
    took_trick: Sequence[bool] | None = None,
    at_fault: int | None = None,
    ended_early: bool = False,
    scheme_checked: bool = True,
) -> HandResult:
    """Settle one hand; see the module docstring for the inputs.

    Bad input of any kind raises a :class:`RulesError` subclass (``BidError``,
    ``TrickError``) whose message says what is wrong.

    Three players, bid 390, the declarer melds 250 but his tricks make 340:
    failed, −2 × 390; the opponents keep their melds and tricks.

    >>> r = settle(Ruleset(), players=3, bidder=0, bid=390,
    ...            melds=[250, 20, 40], tricks=[90, 100, 60])
    >>> r.points, r.reason, r.declarer_count
    ((-780, 120, 100), 'failed', 340)

    Going off at 250: the opponent with 40 melds and no trick still gets them,
    plus 10 for each of the three players dealt in.

    >>> settle(Ruleset(), players=3, bidder=0, bid=250, outcome="gone_off",
    ...        melds=[100, 40, 0]).points
    (-250, 70, 30)

    A won Durch; with specials tallied as stars it scores a star instead.

    >>> settle(Ruleset(), players=3, bidder=1, outcome="durch", won=True).points
    (0, 1000, 0)
    >>> r = settle(Ruleset(special_tally="stars"), players=3, bidder=1,
    ...            outcome="durch", won=False)
    >>> r.points, r.stars
    ((0, 0, 0), (1, 0, 1))
    """
    outcome = _resolve_outcome(ruleset, outcome)
    if not is_whole(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RulesError("2 to 8 players are dealt in, not {players}", players=players)
    melds_in = whole_numbers(melds, "melds")
    tricks_in = whole_numbers(tricks, "trick points")
    parties = _check_parties(ruleset, players, melds_in, tricks_in)
    meld_points = melds_in or [0] * parties
    check_trick_values(ruleset, tricks_in, scheme_checked=scheme_checked)
    took = _check_took(took_trick, parties)

    if outcome == "open_play":
        if bidder is not None:
            raise RulesError("open play has no declarer; bidder must be empty")
        if tricks_in:  # a hand ended early (at once, by a meld or a trick) has fewer
            check_trick_sum(ruleset, tricks_in, partial=ended_early)
        return _open(ruleset, parties, meld_points, tricks_in or [0] * parties)
    declarer = _check_declarer(outcome, bidder, parties)
    if outcome in SPECIAL_GAMES:
        if not isinstance(won, bool):
            raise RulesError("say whether the {outcome} was won or lost", outcome=outcome)
        return _special(ruleset, outcome, declarer, parties, won)
    guilty = _check_at_fault(outcome, at_fault, declarer, parties)
    bid = check_bid(ruleset, bid)
    if outcome == "gone_off":
        if any(tricks_in):
            raise TrickError("no tricks are played when the declarer goes off")
        return _gone_off(ruleset, players, declarer, bid, meld_points)
    if outcome == "played" or tricks_in:
        if not tricks_in:
            raise TrickError("enter the trick points of the hand")
        check_trick_sum(ruleset, tricks_in)
        took = [value > 0 for value in tricks_in] if took is None else took
    else:  # a forfeit before any trick: the other parties keep their melds, no trick needed
        tricks_in = [0] * parties
        took = [True] * parties if took is None else took
    if guilty != declarer:
        return _caught(ruleset, players, declarer, guilty, bid, meld_points, tricks_in, took)
    return _played(ruleset, outcome, players, declarer, bid, meld_points, tricks_in, took)


def _check_parties(
    ruleset: Ruleset, players: int, melds: Sequence[int], tricks: Sequence[int]
) -> int:
    """The number of parties the entries name, checked against the players and the melds."""
    if tricks:
        parties = len(tricks)
    elif melds:
        parties = len(melds)
    else:
        parties = players // ruleset.team_size
    if parties < 2:
        raise RulesError("a hand has at least two parties, not {count}", count=parties)
    if players != parties * ruleset.team_size:
        raise RulesError(
            "{parties} parties need {expected} players dealt in, not {players}",
            parties=parties,
            expected=parties * ruleset.team_size,
            players=players,
        )
    if melds and len(melds) != parties:
        raise RulesError(
            "melds for {count} parties, but the hand has {parties}",
            count=len(melds),
            parties=parties,
        )
    for value in melds:
        if value < 0:
            raise RulesError("melds cannot be negative: {value}", value=value)
    return parties


def _check_took(took_trick: object, parties: int) -> list[bool] | None:
    """``took_trick`` as a list of yes/no per party (None when not given)."""
    if took_trick is None:
        return None
    if isinstance(took_trick, str | bytes) or not isinstance(took_trick, Sequence):
        raise RulesError("took_trick must be a list of yes/no, not {value!r}", value=took_trick)
    took = []
    for value in took_trick:
        if not isinstance(value, bool):
            raise RulesError("took_trick: '{value}' is not yes or no", value=value)
        took.append(value)
    if len(took) != parties:
        raise RulesError(
            "took_trick for {count} parties, but the hand has {parties}",
            count=len(took),
            parties=parties,
        )
    return took


def _check_declarer(outcome: str, bidder: object, parties: int) -> int:
    """The declaring party, which every outcome but open play needs."""
    if bidder is None or not is_whole(bidder):
        raise RulesError(
            "'{outcome}' needs the declarer's party, not '{bidder}'", outcome=outcome, bidder=bidder
        )
    if not 0 <= bidder < parties:
        raise RulesError(
            "declarer {bidder} is not one of the {parties} parties (0 to {last})",
            bidder=bidder,
            parties=parties,
            last=parties - 1,
        )
    return bidder


def _check_at_fault(outcome: str, at_fault: object, bidder: int, parties: int) -> int:
    """The party at fault of a forfeit (the declarer when not named)."""
    if at_fault is None or outcome != "forfeit":  # only a forfeit has a party at fault
        return bidder
    if not is_whole(at_fault) or not 0 <= at_fault < parties:
        raise RulesError(
            "the party at fault {at_fault} is not one of the {parties} parties (0 to {last})",
            at_fault=_shown(at_fault),
            parties=parties,
            last=parties - 1,
        )
    return at_fault


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def settle_hand(
    ruleset: Ruleset,
    *,
    players: int,
    bidder: int | None,
    bid: int = 0,
    outcome: str = "played",
    won: bool | None = None,
    melds: Sequence[int] = (),
    tricks: Sequence[int] = (),
    took_trick: Sequence[bool] | None = None,
    at_fault: int | None = None,
) -> list[int]:
    """The points of one hand per party: ``list(settle(...).points)``.

    Bid 380, melds 540 (Doppelbinokel 300 + Rundgang 240), tricks 90: made.

    >>> settle_hand(Ruleset(), players=3, bidder=0, bid=380,
    ...             melds=[540, 0, 20], tricks=[90, 100, 60])
    [630, 100, 80]
    """
    return list(
        settle(
            ruleset,
            players=players,
            bidder=bidder,
            bid=bid,
            outcome=outcome,
            won=won,
            melds=melds,
            tricks=tricks,
            took_trick=took_trick,
            at_fault=at_fault,
        ).points
    )


def _credit(ruleset: Ruleset, tricks: Sequence[int]) -> list[int]:
    if ruleset.round_tricks:
        return [round_trick_points(value) for value in tricks]
    return list(tricks)


def _open(ruleset: Ruleset, parties: int, melds: list[int], exact: list[int]) -> HandResult:
    credited = _credit(ruleset, exact)
    return HandResult(
        outcome="open_play",
        declarer=None,
        bid=0,
        points=tuple(m + t for m, t in zip(melds, credited, strict=True)),
        stars=(0,) * parties,
        made=None,
        declarer_won=None,
        declarer_count=None,
        melds=tuple(melds),
        tricks=tuple(credited),
        bonus=(0,) * parties,
        exact_points=tuple(m + t for m, t in zip(melds, exact, strict=True)),
        reason="open",
    )


def _special(ruleset: Ruleset, outcome: str, declarer: int, parties: int, won: bool) -> HandResult:
    value = ruleset.special_value(outcome)
    assert value is not None  # checked by _resolve_outcome
    points = [0] * parties
    stars = [0] * parties
    if ruleset.special_tally == "stars":
        if won:
            stars[declarer] = 1
        else:
            stars = [0 if i == declarer else 1 for i in range(parties)]
    else:
        points[declarer] = value if won else -ruleset.special_failed_multiplier * value
    return HandResult(
        outcome=outcome,
        declarer=declarer,
        bid=0,
        points=tuple(points),
        stars=tuple(stars),
        made=None,
        declarer_won=won,
        declarer_count=None,
        melds=(0,) * parties,
        tricks=(0,) * parties,
        bonus=(0,) * parties,
        exact_points=tuple(points),
        reason="won" if won else "lost",
    )


def _gone_off(
    ruleset: Ruleset, players: int, declarer: int, bid: int, melds: list[int]
) -> HandResult:
    parties = len(melds)
    doubled = ruleset.unreachable_bid_doubles and bid > melds[declarer] + ruleset.trick_total
    bonus = ruleset.going_off.points(bid=bid, players=players)
    credited_melds = [0 if i == declarer else m for i, m in enumerate(melds)]
    bonuses = [0 if i == declarer else bonus for i in range(parties)]
    points = [m + b for m, b in zip(credited_melds, bonuses, strict=True)]
    points[declarer] = -2 * bid if doubled else -bid
    return HandResult(
        outcome="gone_off",
        declarer=declarer,
        bid=bid,
        points=tuple(points),
        stars=(0,) * parties,
        made=None,
        declarer_won=False,
        declarer_count=None,
        melds=tuple(credited_melds),
        tricks=(0,) * parties,
        bonus=tuple(bonuses),
        exact_points=tuple(points),
        reason="gone_off_doubled" if doubled else "gone_off",
    )


def _played(
    ruleset: Ruleset,
    outcome: str,
    players: int,
    declarer: int,
    bid: int,
    melds: list[int],
    exact: list[int],
    took: list[bool],
) -> HandResult:
    parties = len(melds)
    credited_tricks = _credit(ruleset, exact)
    credited_melds = [m if t else 0 for m, t in zip(melds, took, strict=True)]
    count = credited_melds[declarer] + exact[declarer]
    made = outcome == "played" and count >= bid
    bonuses = [0] * parties
    if not made:
        bonus = ruleset.failed.points(bid=bid, players=players)
        bonuses = [0 if i == declarer else bonus for i in range(parties)]
    points = [m + t + b for m, t, b in zip(credited_melds, credited_tricks, bonuses, strict=True)]
    exact_points = [m + t + b for m, t, b in zip(credited_melds, exact, bonuses, strict=True)]
    if not made:
        credited_melds[declarer] = 0
        penalty = -(ruleset.failed_multiplier * bid + ruleset.failed_extra)
        points[declarer] = exact_points[declarer] = penalty
    reason = "forfeit" if outcome == "forfeit" else "made" if made else "failed"
    return HandResult(
        at_fault=declarer if outcome == "forfeit" else None,
        outcome=outcome,
        declarer=declarer,
        bid=bid,
        points=tuple(points),
        stars=(0,) * parties,
        made=made,
        declarer_won=made,
        declarer_count=count if outcome == "played" else None,
        melds=tuple(credited_melds),
        tricks=tuple(credited_tricks),
        bonus=tuple(bonuses),
        exact_points=tuple(exact_points),
        reason=reason,
    )


def _caught(
    ruleset: Ruleset,
    players: int,
    declarer: int,
    guilty: int,
    bid: int,
    melds: list[int],
    exact: list[int],
    took: list[bool],
) -> HandResult:
    """A forfeit by an opposing party (caught signalling, docs/rules.md section 12).

    The guilty party scores as a failed declarer would: −(failed_multiplier ×
    bid + failed_extra), its melds and tricks void.  The declarer's game counts
    as made: his melds (no trick needed: the hand was broken off) plus the trick
    points he took, at least the bid.  Every other party scores as the
    opponents of a failed game: melds (if it took a trick) + tricks, and
    every party but the guilty one gets ``failed_bonus``.
    """
    parties = len(melds)
    credited_tricks = _credit(ruleset, exact)
    credited_melds = [
        m if t or i == declarer else 0 for i, (m, t) in enumerate(zip(melds, took, strict=True))
    ]
    bonus = ruleset.failed.points(bid=bid, players=players)
    bonuses = [0 if i == guilty else bonus for i in range(parties)]
    points = [m + t + b for m, t, b in zip(credited_melds, credited_tricks, bonuses, strict=True)]
    exact_points = [m + t + b for m, t, b in zip(credited_melds, exact, bonuses, strict=True)]
    count = credited_melds[declarer] + exact[declarer]
    if count < bid:  # broken off before he could make it: he is credited the bid
        points[declarer] = exact_points[declarer] = bid + bonuses[declarer]
    credited_melds[guilty] = 0
    penalty = -(ruleset.failed_multiplier * bid + ruleset.failed_extra)
    points[guilty] = exact_points[guilty] = penalty
    return HandResult(
        outcome="forfeit",
        declarer=declarer,
        bid=bid,
        points=tuple(points),
        stars=(0,) * parties,
        made=True,
        declarer_won=True,
        declarer_count=None,
        melds=tuple(credited_melds),
        tricks=tuple(credited_tricks),
        bonus=tuple(bonuses),
        exact_points=tuple(exact_points),
        reason="forfeit",
        at_fault=guilty,
    )
