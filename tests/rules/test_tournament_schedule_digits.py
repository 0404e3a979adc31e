"""The lost-game schedule takes the numbers every number field takes: ASCII digits, in range.

``٣`` (Arabic-Indic three) or ``３`` (full-width) is no digit of the app (README
"Numbers"), and no "from N" is longer than a round's lost games can count.
"""

from __future__ import annotations

import unicodedata
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import RulesError
from scorer.rules.tournament import lost_game_fee, write_schedule
from scorer.rules.tournament.money import MAX_LOST_GAME_FROM, MAX_LOST_GAME_PRICE


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("٣", "digits 0 to 9"),
        ("３", "digits 0 to 9"),
        ("0,50; 1,00 ab ٥", "digits 0 to 9"),
        ("0.5٠", "digits 0 to 9"),
        ("0.50; 1.00 from 12345678901234567890", "from 1 to 99"),
        ("0.50; 1.00 from 100", "from 1 to 99"),
        ("1 from 0", "from 1 to 99"),
        ("1000.01", "at most 1000 €"),
        ("99999999999999999999", "at most 1000 €"),
        ("0.50; 2000 ab 3", "at most 1000 €"),
    ],
)
def test_other_digits_and_numbers_out_of_range_are_refused(typed: str, words: str) -> None:
    with pytest.raises(RulesError) as raised:
        write_schedule(typed)
    message = str(raised.value)
    assert f"'{typed}' is not a lost-game schedule" in message and words in message
    assert "e.g. '0.50; 1.00 from 5'" in message  # says how to write one


@pytest.mark.parametrize(
    ("typed", "stored"),
    [("1000", "1000.00"), ("0,50; 1 ab 99", "0.50; 1.00 from 99"), ("0 ab 1", "0")],
)
def test_the_edges_of_the_ranges_are_taken(typed: str, stored: str) -> None:
    assert write_schedule(typed) == stored


_OTHER_DIGITS = st.characters(categories=["Nd"]).filter(lambda c: not c.isascii())


@given(
    st.integers(0, 999),
    st.integers(0, 99),
    st.integers(2, MAX_LOST_GAME_FROM),
    _OTHER_DIGITS,
    st.data(),
)
def test_a_schedule_with_any_other_digit_is_refused(
    euros: int, cents: int, start: int, other: str, data: st.DataObject
) -> None:
    typed = f"{euros}.{cents:02d}; 1.00 from {start}"
    assert write_schedule(typed)  # read as typed
    places = [i for i, c in enumerate(typed) if c.isdigit()]
    at = data.draw(st.sampled_from(places))
    # the same value in another script's digits: still no digit of the schedule
    swapped = typed[:at] + other + typed[at + 1 :]
    assert unicodedata.digit(other) in range(10)
    with pytest.raises(RulesError, match="digits 0 to 9"):
        write_schedule(swapped)


@given(st.integers(0, 10**6), st.integers(1, 10**25))
def test_a_price_or_a_start_beyond_the_range_never_prices_a_game(euros: int, start: int) -> None:
    typed = f"0.50; {euros} from {start}"
    fits = euros <= MAX_LOST_GAME_PRICE and 1 < start <= MAX_LOST_GAME_FROM
    if fits:
        assert lost_game_fee(start, typed) == Decimal("0.50") * (start - 1) + euros
    else:
        with pytest.raises(RulesError, match="not a lost-game schedule"):
            lost_game_fee(start, typed)
