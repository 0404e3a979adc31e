"""Start numbers in the order of the check-in, and the lost-game schedule in both syntaxes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import RulesError
from scorer.rules.tournament import (
    DEFAULT_SCHEDULE,
    SCHEDULE_SYNTAX,
    Schedule,
    lost_game_fee,
    round_fees,
    start_numbers,
    write_schedule,
)

# -- start numbers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("taken", "count", "numbers"),
    [
        (set(), 4, [1, 2, 3, 4]),
        ({1, 2, 3}, 2, [4, 5]),
        ({2, 5}, 4, [1, 3, 4, 6]),  # the gaps first: a player not there after all
        ({7}, 0, []),
    ],
)
def test_start_numbers_are_the_lowest_free_ones_in_order(
    taken: set[int], count: int, numbers: list[int]
) -> None:
    assert start_numbers(taken, count) == numbers


@pytest.mark.parametrize("count", [-1, True, "3", 2.0, None])
def test_start_numbers_want_a_count(count: Any) -> None:
    with pytest.raises(RulesError, match="not a number of players"):
        start_numbers(set(), count)


@given(st.sets(st.integers(1, 60), max_size=40), st.integers(0, 40))
def test_start_numbers_are_new_distinct_and_rising(taken: set[int], count: int) -> None:
    given_ = start_numbers(taken, count)
    assert len(given_) == count == len(set(given_))
    assert not set(given_) & taken
    assert given_ == sorted(given_)
    # nobody gets a number while a lower one is free
    free_below = set(range(1, max(given_, default=0))) - taken - set(given_)
    assert not free_below


# -- the lost-game schedule ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "english", "german"),
    [
        ("0.50; 1.00 from 5", "0.50; 1.00 from 5", "0,50; 1,00 ab 5"),
        ("0,50; 1,00 ab 5", "0.50; 1.00 from 5", "0,50; 1,00 ab 5"),
        ("0,5;1 AB 5", "0.50; 1.00 from 5", "0,50; 1,00 ab 5"),
        ("€1", "1.00", "1,00"),
        ("0", "0", "0"),
        ("1 from 3", "1.00 from 3", "1,00 ab 3"),
        ("0; 0.50 from 3; 1 ab 10", "0; 0.50 from 3; 1.00 from 10", "0; 0,50 ab 3; 1,00 ab 10"),
    ],
)
def test_a_schedule_is_written_in_either_language(typed: str, english: str, german: str) -> None:
    assert write_schedule(typed) == english == write_schedule(typed, "en")
    assert write_schedule(typed, "de") == german
    assert write_schedule(typed, "xx") == english
    assert set(SCHEDULE_SYNTAX) == {"en", "de"}


@given(
    st.lists(st.tuples(st.integers(0, 999), st.integers(0, 99)), min_size=1, max_size=4),
    st.integers(0, 30),
    st.sampled_from(["en", "de"]),
)
def test_a_written_schedule_prices_as_the_typed_one(
    prices: list[tuple[int, int]], lost: int, language: str
) -> None:
    parts = [f"{euros}.{cents:02d}" for euros, cents in prices]
    typed = "; ".join(part if i == 0 else f"{part} from {3 * i}" for i, part in enumerate(parts))
    written = write_schedule(typed, language)
    assert lost_game_fee(lost, written) == lost_game_fee(lost, typed)
    assert write_schedule(written) == write_schedule(typed)  # read back, the same stored form
    # read once, the schedule is a value: it prices, writes and reads back as the text does
    schedule = Schedule.parse(typed)
    assert schedule.fee(lost) == lost_game_fee(lost, typed) == lost_game_fee(lost, schedule)
    assert Schedule.parse(str(schedule)) == schedule == Schedule.parse(written)
    assert schedule.write(language) == written
    assert eval(repr(schedule)) == schedule  # the repr round-trips


@pytest.mark.parametrize("bad", ["50 cents", "0.50 von 5", "", 5, None, "1; 2"])
def test_a_schedule_neither_language_reads_is_refused(bad: Any) -> None:
    with pytest.raises(RulesError, match="not a lost-game schedule"):
        write_schedule(bad)


def test_the_canonical_form_is_what_the_fee_reads() -> None:
    assert lost_game_fee(6, write_schedule("0,50; 1,00 ab 5", "de")) == Decimal("4.00")


def test_the_default_schedule_is_read_once_and_kept_as_text() -> None:
    """A new tournament's lost-game money: 0.50 € a lost game, 1.00 € from the fifth."""
    assert str(DEFAULT_SCHEDULE) == "0.50; 1.00 from 5"
    assert DEFAULT_SCHEDULE.write("de") == "0,50; 1,00 ab 5"
    assert [DEFAULT_SCHEDULE.fee(n) for n in (0, 4, 6)] == [
        Decimal(0),
        Decimal("2.00"),
        Decimal("4.00"),
    ]
    assert round_fees([3, None, 3], DEFAULT_SCHEDULE) == round_fees(
        [3, None, 3], "0.50; 1.00 from 5"
    )


@pytest.mark.parametrize("lost", [-1, True, "3", None])
def test_a_schedule_prices_only_a_number_of_lost_games(lost: Any) -> None:
    with pytest.raises(RulesError, match="is not a number of lost games"):
        DEFAULT_SCHEDULE.fee(lost)
