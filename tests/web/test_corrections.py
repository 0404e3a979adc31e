"""Correcting, deleting and restoring hands: totals, progress and the end are recomputed."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.builders import (
    HX,
    enter_hand,
    fill_hand,
    form_data,
    hand_count,
    hand_ids,
    page_text,
    sheet_of,
    start_match,
)

ABC = ["Anna", "Bert", "Carl"]


def _two_hands(client: FlaskClient, **rules: object) -> str:
    token = start_match(client, ABC, **rules)
    enter_hand(client, token, declarer=0, bid=220, trump="H", melds=[80], tricks=[130, 60])
    enter_hand(client, token, declarer=1, bid=180, trump="E", melds=[0, 60, 20], tricks=[60, 130])
    return token


def _edit_form(client: FlaskClient, token: str, hand_id: int) -> dict[str, str]:
    response = client.get(f"/m/{token}/hands/{hand_id}/edit")
    assert response.status_code == 200
    return form_data(response.get_data(as_text=True), "hand-form")


def test_edit_form_is_prefilled(client: FlaskClient) -> None:
    token = _two_hands(client)
    first, _ = hand_ids(client, token)
    data = _edit_form(client, token, first)
    assert data["declarer"] == "0" and data["bid"] == "220" and data["trump"] == "H"
    assert data["parties-0-melds"] == "80"
    assert [data[f"parties-{i}-tricks"] for i in range(3)] == ["130", "60", "60"]
    assert data["outcome"] == "played"


def test_correction_recomputes_the_totals(app: Flask, client: FlaskClient) -> None:
    token = _two_hands(client)
    # Anna failed 220: −440, and 40 each to Bert and Carl (the Swabian sheet)
    assert sheet_of(app, token).totals == [-380, 290, 180]
    first, _ = hand_ids(client, token)
    # the melds were 100, not 80: 230 of 220, made
    data = fill_hand(_edit_form(client, token, first), melds=[100])
    response = client.post(f"/m/{token}/hands/{first}", data=data)
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/m/{token}")
    sheet = sheet_of(app, token)
    assert sheet.rows_points[0] == [230, 60, 60]
    assert sheet.totals == [290, 250, 140]
    assert hand_count(app, token) == 2
    # the history shows the entry and the correction
    text = page_text(client.get(f"/m/{token}/hands/{first}?lang=en"))
    assert "entered" in text and "corrected" in text
    assert "Anna (−440)" in text and "Anna 230" in text
    assert "230 of 220: made" in text


def test_correction_over_htmx_goes_back_to_the_sheet(app: Flask, client: FlaskClient) -> None:
    token = _two_hands(client)
    first, _ = hand_ids(client, token)
    data = fill_hand(_edit_form(client, token, first), melds=[100])
    response = client.post(f"/m/{token}/hands/{first}", data=data, headers=HX)
    assert response.status_code == 200
    assert response.headers["HX-Redirect"].endswith(f"/m/{token}")
    assert sheet_of(app, token).totals[0] == 290


def test_a_stale_correction_keeps_what_was_typed_on_its_page(
    app: Flask, client: FlaskClient
) -> None:
    """The correction page has no match content to swap: a conflict answers with its form
    (values kept, the current version), not with the match page's content."""
    token = _two_hands(client)
    first, second = hand_ids(client, token)
    stale = fill_hand(_edit_form(client, token, first), melds=[100])
    # meanwhile another phone corrects the other hand
    other = fill_hand(_edit_form(client, token, second), bid=190)
    assert client.post(f"/m/{token}/hands/{second}", data=other).status_code == 303
    response = client.post(f"/m/{token}/hands/{first}?lang=en", data=stale, headers=HX)
    assert response.status_code == 409
    assert "HX-Retarget" not in response.headers
    assert "What you typed is kept below" in page_text(response)
    kept = form_data(response.get_data(as_text=True), "hand-form")
    assert kept["parties-0-melds"] == "100"
    assert kept["version"] != stale["version"]
    assert sheet_of(app, token).totals == [-380, 290, 180]
    # saved again, it replaces the hand
    assert client.post(f"/m/{token}/hands/{first}", data=kept).status_code == 303
    assert sheet_of(app, token).totals[0] == 290


def test_bad_correction_refused_values_kept(app: Flask, client: FlaskClient) -> None:
    token = _two_hands(client)
    first, _ = hand_ids(client, token)
    data = fill_hand(_edit_form(client, token, first), tricks=[90, 100, 70])
    response = client.post(f"/m/{token}/hands/{first}?lang=en", data=data)
    assert response.status_code == 422
    assert "260" in page_text(response)
    assert "Correct hand" in page_text(response)
    kept = form_data(response.get_data(as_text=True), "hand-form")
    assert kept["parties-2-tricks"] == "70"
    fragment = client.post(f"/m/{token}/hands/{first}", data=data, headers=HX)
    assert fragment.status_code == 422
    assert "<html" not in fragment.get_data(as_text=True)
    assert sheet_of(app, token).totals == [-380, 290, 180]


def test_correction_preview(client: FlaskClient) -> None:
    token = _two_hands(client)
    first, _ = hand_ids(client, token)
    data = fill_hand(_edit_form(client, token, first), melds=[100])
    response = client.post(f"/m/{token}/hands/preview?hand={first}&lang=en", data=data, headers=HX)
    assert response.status_code == 200
    assert "230 of 220: made, 230" in page_text(response)


