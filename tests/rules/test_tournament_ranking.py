"""The tournament's ranking with and without the tie-break (docs/rules.md section 13)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import RulesError
from scorer.rules.tournament import rank, ranking

ROUNDS = st.lists(st.integers(-2000, 3000), max_size=4)
FIELD = st.dictionaries(st.integers(1, 500), ROUNDS, max_size=40)
LOST = st.dictionaries(st.integers(1, 500), st.integers(0, 12), max_size=40)


def test_without_tie_break_the_sum_decides_and_ties_share() -> None:
    played = {"Anna": [300, 100], "Bertl": [200, 200], "Done": [150, 100]}
    assert ranking(played, {"Anna": 2, "Bertl": 1}) == {"Anna": 1, "Bertl": 1, "Done": 3}


def test_the_better_best_round_breaks_a_tie() -> None:
    played = {"Anna": [100, 300], "Bertl": [200, 200], "Done": [150, 100]}
    assert ranking(played, {}, tie_break=True) == {"Anna": 1, "Bertl": 2, "Done": 3}


def test_then_the_fewer_lost_games() -> None:
    played = {"a": [250, 150], "b": [150, 250], "c": [400]}
    assert ranking(played, {"a": 3, "b": 1, "c": 5}, tie_break=True) == {"c": 1, "b": 2, "a": 3}


def test_equal_in_all_three_still_share_a_place() -> None:
    played = {"a": [250, 150], "b": [150, 250], "c": [100, 100]}
    assert ranking(played, {"a": 1, "b": 1}, tie_break=True) == {"a": 1, "b": 1, "c": 3}


def test_a_late_arrival_has_no_best_round_from_rounds_not_played() -> None:
    # Egon came for round 2 only: his 0 of round 1 is no round, so his best is -50
    played = {"Egon": [-50], "Frieda": [-100, 50]}
    assert ranking(played, {}, tie_break=True) == {"Frieda": 1, "Egon": 2}


def test_nobody_and_a_player_without_rounds() -> None:
    assert ranking({}, {}) == {}
    assert ranking({"a": [], "b": [0]}, {}, tie_break=True) == {"b": 1, "a": 2}
    assert ranking({"a": [], "b": [0]}, {}) == {"a": 1, "b": 1}


@pytest.mark.parametrize(
    ("rounds", "lost"),
    [
        ({"a": [1.5]}, {}),
        ({"a": "300"}, {}),
        ({"a": [True]}, {}),
        ({"a": 300}, {}),
        ({"a": [300]}, {"a": "2"}),
        ([("a", [300])], {}),
    ],
)
def test_what_is_not_points_is_refused(rounds: Any, lost: Any) -> None:
    with pytest.raises(RulesError):
        ranking(rounds, lost, tie_break=True)


@given(FIELD, LOST)
def test_without_tie_break_it_is_rank_of_the_sums(
    rounds: dict[int, list[int]], lost: dict[int, int]
) -> None:
    assert ranking(rounds, lost) == rank({p: sum(v) for p, v in rounds.items()})


@given(FIELD, LOST, st.booleans())
def test_places_follow_the_shared_place_rule(
    rounds: dict[int, list[int]], lost: dict[int, int], tie_break: bool
) -> None:
    places = ranking(rounds, lost, tie_break=tie_break)
    assert set(places) == set(rounds)
    ordered = list(places.values())
    assert ordered == sorted(ordered)
    # a place p is held by exactly as many players as it skips: 1, 1, 3 …
    for position, place in enumerate(ordered, start=1):
        assert place <= position
        assert place == position or ordered[position - 2] == place
    # the sums never go up along the ranking, and the tie-break only orders equal sums
    sums = [sum(rounds[p]) for p in places]
    assert sums == sorted(sums, reverse=True)


@given(FIELD, LOST)
def test_the_tie_break_only_splits_places(
    rounds: dict[int, list[int]], lost: dict[int, int]
) -> None:
    plain = ranking(rounds, lost)
    broken = ranking(rounds, lost, tie_break=True)
    for player in rounds:
        assert plain[player] <= broken[player]
        # a player's tie-broken place stays inside the block of their equal sums
        tied = sum(1 for other in rounds if sum(rounds[other]) == sum(rounds[player]))
        assert broken[player] < plain[player] + tied
