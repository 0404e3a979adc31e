"""The organiser prints the evening's paper from a phone (390 × 844): every printout's link.

The tournament is made through the services (its clicks are covered by
``test_tournament.py``): 12 players at 4 tables, one round typed from paper
slips and closed, money prizes set.  From the organiser's home, the round's
page and the prizes page the test taps each printout's link — ranking,
certificates, table cards, paper slips, prize list — as a user would.  The
PDFs are sent inline (``Content-Disposition: inline``): a tap opens the PDF in
the same tab (the phone's PDF viewer), no download; the test reads the
response the tap navigated to with pypdf, counts its pages, and goes back.

The server runs as a hall does, its round's paper made ahead by the job queue's
worker (the test runs the queue itself, as ``python -m scorer.worker`` would): a tap
while the worker has not made the table cards yet shows the "being prepared" page,
which reloads itself and shows the PDF once the worker has made it.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page
from pypdf import PdfReader

from scorer.extensions import db
from scorer.jobs import jobs
from scorer.services.tournaments import board, money, rounds
from scorer.views.tournaments import printouts
from tests.builders import make_app, run_jobs
from tests.e2e.conftest import LiveServer, start_server, stop_server
from tests.tournament_builders import drawn, tournament_with

pytestmark = pytest.mark.e2e

PATIENCE_MS = 120_000
"""How long the "being prepared" page may take to turn into the PDF before the test fails."""


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """The hall's server with its worker alive (the test runs the worker's queue)."""
    app = make_app(
        tmp_path,
        WTF_CSRF_ENABLED=True,
        PDF_AHEAD=True,
        JOB_ALIVE=3600,
        PDF_CACHE_DIR=str(tmp_path / "pdf-cache"),
    )
    jobs(app).beat()
    live = start_server(app)
    yield live
    stop_server(live)


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


def test_a_tap_before_the_worker_made_the_cards_waits_for_them(
    live_server: LiveServer,
    make_page: Callable[..., Any],
    shot: Callable[[Any, str], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(printouts, "INLINE_SECONDS", 0.0)  # four tables count as a hall's
    app = live_server.app
    with app.app_context():
        token = str(tournament_with(12, rounds_=2).token)
    page = make_page()
    page.goto(live_server.path(f"/t/{token}/board"))
    page.locator("#draw-form button[type=submit]").click()  # the draw: one job queued
    page.wait_for_url(f"**/t/{token}/rounds/1")
    assert jobs(app).waiting() == 1
    with page.expect_response(lambda r: r.url.split("?")[0].endswith("cards.pdf")) as first:
        page.locator("#cards-pdf").click()
    assert first.value.status == 202
    prepared = page.locator("#being-prepared")
    assert "Wird vorbereitet: fertig in etwa" in prepared.inner_text()
    assert "Diese Seite lädt sich selbst neu" in prepared.inner_text()
    shot(page, "paper-being-prepared")
    assert jobs(app).waiting() == 1  # the tap found the draw's job: not a second one
    # the worker makes them; the page asks again by itself and gets the PDF
    # (the renders take what they take on a busy machine: a bound, not a timing)
    with page.expect_response(
        lambda r: r.url.split("?")[0].endswith("cards.pdf") and r.status == 200,
        timeout=PATIENCE_MS,
    ) as ready:
        assert run_jobs(app) == 1
    response = ready.value
    assert response.headers["content-type"] == "application/pdf"
    data = page.context.request.get(response.url).body()
    assert len(PdfReader(io.BytesIO(data)).pages) == 1  # four tables, four cards to a page
