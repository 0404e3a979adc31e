"""What a going-off or failing bonus gives at the table being set up, beside its fields
(issue 20, section 5): computed by the rules, said by the server, on every render of the
setup form (the page asks for it again as the fields change)."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from tests.builders import page_text, setup_data


def hint(html: str, name: str) -> str:
    found = re.search(rf'id="hint-{name}"[^>]*>(.*?)</p>', html, re.S)
    assert found, f"no hint for {name}"
    return page_text(found.group(1))


def test_per_player_says_what_each_opponent_gets(client: FlaskClient) -> None:
    html = client.get("/new").get_data(as_text=True)
    # the default: 10 per player dealt in, three players
    assert "30" in hint(html, "going_off_bonus")
    assert "10 × 3" in hint(html, "going_off_bonus")
    data = setup_data(client, ["Anna", "Bert", "Carl"])
    data.update({"action": "names", "rule-going_off_bonus": "per_player"})
    data["rule-going_off_bonus_n"] = "40"
    response = client.post("/new", data=data)
    assert response.status_code == 200
    text = hint(response.get_data(as_text=True), "going_off_bonus")
    assert "120" in text and "40 × 3" in text


def test_the_hint_follows_the_table(client: FlaskClient) -> None:
    # four at the table, the dealer sits out: three dealt in
    data = setup_data(client, ["Anna", "Bert", "Carl", "Dora"], "vier_mit_aussetzer")
    data.update(
        {
            "action": "names",
            "rule-going_off_bonus": "per_player",
            "rule-going_off_bonus_n": "40",
            "rule-failed_bonus": "flat",
            "rule-failed_bonus_n": "50",
        }
    )
    html = client.post("/new", data=data).get_data(as_text=True)
    assert "120" in hint(html, "going_off_bonus") and "40 × 3" in hint(html, "going_off_bonus")
    assert "50" in hint(html, "failed_bonus")
    # the dealer plays too: four dealt in
    data.pop("rule-dealer_sits_out", None)
    html = client.post("/new", data=data).get_data(as_text=True)
    assert "160" in hint(html, "going_off_bonus")


def test_half_the_bid_and_none(client: FlaskClient) -> None:
    data = setup_data(client, ["Anna", "Bert", "Carl"], "turnier")
    data["action"] = "names"
    html = client.post("/new", data=data).get_data(as_text=True)
    # half of a bid of 300: 150
    assert "150" in hint(html, "going_off_bonus") and "300" in hint(html, "going_off_bonus")
    data["rule-going_off_bonus"] = "none"
    html = client.post("/new", data=data).get_data(as_text=True)
    assert hint(html, "going_off_bonus") == ""


def test_a_missing_n_gives_no_hint_and_no_error(client: FlaskClient) -> None:
    data = setup_data(client, ["Anna", "Bert", "Carl"])
    data.update({"action": "names", "rule-going_off_bonus": "per_player"})
    data["rule-going_off_bonus_n"] = ""
    response = client.post("/new", data=data)
    assert response.status_code == 200
    assert hint(response.get_data(as_text=True), "going_off_bonus") == ""
