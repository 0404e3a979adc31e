"""Entering, previewing, correcting and deleting hands; two-player meld writing.

htmx posts the hand form to ``preview`` on every change (the live result)
and to ``create`` on save; without JavaScript the same form posts to
``create`` and gets a redirect back to the match page (POST–redirect–GET).
An invalid hand comes back as the form with status 422, every value kept.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from flask import Blueprint, abort, flash, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
from ..forms import (
    ConfirmForm,
    HandForm,
    MeldEntryForm,
    TricksForm,
    choice_list,
    hand_form,
    whole_number,
)
from ..models import Hand, Match
from ..rules import (
    PRESETS,
    RulesError,
    available_melds,
    going_on_past_target,
    hand_size,
    offered_points,
    players_dealt_in,
)
from ..services import ConflictError, HandClosedError, KeyReusedError, MatchOverError, Sheet
from ..web import go_to, is_htmx, render
from ..words import rules_message

bp = Blueprint("hands", __name__)


def _version(form: Any) -> int | None:
    """The version the page showed; None when it sent none.  A version that is no
    whole number names no state of the match (-1): the change is refused as stale."""
    raw = form.version.data if hasattr(form, "version") else None
    if raw in (None, ""):
        return None
    number = whole_number(raw)
    return -1 if number is None else number


def _hand_size(sheet: Sheet) -> int | None:
    """Cards in a hand after pressing at this table (None: no fixed size)."""
    ruleset = sheet.ruleset
    try:
        return hand_size(ruleset, players_dealt_in(ruleset))
    except RulesError:
        return None


def entry_context(
    match: Match,
    sheet: Sheet,
    form: HandForm | None = None,
    *,
    hand: Hand | None = None,
    preview: Any = None,
    error: str | None = None,
    saved_row: Any = None,
) -> dict[str, Any]:
    """What the match page and its fragments need.

    ``saved_row``: the sheet's row of a hand this very request saved; the page says
    so above the next hand's form, with an offer to undo it.

    An empty form for a new hand looks the same for every request at this version but
    for its CSRF token and idempotency key (``cache.fresh_form`` keeps it rendered
    and builds the WTForms form only when it has to render it), so none is built here.
    """
    fresh_form_ok = form is None and hand is None and preview is None and error is None
    entering = not sheet.finished and not sheet.ruleset.open_play
    if form is None and entering and not fresh_form_ok:
        form = hand_form(match, sheet)
    context: dict[str, Any] = {
        "match": match,
        "sheet": sheet,
        "form": form,
        "hand": hand,
        "preview": preview,
        "error": error,
        # the buttons of a finished match and of the two-player page
        "confirm": ConfirmForm(formdata=None, version=str(match.version))
        if sheet.finished or sheet.ruleset.open_play
        else None,
        "hand_size": _hand_size(sheet),
        "preset_of": PRESETS.get(sheet.ruleset.preset),
        "fresh_form_ok": fresh_form_ok,
        "idempotency_key": secrets.token_urlsafe(16),
        "saved_row": saved_row,
        "undo": ConfirmForm(formdata=None, version=str(match.version)) if saved_row else None,
        "target_note": _target_note(sheet),
    }
    if sheet.ruleset.open_play and not sheet.finished:
        context.update(two_player_context(match, sheet))
    return context


def _target_note(sheet: Sheet) -> str | None:
    """Why a match goes on although a party has passed the target (or None).

    The end rule is the rules' (:func:`scorer.rules.going_on_past_target` says who
    is there); here it is only put in words for the Schreiber.
    """
    ruleset = sheet.ruleset
    party = going_on_past_target(ruleset, sheet.totals, sheet.finished)
    if party is None:
        return None
    if ruleset.end == "with_game":
        return gettext(
            "%(name)s has reached %(target)s, but the match goes on: only a won game ends it.",
            name=sheet.parties[party],
            target=ruleset.target,
        )
    return gettext(
        "%(name)s has reached %(target)s, but the match goes on: a hand gone off does not end it.",
        name=sheet.parties[party],
        target=ruleset.target,
    )


def preview_of(match: Match, form: HandForm, parties: int, hand: Hand | None) -> dict[str, Any]:
    """Settle what was typed so far: the live result, or why it is not complete."""
    data = form.to_input(parties)
    try:
        settled = services.preview(match, data, hand)
    except RulesError as exc:
        return {"ok": False, "message": rules_message(exc), "data": data}
    return {"ok": True, "settled": settled, "data": data}


@bp.post("/m/<token:token>/hands/preview")
def preview(token: str) -> WerkzeugResponse:
    """The live result under the form (htmx, on every change)."""
    match = services.get_match(token)
    # the names and the rules are enough: no rows, so a long match answers as fast
    sheet = services.standing(match)
    hand_id = request.args.get("hand", type=int)
    hand = services.get_hand(match, hand_id) if hand_id else None
    form = hand_form(match, sheet, posted=True)
    return render(
        "hands/_preview.html",
        "hands/_preview.html",
        sheet=sheet,
        preview=preview_of(match, form, len(sheet.parties), hand),
    )


def _save(match: Match, hand: Hand | None) -> WerkzeugResponse:
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
                version=_version(form),
                idempotency_key=None if hand else (form.idempotency_key.data or "")[:64] or None,
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
        except ConflictError:
            status = 409
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
                return _fresh_page(match, saved)
            # a correction is made on its own page: back to the sheet (HX-Redirect for htmx)
            return go_to(url_for("matches.show", token=match.token))
    elif not form.asks_only:
        error = gettext("Please correct the marked fields.")
    if status == 409 and not reused:
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
    template = "hands/edit.html" if hand else "matches/show.html"
    fragment = "hands/_form.html"
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
        return _fresh_page(match, saved)
    new_row = services.last_row(top, saved)
    context = entry_context(match, top, saved_row=new_row)
    return swap_by_id(
        "matches/_saved.html",
        "matches/_saved.html",
        new_row=new_row,
        **context,
    )


def _fresh_page(match: Match, saved: Hand | None = None) -> WerkzeugResponse:
    """After a save over htmx: the whole match content, fresh (sheet, progress, new form)."""
    sheet = services.sheet(match)
    row = next((r for r in sheet.rows if saved is not None and r.hand.id == saved.id), None)
    return swap_by_id(
        "matches/show.html", "matches/_content.html", **entry_context(match, sheet, saved_row=row)
    )


def swap_by_id(
    page: str, fragment: str | None = None, status: int = 200, **context: Any
) -> WerkzeugResponse:
    """``render``, with htmx putting the fragment where its root element belongs.

    ``#match-content`` goes into ``#match``, which stays on the page while its
    content is swapped: a form whose answer arrives after the answer to another tap
    has replaced it still has its answer shown.  (A saved hand's ``#match-top``
    replaces the top of the page; the hand form that asks for it stays.)  The
    two-player forms aim at ``#match`` themselves and are not retargeted: htmx would
    look the target up from a form that may be gone by then.
    """
    response = render(page, fragment, status=status, **context)
    if is_htmx():
        top = fragment == "matches/_saved.html"
        target = "match-top" if top else "match"
        if request.headers.get("HX-Target") != target:
            response.headers["HX-Retarget"] = f"#{target}"
        swap = "outerHTML" if top else "innerHTML"
        if context.get("saved_row") is not None:
            # a saved hand: the totals, the saved row and who deals next come into view
            swap += " show:#entry:top"
        response.headers["HX-Reswap"] = swap
    return response


@bp.post("/m/<token:token>/hands")
def create(token: str) -> WerkzeugResponse:
    """Save a new hand."""
    return _save(services.get_match(token), None)


@bp.get("/m/<token:token>/hands/<int:hand_id>/edit")
def edit(token: str, hand_id: int) -> WerkzeugResponse:
    """The correction form of a saved hand."""
    match = services.get_match(token)
    hand = services.get_hand(match, hand_id)
    # a struck hand is restored before it is corrected (its update would be refused)
    if (
        hand.status != "closed"
        or hand.ended_mid_hand
        or hand.outcome == "open_play"
        or hand.deleted_at is not None
    ):
        abort(404)
    sheet = services.sheet(match)
    form = hand_form(match, sheet, hand)
    context = entry_context(
        match, sheet, form, hand=hand, preview=preview_of(match, form, len(sheet.parties), hand)
    )
    return render("hands/edit.html", **context)


@bp.post("/m/<token:token>/hands/<int:hand_id>")
def update(token: str, hand_id: int) -> WerkzeugResponse:
    """Save a correction; totals and the end of the match are recomputed."""
    match = services.get_match(token)
    hand = services.get_hand(match, hand_id)
    if hand.deleted_at is not None or hand.outcome == "open_play":
        abort(404)
    return _save(match, hand)


@bp.get("/m/<token:token>/hands/<int:hand_id>")
def detail(token: str, hand_id: int) -> WerkzeugResponse:
    """A hand with its meld breakdown and its history."""
    match = services.get_match(token)
    hand = services.get_hand(match, hand_id)
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


def _change(token: str, hand_id: int, action: str) -> WerkzeugResponse:
    match = services.get_match(token)
    hand = services.get_hand(match, hand_id)
    form = ConfirmForm()
    if not form.validate():
        abort(400)
    number = services.sheet(match).number_of(hand) if action == "delete" else None
    try:
        if action == "delete":
            services.delete_hand(match, hand, _version(form))
        else:
            services.restore_hand(match, hand, _version(form))
    except ConflictError:
        sheet = services.sheet(match)
        error = gettext(
            "Someone else changed this match in the meantime. Here is the current state."
        )
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
                number=number or "",
            ),
            "info",
        )
    # the buttons sit on the hand's own page (and under a saved hand): back to the sheet
    return go_to(url_for("matches.show", token=match.token))


@bp.post("/m/<token:token>/hands/<int:hand_id>/delete")
def delete(token: str, hand_id: int) -> WerkzeugResponse:
    """Strike a hand (it stays visible in the history)."""
    return _change(token, hand_id, "delete")


@bp.post("/m/<token:token>/hands/<int:hand_id>/restore")
def restore(token: str, hand_id: int) -> WerkzeugResponse:
    """Bring a struck hand back."""
    return _change(token, hand_id, "restore")


# -- two-player games -------------------------------------------------------


def two_player_context(
    match: Match,
    sheet: Sheet,
    *,
    meld_form: MeldEntryForm | None = None,
    tricks_form: TricksForm | None = None,
) -> dict[str, Any]:
    """Meld buttons and the trick form of an open two-player hand."""
    ruleset = sheet.ruleset
    melds_so_far = (
        services.open_hand_melds(sheet.open_hand, ruleset.parties)
        if sheet.open_hand
        else [0] * ruleset.parties
    )
    if meld_form is None:
        meld_form = MeldEntryForm(formdata=None)
        meld_form.version.data = str(match.version)
        meld_form.hand.data = str(sheet.hand_count + 1)
    meld_form.party.choices = choice_list((str(i), n) for i, n in enumerate(sheet.parties))
    trump = sheet.open_hand.trump if sheet.open_hand else None
    if meld_form.trump.data in ("E", "G", "H", "S"):
        trump = meld_form.trump.data
    meld_form.trump.data = trump
    names = available_melds(ruleset, trump)
    meld_form.meld.choices = choice_list((n, n) for n in names)
    if tricks_form is None:
        tricks_form = TricksForm(formdata=None)
        tricks_form.version.data = str(match.version)
        while len(tricks_form.parties) < ruleset.parties:
            tricks_form.parties.append_entry()
    return {
        "meld_form": meld_form,
        "tricks_form": tricks_form,
        "melds_so_far": melds_so_far,
        # the progress bars follow the melds written so far (the sheet's own totals do not)
        "progress_sheet": services.live_sheet(sheet),
        "logged": len(sheet.open_hand.meld_log) if sheet.open_hand else 0,
        "close_early": ruleset.end == "at_once",
        "meld_names": names,
        "meld_values": {n: offered_points(n, trump, ruleset) for n in names},
        "trump": trump,
        "live_totals": services.live_totals(sheet),
    }


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
            return _fresh_page(match)
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
        services.remove_meld(match, entry_id, _version(form))
    except ConflictError:
        # a stale page still takes its meld back (the id names it); the fresh page shows the state
        services.remove_meld(match, entry_id)
    if is_htmx():
        return _fresh_page(match)
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
            _version(form),
            ended_early=bool(form.ended_early.data),
            hand_number=_hand_number(form),
        ),
        tricks_form=form,
    )
