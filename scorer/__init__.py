"""scorer — the Schreiber's companion for Binokel.

``create_app`` builds the Flask app; nothing runs at import.
"""

from __future__ import annotations

import gc
import sys
from functools import partial
from pathlib import Path
from typing import Any

from flask import Flask
from sqlalchemy import event

from .config import Config, from_environment, from_prefixed_environment
from .extensions import babel, csrf, db, htmx, migrate
from .resources import folder
from .words import select_locale

# PRAGMA synchronous takes a keyword; only these are passed on to SQLite
SYNCHRONOUS_LEVELS = ("OFF", "NORMAL", "FULL", "EXTRA")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any, *, synchronous: str = "FULL") -> None:
    # WAL keeps readers off the writer's back and survives a killed process;
    # foreign keys are off in SQLite unless asked for.  ``synchronous`` is the
    # app's SQLITE_SYNCHRONOUS (FULL in production: a saved hand is on the disk).
    module = type(dbapi_connection).__module__
    if not module.startswith("sqlite3"):
        return
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute(f"PRAGMA synchronous={synchronous}")
    cursor.close()


def _listen_for_sqlite(app: Flask) -> None:
    """Set the pragmas on every new connection of this app's SQLite engines."""
    synchronous = str(app.config["SQLITE_SYNCHRONOUS"]).upper()
    if synchronous not in SYNCHRONOUS_LEVELS:
        raise ValueError(
            f"SQLITE_SYNCHRONOUS={synchronous!r}: expected one of {', '.join(SYNCHRONOUS_LEVELS)}"
        )
    with app.app_context():
        engines = list(db.engines.values())
    for engine in engines:
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", partial(_sqlite_pragmas, synchronous=synchronous))


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The app, configured from ``Config``, the environment (``DATABASE_URL`` …, then every
    ``SCORER_<KEY>``), then ``config``."""
    app = Flask(
        __name__,
        template_folder=str(folder("templates")),
        static_folder=str(folder("static")),
        instance_relative_config=True,
    )
    app.config.from_object(Config)
    app.config.update(from_environment(app.instance_path))
    from_prefixed_environment(app.config)  # SCORER_<KEY>: every setting (README's table)
    if config:
        app.config.update(config)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)

    if str(app.config["SQLALCHEMY_DATABASE_URI"]).startswith("sqlite"):
        # a file on this machine: no connection goes stale behind the pool's back, so no
        # ping before every checkout (PostgreSQL keeps it: a server can drop connections)
        options = app.config["SQLALCHEMY_ENGINE_OPTIONS"]
        app.config["SQLALCHEMY_ENGINE_OPTIONS"] = {**options, "pool_pre_ping": False}
    db.init_app(app)
    migrate.init_app(app, db, directory=str(folder("migrations")), render_as_batch=True)
    csrf.init_app(app)
    htmx.init_app(app)
    babel.init_app(
        app,
        locale_selector=select_locale,
        default_translation_directories=str(Path(__file__).parent / "translations"),
    )
    _listen_for_sqlite(app)
    from .services.tournaments import counting

    counting.listen()  # a change of a table counts at its tournament (what its polls read)

    from . import assets, cache, chart, jobs, slots, web, words
    from .paper import ahead
    from .services import unit
    from .services.spare import role
    from .views import (
        hall,
        hands,
        live,
        main,
        matches,
        melds,
        online,
        sessions,
        sheets,
        stats,
        two_player,
    )

    assets.init_app(app)
    web.init_app(app)
    words.init_app(app)
    cache.init_app(app)
    chart.init_app(app)
    slots.init_app(app)
    jobs.init_app(app)
    ahead.init_app(app)  # the job that makes a round's paper, wished for after each change
    for module in (
        main,
        matches,
        hands,
        two_player,
        melds,
        sheets,
        sessions,
        live,
        stats,
        online,
        hall,
    ):
        app.register_blueprint(module.bp)
    # only the hall writes: a spare following it, or a hall its spare replaced, refuses
    unit.guard(role.check_writable)
    from .views.stammtisch import BLUEPRINTS as STAMMTISCH
    from .views.tournaments import BLUEPRINTS

    for blueprint in (*BLUEPRINTS, *STAMMTISCH):
        app.register_blueprint(blueprint)
    if "gunicorn" in sys.modules and not app.testing:
        # a served worker loads the PDF renderer as it starts, not on the first PDF
        from .pdf import preload

        preload()
        # what the worker holds from here on (the app, its templates, the modules, the PDF
        # renderer) lives as long as the process: moved out of the garbage collector's
        # sight, so that its full passes, which a request of many rows sets off (the board
        # of 1,000 tables: 8,000 ORM rows), scan only what requests make (a third of that
        # request's CPU; bench/RESULTS.md, "The hall at 1,000 tables")
        gc.collect()
        gc.freeze()
    return app
