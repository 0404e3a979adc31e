"""The organiser changes the settings after round 1 is drawn, on a phone (390 × 844, German).

The page shows the deals and the rules read-only (they stand since the draw); the name,
the place, the date, the rounds, the money and the address are changed and saved with
the page's own form, as the organiser taps it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer.extensions import db
from scorer.services.tournaments import setup
from tests.e2e.conftest import LiveServer, fits_width, no_axe_violations
from tests.tournament_builders import drawn, tournament_with

pytestmark = pytest.mark.e2e


def test_after_the_draw_the_settings_are_changed_and_saved(
    live_server: LiveServer, page: Page, shot: Callable[[Any, str], Path]
) -> None:
    with live_server.app.app_context():
        tournament = tournament_with(6, rounds_=3, deals=12)
        drawn(tournament)
        token = tournament.token
    page.goto(f"/t/{token}")
    page.locator(f"a[href='/t/{token}/settings']").first.click()
    expect(page.locator("h1")).to_have_text("Einstellungen")
    deals = page.locator("#deals")
    expect(deals).to_have_value("12")
    expect(deals).to_have_attribute("readonly", "")
    expect(page.locator("#rules-locked")).to_be_visible()
    assert fits_width(page)
    no_axe_violations(page, "settings after the draw")
    shot(page, "t34-settings-after-draw")

    page.locator("#name").fill("Herbstturnier der Feuerwehr")
    page.locator("#place").fill("Musterhausen, Festhalle")
    page.locator("#rounds").fill("4")
    page.locator("#entry_fee").fill("8,50")
    page.locator("#fee_schedule").fill("0,50; 1,00 ab 4")
    page.locator("#public_url").fill("http://192.168.4.1:5000")
    page.locator("#tie_break-ordered").check()
    save = page.get_by_role("button", name="Speichern")
    save.scroll_into_view_if_needed()
    box = save.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844
    save.click()

    page.wait_for_url(f"**/t/{token}")
    expect(page.locator(".flash-ok")).to_have_text("Die Einstellungen sind gespeichert.")
    expect(page.locator("h1")).to_contain_text("Herbstturnier der Feuerwehr")
    with live_server.app.app_context():
        row = setup.get_tournament(token)
        db.session.refresh(row)
        assert (row.name, row.place, row.rounds) == (
            "Herbstturnier der Feuerwehr",
            "Musterhausen, Festhalle",
            4,
        )
        assert (row.entry_fee_cents, row.fee_schedule, row.tie_break) == (
            850,
            "0.50; 1.00 from 4",
            True,
        )
        assert row.public_url == "http://192.168.4.1:5000"
        assert setup.ruleset_of(row).deals == 12
    shot(page, "t34-settings-saved")
