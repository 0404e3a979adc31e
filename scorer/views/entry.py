"""The match page's entry part: the hand form with its live preview, the two-player
meld panel, and the htmx answers that put a fresh page in place after a change.

Shared by the hand routes (:mod:`.hands`), the two-player routes (:mod:`.two_player`),
the match page (:mod:`.matches`) and the meld calculator (:mod:`.melds`).
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import flash, request, url_for
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
    BID_OUTCOMES,
    PRESETS,
    RulesError,
    available_melds,
    going_on_past_target,
    hand_size,
    offered_points,
    players_dealt_in,
)
from ..services import Sheet
from ..services.tournaments.port import replaced_by_organiser, table_header
from ..web import REPLACED_NOTICE_AT, go_to, is_htmx, render
from ..words import rules_message


def version_of(form: Any) -> int | None:
    """The version the page showed; None when it sent none.  A version that is no
    whole number names no state of the match (-1): the change is refused as stale."""
    raw = form.version.data if hasattr(form, "version") else None
    if raw in (None, ""):
        return None
    number = whole_number(raw)
    return -1 if number is None else number


def locked_message() -> str:
    """Why a locked match (a table of a closed tournament round) takes no change."""
    return gettext(
        "This round of the tournament is closed: this table's phone writes nothing more. "
        "What was saved before is kept; tell the organiser what is missing."
    )


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
        # a table of a tournament: its round, table, deal and the players' confirmations
        "tournament_table": table_header(match),
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
    """Settle what was typed so far: the live result, or why it is not complete.

    ``doubt``: why the bid looks wrong, shown beside it (HandForm.bid_doubt).  A bid the
    form refused as typed is that message, never the settlement of a bid of 0.
    """
    data = form.to_input(parties)
    doubt = form.bid_doubt()
    if form.bid.errors and data.outcome in BID_OUTCOMES:
        return {"ok": False, "message": str(form.bid.errors[0]), "data": data, "doubt": doubt}
    try:
        settled = services.preview(match, data, hand)
    except RulesError as exc:
        message = rules_message(exc)
        party = exc.params.get("party")
        if isinstance(party, int):  # a meld total: every party's, by name
            message = " · ".join(
                form.party_said(number, rules_message(e))
                for number, e in form.meld_errors(exc, party)
            )
        return {"ok": False, "message": message, "data": data, "doubt": doubt}
    return {"ok": True, "settled": settled, "data": data, "doubt": doubt}


def fresh_page(match: Match, saved: Hand | None = None) -> WerkzeugResponse:
    """After a save over htmx: the whole match content, fresh (sheet, progress, new form)."""
    sheet = services.sheet(match)
    row = next((r for r in sheet.rows if saved is not None and r.hand.id == saved.id), None)
    return swap_by_id(
        "matches/show.html", "matches/_content.html", **entry_context(match, sheet, saved_row=row)
    )


def resent_save(token: str) -> WerkzeugResponse | None:
    """A save resent through a table link the organiser has replaced since: answered as saved.

    The phone saved a hand and its answer was lost; the organiser gave the table a new
    link (the phone looked dead); the phone's queue sends the same form again with the
    same key.  The hand is on the sheet, and the answer says so: over htmx a 200 with
    the link's notice and the hand named (the queue, ``static/scorer.js``, forgets a
    hand answered with a success), without htmx a redirect to the old link's page with
    the same words.  The new link is never shown.  Anything else sent through the old
    link (another hand, a changed one, a key that saved nothing) gets None: the
    link's notice as a refusal (``scorer.web``).
    """
    old = replaced_by_organiser(token)
    if old is None:
        return None
    match = old.match
    sheet = services.standing(match)
    form = hand_form(match, sheet, posted=True)
    key = form.idempotency_key.data
    if not key or not form.validate():
        return None
    hand = services.saved_with_key(match, form.to_input(len(sheet.parties)), key)
    if hand is None:
        return None
    number = services.sheet(match).number_of(hand) or hand.seq
    saved = gettext(
        "Hand %(number)s was saved before this link was replaced: it is on the sheet, and "
        "the new phone shows it. Do not enter it again.",
        number=number,
    )
    if not is_htmx():
        flash(saved, "ok")
        return go_to(url_for("matches.show", token=token))
    response = render(
        "tournaments/table/replaced.html", "tournaments/table/_replaced.html", link=old, saved=saved
    )
    response.headers["HX-Retarget"] = REPLACED_NOTICE_AT
    response.headers["HX-Reswap"] = "innerHTML show:window:top"
    return response


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