def test_delete_and_restore(app: Flask, client: FlaskClient) -> None:
    token = _two_hands(client)
    first, second = hand_ids(client, token)
    # striking asks first: the confirmation step carries the form
    detail = client.get(f"/m/{token}/hands/{first}?strike=1")
    confirm = form_data(detail.get_data(as_text=True))
    response = client.post(f"/m/{token}/hands/{first}/delete", data=confirm)
    assert response.status_code == 303
    assert hand_ids(client, token) == [second]
    sheet = sheet_of(app, token)
    assert sheet.totals == [60, 190, 80]
    # the deal does not move back: the struck hand was dealt
    assert "Dealer (Geber): Carl" in page_text(client.get(f"/m/{token}?lang=en"))
    assert hand_count(app, token) == 2 and hand_count(app, token, live=True) == 1
    text = page_text(client.get(f"/m/{token}/hands/{first}?lang=en"))
    assert "struck" in text and "deleted" in text and "Restore hand" in text
    confirm = form_data(client.get(f"/m/{token}/hands/{first}").get_data(as_text=True))
    response = client.post(f"/m/{token}/hands/{first}/restore", data=confirm, headers=HX)
    assert response.headers["HX-Redirect"].endswith(f"/m/{token}")
    assert hand_ids(client, token) == [first, second]
    assert sheet_of(app, token).totals == [-380, 290, 180]
    assert "restored" in page_text(client.get(f"/m/{token}/hands/{first}?lang=en"))


def test_a_struck_hand_cannot_be_corrected(client: FlaskClient) -> None:
    token = _two_hands(client)
    first, _ = hand_ids(client, token)
    data = _edit_form(client, token, first)
    confirm = form_data(client.get(f"/m/{token}/hands/{first}?strike=1").get_data(as_text=True))
    client.post(f"/m/{token}/hands/{first}/delete", data=confirm)
    assert client.get(f"/m/{token}/hands/{first}/edit").status_code == 404
    data["version"] = ""
    assert client.post(f"/m/{token}/hands/{first}", data=data).status_code == 404


def test_stale_delete_is_a_conflict(app: Flask, client: FlaskClient) -> None:
    token = _two_hands(client)
    first, _ = hand_ids(client, token)
    stale = form_data(client.get(f"/m/{token}/hands/{first}?strike=1").get_data(as_text=True))
    enter_hand(client, token, declarer=2, bid=150, trump="G", tricks=[50, 50])
    response = client.post(f"/m/{token}/hands/{first}/delete", data=stale)
    assert response.status_code == 409
    assert hand_count(app, token, live=True) == 3


def test_correction_ends_and_reopens_the_match(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC, target=500)
    enter_hand(client, token, declarer=0, bid=300, trump="H", melds=[300], tricks=[200, 30])
    assert sheet_of(app, token).finished
    (first,) = hand_ids(client, token)
    # it was 100 trick points, not 200: 400 of 300 is still made but below 500
    data = fill_hand(_edit_form(client, token, first), tricks=[100, 130, 20])
    assert client.post(f"/m/{token}/hands/{first}", data=data).status_code == 303
    sheet = sheet_of(app, token)
    assert not sheet.finished and sheet.totals == [400, 130, 20]
    html = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    assert 'id="hand-form"' in html and "wins the match" not in html
    # and back
    data = fill_hand(_edit_form(client, token, first), tricks=[200, 30, 20])
    client.post(f"/m/{token}/hands/{first}", data=data)
    assert sheet_of(app, token).finished
    assert "Anna wins the match!" in page_text(client.get(f"/m/{token}?lang=en"))


def test_deleting_the_last_hand_reopens_the_match(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC, target=500)
    enter_hand(client, token, declarer=1, bid=150, trump="E", melds=[0, 20], tricks=[100, 100])
    enter_hand(client, token, declarer=0, bid=300, trump="H", melds=[300], tricks=[200, 30])
    assert sheet_of(app, token).finished
    _, last = hand_ids(client, token)
    confirm = form_data(client.get(f"/m/{token}/hands/{last}?strike=1").get_data(as_text=True))
    client.post(f"/m/{token}/hands/{last}/delete", data=confirm)
    assert not sheet_of(app, token).finished
    assert 'id="hand-form"' in client.get(f"/m/{token}").get_data(as_text=True)


def test_correcting_an_earlier_hand_moves_the_end(app: Flask, client: FlaskClient) -> None:
    # the second hand ended the match; correcting the first so that the first
    # already ends it puts the end there (the later hand is still listed)
    token = start_match(client, ABC, target=500)
    enter_hand(client, token, declarer=0, bid=200, trump="H", melds=[200], tricks=[200, 30])
    enter_hand(client, token, declarer=0, bid=150, trump="H", melds=[100], tricks=[100, 100])
    sheet = sheet_of(app, token)
    assert sheet.finished and sheet.progress.finished_after == 1
    first, _ = hand_ids(client, token)
    data = fill_hand(_edit_form(client, token, first), melds=[300])
    client.post(f"/m/{token}/hands/{first}", data=data)
    sheet = sheet_of(app, token)
    assert sheet.finished and sheet.progress.finished_after == 0
