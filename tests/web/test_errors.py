"""CSRF, error pages, security headers: bad requests get a 4xx, never a 500."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.builders import (
    HX,
    csrf_token_from,
    form_data,
    hand_count,
    hand_data,
    match_token,
    page_text,
    setup_data,
)


def test_csrf_enforced_on_setup(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    data = setup_data(client, ["Anna", "Bert", "Carl"])
    token = data.pop("csrf_token")
    response = client.post("/new?lang=en", data=data)
    assert response.status_code == 400
    assert "The form has expired" in page_text(response)
    data["csrf_token"] = "forged"
    assert client.post("/new", data=data).status_code == 400
    data["csrf_token"] = token
    response = client.post("/new", data=data)
    assert response.status_code == 303


def test_csrf_enforced_on_hands_and_accepted_from_the_htmx_header(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    data = setup_data(client, ["Anna", "Bert", "Carl"])
    match = match_token(client.post("/new", data=data).headers["Location"])
    page = client.get(f"/m/{match}").get_data(as_text=True)
    token = csrf_token_from(page)
    assert f'"X-CSRFToken": "{token}"' in page
    hand = hand_data(client, match, declarer=0, bid=180, trump="H", melds=[60], tricks=[130, 60])
    assert hand.pop("csrf_token")  # signed with a timestamp: not always the same string
    assert client.post(f"/m/{match}/hands", data=hand).status_code == 400
    assert client.post(f"/m/{match}/hands/preview", data=hand, headers=HX).status_code == 400
    assert hand_count(csrf_app, match) == 0
    headers = {**HX, "X-CSRFToken": token}
    response = client.post(f"/m/{match}/hands", data=hand, headers=headers)
    assert response.status_code == 200
    assert hand_count(csrf_app, match) == 1
    # every other button of the page carries its token
    for path in ("/next", "/hands/1/delete", "/hands/1/restore", "/melds", "/finish"):
        assert client.post(f"/m/{match}{path}", data={}).status_code == 400, path
    detail = client.get(f"/m/{match}/hands/1?strike=1").get_data(as_text=True)
    confirm = form_data(detail)
    assert "csrf_token" in confirm
    assert client.post(f"/m/{match}/hands/1/delete", data=confirm).status_code == 303


def test_not_found_page(client: FlaskClient) -> None:
    response = client.get("/nowhere?lang=en")
    assert response.status_code == 404
    assert "Not found" in page_text(response)
    assert "<html" in response.get_data(as_text=True)


def test_wrong_method(client: FlaskClient) -> None:
    assert client.put("/new").status_code == 405
    assert client.get("/m/x/hands/preview").status_code in (404, 405)


def test_security_headers(client: FlaskClient) -> None:
    response = client.get("/")
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"


def test_no_inline_script_or_style(client: FlaskClient) -> None:
    data = setup_data(client, ["Anna", "Bert", "Carl"])
    match = match_token(client.post("/new", data=data).headers["Location"])
    for url in ("/", "/new", f"/m/{match}", f"/m/{match}/rules"):
        html = client.get(url).get_data(as_text=True)
        assert "<script>" not in html and " style=" not in html and "<style" not in html, url
        assert " onclick=" not in html and " onchange=" not in html, url


def test_htmx_is_vendored(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    assert "/static/htmx-2.0.8.min.js" in html
    response = client.get("/static/htmx-2.0.8.min.js")
    assert response.status_code == 200
    assert b"2.0.8" in response.data
    response.close()
