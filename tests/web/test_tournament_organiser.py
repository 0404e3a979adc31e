"""The organiser's pages: create a tournament, its home (links, QR codes, rounds), settings.

Flask test client, a fresh database per test; German and English; bad input
gets 422 with the values kept and the reason, never a 500.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.services.tournaments import entrants, setup, tables
from scorer.tournament_models import Tournament
from tests.builders import HX, csrf_token_from, form_data, page_text
from tests.tournament_builders import drawn, play_table, tournament_with

TOKEN_IN = re.compile(r"/t/([A-Za-z0-9_-]{16,})$")


def count(app: Flask) -> int:
    with app.app_context():
        return int(db.session.execute(select(func.count()).select_from(Tournament)).scalar_one())


def only(app: Flask) -> dict[str, Any]:
    """The one tournament's columns and ruleset, read after the request."""
    with app.app_context():
        row = db.session.execute(select(Tournament)).scalar_one()
        return {
            "token": row.token,
            "name": row.name,
            "held_on": row.held_on,
            "place": row.place,
            "rounds": row.rounds,
            "fee": row.entry_fee_cents,
            "schedule": row.fee_schedule,
            "tie_break": row.tie_break,
            "public_url": row.public_url,
            "ruleset": setup.ruleset_of(row),
        }


def new_form(client: FlaskClient, lang: str = "de", **fields: Any) -> dict[str, str]:
    """The create form as a browser sends it, with ``fields`` typed in."""
    data = form_data(client.get(f"/t/new?lang={lang}").get_data(as_text=True), "tournament-form")
    data.update({"name": "Herbstturnier", "action": "save"})
    for key, value in fields.items():
        if value is False:
            data.pop(key, None)
        else:
            data[key] = "y" if value is True else str(value)
    return data


def create(client: FlaskClient, **fields: Any) -> str:
    response = client.post("/t/new", data=new_form(client, **fields))
    assert response.status_code == 303, page_text(response.get_data(as_text=True))[:600]
    found = TOKEN_IN.search(response.headers["Location"])
    assert found
    return found.group(1)


def errors_of(html: str) -> str:
    return (
        " ".join(page_text(m) for m in re.findall(r'<ul class="errors"[^>]*>.*?</ul>', html, re.S))
        + " "
        + " ".join(
            page_text(m) for m in re.findall(r'<div class="form-error".*?</div>', html, re.S)
        )
    )


