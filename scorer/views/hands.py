"""Entering, previewing, correcting and deleting hands.

htmx posts the hand form to ``preview`` on every change (the live result)
and to ``create`` on save; without JavaScript the same form posts to
``create`` and gets a redirect back to the match page (POST–redirect–GET).
An invalid hand comes back as the form with status 422, every value kept.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from flask import Blueprint, abort, flash, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
from ..forms import ConfirmForm, hand_form
from ..models import Hand, Match
from ..rules import RulesError
from ..services import ConflictError, LockedError, MatchOverError
from ..web import check_link, go_to, render
from . import hand_answers as answers
from .entry import entry_context, locked_message, preview_of, resent_save, version_of

bp = Blueprint("hands", __name__)


@bp.post("/m/<token:token>/hands/preview")
def preview(token: str) -> WerkzeugResponse:
    """The live result under the form (htmx, on every change)."""
    match = services.get_match(token)
    # the names and the rules are enough: no rows, so a long match answers as fast
    sheet = services.standing(match)
    number = request.args.get("hand", type=int)
    hand = services.hand_by_number(match, number) if number else None
    form = hand_form(match, sheet, posted=True)
    return render(
        "hands/_preview.html",
        "hands/_preview.html",
        sheet=sheet,
        preview=preview_of(match, form, len(sheet.parties), hand),
        preview_oob=True,
    )


def save_from_form(
    match: Match,
    hand: Hand | None,
    *,
    via: str | None = None,
    back_to: str | None = None,
    page: str | None = None,
    **extra: Any,
) -> WerkzeugResponse:
    """Save the posted hand form: a new hand, or a correction of ``hand``.

    The match's own pages call it with the match alone.  Another page around the
    same form (the tournament organiser's correction) passes ``via`` (who writes:
    ``"organiser"`` passes the lock of a closed round and is kept in the hand's
    history), ``back_to`` (where a saved correction goes; a conflict answers with
    the form as typed, on the current version, instead of the match page), and
    ``page`` with ``extra`` context (its own page around ``hands/_form.html``).
    What it answers is :mod:`.hand_answers`'.
    """
    # a new hand needs the names and the rules only (the standing), a correction its sheet
    sheet = services.standing(match) if hand is None else services.sheet(match)
    form = hand_form(match, sheet, hand, posted=True)
    # the form again, as typed, with why it was not saved
    again = partial(
        answers.form_again, match, sheet, form, hand, back_to=back_to, page=page, extra=extra
    )
    if not form.validate():
        marked = None if form.asks_only else gettext("Please correct the marked fields.")
        return again(answers.Refused(422, marked))
    before = match.version
    try:
        saved = services.save_hand(
            match,
            form.to_input(len(sheet.parties)),
            hand=hand,
            version=version_of(form),
            idempotency_key=None if hand else (form.idempotency_key.data or "")[:64] or None,
            via=via,
        )
    except (ConflictError, MatchOverError, RulesError) as error:
        why = answers.refused(error, match, form, hand, via=via, back_to=back_to)
        return again(why)
    return answers.saved(match, saved, hand, before=before, back_to=back_to)


@bp.post("/m/<token:token>/hands")
def create(token: str) -> WerkzeugResponse:
    """Save a new hand (a resend through a link replaced since is answered as saved)."""
    try:
        match = services.get_match(token)
    except services.NotFound:
        answered = resent_save(token)
        if answered is None:
            raise  # the link's notice, or 404 (scorer.web)
        return answered
    return save_from_form(match, None)


@bp.get("/m/<token:token>/hands/<int:number>/edit")
def edit(token: str, number: int) -> WerkzeugResponse:
    """The correction form of a saved hand."""
    match = services.get_match(token)
    hand = services.hand_by_number(match, number)
    if not services.correctable(hand):
        abort(404)
    sheet = services.sheet(match)
    form = hand_form(match, sheet, hand)
    context = entry_context(
        match, sheet, form, hand=hand, preview=preview_of(match, form, len(sheet.parties), hand)
    )
    return render("hands/edit.html", **context)


@bp.post("/m/<token:token>/hands/<int:number>")
def update(token: str, number: int) -> WerkzeugResponse:
    """Save a correction; totals and the end of the match are recomputed."""
    match = services.get_match(token)
    hand = services.hand_by_number(match, number)
    if hand.deleted_at is not None or hand.outcome == "open_play":
        abort(404)
    return save_from_form(match, hand)


@bp.get("/m/<token:token>/hands/<int:number>")
def detail(token: str, number: int) -> WerkzeugResponse:
    """A hand with its meld breakdown and its history."""
    match = services.get_match(token)
    hand = services.hand_by_number(match, number)
    sheet = services.sheet(match)
    return render(
        "hands/detail.html",
        "hands/_detail.html",
        match=match,
        sheet=sheet,
        hand=hand,
        # how it went, as the rules say (a forfeit by an opponent counts the game as made)
        verdict=services.verdict(hand),
        confirm=ConfirmForm(formdata=None, version=str(match.version)),
        strike=request.args.get("strike") == "1",
    )


def _change(token: str, number: int, action: str) -> WerkzeugResponse:
    match = services.get_match(token)
    hand = services.hand_by_number(match, number)
    form = ConfirmForm()
    if not form.validate():
        abort(400)
    on_sheet = services.sheet(match).number_of(hand) if action == "delete" else None
    error: str | None = None
    try:
        if action == "delete":
            services.delete_hand(match, hand, version_of(form))
        else:
            services.restore_hand(match, hand, version_of(form))
    except LockedError:
        error = locked_message()
    except ConflictError:
        check_link(match)
        error = gettext(
            "Someone else changed this match in the meantime. Here is the current state."
        )
    if error is not None:
        sheet = services.sheet(match)
        return render(
            "matches/show.html",
            "matches/_content.html",
            status=409,
            **entry_context(match, sheet, error=error),
        )
    if action == "delete":
        flash(
            gettext(
                "Hand %(number)s struck: it stays on the sheet, crossed out, and no longer "
                "counts. “Restore” on its row brings it back.",
                number=on_sheet or "",
            ),
            "info",
        )
    # the buttons sit on the hand's own page (and under a saved hand): back to the sheet
    return go_to(url_for("matches.show", token=match.token))


@bp.post("/m/<token:token>/hands/<int:number>/delete")
def delete(token: str, number: int) -> WerkzeugResponse:
    """Strike a hand (it stays visible in the history)."""
    return _change(token, number, "delete")


@bp.post("/m/<token:token>/hands/<int:number>/restore")
def restore(token: str, number: int) -> WerkzeugResponse:
    """Bring a struck hand back."""
    return _change(token, number, "restore")
