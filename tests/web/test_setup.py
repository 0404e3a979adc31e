"""Starting a session and a match: players, teams, presets, house rules, stakes; home."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.models import GameSession, Match, Player, Seat
from tests.builders import HX, form_data, page_text, setup_data, shows, start_match


def count(app: Flask, model: type) -> int:
    with app.app_context():
        return int(db.session.execute(select(func.count()).select_from(model)).scalar_one())


def match_row(app: Flask, token: str) -> tuple[dict, list[tuple[str, int]], int, int, str]:
    with app.app_context():
        m = db.session.execute(select(Match).where(Match.token == token)).scalar_one()
        seats = [(s.name, s.party) for s in m.seats]
        return m.ruleset, seats, m.first_dealer, m.session.stake_cents, m.session.stake_basis


def test_new_page_has_the_setup_form(client: FlaskClient) -> None:
    response = client.get("/new?lang=en")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<html" in html
    data = form_data(html, "setup-form")
    assert [k for k in data if k.startswith("players-")] == ["players-0", "players-1", "players-2"]
    assert data["preset"] == "standard"
    assert data["rule-target"] == "1000"


def test_new_fragment_for_htmx(client: FlaskClient) -> None:
    response = client.get("/new", headers=HX)
    assert response.status_code == 200
    assert "<html" not in response.get_data(as_text=True)
    assert 'id="setup-form"' in response.get_data(as_text=True)
    assert "HX-Request" in response.headers["Vary"]


def test_start_standard_match(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert", "Carl"], title="Krone")
    ruleset, seats, first, stake, _ = match_row(app, token)
    assert seats == [("Anna", 0), ("Bert", 1), ("Carl", 2)]
    assert ruleset["preset"] == "standard"
    assert first == 0 and stake == 0
    shows(
        client,
        f"/m/{token}?lang=en",
        "Krone",
        "Dealer (Geber): Anna",
        "Leads (Vorhand): Bert",
        "No hands yet.",
    )


def test_htmx_start_redirects_with_hx_redirect(client: FlaskClient) -> None:
    data = setup_data(client, ["Anna", "Bert", "Carl"])
    response = client.post("/new", data=data, headers=HX)
    assert response.headers["HX-Redirect"].startswith("/m/")


def test_names_are_cleaned_and_remembered(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["  Anna   Maria ", "Bert", "Carl"])
    _, seats, *_ = match_row(app, token)
    assert seats[0][0] == "Anna Maria"
    assert count(app, Player) == 3
    # the next setup offers them (autocomplete)
    html = client.get("/new").get_data(as_text=True)
    assert '<option value="Anna Maria">' in html
    response = client.get("/players?q=an", headers=HX)
    assert response.status_code == 200
    assert "Anna Maria" in response.get_data(as_text=True)
    assert "Bert" not in response.get_data(as_text=True)
    # used again: not a second row
    start_match(client, ["Anna Maria", "Bert", "Dora"])
    assert count(app, Player) == 4


def test_kreuzbinokel_pairs_partners_opposite(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel")
    ruleset, seats, *_ = match_row(app, token)
    assert ruleset["team_size"] == 2
    assert [p for _, p in seats] == [0, 1, 0, 1]
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "Anna & Carl" in text and "Bert & Dora" in text


def test_kreuzbinokel_schreiber_changes_the_pairing(app: Flask, client: FlaskClient) -> None:
    token = start_match(
        client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel", teams=[0, 0, 1, 1]
    )
    _, seats, *_ = match_row(app, token)
    assert [p for _, p in seats] == [0, 0, 1, 1]
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "Anna & Bert" in text and "Carl & Dora" in text


def test_four_players_the_setup_offers_teams_by_default(client: FlaskClient) -> None:
    data = setup_data(client, ["A", "B", "C", "D"], "kreuzbinokel")
    assert data["teams"] == "y"
    assert [data[f"team_of-{i}"] for i in range(4)] == ["0", "1", "0", "1"]


def test_sechser_three_teams(app: Flask, client: FlaskClient) -> None:
    names = ["A1", "B1", "C1", "A2", "B2", "C2"]
    data = setup_data(client, names, "sechser")
    assert [data[f"team_of-{i}"] for i in range(6)] == ["0", "1", "2", "0", "1", "2"]
    token = start_match(client, names, "sechser")
    ruleset, seats, *_ = match_row(app, token)
    assert ruleset["sevens"] is True
    assert [p for _, p in seats] == [0, 1, 2, 0, 1, 2]
    text = page_text(client.get(f"/m/{token}?lang=en"))
    for pair in ("A1 & A2", "B1 & B2", "C1 & C2"):
        assert pair in text


def test_sechser_pairing_changed(app: Flask, client: FlaskClient) -> None:
    names = ["A", "B", "C", "D", "E", "F"]
    token = start_match(client, names, "sechser", teams=[0, 0, 1, 1, 2, 2])
    _, seats, *_ = match_row(app, token)
    assert [p for _, p in seats] == [0, 0, 1, 1, 2, 2]


def test_house_rules_override_the_preset(app: Flask, client: FlaskClient) -> None:
    token = start_match(
        client, ["A", "B", "C"], target=1500, going_off_bonus="half_bid", four_tens=100, durch=None
    )
    ruleset, *_ = match_row(app, token)
    assert ruleset["target"] == 1500
    assert ruleset["going_off_bonus"] == "half_bid"
    assert ruleset["four_tens"] == 100
    text = page_text(client.get(f"/m/{token}/rules?lang=en"))
    assert "House rules that differ from the preset" in text
    assert "target" in text
    # Durch is off: the hand form does not offer it
    html = client.get(f"/m/{token}").get_data(as_text=True)
    assert 'value="durch"' not in html
    assert 'value="bettel"' in html


def test_fixed_number_of_deals(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["A", "B", "C"], "turnier")
    ruleset, *_ = match_row(app, token)
    assert ruleset["end"] == "deals" and ruleset["deals"] == 12
    assert "12 of 12 deals left" in page_text(client.get(f"/m/{token}?lang=en"))


def test_stake_and_first_dealer(app: Flask, client: FlaskClient) -> None:
    token = start_match(
        client, ["A", "B", "C"], stake="0,10", stake_basis="started", first_dealer=2
    )
    _, _, first, stake, basis = match_row(app, token)
    assert (first, stake, basis) == (2, 10, "started")
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "Dealer (Geber): C" in text and "Leads (Vorhand): A" in text


@pytest.mark.parametrize(
    ("names", "changes", "message"),
    [
        (["Anna", "Bert", "Carl"], {"stake": "zehn"}, "Enter an amount like 0,10"),
        (["Anna", "", "Carl"], {}, "Enter a name"),
        (["Anna", "anna", "Carl"], {}, "Every player needs a different name."),
        (["A" * 41, "Bert", "Carl"], {}, "40"),
    ],
)
def test_a_mistake_is_marked_and_what_was_typed_kept(
    app: Flask, client: FlaskClient, names: list[str], changes: dict[str, Any], message: str
) -> None:
    data = setup_data(client, names, **changes)
    response = client.post("/new?lang=en", data=data)
    assert response.status_code == 422
    assert message in page_text(response)
    kept = form_data(response.get_data(as_text=True), "setup-form")
    assert kept["players-0"] == names[0] and kept["players-2"] == names[2]
    for field, value in changes.items():
        assert kept[field] == value
    assert count(app, GameSession) == 0 and count(app, Match) == 0 and count(app, Seat) == 0


def test_no_names_refused(app: Flask, client: FlaskClient) -> None:
    data = setup_data(client, [])
    response = client.post("/new?lang=en", data=data, headers=HX)
    assert response.status_code == 422
    assert "<html" not in response.get_data(as_text=True)
    assert "Enter at least two players." in page_text(response)
    assert count(app, Match) == 0


def test_unplayable_house_rules_refused(app: Flask, client: FlaskClient) -> None:
    for rules in ({"bid_step": 0}, {"target": 0}, {"min_bid": 155}, {"dealer_sits_out": True}):
        data = setup_data(client, ["A", "B", "C"], **rules)
        response = client.post("/new?lang=en", data=data)
        assert response.status_code == 422, rules
    assert count(app, Match) == 0


@pytest.mark.parametrize(
    ("names", "preset", "changes", "message"),
    [
        (
            ["A", "B", "C", "D"],
            "kreuzbinokel",
            {"teams": [0, 0, 0, 1]},
            "every team needs exactly 2",
        ),
        (["A", "B", "C"], "turnier", {"deals": 10}, "multiple"),
        (["Anna", "Bert"], "standard", {}, "3 players"),
        (["A", "B", "C", "D"], "kreuzbinokel", {"dealer_sits_out": True}, "sit out"),
        (["A", "B", "C"], "standard", {"teams_field": "y"}, "team"),
        (["A", "B", "C", "D", "E", "F"], "standard", {}, "6 players"),
    ],
)
def test_a_table_the_rules_cannot_deal_is_refused(
    app: Flask,
    client: FlaskClient,
    names: list[str],
    preset: str,
    changes: dict[str, Any],
    message: str,
) -> None:
    """Uneven teams, deals that do not go round, too few or too many for the deck."""
    changes = dict(changes)
    teams_field = changes.pop("teams_field", None)
    data = setup_data(client, names, preset, **changes)
    if teams_field:
        data["teams"] = teams_field
    response = client.post("/new?lang=en", data=data)
    assert response.status_code == 422
    assert message in page_text(response)
    assert count(app, Match) == 0


def test_preset_change_refills_the_house_rules(client: FlaskClient) -> None:
    data = setup_data(client, ["A", "B", "C"], "turnier")
    assert data["rule-end"] == "deals"
    assert data["rule-going_off_bonus"] == "half_bid"
    assert "rule-round_tricks" in data
    data = setup_data(client, ["A", "B", "C", "D"], "vier_mit_aussetzer")
    assert "rule-dealer_sits_out" in data
    assert len([k for k in data if k.startswith("players-")]) == 4


def test_add_player_button(client: FlaskClient) -> None:
    data = form_data(client.get("/new").get_data(as_text=True), "setup-form")
    data["players-0"] = "Anna"
    data["action"] = "add_player"
    response = client.post("/new", data=data, headers=HX)
    assert response.status_code == 200
    kept = form_data(response.get_data(as_text=True), "setup-form")
    assert kept["players-0"] == "Anna"
    assert "players-3" in kept


def test_eight_players_at_most(app: Flask, client: FlaskClient) -> None:
    # "+ Player" offers seats up to the eighth, then no more
    data = form_data(client.get("/new").get_data(as_text=True), "setup-form")
    for seats in range(4, 9):
        data["action"] = "add_player"
        html = client.post("/new", data=data).get_data(as_text=True)
        data = form_data(html, "setup-form")
        assert [k for k in data if k.startswith("players-")][-1] == f"players-{seats - 1}"
    assert 'value="add_player"' not in html
    data["action"] = "add_player"
    again = form_data(client.post("/new", data=data).get_data(as_text=True), "setup-form")
    assert "players-8" not in again
    # twelve names posted anyway, for a preset that deals to eight: refused, not cut to eight
    data = setup_data(client, [f"P{i}" for i in range(8)], "sechser")
    data.update({f"players-{i}": f"P{i}" for i in range(8, 12)})
    response = client.post("/new?lang=en", data=data)
    assert response.status_code == 422
    assert "At most eight players sit at one table." in page_text(response)
    assert count(app, Match) == 0 and count(app, GameSession) == 0
    # the same eight without the others start
    start_match(client, [f"P{i}" for i in range(8)], "sechser")
    assert count(app, Match) == 1


def test_home_lists_recent_sessions(client: FlaskClient) -> None:
    assert "Recent sessions" not in page_text(client.get("/?lang=en"))
    token = start_match(client, ["Anna", "Bert", "Carl"], title="Krone")
    response = client.get("/")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert f"/m/{token}" in html
    text = page_text(html)
    assert "Krone" in text and "Anna, Bert, Carl" in text and "in play" in text
    # another device does not see it
    other = client.application.test_client()
    assert f"/m/{token}" not in other.get("/").get_data(as_text=True)


def test_home_links_to_import_and_device_backup(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    assert 'href="/import"' in html and "/backup.json" not in html
    start_match(client, ["Anna", "Bert", "Carl"])
    html = client.get("/").get_data(as_text=True)
    assert 'href="/import"' in html and 'href="/backup.json"' in html
    assert client.get("/import").status_code == 200


def test_unknown_match_is_404(client: FlaskClient) -> None:
    for url in ("/m/nope", "/m/nope/rules", "/m/nope/hands/1", "/m/nope/hands/1/edit"):
        assert client.get(url).status_code == 404, url
    assert client.post("/m/nope/hands", data={}).status_code == 404
    assert client.post("/m/nope/next", data={}).status_code == 404


def test_rules_page(client: FlaskClient) -> None:
    token = start_match(client, ["A", "B", "C", "D"], "kreuzbinokel")
    shows(
        client,
        f"/m/{token}/rules?lang=en",
        "Kreuzbinokel",
        "4 players in 2 teams of two.",
        "Every hand has 250 trick points",
        "The match ends after a won game once a party has 1000.",
    )


def test_two_player_game_needs_two_players(app: Flask, client: FlaskClient) -> None:
    data = setup_data(client, ["Anna", "Bert"], "zweier")
    data["players-2"] = "Carl"
    response = client.post("/new?lang=en", data=data)
    assert response.status_code == 422
    assert "this game is for two players, not 3" in page_text(response)
    assert count(app, Match) == 0


def test_garbage_team_refused(app: Flask, client: FlaskClient) -> None:
    data = setup_data(client, ["A", "B", "C", "D"], "kreuzbinokel")
    for team in ("x", "-1", "7", ""):
        data["team_of-0"] = team
        assert client.post("/new", data=data).status_code == 422, team
    assert count(app, Match) == 0
