"""The organiser's tournament: creating it, its home page (links, QR codes, rounds), its settings.

The organiser link (``/t/<token>``) is the key: whoever has it leads the
tournament.  It is shown once after creating, large and with its QR code, and
remembered by the device (the signed session cookie, like the matches): the
app's home page then lists it under "My tournaments".  The public link (the
beamer, the players) is shown with its QR code on the home page for good.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import date
from typing import Any

from flask import Blueprint, abort, flash, request, session, url_for
from flask_babel import gettext
from werkzeug.routing import BuildError
from werkzeug.wrappers import Response as WerkzeugResponse

from ...forms import RULE_GROUPS, RULE_OPTIONS, build_rule_fields, rules_field_errors
from ...forms.setup_hints import hints_for
from ...forms.tournament import (
    FIXED_RULES,
    SHORT_DEALS,
    TournamentForm,
    tournament_ruleset,
)
from ...forms.tournament_rounds import CloseForm
from ...house_rules import house_rules, ruleset_line
from ...online_models import OnlineLink
from ...rules import RulesError, Ruleset
from ...rules.tournament import table_ruleset
from ...services import ConflictError
from ...services.online import hall
from ...services.tournaments import board as boards
from ...services.tournaments import entrants, restored, series, setup
from ...tournament_models import Tournament
from ...web import go_to, render
from ...words import fee_schedule, rules_message
from . import links
from .shared import FRESH_KEY, day_text, remember, remembered, tables_text, url_or_none

bp = Blueprint("t_organiser", __name__)

QR_KINDS = ("public", "organiser")


@dataclass(frozen=True)
class Listed:
    """A tournament on the organiser's list: its date in words, its link online (or None)."""

    tournament: Tournament
    day: str
    online: OnlineLink | None


@bp.app_template_global("my_tournaments")
def my_tournaments() -> list[Listed]:
    """The tournaments this device organises, with their dates in words and whether each is
    online and its last push got through (the app's home page lists them; a template global,
    so the match's home page imports nothing of the tournament)."""
    found = setup.recent_tournaments(remembered())
    online = hall.links_of([t.id for t in found])
    return [Listed(t, day_text(t.held_on), online.get(t.id)) for t in found]


def public_link(tournament: Tournament) -> str | None:
    """The public link (ranking) as the phones in the hall reach it."""
    try:
        return links.external_url(tournament, "t_public.ranking", view_token=tournament.view_token)
    except BuildError:
        return None


def organiser_link(tournament: Tournament) -> str:
    """The secret organiser link as the phones in the hall reach it."""
    return links.external_url(tournament, "t_organiser.home", token=tournament.token)


# -- the form ------------------------------------------------------------------------------


def _prepare(form: TournamentForm, base: Ruleset, posted: bool) -> None:
    """The house-rule fields from ``base``; posted values win unless the preset is asked for.

    The options a tournament fixes are not offered, so not checked either.
    """
    reset = form.action.data == "preset"
    data = request.form if posted and not reset else None
    build_rule_fields(form, setup.default_ruleset() if reset else base, data)
    for name in FIXED_RULES:
        if form.rule_fields.pop(name, None) is not None:
            del form.rule_form[name]
    if reset:
        form.deals.data = setup.default_ruleset().deals
        form.deals.raw_data = []  # shown is what was typed, unless it is dropped


def _form_context(form: TournamentForm, **extra: Any) -> dict[str, Any]:
    fields: dict[str, Any] = getattr(form, "rule_fields", {})
    hints = hints_for(fields, setup.default_ruleset()) if fields else {}
    return {
        "form": form,
        "groups": RULE_GROUPS,
        "options": RULE_OPTIONS,
        "fixed": FIXED_RULES,
        "bonus_hints": hints,
        "short_deals": SHORT_DEALS,
        **extra,
    }


def _ruleset_error(form: TournamentForm, error: RulesError) -> str:
    """Where a refusal of the rules is shown: at the deals or the rounds when they are
    the reason, else above the form."""
    message = rules_message(error)
    for word, field in (("deals", form.deals), ("rounds", form.rounds)):
        if word in error.template:
            field.errors = [*field.errors, message]
            return gettext("Please correct the marked fields.")
    return message


