"""Builders for the web and browser tests: an app on a fresh database, form helpers.

``TEST_DATABASE_URL`` (set by tests/run.sh for the second pass) runs the same
tests on PostgreSQL; without it every test gets its own SQLite file.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from flask import Flask
from sqlalchemy import text

from scorer import create_app
from scorer.extensions import db
from scorer.services.online import hosted
from scorer.services.tournaments import published


def _pg_url() -> tuple[str | None, str]:
    """The PostgreSQL URL of the tests and the schema they use.

    Under pytest-xdist every worker gets a schema of its own on the same database
    (its connections' ``search_path``), so the workers never empty each other's tables.
    """
    url = os.environ.get("TEST_DATABASE_URL")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not url or not worker:
        return url, "public"
    schema = f"test_{worker}"
    joined = "&" if "?" in url else "?"
    return f"{url}{joined}options=-csearch_path%3D{schema}", schema


PG_URL, PG_SCHEMA = _pg_url()
EMPTY_SCHEMA = f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE; CREATE SCHEMA {PG_SCHEMA}"


INVITATION = "test-invitation-7Hq2Lm9x"
"""The invitation code every test app takes for a page online (``ONLINE_INVITATIONS``)."""


def make_app(tmp_path: Path, **extra: Any) -> Flask:
    """An app on a fresh, empty database (the schema created from the models)."""
    url = PG_URL or f"sqlite:///{tmp_path / 'test.sqlite'}"
    config = {
        "TESTING": True,
        "SECRET_KEY": "test-secret-not-used-in-production",
        "SQLALCHEMY_DATABASE_URI": url,
        "WTF_CSRF_ENABLED": False,
        # a test's database is thrown away: no waiting for the disk on every commit
        "SQLITE_SYNCHRONOUS": "OFF",
        # one client (the test client) asks for many imports and PDFs: limits tested apart
        "RATELIMIT_ENABLED": False,
        # a saved hand shows on the public pages at the next poll (tested apart: the
        # ranking built at most every TOURNAMENT_FRESH seconds)
        "TOURNAMENT_FRESH": 0,
        "TOURNAMENT_POLL_KEEP": 0,
        "SHARE_POLL_KEEP": 0,
        # no printouts made ahead by the job queue's worker (tests/web/test_paper_ahead.py
        # turns it on and runs the queue)
        "PDF_AHEAD": False,
        # each test its own job queue (never the instance folder's)
        "JOB_QUEUE": str(tmp_path / "jobs" / "jobs.sqlite"),
        # each test its own work slots: tests running side by side do not wait for each other
        "WORK_SLOT_DIR": str(tmp_path / "work-slots"),
        # a hosted copy makes pages with its operator's invitation (tests.online_builders)
        "ONLINE_INVITATIONS": (INVITATION,),
    }
    config.update(extra)
    app = create_app(config)
    with app.app_context():
        if PG_URL and app.config["SQLALCHEMY_DATABASE_URI"] == PG_URL:
            db.session.execute(text(EMPTY_SCHEMA))
            db.session.commit()
            published.forget()  # the same address, a new database
            hosted.forget()
        db.create_all()
    return app


@contextmanager
def fresh_app(tmp_path: Path | None = None, **extra: Any) -> Iterator[Flask]:
    """:func:`make_app` for a ``with`` block; its database connections are closed after.

    Without ``tmp_path`` the SQLite file goes to a temporary folder of its own (for a
    hypothesis example, which cannot use a test's ``tmp_path`` fixture).
    """
    with ExitStack() as stack:
        if tmp_path is None:
            tmp_path = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        app = make_app(tmp_path, **extra)
        try:
            yield app
        finally:
            with app.app_context():
                db.session.remove()
                db.engine.dispose()


CSRF_RE = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def csrf_token_from(html: str) -> str:
    """The CSRF token of the first form in a page."""
    match = CSRF_RE.search(html)
    assert match, "no csrf_token in the page"
    return match.group(1)


class _FormReader(HTMLParser):
    def __init__(self, form_id: str | None) -> None:
        super().__init__()
        self.form_id = form_id
        self.inside = form_id is None
        self.data: dict[str, str] = {}
        self.select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and self.form_id is not None:
            self.inside = a.get("id") == self.form_id
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.data[name] = a.get("value") or "y"
            elif kind != "submit":
                self.data[name] = a.get("value", "")
        elif tag == "select":
            self.select = name
        elif tag == "option" and self.select and ("selected" in a or self.select not in self.data):
            self.data[self.select] = a.get("value", "")
        elif tag == "textarea" and name:
            self.data[name] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self.select = None
        if tag == "form" and self.form_id is not None:
            self.inside = False


def form_data(html: str, form_id: str | None = None) -> dict[str, str]:
    """What a browser would submit for a form of the page (without clicking a button)."""
    reader = _FormReader(form_id)
    reader.feed(html)
    return reader.data


class _BrowserForm(HTMLParser):
    """What a browser submits for a form (the HTML standard's form data set).

    Only controls with a ``name`` and not ``disabled``; checkboxes and radios when
    ``checked``; a select's selected options (else its first); a textarea's text; a
    ``readonly`` input is sent (readonly is not disabled); buttons and submits only as
    the one that was pressed (``button``: its ``name`` or ``name=value``).
    """

    def __init__(self, form_id: str, button: str | None) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.button = button
        self.inside = False
        self.pairs: list[tuple[str, str]] = []
        self.select: tuple[str, list[tuple[str, bool]]] | None = None
        self.option: dict[str, str] | None = None
        self.option_text = ""
        self.textarea: str | None = None
        self.text = ""
        self.pressed: tuple[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.inside = a.get("id") == self.form_id
            return
        if not self.inside:
            return
        name = a.get("name")
        enabled = "disabled" not in a
        if tag == "input" and name and enabled:
            kind = a.get("type", "text").lower()
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.pairs.append((name, a.get("value", "on") if "value" in a else "on"))
            elif kind in ("submit", "image", "button", "reset"):
                self._maybe_pressed(name, a.get("value", ""))
            elif kind != "file":
                self.pairs.append((name, a.get("value", "")))
        elif tag == "button" and name and enabled:
            if a.get("type", "submit").lower() == "submit":
                self._maybe_pressed(name, a.get("value", ""))
        elif tag == "select" and name and enabled:
            self.select = (name, [])
        elif tag == "option" and self.select is not None:
            self.option = a
            self.option_text = ""
        elif tag == "textarea" and name and enabled:
            self.textarea = name
            self.text = ""

    def _maybe_pressed(self, name: str, value: str) -> None:
        if self.button in (name, f"{name}={value}") and self.pressed is None:
            self.pressed = (name, value)

    def handle_data(self, data: str) -> None:
        if self.textarea is not None:
            self.text += data
        if self.option is not None:
            self.option_text += data

    def _end_option(self) -> None:
        if self.option is not None and self.select is not None:
            value = self.option.get("value", self.option_text.strip())
            self.select[1].append((value, "selected" in self.option))
        self.option = None

    def handle_endtag(self, tag: str) -> None:
        if tag == "option":
            self._end_option()
        elif tag == "select" and self.select is not None:
            self._end_option()
            name, options = self.select
            chosen = [v for v, selected in options if selected] or [v for v, _ in options[:1]]
            self.pairs.extend((name, v) for v in chosen[-1:])
            self.select = None
        elif tag == "textarea" and self.textarea is not None:
            # the HTML parser drops the newline right after <textarea>, as browsers do
            self.pairs.append((self.textarea, self.text.removeprefix("\n")))
            self.textarea = None
        elif tag == "form":
            self.inside = False


def browser_form(html: str, form_id: str, button: str | None = None) -> list[tuple[str, str]]:
    """The pairs a browser posts for the form ``form_id`` of ``html`` when ``button`` (a
    submit's ``name`` or ``name=value``; None: Enter in a field) is pressed.

    Unlike :func:`form_data` nothing is added or guessed: a read-only value without a
    name, an unchecked box, a disabled field are not sent, exactly as in a browser.
    """
    reader = _BrowserForm(form_id, button)
    reader.feed(html)
    reader.close()
    if button is not None and reader.pressed is None:
        raise AssertionError(f"no submit button {button!r} in form {form_id!r}")
    return reader.pairs + ([reader.pressed] if reader.pressed else [])


# -- driving the app like a browser ------------------------------------------

HX = {"HX-Request": "true"}
TOKEN_RE = re.compile(r"/m/([A-Za-z0-9_-]{20,})")


def match_token(location: str) -> str:
    """The match token of a URL such as ``/m/<token>``."""
    found = TOKEN_RE.search(location)
    assert found, f"no match link in {location!r}"
    return found.group(1)


def setup_data(
    client: Any,
    names: list[str],
    preset: str = "standard",
    *,
    teams: list[int] | None = None,
    **house_rules: Any,
) -> dict[str, str]:
    """The setup form as a browser would send it: preset applied, names typed, rules set.

    ``house_rules`` are Ruleset option names (``target=500``); ``None`` empties
    an optional value, booleans tick or untick the box.  ``title``, ``stake``,
    ``stake_basis`` and ``first_dealer`` go to their fields.
    """
    page = client.get("/new").get_data(as_text=True)
    data = form_data(page, "setup-form")
    if preset != "standard":
        data["preset"] = preset
        data["action"] = "preset"
        page = client.post("/new", data=data).get_data(as_text=True)
        data = form_data(page, "setup-form")
    while sum(1 for k in data if k.startswith("players-")) < len(names):
        data["action"] = "add_player"
        page = client.post("/new", data=data).get_data(as_text=True)
        data = form_data(page, "setup-form")
    for key in [k for k in data if k.startswith("players-")]:
        data[key] = ""
    for i, name in enumerate(names):
        data[f"players-{i}"] = name
    if teams is not None:
        data["teams"] = "y"
        for i, team in enumerate(teams):
            data[f"team_of-{i}"] = str(team)
    for key in ("title", "stake", "stake_basis", "first_dealer"):
        if key in house_rules:
            data[key] = str(house_rules.pop(key))
    for name, value in house_rules.items():
        key = f"rule-{name}"
        if value is True:
            data[key] = "y"
        elif value is False:
            data.pop(key, None)
        else:
            data[key] = "" if value is None else str(value)
    data["action"] = "start"
    return data


def start_match(
    client: Any,
    names: list[str],
    preset: str = "standard",
    *,
    teams: list[int] | None = None,
    **house_rules: Any,
) -> str:
    """Start a match through the setup form; the match token."""
    data = setup_data(client, names, preset, teams=teams, **house_rules)
    response = client.post("/new", data=data)
    assert response.status_code in (302, 303), response.get_data(as_text=True)[:3000]
    return match_token(response.headers["Location"])


def hand_data(client: Any, token: str, **fields: Any) -> dict[str, str]:
    """The hand form of the match page, filled in.

    Fields: ``declarer`` (party index), ``bid``, ``trump``, ``outcome``, ``won``
    (True/False), ``melds`` and ``tricks`` (lists, ``None`` for empty),
    ``no_trick`` (list of party indices), or raw form keys.
    """
    page = client.get(f"/m/{token}").get_data(as_text=True)
    data = form_data(page, "hand-form")
    return fill_hand(data, **fields)


def fill_hand(data: dict[str, str], **fields: Any) -> dict[str, str]:
    """Fill a hand form's data (see :func:`hand_data`)."""
    data = dict(data)
    for i, value in enumerate(fields.pop("melds", []) or []):
        data[f"parties-{i}-melds"] = "" if value is None else str(value)
    for i, value in enumerate(fields.pop("tricks", []) or []):
        data[f"parties-{i}-tricks"] = "" if value is None else str(value)
    for i in fields.pop("no_trick", []) or []:
        data[f"parties-{i}-no_trick"] = "y"
    if "won" in fields:
        won = fields.pop("won")
        data["won"] = "" if won is None else ("1" if won else "0")
    for key, value in fields.items():
        data[key] = "" if value is None else str(value)
    return data


def enter_hand(client: Any, token: str, *, status: int = 303, **fields: Any) -> Any:
    """Enter a hand through the match page's form (no JavaScript); the response."""
    data = hand_data(client, token, **fields)
    response = client.post(f"/m/{token}/hands", data=data)
    assert response.status_code == status, response.get_data(as_text=True)[:3000]
    return response


def page_text(response: Any) -> str:
    """A response's HTML with tags removed and whitespace folded (for reading text)."""
    html = response.get_data(as_text=True) if hasattr(response, "get_data") else response
    text = re.sub(r"<[^>]+>", " ", html)
    return " ".join(unescape(text).split())


HAND_ROW_RE = re.compile(r'<tr id="hand-(\d+)"')


def hand_ids(client: Any, token: str) -> list[int]:
    """The ids of the hands on the sheet, in order."""
    html = client.get(f"/m/{token}").get_data(as_text=True)
    return [int(i) for i in HAND_ROW_RE.findall(html)]


# -- building matches through the services (fast, no forms) -------------------


def hand_input(
    parties: int,
    number: int,
    *,
    declarer: int | None = None,
    made: bool = True,
    sits_out: int | None = None,
) -> Any:
    """A valid hand for a table of ``parties`` parties, varied by ``number``.

    Every 7th hand is a going off, every 13th a lost Bettel; the others are
    played, made or failed as asked, with trick points adding up to 250.
    ``sits_out`` is the dealer's party when the dealer sits out: it gets no
    line and is never the declarer.
    """
    from scorer.services import HandInput

    active = [p for p in range(parties) if p != sits_out]
    if declarer is None:
        declarer = active[number % len(active)]
    trump = "EGHS"[number % 4]
    after = active[(active.index(declarer) + 1) % len(active)]
    if number % 7 == 6:
        melds = [0] * parties
        melds[after] = 40
        return HandInput(declarer=declarer, bid=200, trump=trump, outcome="gone_off", melds=melds)
    if number % 13 == 12:
        return HandInput(declarer=declarer, outcome="bettel", won=False)
    others = [p for p in active if p != declarer]
    tricks: list[int | None] = [None] * parties
    for p in others:
        tricks[p] = 120 // len(others)
    tricks[after] = (tricks[after] or 0) + 120 - (120 // len(others)) * len(others)
    tricks[declarer] = 130
    melds = [0 if p == sits_out else 20 for p in range(parties)]
    melds[declarer] = 100 if made else 20
    bid = 150 + 10 * (number % 8) if made else 400
    return HandInput(declarer=declarer, bid=bid, trump=trump, melds=melds, tricks=tricks)


def service_match(
    app: Flask,
    names: list[str],
    hands: int | list[Any] = 0,
    *,
    preset: str = "standard",
    session_token: str | None = None,
    stake_cents: int = 0,
    stake_basis: str = "full",
    title: str = "",
    **changes: Any,
) -> str:
    """A match built with ``scorer.services`` (optionally in an existing session); its token.

    ``hands`` is a number of varied hands (:func:`hand_input`) or a list of
    ``HandInput``; hands after the end of the match are left out.
    ``changes`` are ruleset fields (``target=100_000``).
    """
    from scorer import services
    from scorer.rules import PRESETS

    with app.app_context():
        ruleset = PRESETS[preset].replace(players=len(names), **changes)
        session = services.get_session(session_token) if session_token else None
        match = services.start_match(
            names=names,
            ruleset=ruleset,
            title=title,
            stake_cents=stake_cents,
            stake_basis=stake_basis,
            session=session,
        )
        seats = len(names)
        inputs = (
            [
                hand_input(
                    ruleset.parties,
                    n,
                    sits_out=(n % seats) if ruleset.dealer_sits_out else None,
                )
                for n in range(hands)
            ]
            if isinstance(hands, int)
            else hands
        )
        for data in inputs:
            if services.sheet(match).finished:
                break  # the match has ended: the rest of the hands are not played
            services.save_hand(match, data)
        return str(match.token)


def session_token_of(app: Flask, match_token: str) -> str:
    """The session token of a match."""
    from scorer import services

    with app.app_context():
        return str(services.get_match(match_token).session.token)


def sheet_of(app: Flask, token: str) -> Any:
    """The match's sheet as the app computes it (totals, rows, end, winners)."""
    from scorer import services

    with app.app_context():
        sheet = services.sheet(services.get_match(token))
        # read everything the tests look at while the session is open
        sheet.rows_points = [row.points for row in sheet.rows]  # type: ignore[attr-defined]
        sheet.open_melds = (  # type: ignore[attr-defined]
            [m.name for m in sheet.open_hand.meld_log] if sheet.open_hand else []
        )
        return sheet


def hand_count(app: Flask, token: str, *, live: bool = False) -> int:
    """How many hands the match has (with the struck ones unless ``live``)."""
    from scorer import services

    with app.app_context():
        match = services.get_match(token)
        return len(services.live_hands(match) if live else match.hands)


def multipart(form: dict[str, Any]) -> dict[str, Any]:
    """``client.post`` arguments for ``form`` as multipart/form-data, encoded in memory.

    Values are text, or ``(bytes, filename)`` for a file.  The test client's own
    encoder spools a large body to a temporary file that it never closes (a
    ResourceWarning, which ``filterwarnings = error`` turns into a failure whenever
    the garbage collector happens to run).
    """
    from werkzeug.datastructures import FileStorage
    from werkzeug.test import encode_multipart

    values: dict[str, Any] = {}
    for name, value in form.items():
        if isinstance(value, tuple):
            raw, filename = value
            value = FileStorage(io.BytesIO(raw), filename=filename, content_type="application/json")
        values[name] = value
    boundary, body = encode_multipart(values)
    return {"data": body, "content_type": f"multipart/form-data; boundary={boundary}"}


def shows(client: Any, url: str, *phrases: str) -> str:
    """GET ``url``: it answers 200 and its text shows every phrase; the text."""
    response = client.get(url)
    assert response.status_code == 200, url
    text = page_text(response)
    missing = [phrase for phrase in phrases if phrase not in text]
    assert not missing, (missing, text[:2000])
    return text


def run_jobs(app: Flask) -> int:
    """Run what ``app``'s job queue holds, here, one after the other as the worker would
    (``python -m scorer.worker``); how many jobs it took out of the queue."""
    from scorer.jobs import jobs

    huey = jobs(app).huey
    ran = 0
    while (task := huey.dequeue()) is not None:
        huey.execute(task)
        ran += 1
    return ran
