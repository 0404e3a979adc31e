"""The session (Sitzung): its matches, the stake and the settlement; backups in and out.

``/s/<token>`` is the session page (the session's edit token, as the match
links are).  The stake can be changed there; the settlement covers the
finished matches.  A session exports as JSON (``scorer.backup``) and any
backup file can be imported on ``/import`` — all of it or nothing.  On the
command line: ``flask --app scorer backup export [TOKEN…] > file.json`` and
``flask --app scorer backup import file.json`` (every session of the
installation; the web only ever exports the sessions it has links to).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    request,
    session,
    url_for,
)
from flask_babel import format_date, gettext
from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from sqlalchemy import select
from werkzeug.wrappers import Response as WerkzeugResponse
from wtforms import SelectField, StringField, ValidationError
from wtforms.validators import Length, Optional

from .. import backup, services
from ..extensions import db
from ..forms import STAKE_BASES, AppForm, choice_list
from ..models import GameSession
from ..pdf import session_pdf
from ..rules import RulesError
from ..web import render, rules_message
from .matches import RECENT_KEY, remember
from .sheets import download, file_name

bp = Blueprint("sessions", __name__, cli_group="backup")


def euros_to_cents(text: str | None) -> int:
    """``"0,10"``, ``"1.20 €"`` → cents; ValidationError for anything else or above 1000 €."""
    cleaned = (text or "").strip().replace("€", "").replace(" ", "").replace(",", ".")
    if not cleaned:
        return 0
    try:
        value = round(float(cleaned) * 100)
    except (ValueError, OverflowError):
        raise ValidationError(_l("Enter an amount like 0,10")) from None
    if not 0 <= value <= 100_000:
        raise ValidationError(_l("Enter an amount between 0 and 1000 €"))
    return value


class StakeForm(AppForm):
    """The stake of a session: an amount and what it is per."""

    stake = StringField(_l("Stake (€)"), [Optional(), Length(max=10)])
    stake_basis = SelectField(_l("Stake per"), choices=choice_list(STAKE_BASES), default="full")

    def validate_stake(self, field: Any) -> None:
        euros_to_cents(field.data)


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


@bp.get("/s/<token>")
def show(token: str) -> WerkzeugResponse:
    """The session: its matches, the stake, balances and who pays whom."""
    row = services.get_session(token)
    remember(row.token)
    return _page(row)


@bp.post("/s/<token>/stake")
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


@bp.get("/s/<token>/sheets.pdf")
def pdf(token: str) -> Response:
    """Every match of the session as a PDF, with the settlement on the last page."""
    row = services.get_session(token)
    name = file_name("binokel", row.title, row.created_at.date().isoformat(), ext="pdf")
    return download(session_pdf(row), "application/pdf", name, inline=True)


def _json(data: dict[str, Any], name: str) -> Response:
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return download(text.encode("utf-8"), "application/json", name)


@bp.get("/s/<token>/backup.json")
def export(token: str) -> Response:
    """The session as a backup file."""
    row = services.get_session(token)
    name = file_name("scorer", row.title, row.created_at.date().isoformat(), ext="json")
    return _json(backup.export_sessions([row]), name)


@bp.get("/backup.json")
def export_device() -> Response:
    """Every session this device has opened, as one backup file."""
    tokens = list(session.get(RECENT_KEY, []))
    rows = (
        db.session.execute(
            select(GameSession).where(GameSession.token.in_(tokens)).order_by(GameSession.id)
        )
        .scalars()
        .all()
        if tokens
        else []
    )
    return _json(backup.export_sessions(rows), "scorer-backup.json")


@bp.route("/import", methods=["GET", "POST"])
def import_page() -> WerkzeugResponse:
    """Upload a backup file; it is imported completely or not at all."""
    if request.method == "GET":
        return render("sessions/import.html", form=ImportForm(formdata=None))
    form = ImportForm()
    if not form.validate():
        return render("sessions/import.html", status=422, form=form, error=None)
    try:
        rows = services.import_backup(form.file.data.read())
    except backup.BackupError as exc:
        return render(
            "sessions/import.html",
            status=422,
            form=form,
            error=gettext("Nothing was imported: %(reason)s", reason=str(exc)),
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


# -- the command line: flask --app scorer backup … --------------------------------


@bp.cli.command("export")
@click.argument("tokens", nargs=-1)
def export_command(tokens: tuple[str, ...]) -> None:
    """Write a backup of every session (or of the sessions with these tokens) to stdout."""
    if tokens:
        rows = [services.get_session(t) for t in tokens]
        data = backup.export_sessions(rows)
    else:
        data = backup.export_all()
    click.echo(json.dumps(data, ensure_ascii=False, indent=1))


@bp.cli.command("import")
@click.argument("path", type=click.File("rb"))
def import_command(path: Any) -> None:
    """Import a backup file (all of it or nothing)."""
    try:
        # the messages and the rules' checks speak the default language
        with current_app.test_request_context("/"):
            rows = services.import_backup(path.read())
    except backup.BackupError as exc:
        click.echo(f"Nothing was imported: {exc}", err=True)
        sys.exit(1)
    for row in rows:
        click.echo(f"{row.token}\t{row.title}\t{len(row.matches)} matches")