@bp.route("/t/new", methods=["GET", "POST"])
def new() -> WerkzeugResponse:
    """Create a tournament: the evening, its money, its rules (preset ``turnier``)."""
    posted = request.method == "POST"
    form = TournamentForm() if posted else TournamentForm(formdata=None)
    if not posted:
        form.held_on.data = date.today().isoformat()
        form.fee_schedule.data = fee_schedule(setup.DEFAULT_SCHEDULE)
    if not form.idempotency_key.data:
        # one per rendered form: the same form sent twice makes one tournament
        form.idempotency_key.data = secrets.token_urlsafe(16)
    base = setup.default_ruleset()
    _prepare(form, base, posted)
    page, fragment = "tournaments/organiser/new.html", "tournaments/organiser/_form.html"
    if not posted or form.action.data in ("preset", "names"):
        return render(page, fragment, **_form_context(form, error=None))
    error = gettext("Please correct the marked fields.")
    status = 422
    if form.validate() & rules_field_errors(form):
        try:
            ruleset = tournament_ruleset(form, base)
            tournament = setup.create_tournament(
                name=form.name.data or "",
                held_on=form.held_on.data or "",
                place=form.place.data or "",
                ruleset=ruleset,
                rounds=form.rounds.data or 1,
                entry_fee_cents=form.entry_fee_cents(),
                fee_schedule=form.schedule(),
                tie_break=bool(form.tie_break.data),
                idempotency_key=form.idempotency_key.data,
            )
        except ConflictError:
            status = 409
            error = gettext("The tournament could not be created just now. Please try again.")
        except RulesError as exc:
            error = _ruleset_error(form, exc)
        else:
            remember(tournament.token)
            session[FRESH_KEY] = tournament.token
            return go_to(url_for("t_organiser.home", token=tournament.token))
    return render(page, fragment, status=status, **_form_context(form, error=error))


# -- the home page -----------------------------------------------------------------------------


def _rounds(tournament: Tournament) -> list[dict[str, Any]]:
    return [
        {
            "number": row.number,
            "tables": len(row.tables),
            "closed": row.closed_at is not None,
            "url": url_or_none("t_rounds.round_page", token=tournament.token, number=row.number),
        }
        for row in tournament.round_rows
    ]


def _next_draw(tournament: Tournament, counted: entrants.Count) -> dict[str, Any] | None:
    """The round to draw next and whether it can be drawn now (and if not, why)."""
    number = counted.next_round
    if number is None:
        return None
    last = setup.current_round(tournament)
    waiting = last is not None and last.closed_at is None
    return {
        "number": number,
        "action": url_or_none("t_rounds.draw", token=tournament.token),
        "waiting_for": last.number if waiting and last is not None else None,
        "problem": rules_message(counted.problem) if counted.problem else None,
        "absent": counted.absent,
    }


def _closing(tournament: Tournament) -> dict[str, Any] | None:
    """The round open now and whether it can be closed from here (if not, why): the
    organiser is told to close it before the next draw, so the button is beside that."""
    row = setup.current_round(tournament)
    if row is None or row.closed_at is not None:
        return None
    shown = boards.board(tournament)
    here = url_for("t_organiser.home", token=tournament.token)  # its message in sight
    return {
        "number": row.number,
        # the question's address says where the answer goes: opened again (a reload, the
        # back button) it still goes back here
        "action": url_or_none(
            "t_rounds.close", token=tournament.token, number=row.number, back=here
        ),
        "unfinished": shown.unfinished,
        "unsigned": shown.unsigned,
        "form": CloseForm(formdata=None, warned=",".join(map(str, shown.unsigned)), back=here),
    }


def rules_summary(ruleset: Ruleset) -> dict[str, Any]:
    """The rules in words: the line, the house rules beside the preset, the table of four."""
    four = table_ruleset(ruleset, 4)
    return {"line": ruleset_line(ruleset), "house": house_rules(ruleset), "four_deals": four.deals}


@bp.get("/t/<token:token>")
def home(token: str) -> WerkzeugResponse:
    """The organiser's page: the evening, the players, the rounds, the links and QR codes."""
    tournament = setup.get_tournament(token)
    remember(tournament.token)
    fresh = session.get(FRESH_KEY) == tournament.token
    if fresh:
        session.pop(FRESH_KEY, None)
    counted = entrants.count(tournament)
    return render(
        "tournaments/organiser/home.html",
        tournament=tournament,
        fresh=fresh,
        counted=counted,
        tables=tables_text(counted.tables) if counted.tables else "",
        rounds=_rounds(tournament),
        next_draw=_next_draw(tournament, counted),
        closing=_closing(tournament),
        board_url=url_or_none("t_rounds.board", token=tournament.token),
        public_url=public_link(tournament),
        organiser_url=organiser_link(tournament),
        rules=rules_summary(setup.ruleset_of(tournament)),
        day=day_text(tournament.held_on),
        series_suggestion=series.suggested_name(tournament) if tournament.series is None else "",
        restored=restored.read(tournament.restored),
        online=hall.link_of(tournament) is not None,
    )


