"""Quick taps on a slow connection: every tap is written and shown, none twice.

A trump tap and a meld tap right after it: static/taps.js sends them one after the
other (the meld with the version the trump's answer left), each answer goes into
``#match``, and no answer is swapped in while a finger is down on the page (it would
replace the button under the finger, and the browser would send no click).
More in tests/e2e/test_taps.py.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_flows import press_start, start_match

pytestmark = pytest.mark.e2e


def slow_connection(page: Page) -> None:
    """400 ms each way, 50 kB/s: a pub at the edge of the village."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": 400,
            "downloadThroughput": 50 * 1024,
            "uploadThroughput": 50 * 1024,
        },
    )


def test_a_meld_tapped_while_the_trump_is_on_its_way(page: Page) -> None:
    start_match(page, ["Anna", "Bert"], preset="schweizer")
    press_start(page)
    slow_connection(page)
    # trump, then at once the family (worth 150 only in trump): no waiting in between
    page.locator("#trump-set label:has(input[value='H'])").click()
    page.locator("#meld-form button[name=meld][value='family H']").click()
    expect(page.locator(".meld-log li")).to_have_count(1)
    expect(page.locator(".meld-log li")).to_contain_text("150")
    expect(page.locator("#trump-set input[value='H']")).to_be_checked()
    # and then two different melds in quick succession: both are written, once each
    page.locator("#meld-form button[name=meld][value='four A']").click()
    page.locator("#meld-form button[name=meld][value='four K']").click()
    expect(page.locator(".meld-log li")).to_have_count(3)
    expect(page.locator("#party-set")).to_contain_text("330")
