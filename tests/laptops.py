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

from tests.builders import PG_SCHEMA, PG_URL, fresh_app


def database_url(tmp_path: Path, name: str, fresh: bool = True) -> str:
    """The URL of an empty database called ``name`` for this test (``fresh`` False: the
    URL of the one made before, as it stands)."""
    if not PG_URL:
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        return f"sqlite:///{folder / 'laptop.sqlite'}"
    base = PG_URL.split("?options=")[0].split("&options=")[0]
    schema = f"{PG_SCHEMA}_{name}"
    if fresh:
        engine = create_engine(base)
        try:
            with engine.begin() as conn:
                conn.execute(
                    text(f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
                )
        finally:
            engine.dispose()
    joined = "&" if "?" in base else "?"
    return f"{base}{joined}options=-csearch_path%3D{schema}"


@contextmanager
def second_laptop(tmp_path: Path, **extra: Any) -> Iterator[Flask]:
    """A spare laptop's app on a database of its own ("spare") with a secret key of its own,
    its connections closed after."""
    folder = tmp_path / "spare-instance"
    folder.mkdir(exist_ok=True)
    settings: dict[str, Any] = {
        "SECRET_KEY": "the-spare-laptop",
        "SQLALCHEMY_DATABASE_URI": database_url(tmp_path, "spare"),
        **extra,
    }
    with fresh_app(folder, **settings) as app:
        yield app
