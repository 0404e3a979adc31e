"""A meld total typed by hand is checked (issue 20, section 1): the form refuses a total
no party of the table can show, on that party's field, in the user's language, with the
nearest possible totals; what was typed stays; nothing is saved.  The preview says it
while typing."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.builders import HX, enter_hand, hand_count, hand_data, page_text, sheet_of, start_match

ABC = ["Anna", "Bert", "Carl"]
HAND = {"declarer": 0, "bid": 200, "trump": "H", "tricks": [180, 60]}


@pytest.mark.parametrize(
    ("melds", "message"),
    [
        (
            [100, 5000, 0],
            "Ein Blatt mit 12 Karten meldet höchstens 1800, nicht 5000",
        ),
        (
            [100, 0, 30],
            "Keine Meldungen ergeben hier 30: die nächsten möglichen Summen sind 20 und 40",
        ),
    ],
)
def test_an_impossible_total_is_refused_on_its_field(
    app: Flask, client: FlaskClient, melds: list[int], message: str
) -> None:
    token = start_match(client, ABC)
    response = enter_hand(client, token, status=422, melds=melds, **HAND)
    html = response.get_data(as_text=True)
    assert message in page_text(response)
    party = next(i for i, m in enumerate(melds) if m in (5000, 30))
    # the field is marked and keeps what was typed
    assert f'id="parties-{party}-melds"' in html
    assert f'value="{melds[party]}"' in html
    assert 'aria-invalid="true"' in html
    assert hand_count(app, token) == 0


def test_the_preview_says_it_while_typing(client: FlaskClient) -> None:
    token = start_match(client, ABC)
    data = hand_data(client, token, melds=[100, 5000, 0], **HAND)
    response = client.post(f"/m/{token}/hands/preview", data=data, headers=HX)
    assert response.status_code == 200
    assert "höchstens 1800, nicht 5000" in page_text(response)


def test_possible_totals_are_saved(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    # a family in trump and the spare trump pair; a Rundgang; an Achterle
    enter_hand(client, token, melds=[190, 240, 1000], **HAND)
    assert sheet_of(app, token).totals == [370, 300, 1010]


def test_in_english_too(client: FlaskClient) -> None:
    client.get("/language/en")
    token = start_match(client, ABC)
    response = enter_hand(client, token, status=422, melds=[100, 0, 1510], **HAND)
    assert "no melds add up to 1510 here: the nearest totals are 1500 and 1520" in page_text(
        response
    )


def test_a_team_melds_with_two_hands(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel")
    response = enter_hand(
        client, token, status=422, declarer="s0", bid=200, trump="H",
        melds=[100, 9000], tricks=[180, None],
    )  # fmt: skip
    assert "Zwei Blätter mit je 9 Karten melden höchstens 2080, nicht 9000" in page_text(response)
    # 2000: an Achterle in each partner's hand
    enter_hand(
        client, token, declarer="s0", bid=200, trump="H", melds=[100, 2000], tricks=[180, None]
    )
    assert hand_count(app, token) == 1
