"""A second laptop for the tests: a database of its own beside the test's, and the app on it.

On SQLite a file of its own in the test's folder; on PostgreSQL (``TEST_DATABASE_URL``)
a schema of its own beside the test's (``<schema>_<name>``), emptied first.  The app has
its own secret key unless told otherwise, as a spare laptop installed on the night has:
a page of the first laptop carries form tokens the second refuses.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask
from sqlalchemy import create_engine, text

from scorer.extensions import db
from tests.builders import PG_SCHEMA, PG_URL, make_app


def database_url(tmp_path: Path, name: str) -> str:
    """The URL of an empty database called ``name`` for this test."""
    if not PG_URL:
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        return f"sqlite:///{folder / 'laptop.sqlite'}"
    base = PG_URL.split("?options=")[0].split("&options=")[0]
    schema = f"{PG_SCHEMA}_{name}"
    engine = create_engine(base)
    try:
        with engine.begin() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"))
    finally:
        engine.dispose()
    joined = "&" if "?" in base else "?"
    return f"{base}{joined}options=-csearch_path%3D{schema}"


def laptop_app(tmp_path: Path, name: str, **extra: Any) -> Flask:
    """The app of another laptop, on a database of its own (the schema made)."""
    folder = tmp_path / f"{name}-instance"
    folder.mkdir(exist_ok=True)
    settings: dict[str, Any] = {
        "SECRET_KEY": f"the-{name}-laptop",
        "SQLALCHEMY_DATABASE_URI": database_url(tmp_path, name),
        **extra,
    }
    return make_app(folder, **settings)


@contextmanager
def second_laptop(tmp_path: Path, **extra: Any) -> Iterator[Flask]:
    """A spare laptop's app (:func:`laptop_app` called "spare"), its connections closed after."""
    app = laptop_app(tmp_path, "spare", **extra)
    try:
        yield app
    finally:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
