"""The organiser's corrections follow POST–redirect–GET: a saved one answers with a redirect,
never with a page under the address it was posted to; that address, opened, leads to its page.

Every form is the page's own (``tests.builders.browser_form``, the pressed button
included), with and without htmx; a refused correction keeps what was typed.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from scorer import services
from scorer.extensions import db
from scorer.services.tournaments import setup
from tests.builders import HX, browser_form, page_text
from tests.tournament_builders import drawn, play_round, tournament_with


@pytest.fixture
def night(app: Flask) -> dict[str, Any]:
    """Round 1 of nine (3 deals), one hand played at every table; table 1."""
    with app.app_context():
        tournament = tournament_with(9, deals=3)
        row = drawn(tournament)
        play_round(row, hands=1)
        table = row.tables[0]
        return {"token": tournament.token, "table": table.id, "match": table.match.token}


def base(night: dict[str, Any]) -> str:
    return f"/t/{night['token']}/tables/{night['table']}"


def bid_of(app: Flask, night: dict[str, Any]) -> int:
    with app.app_context():
        return services.live_hands(services.get_match(night["match"]))[0].bid


def correction_form(client: FlaskClient, night: dict[str, Any], **typed: str) -> MultiDict:
    page = client.get(f"{base(night)}/hands/1/edit")
    assert page.status_code == 200
    # the save button has no name: nothing of it is sent
    pairs = browser_form(page.get_data(as_text=True), "hand-form")
    data = MultiDict(pairs)
    for key, value in typed.items():
        data[key] = value
    return data


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_a_saved_correction_answers_with_a_redirect_to_the_board(
    app: Flask, client: FlaskClient, night: dict[str, Any], htmx: bool
) -> None:
    data = correction_form(client, night, bid="160")
    answer = client.post(f"{base(night)}/hands/1", data=data, headers=HX if htmx else {})
    board = f"/t/{night['token']}/board"
    if htmx:
        assert answer.status_code == 200 and answer.headers["HX-Redirect"] == board
    else:
        assert answer.status_code == 303 and answer.headers["Location"] == board
    assert 'id="t-board"' not in answer.get_data(as_text=True)  # no board under this address
    assert bid_of(app, night) == 160
    shown = client.get(board)
    assert shown.status_code == 200 and 'id="t-board"' in shown.get_data(as_text=True)


def test_a_refused_correction_keeps_what_was_typed_and_its_address_leads_back_to_the_form(
    app: Flask, client: FlaskClient, night: dict[str, Any]
) -> None:
    data = correction_form(client, night, bid="abc", **{"parties-0-melds": "70"})
    refused = client.post(f"{base(night)}/hands/1", data=data)
    assert refused.status_code == 422
    kept = dict(browser_form(refused.get_data(as_text=True), "hand-form"))
    assert kept["bid"] == "abc" and kept["parties-0-melds"] == "70"
    # the address it was posted to, opened again (a reload, the address bar): the form
    opened = client.get(f"{base(night)}/hands/1")
    assert opened.status_code == 303
    assert opened.headers["Location"] == f"{base(night)}/hands/1/edit"
    assert client.get(opened.headers["Location"]).status_code == 200
    assert bid_of(app, night) == 150


@pytest.mark.parametrize("change", ["strike", "restore"])
def test_a_strike_or_restore_address_opened_leads_to_the_table_sheet(
    client: FlaskClient, night: dict[str, Any], change: str
) -> None:
    opened = client.get(f"{base(night)}/hands/1/{change}")
    assert opened.status_code == 303 and opened.headers["Location"] == base(night)
    assert client.get(f"{base(night)}/hands/1/nonsense").status_code == 404


def test_strike_and_restore_through_their_forms_redirect_to_the_sheet(
    app: Flask, client: FlaskClient, night: dict[str, Any]
) -> None:
    page = client.get(f"{base(night)}/hands/1/edit").get_data(as_text=True)
    strike = MultiDict(browser_form(page, "strike-form"))
    answer = client.post(f"{base(night)}/hands/1/strike", data=strike)
    assert answer.status_code == 303 and answer.headers["Location"] == base(night)
    with app.app_context():
        hand = services.get_match(night["match"]).hands[0]
        assert hand.deleted_at is not None
    sheet = client.get(base(night)).get_data(as_text=True)
    assert "Wiederherstellen" in page_text(sheet)


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_a_paper_slip_saved_answers_with_a_redirect_to_the_board(
    app: Flask, client: FlaskClient, htmx: bool
) -> None:
    with app.app_context():
        tournament = tournament_with(9, deals=3)
        row = drawn(tournament)
        token, table_id = tournament.token, row.tables[1].id
        db.session.remove()
    page = client.get(f"/t/{token}/tables/{table_id}/paper").get_data(as_text=True)
    data = MultiDict(browser_form(page, "paper-form"))
    for seat, (points, lost) in enumerate([(420, 0), (-150, 2), (90, 1)]):
        data[f"points_{seat}"], data[f"lost_{seat}"] = str(points), str(lost)
    answer = client.post(
        f"/t/{token}/tables/{table_id}/paper", data=data, headers=HX if htmx else {}
    )
    board = f"/t/{token}/board"
    assert answer.headers.get("HX-Redirect" if htmx else "Location") == board
    assert 'id="t-board"' not in answer.get_data(as_text=True)
    with app.app_context():
        assert setup.get_tournament(token).round_rows[0].tables[1].paper is not None
