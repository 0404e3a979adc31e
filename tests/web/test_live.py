"""The read-only share links: what they show, that they update cheaply, that they change nothing."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
import segno
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, inspect, select, text

from scorer.extensions import db
from scorer.models import GameSession, Hand, Match
from tests.builders import HX, enter_hand, start_match
from tests.web.test_two_player import write
from tests.web.test_two_player_taps import bar_values

NAMES = ["Anna", "Berta", "Carl"]
HAND = {"declarer": 0, "bid": 300, "trump": "H", "melds": [100, 40, 20], "tricks": [180, 60, None]}


def _rows(app: Flask, token: str) -> tuple[Match, GameSession]:
    with app.app_context():
        match = db.session.execute(select(Match).where(Match.token == token)).scalar_one()
        session = match.session
        db.session.expunge_all()
        return match, session


@pytest.fixture
def table(app: Flask, client: FlaskClient) -> dict[str, Any]:
    """A match with one hand: its edit and read-only tokens and those of its session."""
    token = start_match(client, NAMES)
    enter_hand(client, token, **HAND)
    match, session = _rows(app, token)
    return {
        "token": token,
        "view": match.view_token,
        "session_token": session.token,
        "session_view": session.view_token,
        "match_id": match.id,
    }


def test_the_read_only_view_shows_the_sheet_and_no_way_to_edit(
    client: FlaskClient, table: dict[str, Any]
) -> None:
    response = client.get(f"/v/{table['view']}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    for name in NAMES:
        assert name in html
    assert "(−600)" in html  # Anna failed 300: the settled points and the running total
    assert 'id="sheet"' in html and 'id="progress"' in html
    # no form, no edit link, no edit token anywhere in the page
    assert "<form" not in html
    assert table["token"] not in html
    assert table["session_token"] not in html
    assert "/m/" not in html
    assert response.headers["X-Robots-Tag"] == "noindex, nofollow"


def test_the_read_only_view_polls_its_fragment_every_three_seconds(
    client: FlaskClient, table: dict[str, Any]
) -> None:
    html = client.get(f"/v/{table['view']}").get_data(as_text=True)
    assert f'hx-get="/v/{table["view"]}/sheet?shown=' in html
    assert 'hx-trigger="every 3s"' in html
    fragment = client.get(f"/v/{table['view']}/sheet").get_data(as_text=True)
    assert "<html" not in fragment
    assert 'hx-trigger="every 3s"' in fragment  # the swapped-in fragment keeps polling


SHOWN_RE = re.compile(r'hx-get="([^"]+\?shown=[0-9a-f]+)"')


def _polled_url(html: str) -> str:
    found = SHOWN_RE.search(html)
    assert found, "no polled URL with ?shown= in the page"
    return found.group(1)


def test_a_poll_for_the_version_the_page_shows_is_answered_204_without_a_body(
    client: FlaskClient, table: dict[str, Any]
) -> None:
    url = _polled_url(client.get(f"/v/{table['view']}").get_data(as_text=True))
    same = client.get(url, headers=HX)
    assert (same.status_code, same.data) == (204, b"")
    assert "no-cache" in same.headers["Cache-Control"]
    # the fragment says the same version as the page: swapped in, it polls the same URL
    fragment = client.get(f"/v/{table['view']}/sheet", headers=HX).get_data(as_text=True)
    assert _polled_url(fragment) == url

    enter_hand(client, table["token"], declarer=1, bid=300, trump="E", melds=[0, 60, 0],
               tricks=[80, 170, None])  # fmt: skip
    changed = client.get(url, headers=HX)
    assert changed.status_code == 200
    html = changed.get_data(as_text=True)
    assert html.count('<tr id="hand-') == 2
    newer = _polled_url(html)
    assert newer != url
    assert client.get(newer, headers=HX).status_code == 204


def test_a_process_reads_a_share_links_state_at_most_every_half_second(
    app: Flask, client: FlaskClient, table: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within SHARE_POLL_KEEP seconds a poll answers from the match's state this process
    read last, without a statement; after it, a saved hand shows."""
    from scorer.services import kept
    from tests.web.test_performance import statements

    app.config["SHARE_POLL_KEEP"] = 0.5
    clock = [100.0]
    monkeypatch.setattr(kept.time, "monotonic", lambda: clock[0])
    url = _polled_url(client.get(f"/v/{table['view']}").get_data(as_text=True))
    assert client.get(url, headers=HX).status_code == 204
    enter_hand(client, table["token"], declarer=1, bid=300, trump="E", melds=[0, 60, 0],
               tricks=[80, 170, None])  # fmt: skip
    clock[0] += 0.3
    with statements(app) as sent:
        assert client.get(url, headers=HX).status_code == 204  # the state read 0.3 s ago
    assert sent == []
    clock[0] += 0.3
    assert client.get(url, headers=HX).status_code == 200


