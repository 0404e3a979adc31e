"""How a hand went for its declarer (docs/rules.md sections 4, 5, 6 and 12): the
settlement's verdict, and the same verdict read back from what a saved hand keeps."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import (
    OUTCOMES,
    SPECIAL_GAMES,
    PlayedHand,
    RulesError,
    Verdict,
    replay,
    settle,
    verdict_of,
)
from scorer.rules.tournament import lost_game
from tests.rules.presets import STANDARD, TURNIER, ZWEIER
from tests.rules.test_settlement import played_hands

# (outcome, what was entered beyond it, the verdict, did the declarer win, a lost game)
REAL_HANDS: list[tuple[str, dict[str, Any], Verdict, bool | None, bool]] = [
    # section 5: bid 300, melds 120, tricks 190: made with 310
    (
        "played",
        {"bid": 300, "melds": [120, 40, 20], "tricks": [190, 40, 20]},
        Verdict.MADE,
        True,
        False,
    ),
    # section 11, example 7: bid 390, 250 melded, 90 taken: failed
    (
        "played",
        {"bid": 390, "melds": [250, 20, 40], "tricks": [90, 100, 60]},
        Verdict.FAILED,
        False,
        True,
    ),
    # section 11, example 10: going off at 250
    ("gone_off", {"bid": 250, "melds": [0, 40, 0]}, Verdict.GONE_OFF, False, True),
    # section 12, caught signalling: party 2 at fault, the declarer's game counts as made
    ("forfeit", {"bid": 300, "melds": [100, 40, 0], "at_fault": 2}, Verdict.CAUGHT, True, False),
    # a forfeit of the declarer's own: scored like a failed game, but no lost game
    ("forfeit", {"bid": 300, "melds": [100, 40, 0]}, Verdict.FORFEIT, False, False),
    ("durch", {"won": True}, Verdict.WON, True, False),
    ("bettel_hand", {"won": False}, Verdict.LOST, False, True),
]


@pytest.mark.parametrize(("outcome", "entered", "verdict", "won", "lost"), REAL_HANDS)
def test_real_hands_have_one_verdict(
    outcome: str, entered: dict[str, Any], verdict: Verdict, won: bool | None, lost: bool
) -> None:
    result = settle(STANDARD, players=3, bidder=0, outcome=outcome, **entered)
    assert result.verdict is verdict
    assert result.verdict.declarer_won is result.declarer_won is won
    # what a saved hand keeps of it says the same
    kept = verdict_of(outcome, made=result.made, won=entered.get("won"))
    assert kept is verdict
    assert lost_game(outcome, made=result.made, won=entered.get("won")) is lost


def test_open_play_has_no_declarer() -> None:
    result = settle(ZWEIER, players=2, bidder=None, melds=[40, 0], tricks=[150, 100])
    assert result.verdict is Verdict.OPEN and result.verdict.declarer_won is None


def test_an_unknown_outcome_is_refused() -> None:
    with pytest.raises(RulesError, match="'bock' is not an outcome"):
        verdict_of("bock", made=True, won=None)


@given(played_hands(), st.sampled_from([STANDARD, TURNIER]))
def test_a_saved_played_hand_says_what_its_settlement_said(
    hand: dict[str, Any], rules: Any
) -> None:
    result = settle(rules, players=3, **hand)
    assert verdict_of(result.outcome, made=result.made, won=None) is result.verdict
    assert result.verdict.declarer_won is result.declarer_won


@given(
    outcome=st.sampled_from(OUTCOMES),
    bidder=st.integers(0, 2),
    at_fault=st.one_of(st.none(), st.integers(0, 2)),
    won=st.booleans(),
    melds=st.lists(st.integers(0, 30).map(lambda m: m * 10), min_size=3, max_size=3),
)
def test_every_outcome_reads_back_as_settled(
    outcome: str, bidder: int, at_fault: int | None, won: bool, melds: list[int]
) -> None:
    rules = STANDARD if outcome != "open_play" else ZWEIER
    players = 3 if outcome != "open_play" else 2
    kwargs: dict[str, Any] = {"bid": 300, "melds": melds[:players]}
    if outcome == "open_play":
        kwargs["tricks"] = [150, 100]
    if outcome == "played":
        kwargs["tricks"] = [120, 80, 50]
    result = settle(
        rules,
        players=players,
        bidder=None if outcome == "open_play" else bidder,
        outcome=outcome,
        won=won if outcome in SPECIAL_GAMES else None,
        at_fault=at_fault,
        **kwargs,
    )
    kept_won = won if outcome in SPECIAL_GAMES else None
    assert verdict_of(outcome, made=result.made, won=kept_won) is result.verdict
    assert result.verdict.declarer_won is result.declarer_won


def test_a_forfeit_by_an_opponent_ends_a_match_played_with_a_game() -> None:
    """Section 6 with section 12: the caught opponent's forfeit counts the declarer's game
    as made, so it ends a match to 1000 "with a game" like a made game does."""
    caught = settle(STANDARD.replace(end="with_game"), players=3, bidder=0, bid=300,
                    outcome="forfeit", melds=[100, 40, 0], at_fault=2)  # fmt: skip
    before = PlayedHand(1, "played", True, (800, 300, 100))
    hand = PlayedHand(0, "forfeit", caught.verdict.declarer_won, caught.points)
    progress = replay(STANDARD.replace(end="with_game"), 3, [before, hand])
    assert progress.totals == (1100, 340, -500) and progress.finished_after == 1
