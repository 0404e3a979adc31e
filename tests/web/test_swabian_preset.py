"""Seed 002's two worked examples entered through the forms, the preset untouched.

A newcomer opens "Neue Partie", types three names and starts: the preset the form
offers first is the Swabian one, and it must give the Swabian source's numbers
without a house rule touched (tests/rules/test_swabian_preset.py has the hands).
"""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.builders import enter_hand, form_data, page_text, sheet_of, start_match

ABC = ["Anna", "Bert", "Carl"]


def test_the_setup_form_starts_with_the_swabian_preset(client: FlaskClient) -> None:
    html = client.get("/new?lang=de").get_data(as_text=True)
    assert form_data(html, "setup-form")["preset"] == "standard"
    assert "Standard (schwäbisch, 3 Spieler)" in html


def test_seed_002s_examples_through_the_form_give_the_sources_numbers(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, ABC)  # the form as it comes: names typed, nothing else
    # example 1: Anna bids 390, melds 250 (trump family + four aces), takes 90: 340
    enter_hand(client, token, declarer=0, bid=390, trump="H", melds=[250, 20, 60],
               tricks=[90, 100, 60])  # fmt: skip
    sheet = sheet_of(app, token)
    # −2 × 390; Bert and Carl their melds and tricks and 40 each
    assert sheet.rows_points == [[-780, 160, 160]]
    # example 2: Anna bids 380, melds 540 (Doppelbinokel 300 + Rundgang 240), takes 90: 630
    enter_hand(client, token, declarer=0, bid=380, trump="E", melds=[540, 40, 0],
               tricks=[90, 100, 60])  # fmt: skip
    sheet = sheet_of(app, token)
    assert sheet.rows_points == [[-780, 160, 160], [630, 140, 60]]
    assert sheet.totals == [-150, 300, 220]
    text = page_text(client.get(f"/m/{token}/rules?lang=de"))
    assert "Standard (schwäbisch, 3 Spieler)" in text
    assert "Abweichende Hausregeln" not in text  # nothing was changed
