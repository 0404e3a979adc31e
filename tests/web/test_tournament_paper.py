"""The tournament's printouts through their addresses: real PDFs, read back with pypdf and poppler.

Table cards (four to a page), paper slips (a page per table), the rankings and
the certificates, in German and English; hostile names stay inside their boxes
and come out as text; a round not drawn is a 404; busy render slots a 503.
"""

from __future__ import annotations

import fcntl
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from pypdf import PdfReader

from scorer.extensions import db
from scorer.services.tournaments import board, rounds, setup
from scorer.tournament_models import Tournament
from tests.builders import fresh_app, page_text
from tests.pdf_words import Box, pdf_words
from tests.tournament_builders import a_hand, drawn, play_round, tournament_with

A4 = (595.28, 841.89)
CUT_X = 105 / 25.4 * 72  # the cut lines of the table cards
CUT_Y = 148.5 / 25.4 * 72
HOSTILE = [
    "Maximilian-Alexander von Hohenzollern-Si",  # 40 characters
    "مريم الأحمد",
    "Egon 🃏 Kartenkönig",
    "<script>alert(1)</script>",
    "Anna",
    "Bertl",
]


@pytest.fixture
def app_config(tmp_path: Path) -> dict[str, Any]:
    """The PDF cache and the render slots in the test's own folder; a short wait for a slot."""
    return {
        "PDF_CACHE_DIR": str(tmp_path / "pdf-cache"),
        "WORK_SLOT_DIR": str(tmp_path / "work-slots"),
        "WORK_SLOT_WAIT": 0.2,
        "PUBLIC_URL": "http://192.168.4.1:5000",
    }


def a_tournament(app: Flask, players: int | list[str] = 9, **kwargs: Any) -> str:
    with app.app_context():
        return str(tournament_with(players, **kwargs).token)


def with_rounds(
    app: Flask, players: int | list[str] = 9, closed: int = 0, open_: bool = True
) -> str:
    """A tournament of three rounds: ``closed`` rounds played and closed, then one drawn."""
    with app.app_context():
        tournament = tournament_with(players, rounds_=3)
        for number in range(1, closed + 1):
            row = drawn(tournament, number)
            play_round(row)
            rounds.close_round(tournament, row)
        if open_:
            drawn(tournament, closed + 1)
        return str(tournament.token)


def pdf_of(client: FlaskClient, url: str) -> PdfReader:
    response = client.get(url)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "application/pdf"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.data.startswith(b"%PDF")
    return PdfReader(io.BytesIO(response.data))


def text_of(reader: PdfReader) -> str:
    """The PDF's text, its whitespace folded (a wrapped name reads whole)."""
    return " ".join(" ".join(page.extract_text() or "" for page in reader.pages).split())


def size_of(reader: PdfReader, page: int = 0) -> tuple[float, float]:
    box = reader.pages[page].mediabox
    return round(float(box.width), 1), round(float(box.height), 1)


def words(data: bytes, tmp_path: Path) -> list[Box]:
    """Every word with its page and box in points (pdftotext -bbox)."""
    return pdf_words(data, tmp_path)


# -- table cards -----------------------------------------------------------------------


def test_twenty_tables_make_five_pages_of_cards_in_german_and_english(
    app: Flask, client: FlaskClient
) -> None:
    token = with_rounds(app, 60)
    german = pdf_of(client, f"/t/{token}/rounds/1/cards.pdf")
    assert len(german.pages) == 5 and size_of(german) == (595.3, 841.9)
    text = text_of(german)
    assert "Tisch 20" in text and "Runde 1" in text and "Schreiber, gibt zuerst" in text
    assert "Spieler 60" in text and "Nr. 60" in text
    with app.app_context():
        tournament = setup.get_tournament(token)
        tokens = [t.match.token for t in tournament.round_rows[0].tables]
    # each table's address as the phones reach it, printed under its QR code
    assert all(f"http://192.168.4.1:5000/m/{t}" in text.replace(" ", "") for t in tokens)
    english = text_of(pdf_of(client, f"/t/{token}/rounds/1/cards.pdf?lang=en"))
    assert "Table 20" in english and "Round 1" in english and "Schreiber, deals first" in english


