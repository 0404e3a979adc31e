"""The series (Binokel-Cup, docs/rules.md section 13.1): its organiser page, public ranking, PDF.

A series is made from a tournament's organiser page (``t_series.create``);
its own secret link (``/s/<token>``) shows the evenings with their links and
state, how the evenings count (changeable any time: it only counts), the
series ranking, the players whose person is still to be chosen, and the
button for the next evening (a tournament copying the last one's settings,
whose organiser link is then shown once like a new tournament's).  The public
link (``/p/s/<view_token>``) shows the ranking: points per evening, the
evenings that do not count struck through, the total.

The same person across evenings is chosen on each evening's players page
(``t_series.choose``, also from the series page).
"""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, flash, request, session, url_for
from flask_babel import gettext, ngettext
from flask_babel import lazy_gettext as _l
from werkzeug.wrappers import Response as WerkzeugResponse
from wtforms import BooleanField, HiddenField, IntegerField, SelectField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from ... import slots
from ...forms.base import AppForm, choice_list, key_or_none, printable
from ...pdf import PdfBusy, cached_pdf
from ...pdf.tournament import document_key
from ...pdf.tournament import series as series_pdf
from ...rules import RulesError
from ...services import ConflictError
from ...services.tournaments import series as cup
from ...services.tournaments import series_people, setup
from ...tournament_models import Series, Tournament
from ...web import go_to, render
from ...words import rules_message
from ..files import download, file_name
from ..polls import qr_svg, read_only
from . import links
from .shared import FRESH_KEY, day_text, remember

bp = Blueprint("t_series", __name__)

COUNTINGS = (
    ("all", _l("all evenings")),
    ("best", _l("the best evenings")),
    ("every", _l("only players of every evening")),
)
PERSON_ACTIONS = (("same", "same"), ("new", "new"), ("unlink", "unlink"))


class SeriesSettingsForm(AppForm):
    """How the evenings add up; the series' name."""

    name = StringField(_l("Name of the series"), [InputRequired(), Length(max=80)])
    counting = SelectField(_l("The series ranking counts"), choices=choice_list(COUNTINGS))
    best = StringField(
        _l("Best evenings that count"),
        [Optional(), Length(max=6)],
        description=_l("only with “the best evenings”: e.g. the best 4 of 6"),
    )
    met_across = BooleanField(
        _l("The draw counts the earlier evenings' tables: people meet new opponents")
    )

    def best_number(self) -> int | None:
        """The number typed (checked by the service), None when empty."""
        text = (self.best.data or "").strip()
        return int(text) if text else None

    def validate_best(self, field: Any) -> None:
        text = (field.data or "").strip()
        if text and not (text.isascii() and text.isdigit()):
            raise ValidationError(
                gettext(
                    "the best evenings that count: a whole number from 1 to %(most)s",
                    most=cup.MAX_EVENINGS,
                )
            )


class NewSeriesForm(AppForm):
    """Make a series of a tournament: its name (offered without the evening's number)."""

    name = StringField(
        _l("Name of the series"),
        [InputRequired(), Length(max=80), printable],
        description=_l("the evenings are named after it: “Binokel-Cup · evening 2” …"),
    )


class NewEveningForm(AppForm):
    """The button for the next evening; its key makes a double tap one evening."""

    idempotency_key = HiddenField(filters=[key_or_none])


class PersonForm(AppForm):
    """The organiser's choice for an evening's player: the same person, a new one, or undo."""

    action = SelectField(choices=choice_list(PERSON_ACTIONS))
    person = IntegerField([Optional(), NumberRange(min=1, max=2**31 - 1)])
    back = HiddenField()


# -- the pages ------------------------------------------------------------------------------


def _last(series: Series) -> Tournament:
    return series_people.evenings_of(series)[-1]


def public_series_url(series: Series) -> str:
    """The public series ranking as the phones in the hall reach it."""
    return links.external_url(_last(series), "t_series.public", view_token=series.view_token)


def _new_evening_form() -> NewEveningForm:
    form = NewEveningForm(formdata=None)
    form.idempotency_key.data = secrets.token_urlsafe(16)
    return form


def _home(
    series: Series, *, form: SeriesSettingsForm | None = None, status: int = 200, **extra: Any
) -> WerkzeugResponse:
    if form is None:
        form = SeriesSettingsForm(formdata=None, obj=series)
        form.best.data = str(series.best) if series.best else ""
    evenings = series_people.evenings_of(series)
    open_choices = [(t, series_people.choices(t)) for t in evenings]
    return render(
        "tournaments/series/home.html",
        status=status,
        series=series,
        standing=cup.series_standings(series),
        form=form,
        evening_form=_new_evening_form(),
        open_choices=[(t, c) for t, c in open_choices if c],
        public_url=public_series_url(series),
        backup_url=url_for("t_backup.series", token=series.token),
        day_text=day_text,
        **extra,
    )


@bp.route("/t/<token:token>/series", methods=["GET", "POST"])
def create(token: str) -> WerkzeugResponse:
    """Make a series of this tournament (its evening 1), named as the organiser says (offered:
    the tournament's name without the evening's number); a double tap makes one."""
    tournament = setup.get_tournament(token)
    if tournament.series is not None:
        return go_to(url_for("t_series.home", token=tournament.series.token))
    form = NewSeriesForm() if request.method == "POST" else NewSeriesForm(formdata=None)
    if request.method == "GET":
        form.name.data = cup.suggested_name(tournament)
    if request.method == "GET" or not form.validate():
        return render(
            "tournaments/series/new.html",
            status=200 if request.method == "GET" else 422,
            tournament=tournament,
            form=form,
        )
    made = tournament.series is None
    try:
        series = cup.create_series(tournament, name=form.name.data or "")
    except RulesError as exc:
        form.name.errors = [rules_message(exc)]
        return render("tournaments/series/new.html", status=422, tournament=tournament, form=form)
    if made:
        flash(gettext("The series is made: this tournament is its first evening."), "ok")
    return go_to(url_for("t_series.home", token=series.token))


