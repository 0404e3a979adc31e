"""The variants of docs/rules.md section 12 where a user meets them: the setup form, the
rules page, the PDF's rules line, the backup; the next match's first dealer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from scorer import services
from scorer.extensions import db
from scorer.models import Match
from scorer.services import HandInput
from tests.builders import (
    HX,
    form_data,
    fresh_app,
    page_text,
    service_match,
    session_token_of,
    setup_data,
    shows,
    start_match,
)
from tests.web.test_backup import upload
from tests.web.test_pdf import pdf_text

NAMES = ["Anna", "Bert", "Carl"]


def ruleset_of(app: Flask, token: str) -> dict[str, Any]:
    with app.app_context():
        match = db.session.execute(select(Match).where(Match.token == token)).scalar_one()
        return dict(match.ruleset)


# -- the setup form: every new option -------------------------------------------------


def test_setup_form_offers_every_new_option(client: FlaskClient) -> None:
    html = client.get("/new?lang=en").get_data(as_text=True)
    data = form_data(html, "setup-form")
    for key in (
        "rule-failed_bonus",
        "rule-failed_bonus_n",
        "rule-going_off_bonus",
        "rule-going_off_bonus_n",
        "rule-dabb",
        "rule-card_points",
        "rule-rundgang",
        "rule-diss_pressable",
        "rule-dealer",
        "rule-first_dealer",
        "rule-games",
    ):
        assert key in data, key
    assert data["rule-going_off_bonus"] == "per_player" and data["rule-going_off_bonus_n"] == "10"
    assert data["rule-card_points"] == "11-10-4-3-2" and data["rule-rundgang"] == "sum"
    assert data["rule-eight_ranks_A"] == "y" and data["rule-eight_ranks_7"] == "y"
    text = page_text(client.get("/new?lang=en"))
    assert "More rules" in text and "the trump seven may be melded and then pressed" in text
    de = page_text(client.get("/new?lang=de"))
    assert "Weitere Regeln" in de and "Zählweise (D-10-K-O-U)" in de


@pytest.mark.parametrize(
    ("rules", "stored"),
    [
        ({"failed_bonus": "flat", "failed_bonus_n": "40"}, {"failed_bonus": "flat 40"}),
        (
            {"going_off_bonus": "per_player", "going_off_bonus_n": "20"},
            {"going_off_bonus": "per_player 20"},
        ),
        ({"going_off_bonus": "half_bid", "going_off_bonus_n": ""}, {"going_off_bonus": "half_bid"}),
        ({"failed_bonus": "none"}, {"failed_bonus": "none"}),
        ({"sevens": True, "dabb": "6"}, {"sevens": True, "dabb": 6}),
        ({"sevens": True, "dabb": "0"}, {"dabb": 0}),
        ({"card_points": "10-10-10-0-0"}, {"card_points": "10-10-10-0-0"}),
        ({"rundgang": "flat 250"}, {"rundgang": "flat 250"}),
        ({"sevens": True, "diss_pressable": False}, {"diss_pressable": False}),
        ({"dealer": "winner"}, {"dealer": "winner"}),
        ({"first_dealer": "after_winner"}, {"first_dealer": "after_winner"}),
        ({"end": "games", "games": "5"}, {"end": "games", "games": 5}),
    ],
)
def test_setup_stores_each_option(
    app: Flask, client: FlaskClient, rules: dict[str, Any], stored: dict[str, Any]
) -> None:
    data = setup_data(client, NAMES)
    for key, value in rules.items():  # straight to the rule fields ("first_dealer" is one too)
        if value is False:
            data.pop(f"rule-{key}", None)
        else:
            data[f"rule-{key}"] = "y" if value is True else value
    response = client.post("/new", data=data)
    assert response.status_code in (302, 303), page_text(response)
    ruleset = ruleset_of(app, response.headers["Location"].rsplit("/", 1)[-1])
    for key, value in stored.items():
        assert ruleset[key] == value


def test_setup_eight_ranks_without_tens(app: Flask, client: FlaskClient) -> None:
    data = setup_data(client, NAMES, eight_ranks_10=False, eight_ranks_7=False)
    response = client.post("/new", data=data)
    assert response.status_code in (302, 303)
    token = response.headers["Location"].rsplit("/", 1)[-1]
    assert ruleset_of(app, token)["eight_ranks"] == ["A", "K", "O", "U"]
    shows(client, f"/m/{token}/rules?lang=en", "Achterle (eight of a kind) of: A, K, O, U.")


def test_setup_all_eight_ranks_is_the_default(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    assert ruleset_of(app, token)["eight_ranks"] is None


@pytest.mark.parametrize(
    ("rules", "message", "kept"),
    [
        (
            {"failed_bonus": "flat", "failed_bonus_n": ""},
            "type the number N for 'flat'",
            {"rule-failed_bonus": "flat"},
        ),
        (
            {"failed_bonus": "flat", "failed_bonus_n": "-5"},
            "Please correct the marked fields.",
            {"rule-failed_bonus_n": "-5"},
        ),
        (
            {"sevens": True, "dabb": "5"},
            "3 players cannot be dealt from the 48-card deck with a Dabb of 5",
            {"rule-dabb": "5"},
        ),
        ({"dabb": "17"}, "Please correct the marked fields.", {"rule-dabb": "17"}),
        (
            {"end": "games", "games": "4"},
            "house rule 'games' must be an odd number of hands",
            {"rule-games": "4"},
        ),
        ({"card_points": "11-10-4-3-1"}, "Please correct the marked fields.", {}),
        ({"dealer": "loser"}, "Please correct the marked fields.", {}),
    ],
)
def test_setup_refuses_bad_values_and_keeps_them(
    client: FlaskClient, rules: dict[str, Any], message: str, kept: dict[str, str]
) -> None:
    data = setup_data(client, NAMES, title="Krone", **rules)
    response = client.post("/new?lang=en", data=data)
    assert response.status_code == 422
    assert message in page_text(response)
    again = form_data(response.get_data(as_text=True), "setup-form")
    assert again["players-0"] == "Anna" and again["title"] == "Krone"
    for key, value in kept.items():
        assert again[key] == value


def test_german_refusal_of_a_bad_dabb(client: FlaskClient) -> None:
    data = setup_data(client, NAMES, sevens=True, dabb="5")
    response = client.post("/new?lang=de", data=data)
    assert response.status_code == 422
    assert "mit einem Dabb von 5 nicht gegeben werden" in page_text(response)


def test_schweizer_for_three_players(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES, "schweizer")
    assert ruleset_of(app, token)["players"] == 3


def test_labels_are_short_enough_for_a_phone(client: FlaskClient) -> None:
    html = client.get("/new?lang=de").get_data(as_text=True)
    assert "Standard (schwäbisch, 3 Spieler)<" in html
    assert "je volle 100<" in html


# -- team pickers and the first dealer name the typed players -----------------------


def test_names_refresh_the_team_pickers_and_the_first_dealer(client: FlaskClient) -> None:
    data = setup_data(client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel")
    data["action"] = "names"
    data["players-3"] = "Doris"
    response = client.post("/new?lang=de", data=data, headers=HX)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    section = html.split('id="seat-choices-inner"', 1)[1].split("house-rules", 1)[0]
    assert "Spieler 4" not in section
    assert section.count("Doris") == 3  # the team row, its label and the first dealer
    assert "Anna" in section and "Bert" in section
    # nothing was started: the form comes back as typed
    assert form_data(html, "setup-form")["players-3"] == "Doris"


# -- the rules page ----------------------------------------------------------------------


def test_rules_page_says_every_option_in_force(app: Flask, client: FlaskClient) -> None:
    token = service_match(
        app,
        NAMES,
        sevens=True,
        dabb=6,
        card_points="10-10-5-5-0",
        rundgang="flat 250",
        failed_bonus="flat 40",
        dealer="winner",
        first_dealer="after_winner",
    )
    shows(
        client,
        f"/m/{token}/rules?lang=en",
        "Deal: 14 cards each, Dabb 6.",
        "Trick points are counted 10-10-5-5-0",
        "A Rundgang (a pair in every suit) always counts 250",
        "The Diss (trump seven) may be melded and then pressed",
        "The winner of a hand (the party that scored the most in it) deals the next",
        "After a won match the winner deals the first hand of the next one",
        "each opposing party gets its melds and tricks plus 40 each",
        "Caught signalling",
        "A trick worth 0 points is a trick",
    )
    shows(
        client,
        f"/m/{token}/rules?lang=de",
        "Geben: je 14 Karten, Dabb 6.",
        "Stichpunkte zählen 10-10-5-5-0",
        "Rundgang (ein Paar in jeder Farbe) zählt immer 250",
        "Beim Zeichengeben ertappt",
    )


def test_rules_page_defaults(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, NAMES)
    shows(
        client,
        f"/m/{token}/rules?lang=en",
        "Deal: 12 cards each, Dabb 4.",
        "Trick points are counted 11-10-4-3-2",
        "counts what its parts add up to: 240",
        "The deal moves one seat on every hand.",
        "The next match of the session starts one seat on.",
    )


def test_rules_page_best_of(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, ["Anna", "Bert"], preset="schweizer", end="games", games=5)
    shows(client, f"/m/{token}/rules?lang=en", "Best of 5 hands")


# -- best of N on the sheet ----------------------------------------------------------------


def test_sheet_shows_the_hands_won(app: Flask, client: FlaskClient) -> None:
    hands = [
        HandInput(outcome="open_play", melds=[80, 0], tricks=[70, 60]),
        HandInput(outcome="open_play", melds=[0, 20], tricks=[50, 80]),
    ]
    token = service_match(app, ["Anna", "Bert"], hands, preset="schweizer", end="games", games=3)
    shows(client, f"/m/{token}?lang=en", "1 of 3 hands won")
    shows(client, f"/m/{token}?lang=de", "1 von 3 Spielen gewonnen")


# -- the PDF's rules line ---------------------------------------------------------------


def test_pdf_rules_line_names_the_variants(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    token = service_match(
        app, NAMES, sevens=True, dabb=0, card_points="15-15-0-0-0", dealer="winner", target=10000
    )
    text = " ".join(pdf_text(client.get(f"/m/{token}/sheet.pdf?lang=en").data, tmp_path).split())
    assert "to 10000" in text or "to 10,000" in text
    assert "to 1000 " not in text
    for phrase in ("Dabb 0", "counting 15-15-0-0-0", "the winner deals"):
        assert phrase in text


def test_pdf_rules_line_defaults_name_no_variant(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    token = service_match(app, NAMES)
    text = pdf_text(client.get(f"/m/{token}/sheet.pdf?lang=en").data, tmp_path)
    assert "counting" not in text and "Dabb" not in text and "winner deals" not in text


# -- backups ----------------------------------------------------------------------------


def _backup(client: FlaskClient, app: Flask, token: str) -> dict[str, Any]:
    session = session_token_of(app, token)
    return dict(json.loads(client.get(f"/s/{session}/backup.json").data))


def test_backup_round_trip_keeps_the_variants(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    hands = [HandInput(outcome="open_play", melds=[80, 0], tricks=[70, 60])]
    token = service_match(
        app,
        ["Anna", "Bert", "Carl"],
        hands,
        preset="schweizer",
        end="games",
        games=5,
        dealer="winner",
        card_points="10-10-10-0-0",
    )
    data = _backup(client, app, token)
    rules = data["sessions"][0]["matches"][0]["ruleset"]
    assert rules["end"] == "games" and rules["dealer"] == "winner"
    (tmp_path / "other").mkdir()
    with fresh_app(tmp_path / "other") as other:
        response = upload(other.test_client(), json.dumps(data))
        assert response.status_code == 302, page_text(response)
        with other.app_context():
            match = services.get_match(token)
            assert match.ruleset["games"] == 5 and match.ruleset["card_points"] == "10-10-10-0-0"


def test_old_backup_without_the_new_fields_imports_with_defaults(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    token = service_match(app, NAMES, 2)
    data = _backup(client, app, token)
    rules = data["sessions"][0]["matches"][0]["ruleset"]
    # a backup of release 0.1 wrote every field; a compact one (0.2) only the preset's
    # differences: either way these keys may be missing
    for key in ("dabb", "card_points", "rundgang", "diss_pressable", "games", "dealer"):
        rules.pop(key, None)
    rules.pop("first_dealer", None)
    (tmp_path / "other").mkdir()
    with fresh_app(tmp_path / "other") as other:
        response = upload(other.test_client(), json.dumps(data))
        assert response.status_code == 302, page_text(response)
        with other.app_context():
            imported = services.ruleset_of(services.get_match(token))
            assert imported.card_points == "11-10-4-3-2" and imported.dealer == "rotate"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("card_points", "12-10-4-3-2", "'card_points'"),
        ("dabb", 99, "'dabb'"),
        ("games", 4, "'games'"),
        ("dealer", ["winner"], "'dealer'"),
        ("rundgang", None, "'rundgang'"),
        ("eight_ranks", ["A", "X"], "X"),
    ],
)
def test_poisoned_variant_in_a_backup_is_refused(
    app: Flask, client: FlaskClient, key: str, value: Any, message: str
) -> None:
    token = service_match(app, NAMES, 1)
    data = _backup(client, app, token)
    data["sessions"][0]["matches"][0]["ruleset"][key] = value
    response = upload(client, json.dumps(data))
    assert response.status_code == 422
    assert message in page_text(response)


# -- the next match's first dealer (services call the rules) ------------------------------


def _won_match(app: Flask, **changes: Any) -> str:
    # Carl (party 2) declares and makes 1000 (an Achterle) + a big game: over 1000
    hands = [
        HandInput(declarer=2, bid=300, trump="E", melds=[0, 0, 1000], tricks=[60, 60, 130]),
    ]
    return service_match(app, NAMES, hands, **changes)


@pytest.mark.parametrize(("rule", "expected"), [("rotate", 1), ("after_winner", 2)])
def test_next_match_first_dealer(app: Flask, rule: str, expected: int) -> None:
    token = _won_match(app, first_dealer=rule)
    with app.app_context():
        match = services.get_match(token)
        assert services.sheet(match).finished
        later = services.next_match(match)
        assert later.first_dealer == expected


# -- the meld calculator says which counting is in play ------------------------------------


def test_calculator_page_names_the_counting(client: FlaskClient) -> None:
    shows(client, "/melds?lang=en", "Trick points counted 11-10-4-3-2")
    shows(client, "/melds?lang=de", "Stichpunkte gezählt 11-10-4-3-2")


def test_calculator_panel_names_a_counting_that_is_not_the_usual(
    app: Flask, client: FlaskClient
) -> None:
    token = service_match(app, NAMES, card_points="10-10-10-0-0")
    response = client.post(f"/m/{token}/calculator?party=0&lang=en", data={}, headers=HX)
    assert response.status_code == 200
    assert "counting 10-10-10-0-0" in page_text(response)
    usual = service_match(app, NAMES)
    response = client.post(f"/m/{usual}/calculator?party=0&lang=en", data={}, headers=HX)
    assert "counting" not in page_text(response)


def test_ticking_teams_offers_partners_opposite(client: FlaskClient) -> None:
    data = setup_data(client, ["Anna", "Bert", "Carl", "Dora"])
    data["teams"] = "y"
    data["action"] = "names"
    html = client.post("/new?lang=en", data=data, headers=HX).get_data(as_text=True)
    again = form_data(html, "setup-form")
    assert [again[f"team_of-{i}"] for i in range(4)] == ["0", "1", "0", "1"]


def test_pdf_house_rules_say_the_choices_in_words(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    token = service_match(app, NAMES, failed_bonus="flat 50", dealer="winner")
    text = " ".join(pdf_text(client.get(f"/m/{token}/sheet.pdf?lang=de").data, tmp_path).split())
    assert "Bonus für die Gegner: 50 für jede Partei" in text
    assert "Nächster Geber: der Gewinner des Spiels" in text
