"""The series (Binokel-Cup, docs/rules.md section 13.1): how evenings add up, who is the same."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import RulesError
from scorer.rules.tournament import (
    alike_names,
    name_key,
    rank,
    series_evenings,
    series_lines,
    series_ranking,
)

# a cup of four evenings: Anna played all, Bertl missed the third, Carla came twice
CUP = {
    "Anna": [1200, 800, 950, 700],
    "Bertl": [1500, 1100, None, 900],
    "Carla": [None, 2000, None, 1700],
    "Done": [600, 650, 700, 640],
}


@pytest.mark.parametrize(
    ("counting", "best", "expected"),
    [
        # all evenings played: Carla 3700, Bertl 3500, Anna 3650, Done 2590
        ("all", 0, {"Carla": (1, 3700), "Anna": (2, 3650), "Bertl": (3, 3500), "Done": (4, 2590)}),
        # the best two: Carla 3700, Bertl 1500 + 1100, Anna 1200 + 950, Done 700 + 650
        ("best", 2, {"Carla": (1, 3700), "Bertl": (2, 2600), "Anna": (3, 2150), "Done": (4, 1350)}),
        # the best three: Bertl 3500 (all he played), Anna 1200 + 950 + 800
        ("best", 3, {"Carla": (1, 3700), "Bertl": (2, 3500), "Anna": (3, 2950), "Done": (4, 1990)}),
        # every evening: only Anna and Done are ranked
        ("every", 0, {"Anna": (1, 3650), "Done": (2, 2590)}),
    ],
)
def test_a_cup_of_four_evenings_under_each_counting(
    counting: str, best: int, expected: dict[str, tuple[int, int]]
) -> None:
    result = series_ranking(CUP, counting, best)
    assert result == expected
    assert list(result) == list(expected)  # best first


def test_the_best_k_of_equal_evenings_takes_the_earlier() -> None:
    assert series_evenings([500, 700, 500, 500], "best", 2) == (0, 1)


def test_more_best_evenings_than_played_counts_all_played() -> None:
    assert series_evenings([None, 300, 200], "best", 5) == (1, 2)


def test_a_player_who_played_no_evening_is_not_ranked() -> None:
    assert series_evenings([None, None], "all") is None
    assert series_ranking({"a": [None, None], "b": [0, 10]}, "all") == {"b": (1, 10)}


def test_equal_series_points_share_a_place() -> None:
    result = series_ranking({"a": [300, 200], "b": [None, 500], "c": [100, None]}, "all")
    assert result == {"a": (1, 500), "b": (1, 500), "c": (3, 100)}


def test_negative_evenings_count_too() -> None:
    assert series_ranking({"a": [-200, 100], "b": [50, None]}, "all") == {
        "b": (1, 50),
        "a": (2, -100),
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([1], "some", 0), "no way to count"),
        (([1], "best", 0), "1 or more"),
        (([1], "best", True), "1 or more"),
        (([1], "best", -3), "1 or more"),
        ((["300"], "all", 0), "not a number"),
        (([1.5], "all", 0), "not a number"),
    ],
)
def test_nonsense_is_refused_with_a_message(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        series_evenings(*args)


def test_evenings_of_unequal_length_are_refused() -> None:
    with pytest.raises(RulesError, match="one entry per evening"):
        series_ranking({"a": [1, 2], "b": [3]}, "all")


EVENING = st.one_of(st.none(), st.integers(-3000, 5000))


@given(
    st.integers(1, 6).flatmap(
        lambda n: st.dictionaries(st.integers(1, 60), st.lists(EVENING, min_size=n, max_size=n))
    ),
    st.sampled_from(["all", "best", "every"]),
    st.integers(1, 6),
)
def test_the_series_ranking_is_the_rank_of_the_counted_sums(
    cup: dict[int, list[int | None]], counting: str, best: int
) -> None:
    result = series_ranking(cup, counting, best)
    totals = {}
    for player, played in cup.items():
        counted = series_evenings(played, counting, best)
        if counted is None:
            assert player not in result
            continue
        assert len(counted) == (min(best, len(counted)) if counting == "best" else len(counted))
        assert all(played[i] is not None for i in counted)
        totals[player] = sum(played[i] or 0 for i in counted)
    assert {p: points for p, (_, points) in result.items()} == totals
    assert {p: place for p, (place, _) in result.items()} == rank(totals)


@given(st.lists(EVENING, min_size=1, max_size=8), st.integers(1, 8))
def test_the_best_k_are_never_beaten_by_a_left_out_evening(
    played: list[int | None], best: int
) -> None:
    counted = series_evenings(played, "best", best)
    if counted is None:
        assert all(value is None for value in played)
        return
    left_out = [v for i, v in enumerate(played) if v is not None and i not in counted]
    assert all(v <= min(played[i] or 0 for i in counted) for v in left_out if v is not None)
    assert series_evenings(played, "all") is not None
    # all evenings never count less than the best k when no evening is negative
    if all(v is None or v >= 0 for v in played):
        assert sum(played[i] or 0 for i in counted) <= sum(v or 0 for v in played)


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("Hans Schäfer", "Hans Schaefer"),
        ("Sepp Maier", "Sepp Meyer"),
        ("Sepp Maier", "Sepp Mayer"),
        ("Hans Maier", "Maier Hans"),
        ("Hans Maier", "H. Maier"),
        ("Gottlieb Häußler", "Gottlieb Haeussler"),
        ("Friedrich Schmid", "Friedrich Schmidt"),
        ("Katharina Kächele", "Katharina Kaechele"),
    ],
)
def test_names_typed_differently_are_alike(name: str, other: str) -> None:
    assert alike_names(name, [other]) == [0]
    assert alike_names(other, [name]) == [0]


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("Hans Maier", "Eva Maier"),
        ("Hans Maier", "Hans Müller"),
        ("Anna", "Anton"),
        ("Ute Rapp", "Uwe Rapp"),
        ("Hans Maier", "  hans   MAIER "),  # the same person, not merely alike
    ],
)
def test_other_people_and_the_same_spelling_are_not_alike(name: str, other: str) -> None:
    assert alike_names(name, [other]) == []


def test_the_same_name_key_ignores_case_spaces_and_dots() -> None:
    assert name_key(" Hans  Maier") == name_key("hans maier") == "hans maier"
    assert name_key("H.Maier") == "h maier"


@given(st.text(max_size=30), st.lists(st.text(max_size=30), max_size=8))
def test_alike_names_never_fails_and_never_lists_the_same_name(name: str, names: list[str]) -> None:
    found = alike_names(name, names)
    assert all(0 <= i < len(names) for i in found)
    assert all(name_key(names[i]) != name_key(name) for i in found)


# -- the series ranking as it is listed ---------------------------------------------------


@pytest.mark.parametrize(
    ("counting", "best", "listed_as"),
    [
        # all evenings: Bertl 3500, Anna 3650, Carla 3700, Done 2590
        ("all", 0, [("Carla", 1, 3700), ("Anna", 2, 3650), ("Bertl", 3, 3500), ("Done", 4, 2590)]),
        # only who played every evening; Carla (3700) before Bertl (3500), both without a place
        (
            "every",
            0,
            [("Anna", 1, 3650), ("Done", 2, 2590), ("Carla", None, 3700), ("Bertl", None, 3500)],
        ),
        # the best two: Carla 3700, Bertl 2600, Anna 2150, Done 1350
        ("best", 2, [("Carla", 1, 3700), ("Bertl", 2, 2600), ("Anna", 3, 2150), ("Done", 4, 1350)]),
    ],
)
def test_the_series_is_listed_ranked_first_then_the_left_out(
    counting: str, best: int, listed_as: list[tuple[str, int | None, int]]
) -> None:
    lines = series_lines(CUP, {name: name.lower() for name in CUP}, counting, best)
    assert [(line.player, line.place, line.total) for line in lines] == listed_as
    left_out = [line for line in lines if line.place is None]
    assert all(line.counted == () for line in left_out)


def test_a_shared_place_is_listed_by_name() -> None:
    lines = series_lines(
        {"z": [300], "a": [300], "m": [100]}, {"z": "z", "a": "a", "m": "m"}, "all"
    )
    assert [(line.player, line.place) for line in lines] == [("a", 1), ("z", 1), ("m", 3)]


@given(
    st.integers(1, 4).flatmap(
        lambda held: st.dictionaries(
            st.text("abcdef", min_size=1, max_size=3),
            st.lists(st.one_of(st.none(), st.integers(-500, 3000)), min_size=held, max_size=held),
            max_size=12,
        )
    ),
    st.sampled_from(["all", "best", "every"]),
    st.integers(1, 4),
)
def test_every_player_is_listed_once_the_ranked_first(
    evenings: dict[str, list[int | None]], counting: str, best: int
) -> None:
    evenings = {p: v for p, v in evenings.items() if any(x is not None for x in v)}
    lines = series_lines(evenings, {p: p for p in evenings}, counting, best)
    assert sorted(line.player for line in lines) == sorted(evenings)
    places = [line.place for line in lines]
    ranked = [place for place in places if place is not None]
    assert places[: len(ranked)] == ranked == sorted(ranked)
    left = [line.total for line in lines if line.place is None]
    assert left == sorted(left, reverse=True)
