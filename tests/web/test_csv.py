"""The CSV sheet and formula injection: a name a spreadsheet would run is written as text."""

from __future__ import annotations

import csv
import io

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.http import parse_options_header

from scorer.services import HandInput
from scorer.spreadsheet import csv_cell
from tests.builders import enter_hand, service_match, start_match

HOSTILE = ['=HYPERLINK("http://e.x","c")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)"]


def rows_of(response: object) -> list[list[str]]:
    text = response.data.decode("utf-8-sig")  # type: ignore[attr-defined]
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=";"))


def test_formula_like_names_are_text_in_every_cell(app: Flask, client: FlaskClient) -> None:
    hands = [
        HandInput(declarer=1, bid=150, trump="G", melds=[0, 100, 20], tricks=[60, 130, 60]),
        HandInput(declarer=2, bid=400, trump="H", melds=[0, 0, 20], tricks=[60, 60, 130]),
        HandInput(declarer=0, outcome="durch", won=True),
        HandInput(declarer=3, bid=200, trump="E", outcome="gone_off", melds=[0, 0, 0, 0]),
    ]
    token = service_match(app, HOSTILE, hands, target=100_000)
    response = client.get(f"/m/{token}/sheet.csv?lang=en")
    assert response.status_code == 200
    rows = rows_of(response)
    quoted = ["'" + name for name in HOSTILE]
    assert rows[0][6:14] == [cell for name in quoted for cell in (name, f"{name} total")]
    assert rows[0][14:] == [c for name in quoted for c in (f"{name} melds", f"{name} tricks")]
    # dealer and declarer of every hand
    assert [(r[1], r[2]) for r in rows[1:5]] == [
        (quoted[0], quoted[1]),
        (quoted[1], quoted[2]),
        (quoted[2], quoted[0]),
        (quoted[3], quoted[3]),
    ]
    # no cell that a spreadsheet would evaluate, but negative numbers stay numbers
    for row in rows:
        for cell in row:
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
            assert not cell.startswith("-") or cell.lstrip("-").isdigit(), cell
    assert rows[2][10] == "-800" and rows[4][12] == "-200"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@A1", "'@A1"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("Anna", "Anna"),
        ("", ""),
        (-180, -180),
        (0, 0),
        ("Jürgen total", "Jürgen total"),
    ],
)
def test_csv_cell(value: object, expected: object) -> None:
    assert csv_cell(value) == expected


def test_the_csv_names_the_trump_the_declaring_player_and_its_charset_once(
    client: FlaskClient,
) -> None:
    token = start_match(client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel")
    enter_hand(client, token, declarer="s2", bid=200, trump="E", tricks=[200])
    response = client.get(f"/m/{token}/sheet.csv?lang=de")
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    row = rows_of(response)[1]
    assert row[2:5] == ["Carl", "200", "Eichel"]  # the player, not "Anna & Carl"; no letter


def test_the_file_name_keeps_the_umlauts_with_an_ascii_spelling_beside(
    app: Flask, client: FlaskClient
) -> None:
    token = service_match(app, ["Anna", "Bert", "Carl"], title="Stammtisch im Rößle")
    for path in (f"/m/{token}/sheet.csv", f"/m/{token}/sheet.pdf"):
        response = client.get(path + "?lang=de")
        assert response.status_code == 200
        ext = path.rpartition(".")[2]
        disposition = response.headers["Content-Disposition"]
        assert f'filename="binokel-stammtisch-im-roessle-partie-1.{ext}"' in disposition
        assert (
            f"filename*=UTF-8''binokel-stammtisch-im-r%C3%B6%C3%9Fle-partie-1.{ext}" in disposition
        )
        # what a browser makes of it: the name with its umlauts
        _, options = parse_options_header(disposition)
        assert options["filename"] == f"binokel-stammtisch-im-rößle-partie-1.{ext}"
