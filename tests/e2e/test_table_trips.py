"""What made a newcomer stop at the table (issue 30), in Chromium at phone size: seed 002's
two worked examples through the untouched Swabian preset, and the calculator's Rundgang."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import no_axe_violations
from tests.e2e.test_flows import fill_hand, live_result, press_start, save_hand, start_match, totals

pytestmark = pytest.mark.e2e

Shot = Callable[[Any, str], Path]


def test_seed_002s_examples_through_the_untouched_swabian_preset(page: Page, shot: Shot) -> None:
    start_match(page, ["Anna", "Bert", "Carl"])
    # the preset the form starts with, its name saying whose rules it follows
    expect(page.locator("#preset")).to_have_value("standard")
    expect(page.locator("#preset option:checked")).to_contain_text("schwäbisch")
    press_start(page)
    # example 1: 390 bid, family in trump 150 + four aces 100, tricks 90: 340, failed
    fill_hand(page, declarer=0, bid=390, trump="H", melds={0: 250, 1: 20, 2: 60},
              tricks={0: 90, 1: 100})  # fmt: skip
    live_result(page, r"340 (von|of) 390")
    expect(page.locator("#live-result")).to_contain_text("Bert 160 · Carl 160")
    save_hand(page, 1)
    # −780; Bert and Carl their melds and tricks and 40 each
    assert totals(page) == ["(−780)", "160", "160"]
    # example 2: 380 bid, Doppelbinokel 300 + Rundgang 240, tricks 90: 630, made
    fill_hand(page, declarer=0, bid=380, trump="E", melds={0: 540, 1: 40},
              tricks={0: 90, 1: 100})  # fmt: skip
    live_result(page, r"630 (von|of) 380")
    save_hand(page, 2)
    assert totals(page) == ["(−150)", "300", "220"]
    shot(page, "table-trips-seed-002")


def test_the_rundgang_in_one_tap(page: Page, shot: Shot) -> None:
    page.goto("/melds")
    page.locator("#calc-trump label.trump-E").click()
    expect(page.locator("#calc-trump input[value='E']")).to_be_checked()
    page.locator("button[name=rundgang]").click()
    expect(page.locator(".calc-sum")).to_have_text("240")
    expect(page.locator(".calc-total .tag")).to_have_text("Rundgang")
    expect(page.locator(".calc-lines li")).to_have_count(6)  # four pairs, four K, four O
    expect(page.locator("button[name=rundgang]")).to_have_count(0)
    no_axe_violations(page, "calculator with a Rundgang")
    shot(page, "table-trips-rundgang")
