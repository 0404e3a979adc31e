"""The meld calculator in a real browser at phone size: its page and its panel in a hand."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scorer import services
from scorer.rules import PRESETS
from tests.e2e.conftest import LiveServer, fits_width

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.e2e

Shot = Callable[[Any, str], Path]


def tap_meld(page: Any, name: str) -> None:
    page.locator(f'#calc button[name="add"][value="{name}"]').click()


def total(page: Any, scope: str = "#calc") -> Any:
    return page.locator(f"{scope} .calc-sum")


def test_declare_a_trump_family_and_four_aces(page: Any, shot: Shot) -> None:
    page.goto("/")
    page.locator('.hero a[href="/melds"]').click()
    expect(page.locator("#calc")).to_be_visible()
    page.locator("#calc label.trump-H").click()
    expect(page.locator("#calc .meld-row.is-trump")).to_be_visible()
    tap_meld(page, "family H")
    expect(total(page)).to_have_text("150")
    tap_meld(page, "four A")
    expect(total(page)).to_have_text("250")
    expect(page.locator('#calc button[value="family H"] .mc')).to_have_text("×1")
    assert fits_width(page)
    shot(page, "calculator-declare")
    # take one back
    page.locator('#calc button[name="back"][value="four A"]').click()
    expect(total(page)).to_have_text("150")


def test_a_rundgang_through_the_implied_melds(page: Any, shot: Shot) -> None:
    page.goto("/melds")
    page.locator("#calc label.trump-E").click()
    expect(page.locator("#calc .meld-row.is-trump")).to_be_visible()
    for suit in "EGHS":
        tap_meld(page, f"pair {suit}")
    expect(total(page)).to_have_text("100")
    offer = page.locator('#calc button[name="implied"]')
    expect(offer).to_contain_text("140")
    shot(page, "calculator-implied")
    offer.click()
    expect(total(page)).to_have_text("240")
    expect(page.locator("#calc .calc-total .tag")).to_be_visible()
    expect(page.locator('#calc button[name="implied"]')).to_have_count(0)


def test_the_rundgang_button_adds_what_it_says_before_and_after_the_trump(
    page: Any, shot: Shot
) -> None:
    """Without a trump the button said "Rundgang 240" and added 220 (issue 34 §7): its
    number is what the tap adds, under the trump as it stands."""
    page.goto("/melds")
    button = page.locator('#calc button[name="rundgang"]')
    expect(button.locator(".mp")).to_have_text("220")
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844
    assert box["x"] + box["width"] <= 390 and box["height"] >= 44
    shot(page, "calculator-rundgang-no-trump")
    button.click()
    expect(total(page)).to_have_text("220")
    expect(page.locator("#calc .calc-total .tag")).to_have_text("Rundgang")
    expect(button).to_have_count(0)  # a Rundgang is there: nothing more to add
    # the trump named: one of the pairs is the trump pair
    page.locator("#calc label.trump-E").click()
    expect(total(page)).to_have_text("240")
    # started again with the trump: the button says 240, and adds it
    page.locator('#calc button[name="clear"]').click()
    expect(total(page)).to_have_text("0")
    expect(button.locator(".mp")).to_have_text("240")
    button.click()
    expect(total(page)).to_have_text("240")


def test_three_herz_pairs_are_refused(page: Any, shot: Shot) -> None:
    page.goto("/melds?lang=en")
    for _ in range(3):
        tap_meld(page, "pair H")
    error = page.locator("#calc .calc-error")
    expect(error).to_contain_text("Herz-König three times")
    expect(total(page)).to_have_text("40")
    expect(page.locator('#calc button[value="pair H"] .mc')).to_have_text("×2")
    shot(page, "calculator-error")


def test_two_binokel_become_a_doppelbinokel(page: Any) -> None:
    page.goto("/melds?lang=en")
    tap_meld(page, "binokel")
    tap_meld(page, "binokel")
    expect(page.locator("#calc .calc-error")).to_contain_text("Doppelbinokel")
    page.locator('#calc button[name="upgrade"]').click()
    expect(total(page)).to_have_text("300")
    expect(page.locator("#calc .calc-error")).to_have_count(0)


HAND = ["EA", "E10", "EK", "EO", "EU", "HA", "GA", "SA", "GO", "SU", "HK", "HO"]


def start(live_server: LiveServer) -> str:
    with live_server.app.app_context():
        match = services.start_match(names=["Anna", "Bert", "Carl"], ruleset=PRESETS["standard"])
        return match.token


def test_pick_twelve_cards_and_carry_them_into_the_hand(
    page: Any, live_server: LiveServer, shot: Shot
) -> None:
    token = start(live_server)
    page.goto(f"/m/{token}")
    page.locator("#declarer-set label", has_text="Anna").click()
    page.locator("#trump-set label.trump-E").click()
    page.fill("#bid", "300")
    page.locator('button[name="calc0-go"]').click()
    panel = page.locator("#calc-panel-0")
    expect(panel.locator(".calc-panel")).to_be_visible()
    shot(page, "calculator-panel-declare")
    panel.locator('button[name="calc0-go"][value="cards"]').click()
    expect(panel.locator(".deck")).to_be_visible()
    for card in HAND:
        button = panel.locator(f'button[name="calc0-card"][value="{card}:1"]')
        button.click()
        expect(button).to_have_attribute("aria-pressed", "true")
    # family E in trump 150 + four A 100 + binokel 40 + pair H 20 = 310
    expect(total(page, "#calc-panel-0")).to_have_text("310")
    assert fits_width(page)
    shot(page, "calculator-panel-cards")
    panel.locator('button[name="calc0-take"]').click()
    expect(page.locator("#parties-0-melds")).to_have_value("310")
    names = page.locator("#parties-0-meld_names")
    expect(names).to_have_value("family E,pair H,binokel,four A")
    expect(panel.locator(".calc-taken")).to_contain_text("310")
    # the live result under the form follows the taken-over melds
    page.fill("#parties-0-tricks", "120")
    page.fill("#parties-1-tricks", "70")
    expect(page.locator("#live-result")).to_contain_text("430")
    shot(page, "calculator-taken-over")
    page.locator("#hand-form button[type=submit]").click()
    expect(page.locator("#sheet tbody tr")).to_have_count(1)
    page.locator("#sheet a.meld-mark").first.click()
    expect(page.locator(".meld-breakdown").first).to_be_visible()
    shot(page, "calculator-hand-detail")


def test_the_value_is_taken_over_without_javascript(
    make_page: Callable[..., Any], live_server: LiveServer
) -> None:
    page = make_page(java_script_enabled=False)
    token = start(live_server)
    page.goto(f"/m/{token}?lang=en")
    page.locator('#declarer-set input[value="1"]').check()
    page.locator('#trump-set input[value="H"]').check()
    page.fill("#bid", "200")
    page.locator('button[name="calc1-go"]').click()
    page.locator('button[name="calc1-add"][value="family H"]').click()
    page.locator('button[name="calc1-add"][value="four A"]').click()
    expect(total(page, "#calc-panel-1")).to_have_text("250")
    page.locator('button[name="calc1-take"]').click()
    expect(page.locator("#parties-1-melds")).to_have_value("250")
    expect(page.locator("#bid")).to_have_value("200")
    expect(page.locator("#live-result")).to_be_visible()
