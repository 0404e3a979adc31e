"""What a newcomer tripped over (issue 20, section 5), in the browser at phone size.

Screenshots go to /tmp/h3-shots/ (``H3_SHOTS`` overrides it) for a human to look at.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_flows import ROWS, choose, press_start, start_match

pytestmark = pytest.mark.e2e

SHOTS = Path(os.environ.get("H3_SHOTS", "/tmp/h3-shots"))


def snap(page: Page, name: str, *, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full, caret="initial")


def test_a_bid_read_in_tens_is_shown_large_and_a_high_bid_is_asked_once(page: Page) -> None:
    start_match(page, ["Anna", "Bert", "Carl"])
    press_start(page)
    choose(page, "declarer-set", "0")
    page.locator("#bid").fill("140")
    reading = page.locator("#bid-reading")
    expect(reading).to_be_visible()
    expect(reading).to_contain_text("1400")
    # large: not a footnote
    size = reading.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
    assert size >= 18
    choose(page, "trump-set", "H")
    page.locator("#parties-0-melds").fill("100")
    page.locator("#parties-0-tricks").fill("180")
    page.locator("#parties-1-tricks").fill("60")
    page.locator("#bid").evaluate("el => el.scrollIntoView({block: 'center'})")
    snap(page, "1-bid-reading")
    page.locator(".actions button[type=submit]").click()
    question = page.locator("#bid-question")
    expect(question).to_be_visible()
    expect(question).to_contain_text("1400")
    expect(page.locator(ROWS)).to_have_count(0)
    # everything typed is still there
    expect(page.locator("#parties-1-tricks")).to_have_value("60")
    expect(page.locator("#trump-set input[value='H']")).to_be_checked()
    box = question.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390
    question.evaluate("el => el.scrollIntoView({block: 'center'})")
    snap(page, "1-bid-question")
    question.locator("button[name=bid_ok]").click()
    expect(page.locator(ROWS)).to_have_count(1)
    expect(page.locator("#bid-question")).to_have_count(0)
