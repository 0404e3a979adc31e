"""A table phone and the laptop that serves it now: what the laptop holds, the phone's deals
sent again, and a phone's report of a table this laptop does not have.

``static/witness.js`` on a table's page asks ``GET /m/<token>/witness`` every few
seconds (and whenever the connection comes back): 204 while nothing changed since its
last answer (``?tag=``), else what the laptop holds of the table — the keys of its
hands, whether its round is closed, which laptop this is (:func:`laptop_id`: a page of
another laptop carries form tokens this one refuses, so the phone loads its page
again) and a CSRF token for what the phone sends next.  Deals the laptop lacks it
sends with ``POST /m/<token>/witness`` (:mod:`scorer.services.tournaments.witness`:
each stored once, at its place); those refused are kept as the phone's report
(:mod:`scorer.services.tournaments.phone_reports`).  A link this laptop does not know
answers 404 with ``"table": "missing"`` (``"replaced"`` for a replaced link) and the
state of the phone's report, which the phone sends with ``POST
/m/<token>/witness/report``.  Every answer is JSON; every refusal says why in the
user's language.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from flask import Blueprint, current_app, jsonify, request, url_for
from flask_babel import gettext, ngettext
from flask_wtf.csrf import generate_csrf
from werkzeug.wrappers import Response as WerkzeugResponse

from ... import services
from ...forms import whole_number
from ...forms.witness import MAX_DEALS, KeptDeal, NotDeals, entry_at, kept_deals
from ...models import Match, utcnow
from ...services import NotFound, Sheet, storable
from ...services.tournaments import phone_reports, tables, witness
from ...services.tournaments.port import replaced_link
from ...services.tournaments.tables import TableHeader
from ...words import OUTCOME_CHOICES, SUITS, local_time

bp = Blueprint("t_phones", __name__)

MAX_BODY = 96 * 1024
"""Bytes of one resend or report: a round's deals with room (a deal is about 600)."""
MAX_NAME = 40


def laptop_id() -> str:
    """Which laptop answers: a short hash of its secret key, which signs the pages' form
    tokens (a page of a laptop with another key cannot send anything to this one)."""
    secret = str(current_app.config.get("SECRET_KEY") or "")
    return hashlib.sha256(f"scorer-laptop/{secret}".encode()).hexdigest()[:12]


def _json(data: dict[str, Any], status: int = 200) -> WerkzeugResponse:
    response = jsonify(data)
    response.status_code = status
    response.cache_control.no_store = True
    response.cache_control.private = True
    return response


def _refused(message: str, status: int = 400) -> WerkzeugResponse:
    return _json({"error": message}, status)


# -- the page's part --------------------------------------------------------------------


@bp.app_template_global("witness_page")
def witness_page(match: Match, sheet: Sheet, header: TableHeader) -> dict[str, Any]:
    """What a table's page tells ``static/witness.js``: where to ask, which laptop and
    table this is, and the words for its notes and for the deals it keeps."""
    return {
        "token": match.token,
        "held": url_for("t_phones.held", token=match.token),
        "report": url_for("t_phones.report", token=match.token),
        "laptop": laptop_id(),
        "view": header.view_token,
        "tournament": header.tournament,
        "round": header.round,
        "table": header.table,
        "players": [p.name for p in header.players],
        "parties": list(sheet.parties),
        "seats": list(sheet.seat_names),
        "suits": {letter: str(name) for letter, name in SUITS.items()},
        "outcomes": {value: str(label) for value, label in OUTCOME_CHOICES},
        "words": _page_words(header),
    }


def _page_words(header: TableHeader) -> dict[str, str]:
    """The phone's notes in the page's language ({n}, {time}: filled in by the phone)."""
    where = gettext("Round %(round)s, table %(table)s", round=header.round, table=header.table)
    return {
        "stored_one": gettext(
            "The organiser's laptop lacked 1 deal of this table: this phone has sent it again."
        ),
        "stored_many": gettext(
            "The organiser's laptop lacked {n} deals of this table: this phone has sent them again."
        ),
        "new_laptop": gettext(
            "The organiser now works on another laptop; it has every deal of this table."
        ),
        "missing": gettext(
            "%(where)s is not on the organiser's laptop. This phone keeps its deals (below): "
            "please tell the organiser (Turnierleitung).",
            where=where,
        ),
        "replaced": gettext(
            "This table has a new link. This phone keeps the deals below that the laptop "
            "lacks: please tell the organiser (Turnierleitung)."
        ),
        "refused": gettext(
            "The organiser's laptop lacks deals this phone keeps and could not take them "
            "(below): please tell the organiser (Turnierleitung)."
        ),
        "reported": gettext("The organiser's page lists them (reported at {time})."),
        "no_tournament": gettext(
            "The laptop does not know this tournament: show the deals below to the organiser."
        ),
        "taken": gettext("The organiser has taken the deals of this phone in."),
        "set_aside": gettext("The organiser has dealt with the deals of this phone."),
        "deal": gettext("Deal {n}"),
        "unsent": gettext("not saved yet"),
        "struck": gettext("struck"),
        "melds": gettext("Melds"),
        "tricks": gettext("Tricks"),
        "won": gettext("won"),
        "lost": gettext("lost"),
        "heading": gettext("Deals kept on this phone"),
    }


