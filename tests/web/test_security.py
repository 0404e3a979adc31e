"""Security: CSRF on every form, headers, cookies, escaping, input limits, no secrets.

Routes are enumerated from ``app.url_map``, so a route added later is checked too.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from scorer import create_app
from scorer.extensions import db
from scorer.models import GameSession, Hand, HandParty, Match
from tests.builders import HX, csrf_token_from, fresh_app, hand_data, setup_data, start_match

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["Anna", "Berta", "Carl"]
HAND = {"declarer": 0, "bid": 300, "trump": "H", "melds": [100, 40, 20], "tricks": [180, 60, None]}


def _tokens(app: Flask, token: str) -> dict[str, Any]:
    with app.app_context():
        match = db.session.execute(select(Match).where(Match.token == token)).scalar_one()
        hand = db.session.execute(select(Hand.id)).scalars().first()
        return {
            "match": match.token,
            "view": match.view_token,
            "session": match.session.token,
            "session_view": match.session.view_token,
            "hand": hand or 1,
        }


def _path(rule: Any, tokens: dict[str, Any]) -> str:
    """A URL of ``rule`` with real tokens: edit tokens for /m and /s, view tokens for /v."""
    values: dict[str, Any] = {}
    for arg in rule.arguments:
        if arg == "token":
            values[arg] = tokens["session" if rule.rule.startswith("/s/") else "match"]
        elif arg == "view_token":
            values[arg] = tokens["session_view" if rule.rule.startswith("/v/s/") else "view"]
        elif arg == "lang":
            values[arg] = "en"
        elif rule._converters[arg].__class__.__name__ == "IntegerConverter":
            values[arg] = tokens["hand"]
        else:
            values[arg] = "scorer.css"
    path = rule.rule
    for arg, value in values.items():
        path = re.sub(rf"<(?:[^:<>]+:)?{arg}>", str(value), path)
    return path


def _counts(app: Flask) -> tuple[int, ...]:
    with app.app_context():
        return tuple(
            db.session.execute(select(func.count()).select_from(model)).scalar_one()
            for model in (GameSession, Match, Hand, HandParty)
        ) + tuple(db.session.execute(select(Match.version)).scalars())


# -- CSRF ----------------------------------------------------------------------


SIGNED = {"online.connect", "online.push", "hall.pair", "hall.hello", "hall.push"}


def test_every_post_route_needs_the_csrf_token(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    page = client.get("/new").get_data(as_text=True)
    token = start_match(client, NAMES)  # through the form, with its token: that works
    data = hand_data(client, token, **HAND)
    assert client.post(f"/m/{token}/hands", data=data).status_code in (302, 303)
    tokens = _tokens(csrf_app, token)
    before = _counts(csrf_app)
    posts = [r for r in csrf_app.url_map.iter_rules() if "POST" in (r.methods or ())]
    assert len(posts) >= 10
    for rule in posts:
        path = _path(rule, tokens)
        if rule.endpoint in SIGNED:
            # a hall's connect and push carry no form: their signature stands in for the token
            # (tests/web/test_online.py forges it); unsigned they change nothing
            unsigned = client.post(path, data=data)
            assert 400 <= unsigned.status_code < 500, (path, unsigned.status_code)
            continue
        bare = client.post(path, data={k: v for k, v in data.items() if k != "csrf_token"})
        assert bare.status_code == 400, (path, bare.status_code)
        htmx = client.post(path, data={"version": "1"}, headers=HX)
        assert htmx.status_code == 400, (path, htmx.status_code)
        forged = client.post(path, data={**data, "csrf_token": "forged"})
        assert forged.status_code == 400, (path, forged.status_code)
    assert _counts(csrf_app) == before
    assert csrf_token_from(page)


def test_htmx_sends_the_csrf_token_as_a_header(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    token = start_match(client, NAMES)
    html = client.get(f"/m/{token}").get_data(as_text=True)
    header = re.search(r"hx-headers='\{\"X-CSRFToken\": \"([^\"]+)\"\}'", html)
    assert header
    data = {k: v for k, v in hand_data(client, token, **HAND).items() if k != "csrf_token"}
    response = client.post(
        f"/m/{token}/hands", data=data, headers={**HX, "X-CSRFToken": header.group(1)}
    )
    assert response.status_code == 200


# -- headers -------------------------------------------------------------------


def test_security_headers_on_every_kind_of_response(client: FlaskClient, app: Flask) -> None:
    token = start_match(client, NAMES)
    tokens = _tokens(app, token)
    responses = [
        client.get("/"),
        client.get(f"/m/{token}"),
        client.get(f"/v/{tokens['view']}"),
        client.get(f"/v/{tokens['view']}/qr.svg"),
        client.get("/static/icon.svg"),
        client.get("/nowhere"),
        client.post("/"),  # 405
    ]
    for response in responses:
        response.close()  # the static file's handle
        csp = response.headers["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";") if d.strip())
        assert directives["script-src"] == "'self'"
        assert directives["style-src"] == "'self'"
        assert directives["frame-ancestors"] == "'none'"
        assert directives["object-src"] == "'none'"
        assert directives["base-uri"] == "'self'"
        assert directives["form-action"] == "'self'"
        assert "unsafe" not in csp
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Referrer-Policy"] in ("same-origin", "no-referrer")
        assert response.headers["X-Frame-Options"] == "DENY"


class _Inline(HTMLParser):
    """Finds what the CSP would block: inline scripts, style attributes, event handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {k for k, _ in attrs}
        if tag == "style":
            self.found.append("<style>")
        if tag == "script":
            self.in_script = "src" not in names
        if "style" in names:
            self.found.append(f"<{tag} style=…>")
        self.found += [f"<{tag} {k}=…>" for k in names if k.startswith("on")]
        self.found += [
            f"<{tag} {k}=javascript:" for k, v in attrs if (v or "").startswith("javascript:")
        ]

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script and data.strip():
            self.found.append("inline <script>")


