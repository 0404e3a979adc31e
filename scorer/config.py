"""Configuration: defaults for a single machine, secrets and the database from the environment.

Every setting — each attribute of :class:`Config`, the keys of
:func:`from_environment`, and those read with a default where they are used (the
README's table lists them all) — can be set from the environment as
``SCORER_<KEY>`` (:func:`from_prefixed_environment`: ``SCORER_WORK_SLOTS=2``,
``SCORER_PDF_AHEAD=false``, ``SCORER_LIMIT_PDF="30 per minute"``).  The few
variables a deployer knew before the prefix (``DATABASE_URL``, ``SECRET_KEY``,
``SESSION_COOKIE_SECURE``, ``TRUSTED_HOSTS``, ``PUBLIC_URL``, ``TIMEZONE``, a hosted
copy's ``ONLINE_INVITATIONS``, a hall's ``HALL`` and ``BACKUP_FOLDER``) keep working; a
prefixed one wins over its unprefixed twin.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any, ClassVar

from flask import Config as FlaskConfig


class Config:
    """Settings read once by :func:`scorer.create_app`.

    ``DATABASE_URL`` chooses the database (default: ``instance/scorer.sqlite``);
    ``postgresql+psycopg://user@host/db`` runs the app on PostgreSQL.
    ``SECRET_KEY`` signs sessions and CSRF tokens; without it a random key is
    made for this process only (fine for one machine, set it for gunicorn).
    ``TRUSTED_HOSTS`` (``scorer.example.org,localhost``) is the list of host names
    the app answers to; any other ``Host`` gets 400.  Unset, any host is answered
    (development).
    """

    BABEL_DEFAULT_LOCALE = "de"
    # the clock of the hall: stored times are UTC, shown in this zone (words.local_time)
    TIMEZONE = "Europe/Berlin"
    LANGUAGES = ("de", "en")
    WTF_CSRF_TIME_LIMIT = None  # a hand can take longer than an hour to play
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    PERMANENT_SESSION_LIFETIME = 60 * 60 * 24 * 365
    # the cookie is sent when the session changes, not on every request (views.matches.remember)
    SESSION_REFRESH_EACH_REQUEST = False
    MAX_CONTENT_LENGTH = 2 * 1024 * 1024  # a JSON backup of a whole club fits
    # a tournament's or a series' backup file: 200 tables of three rounds are ~8.5 MB
    UPLOAD_LIMITS: ClassVar[dict[str, int]] = {
        "t_backup.restore": 16 * 1024 * 1024,
        # a Stammtisch's backup with all its evenings: a year of 40 evenings is ~6 MB
        "st_backup.restore": 16 * 1024 * 1024,
        # what a hall pushes to its spare, compressed (a whole hall of big tournaments at once,
        # when the spare has just been paired: 200 tables of three rounds are ~1.5 MB)
        "hall.push": 64 * 1024 * 1024,
        # a hall's pushed state (3,000 players are about 0.1 MB compressed)
        "online.push": 4 * 1024 * 1024,
    }
    SQLALCHEMY_ENGINE_OPTIONS: ClassVar[dict[str, Any]] = {"pool_pre_ping": True}
    TESTING = False
    # seconds a process answers the share link's poll from the match's state it read last
    # (one read per link and process in that time, not one a poll; 0 in the tests)
    SHARE_POLL_KEEP = 0.5
    # the match page, its sheet table and its empty hand form kept rendered in memory
    # (scorer.cache); off: everything is rendered afresh (the tests compare both ways)
    PAGE_CACHE = True
    # PDF score sheets (scorer.pdf): rendered ones are kept as files, keyed by what they show
    PDF_CACHE = True
    PDF_CACHE_DIR: str | None = None  # default: <instance>/pdf-cache
    PDF_CACHE_FILES = 200
    PDF_CACHE_BYTES = 200 * 1024 * 1024
    # a tournament round's table cards and paper slips made ahead after the draw (and after a
    # redraw, a new table link, a renamed player, new settings) by the job queue's worker
    # (scorer.paper.ahead); off: every printout is rendered when it is tapped (the tests)
    PDF_AHEAD = True
    # background work (scorer.jobs, run by ``python -m scorer.worker``): a kept job queue,
    # huey's SQLite storage in this file; default <instance>/jobs.sqlite
    JOB_QUEUE: str | None = None
    # processes that run jobs (render) at once for this instance, whatever happens
    JOB_RENDERERS = 1
    # the worker's CPU priority: this many steps of ``nice`` below the web workers', so the
    # phones' requests get the CPU first (it holds none of the requests' work slots)
    JOB_NICE = 10
    # a worker process grown past this many MB by a job is replaced by a fresh one (a
    # renderer making 200 tables' slips reaches about 300 MB)
    JOB_MEMORY_MB = 200
    # seconds without a sign of life after which the worker is taken for absent: no job is
    # queued, every printout is rendered when it is tapped (a plain ``flask run``)
    JOB_ALIVE = 15.0
    # huey's immediate mode: a job runs at once in the process that queues it (tests)
    JOB_IMMEDIATE = False
    # expensive work (PDF renders, backup imports), scorer.slots: at most WORK_SLOTS at
    # once across all worker processes of this instance (flock on files of WORK_SLOT_DIR)
    WORK_SLOTS = 1
    WORK_SLOT_DIR: str | None = None  # default: <instance>/work-slots
    # seconds a request waits for a slot before its 503: none, since a waiting request
    # holds a worker thread the live view needs (bench/RESULTS.md, section 7)
    WORK_SLOT_WAIT = 0.0
    WORK_RETRY_AFTER = 10  # seconds, the 503's Retry-After
    # and per client address (Flask-Limiter): more gets 429 with Retry-After
    LIMIT_IMPORT = "6 per minute"
    LIMIT_PDF = "20 per minute"
    # pages made on this hosted copy (the tournament online, /online/new): per client address
    LIMIT_ONLINE_PAGES = "10 per hour"
    RATELIMIT_STORAGE_URI = "memory://"
    RATELIMIT_HEADERS_ENABLED = False  # scorer.slots sets Retry-After itself
    # SQLite's PRAGMA synchronous: FULL waits for the disk on every commit, so a hand the
    # app has acknowledged survives a power cut.  Only the tests turn it OFF (their
    # databases are thrown away), where the waiting was half of the suite's time.
    SQLITE_SYNCHRONOUS = "FULL"
    # a hall's laptop (python -m scorer.hall sets it): its pages of the spare laptop and the
    # backup folder answer, to its own browser only (services.spare, views.hall)
    HALL = False
    # the folder the hall writes every tournament and series to, a few seconds after a
    # change (a USB stick); the hall's page can choose another
    BACKUP_FOLDER = ""


def from_environment(instance_path: str) -> dict[str, Any]:
    """The settings that come from the environment, with their defaults."""
    default_db = "sqlite:///" + str(Path(instance_path) / "scorer.sqlite")
    return {
        "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_hex(32),
        "SQLALCHEMY_DATABASE_URI": os.environ.get("DATABASE_URL") or default_db,
        "SESSION_COOKIE_SECURE": os.environ.get("SESSION_COOKIE_SECURE", "") == "1",
        # the share links and QR codes are built from the request's host
        "TRUSTED_HOSTS": trusted_hosts(os.environ.get("TRUSTED_HOSTS")),
        # the address the tournament's links and QR codes carry (the phones must reach it):
        # unset, the request's own, or this machine's network address for a localhost request
        "PUBLIC_URL": os.environ.get("PUBLIC_URL", ""),
        "TIMEZONE": os.environ.get("TIMEZONE") or Config.TIMEZONE,
        # who may make pages on this hosted copy (/online/new): the invitation codes its
        # operator hands out; none set, it makes no pages (a hall needs none)
        "ONLINE_INVITATIONS": invitations(os.environ.get("ONLINE_INVITATIONS")),
        "HALL": os.environ.get("HALL", "") == "1",
        "BACKUP_FOLDER": os.environ.get("BACKUP_FOLDER", ""),
    }


PREFIX = "SCORER"
"""The prefix of every setting in the environment: ``SCORER_WORK_SLOTS`` is ``WORK_SLOTS``."""

TEXT_SETTINGS = frozenset(
    {"SECRET_KEY", "SQLALCHEMY_DATABASE_URI", "PUBLIC_URL", "TIMEZONE"}
    | {key for key, value in vars(Config).items() if key.isupper() and isinstance(value, str)}
)
"""Settings that are text whatever they look like (a secret key of digits stays text)."""


def from_prefixed_environment(settings: FlaskConfig) -> None:
    """Every ``SCORER_<KEY>`` of the environment into ``settings`` (Flask's
    ``from_prefixed_env``): a value is read as JSON where it is JSON (``2``, ``0.5``,
    ``false``, ``["a", "b"]``) and kept as text otherwise; ``SCORER_A__B`` sets key ``B``
    of the setting ``A`` (``SCORER_UPLOAD_LIMITS__online.push=8388608``).  A text
    setting stays the text given, and ``TRUSTED_HOSTS`` may be a comma-separated list
    as without the prefix.
    """
    settings.from_prefixed_env(PREFIX)
    for key in TEXT_SETTINGS:
        raw = os.environ.get(f"{PREFIX}_{key}")
        if raw is not None:
            settings[key] = raw
    hosts = settings.get("TRUSTED_HOSTS")
    if isinstance(hosts, str):
        settings["TRUSTED_HOSTS"] = trusted_hosts(hosts)
    codes = os.environ.get(f"{PREFIX}_ONLINE_INVITATIONS")
    if codes is not None:  # as the text given: a code of digits stays a code
        settings["ONLINE_INVITATIONS"] = invitations(codes)


def invitations(text: str | None) -> tuple[str, ...]:
    """The invitation codes of a comma-separated list (spaces around each dropped), or
    of a JSON list as the other list settings take.

    >>> invitations(" TSV-Ebersbach-7Hq2, cup-2026-Lm9x ,"), invitations(None)
    (('TSV-Ebersbach-7Hq2', 'cup-2026-Lm9x'), ())
    >>> invitations('["2026", " cup "]')
    ('2026', 'cup')
    """
    text = (text or "").strip()
    if text.startswith("["):
        try:
            listed = json.loads(text)
        except ValueError:
            listed = None
        if isinstance(listed, list):
            return tuple(str(code).strip() for code in listed if str(code).strip())
    return tuple(code.strip() for code in text.split(",") if code.strip())


def trusted_hosts(text: str | None) -> list[str] | None:
    """The host names of a comma-separated list; None (any host) when there are none.

    >>> trusted_hosts(" scorer.example.org, localhost ,"), trusted_hosts("")
    (['scorer.example.org', 'localhost'], None)
    """
    hosts = [h.strip() for h in (text or "").split(",") if h.strip()]
    return hosts or None
