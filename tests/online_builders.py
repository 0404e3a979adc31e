"""Two instances for the tests of the tournament online: a hall and a hosted copy.

The hall runs on SQLite (a laptop); the hosted copy on the tests' database
(PostgreSQL when ``TEST_DATABASE_URL`` is set).  :class:`Wire` carries the hall's
requests to the hosted copy's test client, and can be cut.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask

from scorer.extensions import db
from scorer.services import trouble
from scorer.services.wire import Answer, Unreachable
from tests.builders import INVITATION, form_data, make_app


@dataclass
class Wire:
    """The hall's connection to the hosted copy (a test client); ``cut`` drops every request."""

    hosted: Flask
    cut: bool = False
    sent: list[tuple[str, bytes, dict[str, str]]] = field(default_factory=list)

    def __call__(self, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        if self.cut:
            raise Unreachable(trouble.NO_NETWORK)
        self.sent.append((url, body, headers))
        response = self.hosted.test_client().post(urlsplit(url).path, data=body, headers=headers)
        return Answer(response.status_code, response.get_json(silent=True) or {})


@dataclass
class Pair:
    hall: Flask
    hosted: Flask
    wire: Wire


def make_hall(folder: Path, **config: Any) -> Flask:
    """A hall: the app on an SQLite file of its own (a laptop)."""
    folder.mkdir(parents=True, exist_ok=True)
    return make_app(folder, SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder / 'hall.sqlite'}", **config)


@contextmanager
def two_instances(
    tmp_path: Path, hosted: Flask | None = None, **hall_config: Any
) -> Iterator[Pair]:
    """A hall and a hosted copy (``hosted``: one that runs already)."""
    (tmp_path / "hosted").mkdir(parents=True, exist_ok=True)
    mine = hosted is None
    hosted = hosted or make_app(tmp_path / "hosted")
    hall = make_hall(tmp_path / "hall", **hall_config)
    try:
        yield Pair(hall, hosted, Wire(hosted))
    finally:
        for app in (hall, hosted) if mine else (hall,):
            with app.app_context():
                db.session.remove()
                db.engine.dispose()


def make_page(hosted: Flask, name: str = "Herbstturnier") -> tuple[str, str]:
    """A page on the hosted copy through its form: (the connection line, the public link)."""
    client = hosted.test_client()
    form = form_data(client.get("/online/new").get_data(as_text=True), "online-new")
    made = client.post("/online/new", data={**form, "name": name, "invitation": INVITATION})
    assert made.status_code == 303, made.get_data(as_text=True)[:2000]
    admin = client.get(made.headers["Location"]).get_data(as_text=True)
    found = re.search(r'id="line" class="copy-line" value="([^"]+)"', admin)
    assert found, "no connection line on the admin page"
    public = re.search(r'id="public-link">([^<]+)<', admin)
    assert public
    return unescape(found.group(1)), urlsplit(public.group(1)).path.rsplit("/", 1)[-1]
