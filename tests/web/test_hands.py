"""Entering hands: the form, the live result, bad input, the sheet, the end of a match.

What the page shows; the numbers of each outcome and table, and the end of a match, are
the use case's (tests/services/test_hand_outcomes.py).
"""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.builders import (
    HX,
    enter_hand,
    fill_hand,
    form_data,
    hand_count,
    hand_data,
    page_text,
    service_match,
    sheet_of,
    start_match,
)

ABC = ["Anna", "Bert", "Carl"]


def test_match_page_has_the_hand_form(client: FlaskClient) -> None:
    token = start_match(client, ABC)
    response = client.get(f"/m/{token}")
    assert response.status_code == 200
    assert response.headers["Vary"] == "HX-Request" or "HX-Request" in response.headers["Vary"]
    data = form_data(response.get_data(as_text=True), "hand-form")
    assert data["outcome"] == "played"
    assert {"parties-0-melds", "parties-1-tricks", "parties-2-tricks", "version"} <= set(data)
    fragment = client.get(f"/m/{token}", headers=HX)
    assert fragment.status_code == 200
    assert "<html" not in fragment.get_data(as_text=True)
    assert 'id="match-content"' in fragment.get_data(as_text=True)


def test_failed_game_shows_in_brackets(app: Flask, client: FlaskClient) -> None:
    # docs/rules.md example 9: bid 220, melds 80, tricks 130: failed, −440
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=0, bid=220, trump="H", melds=[80], tricks=[130, 60])
    html = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    text = page_text(html)
    assert "(−440)" in text
    assert "Anna 220" in text and "failed" in text
    assert "dealt by Anna" in html  # the row's title (one line per hand); the hand page says it too
    # the deal moves on
    assert "Dealer (Geber): Bert" in text and "Leads (Vorhand): Carl" in text


def test_made_game(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=1, bid=180, trump="E", melds=[0, 60, 20], tricks=[60, 130])
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "made" in text and "190" in text  # Bert: 60 + 130


def test_htmx_save_returns_the_fresh_content(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=0, bid=180, trump="G", melds=[60], tricks=[130, 60])
    response = client.post(f"/m/{token}/hands", data=data, headers=HX)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<html" not in html
    # into #match, which stays on the page while its content changes
    assert 'id="match-content"' in html
    assert response.headers["HX-Retarget"] == "#match"
    # a saved hand scrolls the totals, the saved row and the next form into view
    assert response.headers["HX-Reswap"] == "innerHTML show:#entry:top"
    assert "HX-Request" in response.headers["Vary"]
    assert hand_count(app, token) == 1
    # the new form is empty and carries the new version
    fresh = form_data(html, "hand-form")
    assert fresh["bid"] == "" and fresh["version"] != data["version"]


def test_live_preview_shows_the_reason(client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=0, bid=220, trump="H", melds=[80], tricks=[130, 60])
    response = client.post(f"/m/{token}/hands/preview?lang=en", data=data, headers=HX)
    assert response.status_code == 200
    assert "<html" not in response.get_data(as_text=True)
    text = page_text(response)
    assert "210 of 220: failed, (−440)" in text
    assert "130 + 60 + 60 = 250" in text
    made = fill_hand(data, bid=180, melds=[60])
    text = page_text(client.post(f"/m/{token}/hands/preview?lang=en", data=made, headers=HX))
    assert "190 of 180: made, 190" in text


def test_preview_of_an_incomplete_hand_says_why(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=0, bid=180, trump="H", tricks=[90, 100, 70])
    response = client.post(f"/m/{token}/hands/preview?lang=en", data=data, headers=HX)
    assert response.status_code == 200
    assert "260" in page_text(response)
    empty = client.post(f"/m/{token}/hands/preview", data={}, headers=HX)
    assert empty.status_code == 200
    assert hand_count(app, token) == 0


def test_bid_205_refused_values_kept(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(
        client, token, declarer=2, bid=205, trump="S", melds=[0, 0, 40], tricks=[100, 50]
    )
    response = client.post(f"/m/{token}/hands?lang=en", data=data)
    assert response.status_code == 422
    text = page_text(response)
    assert "205" in text
    kept = form_data(response.get_data(as_text=True), "hand-form")
    assert kept["bid"] == "205" and kept["declarer"] == "2" and kept["trump"] == "S"
    assert kept["parties-2-melds"] == "40" and kept["parties-0-tricks"] == "100"
    assert kept["parties-1-tricks"] == "50"
    assert hand_count(app, token) == 0


def test_bid_refused_over_htmx_returns_the_form(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=0, bid=145, trump="S", tricks=[100])
    response = client.post(f"/m/{token}/hands", data=data, headers=HX)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "<html" not in html and 'id="hand-form"' in html
    assert form_data(html, "hand-form")["bid"] == "145"
    assert hand_count(app, token) == 0


def test_tricks_summing_to_260_refused(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=0, bid=180, trump="H", tricks=[90, 100, 70])
    response = client.post(f"/m/{token}/hands?lang=en", data=data)
    assert response.status_code == 422
    text = page_text(response)
    assert "260" in text and "10" in text
    kept = form_data(response.get_data(as_text=True), "hand-form")
    assert [kept[f"parties-{i}-tricks"] for i in range(3)] == ["90", "100", "70"]
    assert hand_count(app, token) == 0


@pytest.mark.parametrize(
    ("query", "lang", "messages"),
    [
        ("?lang=en", "en", ["Choose the declarer.", "Choose the trump suit.", "Enter the bid."]),
        # German by default
        (
            "",
            "de",
            ["Bitte Spielmacher wählen.", "Bitte Trumpf wählen.", "Bitte Reizwert eintragen."],
        ),
    ],
)
def test_missing_declarer_trump_and_bid(
    app: Flask, client: FlaskClient, query: str, lang: str, messages: list[str]
) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, tricks=[100, 100])
    response = client.post(f"/m/{token}/hands{query}", data=data)
    assert response.status_code == 422
    assert f'<html lang="{lang}">' in response.get_data(as_text=True)
    text = page_text(response)
    assert all(message in text for message in messages), text
    assert hand_count(app, token) == 0


