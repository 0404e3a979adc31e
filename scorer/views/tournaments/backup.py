"""A tournament's (and a series') backup: the download, and restoring it from the file.

``/t/<token>/backup.json`` is the organiser's download ("Sicherung
herunterladen"); ``/cup/<token>/backup.json`` a whole series with its
evenings (not ``/s/…``: that is a match session's address).  ``/t/restore``
takes either file back (:func:`scorer.services.tournaments.backup.restore`):
all of it or nothing, its links kept so that the printed table cards keep
working — or, when they are in use here already, as a copy with new links; the
page says which.  A restored tournament's organiser link is shown once, large,
as after creating one.  Like the match import: CSRF, a per-client rate limit
(``LIMIT_IMPORT``), one of the server's work slots, and the upload size
(``UPLOAD_LIMITS``: 16 MB, 413 with a message).  A bigger file (a series of
several big evenings) goes in on the command line: ``flask --app scorer
tournament restore FILE``; ``flask --app scorer tournament export TOKEN``
writes a tournament's or a series' file (the organiser link's token).
"""

from __future__ import annotations

import sys
from typing import Any

import click
from flask import Blueprint, current_app, flash, request, session, url_for
from flask_babel import gettext, ngettext
from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Response as WerkzeugResponse

from ... import slots
from ...extensions import limiter
from ...forms import AppForm
from ...services import BackupError, ConflictError, NotFound
from ...services.backup_format import dumps
from ...services.spare.role import NotTheHall, check_writable
from ...services.tournaments import backup as backups
from ...services.tournaments import series as cups
from ...services.tournaments import setup
from ...web import go_to, render, upload_limit
from ...words import backup_reason, local_time
from ..files import download, file_name
from .shared import FRESH_KEY, remember

bp = Blueprint("t_backup", __name__, cli_group="tournament")
bp.cli.help = "Export and restore a tournament's or a series' backup file."

PAGE = "tournaments/backup/restore.html"


class RestoreForm(AppForm):
    """A tournament's or a series' backup file."""

    file = FileField(_l("Backup file"), [FileRequired(_l("Choose a backup file."))])


def _json(data: dict[str, Any], name: str) -> WerkzeugResponse:
    return download(dumps(data).encode("utf-8"), "application/json", name)


@bp.get("/t/<token:token>/backup.json")
def tournament(token: str) -> WerkzeugResponse:
    """The tournament as one backup file (named after it and its date)."""
    found = setup.get_tournament(token)
    name = file_name(gettext("Tournament"), found.name, found.held_on, ext="json")
    return _json(backups.export_tournament(found), name)


@bp.get("/cup/<token:token>/backup.json")
def series(token: str) -> WerkzeugResponse:
    """The series with all its evenings as one backup file."""
    found = cups.get_series(token)
    return _json(backups.export_series(found), file_name(gettext("Series"), found.name, ext="json"))


def _page(form: RestoreForm, *, status: int = 200, error: str | None = None) -> WerkzeugResponse:
    limit = upload_limit("t_backup.restore") or 0
    return render(PAGE, status=status, form=form, error=error, size=f"{limit / (1024 * 1024):g}")


@bp.route("/t/restore", methods=["GET", "POST"])
@limiter.limit(slots.import_limit, methods=["POST"])
def restore() -> WerkzeugResponse:
    """Upload a tournament's or a series' backup file; restored completely or not at all."""
    if request.method == "GET":
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
            check_writable()  # a spare, or a hall its spare replaced, takes no restore
            result = backups.restore(raw)
    except slots.Busy:
        return slots.busy_response(gettext("Nothing was restored: the server is busy."))
    except BackupError as exc:
        error = gettext("Nothing was restored: %(reason)s", reason=backup_reason(exc))
        return _page(form, status=422, error=error)
    except ConflictError:
        error = gettext("Nothing was restored: the server was busy. Please try again.")
        return _page(form, status=409, error=error)
    # one answer, in one place: what came back, its links, its series, its online connection
    said = [what_it_holds(result)]
    if result.copy:
        said.append(
            gettext(
                "Its links were in use here already (the same file restored before), so it "
                "was restored as a copy with new links: the printed table cards lead to the "
                "other copy."
            )
        )
    else:
        said.append(
            gettext(
                "Restored with its links: the printed table cards, the public link and the "
                "organiser link work as before."
            )
        )
    if result.tournament is not None and result.series is not None:
        said.append(
            ngettext(
                "The evening came back inside its series “%(name)s” (%(num)s evening).",
                "The evening came back inside its series “%(name)s” (%(num)s evenings).",
                len(result.series.tournaments),
                name=result.series.name,
            )
        )
    if result.online:
        said.append(
            gettext(
                "The results online follow this laptop now: it connects to the hosted copy "
                "anew, and the old laptop's sending is refused there."
            )
        )
    flash(" ".join(said), "ok")
    if result.tournament is not None and result.series is not None:
        for evening in reversed(result.series.tournaments):
            remember(evening.token)
        remember(result.tournament.token)
        session[FRESH_KEY] = result.tournament.token
        return go_to(url_for("t_organiser.home", token=result.tournament.token))
    if result.series is not None:
        evenings = result.series.tournaments
        for evening in reversed(evenings):
            remember(evening.token)
        return go_to(url_for("t_series.home", token=result.series.token))
    assert result.tournament is not None
    remember(result.tournament.token)
    session[FRESH_KEY] = result.tournament.token  # its home page shows the organiser link once
    return go_to(url_for("t_organiser.home", token=result.tournament.token))


