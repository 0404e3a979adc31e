"""The settings page, sent exactly as a browser sends its own form — before and after the draw.

The form is read from the page as rendered (``tests.builders.browser_form``: named,
enabled controls, checked boxes, selected options, the pressed button) and posted
as it is, only with what the organiser typed changed.  After round 1 is drawn the
page shows the deals and the rules read-only, without a name, so the browser sends
neither: every other setting must still save, with and without htmx.  A request
that sends the rules or the deals anyway (forged, or a page opened before the draw)
changes nothing of them, and a change is refused with the reason.
"""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from werkzeug.datastructures import MultiDict

from scorer.extensions import db
from scorer.tournament_models import Tournament
from tests.builders import HX, browser_form, page_text
from tests.tournament_builders import drawn, tournament_with
from tests.web.test_tournament_organiser import only as the_row

SAVE = "action=save"


def a_tournament(app: Flask, *, draw: bool) -> str:
    with app.app_context():
        tournament = tournament_with(6, rounds_=3, deals=12)
        if draw:
            drawn(tournament)
        return tournament.token


def settings_page(client: FlaskClient, token: str, lang: str = "de") -> str:
    response = client.get(f"/t/{token}/settings?lang={lang}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def typed(pairs: list[tuple[str, str]], **fields: str) -> MultiDict[str, str]:
    """The pairs with the organiser's typing: each named field's value replaced."""
    out = [(k, fields.get(k, v)) for k, v in pairs]
    missing = set(fields) - {k for k, _ in pairs}
    assert not missing, f"the form sends no {sorted(missing)}"
    return MultiDict(out)


EVERYTHING = {
    "name": "Winterturnier",
    "place": "Musterhausen, Festhalle",
    "held_on": "2026-12-05",
    "rounds": "4",
    "entry_fee": "8,50",
    "fee_schedule": "0,50; 1,00 ab 4",
    "public_url": "http://192.168.4.1:5000",
}


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_after_the_draw_every_other_setting_saves_through_the_page_form(
    app: Flask, client: FlaskClient, htmx: bool
) -> None:
    token = a_tournament(app, draw=True)
    before = the_row(app)
    html = settings_page(client, token)
    pairs = browser_form(html, "tournament-form", SAVE)
    sent = dict(pairs)
    # the page shows the deals and the rules, but offers neither
    assert 'id="deals"' in html and "deals" not in sent
    assert not any(k.startswith("rule-") for k in sent)
    data = typed(pairs, **EVERYTHING, tie_break="y")
    response = client.post(f"/t/{token}/settings", data=data, headers=HX if htmx else {})
    if htmx:
        assert response.status_code == 200
        assert response.headers["HX-Redirect"] == f"/t/{token}"
    else:
        assert response.status_code == 303, page_text(response.get_data(as_text=True))[:800]
        assert response.headers["Location"] == f"/t/{token}"
    row = the_row(app)
    assert row["name"] == "Winterturnier" and row["place"] == "Musterhausen, Festhalle"
    assert row["held_on"] == "2026-12-05" and row["rounds"] == 4 and row["fee"] == 850
    assert row["schedule"] == "0.50; 1.00 from 4" and row["tie_break"] is True
    assert row["public_url"] == "http://192.168.4.1:5000"
    assert row["ruleset"] == before["ruleset"] and row["ruleset"].deals == 12
    home = client.get(f"/t/{token}").get_data(as_text=True)
    assert "Die Einstellungen sind gespeichert." in home


def test_after_the_draw_the_page_saved_unchanged_is_saved(app: Flask, client: FlaskClient) -> None:
    token = a_tournament(app, draw=True)
    before = the_row(app)
    pairs = browser_form(settings_page(client, token), "tournament-form", SAVE)
    assert client.post(f"/t/{token}/settings", data=MultiDict(pairs)).status_code == 303
    assert the_row(app) == before


@pytest.mark.parametrize("lang", ["de", "en"])
def test_after_the_draw_a_bad_value_is_marked_and_kept(
    app: Flask, client: FlaskClient, lang: str
) -> None:
    token = a_tournament(app, draw=True)
    before = the_row(app)
    pairs = browser_form(settings_page(client, token, lang), "tournament-form", SAVE)
    data = typed(pairs, name="Neu", rounds="٣", fee_schedule="0,50; 1,00 ab 4")
    response = client.post(f"/t/{token}/settings?lang={lang}", data=data, headers=HX)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "<html" not in html and 'id="rounds-err"' in html
    kept = dict(browser_form(html, "tournament-form", SAVE))
    assert kept["name"] == "Neu" and kept["rounds"] == "٣" and "deals" not in kept
    assert the_row(app) == before


@pytest.mark.parametrize(
    ("forged", "words"),
    [
        ({"deals": "9"}, "bleiben 12"),
        ({"deals": "99"}, "ganze Zahl von 3 bis 60"),
        ({"rule-min_bid": "200"}, "Regeln lassen sich nicht mehr ändern"),
    ],
)
def test_after_the_draw_a_forged_change_of_the_rules_is_refused(
    app: Flask, client: FlaskClient, forged: dict[str, str], words: str
) -> None:
    token = a_tournament(app, draw=True)
    before = the_row(app)
    pairs = browser_form(settings_page(client, token), "tournament-form", SAVE)
    data = MultiDict([*pairs, *forged.items()])
    data["name"] = "Neu"
    response = client.post(f"/t/{token}/settings", data=data)
    assert response.status_code == 422
    text = page_text(response.get_data(as_text=True))
    assert words in text, text[:1500]
    assert the_row(app) == before  # the name neither: nothing of a refused form is saved
    # the page still shows the deals that stand
    assert 'id="deals" value="12"' in response.get_data(as_text=True)


def test_after_the_draw_the_same_deals_sent_along_are_no_change(
    app: Flask, client: FlaskClient
) -> None:
    token = a_tournament(app, draw=True)
    pairs = browser_form(settings_page(client, token), "tournament-form", SAVE)
    data = MultiDict([*pairs, ("deals", "12")])
    data["name"] = "Neu"
    assert client.post(f"/t/{token}/settings", data=data).status_code == 303
    assert the_row(app)["name"] == "Neu"


def test_a_page_opened_before_the_draw_saves_its_other_settings_unless_it_changes_the_rules(
    app: Flask, client: FlaskClient
) -> None:
    token = a_tournament(app, draw=False)
    before = the_row(app)
    stale = browser_form(settings_page(client, token), "tournament-form", SAVE)
    assert dict(stale)["deals"] == "12" and any(k.startswith("rule-") for k, _ in stale)
    with app.app_context():
        drawn(db.session.execute(select(Tournament)).scalar_one())
    changed = typed(stale, deals="9", name="Neu")
    response = client.post(f"/t/{token}/settings", data=changed)
    assert response.status_code == 422
    assert "bleiben 12" in page_text(response.get_data(as_text=True))
    assert the_row(app)["name"] == before["name"]
    unchanged = typed(stale, name="Neu")
    assert client.post(f"/t/{token}/settings", data=unchanged).status_code == 303
    row = the_row(app)
    assert row["name"] == "Neu" and row["ruleset"] == before["ruleset"]


def test_before_the_draw_everything_saves_through_the_page_form(
    app: Flask, client: FlaskClient
) -> None:
    token = a_tournament(app, draw=False)
    pairs = browser_form(settings_page(client, token), "tournament-form", SAVE)
    data = typed(pairs, **EVERYTHING, deals="9", **{"rule-min_bid": "200"})
    response = client.post(f"/t/{token}/settings", data=data)
    assert response.status_code == 303, page_text(response.get_data(as_text=True))[:800]
    row = the_row(app)
    assert row["name"] == "Winterturnier" and row["rounds"] == 4
    assert row["ruleset"].deals == 9 and row["ruleset"].min_bid == 200


@pytest.mark.parametrize(
    ("schedule", "words"),
    [
        ("٣", "mit den Ziffern 0 bis 9"),
        ("0,50; 1,00 ab ٥", "mit den Ziffern 0 bis 9"),
        ("0,50; 1,00 ab 12345678901234567890", "von 1 bis 99"),
        ("2000", "höchstens 1000 €"),
    ],
)
@pytest.mark.parametrize("where", ["new", "settings"])
def test_the_lost_game_schedule_takes_only_the_numbers_every_field_takes(
    app: Flask, client: FlaskClient, schedule: str, words: str, where: str
) -> None:
    if where == "new":
        url, before = "/t/new", None
        pairs = browser_form(client.get(url).get_data(as_text=True), "tournament-form", SAVE)
        data = typed(pairs, name="Herbstturnier", fee_schedule=schedule)
    else:
        token = a_tournament(app, draw=True)
        url, before = f"/t/{token}/settings", the_row(app)
        pairs = browser_form(settings_page(client, token), "tournament-form", SAVE)
        data = typed(pairs, fee_schedule=schedule)
    response = client.post(url, data=data, headers=HX)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'id="fee_schedule-err"' in html
    assert words in page_text(html)
    assert dict(browser_form(html, "tournament-form", SAVE))["fee_schedule"] == schedule
    if before is None:
        with app.app_context():
            assert db.session.execute(select(Tournament)).first() is None
    else:
        assert the_row(app) == before
