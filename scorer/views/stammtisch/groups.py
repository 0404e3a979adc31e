"""The Stammtisch's own pages: making a group, its year (ranking, chart, records, evenings),
its members, its settings, "Neues Jahr" — through the members' link or the read-only twin.

``/st/<token>`` is the members' link: shown once large after making the group, to
pass on to every member's phone, where it is remembered (the phone's home page
lists the group).  ``/sv/<view token>`` is its twin for everybody else: the same
year, nothing that changes it, matches and hands read-only.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, flash, request, session, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from ...chart import chart
from ...forms import RULE_GROUPS, RULE_OPTIONS, build_rule_fields, rules_field_errors
from ...forms.setup_hints import hints_for
from ...forms.stammtisch import GroupForm, MemberForm, NewYearForm, SettingsForm
from ...house_rules import house_rules, ruleset_line
from ...models import GameSession
from ...rules import PRESETS, RulesError, Ruleset
from ...rules.year import SeasonStart, season_over
from ...services import ConflictError
from ...services.stammtisch import groups, new_year, people
from ...services.stammtisch.reading import YearView, year_view
from ...stammtisch_models import Stammtisch
from ...web import go_to, render
from ...words import rules_message
from .shared import GROUPS_KEY, VIEWS_KEY, Links, remember, remembered, today
from .words import MONEY_MODES, RANKED_BY, RECORD_TITLES, template_words, word_filters

bp = Blueprint("st_group", __name__)


@bp.record_once
def _words(state: Any) -> None:
    """The year's words as template filters and globals (scorer.views.stammtisch.words)."""
    state.app.jinja_env.filters.update(word_filters())
    state.app.jinja_env.globals.update(template_words())


FRESH_KEY = "st_fresh"
"""The group just made: its page shows the members' link large, once."""


@bp.app_template_global("my_stammtische")
def my_stammtische() -> list[tuple[Stammtisch, str, bool]]:
    """The groups this device has opened: each with its address and whether it can edit
    (the app's home page lists them beside the sessions)."""
    edit = remembered(GROUPS_KEY)
    views = remembered(VIEWS_KEY)
    found = []
    for group in groups.recent_groups(edit, views):
        if group.token in edit:
            found.append((group, url_for("st_group.home", token=group.token), True))
        else:
            found.append((group, url_for("st_group.home_view", view_token=group.view_token), False))
    return found


@bp.app_template_global("stammtisch_of")
def stammtisch_of(row: GameSession) -> dict[str, Any] | None:
    """The group an evening (a session) belongs to, with the way back to it; None for a
    session of no group (the session page asks, knowing nothing of the group)."""
    found = groups.group_of_session(row)
    if found is None:
        return None
    group, number = found
    return {
        "name": group.name,
        "url": url_for("st_group.home", token=group.token),
        "evening_url": url_for("st_evening.show", token=group.token, number=number),
    }


# -- the group's form ------------------------------------------------------------------------


def _base(form: GroupForm | SettingsForm) -> Ruleset:
    return PRESETS.get(form.preset.data or "standard", PRESETS["standard"])


def _prepare(form: GroupForm | SettingsForm, posted: bool, base: Ruleset | None = None) -> None:
    """The house-rule fields from the preset (or the year's rules); posted values win unless
    the preset is asked for again."""
    reset = form.action.data == "preset"
    start = _base(form) if reset or base is None else base
    build_rule_fields(form, start, request.form if posted and not reset else None)


def _form_context(form: GroupForm | SettingsForm, **extra: Any) -> dict[str, Any]:
    try:
        table = _base(form)
        hints = hints_for(form.rule_fields, table)
    except (RulesError, ValueError, TypeError):
        hints = {}
    return {
        "form": form,
        "groups": RULE_GROUPS,
        "options": RULE_OPTIONS,
        "bonus_hints": hints,
        "fixed": (),
        **extra,
    }


def _field_error(form: Any, error: RulesError) -> str:
    """Where a refusal is shown: at the field it names, else above the form."""
    message = rules_message(error)
    field = getattr(form, str(error.params.get("field", "")), None)
    if field is not None and hasattr(field, "errors"):
        field.errors = [*field.errors, message]
        return gettext("Please correct the marked fields.")
    return message


