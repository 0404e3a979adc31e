"""The session page: matches, stakes (docs/rules.md section 7), the settlement, the stake form."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from scorer import services
from scorer.extensions import db
from scorer.models import GameSession
from scorer.services import HandInput
from tests.builders import csrf_token_from, page_text, service_match, session_token_of

NAMES = ["Anna", "Bernd", "Carl"]
# Bernd makes 230 (Anna 60, Carl 80), then Anna wins a Durch: 1060 / 230 / 80
ANNA_WINS = [
    HandInput(declarer=1, bid=150, trump="G", melds=[0, 100, 20], tricks=[60, 130, 60]),
    HandInput(declarer=0, outcome="durch", won=True),
]
CARL_WINS = [HandInput(declarer=2, outcome="durch", won=True)]


def balances(app: Flask, token: str) -> tuple[dict[str, int], list[tuple[str, str, int]]]:
    with app.app_context():
        result = services.settlement(services.get_session(token))
        return result.balances, result.transfers


def test_two_matches_settle_with_the_fewest_transfers(app: Flask, client: FlaskClient) -> None:
    first = service_match(app, NAMES, ANNA_WINS, stake_cents=10, title="Stammtisch")
    session = session_token_of(app, first)
    service_match(app, NAMES, CARL_WINS, session_token=session)
    # match 1: Bernd 8 full hundreds behind (80 ct), Carl 9 (90 ct); Anna +1,70
    # match 2: Anna and Bernd 10 each (1,00 €); Carl +2,00
    money, transfers = balances(app, session)
    assert money == {"Anna": 70, "Bernd": -180, "Carl": 110}
    assert transfers == [("Bernd", "Anna", 70), ("Bernd", "Carl", 110)]
    page = client.get(f"/s/{session}?lang=en")
    assert page.status_code == 200
    text = page_text(page)
    assert "Bernd pays Anna €0.70" in text
    assert "Bernd pays Carl €1.10" in text
    assert "Match 1" in text and "Match 2" in text and "won by Anna" in text
    html = page.get_data(as_text=True)
    assert f'href="/m/{first}"' in html
    assert "<script>" not in html and 'style="' not in html
    german = page_text(client.get(f"/s/{session}?lang=de"))
    assert "0,70 €" in german and "1,10 €" in german


def test_started_hundreds_and_exact(app: Flask) -> None:
    first = service_match(app, NAMES, ANNA_WINS, stake_cents=10, stake_basis="started")
    session = session_token_of(app, first)
    assert balances(app, session)[0] == {"Anna": 190, "Bernd": -90, "Carl": -100}
    with app.app_context():
        services.set_stake(services.get_session(session), 10, "exact")
    assert balances(app, session)[0] == {"Anna": 181, "Bernd": -83, "Carl": -98}


def test_team_match_charges_both_partners(app: Flask) -> None:
    token = service_match(
        app,
        ["Anna", "Bernd", "Carla", "Dieter"],
        [HandInput(declarer=0, outcome="durch", won=True)],
        preset="kreuzbinokel",
        stake_cents=50,
        stake_basis="per_game",
    )
    money, transfers = balances(app, session_token_of(app, token))
    assert money == {"Anna": 50, "Carla": 50, "Bernd": -50, "Dieter": -50}
    assert len(transfers) == 2
    assert sorted(t[0] for t in transfers) == ["Bernd", "Dieter"]


def test_tie_shares_the_losers_money(app: Flask, client: FlaskClient) -> None:
    # three deals: Anna and Bernd each make 230, Carl goes off: 320 / 320 / −30;
    # the last declarer (Carl) is not among the tied, so both win
    hands = [
        HandInput(declarer=0, bid=150, trump="E", melds=[100, 0, 0], tricks=[130, 60, 60]),
        HandInput(declarer=1, bid=150, trump="G", melds=[0, 100, 0], tricks=[60, 130, 60]),
        HandInput(declarer=2, bid=150, trump="H", outcome="gone_off"),
    ]
    token = service_match(app, NAMES, hands, stake_cents=100, end="deals", deals=3)
    session = session_token_of(app, token)
    money, transfers = balances(app, session)
    assert money == {"Anna": 150, "Bernd": 150, "Carl": -300}
    assert transfers == [("Carl", "Anna", 150), ("Carl", "Bernd", 150)]
    assert "won by Anna, Bernd" in page_text(client.get(f"/s/{session}?lang=en"))


def test_unfinished_matches_do_not_count(app: Flask, client: FlaskClient) -> None:
    first = service_match(app, NAMES, ANNA_WINS, stake_cents=10)
    session = session_token_of(app, first)
    service_match(app, NAMES, 2, session_token=session)
    money, _ = balances(app, session)
    assert money == {"Anna": 170, "Bernd": -80, "Carl": -90}
    assert "1 match is not finished yet" in page_text(client.get(f"/s/{session}?lang=en"))


def test_no_stake_nobody_pays(app: Flask, client: FlaskClient) -> None:
    session = session_token_of(app, service_match(app, NAMES, ANNA_WINS))
    text = page_text(client.get(f"/s/{session}?lang=en"))
    assert "No stake" in text and "Nobody owes anybody anything." in text


def test_stake_form_changes_the_stake_with_csrf(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    session = session_token_of(csrf_app, service_match(csrf_app, NAMES, ANNA_WINS))
    page = client.get(f"/s/{session}?lang=en").get_data(as_text=True)
    token = csrf_token_from(page)
    response = client.post(
        f"/s/{session}/stake",
        data={"csrf_token": token, "stake": "0,20", "stake_basis": "started"},
    )
    assert response.status_code == 302
    with csrf_app.app_context():
        row = services.get_session(session)
        assert (row.stake_cents, row.stake_basis) == (20, "started")
    text = page_text(client.get(f"/s/{session}?lang=en"))
    assert "Stake: €0.20 per started 100 points" in text
    assert "Bernd pays Anna €1.80" in text  # 9 started hundreds
    # without the CSRF token: refused, nothing changes
    refused = client.post(f"/s/{session}/stake", data={"stake": "5", "stake_basis": "full"})
    assert refused.status_code == 400
    with csrf_app.app_context():
        assert services.get_session(session).stake_cents == 20


def test_bad_stake_is_422_and_changes_nothing(app: Flask, client: FlaskClient) -> None:
    session = session_token_of(app, service_match(app, NAMES, ANNA_WINS, stake_cents=10))
    for data in (
        {"stake": "abc", "stake_basis": "full"},
        {"stake": "2000", "stake_basis": "full"},
        {"stake": "-1", "stake_basis": "full"},
        {"stake": "1", "stake_basis": "per_second"},
    ):
        response = client.post(f"/s/{session}/stake?lang=en", data=data)
        assert response.status_code == 422, data
        assert "form-error" in response.get_data(as_text=True)
    with app.app_context():
        row = db.session.execute(
            select(GameSession).where(GameSession.token == session)
        ).scalar_one()
        assert (row.stake_cents, row.stake_basis) == (10, "full")


def test_unknown_session_is_404(client: FlaskClient) -> None:
    assert client.get("/s/nope").status_code == 404
    assert client.post("/s/nope/stake", data={"stake": "1"}).status_code == 404


def test_the_stake_is_counted_per_each_basis_of_the_rules(app: Flask, client: FlaskClient) -> None:
    """The stake's choices are the rules' bases (docs/rules.md section 7), one word each."""
    from scorer.rules import BASES

    session = session_token_of(app, service_match(app, NAMES, ANNA_WINS))
    page = client.get(f"/s/{session}?lang=en").get_data(as_text=True)
    offered = re.findall(r'<option[^>]*value="([a-z_]+)"', page[page.index('name="stake_basis"') :])
    assert offered[: len(BASES)] == list(BASES)
    assert "per full 100" in page and "per lost match" in page
