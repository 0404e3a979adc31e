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

from tests.builders import INVITATION
from tests.e2e.conftest import LiveServer, fits_width, no_axe_violations

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