def what_it_holds(result: backups.Restored) -> str:
    """What a restore brought back: the file's time, its last round, its deals."""
    held = result.held
    stand = day_and_time(result.stand)
    if held is None or not held.last_round:
        return gettext(
            "Restored: the state of the file, %(stand)s; no round drawn yet.", stand=stand
        )
    state = gettext("closed") if held.closed else gettext("in play")
    return ngettext(
        "Restored: the state of the file, %(stand)s — round %(round)s (%(state)s), %(num)s "
        "deal. What was entered after %(stand)s is not in it.",
        "Restored: the state of the file, %(stand)s — round %(round)s (%(state)s), %(num)s "
        "deals. What was entered after %(stand)s is not in it.",
        held.deals,
        stand=stand,
        round=held.last_round,
        state=state,
    )


def day_and_time(moment: Any) -> str:
    """A stored (UTC) moment as the hall's day and clock ("28.11. 20:41")."""
    if moment is None:
        return "?"
    return f"{local_time(moment, '%d.%m.')} {local_time(moment)}"


def _too_large(error: RequestEntityTooLarge) -> Any:
    """An upload over the route's limit: the page says so instead of an error page."""
    limit = upload_limit("t_backup.restore") or 0
    message = gettext(
        "Nothing was restored: the file is larger than %(size)s MB, the most this page accepts.",
        size=f"{limit / (1024 * 1024):g}",
    )
    return _page(RestoreForm(formdata=None), status=413, error=message)


# the body is read (and found too large) by the CSRF check or by the form, both in this blueprint
bp.register_error_handler(RequestEntityTooLarge, _too_large)


# -- the command line: flask --app scorer tournament … ---------------------------------------


# a token may begin with "-" (URL-safe base64): it is a token, not an option
@bp.cli.command("export", context_settings={"ignore_unknown_options": True})
@click.argument("token")
def export_command(token: str) -> None:
    """Write the backup of the tournament or series with this organiser token to stdout."""
    try:
        click.echo(dumps(backups.export_series(cups.get_series(token))))
        return
    except NotFound:
        pass
    try:
        click.echo(dumps(backups.export_tournament(setup.get_tournament(token))))
    except NotFound:
        click.echo("No tournament or series has this organiser token.", err=True)
        sys.exit(1)


@bp.cli.command("restore")
@click.argument("path", type=click.File("rb"))
def restore_command(path: Any) -> None:
    """Restore a tournament's or a series' backup file (all of it or nothing), of any size."""
    # the messages and the rules' checks speak the default language
    with current_app.test_request_context("/"):
        try:
            check_writable()
            result = backups.restore(path.read())
        except BackupError as exc:
            click.echo(f"Nothing was restored: {backup_reason(exc)}", err=True)
            sys.exit(1)
        except ConflictError:
            click.echo("Nothing was restored: the database was busy; try again.", err=True)
            sys.exit(1)
        except NotTheHall:
            click.echo("Nothing was restored: this laptop is not the hall.", err=True)
            sys.exit(1)
    links = "new links (its links were in use here)" if result.copy else "its links kept"
    if result.series is not None:
        click.echo(f"/cup/{result.series.token}\t{result.series.name}\t{links}")
        for evening in result.series.tournaments:
            click.echo(f"/t/{evening.token}\t{evening.name}")
    elif result.tournament is not None:
        click.echo(f"/t/{result.tournament.token}\t{result.tournament.name}\t{links}")
    held = result.held  # last: the first line names the link, as before
    click.echo(
        f"the state of {result.stand.isoformat(timespec='minutes') if result.stand else '?'} UTC"
        + (
            f", round {held.last_round} ({'closed' if held.closed else 'in play'}), "
            f"{held.deals} deals"
            if held is not None and held.last_round
            else ""
        )
    )