def test_a_replaced_link_is_the_one_on_the_card(app: Flask, client: FlaskClient) -> None:
    token = with_rounds(app, 9)
    with app.app_context():
        tournament = setup.get_tournament(token)
        table = tournament.round_rows[0].tables[1]
        old = table.match.token
        new = rounds.replace_link(tournament, table)
    text = text_of(pdf_of(client, f"/t/{token}/rounds/1/cards.pdf?lang=en")).replace(" ", "")
    assert f"/m/{new}" in text and f"/m/{old}" not in text
    assert "Link2:theearlieroneswritenothing." in text


def test_the_cards_of_every_round_at_once(app: Flask, client: FlaskClient) -> None:
    token = with_rounds(app, 9, closed=1)
    reader = pdf_of(client, f"/t/{token}/cards.pdf?lang=en")
    assert len(reader.pages) == 2  # 3 tables of round 1, 3 of round 2
    text = text_of(reader)
    assert "Round 1" in text and "Round 2" in text


def test_a_qr_code_is_at_least_three_centimetres(app: Flask, client: FlaskClient) -> None:
    token = with_rounds(app, 9)
    response = client.get(f"/t/{token}/rounds/1/cards.pdf")
    from scorer.pdf import tournament as printouts

    assert printouts.QR_MM >= 30
    # the code is a picture of one pixel per module, printed without smoothing (sharp squares)
    reader = PdfReader(io.BytesIO(response.data))
    images = list(reader.pages[0].images)
    assert len(images) == 3  # three tables of round 1 on the first page
    code = images[0]
    assert code.image.width == code.image.height <= 41
    assert str(code.indirect_reference.get_object().get("/Interpolate")) in ("False", "false")


