"""The tournament online at 390 × 844 (German): making a page with the operator's invitation,
the hall's page saying in words why nothing got through, the organiser's start page
saying which tournaments are online.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer.extensions import db
from scorer.services.online import hall
from tests.builders import INVITATION
from tests.e2e.conftest import LiveServer, fits_width, no_axe_violations
from tests.served import free_port
from tests.tournament_builders import drawn, play_round, tournament_with

pytestmark = pytest.mark.e2e


def test_a_page_is_made_with_the_invitation_code(
    live_server: LiveServer, page: Page, shot: Callable[[Any, str], Path]
) -> None:
    page.goto("/online/new")
    expect(page.locator("label[for=invitation]")).to_have_text("Einladungscode")
    page.locator("#invitation").fill("geraten")
    page.locator("#name").fill("Herbstturnier 2026")
    page.get_by_role("button", name="Seite anlegen").click()
    error = page.locator("#invitation-err")
    expect(error).to_contain_text("Das ist kein Einladungscode dieser Seite")
    expect(page.locator("#name")).to_have_value("Herbstturnier 2026")
    box = page.locator("#invitation").bounding_box()
    assert box is not None and 0 <= box["y"] < 844
    assert fits_width(page)
    no_axe_violations(page, "online/new refused")
    shot(page, "t34-online-new-refused")

    page.locator("#invitation").fill(INVITATION)
    page.get_by_role("button", name="Seite anlegen").click()
    page.wait_for_url("**/online/a/**")
    expect(page.locator("#line")).to_have_value(
        re.compile(r"^http://127\.0\.0\.1:\d+/online/\d+#\S+$")
    )
    shot(page, "t34-online-new-made")


def test_the_hall_says_in_words_why_nothing_got_through_and_the_start_page_too(
    live_server: LiveServer, page: Page, shot: Callable[[Any, str], Path]
) -> None:
    with live_server.app.app_context():
        tournament = tournament_with(9, deals=3, name="Herbstturnier")
        play_round(drawn(tournament), hands=1)
        token = tournament.token
        other = tournament_with(9, deals=3, name="Frühjahrsturnier").token
        db.session.remove()
    page.goto(f"/t/{other}")  # another of this device's tournaments, not online
    nobody = free_port()  # nothing listens there: the connection is refused
    page.goto(f"/t/{token}")  # this device organises it (its start page lists it)
    page.goto(f"/t/{token}/online")
    page.locator("#line").fill(f"http://127.0.0.1:{nobody}/online/1#{'ab' * 32}")
    page.get_by_role("button", name="Ins Internet stellen").click()
    expect(page.locator(".flash-ok")).to_be_visible()
    with live_server.app.app_context():
        pusher = hall.Pusher()  # the real transport, as the hall's pusher process has it
        assert [pusher.push(row) for row in hall.links()] == ["unreachable"]
        db.session.remove()
    page.reload()
    trouble_line = page.locator("#online-trouble")
    expect(trouble_line).to_contain_text("die Kopie im Internet hat die Verbindung abgelehnt")
    expect(trouble_line).not_to_contain_text("Errno")
    assert fits_width(page)
    no_axe_violations(page, "results online, refused")
    shot(page, "t34-online-refused")

    page.goto("/")
    entry = page.locator("#my-tournaments li", has_text="Herbstturnier")
    expect(entry.locator(".t-online")).to_contain_text(
        "kam nicht an (die Kopie im Internet hat die Verbindung abgelehnt"
    )
    expect(page.locator("#my-tournaments li", has_text="Frühjahrsturnier")).to_contain_text(
        "Nicht im Internet"
    )
    box = entry.locator(".t-online").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert fits_width(page)
    no_axe_violations(page, "start page with a tournament online")
    shot(page, "t34-start-online")
    entry.locator(".t-online").click()
    page.wait_for_url(f"**/t/{token}/online")