@bp.get("/t/<token:token>/qr/<kind>.svg")
def qr(token: str, kind: str) -> WerkzeugResponse:
    """The QR code of the public link or of the organiser link (only for the organiser)."""
    tournament = setup.get_tournament(token)
    if kind not in QR_KINDS:
        abort(404)
    url = organiser_link(tournament) if kind == "organiser" else public_link(tournament)
    if url is None:
        abort(404)
    return links.qr_svg(url)


# -- the settings --------------------------------------------------------------------------------


def _sent_after_draw(form: TournamentForm, current: Ruleset) -> Ruleset | None:
    """The ruleset a settings request sends after the draw, or None when it sends none.

    The page sends none (it shows the rules and the deals read-only, without a name);
    a forged request, or a page opened before the draw, may.  Deals alone are the
    rules that stand with those deals; house rules are read as the form reads them,
    and house rules that cannot be read are a change (RulesError).  The house-rule
    fields are dropped again: after the draw the page shows the rules, not the fields.
    """
    if any(key.startswith("rule-") for key in request.form):
        _prepare(form, current, True)
        readable = rules_field_errors(form)
        try:
            sent = tournament_ruleset(form, current) if readable else None
        except RulesError:
            sent = None
        form.rule_fields = {}
        del form.rule_form
        if sent is None:
            raise RulesError("the rules cannot change once the first round is drawn")
        return sent
    if form.deals.sent() and form.deals.data is not None:
        return current.replace(deals=form.deals.data)  # compared by the service
    return None


@bp.route("/t/<token:token>/settings", methods=["GET", "POST"])
def settings(token: str) -> WerkzeugResponse:
    """Everything of the tournament; the rules (and the deals) only before round 1 is drawn.

    Once round 1 is drawn the page shows the rules and the deals without offering
    them, so the browser sends neither: every other setting is saved as before.
    A request that sends them anyway (a forged one, or a page opened before the
    draw) is compared with what stands, and a change is refused with the reason.
    """
    tournament = setup.get_tournament(token)
    posted = request.method == "POST"
    form = TournamentForm() if posted else TournamentForm(formdata=None)
    current = setup.ruleset_of(tournament)
    locked = setup.started(tournament)
    if not posted:
        form.fill(tournament, current)
    sent: Ruleset | None = None  # after the draw: rules a request sent anyway
    refusal: RulesError | None = None
    if not locked:
        _prepare(form, current, posted)
    else:
        form.deals.not_required()
        if not form.deals.sent():
            form.deals.data = current.deals
        if posted:
            try:
                sent = _sent_after_draw(form, current)
            except RulesError as exc:
                refusal = exc
    page, fragment = (
        "tournaments/organiser/settings.html",
        "tournaments/organiser/_settings_form.html",
    )
    context: dict[str, Any] = {
        "tournament": tournament,
        "locked": locked,
        "kept_deals": current.deals,
        "rules": rules_summary(current),
    }
    if not posted or form.action.data in ("preset", "names"):
        return render(page, fragment, **_form_context(form, error=None, **context))
    error = gettext("Please correct the marked fields.")
    valid = form.validate() & rules_field_errors(form)
    if refusal is not None:
        error = _ruleset_error(form, refusal)
    elif valid:
        changes: dict[str, Any] = {
            "name": form.name.data or "",
            "held_on": form.held_on.data or "",
            "place": form.place.data or "",
            "rounds": form.rounds.data,
            "entry_fee_cents": form.entry_fee_cents(),
            "fee_schedule": form.schedule(),
            "tie_break": bool(form.tie_break.data),
            "public_url": form.public_url.data or "",
        }
        try:
            ruleset = sent if locked else tournament_ruleset(form, current)
            if ruleset is not None:
                changes["ruleset"] = ruleset  # after the draw: refused unless it is the same
            setup.update_settings(tournament, changes)
        except RulesError as exc:
            error = _ruleset_error(form, exc)
        else:
            flash(gettext("The settings are saved."), "ok")
            return go_to(url_for("t_organiser.home", token=tournament.token))
    return render(page, fragment, status=422, **_form_context(form, error=error, **context))
