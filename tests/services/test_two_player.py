"""The two-player hand in play (``services.two_player``): trump, melds one at a time, the close.

A meld shown adds to the hand whatever else was written meanwhile: a tap that lost a
race to another is run again by the unit of work, never refused; only a hand closed
meanwhile refuses a tap for it.
"""

from __future__ import annotations

import pytest
from flask import Flask

from scorer import services
from scorer.extensions import db
from scorer.models import Match
from scorer.rules import PRESETS
from scorer.services import HandClosedError
from tests.races import in_context, interleave

NAMES = ["Anna", "Berta"]


def a_match() -> Match:
    return services.start_match(names=NAMES, ruleset=PRESETS["zweier"])


def test_melds_are_written_one_at_a_time_and_count_live(in_app: Flask) -> None:
    match = a_match()
    services.set_trump(match, "H")
    services.write_meld(match, 0, "pair H", 40)
    services.write_meld(match, 1, "four A", 100)
    hand = services.open_hand(match)
    assert services.open_hand_melds(hand, 2) == [40, 100]
    assert services.live_totals(services.sheet(match)) == [40, 100]


def test_two_taps_at_once_both_count(in_app: Flask) -> None:
    """Two phones show a meld at the same moment: the later one's guarded write loses,
    runs again on the hand as the first left it, and both melds are written."""
    match = a_match()
    services.set_trump(match, "E")
    token = match.token

    def tap(party: int, name: str, points: int) -> None:
        services.write_meld(services.get_match(token), party, name, points)

    db.session.commit()
    late, early = interleave(
        in_context(in_app, lambda: tap(0, "pair E", 40)),
        in_context(in_app, lambda: tap(1, "pair G", 20)),
    )
    assert late is None and early is None
    hand = services.open_hand(services.get_match(token))
    assert sorted(services.open_hand_melds(hand, 2)) == [20, 40]


def test_a_tap_for_a_hand_closed_meanwhile_is_refused(in_app: Flask) -> None:
    match = a_match()
    services.set_trump(match, "S")
    services.write_meld(match, 0, "pair S", 40)
    services.finish_open_hand(match, [150, None], hand_number=1)
    with pytest.raises(HandClosedError):
        services.write_meld(match, 1, "pair G", 20, hand_number=1)


def test_a_meld_the_hand_cannot_show_is_refused(in_app: Flask) -> None:
    match = a_match()
    with pytest.raises(services.RulesError):
        services.write_meld(match, 0, "pair H", 0)
    with pytest.raises(services.RulesError):
        services.write_meld(match, 2, "pair H", 40)
