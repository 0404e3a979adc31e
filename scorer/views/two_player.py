"""Two-player games: the melds written one at a time while the hand is played, the
trump, and the close of the hand with its trick points (docs/rules.md section 9)."""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, abort, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
from ..forms import ConfirmForm, MeldEntryForm, TricksForm
from ..models import Match
from ..rules import RulesError
from ..services import ConflictError, HandClosedError, MatchOverError
from ..web import go_to, is_htmx
from ..words import rules_message
from .entry import entry_context, fresh_page, swap_by_id, two_player_context, version_of

bp = Blueprint("two_player", __name__)


def _two_player_change(
    match: Match,
    action: Callable[[], object],
    *,
    error: str | None = None,
    tricks_form: TricksForm | None = None,
) -> WerkzeugResponse:
    """Run a change of the two-player hand: the fresh page, or the page with why not
    (422; 409 when another phone changed the match first).

    ``error`` set beforehand (the form was not valid) skips the action.
    """
    status = 422
    if error is None:
        try:
            action()
        except HandClosedError:
            status = 409
            error = gettext(
                "This hand was closed in the meantime (on another phone?): "
                "the sheet below shows it. Check its row before you go on."
            )
        except ConflictError:
            status = 409
            error = gettext("Someone else changed this match in the meantime.")
        except MatchOverError:
            error = gettext("The match is over; no more hands can be entered.")
        except RulesError as exc:
            error = rules_message(exc)
    if error is None:
        if is_htmx():
            return fresh_page(match)
        return go_to(url_for("matches.show", token=match.token))
    sheet = services.sheet(match)
    context = entry_context(match, sheet, error=error)
    if tricks_form is not None:
        context.update(two_player_context(match, sheet, tricks_form=tricks_form))
    return swap_by_id("matches/show.html", "matches/_content.html", status=status, **context)


def _hand_number(form: MeldEntryForm | TricksForm) -> int | None:
    """The hand in play the two-player page showed (None: a form without it)."""
    raw = (form.hand.data or "").strip()
    return int(raw) if raw.isdecimal() and len(raw) < 6 else None


def _open_play_match(token: str) -> Match:
    """The match of a two-player route, or 404: other tables have no melds written in play."""
    match = services.get_match(token)
    if not services.ruleset_of(match).open_play:
        abort(404)
    return match


@bp.post("/m/<token:token>/melds")
def write_meld(token: str) -> WerkzeugResponse:
    """Write one meld shown in a two-player hand; the match may end at once."""
    match = _open_play_match(token)
    form = MeldEntryForm()
    context = two_player_context(match, services.sheet(match), meld_form=form)
    if not (form.validate() and form.meld.data in context["meld_names"]):
        return _two_player_change(
            match, lambda: None, error=gettext("Choose the player and the meld.")
        )
    return _two_player_change(
        match,
        lambda: services.write_meld(
            match,
            int(form.party.data or 0),
            form.meld.data,
            # the value comes from the rules, never from the request
            context["meld_values"][form.meld.data],
            _hand_number(form),
            trump=context["trump"],
            seen=request.form.get("logged", type=int),
        ),
    )


@bp.post("/m/<token:token>/trump")
def set_trump(token: str) -> WerkzeugResponse:
    """Name the trump of a two-player hand; the meld buttons show its values."""
    match = _open_play_match(token)
    form = MeldEntryForm()
    if not form.validate():
        abort(400)
    return _two_player_change(
        match, lambda: services.set_trump(match, form.trump.data or "", _hand_number(form))
    )


@bp.post("/m/<token:token>/melds/<int:entry_id>/delete")
def remove_meld(token: str, entry_id: int) -> WerkzeugResponse:
    """Take back a meld written by mistake."""
    match = _open_play_match(token)
    form = ConfirmForm()
    if not form.validate():
        abort(400)
    try:
        services.remove_meld(match, entry_id, version_of(form))
    except ConflictError:
        # a stale page still takes its meld back (the id names it); the fresh page shows the state
        services.remove_meld(match, entry_id)
    if is_htmx():
        return fresh_page(match)
    return go_to(url_for("matches.show", token=match.token))


@bp.post("/m/<token:token>/finish")
def finish(token: str) -> WerkzeugResponse:
    """Close a two-player hand with its trick points."""
    match = _open_play_match(token)
    form = TricksForm()
    if not form.validate():
        return _two_player_change(
            match,
            lambda: None,
            error=gettext("Please correct the marked fields."),
            tricks_form=form,
        )
    parties = len(services.party_names(match))
    tricks = [line.form.tricks.data for line in form.parties][:parties]
    return _two_player_change(
        match,
        lambda: services.finish_open_hand(
            match,
            tricks,
            version_of(form),
            ended_early=bool(form.ended_early.data),
            hand_number=_hand_number(form),
        ),
        tricks_form=form,
    )
