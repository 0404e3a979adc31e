"""A number nobody means, typed at the table: a clear message at phone size, nothing saved."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import fits_width
from tests.e2e.test_flows import fill_hand, press_start, start_match

pytestmark = pytest.mark.e2e


def test_a_40_digit_bid_is_refused_in_german_within_the_phone_width(
    page: Page, shot: Callable[[Any, str], Path]
) -> None:
    start_match(page, ["Anna", "Bert", "Carl"])
    press_start(page)
    fill_hand(page, declarer=0, trump="H", tricks={1: 60, 2: 60})
    page.locator("#bid").fill("9" * 40)
    page.locator("#hand-form button[type=submit]").click()
    # the number as typed (cut short) and the bids this table takes
    error = page.locator("#hand-form .errors li", has_text="Reizwerte gehen von 150 bis 10000")
    expect(error).to_be_visible()
    assert fits_width(page)
    expect(error).to_contain_text("„999999999999…“ ist kein Reizwert")
    expect(page.locator("#hand-form")).not_to_contain_text("1000000000000000")
    expect(page.locator("#hand-form .errors li", has_text="Reizwert eintragen")).to_have_count(0)
    expect(page.locator("#bid")).to_have_value("9" * 40)  # what was typed stays
    shot(page, "hostile-40-digit-bid")