def test_a_poll_does_not_read_the_session_cookie(
    client: FlaskClient, table: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The spectators' browsers send the session cookie with every poll; the poll never
    uses it, so it is not even read (its signature check was a fifth of a poll)."""
    from flask.sessions import SecureCookieSessionInterface

    page = client.get(f"/v/{table['view']}")
    url = _polled_url(page.get_data(as_text=True))
    etag = client.get(url, headers=HX).headers["ETag"]

    def refuse(*_: Any) -> None:
        raise AssertionError("the session was opened")

    monkeypatch.setattr(SecureCookieSessionInterface, "open_session", refuse)
    unchanged = client.get(url, headers={**HX, "If-None-Match": etag})
    assert unchanged.status_code == 304
    assert unchanged.headers["ETag"] == etag and "Set-Cookie" not in unchanged.headers
    assert {"HX-Request", "Cookie"} <= {v.strip() for v in unchanged.headers["Vary"].split(",")}
    assert unchanged.headers["Cache-Control"] == "private, no-cache"
    assert unchanged.headers["X-Frame-Options"] == "DENY"
    assert client.get(url, headers=HX).status_code == 204
    with pytest.raises(AssertionError, match="the session was opened"):
        client.get(f"/v/{table['view']}")  # every other page still has its session


def test_a_session_poll_for_what_the_page_shows_is_answered_204(
    client: FlaskClient, table: dict[str, Any]
) -> None:
    url = _polled_url(client.get(f"/v/s/{table['session_view']}").get_data(as_text=True))
    assert client.get(url, headers=HX).status_code == 204
    enter_hand(client, table["token"], declarer=2, bid=300, trump="S", melds=[0, 0, 40],
               tricks=[60, 20, None])  # fmt: skip
    assert client.get(url, headers=HX).status_code == 200


def test_an_htmx_request_for_the_page_gets_the_fragment(
    client: FlaskClient, table: dict[str, Any]
) -> None:
    response = client.get(f"/v/{table['view']}", headers=HX)
    assert "<html" not in response.get_data(as_text=True)
    assert "HX-Request" in response.headers["Vary"]


def test_the_fragment_answers_304_until_a_hand_is_entered(
    client: FlaskClient, table: dict[str, Any]
) -> None:
    url = f"/v/{table['view']}/sheet"
    first = client.get(url, headers=HX)
    etag, modified = first.headers["ETag"], first.headers["Last-Modified"]
    assert first.status_code == 200
    assert "no-cache" in first.headers["Cache-Control"]
    assert "private" in first.headers["Cache-Control"]

    same = client.get(url, headers={**HX, "If-None-Match": etag})
    assert same.status_code == 304
    assert same.data == b""
    assert same.headers["ETag"] == etag
    assert client.get(url, headers={"If-Modified-Since": modified}).status_code == 304

    enter_hand(client, table["token"], declarer=1, bid=300, trump="E", melds=[0, 60, 0],
               tricks=[80, 170, None])  # fmt: skip
    changed = client.get(url, headers={**HX, "If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["ETag"] != etag
    assert changed.get_data(as_text=True).count('<tr id="hand-') == 2


def test_the_fragment_etag_depends_on_the_language(
    client: FlaskClient, table: dict[str, Any]
) -> None:
    url = f"/v/{table['view']}/sheet"
    german = client.get(url + "?lang=de")
    english = client.get(url + "?lang=en")
    assert german.headers["ETag"] != english.headers["ETag"]
    again = client.get(url + "?lang=de", headers={"If-None-Match": german.headers["ETag"]})
    assert again.status_code == 304


def test_the_session_view_lists_every_match_with_its_totals(
    client: FlaskClient, table: dict[str, Any]
) -> None:
    response = client.get(f"/v/s/{table['session_view']}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert f'href="/v/{table["view"]}"' in html
    assert "(−600)" in html
    assert table["token"] not in html and table["session_token"] not in html
    assert "<form" not in html

    url = f"/v/s/{table['session_view']}/sheet"
    etag = client.get(url).headers["ETag"]
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
    enter_hand(client, table["token"], declarer=2, bid=300, trump="S", melds=[0, 0, 40],
               tricks=[60, 20, None])  # fmt: skip
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 200


def test_the_match_page_has_a_share_section_with_the_read_only_link_and_its_qr_code(
    client: FlaskClient, table: dict[str, Any]
) -> None:
    html = client.get(f"/m/{table['token']}").get_data(as_text=True)
    share = html[html.index('id="share"') :]
    assert f'value="http://localhost/v/{table["view"]}"' in share
    assert f'src="/v/{table["view"]}/qr.svg"' in share
    assert f'href="/v/s/{table["session_view"]}"' in share


def test_the_qr_code_is_an_svg_of_the_read_only_link(
    client: FlaskClient, table: dict[str, Any]
) -> None:
    response = client.get(f"/v/{table['view']}/qr.svg")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    svg = ET.fromstring(response.data)
    assert svg.tag.endswith("svg")
    assert all("style" not in el.attrib for el in svg.iter())  # CSP: no inline style
    expected = io.BytesIO()
    segno.make(f"http://localhost/v/{table['view']}", error="m").save(
        expected, kind="svg", scale=5, border=2, xmldecl=False, dark="#1d1d1b", light="#ffffff"
    )
    assert response.data == expected.getvalue()
    session_qr = client.get(f"/v/s/{table['session_view']}/qr.svg")
    assert session_qr.mimetype == "image/svg+xml"


def test_a_finished_match_links_to_the_next_one(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES, target=100)
    enter_hand(client, token, declarer=0, bid=150, trump="H", melds=[100, 0, 0],
               tricks=[200, 50, None])  # fmt: skip
    match, _ = _rows(app, token)
    html = client.get(f"/v/{match.view_token}").get_data(as_text=True)
    assert 'id="winner"' in html
    assert "next-match" not in html
    etag = client.get(f"/v/{match.view_token}/sheet").headers["ETag"]
    client.post(f"/m/{token}/next")
    with app.app_context():
        later = db.session.execute(
            select(Match).where(Match.session_id == match.session_id, Match.number == 2)
        ).scalar_one()
        later_view = later.view_token
    fresh = client.get(f"/v/{match.view_token}/sheet", headers={"If-None-Match": etag})
    assert fresh.status_code == 200
    assert f'href="/v/{later_view}"' in fresh.get_data(as_text=True)


@pytest.mark.parametrize(
    "path",
    [
        "/v/{token}",
        "/v/{token}/sheet",
        "/v/{token}/qr.svg",
        "/v/s/{session_token}",
        "/v/s/{view}",
        "/m/{view}",
        "/m/{view}/rules",
        "/v/AAAAAAAAAAAAAAAAAAAAAA",
        "/v/s/AAAAAAAAAAAAAAAAAAAAAA/sheet",
    ],
)
def test_edit_and_read_only_tokens_do_not_cross(
    client: FlaskClient, table: dict[str, Any], path: str
) -> None:
    assert client.get(path.format(**table)).status_code == 404


# -- a read-only link can change nothing ------------------------------------

TOKEN_ARGS = ("token", "view_token")
CHANGING = ("POST", "PUT", "PATCH", "DELETE")


def _counts(app: Flask) -> dict[str, Any]:
    """Every table's row count, and every match's version (a change bumps it)."""
    with app.app_context():
        tables = inspect(db.engine).get_table_names()
        counts: dict[str, Any] = {
            name: db.session.execute(text(f'SELECT count(*) FROM "{name}"')).scalar_one()
            for name in tables
            if name != "alembic_version"
        }
        counts["versions"] = list(db.session.execute(select(Match.version)).scalars())
        counts["deleted"] = db.session.execute(
            select(func.count()).select_from(Hand).where(Hand.deleted_at.is_not(None))
        ).scalar_one()
        return counts


def _url(rule: Any, token: str, hand_id: int) -> str:
    values: dict[str, Any] = {}
    for arg in rule.arguments:
        if arg in TOKEN_ARGS:
            values[arg] = token
        else:
            converter = rule._converters[arg].__class__.__name__
            values[arg] = hand_id if converter == "IntegerConverter" else "x"
    path = rule.rule
    for arg, value in values.items():
        path = re.sub(rf"<(?:[^:<>]+:)?{arg}>", str(value), path)
    return path


def test_every_route_refuses_changes_through_a_read_only_link(
    app: Flask, client: FlaskClient, table: dict[str, Any]
) -> None:
    with app.app_context():
        hand_id = db.session.execute(select(Hand.id)).scalars().first()
    assert hand_id is not None
    rules = [r for r in app.url_map.iter_rules() if set(r.arguments) & set(TOKEN_ARGS)]
    assert len(rules) >= 10  # the match, hand and read-only routes at least
    before = _counts(app)
    tried = 0
    for rule in rules:
        for view in (table["view"], table["session_view"]):
            url = _url(rule, view, hand_id)
            for method in CHANGING:
                # CSRF is off in this app: the link alone must not be enough
                response = client.open(url, method=method, data={"version": "999"})
                assert response.status_code in (404, 405), (method, url, response.status_code)
                tried += 1
            if "token" in rule.arguments and "GET" in (rule.methods or ()):
                # an edit page must not even be shown for a read-only token
                assert client.get(url).status_code == 404, url
    assert tried >= 80
    assert _counts(app) == before


def test_the_read_only_bars_follow_a_two_player_hand_in_play(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    match, _session = _rows(app, token)
    assert bar_values(client.get(f"/v/{match.view_token}").get_data(as_text=True)) == [0, 0]
    write(client, token, 0, "four A")  # 100 for Anna, in the hand being played
    html = client.get(f"/v/{match.view_token}/sheet").get_data(as_text=True)
    assert bar_values(html) == [100, 0]
    assert "<form" not in html