def test_going_off_is_named_on_the_sheet(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=0, bid=250, outcome="gone_off", melds=[100, 40, 0])
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "gone off" in text and "(−250)" in text


def test_durch_won_and_lost(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC, target=5000)
    enter_hand(client, token, declarer=1, outcome="durch", won=True)
    enter_hand(client, token, declarer=2, outcome="bettel", won=False)
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "Durch won" in text and "Bettel lost" in text and "(−2,000)" in text


def test_special_game_needs_won_or_lost(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=1, outcome="durch")
    response = client.post(f"/m/{token}/hands?lang=en", data=data)
    assert response.status_code == 422
    assert "Won or lost?" in page_text(response)
    assert hand_count(app, token) == 0


def test_repeated_submission_saves_one_hand(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=0, bid=180, trump="G", melds=[60], tricks=[130, 60])
    assert client.post(f"/m/{token}/hands", data=data).status_code == 303
    again = client.post(f"/m/{token}/hands", data=data)
    assert again.status_code in (303, 409)
    assert hand_count(app, token) == 1


def test_stale_form_is_a_conflict(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    stale = hand_data(client, token, declarer=0, bid=180, trump="G", melds=[60], tricks=[130, 60])
    enter_hand(client, token, declarer=1, bid=180, trump="G", melds=[0, 60], tricks=[60, 130])
    stale["idempotency_key"] = "another-phone"
    response = client.post(f"/m/{token}/hands?lang=en", data=stale, headers=HX)
    assert response.status_code == 409
    assert "Someone else changed this match" in page_text(response)
    assert response.headers["HX-Retarget"] == "#match"
    assert hand_count(app, token) == 1


def test_unknown_hand_and_other_matches_hands_are_404(client: FlaskClient) -> None:
    one = start_match(client, ABC)
    two = start_match(client, ["Dora", "Emil", "Fritz"])
    enter_hand(client, one, declarer=0, bid=180, trump="G", melds=[60], tricks=[130, 60])
    hand = sheet_of(client.application, one).rows[0].hand.id
    assert client.get(f"/m/{one}/hands/{hand}").status_code == 200
    assert client.get(f"/m/{two}/hands/{hand}").status_code == 404
    assert client.get(f"/m/{two}/hands/{hand}/edit").status_code == 404
    assert client.post(f"/m/{two}/hands/{hand}/delete", data={}).status_code == 404
    assert client.get(f"/m/{one}/hands/99999").status_code == 404


# -- the end of a match -------------------------------------------------------


def test_the_end_of_a_match_on_its_page(app: Flask, client: FlaskClient) -> None:
    """Who wins, the next match offered, no hand form and a late hand refused (when a
    match ends: tests/services/test_hand_outcomes.py)."""
    token = start_match(client, ABC, target=500)
    # Anna over the target by Bert's failed game and Carl's going off; Bert's made game ends it
    enter_hand(client, token, declarer=1, bid=180, trump="H", melds=[400, 0, 0], tricks=[100, 80])
    assert "wins the match" not in page_text(client.get(f"/m/{token}?lang=en"))
    enter_hand(client, token, declarer=2, bid=200, outcome="gone_off")
    enter_hand(client, token, declarer=1, bid=150, trump="E", melds=[0, 40], tricks=[50, 150])
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "Anna wins the match!" in text
    assert "Next match with the same table" in text
    html = client.get(f"/m/{token}").get_data(as_text=True)
    assert 'id="hand-form"' not in html
    # no more hands
    data = fill_hand(form_data(html, "hand-form"), declarer=0, bid=150, trump="E", tricks=[250])
    data.update(version=str(4), idempotency_key="late")
    response = client.post(f"/m/{token}/hands", data=data)
    assert response.status_code in (409, 422)
    assert hand_count(app, token) == 3


def _finish(client: FlaskClient, token: str) -> None:
    enter_hand(client, token, declarer=0, bid=300, trump="H", melds=[300], tricks=[200, 30])


def test_next_match_with_the_same_table(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC, target=400, title="Krone")
    # not before the end
    running = client.post(f"/m/{token}/next", data={})
    assert running.status_code == 409
    _finish(client, token)
    assert sheet_of(app, token).finished
    response = client.post(f"/m/{token}/next", data={})
    assert response.status_code == 303
    new = response.headers["Location"].rsplit("/", 1)[-1]
    assert new != token
    text = page_text(client.get(f"/m/{new}?lang=en"))
    assert "Match 2 · Krone" in text
    assert "Anna" in text and "Bert" in text and "Carl" in text
    # the deal moved on one seat
    assert "Dealer (Geber): Bert" in text
    new_sheet = sheet_of(app, new)
    assert new_sheet.ruleset.target == 400 and new_sheet.totals == [0, 0, 0]
    # pressing the button twice does not make a third match
    again = client.post(f"/m/{token}/next", data={}, headers=HX)
    assert again.headers["HX-Redirect"].endswith(new)


def test_fixed_deals_end(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC, "turnier", deals=3)
    for declarer in range(3):
        enter_hand(client, token, declarer=declarer, bid=150, trump="H", tricks=[250, 0])
    assert "0 of 3 deals left" in page_text(client.get(f"/m/{token}?lang=en"))


# -- tables ---------------------------------------------------------------


def test_kreuzbinokel_hand(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel")
    enter_hand(client, token, declarer=1, bid=200, trump="S", melds=[40, 120], tricks=[100])
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "Bert & Dora 200" in text


def test_vier_mit_aussetzer_dealer_sits_out(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert", "Carl", "Dora"], "vier_mit_aussetzer")
    page = client.get(f"/m/{token}?lang=en")
    assert "Anna sits out" in page_text(page)
    # the dealer cannot declare
    data = hand_data(client, token, declarer=0, bid=180, trump="H", tricks=[None, 100, 100])
    response = client.post(f"/m/{token}/hands?lang=en", data=data)
    assert response.status_code == 422
    assert "sits out" in page_text(response)
    assert hand_count(app, token) == 0
    # whatever is typed for the dealer does not count
    enter_hand(
        client,
        token,
        declarer=1,
        bid=180,
        trump="H",
        melds=[500, 80, 20, 0],
        tricks=[90, 110, 100],
    )
    sheet = sheet_of(app, token)
    html = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    row = html[html.index('<tr id="hand-') :]
    row = row[: row.index("</tr>")]
    assert "out" in page_text(row)
    assert "Bert sits out" in page_text(html)
    # the correction form marks the hand's dealer, not the next one
    hand = sheet.rows[0].hand.id
    edit = client.get(f"/m/{token}/hands/{hand}/edit?lang=en").get_data(as_text=True)
    assert page_text(edit).count("(sits out)") == 1
    assert "Anna (sits out)" in page_text(edit)


def test_vier_mit_aussetzer_special_game_is_a_star(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert", "Carl", "Dora"], "vier_mit_aussetzer")
    enter_hand(client, token, declarer=2, outcome="durch", won=True)
    assert "★1" in page_text(client.get(f"/m/{token}"))


def test_sechser_sheet_with_three_teams(app: Flask, client: FlaskClient) -> None:
    names = ["Anna", "Bert", "Carl", "Dora", "Emil", "Fritz"]
    token = start_match(client, names, "sechser")
    enter_hand(client, token, declarer=2, bid=200, trump="E", melds=[20, 40, 100], tricks=[80, 70])
    assert "Carl & Fritz" in page_text(client.get(f"/m/{token}"))


def test_six_parties_sheet(app: Flask, client: FlaskClient) -> None:
    # six players alone need sevens (48 cards)
    names = ["Anna", "Bert", "Carl", "Dora", "Emil", "Fritz"]
    token = start_match(client, names, sevens=True)
    enter_hand(
        client,
        token,
        declarer=0,
        bid=250,
        trump="E",
        melds=[100, 0, 20, 0, 0, 40],
        tricks=[100, 30, 30, 30, 30],
    )
    html = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    assert html.count('class="party-name"') == 6
    assert "(−500)" in page_text(html)


def test_a_hands_address_carries_its_number_in_the_match(app: Flask, client: FlaskClient) -> None:
    """The sheet says "Spiel 2": the address says /hands/2, not a database id."""
    first = service_match(app, ABC, 3)  # three hands in another match come first
    token = service_match(app, ABC, 2)
    page = client.get(f"/m/{token}").get_data(as_text=True)
    assert f'href="/m/{token}/hands/2"' in page
    assert f'href="/m/{token}/hands/4"' not in page
    assert "Anna" in page_text(client.get(f"/m/{token}/hands/2"))
    assert client.get(f"/m/{token}/hands/2/edit").status_code == 200
    assert client.get(f"/m/{token}/hands/3").status_code == 404
    assert client.get(f"/m/{first}/hands/3").status_code == 200
