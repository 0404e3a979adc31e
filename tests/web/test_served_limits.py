"""A body over the size limit gets the 413 page from a real server, not a broken connection.

Werkzeug refuses a body over the limit before reading it; gunicorn then closes the
connection while the phone is still sending, and the phone's network stack reports
a broken connection instead of the answer.  The app reads (and forgets) what is left
of a refused body once the answer is out (``web.DRAIN_AT_MOST``), so the answer arrives.
"""

from __future__ import annotations

import http.client
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer import services
from scorer.extensions import db
from scorer.rules import PRESETS
from tests.builders import make_app
from tests.served import Server

MB = 1024 * 1024


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Server, str]]:
    app = make_app(tmp_path)
    with app.app_context():
        token = services.start_match(names=["A", "B", "C"], ruleset=PRESETS["standard"]).token
        url = str(db.engine.url.render_as_string(hide_password=False))
        db.session.remove()
        db.engine.dispose()
    env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": "limits-secret"}
    env.pop("TEST_DATABASE_URL", None)
    server = Server(env, tmp_path / "gunicorn.log", threads=4)
    server.start()
    yield server, token
    server.stop()


def send(port: int, path: str, size: int) -> tuple[int, str]:
    """POST ``size`` bytes of form data in one go, then read the answer."""
    body = b"x=" + b"1" * (size - 2)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"})
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


@pytest.mark.parametrize("size", [2 * MB + 1, 20 * MB])
def test_a_hand_form_over_the_limit_gets_the_413_page(
    served: tuple[Server, str], size: int
) -> None:
    server, token = served
    status, html = send(server.port, f"/m/{token}/hands", size)
    assert status == 413
    assert "Zu viele Daten" in html


def test_an_import_over_the_limit_gets_the_import_page_with_why(served: tuple[Server, str]) -> None:
    server, _ = served
    status, html = send(server.port, "/import?lang=en", 20 * MB)
    assert status == 413
    assert "Nothing was imported: the file is larger than 2 MB" in html