# -- what the laptop holds ------------------------------------------------------------------


def _tag(state: witness.Held) -> str:
    """The answer's state: the laptop, the table's version, its round closed, its keys."""
    text = "|".join(
        [
            laptop_id(),
            str(state.version),
            "closed" if state.closed else "open",
            *(f"{seq}:{key}:{int(struck)}" for seq, key, struck in state.hands),
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _elsewhere(token: str) -> WerkzeugResponse:
    """The answer for a link this laptop has no table of."""
    return _json(
        {
            "table": "replaced" if replaced_link(token) is not None else "missing",
            "laptop": laptop_id(),
            "report": phone_reports.state_of_link(token),
            "csrf": generate_csrf(),
        },
        404,
    )


@bp.get("/m/<token:token>/witness")
def held(token: str) -> WerkzeugResponse:
    """What this laptop holds of the phone's table (204: the same as the phone's ``tag``)."""
    try:
        match = services.get_match(token)
    except NotFound:
        return _elsewhere(token)
    if tables.table_of_match(match.id) is None:
        return _json({"table": "none"}, 404)
    state = witness.held(match)
    tag = _tag(state)
    if request.args.get("tag") == tag:
        response = current_app.response_class(status=204)
        response.cache_control.no_store = True
        return response
    return _json(
        {
            "table": "here",
            "laptop": laptop_id(),
            "tag": tag,
            "version": state.version,
            "closed": state.closed,
            "hands": [[seq, key, struck] for seq, key, struck in state.hands],
            "csrf": generate_csrf(),
        }
    )


def _read_deals() -> list[KeptDeal] | WerkzeugResponse:
    """The deals a phone sent, or the answer refusing them."""
    if (request.content_length or 0) > MAX_BODY:
        return _refused(gettext("Too much at once: a phone sends one round's deals."), 413)
    try:
        deals = kept_deals(request.form)
    except NotDeals:
        return _refused(gettext("What was sent is not the deals of a table."))
    if not deals:
        return _refused(gettext("No deals were sent."))
    return deals


# -- the phone's deals sent again ------------------------------------------------------------


ANSWER_WORDS = {
    witness.Answer.STORED: lambda: gettext("sent again and saved"),
    witness.Answer.HELD: lambda: gettext("already on the laptop"),
    witness.Answer.TAKEN: lambda: gettext("another deal is in its place on the laptop"),
    witness.Answer.BEFORE: lambda: gettext("the laptop has another deal before it"),
    witness.Answer.GAP: lambda: gettext("a deal before it is missing on the laptop"),
    witness.Answer.REUSED: lambda: gettext("the laptop has another deal under its key"),
    witness.Answer.CLOSED: lambda: gettext("the round is closed"),
    witness.Answer.OVER: lambda: gettext("the table has played all its deals without it"),
    witness.Answer.REFUSED: lambda: gettext("not a valid deal at this table"),
    witness.Answer.BUSY: lambda: gettext("the laptop is busy: sent again in a moment"),
}


def answer_words(answer: str) -> str:
    """What became of a deal, in words (the organiser's page says it too)."""
    words = ANSWER_WORDS.get(witness.Answer(answer)) if answer in set(witness.Answer) else None
    return words() if words is not None else ""


@bp.post("/m/<token:token>/witness")
def resend(token: str) -> WerkzeugResponse:
    """Take in the deals the phone keeps that this laptop lacks, in order, each once.

    A link this laptop does not hold (a read-only link too) is answered before the body
    is read: nothing is taken through it."""
    try:
        match = services.get_match(token)
    except NotFound:
        return _elsewhere(token)
    deals = _read_deals()
    if not isinstance(deals, list):
        return deals
    if request.form.get("table") != token:
        return _refused(gettext("These deals were kept for another table."))
    table = tables.table_of_match(match.id)
    if table is None:
        return _json({"table": "none"}, 404)
    sheet = services.standing(match)
    read: list[witness.Deal] = []
    unreadable: dict[str, witness.Outcome] = {}
    for kept in deals:
        entry = entry_at(kept.fields, match, sheet)
        if entry is None:
            unreadable[kept.key] = witness.Outcome(kept.key, kept.seq, witness.Answer.REFUSED)
        else:
            read.append(witness.Deal(kept.key, kept.seq, entry, kept.struck, kept.after))
    done = {o.key: o for o in witness.resend(match, read)}
    outcomes = [done.get(k.key) or unreadable[k.key] for k in deals]
    lacking = [
        (kept, outcome)
        for kept, outcome in zip(deals, outcomes, strict=True)
        if outcome.answer not in witness.ACCEPTED and outcome.answer != witness.Answer.BUSY
    ]
    reported = False
    if lacking:
        reported = _keep_report(
            table.round.tournament,
            token,
            table.round.number,
            table.number,
            list(sheet.seat_names),
            lacking,
            "refused",
        )
    stored = sum(1 for o in outcomes if o.answer == witness.Answer.STORED)
    return _json(
        {
            "table": "here",
            "laptop": laptop_id(),
            "stored": stored,
            "reported": reported,
            "outcomes": [
                {"key": o.key, "answer": str(o.answer), "words": answer_words(o.answer)}
                for o in outcomes
            ],
        }
    )


def _keep_report(
    tournament: Any,
    token: str,
    round_number: int,
    table_number: int,
    players: list[str],
    lacking: Sequence[tuple[KeptDeal, witness.Outcome | None]],
    why: str,
) -> bool:
    """Keep the phone's report; False when the tournament has too many open ones."""
    deals = [
        phone_reports.Reported(
            key=kept.key,
            seq=kept.seq,
            deal=kept.deal,
            struck=kept.struck,
            told=kept.told,
            why=str(outcome.answer) if outcome is not None else "",
            fields=kept.fields,
            after=kept.after or "",
        )
        for kept, outcome in lacking
    ]
    try:
        phone_reports.report(
            tournament,
            token=token,
            round_number=round_number,
            table_number=table_number,
            players=players,
            deals=deals,
            why=why,
        )
    except phone_reports.TooManyReports:
        return False
    return True


# -- a report of a table this laptop does not have -----------------------------------------


def _read_only(token: str) -> bool:
    """Whether ``token`` is one of this laptop's read-only links."""
    for read in (services.get_match_for_view, services.get_session_for_view):
        try:
            read(token)
        except NotFound:
            continue
        return True
    return False


@bp.post("/m/<token:token>/witness/report")
def report(token: str) -> WerkzeugResponse:
    """Keep what the phone of a table this laptop does not have holds, for the organiser.

    A read-only link of this laptop (a match's or a session's) is no table's link: it
    is answered 404 before the body is read, as every route answers such a link."""
    if _read_only(token):
        return _json({"table": "read-only"}, 404)
    deals = _read_deals()
    if not isinstance(deals, list):
        return deals
    try:
        match = services.get_match(token)
    except NotFound:
        pass
    else:
        if tables.table_of_match(match.id) is not None:
            # the table is here: the phone sends its deals again instead
            return _json({"table": "here"}, 409)
    tournament = phone_reports.get_tournament_by_view(str(request.form.get("view", ""))[:40])
    if tournament is None:
        return _json(
            {
                "tournament": "missing",
                "error": gettext("This laptop does not know the tournament."),
            },
            404,
        )
    round_number = whole_number(request.form.get("round", ""))
    table_number = whole_number(request.form.get("table", ""))
    players = request.form.getlist("player")
    if (
        round_number is None
        or table_number is None
        or not 0 < round_number <= 100
        or not 0 < table_number <= 10_000
        or not 0 < len(players) <= 8
        or not all(0 < len(p) <= MAX_NAME and storable(p) for p in players)
    ):
        return _refused(gettext("What was sent does not name a round, a table and its players."))
    why = "replaced" if replaced_link(token) is not None else "missing"
    kept = _keep_report(
        tournament,
        token,
        round_number,
        table_number,
        players,
        [(deal, None) for deal in deals[:MAX_DEALS]],
        why,
    )
    if not kept:
        return _refused(
            gettext("The organiser's list of phones is full: show the deals to the organiser."),
            503,
        )
    return _json(
        {
            "report": "open",
            "at": local_time(utcnow()),
            "words": ngettext(
                "1 deal reported to the organiser.",
                "%(num)s deals reported to the organiser.",
                len(deals),
            ),
        }
    )
