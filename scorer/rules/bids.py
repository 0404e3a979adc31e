"""The bid (Reizen): docs/rules.md section 4.  What a bid may be, and when a bid as typed
looks like a slip of the finger (two bids typed into one field) and is asked about."""

from __future__ import annotations

from .errors import BidError, RulesError
from .ruleset import Ruleset
from .whole import is_whole

MAX_BID = 10_000
"""The highest bid accepted: far above any real hand, low enough to catch a typo."""


def check_bid(ruleset: Ruleset, bid: object) -> int:
    """The bid if the ruleset allows it, else :class:`BidError`.

    A bid is a multiple of ``bid_step``, at least ``min_bid`` and at most
    :data:`MAX_BID`.

    >>> check_bid(Ruleset(), 390)
    390
    >>> check_bid(Ruleset(), 395)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.BidError: a bid of 395 is not a multiple of 10
    """
    if not is_whole(bid):
        raise BidError("'{bid}' is not a bid", bid=bid)
    if bid < ruleset.min_bid:
        raise BidError(
            "a bid of {bid} is below the minimum of {min_bid}", bid=bid, min_bid=ruleset.min_bid
        )
    if bid > MAX_BID:
        raise BidError("a bid of {bid} is above the maximum of {max_bid}", bid=bid, max_bid=MAX_BID)
    if bid % ruleset.bid_step:
        raise BidError("a bid of {bid} is not a multiple of {step}", bid=bid, step=ruleset.bid_step)
    return bid


CEILING_TIMES = 4
"""A table that has bid no higher is asked about a bid above this many minimum bids."""


def bid_ceiling_of(ruleset: Ruleset, highest: int | None) -> int:
    """The highest bid entered without a question: the highest bid the table has saved
    (``highest``, None for none), but never less than :data:`CEILING_TIMES` minimum bids.

    >>> [bid_ceiling_of(Ruleset(), highest) for highest in (None, 250, 800)]
    [600, 600, 800]
    """
    return max(highest or 0, CEILING_TIMES * ruleset.min_bid)


def bid_doubt(ruleset: Ruleset, bid: object, highest: int | None) -> RulesError | None:
    """Why a bid as typed looks wrong, or None: what the hand form shows beside the bid
    while it is typed.  A bid the rules refuse (:func:`check_bid`, naming the number
    typed), or one above :func:`bid_ceiling_of` — most often two bids typed into one
    field without a tap in between ("39", then "250": 39250) or a key hit twice.

    >>> bid_doubt(Ruleset(), 390, None) is None, bid_doubt(Ruleset(), None, None) is None
    (True, True)
    >>> print(bid_doubt(Ruleset(), 39250, 250))
    39250 is above the highest bid, 10000: two bids typed into one?
    >>> print(bid_doubt(Ruleset(), 3925, 250))
    a bid of 3925 is not a multiple of 10
    >>> print(bid_doubt(Ruleset(), 2500, 250))
    2500 is more than this table has bid so far (250): two bids typed into one?
    >>> print(bid_doubt(Ruleset(), 2500, None))
    2500 is more than 600, more than tables usually bid: two bids typed into one?
    >>> bid_doubt(Ruleset(), 2500, 2500) is None
    True
    """
    if not is_whole(bid) or bid <= 0:
        return None
    if bid > MAX_BID:
        return RulesError(
            "{bid} is above the highest bid, {max_bid}: two bids typed into one?",
            bid=bid,
            max_bid=MAX_BID,
        )
    try:
        check_bid(ruleset, bid)
    except BidError as exc:
        return exc
    ceiling = bid_ceiling_of(ruleset, highest)
    if bid <= ceiling:
        return None
    if highest is not None:
        return RulesError(
            "{bid} is more than this table has bid so far ({highest}): two bids typed into one?",
            bid=bid,
            highest=highest,
        )
    return RulesError(
        "{bid} is more than {ceiling}, more than tables usually bid: two bids typed into one?",
        bid=bid,
        ceiling=ceiling,
    )
