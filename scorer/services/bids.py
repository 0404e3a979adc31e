"""The highest bid a table has seen: a bid above it is asked about once before it is saved.

A bid typed in tens by mistake ("140" read as 1400) or a key hit twice ("3500")
is a valid bid, and it would decide the match.  So the hand form asks once
("Bid 1400, really?") when a bid is above :func:`bid_ceiling`: the highest bid
saved at this table — every match of the session, struck hands left out — but
never less than four times the minimum bid (600 at the usual 150; the rule is
``scorer.rules.bid_ceiling_of``, and ``bid_doubt`` says why a typed bid looks
wrong).  A new table thus enters its ordinary bids (docs/rules.md's examples go up
to 390) without a question, and a table that bids high is asked only once per new
height.
"""

from __future__ import annotations

from sqlalchemy import func, select

from ..extensions import db
from ..models import Hand, Match
from ..rules import BID_OUTCOMES, Ruleset, bid_ceiling_of


def highest_bid(match: Match) -> int | None:
    """The highest bid saved in the session of ``match`` (None: no bid yet)."""
    query = (
        select(func.max(Hand.bid))
        .join(Match, Hand.match_id == Match.id)
        .where(
            Match.session_id == match.session_id,
            Hand.deleted_at.is_(None),
            Hand.outcome.in_(BID_OUTCOMES),
        )
    )
    value = db.session.execute(query).scalar_one_or_none()
    return int(value) if value else None


def bid_ceiling(match: Match, ruleset: Ruleset) -> int:
    """The highest bid saved without a question at this table (see the module)."""
    return bid_ceiling_of(ruleset, highest_bid(match))
