"""Builders for the web and browser tests: an app on a fresh database, form helpers.

``TEST_DATABASE_URL`` (set by tests/run.sh for the second pass) runs the same
tests on PostgreSQL; without it every test gets its own SQLite file.
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from flask import Flask
from sqlalchemy import text

from scorer import create_app
from scorer.extensions import db

PG_URL = os.environ.get("TEST_DATABASE_URL")


def make_app(tmp_path: Path, **extra: Any) -> Flask:
    """An app on a fresh, empty database (the schema created from the models)."""
    url = PG_URL or f"sqlite:///{tmp_path / 'test.sqlite'}"
    config = {
        "TESTING": True,
        "SECRET_KEY": "test-secret-not-used-in-production",
        "SQLALCHEMY_DATABASE_URI": url,
        "WTF_CSRF_ENABLED": False,
    }
    config.update(extra)
    app = create_app(config)
    with app.app_context():
        if PG_URL:
            db.session.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
            db.session.commit()
        db.create_all()
    return app


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
