"""A bid above what the table has bid so far is asked about once (issue 20, section 5),
and a bid read in tens says so at the field; as the test client meets them (no JavaScript)."""

from __future__ import annotations

import json

from flask import Flask
from flask.testing import FlaskClient

from scorer import services
from tests.builders import enter_hand, form_data, hand_data, page_text, sheet_of, start_match

ABC = ["Anna", "Bert", "Carl"]
HX = {"HX-Request": "true", "HX-Target": "hand-form"}


def test_a_bid_read_in_tens_above_the_ceiling_is_asked_once(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=0, bid=140, trump="H", melds=[100], tricks=[180, 60])
    response = client.post(f"/m/{token}/hands", data=data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    text = page_text(html)
    # the reading at the field, large, and the question with its button
    assert "„140“ gilt als 1400" in text or "“140” counts as 1400" in text
    assert 'id="bid-question"' in html
    assert 'name="bid_ok" value="1400"' in html
    # nothing to correct: no "correct the marked fields"
    assert 'class="form-error"' not in html
    assert sheet_of(app, token).hand_count == 0
    # everything typed stays; the button sends the bid it asked about
    again = form_data(html, "hand-form")
    assert again["bid"] == "140" and again["parties-1-tricks"] == "60"
    assert again["trump"] == "H" and again["idempotency_key"] == data["idempotency_key"]
    again["bid_ok"] = "1400"
    saved = client.post(f"/m/{token}/hands", data=again)
    assert saved.status_code == 303
    assert sheet_of(app, token).hand_count == 1


def test_a_confirmation_of_another_bid_asks_again(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=0, bid=900, trump="H", melds=[100], tricks=[180, 60])
    data["bid_ok"] = "800"
    response = client.post(f"/m/{token}/hands", data=data)
    assert response.status_code == 422
    assert 'name="bid_ok" value="900"' in response.get_data(as_text=True)


def test_the_ceiling_is_the_tables_highest_bid_or_four_minimum_bids(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, ABC)
    # 600 (4 × 150) passes without a question on a new table
    enter_hand(client, token, declarer=0, bid=600, trump="H", melds=[300], tricks=[180, 60])
    # 700 is asked about; confirmed, it is the table's new ceiling
    response = enter_hand(
        client, token, status=422, declarer=1, bid=700, trump="H", melds=[0, 300], tricks=[60, 180]
    )
    assert "700" in page_text(response)
    enter_hand(
        client,
        token,
        declarer=1,
        bid=700,
        trump="H",
        melds=[0, 300],
        tricks=[60, 180],
        bid_ok="700",
    )
    with app.app_context():
        match = services.get_match(token)
        assert services.highest_bid(match) == 700
        assert services.bid_ceiling(match, services.ruleset_of(match)) == 700
    # now 700 passes at once, also over htmx
    data = hand_data(
        client, token, declarer=2, bid=700, trump="H", melds=[0, 0, 300], tricks=[60, 60]
    )
    assert client.post(f"/m/{token}/hands", data=data, headers=HX).status_code == 200
    assert sheet_of(app, token).hand_count == 3


def test_the_question_comes_with_other_mistakes_and_an_unreadable_bid_is_not_asked(
    client: FlaskClient,
) -> None:
    token = start_match(client, ABC)
    # no trump: both the mistake and the question, in one answer
    response = enter_hand(client, token, status=422, declarer=0, bid=1400, melds=[100])
    html = response.get_data(as_text=True)
    assert 'id="bid-question"' in html and 'class="form-error"' in html
    # a bid that is no bid gets its error, never the question
    response = enter_hand(client, token, status=422, declarer=0, bid=1405, trump="H")
    assert 'id="bid-question"' not in response.get_data(as_text=True)


def test_the_form_hands_its_readings_in_tens_to_the_page(client: FlaskClient) -> None:
    """The page's JavaScript reads these; the rule stays the server's (forms.hand)."""
    token = start_match(client, ABC)
    html = client.get(f"/m/{token}").get_data(as_text=True)
    form = html[html.index('id="hand-form"') : html.index('id="hand-form"') + 3000]
    bids = json.loads(form.split("data-bid-tens='")[1].split("'")[0])
    melds = json.loads(form.split("data-meld-tens='")[1].split("'")[0])
    assert bids["25"] == 250 and bids["140"] == 1400 and "149" in bids and "150" not in bids
    assert melds == {str(n): n * 10 for n in range(2, 20)}
    sevens = start_match(client, ABC, sevens="y")
    html = client.get(f"/m/{sevens}").get_data(as_text=True)
    assert 'data-meld-tens=\'{"1": 10' in html
