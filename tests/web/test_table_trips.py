"""What made a newcomer stop or guess at the table (issue 30), as the test client meets it:
the bid's messages, the meld totals' messages, the calculator's Rundgang, the offline page."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.builders import HX, enter_hand, form_data, hand_data, page_text, start_match

ABC = ["Anna", "Bert", "Carl"]


def live_result(html: str) -> str:
    found = re.search(r'id="live-result">(.*?)</div>', html, re.S)
    assert found, "no live result"
    return page_text(found.group(1))


def bid_doubt(html: str) -> str | None:
    """The doubt beside the bid, or None while it is hidden."""
    found = re.search(r'<p id="bid-doubt"[^>]*?( hidden)?>(.*?)</p>', html, re.S)
    assert found, "no place for the doubt beside the bid"
    return None if found.group(1) else page_text(found.group(2))


# -- the bid ------------------------------------------------------------------------------


def test_two_bids_run_together_are_named_as_typed_with_the_tables_range(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, ABC)
    # "39", then "250" without a tap in between
    data = hand_data(client, token, declarer=0, bid=39250, trump="H", melds=[100],
                     tricks=[180, 60])  # fmt: skip
    response = client.post(f"/m/{token}/hands?lang=de", data=data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    errors = page_text(re.search(r'<ul class="errors" id="bid-err">(.*?)</ul>', html, re.S)[1])
    assert errors == "„39250“ ist kein Reizwert: Reizwerte gehen von 150 bis 10000."
    # the live result says the same, never "bid 0 is below the minimum"
    assert "39250" in live_result(html)
    assert not re.search(r"Reizwert 0\b|\b0 bis 10000", page_text(html))
    assert form_data(html, "hand-form")["bid"] == "39250"  # kept as typed


def test_the_live_result_warns_beside_the_bid_while_it_is_typed(client: FlaskClient) -> None:
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=0, bid=250, trump="H", melds=[100], tricks=[180, 60])

    def preview(bid: int) -> str:
        data = hand_data(client, token, declarer=1, bid=bid, trump="E")
        response = client.post(f"/m/{token}/hands/preview?lang=de", data=data, headers=HX)
        assert response.status_code == 200
        html = response.get_data(as_text=True)
        assert 'id="bid-doubt"' in html and 'hx-swap-oob="true"' in html
        return html

    assert bid_doubt(preview(300)) is None
    # above what this table has bid: two bids in one field?
    doubt = bid_doubt(preview(2500))
    assert doubt == (
        "2500 ist mehr, als an diesem Tisch bisher gereizt wurde (250): zwei Reizwerte in "
        "einem Feld?"
    )
    # refused by the rules: the number as typed, beside the bid
    assert bid_doubt(preview(39250)) == (
        "39250 liegt über dem höchsten Reizwert 10000: zwei Reizwerte in einem Feld?"
    )
    assert "3925" in (bid_doubt(preview(3925)) or "")


def test_the_question_names_the_highest_bid_really_made(client: FlaskClient) -> None:
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=0, bid=250, trump="H", melds=[100], tricks=[180, 60])
    data = hand_data(client, token, declarer=1, bid=700, trump="E", melds=[0, 200],
                     tricks=[60, 200])  # fmt: skip
    response = client.post(f"/m/{token}/hands?lang=de", data=data)
    assert response.status_code == 422
    text = page_text(response.get_data(as_text=True))
    assert "An diesem Tisch wurde bisher höchstens 250 gereizt." in text
    assert "600" not in text  # the ceiling of a new table is no bid anyone made
    # a table without a bid: bids above 600 are rare
    fresh = start_match(client, ABC)
    data = hand_data(client, fresh, declarer=1, bid=700, trump="E", melds=[0, 200],
                     tricks=[60, 200])  # fmt: skip
    text = page_text(client.post(f"/m/{fresh}/hands?lang=de", data=data).get_data(as_text=True))
    assert "Reizwerte über 600 sind selten." in text


# -- the melds ----------------------------------------------------------------------------


def test_every_wrong_meld_total_is_marked_with_its_partys_name(client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=0, bid=200, trump="H", melds=[30, 20, 5000],
                     tricks=[180, 60])  # fmt: skip
    response = client.post(f"/m/{token}/hands?lang=de", data=data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    marked = {
        field: page_text(text)
        for field, text in re.findall(r'<li data-for="(parties-\d-melds)">(.*?)</li>', html, re.S)
    }
    assert sorted(marked) == ["parties-0-melds", "parties-2-melds"]
    assert marked["parties-0-melds"].startswith("Anna: ")
    assert marked["parties-2-melds"].startswith("Carl: ") and "5000" in marked["parties-2-melds"]
    assert 'id="parties-0-melds"' in html and 'aria-invalid="true"' in html
    # the live result names both
    result = live_result(html)
    assert "Anna:" in result and "Carl:" in result


def test_with_no_trick_value_two_are_still_to_enter(client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, declarer=0, bid=200, trump="H", melds=[100])
    response = client.post(f"/m/{token}/hands/preview?lang=de", data=data, headers=HX)
    text = live_result(response.get_data(as_text=True))
    assert "noch 2 einzutragen" in text  # the third follows from 250


# -- the calculator's Rundgang --------------------------------------------------------------


def test_the_rundgang_button_declares_what_is_missing(client: FlaskClient) -> None:
    client.set_cookie("lang", "en")

    def calc(**params: Any) -> str:
        query = "&".join(f"{k}={v}" for k, v in params.items())
        response = client.get(f"/melds?{query}", headers=HX)
        assert response.status_code == 200
        return response.get_data(as_text=True)

    html = calc(trump="E")
    assert 'name="rundgang" value="1"' in html and 'aria-label="Rundgang 240"' in html
    html = calc(trump="E", rundgang="1")
    assert re.search(r'class="calc-sum">240<', html)
    assert '<span class="tag">Rundgang</span>' in html
    assert form_data(html)["melds"] == "pair E,pair G,pair H,pair S,four K,four O"
    assert 'name="rundgang"' not in html  # shown: no button any more
    # around a trump family already declared: 350
    html = calc(trump="E", melds="family E", rundgang="1")
    assert re.search(r'class="calc-sum">350<', html)


# -- the offline page ----------------------------------------------------------------------


def test_the_offline_page_speaks_each_language_and_sets_no_cookie(client: FlaskClient) -> None:
    german = client.get("/offline/de")
    assert german.status_code == 200
    html = german.get_data(as_text=True)
    assert '<html lang="de">' in html and "scorer.css" in html
    assert "Keine Verbindung" in html and "noch nicht geöffnet" in html
    english = client.get("/offline/en")
    assert '<html lang="en">' in english.get_data(as_text=True)
    assert "No connection" in english.get_data(as_text=True)
    # fetched by the service worker: it must not change anyone's language
    assert not any("lang=" in c for c in german.headers.getlist("Set-Cookie"))
    assert client.get("/offline/xx").status_code == 404
