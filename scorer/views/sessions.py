"""The session (Sitzung): its matches, the stake and the settlement; backups in and out.

``/s/<token>`` is the session page (the session's edit token, as the match
links are).  The stake can be changed there; the settlement covers the
finished matches.  A session exports as JSON (``scorer.services.backup``) and any
backup file can be imported on ``/import`` — all of it or nothing.  On the
command line: ``flask --app scorer backup export [TOKEN…] > file.json`` and
``flask --app scorer backup import file.json`` (every session of the
installation; the web only ever exports the sessions it has links to).
"""

from __future__ import annotations

import sys
from typing import Any

import click
from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import format_date, gettext
from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services, slots
from ..extensions import limiter
from ..forms import AppForm, StakeForm, euros_to_cents
from ..models import GameSession
from ..pdf import PdfBusy, sheets_pdf
from ..rules import RulesError
from ..web import render
from ..words import backup_reason, rules_message
from .files import download, file_name
from .recent import recent, remember

bp = Blueprint("sessions", __name__, cli_group="backup")
bp.cli.help = "Export and import the backups of the sessions (all of them, or by token)."


class ImportForm(AppForm):
    """A backup file to import."""

    file = FileField(_l("Backup file"), [FileRequired(_l("Choose a backup file."))])


def _page(row: GameSession, form: StakeForm | None = None, **extra: Any) -> WerkzeugResponse:
    if form is None:
        form = StakeForm(formdata=None)
        form.stake.data = f"{row.stake_cents / 100:.2f}".replace(".", ",")
        form.stake_basis.data = row.stake_basis
    status = extra.pop("status", 200)
    return render(
        "sessions/show.html",
        status=status,
        row=row,
        form=form,
        settlement=services.settlement(row),
        date=format_date(row.created_at, "medium"),
        **extra,
    )


@bp.get("/s/<token:token>")
def show(token: str) -> WerkzeugResponse:
    """The session: its matches, the stake, balances and who pays whom."""
    row = services.get_session(token)
    remember(row.token)
    return _page(row)


@bp.post("/s/<token:token>/stake")
def stake(token: str) -> WerkzeugResponse:
    """Change the stake of the session."""
    row = services.get_session(token)
    form = StakeForm()
    if not form.validate():
        return _page(row, form, status=422, error=gettext("Please correct the marked fields."))
    try:
        services.set_stake(row, euros_to_cents(form.stake.data), form.stake_basis.data or "full")
    except RulesError as exc:
        return _page(row, form, status=422, error=rules_message(exc))
    return redirect(url_for("sessions.show", token=row.token))


@bp.get("/s/<token:token>/sheets.pdf")
@limiter.limit(slots.pdf_limit)
def pdf(token: str) -> Response:
    """Every match of the session as a PDF, with the settlement on the last page."""
    row = services.get_session(token)
    name = file_name("binokel", row.title, row.created_at.date().isoformat(), ext="pdf")
    try:
        data = sheets_pdf(row)
    except PdfBusy:
        return slots.busy_response(gettext("Other score sheets are being printed right now."))
    return download(data, "application/pdf", name, inline=True)


def _json(data: dict[str, Any], name: str) -> Response:
    text = services.dumps(data)
    return download(text.encode("utf-8"), "application/json", name)


@bp.get("/s/<token:token>/backup.json")
def export(token: str) -> Response:
    """The session as a backup file."""
    row = services.get_session(token)
    name = file_name(gettext("Backup"), row.title, row.created_at.date().isoformat(), ext="json")
    return _json(services.export_sessions([row]), name)


@bp.get("/backup.json")
def export_device() -> Response:
    """Every session this device has opened, as one backup file."""
    rows = services.device_sessions(recent())
    return _json(services.export_sessions(rows), file_name("scorer", gettext("Backup"), ext="json"))


IMPORT_COMMAND = "flask --app scorer backup import FILE"


def _import_page(form: ImportForm, *, status: int = 200, error: str | None = None) -> Response:
    limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
    limits = {
        "session_hands": services.MAX_SESSION_HANDS,
        "file_hands": services.MAX_FILE_HANDS,
        "size": f"{limit / (1024 * 1024):g}",
        "command": IMPORT_COMMAND,
    }
    return render("sessions/import.html", status=status, form=form, error=error, limits=limits)


@bp.route("/import", methods=["GET", "POST"])
@limiter.limit(slots.import_limit, methods=["POST"])
def import_page() -> WerkzeugResponse:
    """Upload a backup file; it is imported completely or not at all."""
    if request.method in ("GET", "HEAD"):  # (HEAD: an offline copy asks if it is back)
        return _import_page(ImportForm(formdata=None))
    form = ImportForm()
    if not form.validate():
        return _import_page(form, status=422)
    upload = form.file.data
    try:
        raw = upload.read()
    finally:
        upload.close()  # a big upload is spooled to a temporary file
    try:
        with slots.work_slot():
            rows = services.import_backup(raw)
    except slots.Busy:
        return slots.busy_response(gettext("Nothing was imported: the server is busy."))
    except services.BackupError as exc:
        return _import_page(
            form,
            status=422,
            error=gettext("Nothing was imported: %(reason)s", reason=backup_reason(exc)),
        )
    except services.ConflictError:
        return _import_page(
            form,
            status=409,
            error=gettext("Nothing was imported: the server was busy. Please try again."),
        )
    for row in reversed(rows):
        remember(row.token)
    flash(
        gettext(
            "Imported %(count)s sessions with %(matches)s matches.",
            count=len(rows),
            matches=sum(len(r.matches) for r in rows),
        ),
        "ok",
    )
    return redirect(url_for("sessions.show", token=rows[0].token))


def _too_large(error: RequestEntityTooLarge) -> Any:
    """An upload over ``MAX_CONTENT_LENGTH``: the import page says how to import it anyway."""
    if request.endpoint != "sessions.import_page":
        return render_template("errors/error.html", code=413, error=error), 413
    limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
    return _import_page(
        ImportForm(formdata=None),
        status=413,
        error=gettext(
            "Nothing was imported: the file is larger than %(size)s MB, the most this page "
            "accepts. A large backup can be imported on the server's command line: "
            "%(command)s",
            size=f"{limit / (1024 * 1024):g}",
            command=IMPORT_COMMAND,
        ),
    )


# the body is read (and found too large) by the CSRF check or by the form, both in this blueprint
bp.register_error_handler(RequestEntityTooLarge, _too_large)


# -- the command line: flask --app scorer backup … --------------------------------


# a token may begin with "-" (URL-safe base64): it is a token, not an option
@bp.cli.command("export", context_settings={"ignore_unknown_options": True})
@click.argument("tokens", nargs=-1)
def export_command(tokens: tuple[str, ...]) -> None:
    """Write a backup of every session (or of the sessions with these tokens) to stdout."""
    if tokens:
        rows = [services.get_session(t) for t in tokens]
        data = services.export_sessions(rows)
    else:
        data = services.export_all()
    click.echo(services.dumps(data))


@bp.cli.command("import")
@click.argument("path", type=click.File("rb"))
def import_command(path: Any) -> None:
    """Import a backup file (all of it or nothing)."""
    # the messages and the rules' checks speak the default language
    with current_app.test_request_context("/"):
        try:
            rows = services.import_backup(path.read())
        except services.BackupError as exc:
            click.echo(f"Nothing was imported: {backup_reason(exc)}", err=True)
            sys.exit(1)
    for row in rows:
        click.echo(f"{row.token}\t{row.title}\t{len(row.matches)} matches")
