"""The paper trail in a browser: a finished session, its PDF, the stake and who pays whom."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer.extensions import db
from scorer.services import HandInput
from tests.builders import service_match, session_token_of
from tests.e2e.conftest import LiveServer, fits_width

pytestmark = pytest.mark.e2e

NAMES = ["Anna", "Bernd", "Jürgen"]


def test_finish_a_session_download_the_pdf_and_settle_the_stakes(
    page: Page, live_server: LiveServer, shot: Any, tmp_path: Path
) -> None:
    app = live_server.app
    hands = [
        HandInput(declarer=1, bid=150, trump="G", melds=[0, 100, 20], tricks=[60, 130, 60]),
        HandInput(declarer=0, outcome="durch", won=True),
    ]
    token = service_match(app, NAMES, hands, stake_cents=10, title="Stammtisch")
    session = session_token_of(app, token)
    service_match(
        app, NAMES, [HandInput(declarer=2, outcome="durch", won=True)], session_token=session
    )
    with app.app_context():
        db.session.remove()

    page.goto(f"/m/{token}")
    with page.expect_download() as info:
        page.locator("#sheet-csv").click()
    # named in the phone's language (issue 34 §7: "…-match-1.csv" in German)
    assert info.value.suggested_filename == "binokel-stammtisch-partie-1.csv"
    pdf = page.request.get(page.locator("#sheet-pdf").get_attribute("href") or "")
    assert pdf.ok and pdf.headers["content-type"] == "application/pdf"
    path = tmp_path / "sheet.pdf"
    path.write_bytes(pdf.body())
    text = subprocess.run(
        ["pdftotext", str(path), "-"], capture_output=True, check=True, text=True
    ).stdout
    assert "Jürgen" in text and "1.060" in text

    page.locator("#session-link").click()
    expect(page.locator("#transfers")).to_contain_text("Bernd")
    expect(page.locator("#transfers")).to_contain_text("0,70 €")
    assert fits_width(page)
    page.fill("#stake", "0,50")
    page.select_option("#stake_basis", "per_game")
    page.locator("#stake-form button[type=submit]").click()
    # per lost match: Bernd loses twice, Anna and Jürgen win one and lose one
    expect(page.locator("#transfers li")).to_have_count(2)
    expect(page.locator("#transfers li").first).to_contain_text("Bernd")
    expect(page.locator("#transfers li").first).to_contain_text("Anna")
    expect(page.locator("#transfers li").first).to_contain_text("0,50 €")
    expect(page.locator("#stake-text")).to_contain_text("0,50 €")
    shot(page, "paper-trail-session")
