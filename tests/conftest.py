"""Fixtures of every test that needs the app: an app on a fresh database per test, a client.

``tests/rules`` uses none of them (the rules never see an app).  A test module that
needs other settings overrides ``app_config``::

    @pytest.fixture
    def app_config(tmp_path: Path) -> dict[str, Any]:
        return {"PDF_CACHE_DIR": str(tmp_path / "pdf-cache")}
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import settings

from tests.builders import fresh_app

# Tests never assert timings: hypothesis's 200 ms deadline per example failed a rules
# property now and then on a loaded machine (a cold import inside the first example).
settings.register_profile("scorer", deadline=None)
settings.load_profile("scorer")


@pytest.fixture
def app_config() -> dict[str, Any]:
    """Settings of this test's app over the test defaults (``tests.builders.make_app``)."""
    return {}


@pytest.fixture
def app(tmp_path: Path, app_config: dict[str, Any]) -> Iterator[Flask]:
    """The app on a fresh, empty database; CSRF protection off (forms are posted directly)."""
    with fresh_app(tmp_path, **app_config) as app:
        yield app


@pytest.fixture
def csrf_app(tmp_path: Path, app_config: dict[str, Any]) -> Iterator[Flask]:
    """The app with CSRF protection on, as in production."""
    with fresh_app(tmp_path, **{**app_config, "WTF_CSRF_ENABLED": True}) as app:
        yield app


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