@bp.route("/st/new", methods=["GET", "POST"])
def new() -> WerkzeugResponse:
    """Make a Stammtisch: its name, its members, its table's rules and stakes."""
    posted = request.method == "POST"
    form = GroupForm() if posted else GroupForm(formdata=None)
    if not form.idempotency_key.data:
        form.idempotency_key.data = secrets.token_urlsafe(16)
    _prepare(form, posted)
    if not posted or form.action.data in ("preset", "names"):
        return render("stammtisch/new.html", "stammtisch/_group_form.html", **_form_context(form))
    error = gettext("Please correct the marked fields.")
    status = 422
    if form.validate() & rules_field_errors(form):
        try:
            group = groups.create_group(
                name=form.name.data or "",
                members=form.member_list(),
                ruleset=form.ruleset(),
                stake_cents=form.stake_cents(),
                stake_basis=form.stake_basis.data or "full",
                money_mode=form.money_mode.data or "pay",
                ranking_by=form.ranking_by.data or "points",
                season_start=form.season(),
                day=today(),
                idempotency_key=form.idempotency_key.data,
            )
        except RulesError as exc:
            error = _field_error(form, exc)
        except ConflictError:
            status = 409
            error = gettext("The group could not be made just now. Please try again.")
        else:
            remember(group, edit=True)
            session[FRESH_KEY] = group.token
            return go_to(url_for("st_group.home", token=group.token))
    return render(
        "stammtisch/new.html",
        "stammtisch/_group_form.html",
        status=status,
        **_form_context(form, error=error),
    )


# -- the year's page -----------------------------------------------------------------------


def year_context(view: YearView, links: Links) -> dict[str, Any]:
    """What the year's page and its PDF show besides the year itself: the chart, the words."""
    lines = view.ranking.lines
    running = [list(points) for points in view.ranking.running]
    drawn = None
    if lines and len(running) > 1:
        drawn = chart([view.name(line.person) for line in lines], running, None)
    return {
        "view": view,
        "links": links,
        "chart": drawn,
        "money_modes": MONEY_MODES,
        "ranked_by": RANKED_BY,
        "record_titles": RECORD_TITLES,
        "rules_line": ruleset_line(Ruleset.from_dict(view.year.ruleset)),
    }


def _year_page(group: Stammtisch, number: int | None, edit: bool) -> WerkzeugResponse:
    view = year_view(group, number)
    links = Links(group, edit)
    remember(group, edit=edit)
    fresh = edit and session.pop(FRESH_KEY, None) == group.token
    start = SeasonStart.parse(group.season_start)
    over = view.current and season_over(view.year.season, today(), start)
    return render(
        "stammtisch/year.html",
        fresh=fresh,
        season_over=over,
        new_year_form=NewYearForm(formdata=None, after=view.year.number),
        **year_context(view, links),
    )


@bp.get("/st/<token:token>")
def home(token: str) -> WerkzeugResponse:
    """The group's current year: ranking, chart, records, evenings; start tonight's evening."""
    return _year_page(groups.get_group(token), None, True)


@bp.get("/st/<token:token>/year/<int:number>")
def year(token: str, number: int) -> WerkzeugResponse:
    """One of the group's years."""
    return _year_page(groups.get_group(token), number, True)


@bp.get("/sv/<token:view_token>")
def home_view(view_token: str) -> WerkzeugResponse:
    """The current year through the read-only twin."""
    return _year_page(groups.get_group_for_view(view_token), None, False)


# (the twin's endpoints are the link's with "_view": shared.Links builds them so)
@bp.get("/sv/<token:view_token>/year/<int:number>", endpoint="year_view")
def year_of_view(view_token: str, number: int) -> WerkzeugResponse:
    """One of the years through the read-only twin."""
    return _year_page(groups.get_group_for_view(view_token), number, False)


@bp.post("/st/<token:token>/new-year")
def start_new_year(token: str) -> WerkzeugResponse:
    """ "Neues Jahr": the next year with the members, rules and stakes (two taps make one)."""
    group = groups.get_group(token)
    form = NewYearForm()
    after = form.after.data if form.validate() else None
    year = new_year.new_year(group, day=today(), after=after)
    flash(gettext("The year %(label)s has begun.", label=year.label), "ok")
    return go_to(url_for("st_group.home", token=group.token))


# -- members -------------------------------------------------------------------------------


def _members_page(
    group: Stammtisch, form: MemberForm | None = None, *, status: int = 200, error: str = ""
) -> WerkzeugResponse:
    year = groups.current_year(group)
    return render(
        "stammtisch/members.html",
        status=status,
        group=group,
        year=year,
        links=Links(group, True),
        form=form or MemberForm(formdata=None),
        rename_form=MemberForm(formdata=None),
        error=error,
    )


