"""The table, the board and the public pages in the browser (issue 30), at 390×844 in
German: a result changed after its players signed it is marked until they confirm
again; "Wo sitze ich?" is searched as a player at the door types; the ranking marks
a round from a paper slip and says what "VS" means.

Screenshots go to test-artifacts/screens/t-marks-*.png for a human to look at.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer.extensions import db
from tests.e2e.conftest import LiveServer, no_axe_violations
from tests.e2e.test_tournament_axe import BEAMER, NAMES, settled
from tests.tournament_builders import signed_and_paper_round

pytestmark = pytest.mark.e2e

Shot = Callable[[Any, str], Path]
SAVE = "#hand-form .actions button[type=submit]"
CHANGED = "nach der Unterschrift geändert: neu bestätigen"


def signed_round(live_server: LiveServer) -> dict[str, Any]:
    """Round 1 of nine played out; table 1 signed by its three players, table 2 on paper."""
    with live_server.app.app_context():
        tournament, row = signed_and_paper_round(NAMES)
        first = row.tables[0]
        found = {
            "token": tournament.token,
            "view": tournament.view_token,
            "table": first.id,
            "match": first.match.token,
        }
        db.session.remove()
    return found


def test_a_correction_after_signing_marks_the_table_until_it_confirms_again(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    world = signed_round(live_server)
    token = world["token"]
    organiser = make_page()
    organiser.goto(f"/t/{token}/board")
    expect(organiser.locator("#board-table-1 .t-chip")).to_have_text("unterschrieben")

    # the organiser corrects deal 1 of the signed table
    organiser.goto(f"/t/{token}/tables/{world['table']}/hands/1/edit")
    bid = organiser.locator("#bid")
    bid.fill(str(int(bid.input_value()) + 10))
    bid.blur()
    settled(organiser)
    organiser.locator(SAVE).click()
    organiser.wait_for_url(f"**/t/{token}/board")
    expect(organiser.locator("#board-changed-1")).to_have_text(CHANGED)
    expect(organiser.locator("#board-table-1 .is-stale")).to_have_count(3)
    settled(organiser)
    shot(organiser, "t-marks-board-changed")
    no_axe_violations(organiser, "board with a changed table")
    organiser.goto(f"/t/{token}/changes")
    expect(organiser.locator("#changes-reconfirm")).to_contain_text("Runde 1 · Tisch 1")
    expect(organiser.locator(".t-change .t-changed").first).to_have_text(CHANGED)
    shot(organiser, "t-marks-changes")
    no_axe_violations(organiser, "change list with a changed table")

    # the table's phone asks each player to confirm again
    phone = make_page()
    phone.goto(f"/m/{world['match']}")
    expect(phone.locator("#table-changed")).to_contain_text("nach der Bestätigung geändert")
    expect(phone.locator(".table-result .again")).to_have_count(3)
    phone.locator("#table-result").scroll_into_view_if_needed()
    shot(phone, "t-marks-phone-confirm-again")
    no_axe_violations(phone, "table phone asking to confirm again")
    for seat in range(3):
        phone.locator(f"#confirm-{seat}").click()
        expect(phone.locator(f"#confirm-row-{seat} .confirmed")).to_be_visible()
    expect(phone.locator("#table-signed")).to_be_visible()
    expect(phone.locator("#table-changed")).to_have_count(0)

    organiser.goto(f"/t/{token}/board")
    expect(organiser.locator("#board-table-1 .t-chip")).to_have_text("unterschrieben")
    expect(organiser.locator("#board-changed-1")).to_have_count(0)


def test_the_seating_follows_what_is_typed(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    world = signed_round(live_server)
    page: Page = make_page()
    page.goto(f"/p/{world['view']}/seats")
    rows = page.locator("#by-name tbody tr")
    expect(rows).to_have_count(len(NAMES))
    page.locator("#seat-q").press_sequentially("mue")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Jörg Müller")
    expect(page.locator("#pub-found")).to_contain_text("1 Spieler gefunden für „mue“")
    # the address says what was searched: a reload shows the same
    expect(page).to_have_url(f"{live_server.url}/p/{world['view']}/seats?q=mue")
    settled(page)
    shot(page, "t-marks-seating-search")
    page.locator("#seat-q").fill("7")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Resi Strauß")
    no_axe_violations(page, "seating searched")


def test_the_seating_search_works_without_javascript(
    make_page: Callable[..., Any], live_server: LiveServer
) -> None:
    world = signed_round(live_server)
    page: Page = make_page(java_script_enabled=False)
    page.goto(f"/p/{world['view']}/seats")
    page.locator("#seat-q").fill("OEZTUERK")
    page.locator(".pub-search button[type=submit]").click()
    page.wait_for_url("**/seats?q=OEZTUERK*")
    rows = page.locator("#by-name tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Ümit Öztürk")
    expect(page.locator("#seat-q")).to_have_value("OEZTUERK")


def test_the_beamer_marks_a_paper_round_and_explains_vs(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    world = signed_round(live_server)
    page = make_page(viewport=BEAMER, is_mobile=False, has_touch=False)
    page.goto(f"/p/{world['view']}")
    expect(page.locator("#live[data-beamer]")).to_have_count(1)
    legend = page.locator("#pub-legend")
    expect(legend).to_be_visible()
    expect(legend).to_contain_text("VS = Verlustspiele")
    expect(legend).to_contain_text("✎ = Runde vom Papierzettel")
    expect(page.locator("table[data-ranking] td.round .pub-paper")).to_have_count(3)
    settled(page)
    shot(page, "t-marks-beamer")
