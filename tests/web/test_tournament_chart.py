"""A tournament table plays a fixed number of deals: its chart and its progress bars say
how many deals are played of how many, never "Ziel 1000" (issue 30)."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from scorer.chart import chart
from tests.builders import enter_hand, page_text
from tests.tournament_builders import TABLE_HAND, drawn, tournament_with

HAND = TABLE_HAND


def test_a_chart_of_fixed_deals_has_no_target_and_runs_to_the_last_deal() -> None:
    c = chart(["A", "B", "C"], [[0, 0, 0], [230, 60, 60]], None, deals=12)
    assert c.target is None and c.target_y is None
    assert c.deals == 12 and c.hands == 1
    assert c.x_ticks[-1].value == 12  # the axis shows the deals still to come
    # the scale follows the points alone: 230 is near the top, not a fifth of 1000
    line = c.lines[0].points.split()
    assert int(line[-1].split(",")[1]) < (c.top + c.bottom) // 2


def test_the_table_phone_chart_says_deals_not_target(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(9, deals=6)
        token = drawn(tournament).tables[0].match.token
    enter_hand(client, token, **HAND)
    enter_hand(client, token, **{**HAND, "declarer": 1, "tricks": [60, 130, 60]})
    card = client.get(f"/m/{token}/chart")
    assert card.status_code == 200
    html = card.get_data(as_text=True)
    assert "Spiel 2 von 6 gespielt" in page_text(html)
    assert "Ziel" not in page_text(html)
    assert "chart-target" not in html
    page = client.get(f"/m/{token}").get_data(as_text=True)
    assert 'aria-label="Spiel 2 von 6 gespielt"' in page
    assert "Fortschritt zum Ziel" not in page
    english = page_text(client.get(f"/m/{token}/chart?lang=en"))
    assert "Deal 2 of 6 played" in english and "Target" not in english


def test_a_match_to_a_target_keeps_its_target_line(client: FlaskClient) -> None:
    c = chart(["A", "B"], [[0, 0], [120, -40]], 1000)
    assert c.target == 1000 and c.target_y is not None and c.deals is None
