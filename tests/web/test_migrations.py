"""``flask db upgrade`` on an empty database gives exactly the schema of the models."""

from __future__ import annotations

from pathlib import Path

import flask_migrate
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from scorer import create_app
from scorer.extensions import db
from tests.builders import PG_URL


def test_upgrade_head_matches_the_models(tmp_path: Path) -> None:
    url = PG_URL or f"sqlite:///{tmp_path / 'migrated.sqlite'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        if PG_URL:
            db.session.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
            db.session.commit()
        flask_migrate.upgrade()
        with db.engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "render_as_batch": True}
            )
            diff = compare_metadata(context, db.metadata)
            tables = set(inspect(connection).get_table_names())
        assert diff == [], diff
        assert {"match", "hand", "seat", "game_session", "alembic_version"} <= tables
        # and down again: the initial migration removes everything it made
        flask_migrate.downgrade(revision="base")
        with db.engine.connect() as connection:
            assert set(inspect(connection).get_table_names()) <= {"alembic_version"}
        db.session.remove()
        db.engine.dispose()
