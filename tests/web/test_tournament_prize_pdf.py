"""The prize list as a PDF (``/t/<token>/prizes.pdf``), read back with pypdf.

Money prizes with a three-way tie sharing the prizes of places 3-5 to the cent,
item prizes picked in ranking order, the joke prize, no prizes set, English
and German; the links from the organiser's home and the prizes page; and the
page counts of the other printouts for a round of 20 tables.
"""

from __future__ import annotations

import io
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from pypdf import PdfReader

from scorer.extensions import db
from scorer.services.tournaments import board, money, rounds, setup
from tests.tournament_builders import drawn, play_round, tournament_with


@pytest.fixture
def app_config(tmp_path: Path) -> dict[str, Any]:
    """The PDF cache and the render slots in the test's own folder."""
    return {
        "PDF_CACHE_DIR": str(tmp_path / "pdf-cache"),
        "WORK_SLOT_DIR": str(tmp_path / "work-slots"),
        "WORK_SLOT_WAIT": 0.2,
        "PUBLIC_URL": "http://192.168.4.1:5000",
    }


def pdf_of(client: FlaskClient, url: str) -> PdfReader:
    response = client.get(url)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "application/pdf"
    assert response.data.startswith(b"%PDF")
    return PdfReader(io.BytesIO(response.data))


def text_of(reader: PdfReader) -> str:
    return " ".join(" ".join(page.extract_text() or "" for page in reader.pages).split())


def tied_evening(app: Flask, settings: money.PrizeSettings, close: bool = True) -> str:
    """Six players, one round typed from paper: Anna 500, Bertl 400, Christa, Done and Egon
    300 each (places 3-5), Frieda 100; an entry fee of 10.01 € (a fund of 60.06 €)."""
    with app.app_context():
        tournament = tournament_with(["Anna", "Bertl", "Christa", "Done", "Egon", "Frieda"])
        tournament.tie_break = False
        tournament.rounds = 1
        tournament.entry_fee_cents = 1001
        tournament.fee_schedule = "0.50"
        db.session.commit()
        money.update_prizes(tournament, settings)
        row = drawn(tournament, 1)
        scores = {1: 500, 2: 400, 3: 300, 4: 300, 5: 300, 6: 100}
        numbers = {e.id: e.number for e in tournament.entrants}
        for table in row.tables:
            board.set_paper(
                tournament, table, {p: (scores[numbers[p] or 0], 0) for p in table.players}
            )
        if close:
            rounds.close_round(tournament, row)
        return str(tournament.token)


SHARES = tuple(Decimal(s) for s in ("0.40", "0.30", "0.20", "0.10"))


def test_money_prizes_with_a_tie_sharing_the_prizes_of_its_places(
    app: Flask, client: FlaskClient
) -> None:
    token = tied_evening(app, money.PrizeSettings(shares=SHARES, joke="Ein Kartenspiel"))
    reader = pdf_of(client, f"/t/{token}/prizes.pdf?lang=en")
    assert len(reader.pages) == 1
    text = text_of(reader)
    # 60.06 € × 40/30/20/10 % = 24.024, 18.018, 12.012, 6.006: rounded down 24.02, 18.01,
    # 12.01, 6.00, and the two cents left to the better places: 24.03, 18.02 (100 %: the
    # whole fund is handed out); places 3-5 share 12.01 + 6.00 + 0
    assert "Prize list" in text and "Prize fund: €60.06" in text
    assert "1. 1 Anna 500 €24.03" in text
    assert "2. 2 Bertl 400 €18.02" in text
    assert "3.–5. 3 Christa 300 €6.01" in text  # the cent that does not divide: lowest number
    assert "3.–5. 4 Done 300 €6.00" in text and "3.–5. 5 Egon 300 €6.00" in text
    assert "Frieda" not in text.split("Joke prize")[0]  # no money for the last place
    assert "Handed out: €60.06." in text and "stays in the till" not in text
    assert "Joke prize (last place): Ein Kartenspiel" in text and "No. 6 Frieda" in text
    assert "Provisional" not in text
    german = text_of(pdf_of(client, f"/t/{token}/prizes.pdf?lang=de"))
    assert "Preisliste" in german or "Prize list" not in german
    assert "24,03 €" in german and "3.–5. 3 Christa 300 6,01 €" in german


def test_the_figures_are_the_prize_pages(app: Flask, client: FlaskClient) -> None:
    """The PDF and the organiser's prize page show the same prizes (one service makes both)."""
    token = tied_evening(app, money.PrizeSettings(shares=SHARES))
    page = client.get(f"/t/{token}/prizes?lang=en").get_data(as_text=True)
    text = text_of(pdf_of(client, f"/t/{token}/prizes.pdf?lang=en"))
    for amount in ("€24.03", "€18.02", "€6.01", "€6.00"):
        assert amount in page and amount in text


