"""The step every game's points come in (``points_step``): what a paper slip's total can be."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import PRESETS, Ruleset, points_step, settle
from tests.rules.test_settlement import played_hands

TURNIER = PRESETS["turnier"]


@pytest.mark.parametrize(
    ("rules", "step"),
    [
        (PRESETS["standard"], 1),  # cards 11-10-4-3-2: trick points of every step
        (TURNIER, 10),  # tricks rounded, half the bid rounded up to 10
        (TURNIER.replace(going_off_bonus="flat 25"), 5),
        (TURNIER.replace(round_tricks=False), 1),
        (Ruleset(card_points="10-10-10-0-0"), 10),  # only tens and aces count, 10 each
        (Ruleset(card_points="10-10-10-0-0", pair=25), 5),
        (TURNIER.replace(min_bid=155, bid_step=5), 5),
    ],
)
def test_the_step_of_a_ruleset(rules: Ruleset, step: int) -> None:
    assert points_step(rules) == step


@given(
    played_hands(),
    st.sampled_from(["played", "gone_off", "forfeit"]),
    st.sampled_from(["half_bid", "flat 30", "per_player 10"]),
)
def test_every_game_of_the_tournament_rules_is_a_multiple_of_the_step(
    hand: dict[str, Any], outcome: str, bonus: str
) -> None:
    rules = TURNIER.replace(going_off_bonus=bonus)
    step = points_step(rules)
    if outcome == "gone_off":
        hand = {**hand, "tricks": [0, 0, 0]}
    result = settle(rules, players=3, outcome=outcome, **hand)
    assert all(points % step == 0 for points in result.points), (result.points, step)
