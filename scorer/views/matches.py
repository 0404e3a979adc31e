"""Starting a match, the match page (the sheet), the next match, the rules page."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, abort, flash, g, make_response, request, session, url_for
from flask_babel import gettext
from flask_wtf.csrf import generate_csrf
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import cache, services
from ..forms import (
    RULE_GROUPS,
    RULE_OPTIONS,
    ConfirmForm,
    NewMatchForm,
    build_rule_fields,
    rules_field_errors,
    ruleset_from_form,
)
from ..forms.setup_hints import bonus_hints
from ..house_rules import rules_page
from ..rules import PRESETS, RulesError, Ruleset, check_teams
from ..web import go_to, render
from ..words import rules_message
from .entry import entry_context
from .recent import recent, remember

bp = Blueprint("matches", __name__)


def _prepare(form: NewMatchForm, posted: bool) -> None:
    preset = PRESETS.get(form.preset.data or "standard", PRESETS["standard"])
    apply_preset = form.action.data == "preset"
    data = request.form if posted and not apply_preset else None
    build_rule_fields(form, preset, data)
    if not posted or apply_preset:
        form.teams.data = preset.team_size > 1
        wanted = preset.players
        names = [f.data for f in form.players]
        while len(form.players) < wanted:
            form.players.append_entry()
        if apply_preset:
            # drop trailing empty inputs beyond what the preset needs
            while len(form.players) > max(wanted, len([n for n in names if n])):
                form.players.pop_entry()
    if form.action.data == "add_player" and len(form.players) < form.players.max_entries:
        form.players.append_entry()
    while len(form.team_of) < len(form.players):
        form.team_of.append_entry()
    while len(form.team_of) > len(form.players):
        form.team_of.pop_entry()
    seats = len(form.players)
    # no team chosen yet (the teams box just ticked): partners opposite, as a preset does
    unchosen = not any(f.data for f in form.team_of)
    if not posted or apply_preset or form.action.data == "add_player" or unchosen:
        parties = max(1, seats // 2)
        for seat, field in enumerate(form.team_of):
            field.data = str(seat % parties)


def _setup_context(form: NewMatchForm, error: str | None = None) -> dict[str, Any]:
    return {
        "form": form,
        "error": error,
        "groups": RULE_GROUPS,
        "options": RULE_OPTIONS,
        "players_known": services.known_players(recent()),
        # what each bonus gives at this table, in words by the rules
        "bonus_hints": bonus_hints(form),
    }


@bp.route("/new", methods=["GET", "POST"])
def new() -> WerkzeugResponse:
    """Start a session and its first match."""
    posted = request.method == "POST"
    form = NewMatchForm() if posted else NewMatchForm(formdata=None)
    if not form.idempotency_key.data:
        # one per rendered setup form: the same form sent twice starts one match
        form.idempotency_key.data = secrets.token_urlsafe(16)
    _prepare(form, posted)
    if not posted or form.action.data in ("preset", "add_player", "names"):
        return render("matches/new.html", "matches/_setup_form.html", **_setup_context(form))
    valid = form.validate() & rules_field_errors(form)
    error = None
    status = 422
    if valid:
        try:
            ruleset = ruleset_from_form(form)
            parties = _parties_from_form(form, ruleset)
            match = services.start_match(
                names=form.player_names(),
                ruleset=ruleset,
                title=form.title.data or "",
                parties=parties,
                first_dealer=int(form.first_dealer.data or 0),
                stake_cents=form.stake_cents(),
                stake_basis=form.stake_basis.data or "full",
                idempotency_key=(form.idempotency_key.data or "")[:64] or None,
            )
        except services.KeyReusedError:
            # the same form (the back button) with another table: a new key starts it
            status = 409
            error = gettext(
                "This form has already started a match with other players or rules. "
                "Press “Start match” again to start this one too."
            )
            form.idempotency_key.data = secrets.token_urlsafe(16)
        except services.ConflictError:
            status = 409
            error = gettext("The match could not be started just now. Please try again.")
        except RulesError as exc:
            error = rules_message(exc)
        else:
            remember(match.session.token)
            return go_to(url_for("matches.show", token=match.token))
    else:
        error = gettext("Please correct the marked fields.")
    return render(
        "matches/new.html", "matches/_setup_form.html", status=status, **_setup_context(form, error)
    )


def _parties_from_form(form: NewMatchForm, ruleset: Ruleset) -> list[int] | None:
    """The party of every seat: the chosen teams, or one party per player."""
    seats = ruleset.players
    if not ruleset.teams:
        return list(range(seats))
    # the team letters' values; anything else (5000 digits, "٣") is no team
    teams = [str(p) for p in range(ruleset.parties)]
    chosen = [teams.index(f.data) if f.data in teams else -1 for f in form.team_of][:seats]
    check_teams(ruleset, chosen)
    return chosen


@bp.get("/m/<token:token>")
def show(token: str) -> WerkzeugResponse:
    """The match page: progress, who deals, the entry form, the sheet.

    A page of a version already rendered comes from :mod:`scorer.cache` with this
    request's CSRF token and a fresh idempotency key (one statement, nothing
    rendered); otherwise the top comes from the standing and the sheet table from
    its own cache.
    """
    state = services.match_state(token)
    remember(state.token)
    cacheable = "_flashes" not in session
    if cacheable:
        key = cache.page_key(token, state.version, state.updated_at)
        html = cache.cached_page(key, generate_csrf, secrets.token_urlsafe(16))
        if html is not None:
            response = make_response(html)
            response.vary.add("HX-Request")
            return response
    match = services.get_match(token)
    sheet = services.standing(match)
    context = entry_context(match, sheet)
    response = render("matches/show.html", "matches/_content.html", **context)
    if cacheable and context["fresh_form_ok"] and not sheet.ruleset.open_play:
        # the key of what was read, not of the first statement: a save in between
        # must not file the newer page under the older version
        key = cache.page_key(token, match.version, match.updated_at)
        cache.keep_page(
            key,
            response.get_data(as_text=True),
            g.get("csrf_token"),
            context["idempotency_key"],
        )
    return response


@bp.post("/m/<token:token>/next")
def next_match(token: str) -> WerkzeugResponse:
    """The next match with the same table (after the end of this one)."""
    match = services.get_match(token)
    form = ConfirmForm()
    if not form.validate():
        abort(400)
    if not services.sheet(match).finished:
        abort(409)
    try:
        # pressed again, or on two phones at once: the same next match
        new = services.next_match(match)
    except services.ConflictError:
        abort(409)
    except RulesError as exc:
        flash(rules_message(exc), "error")
        return go_to(url_for("matches.show", token=match.token))
    return go_to(url_for("matches.show", token=new.token))


@bp.get("/m/<token:token>/rules")
def rules(token: str) -> WerkzeugResponse:
    """The rules of this match in words, with the meld table."""
    match = services.get_match(token)
    return render("matches/rules.html", match=match, **rules_page(services.ruleset_of(match)))


@bp.get("/players")
def players() -> WerkzeugResponse:
    """Names typed before on this device (a datalist for autocomplete)."""
    prefix = request.args.get("q", "")[:40]
    names = services.known_players(recent(), prefix)
    return render("matches/_players.html", names=names)
