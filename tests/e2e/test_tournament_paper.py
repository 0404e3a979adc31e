"""The organiser prints the evening's paper from a phone (390 × 844): every printout's link.

The tournament is made through the services (its clicks are covered by
``test_tournament.py``): 12 players at 4 tables, one round typed from paper
slips and closed, money prizes set.  From the organiser's home, the round's
page and the prizes page the test taps each printout's link — ranking,
certificates, table cards, paper slips, prize list — as a user would.  The
PDFs are sent inline (``Content-Disposition: inline``): a tap opens the PDF in
the same tab (the phone's PDF viewer), no download; the test reads the
response the tap navigated to with pypdf, counts its pages, and goes back.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from playwright.sync_api import Page
from pypdf import PdfReader

from scorer.extensions import db
from scorer.services.tournaments import board, money, rounds
from tests.e2e.conftest import LiveServer
from tests.tournament_builders import drawn, tournament_with

pytestmark = pytest.mark.e2e


def an_evening(live: LiveServer) -> str:
    """12 players, one round of 4 tables typed from paper (number n: n × 10 points), closed."""
    with live.app.app_context():
        tournament = tournament_with(12, rounds_=1)
        tournament.entry_fee_cents = 1000
        db.session.commit()
        shares = (Decimal("0.5"), Decimal("0.3"), Decimal("0.2"))
        money.update_prizes(tournament, money.PrizeSettings(shares=shares, joke="Trostpreis"))
        row = drawn(tournament, 1)
        numbers = {e.id: e.number or 0 for e in tournament.entrants}
        for table in row.tables:
            board.set_paper(tournament, table, {p: (numbers[p] * 10, 0) for p in table.players})
        rounds.close_round(tournament, row)
        return str(tournament.token)


def downloaded(page: Page, selector: str) -> PdfReader:
    """Tap the link ``selector``: the tab opens the PDF; read it and go back."""
    back = page.url
    href = page.locator(selector).get_attribute("href") or ""
    assert href.split("?")[0].endswith(".pdf")
    with page.expect_response(lambda r: r.url.split("?")[0].endswith(".pdf")) as info:
        page.locator(selector).click()
    response = info.value
    assert response.status == 200 and response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"].startswith("inline;")
    # the tab shows Chromium's PDF viewer (its body is the viewer's page): the file's
    # bytes come from the same address with the same cookies
    data = page.context.request.get(response.url).body()
    assert data.startswith(b"%PDF"), data[:100]
    page.wait_for_url("**/*.pdf*")
    page.goto(back)
    return PdfReader(io.BytesIO(data))


def text_of(reader: PdfReader) -> str:
    return " ".join(" ".join(p.extract_text() or "" for p in reader.pages).split())


def test_the_organiser_taps_every_printout(
    live_server: LiveServer, make_page: Callable[..., Any]
) -> None:
    token = an_evening(live_server)
    page = make_page(accept_downloads=True)
    page.goto(live_server.path(f"/t/{token}?lang=en"))
    ranking = downloaded(page, "#ranking-pdf")
    assert len(ranking.pages) == 1 and "Final ranking" in text_of(ranking)
    certificates = downloaded(page, "#certificates-pdf")
    assert len(certificates.pages) == 3  # places 1-3, no ties
    cards = downloaded(page, "#all-cards-pdf")
    assert len(cards.pages) == 1  # 4 tables, four cards to a page
    prizes = downloaded(page, "#prize-list-pdf")
    assert len(prizes.pages) == 1
    text = text_of(prizes)
    # 12 × 10 € = 120 €: 60, 36, 24 € to start numbers 12, 11 and 10
    assert "1. 12 Liesl 120 €60.00" in text and "3. 10 " in text and "€24.00" in text
    assert "Trostpreis" in text

    page.goto(live_server.path(f"/t/{token}/rounds/1?lang=en"))
    assert len(downloaded(page, "#cards-pdf").pages) == 1
    slips = downloaded(page, "#slips-pdf")
    assert len(slips.pages) == 4  # a slip per table

    page.goto(live_server.path(f"/t/{token}/prizes?lang=en"))
    again = downloaded(page, "#prize-list-pdf")
    assert len(again.pages) == 1 and "€36.00" in text_of(again)
