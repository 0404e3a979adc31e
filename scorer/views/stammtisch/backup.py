"""A Stammtisch's backup: the download, and restoring it on this or another phone or server.

``/st/<token>/backup.json`` is the group with every year, evening, match and
payment (the members' link only: the file holds the links that edit).
``/st/restore`` takes it back (:func:`scorer.services.stammtisch.restoring.restore`):
all of it or nothing, its links kept so that every member's phone finds the
group again — or, when they are in use here already, as a copy with new links;
the page says which.  Like the other restores: CSRF, a per-client rate limit
(``LIMIT_IMPORT``), one of the server's work slots, and the upload size
(``UPLOAD_LIMITS``: 16 MB, 413 with a message).  On the command line:
``flask --app scorer stammtisch export TOKEN`` and ``… stammtisch restore FILE``
(any size).
"""

from __future__ import annotations

import sys
from typing import Any

import click
from flask import Blueprint, current_app, flash, request, session, url_for
from flask_babel import gettext
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Response as WerkzeugResponse

from ... import slots
from ...extensions import limiter
from ...forms.stammtisch import RestoreForm
from ...services import BackupError, ConflictError, NotFound
from ...services.backup_format import dumps
from ...services.stammtisch import groups
from ...services.stammtisch.backup import export_group
from ...services.stammtisch.restoring import restore as restore_file
from ...web import go_to, render, upload_limit
from ...words import backup_reason
from ..files import download, file_name
from .groups import FRESH_KEY
from .shared import remember

bp = Blueprint("st_backup", __name__, cli_group="stammtisch")
bp.cli.help = "Export and restore a Stammtisch's backup file (the group with all its evenings)."

PAGE = "stammtisch/restore.html"


@bp.get("/st/<token:token>/backup.json")
def download_file(token: str) -> WerkzeugResponse:
    """The group with all its evenings as one backup file."""
    group = groups.get_group(token)
    name = file_name("stammtisch", group.name, ext="json")
    return download(dumps(export_group(group)).encode("utf-8"), "application/json", name)


def _page(form: RestoreForm, *, status: int = 200, error: str | None = None) -> WerkzeugResponse:
    limit = upload_limit("st_backup.restore") or 0
    return render(PAGE, status=status, form=form, error=error, size=f"{limit / (1024 * 1024):g}")


@bp.route("/st/restore", methods=["GET", "POST"])
@limiter.limit(slots.import_limit, methods=["POST"])
def restore() -> WerkzeugResponse:
    """Upload a group's backup file; restored completely or not at all."""
    if request.method in ("GET", "HEAD"):
        return _page(RestoreForm(formdata=None))
    form = RestoreForm()
    if not form.validate():
        return _page(form, status=422)
    upload = form.file.data
    try:
        raw = upload.read()
    finally:
        upload.close()
    try:
        with slots.work_slot():
            result = restore_file(raw)
    except slots.Busy:
        return slots.busy_response(gettext("Nothing was restored: the server is busy."))
    except BackupError as exc:
        error = gettext("Nothing was restored: %(reason)s", reason=backup_reason(exc))
        return _page(form, status=422, error=error)
    except ConflictError:
        error = gettext("Nothing was restored: the server was busy. Please try again.")
        return _page(form, status=409, error=error)
    if result.kept_links:
        flash(
            gettext(
                "Restored with its links: every member's phone finds the group as before "
                "(%(count)s evenings).",
                count=result.evenings,
            ),
            "ok",
        )
    else:
        flash(
            gettext(
                "Its links were in use here already (the same file restored before), so it was "
                "restored as a copy with new links (%(count)s evenings): pass the new link on.",
                count=result.evenings,
            ),
            "ok",
        )
    remember(result.group, edit=True)
    session[FRESH_KEY] = result.group.token
    return go_to(url_for("st_group.home", token=result.group.token))


def _too_large(error: RequestEntityTooLarge) -> Any:
    """An upload over the route's limit: the page says so instead of an error page."""
    limit = upload_limit("st_backup.restore") or 0
    message = gettext(
        "Nothing was restored: the file is larger than %(size)s MB, the most this page accepts. "
        "A larger file is restored on the server's command line: %(command)s",
        size=f"{limit / (1024 * 1024):g}",
        command="flask --app scorer stammtisch restore FILE",
    )
    return _page(RestoreForm(formdata=None), status=413, error=message)


bp.register_error_handler(RequestEntityTooLarge, _too_large)


# -- the command line: flask --app scorer stammtisch … -------------------------------------


@bp.cli.command("export", context_settings={"ignore_unknown_options": True})
@click.argument("token")
def export_command(token: str) -> None:
    """Write the backup of the group with this (members') link token to stdout."""
    try:
        click.echo(dumps(export_group(groups.get_group(token))))
    except NotFound:
        click.echo("No Stammtisch has this link.", err=True)
        sys.exit(1)


@bp.cli.command("restore")
@click.argument("path", type=click.File("rb"))
def restore_command(path: Any) -> None:
    """Restore a group's backup file (all of it or nothing), of any size."""
    with current_app.test_request_context("/"):
        try:
            result = restore_file(path.read())
        except BackupError as exc:
            click.echo(f"Nothing was restored: {backup_reason(exc)}", err=True)
            sys.exit(1)
        except ConflictError:
            click.echo("Nothing was restored: the database was busy; try again.", err=True)
            sys.exit(1)
    links = "its links kept" if result.kept_links else "new links (its links were in use here)"
    click.echo(f"/st/{result.group.token}\t{result.group.name}\t{links}")
