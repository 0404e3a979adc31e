"""A series made of an evening is named after the evening without its number, or as typed.

"Serie daraus machen" on the organiser's page offers the name ("Binokel-Cup Abend 1"
makes the "Binokel-Cup"); the organiser may change it; an empty one is refused with
the form kept.  The next evening is named after the series.  Forms as a browser sends
them (``tests.builders.browser_form``).
"""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from scorer.extensions import db
from scorer.services.tournaments import series as cup
from scorer.services.tournaments import setup
from scorer.tournament_models import Series
from tests.builders import HX, browser_form, page_text
from tests.tournament_builders import tournament_with


def an_evening(app: Flask, name: str) -> str:
    with app.app_context():
        return tournament_with(6, name=name).token


def make_form(client: FlaskClient, token: str) -> MultiDict[str, str]:
    home = client.get(f"/t/{token}").get_data(as_text=True)
    return MultiDict(browser_form(home, "make-series"))


def series_names(app: Flask) -> list[str]:
    with app.app_context():
        return [s.name for s in db.session.query(Series).all()]


def test_the_offered_name_leaves_out_the_evenings_number(app: Flask, client: FlaskClient) -> None:
    token = an_evening(app, "Binokel-Cup Abend 1")
    form = make_form(client, token)
    assert form["name"] == "Binokel-Cup"
    made = client.post(f"/t/{token}/series", data=form)
    assert made.status_code == 303
    assert series_names(app) == ["Binokel-Cup"]
    page = client.get(made.headers["Location"]).get_data(as_text=True)
    assert "<h1>Binokel-Cup</h1>" in page
    # the next evening is named after the series
    evening = client.post(
        made.headers["Location"] + "/evenings", data=dict(browser_form(page, "new-evening"))
    )
    assert evening.status_code == 303
    with app.app_context():
        names = [t.name for t in db.session.query(Series).one().tournaments]
    assert set(names) == {"Binokel-Cup Abend 1", "Binokel-Cup · 2. Abend"}


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_the_organiser_names_it_as_wished(app: Flask, client: FlaskClient, htmx: bool) -> None:
    token = an_evening(app, "Herbstturnier 2026")
    form = make_form(client, token)
    assert form["name"] == "Herbstturnier 2026"  # nothing to leave out
    form["name"] = "  Binokel-Cup   Täle "
    made = client.post(f"/t/{token}/series", data=form, headers=HX if htmx else {})
    assert made.status_code == (200 if htmx else 303)
    assert series_names(app) == ["Binokel-Cup Täle"]


@pytest.mark.parametrize(
    ("name", "words"),
    [("", "Dieses Feld wird benötigt"), ("Cup\x00", "Steuerzeichen"), ("x" * 81, "80")],
)
def test_a_name_that_cannot_be_kept_is_refused_with_the_form(
    app: Flask, client: FlaskClient, name: str, words: str
) -> None:
    token = an_evening(app, "Binokel-Cup Abend 1")
    form = make_form(client, token)
    form["name"] = name
    refused = client.post(f"/t/{token}/series", data=form)
    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert words in page_text(html)
    if "\x00" not in name:
        assert dict(browser_form(html, "make-series"))["name"] == name  # kept as typed
    assert series_names(app) == []
    # sent again with a name, it is made
    again = MultiDict(browser_form(html, "make-series"))
    again["name"] = "Binokel-Cup"
    assert client.post(f"/t/{token}/series", data=again).status_code == 303
    assert series_names(app) == ["Binokel-Cup"]


def test_the_form_has_a_page_of_its_own_and_a_series_made_leads_there(
    app: Flask, client: FlaskClient
) -> None:
    token = an_evening(app, "Binokel-Cup Abend 1")
    page = client.get(f"/t/{token}/series")
    assert page.status_code == 200
    assert dict(browser_form(page.get_data(as_text=True), "make-series"))["name"] == "Binokel-Cup"
    with app.app_context():
        made = cup.create_series(setup.get_tournament(token), name="Cup")
        home = f"/cup/{made.token}"
    assert client.get(f"/t/{token}/series").headers["Location"] == home
