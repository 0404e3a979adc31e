"""Expensive work is bounded (issue 20, section 4): per client by Flask-Limiter (429 with
Retry-After and "try again in N seconds"), per server by the work slots (503)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from scorer import slots
from scorer.extensions import db
from tests.builders import fresh_app, page_text, start_match
from tests.web.test_backup import upload


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Flask]:
    with fresh_app(
        tmp_path, RATELIMIT_ENABLED=True, LIMIT_IMPORT="2 per minute", LIMIT_PDF="2 per minute"
    ) as app:
        yield app


def test_a_client_importing_too_often_is_told_when_to_try_again(limited: Flask) -> None:
    client = limited.test_client()
    token = start_match(client, ["Anna", "Bert", "Carl"])
    backup = client.get(f"/m/{token}").get_data()  # anything: refused, but counted
    for _ in range(2):
        assert upload(client, backup, lang="de").status_code == 422
    response = upload(client, backup, lang="de")
    assert response.status_code == 429
    seconds = int(response.headers["Retry-After"])
    assert 1 <= seconds <= 60
    assert f"in {seconds} Sekunden noch einmal versuchen" in page_text(response)
    # another client is not held up by this one
    other = limited.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    assert upload(other, backup).status_code == 422
    # the live view and the hand form answer as ever
    assert client.get(f"/m/{token}").status_code == 200
    with limited.app_context():
        db.session.remove()


def test_a_client_printing_too_often_is_told_when_to_try_again(limited: Flask) -> None:
    client = limited.test_client()
    token = start_match(client, ["Anna", "Bert", "Carl"])
    for _ in range(2):
        assert client.get(f"/m/{token}/sheet.pdf").status_code == 200
    response = client.get(f"/m/{token}/sheet.pdf?lang=en")
    assert response.status_code == 429
    assert "Retry-After" in response.headers
    assert "Please try again in" in page_text(response)


def test_an_import_while_the_slots_are_taken_gets_503(limited: Flask, tmp_path: Path) -> None:
    client = limited.test_client()
    token = start_match(client, ["Anna", "Bert", "Carl"])
    backup = client.get(f"/s/{_session(limited, token)}/backup.json").get_data()
    limited.config.update(WORK_SLOT_WAIT=0.1, LIMIT_IMPORT="100 per minute")
    with limited.test_request_context("/"), slots.work_slot():
        response = upload(client, backup, lang="de")
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "10"
    assert "Nichts wurde eingelesen" in page_text(response)
    assert upload(client, backup).status_code == 302


def test_the_slot_folder_follows_its_setting(tmp_path: Path) -> None:
    with (
        fresh_app(tmp_path, WORK_SLOT_DIR=str(tmp_path / "mine")) as app,
        app.test_request_context("/"),
        slots.work_slot(),
    ):
        assert (tmp_path / "mine" / "slot-0.lock").exists()


def _session(app: Flask, token: str) -> str:
    from tests.builders import session_token_of

    return session_token_of(app, token)


def test_the_polls_pass_the_limiter_by_and_the_limits_still_hold(
    limited: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only page's poll has no limit to count (the limiter looks for none: it cost a
    fifth of an unchanged poll); the expensive routes are limited as before."""
    from scorer.extensions import limiter

    client = limited.test_client()
    token = start_match(client, ["Anna", "Bert", "Carl"])
    page = client.get(f"/m/{token}").get_data(as_text=True)
    found = re.search(r"/v/([A-Za-z0-9_-]+)/qr\.svg", page)
    assert found is not None
    view = found.group(1)
    looked: list[str] = []
    real = limiter.limit_manager.resolve_limits

    def resolve(*args: object, **kwargs: object) -> object:
        looked.append(str(args[1]))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(limiter.limit_manager, "resolve_limits", resolve)
    for _ in range(5):
        assert client.get(f"/v/{view}/sheet", headers={"HX-Request": "true"}).status_code == 200
    assert looked == []
    for _ in range(2):
        assert client.get(f"/m/{token}/sheet.pdf").status_code == 200
    assert client.get(f"/m/{token}/sheet.pdf").status_code == 429
    assert looked
