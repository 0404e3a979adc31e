"""``flask db upgrade`` on an empty database gives exactly the schema of the models."""

from __future__ import annotations

from pathlib import Path

import flask_migrate
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from sqlalchemy import inspect, text

from scorer import create_app
from scorer.extensions import db
from tests.builders import EMPTY_SCHEMA, PG_URL


def empty_database(tmp_path: Path) -> Flask:
    """An app on an empty database without any table (the migrations make them)."""
    url = PG_URL or f"sqlite:///{tmp_path / 'migrated.sqlite'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": url})
    if PG_URL:
        with app.app_context():
            db.session.execute(text(EMPTY_SCHEMA))
            db.session.commit()
    return app


def test_upgrade_head_matches_the_models(tmp_path: Path) -> None:
    app = empty_database(tmp_path)
    with app.app_context():
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


def test_upgrade_numbers_on_the_matches_a_race_doubled(tmp_path: Path) -> None:
    """Two "next match" at once made two "match 2" before the numbers were unique."""
    app = empty_database(tmp_path)
    with app.app_context():
        flask_migrate.upgrade(revision="017986370466")
        with db.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO game_session (id, token, view_token, title, created_at,"
                    " updated_at, stake_cents, stake_basis) VALUES"
                    " (1, 'a', 'b', '', '2026-01-01', '2026-01-01', 0, 'full')"
                )
            )
            for id_, number in [(1, 1), (2, 2), (3, 2), (4, 3)]:
                connection.execute(
                    text(
                        "INSERT INTO match (id, session_id, number, token, view_token, ruleset,"
                        " first_dealer, created_at, updated_at, version)"
                        " VALUES (:id, 1, :number, :token, :view, '{}', 0, '2026-01-01',"
                        " '2026-01-01', 1)"
                    ),
                    {"id": id_, "number": number, "token": f"t{id_}", "view": f"v{id_}"},
                )
        flask_migrate.upgrade()
        with db.engine.connect() as connection:
            rows = connection.execute(text("SELECT id, number FROM match ORDER BY id")).all()
        assert [tuple(r) for r in rows] == [(1, 1), (2, 2), (3, 3), (4, 4)]
        db.session.remove()
        db.engine.dispose()
