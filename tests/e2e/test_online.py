"""The tournament online in the browser: the hosted page at phone size and on a 1920×1080 screen.

The live server is the hosted copy; the hall is an app of its own in this
process (SQLite), whose pusher sends over ``tests.online_builders.Wire``.  The
page shows the hall's ranking with "Stand … aus der Halle", turns into the next
state by itself after the hall sends one, and reads on the beamer as on the hall's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from scorer.extensions import db
from scorer.services.online.hall import Pusher, links
from scorer.services.tournaments import setup
from tests.e2e.conftest import LiveServer, fits_width
from tests.online_builders import Wire, make_hall, make_page
from tests.tournament_builders import drawn, play_round, play_table, tournament_with

pytestmark = pytest.mark.e2e


def hall_with_page(tmp_path: Path, live_server: LiveServer) -> tuple[Any, str, str, Wire]:
    hall = make_hall(tmp_path / "hall")
    with hall.app_context():
        tournament = tournament_with(10, deals=3)
        play_round(drawn(tournament), hands=1)
        token = tournament.token
        db.session.remove()
    line, public = make_page(live_server.app)
    assert hall.test_client().post(f"/t/{token}/online", data={"line": line}).status_code == 303
    return hall, token, public, Wire(live_server.app)


def push(hall: Any, wire: Wire) -> list[str]:
    with hall.app_context():
        pusher = Pusher(post=wire)
        done = [pusher.push(row) for row in links()]
        db.session.remove()
    return done


def test_the_hosted_page_on_a_phone_follows_the_hall(
    tmp_path: Path, live_server: LiveServer, page: Any, shot: Any
) -> None:
    hall, token, public, wire = hall_with_page(tmp_path, live_server)
    assert push(hall, wire) == ["sent"]
    page.goto(f"/o/{public}")
    expect(page.locator("#hall-clock")).to_contain_text("aus der Halle")
    expect(page.locator("table.pub-ranking tbody tr")).to_have_count(10)
    assert fits_width(page)
    shot(page, "online-phone")
    first = page.locator("table.pub-ranking tbody tr").first.inner_text()
    with hall.app_context():
        tables = setup.get_tournament(token).round_rows[0].tables
        for table in tables:
            play_table(table, 1)
        db.session.remove()
    assert push(hall, wire) == ["sent"]
    # the page asks again every few seconds and shows the new state by itself
    expect(page.locator("table.pub-ranking tbody tr").first).not_to_have_text(
        re.compile("^" + re.escape(first) + "$"), timeout=10_000
    )
    page.get_by_role("link", name="Wo sitze ich?").click()
    expect(page.locator("#by-name")).to_be_visible()
    page.get_by_role("link", name="Preise").click()
    expect(page.locator("#prize-list")).to_be_visible()
    shot(page, "online-phone-prizes")


def test_the_hosted_page_on_the_beamer(
    tmp_path: Path, live_server: LiveServer, make_page: Any, shot: Any
) -> None:
    hall, _, public, wire = hall_with_page(tmp_path, live_server)
    push(hall, wire)
    beamer = make_page(viewport={"width": 1920, "height": 1080}, is_mobile=False, has_touch=False)
    beamer.goto(f"/o/{public}")
    expect(beamer.locator("#live[data-beamer]")).to_be_attached()  # asked what fits the screen
    expect(beamer.locator("#hall-clock")).to_be_visible()
    expect(beamer.locator(".pub-tables li").first).to_be_visible()  # the tables still playing
    shot(beamer, "online-beamer")
