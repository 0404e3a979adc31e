"""Who may make pages on a hosted copy: its operator's invitation codes, and a limit per address.

``/online/new`` makes a page only with one of the codes of ``ONLINE_INVITATIONS`` (the
operator's environment); a copy without any makes no pages.  Every try is counted
per client address (``LIMIT_ONLINE_PAGES``): guessing codes gets 429 soon.  The forms
are the page's own, as a browser sends them (CSRF on).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from werkzeug.datastructures import MultiDict

from scorer.config import from_environment
from scorer.extensions import db
from scorer.online_models import OnlinePage
from tests.builders import INVITATION, browser_form, fresh_app, page_text


def pages(app: Flask) -> int:
    with app.app_context():
        return int(db.session.execute(select(func.count()).select_from(OnlinePage)).scalar_one())


def the_form(client: FlaskClient, lang: str = "de", **typed: str) -> MultiDict[str, str]:
    page = client.get(f"/online/new?lang={lang}")
    assert page.status_code == 200
    data = MultiDict(browser_form(page.get_data(as_text=True), "online-new"))
    for key, value in typed.items():
        assert key in data, f"the form has no {key}"
        data[key] = value
    return data


def test_a_right_invitation_makes_the_page(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    data = the_form(client, invitation=f"  {INVITATION} ", name="Herbstturnier 2026")
    made = client.post("/online/new", data=data)
    assert made.status_code == 303
    assert made.headers["Location"].startswith("/online/a/")
    admin = client.get(made.headers["Location"])
    assert "Herbstturnier 2026" in page_text(admin)
    assert pages(csrf_app) == 1


@pytest.mark.parametrize(
    ("code", "lang", "words"),
    [
        ("test-invitation", "de", "Das ist kein Einladungscode dieser Seite"),
        (INVITATION.upper(), "de", "Das ist kein Einladungscode dieser Seite"),
        ("", "de", "Bitte den Einladungscode eingeben"),
        ("x" * 500, "en", "Field cannot be longer than 200 characters"),
        ("nope", "en", "This is not an invitation code of this site"),
    ],
)
def test_a_wrong_invitation_makes_nothing_and_keeps_the_name(
    csrf_app: Flask, code: str, lang: str, words: str
) -> None:
    client = csrf_app.test_client()
    data = the_form(client, lang, invitation=code, name="Herbstturnier")
    refused = client.post(f"/online/new?lang={lang}", data=data)
    assert refused.status_code == 422
    assert words in page_text(refused)
    kept = dict(browser_form(refused.get_data(as_text=True), "online-new"))
    assert kept["name"] == "Herbstturnier"
    assert pages(csrf_app) == 0


@pytest.fixture
def closed(tmp_path: Path) -> Iterator[Flask]:
    with fresh_app(tmp_path, ONLINE_INVITATIONS=()) as app:
        yield app


def test_a_copy_without_invitations_makes_no_pages(closed: Flask) -> None:
    client = closed.test_client()
    page = client.get("/online/new")
    assert page.status_code == 200
    assert "Hier werden keine Seiten angelegt" in page_text(page)
    assert 'id="online-new"' not in page.get_data(as_text=True)
    refused = client.post("/online/new", data={"name": "Herbstturnier", "invitation": "x"})
    assert refused.status_code == 403
    assert pages(closed) == 0


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Flask]:
    with fresh_app(tmp_path, RATELIMIT_ENABLED=True, LIMIT_ONLINE_PAGES="3 per hour") as app:
        yield app


def test_guessing_invitations_is_stopped_per_address(limited: Flask) -> None:
    client = limited.test_client()
    for guess in ("guess-1", "guess-2", "guess-3"):
        data = the_form(client, invitation=guess, name="Herbstturnier")
        assert client.post("/online/new", data=data).status_code == 422
    # the right code does not help from here for a while: every try counted
    data = the_form(client, invitation=INVITATION, name="Herbstturnier")
    stopped = client.post("/online/new", data=data)
    assert stopped.status_code == 429
    seconds = int(stopped.headers["Retry-After"])
    assert 1 <= seconds <= 3600
    assert (
        f"Dieses Gerät hat in kurzer Zeit oft versucht, hier Seiten anzulegen. "
        f"Bitte in {seconds} Sekunden noch einmal versuchen."
    ) in page_text(stopped)
    assert pages(limited) == 0
    assert client.get("/online/new").status_code == 200  # looking is not counted
    # another address is not held up by this one
    other = limited.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    data = the_form(other, invitation=INVITATION, name="Herbstturnier")
    assert other.post("/online/new", data=data).status_code == 303
    assert pages(limited) == 1


def test_the_invitations_come_from_the_operators_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ONLINE_INVITATIONS", " TSV-Ebersbach-7Hq2 , cup-2026-Lm9x,")
    assert from_environment(str(tmp_path))["ONLINE_INVITATIONS"] == (
        "TSV-Ebersbach-7Hq2",
        "cup-2026-Lm9x",
    )
    monkeypatch.delenv("ONLINE_INVITATIONS")
    assert from_environment(str(tmp_path))["ONLINE_INVITATIONS"] == ()