# -- escaping --------------------------------------------------------------------

EVIL = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", '"><svg onload=alert(3)>']
EVIL_TITLE = "</title><script>alert(4)</script>"


def _html_pages(client: FlaskClient, app: Flask, tokens: dict[str, Any]) -> dict[str, str]:
    """Every GET page of the app (HTML only), as a normal request and as htmx."""
    pages: dict[str, str] = {}
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.endpoint in ("static", "main.language"):
            continue
        path = _path(rule, tokens)
        for headers in ({}, HX):
            response = client.get(path, headers=headers)
            assert response.status_code < 500, path
            if response.mimetype == "text/html":
                pages[f"{path} {'htmx' if headers else ''}"] = response.get_data(as_text=True)
    return pages


def test_names_and_titles_are_escaped_on_every_page(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, EVIL, title=EVIL_TITLE)
    data = hand_data(client, token, **HAND)
    data["parties-0-meld_names"] = "pair H,<script>alert(5)</script>"
    assert client.post(f"/m/{token}/hands", data=data).status_code in (302, 303)
    client.post(f"/m/{token}/hands/preview", data=data, headers=HX)
    tokens = _tokens(app, token)
    pages = _html_pages(client, app, tokens)
    # a form sent back with errors shows the names again
    setup = setup_data(client, [*EVIL, "x" * 41])
    pages["/new 422"] = client.post("/new", data=setup).get_data(as_text=True)
    pages["preview"] = client.post(f"/m/{token}/hands/preview", data=data, headers=HX).get_data(
        as_text=True
    )
    assert len(pages) >= 12
    for where, html in pages.items():
        for raw in [*EVIL, EVIL_TITLE, "<script>alert(5)</script>"]:
            assert raw not in html, (where, raw)
        for bad in ("<script>alert", "<img src=x", "<svg onload"):
            assert bad not in html, (where, bad)
    match_page = pages[f"/m/{token} "]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in match_page
    assert "&lt;/title&gt;&lt;script&gt;alert(4)&lt;/script&gt;" in pages[f"/v/{tokens['view']} "]


def test_no_page_has_inline_script_or_style(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    client.post(f"/m/{token}/hands", data=hand_data(client, token, **HAND))
    pages = _html_pages(client, app, _tokens(app, token))
    pages["/new 422"] = client.post("/new", data={"action": "start"}).get_data(as_text=True)
    for where, html in pages.items():
        parser = _Inline()
        parser.feed(html)
        assert parser.found == [], where


# -- cookies -----------------------------------------------------------------------


def _cookie(response: Any, name: str) -> str:
    cookies = [c for c in response.headers.getlist("Set-Cookie") if c.startswith(name + "=")]
    assert cookies, f"no {name} cookie"
    return cookies[0]


def test_the_session_cookie_is_httponly_and_samesite(client: FlaskClient) -> None:
    # the cookie is sent when the session changes: here the new match joins the list
    response = client.post("/new", data=setup_data(client, NAMES))
    assert response.status_code in (302, 303)
    cookie = _cookie(response, "session")
    assert "Expires=" in cookie  # remembered for a year (permanent)
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # plain http on 127.0.0.1 must still work


def test_session_cookie_secure_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSION_COOKIE_SECURE", "1")
    with fresh_app(tmp_path) as app:
        assert app.config["SESSION_COOKIE_SECURE"] is True
        cookie = _cookie(app.test_client().get("/new"), "session")
        assert "Secure" in cookie and "HttpOnly" in cookie


def test_the_secret_key_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'x.sqlite'}"
    monkeypatch.delenv("SECRET_KEY", raising=False)
    one = create_app({"SQLALCHEMY_DATABASE_URI": url}).config["SECRET_KEY"]
    two = create_app({"SQLALCHEMY_DATABASE_URI": url}).config["SECRET_KEY"]
    assert one != two and len(one) >= 32  # random per process when not set
    monkeypatch.setenv("SECRET_KEY", "from-the-environment")
    assert create_app({"SQLALCHEMY_DATABASE_URI": url}).config["SECRET_KEY"] == (
        "from-the-environment"
    )