@bp.get("/cup/<token:token>")
def home(token: str) -> WerkzeugResponse:
    """The series' organiser page: evenings, counting, ranking, choices, the next evening."""
    series = cup.get_series(token)
    return _home(series)


@bp.post("/cup/<token:token>/settings")
def settings(token: str) -> WerkzeugResponse:
    """How the evenings count and whether the draw counts the earlier evenings' tables."""
    series = cup.get_series(token)
    form = SeriesSettingsForm()
    if form.validate():
        try:
            cup.update_settings(
                series,
                name=form.name.data or "",
                counting=form.counting.data or "",
                best=form.best_number(),
                met_across=bool(form.met_across.data),
            )
        except RulesError as exc:
            field = form.best if "best" in exc.template else form.name
            field.errors = [*field.errors, rules_message(exc)]
        else:
            flash(gettext("The series' settings are saved."), "ok")
            return go_to(url_for("t_series.home", token=series.token) + "#ranking")
    return _home(
        series, form=form, status=422, settings_error=gettext("Please correct the marked fields.")
    )


@bp.post("/cup/<token:token>/evenings")
def new_evening(token: str) -> WerkzeugResponse:
    """The next evening: a tournament with the last one's settings, its link shown once."""
    series = cup.get_series(token)
    form = NewEveningForm()
    key = form.idempotency_key.data
    if not form.validate() or not key:
        return _home(series, status=422, evening_error=gettext("Please try again."))
    number = len(series.tournaments) + 1
    name = gettext("%(series)s · evening %(number)s", series=series.name, number=number)
    try:
        evening = cup.new_evening(series, name=name, idempotency_key=key)
    except ConflictError:
        return _home(series, status=409, evening_error=gettext("Please try again."))
    except RulesError as exc:
        return _home(series, status=422, evening_error=rules_message(exc))
    remember(evening.token)
    session[FRESH_KEY] = evening.token  # its organiser link is shown once, as a new one's
    return go_to(url_for("t_organiser.home", token=evening.token))


@bp.post("/t/<token:token>/series/people/<int:entrant_id>")
def choose(token: str, entrant_id: int) -> WerkzeugResponse:
    """The organiser's choice for an evening's player: the same person as before, a new one,
    or undo a link (a wrong choice)."""
    tournament = setup.get_tournament(token)
    form = PersonForm()
    back = (
        url_for("t_series.home", token=tournament.series.token) + "#choices"
        if tournament.series is not None and form.back.data == "series"
        else url_for("t_players.index", token=tournament.token) + "#series-people"
    )
    if not form.validate():
        flash(gettext("The form has expired. Please try again."), "error")
        return go_to(back)
    try:
        if form.action.data == "same" and form.person.data:
            series_people.same_person(tournament, entrant_id, form.person.data)
        elif form.action.data == "new":
            series_people.new_person(tournament, entrant_id)
        elif form.action.data == "unlink":
            series_people.unlink(tournament, entrant_id)
    except RulesError as exc:
        flash(rules_message(exc), "error")
    else:
        flash(gettext("Saved."), "ok")
    return go_to(back)


@bp.post("/t/<token:token>/series/people")
def register_people(token: str) -> WerkzeugResponse:
    """Register the series' people who have no player on this evening yet (the door's list)."""
    tournament = setup.get_tournament(token)
    back = url_for("t_players.index", token=tournament.token)
    if not AppForm().validate():
        flash(gettext("The form has expired. Please try again."), "error")
        return go_to(back + "#series-people")
    try:
        added = series_people.register_people(tournament)
    except RulesError as exc:
        flash(rules_message(exc), "error")
    else:
        flash(
            ngettext(
                "%(num)s player of the series registered: check them in as they come.",
                "%(num)s players of the series registered: check them in as they come.",
                len(added),
            )
            if added
            else gettext("Every player of the series is registered already."),
            "ok",
        )
    return go_to(back)


@bp.get("/cup/<token:token>/qr.svg")
def qr(token: str) -> Response:
    """The QR code of the public series ranking (the organiser's page shows it)."""
    series = cup.get_series(token)
    return qr_svg(public_series_url(series))


@bp.get("/p/cup/<token:view_token>")
def public(view_token: str) -> WerkzeugResponse:
    """The public series ranking: place, name, club, points per evening, total."""
    series = cup.get_series_for_view(view_token)
    return read_only(
        render(
            "tournaments/series/public.html",
            series=series,
            standing=cup.series_standings(series),
            day_text=day_text,
        )
    )


def _template_digest() -> str:
    path = Path(current_app.template_folder or "") / series_pdf.TEMPLATE_PATH
    return hashlib.sha256(path.read_bytes() if path.is_file() else b"").hexdigest()[:16]


@bp.get("/cup/<token:token>/ranking.pdf")
def ranking_pdf(token: str) -> Response:
    """The series ranking on A4 (from the PDF cache while nothing it shows has changed)."""
    series = cup.get_series(token)
    standing = cup.series_standings(series)
    key = document_key("series", series.id, repr(standing), _template_digest())
    try:
        data = cached_pdf(key, lambda: series_pdf.series_ranking(standing))
    except PdfBusy:
        return slots.busy_response(gettext("Other printouts are being made right now."))
    return download(
        data,
        "application/pdf",
        file_name("binokel", series.name, gettext("Series ranking"), ext="pdf"),
        inline=True,
    )
