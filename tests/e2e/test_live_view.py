"""The read-only link in a browser: the share section, and a spectator page following the match."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer import services
from scorer.extensions import db
from scorer.models import Match
from scorer.rules import PRESETS
from tests.e2e.conftest import LiveServer, fits_width
from tests.e2e.test_offline import fill_hand, snapshot

pytestmark = pytest.mark.e2e

ROWS = "#sheet tbody tr[id^=hand-]"


def new_match(live: LiveServer) -> tuple[str, str]:
    with live.app.app_context():
        match: Match = services.start_match(
            names=["Anna", "Berta", "Carl"], ruleset=PRESETS["standard"], title="Stammtisch"
        )
        tokens = (match.token, match.view_token)
        db.session.remove()
    return tokens


def test_the_share_section_shows_the_qr_code_and_the_read_only_link(
    page: Page, live_server: LiveServer
) -> None:
    token, view = new_match(live_server)
    page.goto(f"/m/{token}")
    page.locator("#share summary").click()
    qr = page.locator("#share img.qr")
    expect(qr).to_be_visible()
    # the picture is loaded lazily, once the section is open
    page.wait_for_function("() => document.querySelector('#share img.qr').naturalWidth > 100")
    expect(page.locator("#share-url")).to_have_value(live_server.url + f"/v/{view}")
    assert fits_width(page)
    snapshot(page, "share-section")


def test_a_spectator_sees_each_hand_within_seconds(
    make_page: Callable[..., Any], live_server: LiveServer
) -> None:
    token, view = new_match(live_server)
    spectator = make_page()
    polls: list[int] = []
    spectator.on(
        "response",
        lambda r: polls.append(r.status) if f"/v/{view}/sheet" in r.url else None,
    )
    spectator.goto(f"/v/{view}")
    expect(spectator.locator(ROWS)).to_have_count(0)
    assert spectator.locator("form").count() == 0

    schreiber = make_page()
    schreiber.goto(f"/m/{token}")
    fill_hand(schreiber)
    schreiber.locator("#hand-form button[type=submit]").click()
    expect(schreiber.locator(ROWS)).to_have_count(1)

    # no reload: the page asks every 3 s and swaps the new sheet in
    expect(spectator.locator(ROWS)).to_have_count(1)
    expect(spectator.locator("#progress")).to_contain_text("(−600)")
    seen = len(polls)
    for _ in range(2):  # two more polls with nothing new (however slow the answers are)
        with spectator.expect_response(lambda r: f"/v/{view}/sheet" in r.url):
            pass
    # the page's polls say what it shows: unchanged, the answer is 204 (or 304) and no body
    assert 200 in polls[:seen], polls
    assert len(polls) >= seen + 2 and set(polls[seen:]) <= {204, 304}, polls
    expect(spectator.locator(ROWS)).to_have_count(1)
    assert fits_width(spectator)
    snapshot(spectator, "live-view")
