"""Numbers the hand form reads in tens: "30" typed for a bid of 300, "4" for melds of 40.

A Schreiber in a hurry leaves the zero off; a number that is no bid (or no meld
total) when read as typed, and one when read times ten, is what was meant.  The
form reads them here, and :func:`tens_readings` lists the readings for the page so
that static/scorer.js shows them while typing without a rule of its own.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..rules import RulesError, Ruleset, check_bid


def read_bid(ruleset: Ruleset, bid: Any) -> Any:
    """A bid typed in tens ("30" for 300) as the bid it means, else as typed.

    A number below the minimum bid is no bid; when ten times it is one, that is
    what the Schreiber meant (the form shows the reading live, static/scorer.js).
    """
    if not isinstance(bid, int) or isinstance(bid, bool) or not 0 < bid < ruleset.min_bid:
        return bid
    try:
        return check_bid(ruleset, bid * 10)
    except RulesError:
        return bid


# the most numbers a form's reading in tens lists for the page (see tens_readings)
MAX_READINGS = 1000


@lru_cache(maxsize=64)
def tens_readings(ruleset: Ruleset, smallest: int) -> dict[str, dict[str, int]]:
    """Every number the form reads in tens, and what it reads it as: for the page.

    Worked out once per table's rules and kept (every hand form, preview and save
    asks; the answer is shared, so nobody changes it).

    ``{"bid": {"25": 250, ...}, "melds": {"2": 20, ...}}``, worked out by
    :func:`read_bid` and :func:`read_melds` themselves, so that static/scorer.js
    shows the reading while typing without a rule of its own.  A table whose
    minimum bid would list more than :data:`MAX_READINGS` numbers gets no bid
    list (the server still reads the bid when it is sent).
    """
    low = -(-ruleset.min_bid // 10)
    bids = range(low, ruleset.min_bid) if ruleset.min_bid - low <= MAX_READINGS else range(0)
    return {
        "bid": {str(n): read_bid(ruleset, n) for n in bids if read_bid(ruleset, n) != n},
        "melds": {
            str(n): read_melds(smallest, n)
            for n in range(1, min(smallest, MAX_READINGS))
            if read_melds(smallest, n) != n
        },
    }


def read_melds(smallest: int, melds: Any) -> Any:
    """Melds typed in tens ("10" for 100, "4" for 40) as the melds they mean, else as typed.

    A number below ``smallest`` (the fewest points one meld is worth,
    :func:`scorer.rules.smallest_meld`) is no meld total; when ten times it is
    one, that is what the Schreiber meant — as with the bid.  With sevens the
    Diss is worth 10, so there only "1" to "9" are read in tens.
    """
    if not isinstance(melds, int) or isinstance(melds, bool) or not 0 < melds < smallest:
        return melds
    return melds * 10 if melds * 10 >= smallest else melds
