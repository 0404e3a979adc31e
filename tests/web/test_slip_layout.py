"""The paper slip's layout: words set on its shared drawing where its boxes are.

The slip's lines are one drawing per kind of table and its words columns of lines
over it (scorer.pdf.tournament.slipgrid): the heads must still stand over their
boxes, the deals' numbers in their rows, and a table of many deals must run onto
more pages with its heads again and the totals and signatures at the end.
"""

from __future__ import annotations

import io
import itertools
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from pypdf import PdfReader

from scorer.pdf.tournament import slipframe, slipgrid
from tests.pdf_words import MM, Box, pdf_words
from tests.tournament_builders import drawn, tournament_with

LEFT_MARGIN_MM = 12.0
TOP_MARGIN_MM = 14.0


@pytest.fixture
def app_config(tmp_path: Path) -> dict[str, Any]:
    return {"PDF_CACHE_DIR": str(tmp_path / "pdf-cache")}


def slips_pdf(app: Flask, client: FlaskClient, players: int, deals: int = 3) -> bytes:
    with app.app_context():
        tournament = tournament_with(players, deals=deals, rounds_=2)
        drawn(tournament, 1)
        token = tournament.token
    response = client.get(f"/t/{token}/rounds/1/slips.pdf?lang=en")
    assert response.status_code == 200
    return response.data


def word_boxes(data: bytes, tmp_path: Path) -> list[Box]:
    """Every word: page, left, top, right, bottom (mm from the page's corner), text."""
    return pdf_words(data, tmp_path, MM)


def deal_numbers(found: list[Box]) -> list[Box]:
    """The words in the first column below its head ("Deal") on each page: the deals' numbers."""
    heads = {w[0]: w[4] for w in found if w[5] == "Deal"}
    return [
        w for w in found if w[0] in heads and w[2] > heads[w[0]] and w[1] < 20 and w[5].isdigit()
    ]


def test_the_heads_stand_over_their_boxes(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    found = word_boxes(slips_pdf(app, client, 10), tmp_path)  # tables of 4, 3, 3
    for page, seats in ((0, 4), (1, 3)):
        shape = slipframe.Geometry(seats, 7.5)
        melds = sorted(w for w in found if w[0] == page and w[5] == "Melds")
        assert len(melds) == seats
        for index, (_, x0, _, x1, _, _) in enumerate(melds):
            middle = LEFT_MARGIN_MM + shape.player_x(index) + shape.player_mm / 6
            assert abs((x0 + x1) / 2 - middle) < 0.6, (page, index)
        # the deals' numbers one under the other, a row apart, in the first column
        numbers = [w for w in deal_numbers(found) if w[0] == page]
        tops = [w[2] for w in numbers[:3]]
        assert [round(b - a, 1) for a, b in itertools.pairwise(tops)] == [7.5, 7.5]


def test_a_table_of_sixty_deals_runs_on_with_its_heads_again(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    data = slips_pdf(app, client, 9, deals=60)  # three tables of three, 60 deals each
    reader = PdfReader(io.BytesIO(data))
    pages = [" ".join((p.extract_text() or "").split()) for p in reader.pages]
    assert len(pages) == 6  # two pages a table: 36 deals, then 24 with the totals
    for first in (0, 2, 4):
        assert "Paper slip · Round 1" in pages[first]
        table = pages[first : first + 2]
        assert all("Melds" in p and "Dealer" in p for p in table)  # the heads on every page
        assert "Total points" in table[-1] and "Signature" in table[-1]
        assert "Total points" not in table[0]
    # every deal's number above the page's bottom margin (the page number is below it)
    numbers = deal_numbers(word_boxes(data, tmp_path))
    assert sorted(int(w[5]) for w in numbers) == sorted(list(range(1, 61)) * 3)
    assert max(w[4] for w in numbers) <= 297 - 15


FONT = ("DejaVuSansCondensed.ttf", 6.5)


def test_a_row_of_heads_is_one_line_with_each_word_at_its_place(app: Flask) -> None:
    from scorer.pdf.tournament.lines import text_pt

    with app.app_context():
        places = [(2.0, "Melds"), (16.3, "Tricks"), (30.7, "Points")]
        line = slipgrid.spaced(places, *FONT)
        space = text_pt(" ", *FONT)
        assert space is not None
        for left_mm, word in places:
            start = text_pt(line[: line.index(word)], *FONT)
            assert start is not None and abs(start - left_mm * MM) <= space / 2 + 0.01, word
        # a word whose place is taken by the one before it follows it after one space
        assert slipgrid.spaced([(0.0, "Melds"), (1.0, "Tricks")], *FONT) == "Melds Tricks"


def test_a_long_name_takes_two_lines_and_is_cut_after_them(app: Flask) -> None:
    with app.app_context():
        room = 90.0
        short = slipgrid.wrapped("1 · Anna", "DejaVuSansCondensed-Bold.ttf", 8.0, room)
        assert short == ["1 · Anna"]
        long = slipgrid.wrapped(
            "2 · Maximilian-Alexander von Hohenzollern-Sigmaringen",
            "DejaVuSansCondensed-Bold.ttf",
            8.0,
            room,
        )
        assert len(long) == 2 and long[-1].endswith("…")
        one_word = slipgrid.wrapped("3 · " + "X" * 60, "DejaVuSansCondensed-Bold.ttf", 8.0, room)
        assert len(one_word) == 2 and one_word[-1].endswith("…")