@bp.route("/st/<token:token>/members", methods=["GET", "POST"])
def members(token: str) -> WerkzeugResponse:
    """The year's members: add one, mark one as left, take one back, correct a name."""
    group = groups.get_group(token)
    if request.method != "POST":
        return _members_page(group)
    form = MemberForm()
    if not form.validate():
        return _members_page(group, form, status=422)
    try:
        member = people.add_member(group, form.name.data or "", today())
    except RulesError as exc:
        form.name.errors = [*form.name.errors, rules_message(exc)]
        return _members_page(group, form, status=422)
    flash(gettext("%(name)s is a member.", name=member.person.name), "ok")
    return go_to(url_for("st_group.members", token=group.token))


@bp.post("/st/<token:token>/members/<int:person>/leave")
def leave(token: str, person: int) -> WerkzeugResponse:
    """A member leaves (his numbers and balances stay)."""
    group = groups.get_group(token)
    member = people.leave(group, person, today())
    flash(gettext("%(name)s has left the group.", name=member.person.name), "ok")
    return go_to(url_for("st_group.members", token=group.token))


@bp.post("/st/<token:token>/members/<int:person>/back")
def come_back(token: str, person: int) -> WerkzeugResponse:
    """A member who left is a member again."""
    group = groups.get_group(token)
    try:
        member = people.come_back(group, person)
    except RulesError as exc:
        return _members_page(group, status=422, error=rules_message(exc))
    flash(gettext("%(name)s is a member again.", name=member.person.name), "ok")
    return go_to(url_for("st_group.members", token=group.token))


@bp.post("/st/<token:token>/members/<int:person>/name")
def rename(token: str, person: int) -> WerkzeugResponse:
    """A person's name corrected."""
    group = groups.get_group(token)
    form = MemberForm()
    if not form.validate():
        message = "; ".join(str(e) for e in form.name.errors)
        return _members_page(group, status=422, error=message)
    try:
        people.rename(group, person, form.name.data or "")
    except RulesError as exc:
        return _members_page(group, status=422, error=rules_message(exc))
    return go_to(url_for("st_group.members", token=group.token))


# -- settings ------------------------------------------------------------------------------


@bp.route("/st/<token:token>/settings", methods=["GET", "POST"])
def settings(token: str) -> WerkzeugResponse:
    """The group's name and season, the current year's rules, stakes, money and ranking."""
    group = groups.get_group(token)
    year = groups.current_year(group)
    posted = request.method == "POST"
    form = SettingsForm() if posted else SettingsForm(formdata=None)
    ruleset = Ruleset.from_dict(year.ruleset)
    if not posted:
        form.name.data = group.name
        start = SeasonStart.parse(group.season_start)
        form.season_start.data = f"{start.day}.{start.month}."
        form.preset.data = ruleset.preset if ruleset.preset in PRESETS else "standard"
        form.teams.data = ruleset.teams
        form.stake.data = f"{year.stake_cents / 100:.2f}".replace(".", ",")
        form.stake_basis.data = year.stake_basis
        form.money_mode.data = year.money_mode
        form.ranking_by.data = year.ranking_by
    _prepare(form, posted, ruleset)
    context = {"group": group, "year": year, "links": Links(group, True)}
    context["house_rules"] = house_rules(ruleset)
    if not posted or form.action.data in ("preset", "names"):
        return render(
            "stammtisch/settings.html",
            "stammtisch/_settings_form.html",
            **_form_context(form, **context),
        )
    error = gettext("Please correct the marked fields.")
    if form.validate() & rules_field_errors(form):
        try:
            groups.update_group(
                group,
                name=form.name.data or "",
                season_start=form.season(),
                ruleset=form.ruleset(),
                stake_cents=form.stake_cents(),
                stake_basis=form.stake_basis.data or "full",
                money_mode=form.money_mode.data or "pay",
                ranking_by=form.ranking_by.data or "points",
            )
        except RulesError as exc:
            error = _field_error(form, exc)
        else:
            flash(gettext("Saved. The next evening plays with these rules and stakes."), "ok")
            return go_to(url_for("st_group.home", token=group.token))
    return render(
        "stammtisch/settings.html",
        "stammtisch/_settings_form.html",
        status=422,
        **_form_context(form, error=error, **context),
    )
