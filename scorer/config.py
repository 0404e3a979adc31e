"""Configuration: defaults for a single machine, secrets and the database from the environment."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, ClassVar


class Config:
    """Settings read once by :func:`scorer.create_app`.

    ``DATABASE_URL`` chooses the database (default: ``instance/scorer.sqlite``);
    ``postgresql+psycopg://user@host/db`` runs the app on PostgreSQL.
    ``SECRET_KEY`` signs sessions and CSRF tokens; without it a random key is
    made for this process only (fine for one machine, set it for gunicorn).
    """

    BABEL_DEFAULT_LOCALE = "de"
    LANGUAGES = ("de", "en")
    WTF_CSRF_TIME_LIMIT = None  # a hand can take longer than an hour to play
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    PERMANENT_SESSION_LIFETIME = 60 * 60 * 24 * 365
    # the cookie is sent when the session changes, not on every request (views.matches.remember)
    SESSION_REFRESH_EACH_REQUEST = False
    MAX_CONTENT_LENGTH = 2 * 1024 * 1024  # a JSON backup of a whole club fits
    SQLALCHEMY_ENGINE_OPTIONS: ClassVar[dict[str, Any]] = {"pool_pre_ping": True}
    TESTING = False


def from_environment(instance_path: str) -> dict[str, Any]:
    """The settings that come from the environment, with their defaults."""
    default_db = "sqlite:///" + str(Path(instance_path) / "scorer.sqlite")
    return {
        "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_hex(32),
        "SQLALCHEMY_DATABASE_URI": os.environ.get("DATABASE_URL") or default_db,
        "SESSION_COOKIE_SECURE": os.environ.get("SESSION_COOKIE_SECURE", "") == "1",
    }