# -- input limits --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "title"),
    [
        (["A" * 41, "Berta", "Carl"], ""),
        (NAMES, "T" * 81),
        ([f"P{i}" for i in range(12)], ""),
    ],
)
def test_names_and_titles_have_limits(
    app: Flask, client: FlaskClient, names: list[str], title: str
) -> None:
    data = setup_data(client, NAMES, title=title)
    for i, name in enumerate(names):
        data[f"players-{i}"] = name
    response = client.post("/new", data=data)
    assert response.status_code == 422
    with app.app_context():
        assert db.session.execute(select(func.count()).select_from(Match)).scalar_one() == 0


@pytest.mark.parametrize(
    "fields",
    [
        {"bid": 10_001},
        {"bid": "9" * 40},
        {"bid": -300},
        {"melds": [-1, 0, 0]},
        {"melds": [10_001, 0, 0]},
        {"tricks": [1_001, 0, None]},
        {"tricks": ["1e9", 0, None]},
        {"declarer": 9},
    ],
)
def test_numbers_are_bounded(app: Flask, client: FlaskClient, fields: dict[str, Any]) -> None:
    token = start_match(client, NAMES)
    response = client.post(f"/m/{token}/hands", data=hand_data(client, token, **{**HAND, **fields}))
    assert response.status_code == 422
    with app.app_context():
        assert db.session.execute(select(func.count()).select_from(Hand)).scalar_one() == 0


def test_hidden_fields_are_bounded_too(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    data = hand_data(client, token, **HAND)
    data["parties-0-meld_names"] = ",".join(["x" * 5000] * 200)
    data["idempotency_key"] = "k" * 5000
    assert client.post(f"/m/{token}/hands", data=data).status_code in (302, 303)
    with app.app_context():
        hand = db.session.execute(select(Hand)).scalar_one()
        assert len(hand.idempotency_key or "") <= 64
        names = hand.parties[0].meld_names or []
        assert len(names) <= 40 and all(len(n) <= 40 for n in names)


@pytest.mark.parametrize("fixture", ["app", "csrf_app"])
def test_too_large_a_request_gets_a_friendly_413_page(
    request: pytest.FixtureRequest, fixture: str
) -> None:
    app: Flask = request.getfixturevalue(fixture)
    client = app.test_client()
    token = start_match(client, NAMES) if fixture == "app" else "x" * 22
    big = {"parties-0-meld_names": "x" * (app.config["MAX_CONTENT_LENGTH"] + 1)}
    response = client.post(f"/m/{token}/hands?lang=en", data=big)
    html = response.get_data(as_text=True)
    assert response.status_code == 413
    assert 'class="card error-page"' in html
    assert "Too much data" in html
    assert app.config["MAX_CONTENT_LENGTH"] <= 4 * 1024 * 1024


# -- no secrets in the repository ---------------------------------------------------

SKIP_DIRS = {".git", ".venv", "instance", "test-artifacts", "__pycache__", ".mypy_cache",
             ".ruff_cache", "node_modules"}  # fmt: skip
SECRET_PATTERNS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    re.compile(r"postgres(?:ql)?(?:\+\w+)?://[^:/@\s'\"]+:[^@\s'\"]+@"),  # a password in a URL
    re.compile(r"""(?i)\b(secret_key|password|api_key)\b\s*[:=]\s*['"][^'"\s]{8,}['"]"""),
    re.compile(r"AKIA[0-9A-Z]{16}"),
]
ALLOWED = ("test-secret-not-used-in-production", "fault-test-secret", "from-the-environment")


def test_no_secrets_in_the_repository() -> None:
    found = []
    for path in ROOT.rglob("*"):
        if any(part in SKIP_DIRS for part in path.relative_to(ROOT).parts) or not path.is_file():
            continue
        if path.suffix in (".sqlite", ".sqlite-wal", ".sqlite-shm", ".db"):
            found.append(f"{path}: a database file")
            continue
        if path.name in (".env", "id_rsa") or path.suffix in (".pem", ".key"):
            found.append(f"{path}: a secrets file")
            continue
        if path.suffix in (".png", ".pdf", ".mo", ".ico", ".woff", ".woff2", ".ttf"):
            continue
        try:
            content = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for pattern in SECRET_PATTERNS:
            for hit in pattern.finditer(content):
                if not any(ok in hit.group(0) for ok in ALLOWED):
                    found.append(f"{path.relative_to(ROOT)}: {hit.group(0)[:60]}")
    assert found == []


def test_loading_a_remembered_match_again_sends_no_cookie(client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    client.get(f"/m/{token}")
    response = client.get(f"/m/{token}")
    assert response.status_code == 200
    assert not [c for c in response.headers.getlist("Set-Cookie") if c.startswith("session=")]
