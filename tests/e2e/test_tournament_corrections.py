"""The organiser's correction on a phone (390 × 844, German), with and without JavaScript:
saved, the browser is on the board's own address (redirect after POST), so a reload
shows the board again and sends nothing twice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from scorer import services
from scorer.extensions import db
from tests.e2e.conftest import LiveServer
from tests.tournament_builders import drawn, play_round, tournament_with

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("script", [True, False], ids=["htmx", "no-javascript"])
def test_a_saved_correction_lands_on_the_boards_own_address(
    live_server: LiveServer, make_page: Callable[..., Any], script: bool
) -> None:
    with live_server.app.app_context():
        tournament = tournament_with(9, deals=3)
        row = drawn(tournament)
        play_round(row, hands=1)
        token, table_id, match = tournament.token, row.tables[0].id, row.tables[0].match.token
        db.session.remove()
    page = make_page(java_script_enabled=script)
    posts: list[str] = []
    page.on(
        "request",
        lambda r: posts.append(r.url) if r.method == "POST" and "/tables/" in r.url else None,
    )
    page.goto(f"/t/{token}/tables/{table_id}/hands/1/edit")
    page.locator("#bid").fill("160")
    page.get_by_role("button", name="Korrektur speichern").click()
    page.wait_for_url(f"**/t/{token}/board")
    expect(page.locator("#t-board")).to_be_visible()
    page.reload()
    expect(page.locator("#t-board")).to_be_visible()
    assert page.url.endswith(f"/t/{token}/board")
    assert len(posts) == 1  # the reload sent nothing again
    with live_server.app.app_context():
        assert services.live_hands(services.get_match(match))[0].bid == 160
        db.session.remove()
