"""A Thursday at the Stammtisch on a phone (390×844, German), from the group's link to the
year's PDF; every page of the group axe-clean, its text at 200 % without sideways
scrolling, and the year readable without a connection.

Screenshots go to test-artifacts/screens/st-*.png for a human to look at.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer.extensions import db
from tests.e2e.conftest import LiveServer, enlarge_text, fits_width, no_axe_violations
from tests.e2e.test_app_shell import WITH_WORKER, back_online, worker_ready
from tests.e2e.test_flows import fill_hand
from tests.stammtisch_builders import a_group, played_year

pytestmark = pytest.mark.e2e

Shot = Callable[[Any, str], Path]
ROWS = "#sheet tbody tr[id^=hand-]"


def a_year(live: LiveServer, money: str = "pay") -> tuple[str, str]:
    """A group of four with two Thursdays played; its link and its twin's."""
    with live.app.app_context():
        group = a_group(money=money, target=500)
        played_year(group, evenings=2, matches=2, start=date(2025, 1, 2))
        found = (group.token, group.view_token)
        db.session.remove()
    return found


def settled(page: Page) -> None:
    """Nothing on its way: htmx's answers are in."""
    page.wait_for_load_state("networkidle")
    expect(page.locator(".htmx-request")).to_have_count(0)


def looked_at(page: Page, shot: Shot, name: str) -> None:
    settled(page)
    shot(page, f"st-{name}")
    no_axe_violations(page, name)
    assert fits_width(page), f"{name}: sideways scrolling"


def test_a_thursday_from_the_groups_link_to_the_years_pdf(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    token, _ = a_year(live_server)
    page = make_page()
    # a member opens the link he was sent: the group is on his phone from now on
    page.goto(f"/st/{token}")
    expect(page.locator("#ranking li.st-line")).to_have_count(4)
    looked_at(page, shot, "year")
    page.goto("/")
    group = page.locator("#my-stammtische a", has_text="Stammtisch Krone")
    expect(group).to_be_visible()
    group.click()
    page.wait_for_url(f"**/st/{token}")
    # tonight: Anna, Bert and Carla, Dieter stays at home, Gustav sits in
    page.locator("#start-evening").click()
    page.wait_for_url("**/evening/new")
    looked_at(page, shot, "evening-form")
    dieter = page.locator("li.st-seat", has_text="Dieter").locator("input[type=checkbox]")
    dieter.uncheck()
    page.locator("#guests-0-name").fill("Gustav")
    page.locator("#start-evening-button").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    expect(page.locator("#progress")).to_contain_text("Gustav")
    # two made games of Anna end the match at 500
    for rows in (1, 2):
        fill_hand(
            page, declarer=0, bid=200, trump="H", melds={0: 100}, tricks={0: 150, 1: 40, 2: 30}
        )
        page.locator("#hand-form button[type=submit]").click()
        expect(page.locator(ROWS)).to_have_count(rows)
    expect(page.locator("#progress")).to_contain_text("gewinnt")
    page.locator("#stammtisch-link").click()
    page.wait_for_url(re.compile(r"/st/[\w-]+/evening/3$"))
    looked_at(page, shot, "evening")
    pay = page.locator("#night-transfers form.st-tap button").first
    expect(pay).to_be_visible()
    count = page.locator("#night-transfers form.st-tap").count()
    pay.click()
    expect(page.locator("#night-transfers form.st-tap")).to_have_count(count - 1)
    expect(page.locator("#night-transfers .st-paid")).to_have_count(1)
    # the year's money, explained
    page.locator(".st-nav a", has_text="Geld").click()
    page.wait_for_url("**/money")
    page.locator("#accounts details").first.locator("summary").click()
    expect(page.locator("#accounts .st-said").first).to_contain_text("Punkte Rückstand auf")
    looked_at(page, shot, "money")
    # and the year's sheet
    page.locator(".st-nav a", has_text="Jahr").click()
    page.wait_for_url(f"**/st/{token}")
    expect(page.locator("#evenings li")).to_have_count(3)
    href = page.locator("#year-pdf").get_attribute("href")
    assert href
    pdf = page.request.get(href)
    assert pdf.ok and pdf.headers["content-type"] == "application/pdf"
    assert pdf.body().startswith(b"%PDF")


def test_every_page_of_the_group_is_axe_clean(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    token, view = a_year(live_server, money="kitty")
    page = make_page()
    for path, name in (
        (f"/st/{token}/money", "kitty"),
        (f"/st/{token}/members", "members"),
        (f"/st/{token}/settings", "settings"),
        ("/st/new", "new"),
        ("/st/restore", "restore"),
        (f"/sv/{view}", "twin"),
        (f"/sv/{view}/year/1/money", "twin-money"),
        (f"/sv/{view}/evening/1", "twin-evening"),
    ):
        page.goto(path)
        looked_at(page, shot, name)
    page.goto(f"/st/{token}/settings")
    page.locator("details.house-rules > summary").click()
    settled(page)
    no_axe_violations(page, "settings with the house rules open")


@pytest.mark.parametrize(
    "path", ["", "/money", "/evening/1", "/evening/new", "/members", "/settings"]
)
def test_the_groups_pages_at_200_percent_text(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot, path: str
) -> None:
    token, _ = a_year(live_server)
    page = make_page()
    page.goto(f"/st/{token}{path}")
    settled(page)
    enlarge_text(page)
    shot(page, "st-200" + (path.replace("/", "-") or "-year"))
    assert fits_width(page), f"{path}: sideways scrolling at 200 % text"


def test_the_year_opens_without_a_connection(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    token, _ = a_year(live_server)
    page = make_page(**WITH_WORKER)
    page.goto(f"/st/{token}")
    worker_ready(page)
    page.goto(f"/st/{token}/money")
    worker_ready(page)
    live_server.offline(page)
    page.goto(f"/st/{token}")
    expect(page.locator("#offline-note")).to_be_visible()
    expect(page.locator("#ranking li.st-line")).to_have_count(4)
    shot(page, "st-offline-year")
    page.goto(f"/st/{token}/money")
    expect(page.locator("#offline-note")).to_be_visible()
    expect(page.locator("#open")).to_be_visible()
    back_online(page, live_server)