def test_hostile_names_stay_on_their_cards_and_come_out_as_text(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    token = with_rounds(app, HOSTILE)
    response = client.get(f"/t/{token}/rounds/1/cards.pdf?lang=en")
    assert response.status_code == 200
    text = text_of(PdfReader(io.BytesIO(response.data)))
    assert "<script>alert(1)</script>" in text and "&lt;" not in text
    assert "Maximilian-Alexander von Hohenzollern-Si" in text.replace("- ", "-")
    found = words(response.data, tmp_path)
    assert found
    for _page, x0, y0, x1, y1, word in found:
        if word == "✂":
            continue  # the scissors mark the cut lines
        # no word crosses a cut line: each card keeps to its quarter of the page
        assert not (x0 < CUT_X < x1), word
        assert not (y0 < CUT_Y < y1), word
        assert x1 <= A4[0] and y1 <= A4[1]


# -- paper slips -----------------------------------------------------------------------


def test_a_slip_per_table_with_the_dealer_sitting_out_at_a_table_of_four(
    app: Flask, client: FlaskClient
) -> None:
    token = with_rounds(app, 10)
    reader = pdf_of(client, f"/t/{token}/rounds/1/slips.pdf?lang=en")
    assert len(reader.pages) == 3  # tables of 4, 3, 3: a page each
    four = " ".join(reader.pages[0].extract_text().split())
    assert "Paper slip · Round 1 · Table 1" in four
    # a table of four plays 4 deals here, each dealer sitting out once (and the head says so)
    assert four.count("sits out") == 4 + 1
    three = " ".join(reader.pages[1].extract_text().split())
    assert "sits out" not in three and "Table 2" in three
    assert "Signature" in three and "Total points" in three and "Lost games" in three
    german = text_of(pdf_of(client, f"/t/{token}/rounds/1/slips.pdf?lang=de"))
    assert "Zettel · Runde 1 · Tisch 1" in german and "setzt aus" in german


def test_one_tables_slip_alone(app: Flask, client: FlaskClient) -> None:
    token = with_rounds(app, 10)
    reader = pdf_of(client, f"/t/{token}/rounds/1/slips.pdf?table=3&lang=en")
    assert len(reader.pages) == 1
    assert "Round 1 · Table 3" in " ".join(reader.pages[0].extract_text().split())
    for bad in ("4", "0", "x", "1" * 30):
        assert client.get(f"/t/{token}/rounds/1/slips.pdf?table={bad}").status_code == 404


def test_hostile_names_stay_inside_the_slip(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    token = with_rounds(app, HOSTILE)
    response = client.get(f"/t/{token}/rounds/1/slips.pdf?lang=en")
    reader = PdfReader(io.BytesIO(response.data))
    assert len(reader.pages) == 2  # two tables of three: nothing ran onto another page
    margin = 12 / 25.4 * 72
    for _page, x0, _y0, x1, _y1, word in words(response.data, tmp_path):
        assert x0 >= margin - 1 and x1 <= A4[0] - margin + 1, word


# -- rankings --------------------------------------------------------------------------


def test_the_ranking_is_provisional_while_the_round_is_played(
    app: Flask, client: FlaskClient
) -> None:
    token = with_rounds(app, 9, closed=1)
    reader = pdf_of(client, f"/t/{token}/ranking.pdf?lang=en")
    assert size_of(reader) == (595.3, 841.9)
    text = text_of(reader)
    assert "Ranking after round 2" in text
    assert "Provisional: round 2 is still being played." in text
    assert "Round 1" in text and "Round 2" in text and "Lost games" in text
    assert "Page 1 of 1" in text
    german = text_of(pdf_of(client, f"/t/{token}/ranking.pdf?lang=de"))
    assert "Rangliste nach Runde 2" in german and "vorläufig" in german
    after_one = text_of(pdf_of(client, f"/t/{token}/ranking.pdf?round=1&lang=en"))
    assert "Ranking after round 1" in after_one and "Provisional" not in after_one
    assert "Round 2" not in after_one


def test_the_final_ranking_names_every_player_with_points_per_round(
    app: Flask, client: FlaskClient
) -> None:
    token = with_rounds(app, HOSTILE, closed=3, open_=False)
    text = text_of(pdf_of(client, f"/t/{token}/ranking.pdf?lang=en"))
    assert "Final ranking" in text and "Provisional" not in text
    for name in ("<script>alert(1)</script>", "Anna", "Bertl", "Kartenkönig"):
        assert name in text
    assert "Hohenzollern-Si" in text
    assert "Endstand" in text_of(pdf_of(client, f"/t/{token}/ranking.pdf?lang=de"))


def test_six_hundred_players_fill_pages_with_the_head_on_each(app: Flask) -> None:
    with app.app_context():
        tournament = tournament_with(600, rounds_=1)
        row = drawn(tournament, 1)
        for table in row.tables:
            table.paper = {str(p): [10 * (p % 97), p % 3] for p in table.players}
        db.session.commit()
        token = tournament.token
    reader = pdf_of(app.test_client(), f"/t/{token}/ranking.pdf?lang=en")
    assert len(reader.pages) >= 10
    for page in (0, len(reader.pages) - 1):
        text = " ".join(reader.pages[page].extract_text().split())
        assert "Place" in text and "Lost games" in text  # the head repeated
        assert f"Page {page + 1} of {len(reader.pages)}" in text
    assert "Spieler 600" in text_of(reader)


@pytest.mark.parametrize(
    "query", ["round=4", "round=0", "round=abc", "round=١", "round=" + "9" * 400]
)
def test_a_round_not_drawn_is_not_found(app: Flask, client: FlaskClient, query: str) -> None:
    token = with_rounds(app, 9)
    assert client.get(f"/t/{token}/ranking.pdf?{query}").status_code == 404


def test_nothing_to_print_before_the_draw_is_not_found(app: Flask, client: FlaskClient) -> None:
    token = a_tournament(app)
    for path in (
        "rounds/1/cards.pdf",
        "rounds/1/slips.pdf",
        "cards.pdf",
        "ranking.pdf",
        "certificates.pdf",
    ):
        assert client.get(f"/t/{token}/{path}").status_code == 404, path
    assert client.get("/t/not-a-tournament/ranking.pdf").status_code == 404


def test_the_public_link_prints_nothing(app: Flask, client: FlaskClient) -> None:
    token = with_rounds(app, 9)
    with app.app_context():
        view = setup.get_tournament(token).view_token
    for path in ("rounds/1/cards.pdf", "ranking.pdf", "certificates.pdf"):
        assert client.get(f"/t/{view}/{path}").status_code == 404


# -- certificates ----------------------------------------------------------------------


def tied_for_third(app: Flask) -> str:
    with app.app_context():
        tournament = tournament_with(["Anna", "Bertl", "Christa", "Done", "Egon", "Frieda"])
        tournament.tie_break = False
        tournament.rounds = 1
        tournament.held_on = "2025-11-08"
        tournament.place = "Dettingen"
        db.session.commit()
        row = drawn(tournament, 1)
        scores = {1: 500, 2: 400, 3: 300, 4: 300, 5: 300, 6: 100}
        numbers = {e.id: e.number for e in tournament.entrants}
        for table in row.tables:
            board.set_paper(
                tournament, table, {p: (scores[numbers[p] or 0], 0) for p in table.players}
            )
        rounds.close_round(tournament, row)
        return str(tournament.token)


def test_a_certificate_for_every_player_of_places_one_to_three(
    app: Flask, client: FlaskClient
) -> None:
    token = tied_for_third(app)
    reader = pdf_of(client, f"/t/{token}/certificates.pdf?lang=en")
    assert len(reader.pages) == 5 and size_of(reader) == (841.9, 595.3)  # A4 landscape
    pages = [" ".join(p.extract_text().split()) for p in reader.pages]
    assert "Anna" in pages[0] and "1st place" in pages[0] and "with 500 points" in pages[0]
    assert "2nd place" in pages[1] and "Bertl" in pages[1]
    for page, name in zip(pages[2:], ("Christa", "Done", "Egon"), strict=True):
        assert name in page and "3rd place" in page and "place shared by 3 players" in page
    assert all("Dettingen · November 8, 2025" in p for p in pages)
    assert not any("Frieda" in p for p in pages)
    german = text_of(pdf_of(client, f"/t/{token}/certificates.pdf?lang=de"))
    assert "Dettingen · 8. November 2025" in german and "Turnierleitung" in german


# -- the cache and the slots ------------------------------------------------------------


@pytest.fixture
def busy(tmp_path: Path) -> Iterator[None]:
    """Every render slot taken, as by another worker in the middle of a long render."""
    folder = tmp_path / "work-slots"
    folder.mkdir(exist_ok=True)
    with (folder / "slot-0.lock").open("ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
        fcntl.flock(handle, fcntl.LOCK_UN)


def test_busy_slots_answer_503_with_retry_after(app: Flask, client: FlaskClient) -> None:
    token = with_rounds(app, 9)
    with_slots_taken = []
    folder = Path(app.config["WORK_SLOT_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "slot-0.lock").open("ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        for path in ("rounds/1/cards.pdf", "rounds/1/slips.pdf", "ranking.pdf", "certificates.pdf"):
            with_slots_taken.append(client.get(f"/t/{token}/{path}?lang=en"))
        fcntl.flock(handle, fcntl.LOCK_UN)
    for response in with_slots_taken:
        assert response.status_code == 503
        assert response.headers["Retry-After"] == str(app.config["WORK_RETRY_AFTER"])
        assert "Other printouts are being made right now" in response.get_data(as_text=True)
    # the organiser's pages answer meanwhile, and once the slot is free the PDF comes
    assert client.get(f"/t/{token}/ranking.pdf").status_code == 200


def test_a_kept_pdf_needs_no_slot_and_a_new_hand_makes_a_new_one(
    app: Flask, client: FlaskClient, busy: None
) -> None:
    token = with_rounds(app, 9)
    folder = Path(app.config["PDF_CACHE_DIR"])
    app.config["WORK_SLOT_DIR"] = str(folder.parent / "other-slots")  # free slots for now
    first = client.get(f"/t/{token}/ranking.pdf?lang=en")
    assert first.status_code == 200
    app.config["WORK_SLOT_DIR"] = str(folder.parent / "work-slots")  # every slot taken
    again = client.get(f"/t/{token}/ranking.pdf?lang=en")
    assert again.status_code == 200 and again.data == first.data
    assert client.get(f"/t/{token}/ranking.pdf?lang=de").status_code == 503  # another language
    with app.app_context():
        tournament: Tournament = setup.get_tournament(token)
        table = tournament.round_rows[0].tables[0]
        from scorer import services

        services.save_hand(table.match, a_hand(table.match))
    assert client.get(f"/t/{token}/ranking.pdf?lang=en").status_code == 503  # not kept: changed


def test_too_many_printouts_from_one_device_get_429(tmp_path: Path) -> None:
    with fresh_app(
        tmp_path, RATELIMIT_ENABLED=True, LIMIT_PDF="2 per minute", PDF_CACHE_DIR=str(tmp_path)
    ) as app:
        token = with_rounds(app, 9)
        client = app.test_client()
        for _ in range(2):
            assert client.get(f"/t/{token}/ranking.pdf").status_code == 200
        response = client.get(f"/t/{token}/ranking.pdf")
        assert response.status_code == 429 and "Retry-After" in response.headers


# -- the links to them ------------------------------------------------------------------


def test_the_organiser_finds_the_printouts(app: Flask, client: FlaskClient) -> None:
    token = with_rounds(app, 10)
    home = client.get(f"/t/{token}?lang=en").get_data(as_text=True)
    assert 'id="paper"' in home
    for href in (
        f"/t/{token}/ranking.pdf",
        f"/t/{token}/ranking.pdf?round=1",
        f"/t/{token}/certificates.pdf",
        f"/t/{token}/cards.pdf",
    ):
        assert f'href="{href}"' in home
    round_page = client.get(f"/t/{token}/rounds/1?lang=en").get_data(as_text=True)
    assert f'href="/t/{token}/rounds/1/cards.pdf"' in round_page
    assert f'href="/t/{token}/rounds/1/slips.pdf"' in round_page
    with app.app_context():
        table_id = setup.get_tournament(token).round_rows[0].tables[0].id
    slip_form = client.get(f"/t/{token}/tables/{table_id}/paper?lang=en")
    assert f'href="/t/{token}/rounds/1/slips.pdf?table=1"' in slip_form.get_data(as_text=True)
    assert "Print this table's paper slip" in page_text(slip_form)


def test_no_paper_card_before_the_first_draw(app: Flask, client: FlaskClient) -> None:
    token = a_tournament(app)
    assert 'id="paper"' not in client.get(f"/t/{token}").get_data(as_text=True)


def test_a_prize_list_reuses_the_ranking_with_a_column_of_its_own(app: Flask) -> None:
    """The hook for the prize list: the ranking's layout with extra columns and a title."""
    from scorer.pdf import tournament as printouts
    from scorer.services.tournaments import paper

    token = tied_for_third(app)
    with app.test_request_context("/?lang=en"):
        sheet = paper.ranking_after(setup.get_tournament(token))
        prizes = {line.entrant_id: "30,00 €" for line in sheet.podium}
        prizes[sheet.lines[-1].entrant_id] = "a very long prize: " + "smoked sausage " * 6
        data = printouts.ranking_document(sheet, title="Prize list", extra=[("Prize", prizes)])
    text = text_of(PdfReader(io.BytesIO(data)))
    assert "Prize list" in text and "Prize" in text and text.count("30,00 €") == 5
    assert "smoked sausage smoked sausage smoked sausage" in text  # wrapped, not cut
