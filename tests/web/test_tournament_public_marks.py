"""The public pages as a player at the door and the hall's beamer read them (issue 30):
"Wo sitze ich?" searched by name or start number, the ranking's "VS" explained on
screen, a round typed in from a paper slip marked as the PDF marks it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.extensions import db
from scorer.services.tournaments import board
from tests.builders import HX, page_text
from tests.tournament_builders import HALL_NAMES, drawn, play_round, tournament_with

NAMES = HALL_NAMES


@pytest.fixture
def view(app: Flask) -> Iterator[str]:
    """Round 1 drawn for nine players; table 1 played out, table 2 typed in from paper."""
    with app.app_context():
        tournament = tournament_with(NAMES, deals=3)
        row = drawn(tournament)
        play_round(row, None)
        second = row.tables[1]
        board.set_paper(
            tournament,
            second,
            dict(zip(second.players, [(420, 0), (-150, 2), (90, 1)], strict=True)),
        )
        token = tournament.view_token
        db.session.remove()
    yield token


def names_found(client: FlaskClient, view: str, typed: str, **headers: str) -> list[str]:
    html = client.get(f"/p/{view}/seats", query_string={"q": typed}, headers=headers)
    assert html.status_code == 200
    text = html.get_data(as_text=True)
    by_name = text[text.index('id="by-name"') : text.index('id="by-table"')]
    return [name for name in NAMES if f">{name}</a>" in by_name]


@pytest.mark.parametrize(
    ("typed", "found"),
    [
        ("mueller", ["Jörg Müller"]),
        ("MÜLLER", ["Jörg Müller"]),
        ("muller", ["Jörg Müller"]),
        ("oeztuerk", ["Ümit Öztürk"]),
        ("umit", ["Ümit Öztürk"]),
        ("strauss", ["Resi Strauß"]),
        ("ma", ["Anna Maier", "Hans Mayer"]),
        ("hans m", ["Hans Mayer"]),
        ("3", ["Ümit Öztürk"]),
        (" 7 ", ["Resi Strauß"]),
    ],
)
def test_the_seating_is_searched_as_typed_at_the_door(
    client: FlaskClient, view: str, typed: str, found: list[str]
) -> None:
    assert names_found(client, view, typed) == found


def test_no_search_shows_everybody_and_a_miss_says_so(client: FlaskClient, view: str) -> None:
    assert names_found(client, view, "") == NAMES
    text = page_text(client.get(f"/p/{view}/seats?q=Xaver"))
    assert "Niemand gefunden für „Xaver“" in text
    assert "Alle zeigen" in text
    assert "Xaver" in client.get(f"/p/{view}/seats?q=Xaver").get_data(as_text=True)
    english = page_text(client.get(f"/p/{view}/seats?q=mayer&lang=en"))
    assert "1 player found for “mayer”." in english


def test_the_search_works_without_javascript_and_with_htmx(client: FlaskClient, view: str) -> None:
    page = client.get(f"/p/{view}/seats?q=huber").get_data(as_text=True)
    # a GET form, the typed name kept in its field
    assert 'role="search"' in page and 'method="get"' in page
    assert 'name="q" value="huber"' in page
    # htmx asks for the list alone, and its poll keeps asking for the same search
    part = client.get(f"/p/{view}/seats?q=huber", headers=HX).get_data(as_text=True)
    assert 'role="search"' not in part
    assert "seats/live?q=huber" in part
    assert names_found(client, view, "huber", **HX) == ["Zenzi Huber"]
    # junk is only text: control characters dropped, the length bounded
    assert client.get(f"/p/{view}/seats?q=%00%1b" + "x" * 500).status_code == 200


def test_the_ranking_explains_lg_and_marks_a_paper_round(client: FlaskClient, view: str) -> None:
    html = client.get(f"/p/{view}").get_data(as_text=True)
    legend = page_text(html[html.index('id="pub-legend"') : html.index("</caption>")])
    assert "VS = Verlustspiele (als Spielmacher verloren)" in legend
    assert "✎ = Runde vom Papierzettel" in legend
    # three players' round 1 came from the slip: each of their lines carries the mark
    assert html.count('class="pub-paper" title="vom Zettel"') == 3
    beamer = client.get(f"/p/{view}?rows=20&lang=en").get_data(as_text=True)
    assert "LG = lost games" in page_text(beamer)
    assert "round from a paper slip" in page_text(beamer)
