"""The organiser makes a series of "Binokel-Cup Abend 1" on a phone (390 × 844, German): it is
offered as the "Binokel-Cup", the next evening is "Binokel-Cup · 2. Abend"."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import LiveServer, fits_width, no_axe_violations
from tests.tournament_builders import tournament_with

pytestmark = pytest.mark.e2e


def test_a_series_is_named_without_the_evenings_number(
    live_server: LiveServer, page: Page, shot: Callable[[Any, str], Path]
) -> None:
    with live_server.app.app_context():
        token = tournament_with(6, name="Binokel-Cup Abend 1").token
    page.goto(f"/t/{token}")
    name = page.locator("#series-name")
    name.scroll_into_view_if_needed()
    expect(name).to_have_value("Binokel-Cup")
    expect(page.locator("#series-name-help")).to_contain_text("„Binokel-Cup · 2. Abend“")
    assert fits_width(page)
    no_axe_violations(page, "organiser home with the series' name")
    shot(page, "t34-series-name")

    # emptied by mistake: the form on a page of its own says so, the rest as it was
    name.fill("")
    page.locator("#make-series button[type=submit]").click()
    expect(page.locator("#name-err")).to_contain_text("Dieses Feld wird benötigt")
    page.locator("#name").fill("Binokel-Cup")
    page.locator("#make-series button[type=submit]").click()
    page.wait_for_url(re.compile(r"/cup/[\w-]+$"))
    expect(page.locator("h1")).to_have_text("Binokel-Cup")

    page.locator("#new-evening button[type=submit]").click()
    expect(page.locator("h1")).to_contain_text("Binokel-Cup · 2. Abend")
