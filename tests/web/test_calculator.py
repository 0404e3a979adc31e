"""The meld calculator: its page (declare and card mode) and its panel in the hand form."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlencode

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.rules import PRESETS, Ruleset, players_dealt_in
from scorer.rules.calculator import Calculator, Tap, player_choices, tap
from tests.builders import HX, csrf_token_from, form_data, hand_data, page_text, start_match

EN = {"lang": "en"}


@pytest.fixture
def en(client: FlaskClient) -> FlaskClient:
    client.set_cookie("lang", "en")
    return client


def calc(client: FlaskClient, htmx: bool = True, **params: Any) -> Any:
    response = client.get("/melds?" + urlencode(params), headers=HX if htmx else {})
    assert response.status_code == 200, response.get_data(as_text=True)[:2000]
    return response


def total_of(response: Any) -> int:
    found = re.search(r'class="calc-sum">(\d+)<', response.get_data(as_text=True))
    assert found, "no total"
    return int(found.group(1))


def state_of(response: Any, name: str = "melds") -> str:
    data = form_data(response.get_data(as_text=True))
    return data.get(name, "")


def error_of(response: Any) -> str:
    html = response.get_data(as_text=True)
    found = re.search(r'<p class="form-error calc-error" role="alert">(.*?)</p>', html, re.S)
    return page_text(found.group(1)) if found else ""


# -- the page ---------------------------------------------------------------------------


def test_home_links_to_the_calculator(en: FlaskClient) -> None:
    html = en.get("/").get_data(as_text=True)
    assert 'href="/melds"' in html
    assert "Meld calculator" in html


def test_the_page_and_its_fragment(en: FlaskClient) -> None:
    page = en.get("/melds")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "<html" in html and 'id="calc"' in html and 'method="get"' in html
    assert "HX-Request" in page.headers["Vary"]
    fragment = calc(en)
    assert "<html" not in fragment.get_data(as_text=True)
    assert 'id="calc"' in fragment.get_data(as_text=True)
    # every meld of the standard rules has its button; no Diss without sevens
    for name in ("pair E", "family S", "double_family H", "binokel", "double_binokel", "four U"):
        assert f'name="add" value="{name}"' in html
    assert 'value="diss"' not in html and 'value="four 10"' not in html
    assert "A hand holds 12 cards after pressing." in page_text(page)


def test_declare_a_trump_family_and_four_aces(en: FlaskClient) -> None:
    r = calc(en, trump="H", add="family H")
    assert total_of(r) == 150
    r = calc(en, trump="H", melds=state_of(r), add="four A")
    assert total_of(r) == 250
    assert state_of(r) == "family H,four A"
    text = page_text(r)
    assert "Family Herz 150" in text and "Four aces 100" in text
    # the trump values follow the trump: in Eichel the Herz family is worth 100
    r = calc(en, trump="E", melds="family H,four A")
    assert total_of(r) == 200
    assert 'aria-label="Eichel: Pair 40"' in r.get_data(as_text=True)


def test_tap_twice_for_two_pairs_and_take_one_back(en: FlaskClient) -> None:
    r = calc(en, trump="G", melds="pair H", add="pair H")
    assert total_of(r) == 40 and state_of(r) == "pair H,pair H"
    assert '<span class="mc">×2</span>' in r.get_data(as_text=True)
    r = calc(en, trump="G", melds=state_of(r), back="pair H")
    assert total_of(r) == 20 and state_of(r) == "pair H"
    r = calc(en, melds="pair H,four A", clear="1")
    assert state_of(r) == "" and total_of(r) == 0


def test_three_herz_pairs_are_refused(en: FlaskClient) -> None:
    r = calc(en, melds="pair H,pair H", add="pair H")
    assert error_of(r) == "Pair Herz: needs Herz-König three times; the deck has two"
    assert state_of(r) == "pair H,pair H" and total_of(r) == 40
    assert 'role="alert"' in r.get_data(as_text=True)


def test_two_binokel_are_a_doppelbinokel(en: FlaskClient) -> None:
    r = calc(en, melds="binokel", add="binokel")
    assert error_of(r) == "Binokel: two Binokel are a Doppelbinokel: declare double_binokel"
    assert 'name="upgrade" value="binokel"' in r.get_data(as_text=True)
    assert "Declare Double Binokel instead" in page_text(r)
    r = calc(en, melds=state_of(r), upgrade="binokel")
    assert state_of(r) == "double_binokel" and total_of(r) == 300
    assert error_of(r) == ""
    assert '<span class="tag">Double Binokel</span>' in r.get_data(as_text=True)


def test_two_families_and_two_fours_are_named_as_the_bigger_meld(en: FlaskClient) -> None:
    r = calc(en, melds="family S", add="family S")
    assert "two families in Schellen are a Doppelfamilie" in error_of(r)
    r = calc(en, melds=state_of(r), upgrade="family S")
    assert state_of(r) == "double_family S" and total_of(r) == 1500
    r = calc(en, melds="four K", add="four K")
    assert "two 'four K' are an Achterle: declare 'eight K'" in error_of(r)
    assert total_of(calc(en, melds="four K", upgrade="four K")) == 1000


def test_more_cards_than_a_hand_holds(en: FlaskClient) -> None:
    r = calc(en, trump="H", melds="family H,family E,binokel", add="four A")
    assert error_of(r) == "Four aces: these melds need 14 cards; a hand holds 12"
    assert total_of(r) == 290
    # four players hold nine cards: the two families alone are too many
    r = calc(en, players="4", melds="family H", add="family E")
    assert error_of(r) == "Family Eichel: these melds need 10 cards; a hand holds 9"


def test_melds_the_rules_do_not_know(en: FlaskClient) -> None:
    r = calc(en, add="diss")
    assert error_of(r) == "Diss: there is no Diss without sevens: 'diss' is not a meld in this game"
    r = calc(en, add="four 10")
    assert "'four 10' is not a meld in these house rules" in error_of(r)
    r = calc(en, add="<b>nonsense</b>")
    assert error_of(r) == "'<b>nonsense</b>' is not a meld"
    assert "<b>nonsense" not in r.get_data(as_text=True)
    # with sevens the Diss needs a trump first
    r = calc(en, preset="sechser", add="diss")
    assert "name the trump before declaring 'diss'" in error_of(r)
    assert total_of(calc(en, preset="sechser", trump="S", add="diss")) == 10


def test_the_rundgang_is_offered_through_the_implied_melds(en: FlaskClient) -> None:
    r = calc(en, trump="E", melds="pair E,pair G,pair H", add="pair S")
    assert total_of(r) == 100
    assert "Rundgang: add Four kings and Four Ober, +140?" in page_text(r)
    assert 'name="implied" value="1"' in r.get_data(as_text=True)
    r = calc(en, trump="E", melds=state_of(r), implied="1")
    assert total_of(r) == 240
    assert '<span class="tag">Rundgang</span>' in r.get_data(as_text=True)
    assert 'name="implied"' not in r.get_data(as_text=True)
    # with the trump family instead of the trump pair: 350
    r = calc(en, trump="E", melds="family E,pair G,pair H,pair S", implied="1")
    assert total_of(r) == 350


def rundgang_button(response: Any) -> str:
    """The number on the Rundgang button ("" when it shows none)."""
    html = response.get_data(as_text=True)
    found = re.search(r'name="rundgang" value="1"[^>]*>(.*?)</button>', html, re.S)
    assert found, "no Rundgang button"
    points = re.search(r'class="mp" id="rundgang-points">([^<]*)<', found[1])
    return points[1] if points else ""


@pytest.mark.parametrize(
    ("trump", "melds", "shown", "total"),
    [
        ("", "", "220", 220),  # no trump yet: four plain pairs, four Könige, four Ober
        ("E", "", "240", 240),  # one of them the trump pair
        ("E", "family E", "+200", 350),  # around the trump family
        ("", "pair H", "+200", 220),
    ],
)
def test_the_rundgang_button_shows_what_its_tap_adds(
    en: FlaskClient, trump: str, melds: str, shown: str, total: int
) -> None:
    """The button's number is the rules' (rundgang_gain): "Rundgang 240" without a trump
    added 220 (issue 34 §7)."""
    before = calc(en, trump=trump, melds=melds)
    assert rundgang_button(before) == shown
    after = calc(en, trump=trump, melds=melds, rundgang="1")
    assert total_of(after) == total
    assert total_of(after) - total_of(before) == int(shown.lstrip("+"))
    assert '<span class="tag">Rundgang</span>' in after.get_data(as_text=True)


def test_a_rundgang_the_hand_cannot_hold_shows_no_number(en: FlaskClient) -> None:
    """Four players hold 9 cards: two Achterle leave no room for the Rundgang's pairs.
    The button stays (its tap says why), without a number it would not add."""
    r = calc(en, preset="kreuzbinokel", trump="E", melds="eight A")
    assert rundgang_button(r) == ""
    r = calc(en, preset="kreuzbinokel", trump="E", melds="eight A", rundgang="1")
    assert total_of(r) == 1000
    assert "a hand holds 9" in error_of(r), error_of(r)


def test_a_stale_declaration_is_cut_back_with_the_reason(en: FlaskClient) -> None:
    # double_binokel does not exist in the Swiss game: it is dropped, the rest kept
    r = calc(en, preset="schweizer", melds="double_binokel,pair H")
    assert state_of(r) == "pair H"
    assert "'double_binokel' is not a meld in these house rules" in error_of(r)


# -- card mode -----------------------------------------------------------------------------


def cards_of(response: Any) -> list[str]:
    return state_of(response, "cards").split()


def test_card_mode_finds_the_best_melds(en: FlaskClient) -> None:
    r = calc(en, mode="cards", trump="E", cards="EK EO GK GO HK HO SK SO")
    assert total_of(r) == 240
    assert '<span class="tag">Rundgang</span>' in r.get_data(as_text=True)
    assert "8 of 12 cards" in page_text(r)
    html = r.get_data(as_text=True)
    # the double deck: every card twice
    assert html.count('name="card" value=') == 40
    assert 'name="card" value="HK:1" aria-pressed="true"' in html
    assert 'name="card" value="HK:2" aria-pressed="false"' in html


def test_card_mode_taps(en: FlaskClient) -> None:
    r = calc(en, mode="cards", card="GO:1")
    assert cards_of(r) == ["GO"]
    r = calc(en, mode="cards", cards="GO", card="GO:2")
    assert cards_of(r) == ["GO", "GO"]
    r = calc(en, mode="cards", cards="GO GO", card="GO:1")
    assert cards_of(r) == ["GO"]
    r = calc(en, mode="cards", cards="GO GO SU SU")
    assert total_of(r) == 300
    r = calc(en, mode="cards", cards="GO SU", clear="1")
    assert cards_of(r) == []
    # switching modes keeps both states
    r = calc(en, mode="cards", cards="GO SU", melds="pair H", go="declare")
    assert state_of(r, "mode") == "declare" and cards_of(r) == ["GO", "SU"]
    assert state_of(r) == "pair H"


TWELVE = "EA E10 EK EO EU HA GA SA GO SU HK HO"


def test_a_hand_holds_twelve_cards_the_declarer_sixteen(en: FlaskClient) -> None:
    r = calc(en, mode="cards", trump="E", cards=TWELVE, card="SK:1")
    assert len(cards_of(r)) == 12
    assert "Schellen-König: a hand holds 12 cards; put one back first" in error_of(r)
    r = calc(en, mode="cards", trump="E", cards=TWELVE, declarer="y", card="SK:1")
    assert len(cards_of(r)) == 13 and error_of(r) == ""
    assert "13 of 16 cards" in page_text(r) and "(12 in the hand + 4 Dabb)" in page_text(r)
    # too many cards in the input (stale or made up): the first ones are kept
    r = calc(en, mode="cards", cards=TWELVE + " SK SO")
    assert len(cards_of(r)) == 12 and "A hand holds 12 cards." in error_of(r)


def test_the_declarer_keeps_the_best_hand_after_pressing(en: FlaskClient) -> None:
    # 16 cards: both Herz families (1500) need ten, the Doppelbinokel four more
    cards = "HA HA H10 H10 HK HK HO HO HU HU GO GO SU SU EA SA"
    r = calc(en, mode="cards", trump="H", declarer="y", cards=cards)
    assert "All 16 cards would show 1800" in page_text(r)
    # keep twelve: the Doppelfamilie and one Binokel (the aces and a GO SU pressed)
    assert total_of(r) == 1500 + 40
    assert len(cards_of(r)) == 16


def test_card_mode_ignores_cards_the_deck_has_not(en: FlaskClient) -> None:
    r = calc(en, mode="cards", cards="H7 XX GO GO GO SU", card="E7:1")
    assert cards_of(r) == ["GO", "GO", "SU"]


def test_the_swiss_deck(en: FlaskClient) -> None:
    r = calc(en, preset="schweizer", mode="cards")
    html = r.get_data(as_text=True)
    assert html.count('name="card" value=') == 32
    assert 'value="H9:1"' in html and 'value="H9:2"' not in html
    assert "8 cards" in page_text(r) or "of 8 cards" in page_text(r)
    r = calc(en, preset="schweizer", trump="H", add="gross_binokel")
    assert total_of(r) == 80


def test_the_sechser_deck(en: FlaskClient) -> None:
    r = calc(en, preset="sechser", players="6", mode="cards", trump="G")
    html = r.get_data(as_text=True)
    assert html.count('name="card" value=') == 48
    assert "0 of 7 cards" in page_text(r)
    r = calc(en, preset="sechser", players="6", trump="G", mode="cards", cards="G7 G7")
    assert total_of(r) == 20


def test_players_follow_the_preset(en: FlaskClient) -> None:
    r = calc(en, preset="kreuzbinokel")
    assert form_data(r.get_data(as_text=True))["players"] == "4"
    assert "A hand holds 9 cards after pressing." in page_text(r)
    r = calc(en, preset="zweier", players="2")
    assert "No fixed hand size" in page_text(r)
    # a players count the deck cannot be dealt to falls back to the preset's
    r = calc(en, preset="standard", players="6")
    assert form_data(r.get_data(as_text=True))["players"] == "3"


def test_without_javascript_the_whole_page(en: FlaskClient) -> None:
    r = calc(en, htmx=False, trump="H", add="family H")
    html = r.get_data(as_text=True)
    assert "<html" in html and total_of(r) == 150
    assert "<noscript>" in html


# -- inside the hand form -----------------------------------------------------------------


def new_match(client: FlaskClient, preset: str = "standard", names: list[str] | None = None) -> str:
    names = names or ["Anna", "Bert", "Carl"]
    return start_match(client, names, preset)


def panel(
    client: FlaskClient,
    token: str,
    party: int = 0,
    data: dict[str, str] | None = None,
    htmx: bool = True,
    **fields: Any,
) -> Any:
    if data is None:
        data = hand_data(client, token)
    data = {**data, **{k: str(v) for k, v in fields.items()}}
    response = client.post(
        f"/m/{token}/calculator?party={party}", data=data, headers=HX if htmx else {}
    )
    assert response.status_code == 200, response.get_data(as_text=True)[:3000]
    return response


def test_the_hand_form_has_a_calculator_per_party(en: FlaskClient) -> None:
    token = new_match(en)
    html = en.get(f"/m/{token}").get_data(as_text=True)
    for i in range(3):
        assert f'name="calc{i}-go"' in html and f'id="calc-panel-{i}"' in html
        assert f'formaction="/m/{token}/calculator?party={i}"' in html
    # the first submit button of the form saves the hand (Enter in a field)
    first = re.search(r"<button[^>]*>", html[html.index('id="hand-form"') :])
    assert first and "formaction" not in first.group(0)


def test_the_panel_knows_the_trump_and_the_hand_size(en: FlaskClient) -> None:
    token = new_match(en)
    data = hand_data(en, token, trump="H", declarer=1, bid=200)
    r = panel(en, token, 0, data, **{"calc0-go": "declare"})
    html = r.get_data(as_text=True)
    assert "<html" not in html and 'class="calc-panel"' in html
    assert "12 cards in a hand" in page_text(r)
    assert 'aria-label="Herz: Pair 40"' in html
    # its buttons post the hand form to the calculator; taps.js sends them one at a time
    assert f'formaction="/m/{token}/calculator?party=0"' in html
    assert 'data-taps="calc-panel-0"' in html
    r = panel(en, token, 0, data, **{"calc0-mode": "declare", "calc0-melds": "family H"})
    r = panel(
        en,
        token,
        0,
        data,
        **{"calc0-mode": "declare", "calc0-melds": "family H", "calc0-add": "four A"},
    )
    assert total_of(r) == 250
    # the impossible is refused here too, with the table's hand size
    r = panel(
        en,
        token,
        0,
        data,
        **{
            "calc0-mode": "declare",
            "calc0-melds": "family H,family E,binokel",
            "calc0-add": "four A",
        },
    )
    assert "these melds need 14 cards; a hand holds 12" in error_of(r)


def test_the_declarer_picks_the_dabb_too(en: FlaskClient) -> None:
    token = new_match(en)
    data = hand_data(en, token, trump="E", declarer=2, bid=200)
    r = panel(en, token, 2, data, **{"calc2-go": "cards"})
    assert "0 of 16 cards" in page_text(r)
    r = panel(en, token, 1, data, **{"calc1-go": "cards"})
    assert "0 of 12 cards" in page_text(r)


def test_take_over_fills_the_two_fields_out_of_band(en: FlaskClient) -> None:
    token = new_match(en)
    data = hand_data(en, token, trump="E", declarer=0, bid=300)
    state = {"calc0-mode": "cards", "calc0-cards": TWELVE, "calc0-melds": ""}
    r = panel(en, token, 0, data, **state, **{"calc0-take": "1"})
    html = r.get_data(as_text=True)
    assert re.search(r'<input[^>]*hx-swap-oob="true"[^>]*id="parties-0-melds"', html) or re.search(
        r'<input[^>]*id="parties-0-melds"[^>]*hx-swap-oob="true"', html
    )
    assert 'value="310"' in html
    assert 'value="family E,pair H,binokel,four A"' in html
    assert "Taken over: 310" in page_text(r)
    assert 'class="calc-panel"' not in html
    trigger = json.loads(r.headers["HX-Trigger-After-Settle"])
    # the live result follows; the page moves the focus on (static/scorer.js)
    assert trigger == {
        "change": {"target": "#parties-0-melds"},
        "scorer:taken": {"target": "#parties-0-melds"},
    }


def test_take_over_without_javascript(en: FlaskClient) -> None:
    token = new_match(en)
    data = hand_data(en, token, trump="H", declarer=1, bid=200, tricks=[None, 120, 60])
    r = panel(en, token, 1, data, htmx=False, **{"calc1-go": "declare"})
    html = r.get_data(as_text=True)
    assert "<html" in html and 'id="hand-form"' in html and 'class="calc-panel"' in html
    kept = form_data(html, "hand-form")
    assert kept["bid"] == "200" and kept["trump"] == "H" and kept["parties-1-tricks"] == "120"
    kept["calc1-add"] = "family H"
    r = panel(en, token, 1, kept, htmx=False)
    kept = form_data(r.get_data(as_text=True), "hand-form")
    assert kept["calc1-melds"] == "family H"
    kept.pop("calc1-add", None)
    kept["calc1-take"] = "1"
    r = panel(en, token, 1, kept, htmx=False)
    html = r.get_data(as_text=True)
    kept = form_data(html, "hand-form")
    assert kept["parties-1-melds"] == "150" and kept["parties-1-meld_names"] == "family H"
    assert 'class="calc-panel"' not in html
    assert "Taken over: 150" in page_text(r)
    # the live result below the form already counts the melds: 150 + 120 = 270
    assert "270 of 200" in page_text(r)
    # and the hand saves with its breakdown
    saved = en.post(f"/m/{token}/hands", data=kept)
    assert saved.status_code in (302, 303)
    sheet = en.get(f"/m/{token}").get_data(as_text=True)
    mark = re.search(r'<a class="meld-mark[^"]*" href="([^"]+)" title="Family Herz">', sheet)
    assert mark, "no meld marker on the sheet"
    detail = en.get(mark.group(1).split("#")[0])
    assert "Family Herz" in page_text(detail)


def test_opening_the_panel_starts_from_the_line(en: FlaskClient) -> None:
    token = new_match(en)
    data = hand_data(en, token, trump="G", declarer=0, bid=200)
    data["parties-2-meld_names"] = "pair G,four O"
    data["parties-2-melds"] = "100"
    r = panel(en, token, 2, data, **{"calc2-go": "declare"})
    assert total_of(r) == 100 and state_of(r, "calc2-melds") == "pair G,four O"


def test_close_the_panel(en: FlaskClient) -> None:
    token = new_match(en)
    data = hand_data(en, token)
    r = panel(en, token, 0, data, **{"calc0-mode": "declare", "calc0-close": "1"})
    assert r.get_data(as_text=True).strip() == ""


def test_sechser_hand_size_deck_and_diss(en: FlaskClient) -> None:
    token = new_match(en, "sechser", ["A", "B", "C", "D", "E", "F"])
    data = hand_data(en, token, trump="S", declarer=0, bid=200)
    r = panel(en, token, 1, data, **{"calc1-go": "declare"})
    html = r.get_data(as_text=True)
    assert "7 cards in a hand" in page_text(r)
    assert 'value="diss"' in html and "one partner's hand at a time" in page_text(r)
    assert 'name="calc1-addto"' in html
    r = panel(en, token, 1, data, **{"calc1-go": "cards"})
    assert r.get_data(as_text=True).count('name="calc1-card"') == 48
    assert "0 of 7 cards" in page_text(r)
    r = panel(
        en,
        token,
        1,
        data,
        **{"calc1-mode": "declare", "calc1-melds": "family S", "calc1-add": "four A"},
    )
    assert "these melds need 8 cards; a hand holds 7" in error_of(r)


def test_a_team_adds_the_partners_melds(en: FlaskClient) -> None:
    token = new_match(en, "kreuzbinokel", ["A", "B", "C", "D"])
    data = hand_data(en, token, trump="S", declarer=0, bid=200)
    data["parties-1-melds"] = "40"
    data["parties-1-meld_names"] = "binokel"
    r = panel(
        en,
        token,
        1,
        data,
        **{"calc1-mode": "declare", "calc1-melds": "binokel", "calc1-addto": "1"},
    )
    html = r.get_data(as_text=True)
    assert 'value="80"' in html and 'value="binokel,binokel"' in html


def test_the_swiss_game_has_no_hand_form(en: FlaskClient) -> None:
    token = new_match(en, "schweizer", ["A", "B"])
    response = en.post(f"/m/{token}/calculator?party=0", data={}, headers=HX)
    assert response.status_code == 404


def test_a_party_that_is_not_there(en: FlaskClient) -> None:
    token = new_match(en)
    data = hand_data(en, token)
    for party in ("7", "-1", "x", ""):
        response = en.post(f"/m/{token}/calculator?party={party}", data=data, headers=HX)
        assert response.status_code == 404


def test_the_panel_in_a_correction(en: FlaskClient) -> None:
    token = new_match(en)
    data = hand_data(en, token, trump="H", declarer=0, bid=180, melds=[60], tricks=[130, 60])
    data["parties-0-meld_names"] = "four O"
    assert en.post(f"/m/{token}/hands", data=data).status_code in (302, 303)
    hand_id = int(
        re.findall(r'<tr id="hand-(\d+)"', en.get(f"/m/{token}").get_data(as_text=True))[0]
    )
    edit = en.get(f"/m/{token}/hands/{hand_id}/edit").get_data(as_text=True)
    assert f"/m/{token}/calculator?party=0&amp;hand={hand_id}" in edit
    data = form_data(edit, "hand-form")
    response = en.post(
        f"/m/{token}/calculator?party=0&hand={hand_id}", data={**data, "calc0-go": "declare"}
    )
    assert response.status_code == 200
    assert "Correct hand" in page_text(response)
    assert total_of(response) == 60


# -- CSRF and robustness ------------------------------------------------------------------


def test_the_panel_posts_need_the_csrf_token(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    client.set_cookie("lang", "en")
    assert client.get("/melds?add=pair+H").status_code == 200  # GET: nothing changes
    token = new_match_with_csrf(client)
    page = client.get(f"/m/{token}").get_data(as_text=True)
    data = form_data(page, "hand-form")
    data["calc0-go"] = "declare"
    without = {k: v for k, v in data.items() if k != "csrf_token"}
    assert client.post(f"/m/{token}/calculator?party=0", data=without).status_code == 400
    response = client.post(f"/m/{token}/calculator?party=0", data=data)
    assert response.status_code == 200 and 'class="calc-panel"' in response.get_data(as_text=True)
    # htmx sends the token as a header (base.html's hx-headers)
    response = client.post(
        f"/m/{token}/calculator?party=0",
        data=without,
        headers={**HX, "X-CSRFToken": csrf_token_from(page)},
    )
    assert response.status_code == 200


def new_match_with_csrf(client: FlaskClient) -> str:
    page = client.get("/new").get_data(as_text=True)
    data = form_data(page, "setup-form")
    data.update({"players-0": "Anna", "players-1": "Bert", "players-2": "Carl", "action": "start"})
    response = client.post("/new", data=data)
    assert response.status_code in (302, 303), response.get_data(as_text=True)[:2000]
    found = re.search(r"/m/([A-Za-z0-9_-]{20,})", response.headers["Location"])
    assert found
    return found.group(1)


MELD_WORDS = ["pair H", "family E", "binokel", "double_binokel", "four A", "eight K", "diss"]
words = st.one_of(
    st.sampled_from(MELD_WORDS),
    st.sampled_from(["HK:1", "GO:2", "SU:1", "H7:1", "E9:1", "XX:3"]),
    st.text(max_size=30),
)
values = st.one_of(words, st.lists(words, max_size=30).map(",".join))
keys = st.sampled_from(
    [
        "preset",
        "players",
        "trump",
        "declarer",
        "mode",
        "melds",
        "cards",
        "go",
        "add",
        "back",
        "upgrade",
        "implied",
        "card",
        "clear",
        "take",
        "addto",
        "close",
    ]
)
params = st.dictionaries(keys, values, max_size=8)


def expected(
    data: dict[str, str],
    *,
    ruleset: Ruleset | None = None,
    players: int | None = None,
    declarer: bool | None = None,
    declared: str | None = None,
) -> Calculator:
    """What ``scorer.rules.calculator`` makes of a form: the state, then the tap.

    For the page, the rules and the players come from the form as the page reads
    them (an unknown preset is the standard game, players it cannot seat are the
    preset's own); inside a hand, from the match (the keyword arguments).
    """
    if ruleset is None:
        ruleset = PRESETS.get(data.get("preset", ""), PRESETS["standard"])
        choices = player_choices(ruleset)
        try:
            players = int(data.get("players") or "")
        except ValueError:
            players = None
        if players not in choices:
            dealt_in = players_dealt_in(ruleset)
            players = dealt_in if dealt_in in choices else None
    calc = Calculator.start(
        ruleset,
        trump=data.get("trump"),
        players=players,
        mode=data.get("mode"),
        declarer=data.get("declarer", "") not in ("", "false") if declarer is None else declarer,
        declared=data.get("melds") if declared is None else declared,
        cards=data.get("cards"),
    )
    tap(
        calc,
        Tap(
            go=data.get("go"),
            clear=bool(data.get("clear")),
            back=data.get("back"),
            upgrade=data.get("upgrade"),
            card=data.get("card"),
            add=data.get("add"),
            implied=bool(data.get("implied")),
        ),
    )
    return calc


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=params, preset=st.sampled_from(["standard", "sechser", "schweizer", "kreuzbinokel"]))
def test_any_input_on_the_page_is_answered(
    client: FlaskClient, data: dict[str, str], preset: str
) -> None:
    data = {"preset": preset, **data}
    clean = {k: v.replace("\x00", "") for k, v in data.items()}
    response = client.get("/melds", query_string=clean, headers=HX)
    assert response.status_code == 200
    # the page shows what the rules compute for the same state and tap, and says why
    # a tap was refused exactly when the rules refused it
    calc = expected(clean)
    assert total_of(response) == calc.total
    assert bool(error_of(response)) == (calc.error is not None)


# taps a Schreiber makes: real melds and cards of the deck, one button at a time
real_melds = st.sampled_from(
    ["pair H", "pair E", "family G", "binokel", "four A", "four K", "diss"]
)
real_cards = st.sampled_from(["HK:1", "HO:1", "GO:1", "SU:1", "EA:1", "EA:2", "S10:1"])
real_taps = st.one_of(
    st.builds(lambda m: {"add": m}, real_melds),
    st.builds(lambda m: {"back": m}, real_melds),
    st.builds(lambda m: {"upgrade": m}, real_melds),
    st.builds(lambda c: {"mode": "cards", "card": c}, real_cards),
    st.just({"implied": "1"}),
    st.just({"clear": "1"}),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    preset=st.sampled_from(["standard", "sechser", "kreuzbinokel"]),
    trump=st.sampled_from(["E", "G", "H", "S"]),
    declared=st.lists(real_melds, max_size=6),
    cards=st.lists(real_cards, max_size=6),
    pressed=real_taps,
)
def test_a_real_tap_shows_the_total_the_rules_compute(
    client: FlaskClient,
    preset: str,
    trump: str,
    declared: list[str],
    cards: list[str],
    pressed: dict[str, str],
) -> None:
    state = {"preset": preset, "trump": trump, "melds": ",".join(declared)}
    state["cards"] = " ".join(c.partition(":")[0] for c in cards)
    data = {**state, **pressed}
    response = client.get("/melds", query_string=data, headers=HX)
    assert response.status_code == 200
    calc = expected(data)
    assert total_of(response) == calc.total
    assert bool(error_of(response)) == (calc.error is not None)


@pytest.fixture
def match_token(client: FlaskClient) -> str:
    return new_match(client)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=params, party=st.sampled_from(["0", "1", "2"]), htmx=st.booleans())
def test_any_input_in_the_hand_is_answered(
    client: FlaskClient, match_token: str, data: dict[str, str], party: str, htmx: bool
) -> None:
    clean = {k: v.replace("\x00", "") for k, v in data.items()}
    form = {f"calc{party}-{k}": v for k, v in clean.items()}
    form.update({"trump": clean.get("trump", "H"), "declarer": clean.get("players", "0")})
    response = client.post(
        f"/m/{match_token}/calculator?party={party}", data=form, headers=HX if htmx else {}
    )
    assert response.status_code == 200
    ruleset = PRESETS["standard"]
    # opened (no mode in the post yet), the panel starts from the party's line: empty here
    opening = "mode" not in clean
    calc = expected(
        {**clean, "trump": form["trump"]},
        ruleset=ruleset,
        players=players_dealt_in(ruleset),
        declarer=form["declarer"] == party,
        declared="" if opening else clean.get("melds"),
    )
    html = response.get_data(as_text=True)
    if clean.get("take") or clean.get("addto"):
        # taken over: the party's meld field holds the total (nothing was there to add to)
        assert f"{calc.total}" in page_text(html.split('id="calc-taken-', 1)[1][:300])
    elif clean.get("close"):
        assert "calc-sum" not in html
    else:
        assert total_of(response) == calc.total
        assert bool(error_of(response)) == (calc.error is not None)
