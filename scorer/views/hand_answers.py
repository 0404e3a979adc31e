"""What a save of the hand form answers (:func:`scorer.views.hands.save_from_form`).

The view reads the form and calls ``services.save_hand``; this module turns the result
into the page: a saved hand (the sheet's new row, or the page it came from), or the
form again, every value kept, with why not in the user's words — a resent form whose
key saved another hand, a locked round, another phone's change, a finished match, a
hand the rules refuse — and the status (409 for a change that came first, 422 for what
was typed).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from flask import url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
from ..forms import HandForm
from ..models import Hand, Match
from ..rules import RulesError
from ..services import ConflictError, KeyReusedError, LockedError, MatchOverError, Sheet
from ..web import check_link, go_to, is_htmx, render
from .entry import entry_context, fresh_page, locked_message, preview_of, swap_by_id


@dataclass(frozen=True)
class Refused:
    """Why a hand was not saved: the status, the words (``None``: the form's own marks
    say it), and whether the form's key had saved another hand before."""

    status: int
    error: str | None = None
    reused: bool = False


def refused(
    error: Exception,
    match: Match,
    form: HandForm,
    hand: Hand | None,
    *,
    via: str | None,
    back_to: str | None,
) -> Refused:
    """Why ``services.save_hand`` refused, in words; the form made ready to be sent again.

    A form whose key saved another hand before (it was changed after it was sent) keeps
    what was typed, on the current version with a new key.  A correction that another
    change beat keeps what was typed on the current version: saved again, it replaces
    what the other change wrote.  A table phone whose link was replaced or drawn again
    is told so (``check_link``).
    """
    if isinstance(error, KeyReusedError):
        form.idempotency_key.data = secrets.token_urlsafe(16)
        form.version.data = str(match.version)
        message = gettext(
            "This entry was already saved with other values: the sheet shows what was "
            "saved. To enter the hand below as another hand, save it again."
        )
        return Refused(409, message, reused=True)
    if isinstance(error, LockedError):
        return Refused(409, locked_message())
    if isinstance(error, ConflictError):
        if via is None:
            check_link(match)  # the organiser gave the table a new link, or drew again
        if back_to is not None or hand is not None:
            form.version.data = str(match.version)
            return Refused(
                409,
                gettext(
                    "This match was changed in the meantime. What you typed is kept below; "
                    "check it and save again to replace the hand."
                ),
            )
        return Refused(
            409,
            gettext(
                "Someone else changed this match in the meantime. The sheet below is the "
                "current state; check it and enter the hand again if it is missing."
            ),
        )
    if isinstance(error, MatchOverError):
        return Refused(409, gettext("The match is over; no more hands can be entered."))
    if isinstance(error, RulesError):
        form.add_rules_error(error)  # on the field it is about
        return Refused(422)
    raise error


def saved(
    match: Match, hand: Hand, corrected: Hand | None, *, before: int, back_to: str | None
) -> WerkzeugResponse:
    """The answer to a saved hand: over htmx, the page's new row (or the fresh page);
    a correction goes back to the sheet (or ``back_to``), as does a form without script."""
    if is_htmx() and corrected is None:
        if match.version == before + 1:
            # saved by this very request on a page that was current: it lacks just this
            # row (a repeated key or anything else gets everything)
            return _saved_row(match, hand)
        return fresh_page(match, hand)
    # a correction is made on its own page: back to the sheet (HX-Redirect for htmx)
    return go_to(back_to or url_for("matches.show", token=match.token))


def _saved_row(match: Match, saved: Hand) -> WerkzeugResponse:
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


def form_again(
    match: Match,
    sheet: Sheet,
    form: HandForm,
    hand: Hand | None,
    why: Refused,
    *,
    back_to: str | None,
    page: str | None,
    extra: dict[str, Any],
) -> WerkzeugResponse:
    """The form as typed with why it was not saved (``page``: another page around it)."""
    if why.status == 409 and not why.reused and back_to is None and hand is None:
        # a new hand that another change beat: the current state replaces the whole match
        # content (a correction's page has no match content to swap: it gets its form)
        context = entry_context(match, services.sheet(match), error=why.error)
        return swap_by_id("matches/show.html", "matches/_content.html", status=409, **context)
    context = entry_context(
        match,
        sheet,
        form,
        hand=hand,
        error=why.error,
        preview=preview_of(match, form, len(sheet.parties), hand),
    )
    context.update(extra)
    template = page or ("hands/edit.html" if hand else "matches/show.html")
    fragment = "hands/_form.html"
    if back_to is not None:
        if why.status == 409:
            context["sheet"] = services.sheet(match)
        return render(template, fragment, status=why.status, **context)
    if why.reused:
        # the sheet with the hand the key saved (its answer may never have arrived)
        context["sheet"] = services.sheet(match)
        return swap_by_id(template, "matches/_content.html", status=why.status, **context)
    if hand is None and not is_htmx():
        context["sheet"] = services.sheet(match)  # the whole page again, sheet included
    return render(template, fragment, status=why.status, **context)
