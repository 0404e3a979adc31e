"""Fixtures for the web and browser tests: an app on a fresh database per test.

``TEST_DATABASE_URL`` (set by tests/run.sh for the second pass) runs the same
tests on PostgreSQL; without it every test gets its own SQLite file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
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


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = make_app(tmp_path)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def csrf_app(tmp_path: Path) -> Iterator[Flask]:
    """An app with CSRF protection on, as in production."""
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


CSRF_RE = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def csrf_token_from(html: str) -> str:
    """The CSRF token of the first form in a page."""
    match = CSRF_RE.search(html)
    assert match, "no csrf_token in the page"
    return match.group(1)