# -- create ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "de",
            [
                "Neues Turnier",
                "Spiele pro Runde",
                "Startgeld (€)",
                "Verlustgeld (€)",
                "Turnier anlegen",
                "0,50; 1,00 ab 5",
            ],
        ),
        (
            "en",
            [
                "New tournament",
                "Deals per round",
                "Entry fee (€)",
                "Lost-game money (€)",
                "Create tournament",
                "0.50; 1.00 from 5",
            ],
        ),
    ],
)
def test_new_page_in_both_languages(client: FlaskClient, lang: str, words: list[str]) -> None:
    response = client.get(f"/t/new?lang={lang}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    for word in words:
        assert word in html, word
    data = form_data(html, "tournament-form")
    assert data["deals"] == "12" and data["rounds"] == "3"
    # the match setup's house rules, without what a tournament fixes
    assert data["rule-going_off_bonus"] == "half_bid" and "rule-min_bid" in data
    for fixed in ("rule-end", "rule-target", "rule-deals", "rule-games", "rule-dealer_sits_out"):
        assert fixed not in html


def test_new_fragment_for_htmx(client: FlaskClient) -> None:
    response = client.get("/t/new", headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<html" not in html and 'id="tournament-form"' in html
    assert "Turnier anlegen" in html  # the button has its words in the fragment too


def test_create_with_the_defaults_goes_home(app: Flask, client: FlaskClient) -> None:
    token = create(client, entry_fee="7,50", place="Festhalle")
    row = only(app)
    assert row["token"] == token and row["fee"] == 750 and row["place"] == "Festhalle"
    assert row["ruleset"].preset == "turnier" and row["ruleset"].deals == 12
    assert row["schedule"] == "0.50; 1.00 from 5"  # kept in one syntax: every backup reads it
    home = client.get(f"/t/{token}").get_data(as_text=True)
    assert "Diesen Link aufheben: wer ihn hat, leitet das Turnier." in home
    assert f"/t/{token}/qr/organiser.svg" in home
    # shown large once; afterwards folded away
    again = client.get(f"/t/{token}").get_data(as_text=True)
    assert 'class="card t-secret"' in home and 'class="card t-secret"' not in again
    assert "t-secret-later" in again
    # remembered by this device: the app's home page lists it
    start = client.get("/").get_data(as_text=True)
    assert "Meine Turniere" in start and f"/t/{token}" in start and "Herbstturnier" in start


def test_create_with_custom_rules(app: Flask, client: FlaskClient) -> None:
    create(
        client,
        lang="en",
        deals=9,
        rounds=4,
        **{"rule-min_bid": 200, "rule-round_tricks": False, "tie_break": False},
        fee_schedule="1.00",
    )
    row = only(app)
    ruleset = row["ruleset"]
    assert (ruleset.deals, ruleset.min_bid, ruleset.round_tricks) == (9, 200, False)
    assert (ruleset.players, ruleset.end, ruleset.dealer_sits_out) == (3, "deals", False)
    assert row["rounds"] == 4 and row["tie_break"] is False and row["schedule"] == "1.00"


@pytest.mark.parametrize(
    ("lang", "typed", "shown"),
    [
        ("de", "0,50; 1,00 ab 5", "0,50; 1,00 ab 5"),
        ("de", "0.50; 1.00 from 5", "0,50; 1,00 ab 5"),
        ("de", "0,3;0,6 ab 4", "0,30; 0,60 ab 4"),
        ("en", "0,50; 1,00 ab 5", "0.50; 1.00 from 5"),
        ("en", "0.50; 1.00 from 5", "0.50; 1.00 from 5"),
    ],
)
def test_the_lost_game_schedule_speaks_the_users_language(
    app: Flask, client: FlaskClient, lang: str, typed: str, shown: str
) -> None:
    """Issue 30: typed in either syntax, kept in one (English), shown in the user's."""
    default = form_data(client.get(f"/t/new?lang={lang}").get_data(as_text=True))
    assert default["fee_schedule"] == ("0,50; 1,00 ab 5" if lang == "de" else "0.50; 1.00 from 5")
    token = create(client, lang=lang, fee_schedule=typed)
    stored = only(app)["schedule"]
    assert "," not in stored and "ab" not in stored
    home = page_text(client.get(f"/t/{token}?lang={lang}"))
    assert shown in home
    with app.app_context():
        entrants.register(setup.get_tournament(token), "Anna", present=True)
    assert shown in page_text(client.get(f"/t/{token}/money?lang={lang}"))
    assert settings_form(client, token, lang)["fee_schedule"] == shown
    other = "en" if lang == "de" else "de"
    assert settings_form(client, token, other)["fee_schedule"] == (
        shown.replace(",", ".").replace("ab", "from")
        if other == "en"
        else shown.replace(".", ",").replace("from", "ab")
    )
    # saving the settings unchanged keeps the stored form
    data = settings_form(client, token, lang)
    data["action"] = "save"
    assert client.post(f"/t/{token}/settings?lang={lang}", data=data).status_code == 303
    assert only(app)["schedule"] == stored
    if "t_public.rules" in app.view_functions:
        with app.app_context():
            view = setup.get_tournament(token).view_token
        assert shown in page_text(client.get(f"/p/{view}/rules?lang={lang}"))


@pytest.mark.parametrize(
    ("lang", "words"),
    [("de", "keine Staffel"), ("en", "not a lost-game schedule")],
)
def test_a_schedule_neither_syntax_reads_is_refused_in_the_users_language(
    app: Flask, client: FlaskClient, lang: str, words: str
) -> None:
    response = client.post(
        f"/t/new?lang={lang}", data=new_form(client, lang, fee_schedule="0,50 oder 1 ab fünf")
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert words in errors_of(html)
    assert form_data(html, "tournament-form")["fee_schedule"] == "0,50 oder 1 ab fünf"
    assert count(app) == 0


@pytest.mark.parametrize(
    ("lang", "shared", "ordered"),
    [
        ("de", "teilen sich einen Platz: 1, 1, 3", "bessere beste Runde"),
        ("en", "share a place: 1, 1, 3", "the better best round ranks first"),
    ],
)
def test_the_tie_break_is_off_by_default_and_each_choice_says_what_it_means(
    app: Flask, client: FlaskClient, lang: str, shared: str, ordered: str
) -> None:
    html = client.get(f"/t/new?lang={lang}").get_data(as_text=True)
    text = page_text(html)
    assert shared in text and ordered in text
    assert 'value="false" id="tie_break-shared" checked' in html
    assert 'id="tie_break-ordered" checked' not in html
    assert form_data(html, "tournament-form")["tie_break"] == "false"
    create(client)
    assert only(app)["tie_break"] is False


def test_the_tie_break_chosen_is_kept_and_can_be_changed(app: Flask, client: FlaskClient) -> None:
    token = create(client, tie_break=True)
    assert only(app)["tie_break"] is True
    data = settings_form(client, token)
    assert data["tie_break"] == "y"  # the page shows the choice made
    data.update({"tie_break": "false", "action": "save"})
    assert client.post(f"/t/{token}/settings", data=data).status_code == 303
    assert only(app)["tie_break"] is False
    home = page_text(client.get(f"/t/{token}?lang=en").get_data(as_text=True))
    assert "No tie-break: equal points share a place" in home


def test_a_double_tap_makes_one_tournament(app: Flask, client: FlaskClient) -> None:
    data = new_form(client)
    first = client.post("/t/new", data=data)
    second = client.post("/t/new", data=data)
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]
    assert count(app) == 1


def test_back_to_the_tournament_rules(client: FlaskClient) -> None:
    data = new_form(client, deals=9, **{"rule-min_bid": 200})
    data["action"] = "preset"
    html = client.post("/t/new", data=data).get_data(as_text=True)
    again = form_data(html, "tournament-form")
    assert again["rule-min_bid"] == "150" and again["deals"] == "12"
    assert again["name"] == "Herbstturnier"


def test_the_bonus_hints_are_asked_for(client: FlaskClient) -> None:
    data = new_form(client, lang="en", **{"rule-failed_bonus": "flat", "rule-failed_bonus_n": 30})
    data["action"] = "names"
    response = client.post("/t/new?lang=en", data=data, headers=HX)
    assert response.status_code == 200
    assert "At this table: 30 to each opponent." in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"deals": 10}, "deals", "Eine Runde mit 10 Spielen geht an einem Vierertisch nicht auf"),
        ({"deals": 2}, "deals", "Ganze Zahl"),
        ({"deals": "9" * 400}, "deals", ""),
        ({"rounds": str(10**309)}, "rounds", ""),
        ({"rounds": "1e309"}, "rounds", ""),
        ({"rounds": 0}, "rounds", ""),
        ({"name": ""}, "name", ""),
        ({"name": "Herbst\x00turnier"}, "name", "Steuerzeichen"),
        ({"name": "H" * 5000}, "name", ""),
        ({"entry_fee": "sieben"}, "entry_fee", ""),
        ({"entry_fee": "10" * 200}, "entry_fee", ""),
        ({"fee_schedule": "50 Cent"}, "fee_schedule", "keine Staffel"),
        ({"held_on": "morgen"}, "held_on", "kein Datum"),
        ({"place": "Halle\x00"}, "place", ""),
        ({"rule-min_bid": "9" * 400}, "rule-min_bid", ""),
    ],
)
def test_bad_input_keeps_the_values_and_says_why(
    app: Flask, client: FlaskClient, fields: dict[str, Any], field: str, words: str
) -> None:
    data = new_form(client, **{"place": "Festhalle", **fields})
    response = client.post("/t/new", data=data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Bitte die markierten Felder korrigieren." in html
    kept = form_data(html, "tournament-form")
    assert kept.get(field, "") == data.get(field, "")[:5000] or field in (
        "rounds",
        "deals",
        "rule-min_bid",
    )
    assert f'id="{field}-err"' in html
    if words:
        assert words.lower() in errors_of(html).lower()
    assert count(app) == 0


def test_csrf_field_in_the_form(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    html = client.get("/t/new").get_data(as_text=True)
    assert csrf_token_from(html)
    data = form_data(html, "tournament-form")
    data["name"] = "Turnier"
    assert client.post("/t/new", data=data).status_code == 303
    data.pop("csrf_token")
    assert client.post("/t/new", data=data).status_code == 400


def test_a_json_body_is_refused(client: FlaskClient) -> None:
    assert client.post("/t/new", json={"name": 1e309}).status_code == 415


# -- home ------------------------------------------------------------------------------------


def test_home_in_english_and_unknown_tokens(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(5, rounds_=3)
        token = tournament.token
    html = client.get(f"/t/{token}?lang=en").get_data(as_text=True)
    text = page_text(html)
    assert "5 registered" in text and "5 present" in text
    assert "5 players do not fit" in text  # the rules' word: no round with 5
    assert re.search(r"<button[^>]*disabled[^>]*>Draw round 1", html)
    assert client.get("/t/AAAAAAAAAAAAAAAAAAAAAA").status_code == 404
    assert client.get("/t/" + "x" * 70).status_code == 404
    assert client.get(f"/t/{token}/qr/other.svg").status_code == 404


def test_home_shows_the_rounds_and_the_draw(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(7, rounds_=2)
        token = tournament.token
    html = client.get(f"/t/{token}").get_data(as_text=True)
    assert re.search(r'<input type="hidden" name="number" value="1">', html)
    button = re.search(r"<button[^>]*>Runde 1 auslosen</button>", html)
    assert button
    if "t_rounds.draw" in app.view_functions:  # built by the rounds' part
        assert f'action="/t/{token}/rounds"' in html and "disabled" not in button.group(0)
    with app.app_context():
        drawn(setup.get_tournament(token))
    html = client.get(f"/t/{token}").get_data(as_text=True)
    assert "Runde 1" in html and "2 Tische" in html
    assert "Erst Runde 1 abschließen, dann die nächste auslosen." in html
    if "t_rounds.round_page" in app.view_functions:
        assert f"/t/{token}/rounds/1" in html


def test_the_qr_codes(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        token = setup.create_tournament(name="Turnier", public_url="http://192.168.4.1:5000").token
    response = client.get(f"/t/{token}/qr/organiser.svg")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert b"<svg" in response.data
    public = client.get(f"/t/{token}/qr/public.svg")
    html = client.get(f"/t/{token}").get_data(as_text=True)
    # the links carry the address the phones reach, never this machine's loopback
    assert f"http://192.168.4.1:5000/t/{token}" in html
    if "t_public.ranking" in app.view_functions:
        assert public.status_code == 200 and "http://192.168.4.1:5000/p/" in html
    else:
        assert public.status_code == 404


# -- settings ---------------------------------------------------------------------------------


def settings_form(client: FlaskClient, token: str, lang: str = "de") -> dict[str, str]:
    html = client.get(f"/t/{token}/settings?lang={lang}").get_data(as_text=True)
    return form_data(html, "tournament-form")


def test_settings_show_and_change_everything_before_round_1(
    app: Flask, client: FlaskClient
) -> None:
    token = create(client, entry_fee="7,50")
    data = settings_form(client, token)
    assert data["entry_fee"] == "7,50" and data["deals"] == "12" and data["public_url"] == ""
    data.update(
        {
            "name": "Winterturnier",
            "deals": "9",
            "rule-min_bid": "200",
            "public_url": "http://192.168.4.1:5000",
            "action": "save",
        }
    )
    response = client.post(f"/t/{token}/settings", data=data)
    assert response.status_code == 303
    row = only(app)
    assert row["name"] == "Winterturnier" and row["public_url"] == "http://192.168.4.1:5000"
    assert row["ruleset"].deals == 9 and row["ruleset"].min_bid == 200
    assert "Die Einstellungen sind gespeichert." in client.get(f"/t/{token}").get_data(as_text=True)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("192.168.4.1:5000", "keine Adresse"),
        ("http://192.168.4.1:99999", "keine Adresse"),
        ("ftp://laptop", "keine Adresse"),
        ("http://laptop/\x00", ""),
        ("http://" + "a" * 300, ""),
    ],
)
def test_settings_refuse_an_address_no_phone_opens(
    app: Flask, client: FlaskClient, url: str, words: str
) -> None:
    token = create(client)
    data = settings_form(client, token)
    data.update({"public_url": url, "name": "Neu", "action": "save"})
    response = client.post(f"/t/{token}/settings", data=data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'id="public_url-err"' in html
    if words:
        assert words in errors_of(html)
    assert only(app)["name"] == "Herbstturnier"


def test_settings_after_round_1_show_the_rules_read_only(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(6, rounds_=3)
        token = tournament.token
        before = dict(tournament.ruleset)
        drawn(tournament)
    html = client.get(f"/t/{token}/settings").get_data(as_text=True)
    assert "Runde 1 ist ausgelost" in html and "rule-min_bid" not in html
    data = form_data(html, "tournament-form")
    assert "deals" not in data  # shown read-only, not sent (tests/web/test_tournament_settings.py)
    data.update({"name": "Neu", "rounds": "4", "action": "save"})
    assert client.post(f"/t/{token}/settings", data=data).status_code == 303
    row = only(app)
    assert row["name"] == "Neu" and row["rounds"] == 4
    with app.app_context():
        assert db.session.execute(select(Tournament)).scalar_one().ruleset == before


def test_settings_fragment_and_english(app: Flask, client: FlaskClient) -> None:
    token = create(client)
    response = client.get(f"/t/{token}/settings?lang=en", headers=HX)
    html = response.get_data(as_text=True)
    assert "<html" not in html and "Address for the phones" in html and ">Save<" in html


def test_home_counts_checked_in_players(app: Flask, client: FlaskClient) -> None:
    token = create(client)
    with app.app_context():
        tournament = setup.get_tournament(token)
        for name in ("Anna", "Bert", "Carl"):
            entrants.register(tournament, name, present=True)
        entrants.register(tournament, "Dora")
    text = page_text(client.get(f"/t/{token}").get_data(as_text=True))
    assert "4 angemeldet" in text and "3 anwesend" in text


# -- closing the round from the organiser's page (issue 30) ----------------------------------


def round_played(app: Flask, *, sign: bool = True, tables_done: int = 3) -> str:
    """Nine players, round 1 of 2 drawn; ``tables_done`` tables played out (and signed)."""
    with app.app_context():
        tournament = tournament_with(9, rounds_=2)
        row = drawn(tournament)
        for table in row.tables[:tables_done]:
            play_table(table)
            if sign:
                for player in table.players:
                    tables.confirm(table, player)
        return str(tournament.token)


def test_the_round_is_closed_from_the_organisers_page(app: Flask, client: FlaskClient) -> None:
    token = round_played(app)
    html = client.get(f"/t/{token}").get_data(as_text=True)
    text = page_text(html)
    assert "Runde 1 abschließen" in text and "Alle Tische sind fertig und unterschrieben." in text
    assert "Erst Runde 1 abschließen, dann die nächste auslosen." in text
    assert re.search(
        r'<button type="submit" class="block" disabled aria-describedby="draw-waits"', html
    )
    data = form_data(html, "home-close-form")
    assert data == {"warned": "", "back": f"/t/{token}"}
    asked = client.post(f"/t/{token}/rounds/1/close", data=data)
    assert asked.status_code == 200 and "Runde 1 abschließen?" in page_text(asked)
    with app.app_context():
        assert setup.get_tournament(token).round_rows[0].closed_at is None
    question = asked.get_data(as_text=True)
    assert f'href="/t/{token}"' in question  # "Zurück" leads where the tap was
    closed = client.post(f"/t/{token}/rounds/1/close", data=form_data(question, "close-confirm"))
    assert closed.status_code == 303 and closed.headers["Location"] == f"/t/{token}"
    home = client.get(f"/t/{token}").get_data(as_text=True)
    assert "Runde 1 ist abgeschlossen." in page_text(home)
    assert 'id="home-close-form"' not in home
    assert re.search(r"<button[^>]*>Runde 2 auslosen</button>", home)
    assert not re.search(r"<button[^>]*disabled[^>]*>Runde 2 auslosen", home)


def test_the_organisers_page_says_why_the_round_cannot_be_closed(
    app: Flask, client: FlaskClient
) -> None:
    token = round_played(app, tables_done=1)
    html = client.get(f"/t/{token}").get_data(as_text=True)
    assert "Tische 2, 3 spielen noch" in page_text(html)
    assert re.search(
        r'<button type="submit" class="primary block" disabled aria-describedby="close-why">'
        r"Runde 1 abschließen",
        html,
    )
    refused = client.post(f"/t/{token}/rounds/1/close", data=form_data(html, "home-close-form"))
    assert refused.status_code == 303
    assert "Tische 2, 3 sind noch nicht fertig" in page_text(
        client.get(refused.headers["Location"])
    )
    with app.app_context():
        assert setup.get_tournament(token).round_rows[0].closed_at is None


def test_unsigned_tables_are_named_on_the_organisers_page_and_asked_about(
    app: Flask, client: FlaskClient
) -> None:
    token = round_played(app, sign=False)
    client.set_cookie("lang", "en")
    html = client.get(f"/t/{token}").get_data(as_text=True)
    assert "Tables 1, 2, 3 have not confirmed their results with every player" in page_text(html)
    data = form_data(html, "home-close-form")
    assert data["warned"] == "1,2,3"
    asked = client.post(f"/t/{token}/rounds/1/close", data=data)
    assert "Close round 1 anyway" in page_text(asked)
    closed = client.post(
        f"/t/{token}/rounds/1/close", data=form_data(asked.get_data(as_text=True), "close-confirm")
    )
    assert "Round 1 is closed." in page_text(client.get(closed.headers["Location"]))
