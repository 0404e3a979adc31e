"""No secret page in a search engine (issue 34 §7): every answer under a link's secret —
the organiser's pages, a table's phone, a match and its session, a series' organiser, the
hosted copy's admin link, a Stammtisch and its read-only twin, the read-only links — says
``X-Robots-Tag: noindex`` (PDFs, downloads and 404s too), and every such HTML page carries
the robots meta as well (a copy saved from the browser keeps it).  The app's public face
(its start page, the meld calculator) stays findable.

The routes are read from the app's URL map, so a secret page added later is checked too.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer import services
from scorer.extensions import db
from scorer.services.online import hosted
from scorer.services.tournaments import series
from scorer.web import SECRET_ARGUMENTS
from tests.builders import service_match
from tests.stammtisch_builders import a_group
from tests.tournament_builders import signed_and_paper_round

META = '<meta name="robots" content="noindex, nofollow">'

# a route's prefix → which link's secret stands in it (the longest prefix first)
TOKENS = (
    ("/online/a/", "admin"),
    ("/p/cup/", "series_view"),
    ("/v/s/", "session_view"),
    ("/cup/", "series"),
    ("/m/", "match"),
    ("/s/", "session"),
    ("/t/", "tournament"),
    ("/v/", "match_view"),
    ("/p/", "tournament_view"),
    ("/o/", "page_view"),
    ("/st/", "group"),
    ("/sv/", "group_view"),
)


def secrets_of_an_evening(app: Flask) -> dict[str, Any]:
    """A tournament with a round played (its series too), a match with hands and its
    session, a page on the hosted copy: every kind of secret link, and ids under them."""
    with app.app_context():
        tournament, row = signed_and_paper_round()
        cup = series.create_series(tournament)
        table = row.tables[0]
        token = service_match(app, ["Anna", "Bert", "Carl"], 3)
        match = services.get_match(token)
        page = hosted.make_page("Herbstturnier")
        group = a_group()
        found = {
            "group": group.token,
            "group_view": group.view_token,
            "tournament": tournament.token,
            "tournament_view": tournament.view_token,
            "series": cup.token,
            "series_view": cup.view_token,
            "match": match.token,
            "match_view": match.view_token,
            "session": match.session.token,
            "session_view": match.session.view_token,
            "admin": page.admin_token,
            "page_view": page.token,
            "number": 1,
            "entrant_id": tournament.entrants[0].id,
            "table_id": table.id,
            "entry_id": 1,
            "page_id": page.id,
            "kind": "public",
            "change": "strike",
        }
        db.session.remove()
    return found


def secret_addresses(app: Flask, secrets: dict[str, Any]) -> list[str]:
    """Every GET address of the app whose route carries a link's secret, filled in."""
    addresses = []
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or not set(SECRET_ARGUMENTS) & rule.arguments:
            continue
        kind = next(kind for prefix, kind in TOKENS if rule.rule.startswith(prefix))
        values = {name: secrets.get(name) for name in rule.arguments}
        values.update({name: secrets[kind] for name in SECRET_ARGUMENTS if name in rule.arguments})
        path = rule.rule
        for name, value in values.items():
            # <token:token>, <int:number>, <any(strike, restore):change>
            path = re.sub(rf"<(?:\w+(?:\([^)]*\))?:)?{name}>", str(value), path)
        addresses.append(path)
    return sorted(addresses)


@pytest.fixture
def quick_pdfs(monkeypatch: pytest.MonkeyPatch) -> None:
    """PDFs made in no time: these tests read the answers' headers, not the paper."""
    stub = b"%PDF-1.4 stand-in\n%%EOF\n"
    monkeypatch.setattr("scorer.pdf.layout.render_pdf", lambda html: stub)
    monkeypatch.setattr("scorer.pdf.tournament._render", lambda html: stub)


@pytest.mark.usefixtures("quick_pdfs")
def test_every_secret_address_says_noindex(app: Flask, client: FlaskClient) -> None:
    secrets = secrets_of_an_evening(app)
    addresses = secret_addresses(app, secrets)
    # the organiser's, the tables', the matches', the sessions', the series' and the
    # hosted admin's pages are all among them
    for expected in (
        f"/t/{secrets['tournament']}",
        f"/t/{secrets['tournament']}/players",
        f"/t/{secrets['tournament']}/rounds/1",
        f"/m/{secrets['match']}",
        f"/s/{secrets['session']}",
        f"/cup/{secrets['series']}",
        f"/online/a/{secrets['admin']}",
        f"/v/{secrets['match_view']}",
    ):
        assert expected in addresses
    pages = 0
    for address in addresses:
        response = client.get(address)
        assert response.status_code < 500, address
        assert response.headers.get("X-Robots-Tag") == "noindex, nofollow", (
            address,
            response.status_code,
        )
        if response.status_code == 200 and response.mimetype == "text/html":
            html = response.get_data(as_text=True)
            if "<html" in html:
                assert META in html, address
                pages += 1
    assert pages >= 30, pages  # most of them are whole pages
    # a 404 under a secret-looking address says it as well
    gone = client.get("/t/no-such-tournament")
    assert gone.status_code == 404 and gone.headers["X-Robots-Tag"] == "noindex, nofollow"
    # a table's phone as htmx asks for it (a fragment)
    table = client.get(f"/m/{secrets['match']}", headers={"HX-Request": "true"})
    assert table.headers["X-Robots-Tag"] == "noindex, nofollow"


def test_the_public_face_stays_findable(client: FlaskClient) -> None:
    for address in ("/", "/melds", "/new"):
        response = client.get(address)
        assert response.status_code == 200, address
        assert "X-Robots-Tag" not in response.headers, address
        assert 'name="robots"' not in response.get_data(as_text=True), address
