"""Entering, previewing, correcting and deleting hands.

htmx posts the hand form to ``preview`` on every change (the live result)
and to ``create`` on save; without JavaScript the same form posts to
``create`` and gets a redirect back to the match page (POST–redirect–GET).
An invalid hand comes back as the form with status 422, every value kept.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, abort, flash, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
from ..forms import ConfirmForm, hand_form
from ..models import Hand, Match
from ..rules import RulesError
from ..services import ConflictError, KeyReusedError, LockedError, MatchOverError
from ..web import check_link, go_to, is_htmx, render
from .entry import (
    entry_context,
    fresh_page,
    locked_message,
    preview_of,
    resent_save,
    swap_by_id,
    version_of,
)

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
    """
    # a new hand needs the names and the rules only (the standing), a correction its sheet
    sheet = services.standing(match) if hand is None else services.sheet(match)
    form = hand_form(match, sheet, hand, posted=True)
    status = 422
    error: str | None = None
    reused = False
    before = match.version
    if form.validate():
        data = form.to_input(len(sheet.parties))
        try:
            saved = services.save_hand(
                match,
                data,
                hand=hand,
                version=version_of(form),
                idempotency_key=None if hand else (form.idempotency_key.data or "")[:64] or None,
                via=via,
            )
        except KeyReusedError:
            # this form's key saved another hand before (the form was changed after it
            # was sent): what was typed stays, on the current version with a new key
            status = 409
            reused = True
            error = gettext(
                "This entry was already saved with other values: the sheet shows what was "
                "saved. To enter the hand below as another hand, save it again."
            )
            form.idempotency_key.data = secrets.token_urlsafe(16)
            form.version.data = str(match.version)
        except LockedError:
            status = 409
            error = locked_message()
        except ConflictError:
            if via is None:
                check_link(match)  # the organiser gave the table a new link, or drew again
            status = 409
            if back_to is not None or hand is not None:
                # a correction (on its own page, or another page's form): what was typed
                # stays, on the current version (saved again, it replaces what the other
                # change wrote)
                error = gettext(
                    "This match was changed in the meantime. What you typed is kept below; "
                    "check it and save again to replace the hand."
                )
                form.version.data = str(match.version)
            else:
                error = gettext(
                    "Someone else changed this match in the meantime. The sheet below is the "
                    "current state; check it and enter the hand again if it is missing."
                )
        except MatchOverError:
            status = 409
            error = gettext("The match is over; no more hands can be entered.")
        except RulesError as exc:
            form.add_rules_error(exc)
        else:
            if is_htmx() and hand is None:
                if match.version == before + 1:
                    # saved by this very request on a page that was current: it lacks
                    # just this row (a repeated key or anything else gets everything)
                    return _saved_hand(match, saved)
                return fresh_page(match, saved)
            # a correction is made on its own page: back to the sheet (HX-Redirect for htmx)
            return go_to(back_to or url_for("matches.show", token=match.token))
    elif not form.asks_only:
        error = gettext("Please correct the marked fields.")
    if status == 409 and not reused and back_to is None and hand is None:
        # (a correction's page has no match content to swap: it gets its form, below)
        fresh = services.sheet(match)
        context = entry_context(match, fresh, error=error)
        # the form targets itself; the current state replaces the whole match content
        return swap_by_id("matches/show.html", "matches/_content.html", status=409, **context)
    context = entry_context(
        match,
        sheet,
        form,
        hand=hand,
        error=error,
        preview=preview_of(match, form, len(sheet.parties), hand),
    )
    context.update(extra)
    template = page or ("hands/edit.html" if hand else "matches/show.html")
    fragment = "hands/_form.html"
    if back_to is not None:
        if status == 409:
            context["sheet"] = services.sheet(match)
        return render(template, fragment, status=status, **context)
    if reused:
        # the sheet with the hand the key saved (its answer may never have arrived)
        context["sheet"] = services.sheet(match)
        return swap_by_id(template, "matches/_content.html", status=status, **context)
    if hand is None and not is_htmx():
        # the whole page again, sheet included
        context["sheet"] = services.sheet(match)
    return render(template, fragment, status=status, **context)


def _saved_hand(match: Match, saved: Hand) -> WerkzeugResponse:
    """After a new hand over htmx: the top of the page fresh, the sheet's new row out of band.

    The first hand gets the whole content (the table loses its placeholder row).
    """
    top = services.standing(match)
    if top.hand_count < 2 or saved.status != "closed" or saved.deleted_at is not None:
        return fresh_page(match, saved)
    new_row = services.last_row(top, saved)
    context = entry_context(match, top, saved_row=new_row)
    return swap_by_id(
        "matches/_saved.html",
        "matches/_saved.html",
        new_row=new_row,
        **context,
    )


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
