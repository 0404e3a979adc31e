"""The tournament's rules page: how the evening runs and is ranked, then the game's rules."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.builders import page_text
from tests.tournament_builders import tournament_with


def _view(app: Flask, **changes: object) -> str:
    with app.app_context():
        tournament = tournament_with(9, deals=12)
        for key, value in changes.items():
            setattr(tournament, key, value)
        from scorer.extensions import db

        db.session.commit()
        return tournament.view_token


def test_the_rules_page_says_how_the_evening_runs(app: Flask, client: FlaskClient) -> None:
    view = _view(app, entry_fee_cents=750, fee_schedule="0.50; 1.00 from 5")
    text = page_text(client.get(f"/p/{view}/rules"))
    assert "Turnierregeln" in text
    assert "2 Runden zu 12 Spielen" in text
    assert "16 Spiele" in text  # a table of four
    assert "Startgeld: 7,50 €" in text
    assert "4 Verlustspiele kosten 2,00 €" in text and "6 Verlustspiele kosten 4,00 €" in text
    assert "bessere beste Runde" not in text  # no tie-break by default: places are shared
    assert "Die Punkte auf einem Zettel sind ein Vielfaches von 10" in text  # tricks rounded
    # then the game's rules, as a match's rules page shows them
    assert "halbe Reizwert" in text or "Hälfte" in text or "Reizwert" in text


def test_in_english_and_without_a_tie_break(app: Flask, client: FlaskClient) -> None:
    view = _view(app, tie_break=False)
    text = page_text(client.get(f"/p/{view}/rules?lang=en"))
    assert "2 rounds of 12 deals" in text
    assert "Tie-break" not in text and "Equal points share a place (1, 1, 3)." in text
    assert "A slip's points must be a multiple of 10" in text


def test_with_the_tie_break_the_page_says_how_it_orders(app: Flask, client: FlaskClient) -> None:
    view = _view(app, tie_break=True)
    text = page_text(client.get(f"/p/{view}/rules"))
    assert "bessere beste Runde" in text


def test_without_rounded_tricks_a_slip_may_hold_any_total(app: Flask, client: FlaskClient) -> None:
    from scorer.services.tournaments import setup

    with app.app_context():
        tournament = tournament_with(9)
        tournament.ruleset = setup.ruleset_of(tournament).replace(round_tricks=False).to_dict()
        from scorer.extensions import db

        db.session.commit()
        view = tournament.view_token
    text = page_text(client.get(f"/p/{view}/rules?lang=en"))
    assert "A slip's points must be" not in text
    assert "A slip's lost games together are no more than the table's deals." in text


def test_every_public_page_links_to_the_rules(app: Flask, client: FlaskClient) -> None:
    view = _view(app)
    for page in ("", "/seats", "/me"):
        assert f'href="/p/{view}/rules"' in client.get(f"/p/{view}{page}").get_data(as_text=True)


def test_an_unknown_link_is_404(client: FlaskClient) -> None:
    assert client.get("/p/nothing-here/rules").status_code == 404
