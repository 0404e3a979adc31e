"""Every tournament page usable by every player (issue 30): axe-core finds nothing on the
organiser's pages, the board, the beamer and the players' pages, at phone size in German
(the beamer at 1920×1080); the players' pages keep their content at 200 % text.

Screenshots go to test-artifacts/screens/t-axe-*.png for a human to look at.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer.extensions import db
from tests.e2e.conftest import (
    SCREENS,
    LiveServer,
    enlarge_text,
    fits_width,
    no_axe_violations,
)
from tests.tournament_builders import (
    HALL_NAMES,
    signed_and_paper_round,
)

pytestmark = pytest.mark.e2e

Shot = Callable[[Any, str], Path]
BEAMER = {"width": 1920, "height": 1080}
NAMES = HALL_NAMES


def evening(live_server: LiveServer) -> tuple[str, str]:
    """Round 1 of nine players played out: table 1 signed, table 2 from a paper slip."""
    with live_server.app.app_context():
        tournament, _ = signed_and_paper_round(NAMES)
        found = (tournament.token, tournament.view_token)
        db.session.remove()
    return found


def settled(page: Page) -> None:
    """Nothing on its way: htmx's answers are in (the page as a player sees it)."""
    page.wait_for_load_state("networkidle")
    expect(page.locator(".htmx-request")).to_have_count(0)


def visit(page: Page, path: str, what: str, shot: Shot) -> None:
    page.goto(path)
    settled(page)
    shot(page, f"t-axe-{what}")
    no_axe_violations(page, what)


def test_no_axe_violation_on_the_organisers_pages(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    token, _ = evening(live_server)
    page = make_page()
    for path, what in (
        (f"/t/{token}", "organiser"),
        (f"/t/{token}/board", "board"),
        (f"/t/{token}/changes", "changes"),
        (f"/t/{token}/money", "money"),
        (f"/t/{token}/prizes", "prizes"),
    ):
        visit(page, path, what, shot)


def test_no_axe_violation_on_the_players_pages(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    _, view = evening(live_server)
    page = make_page()
    for path, what in (
        (f"/p/{view}", "ranking"),
        (f"/p/{view}/seats", "seating"),
        (f"/p/{view}/seats?q=mueller", "seating-search"),
        (f"/p/{view}/players/3", "player"),
        (f"/p/{view}/me", "find"),
        (f"/p/{view}/prizes", "public-prizes"),
    ):
        visit(page, path, what, shot)


def test_no_axe_violation_on_the_beamer(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    _, view = evening(live_server)
    page = make_page(viewport=BEAMER, is_mobile=False, has_touch=False)
    page.goto(f"/p/{view}")
    # the beamer's script asks for the lines that fit the screen
    expect(page.locator("#live[data-beamer]")).to_have_count(1)
    settled(page)
    expect(page.locator("#pub-legend")).to_be_visible()
    shot(page, "t-axe-beamer")
    no_axe_violations(page, "beamer")


# the Screen Wake Lock, recorded (and stood in for where the browser has none)
WAKE_LOCK_RECORDED = """
window.wakeRequests = 0;
const sentinel = {release: () => Promise.resolve(), addEventListener: () => {}};
Object.defineProperty(navigator, 'wakeLock', {configurable: true, value: {request: () => {
  window.wakeRequests += 1; return Promise.resolve(sentinel);
}}});
"""


def test_the_beamer_shows_no_phone_controls_and_a_qr_code_for_the_hall(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    """Issue 34 §7: the beamer showed the phone's "Bildschirm an" and "EN", and a QR code
    of 150 px.  At 1920×1080: no phone controls (the screen stays on by itself), and
    the code beside the ranking, 42 % of the screen's height, whole on the screen."""
    _, view = evening(live_server)
    page = make_page(viewport=BEAMER, is_mobile=False, has_touch=False)
    page.add_init_script(WAKE_LOCK_RECORDED)
    page.goto(f"/p/{view}")
    expect(page.locator("#live[data-beamer]")).to_have_count(1)
    settled(page)
    expect(page.locator(".topnav")).to_be_hidden()
    expect(page.locator("#wake")).to_be_hidden()
    expect(page.locator(".topnav a[hreflang]")).to_be_hidden()
    page.wait_for_function("() => window.wakeRequests >= 1")  # kept on without a switch
    code = page.locator("#live .pub-qr img")
    expect(code).to_be_visible()
    page.wait_for_function("() => document.querySelector('#live .pub-qr img').naturalWidth > 0")
    box = code.bounding_box()
    table = page.locator("table.pub-ranking").bounding_box()
    assert box is not None and table is not None
    assert box["height"] >= 0.4 * BEAMER["height"] and box["width"] == box["height"], box
    assert box["y"] >= 0 and box["y"] + box["height"] <= BEAMER["height"]
    assert box["x"] + box["width"] <= BEAMER["width"]
    assert table["x"] + table["width"] <= box["x"]  # beside the ranking, over none of it
    expect(page.locator("#live .pub-qr figcaption")).to_be_visible()
    shot(page, "t-beamer-hall")
    page.screenshot(path=str(SCREENS / "t-beamer-hall-screen.png"))
    no_axe_violations(page, "beamer")
    # a player's phone keeps its controls, and shows no code to itself
    phone = make_page()
    phone.goto(f"/p/{view}")
    settled(phone)
    expect(phone.locator(".topnav a[hreflang]")).to_be_visible()
    expect(phone.locator("#live .pub-qr")).to_be_hidden()
    assert fits_width(phone)


@pytest.mark.parametrize("what", ["ranking", "seats", "seats?q=7", "players/3", "me", "prizes"])
def test_the_players_pages_at_200_percent_text(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot, what: str
) -> None:
    _, view = evening(live_server)
    page = make_page()
    page.goto(f"/p/{view}/{what}".replace("/ranking", ""))
    settled(page)
    enlarge_text(page)
    name = what.replace("/", "-").replace("?q=", "-q")
    shot(page, f"t-axe-200-{name}")
    assert fits_width(page), f"{what}: sideways scrolling at 200 % text"