def test_item_prizes_picked_in_ranking_order(app: Flask, client: FlaskClient) -> None:
    items = ("Schinken", "Wein", "Kuchen", "Kerze")
    token = tied_evening(app, money.PrizeSettings(mode="items", items=items, joke="Trostpreis"))
    text = text_of(pdf_of(client, f"/t/{token}/prizes.pdf?lang=en"))
    assert "1. 1. 1 Anna 500 Schinken" in text
    assert "2. 2. 2 Bertl 400 Wein" in text
    assert "3. 3.–5. 3 Christa 300 Kuchen" in text
    assert "4. 3.–5. 4 Done 300 Kerze" in text
    assert "from pick 5 on there is no item" in text
    assert "Joke prize (last place): Trostpreis" in text


def test_no_prizes_set_says_so(app: Flask, client: FlaskClient) -> None:
    token = tied_evening(app, money.PrizeSettings())
    text = text_of(pdf_of(client, f"/t/{token}/prizes.pdf?lang=en"))
    assert "No shares of the prize fund are set yet" in text and "Prize fund: €60.06" in text
    token = tied_evening(app, money.PrizeSettings(mode="items"))
    text = text_of(pdf_of(client, f"/t/{token}/prizes.pdf?lang=en"))
    assert "No item prizes are listed yet" in text


def test_provisional_while_the_round_is_played(app: Flask, client: FlaskClient) -> None:
    token = tied_evening(app, money.PrizeSettings(shares=SHARES), close=False)
    text = text_of(pdf_of(client, f"/t/{token}/prizes.pdf?lang=en"))
    assert "Provisional: the ranking may still change" in text


def test_before_the_first_round_the_list_says_it_follows_the_ranking(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        token = str(tournament_with(6).token)
    text = text_of(pdf_of(client, f"/t/{token}/prizes.pdf?lang=en"))
    assert "No round has been played yet" in text


def test_new_settings_make_a_new_pdf(app: Flask, client: FlaskClient) -> None:
    token = tied_evening(app, money.PrizeSettings(shares=SHARES))
    assert "€24.03" in text_of(pdf_of(client, f"/t/{token}/prizes.pdf?lang=en"))
    with app.app_context():
        tournament = setup.get_tournament(token)
        money.update_prizes(tournament, money.PrizeSettings(shares=(Decimal("0.5"),)))
    text = text_of(pdf_of(client, f"/t/{token}/prizes.pdf?lang=en"))
    assert "€30.03" in text and "€24.03" not in text


def test_only_the_organiser_link_prints_it(app: Flask, client: FlaskClient) -> None:
    token = tied_evening(app, money.PrizeSettings(shares=SHARES))
    with app.app_context():
        view = setup.get_tournament(token).view_token
    assert client.get(f"/t/{view}/prizes.pdf").status_code == 404


def test_linked_from_the_prizes_page_and_the_organisers_home(
    app: Flask, client: FlaskClient
) -> None:
    token = tied_evening(app, money.PrizeSettings(shares=SHARES))
    for page in (f"/t/{token}/prizes", f"/t/{token}"):
        html = client.get(page).get_data(as_text=True)
        assert f'href="/t/{token}/prizes.pdf"' in html and 'id="prize-list-pdf"' in html


# -- page counts for a round of 20 tables ----------------------------------------------


def test_twenty_tables_page_counts(app: Flask, client: FlaskClient) -> None:
    """60 players, three rounds of 3 deals: cards 4 to a page (5 pages a round, 15 for all),
    a slip per table, the ranking of 60 players on two pages, the certificates."""
    with app.app_context():
        tournament = tournament_with(60, rounds_=3)
        for number in (1, 2, 3):
            row = drawn(tournament, number)
            play_round(row)
            rounds.close_round(tournament, row)
        token = str(tournament.token)
    assert len(pdf_of(client, f"/t/{token}/rounds/2/cards.pdf").pages) == 5
    assert len(pdf_of(client, f"/t/{token}/cards.pdf").pages) == 15
    assert len(pdf_of(client, f"/t/{token}/rounds/3/slips.pdf").pages) == 20
    ranking = pdf_of(client, f"/t/{token}/ranking.pdf?lang=en")
    assert len(ranking.pages) == 2 and "Final ranking" in text_of(ranking)
    assert "Spieler 60" in text_of(ranking)
