"""Fixtures of the web tests: an app on a fresh database per test, a test client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.extensions import db
from tests.builders import make_app


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
