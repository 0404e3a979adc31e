"""The ``scorer`` command (``scorer --help``): serve, the hall, and the app's own commands.

Installed as a Python application (``pipx install``, a wheel), scorer runs from
any folder: ``scorer serve`` (migrate, then gunicorn on 127.0.0.1:8000, and the job
queue's worker beside it),
``scorer hall`` (the tournament hall without reception: ``python -m scorer.hall``),
``scorer db upgrade``, ``scorer backup export|import``, ``scorer tournament
export|restore``, ``scorer online push`` — the commands ``flask --app scorer`` has.
"""

from __future__ import annotations

import os

import click
from flask.cli import FlaskGroup

from . import create_app


@click.group(cls=FlaskGroup, create_app=create_app)
def main() -> None:
    """scorer — the Schreiber's companion for Binokel."""


@main.command("serve")
@click.option("--bind", default="127.0.0.1:8000", show_default=True, help="address:port")
@click.option("--workers", default=2, show_default=True, help="processes of 4 threads each")
def serve_command(bind: str, workers: int) -> None:
    """Migrate the database, then serve (gunicorn, as README "Production" says), with the
    job queue's worker beside it (``python -m scorer.worker``).

    Set SECRET_KEY (the same in every process, kept across restarts) and DATABASE_URL.
    """
    from .hall import serve

    if not os.environ.get("SECRET_KEY"):
        raise click.UsageError("set SECRET_KEY (README, Production): every process needs it")
    serve(bind, workers=workers)


@main.command("hall")
def hall_command() -> None:
    """The tournament hall without reception: the laptop serves every phone on its Wi-Fi."""
    from .hall import main as hall

    hall()


if __name__ == "__main__":
    main()
