"""Fixtures of the use-case tests: ``scorer.services`` called directly, no HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from scorer.extensions import db


@pytest.fixture
def in_app(app: Flask) -> Iterator[Flask]:
    """Inside an app context of a fresh app (the ``app`` of tests/conftest.py).

    The services load rows, call the rules and commit, as a view would; a test
    reads what they return and what the database holds afterwards.
    """
    with app.app_context():
        yield app
        db.session.remove()
