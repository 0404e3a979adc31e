"""The organiser's list of what the table phones hold that this laptop lacks.

``/t/<token>/phones`` lists the open reports (``services.tournaments.phone_reports``)
per round and table: which phone link reported, when, why (the table is not on this
laptop, its link was replaced, the laptop refused deals), each deal in words with
what the laptop has of it.  "Take in" writes the missing deals into the table the
report names here — or a table of the same round with the same players in the same
seats — each at its place, as the phone's own resend would; "Set aside" settles a
report the organiser dealt with otherwise (a paper slip typed from the phone's list).
The organiser's start page says how many reports are open (:func:`open_reports`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, request, url_for
from flask_babel import gettext, ngettext
from werkzeug.wrappers import Response as WerkzeugResponse

from ... import services
from ...forms import ConfirmForm, whole_number
from ...forms.witness import entry_at, entry_of
from ...rules import RulesError, Ruleset
from ...services.tournaments import phone_reports, setup, witness
from ...services.tournaments.phone_reports import Listed, Reported
from ...tournament_models import Tournament
from ...web import go_to, render
from ...words import OUTCOME_CHOICES, suit_name
from .phones import answer_words
from .shared import page_context, remember

bp = Blueprint("t_phone_reports", __name__)

_OUTCOMES = dict(OUTCOME_CHOICES)


@bp.app_template_global("open_phone_reports")
def open_reports(tournament: Tournament) -> int:
    """How many phones' reports the organiser's list shows (the start page's card)."""
    return len(phone_reports.listed(tournament))


def deal_words(deal: Reported, ruleset: Ruleset, names: list[str]) -> str:
    """A kept deal as the Schreiber entered it, in one line: who, bid, trump, how it went,
    the melds and the trick points per player."""
    entry = entry_of(deal.fields, ruleset, names)
    if entry is None:
        return gettext("(not a valid deal at this table)")
    parts: list[str] = []
    if entry.declarer is not None and entry.declarer < len(names):
        parts.append(names[entry.declarer])
    if entry.bid:
        parts.append(str(entry.bid))
    if entry.trump:
        parts.append(suit_name(entry.trump))
    if entry.outcome != "played":
        said = str(_OUTCOMES.get(entry.outcome, entry.outcome))
        if entry.won is not None:
            said += " " + (gettext("won") if entry.won else gettext("lost"))
        parts.append(said)
    melds = " / ".join(str(m or 0) for m in entry.melds)
    tricks = " / ".join("–" if t is None else str(t) for t in entry.tricks)
    return gettext(
        "%(game)s — melds %(melds)s · tricks %(tricks)s",
        game=" · ".join(parts) or "—",
        melds=melds,
        tricks=tricks,
    )


def _ruleset(tournament: Tournament, players: int) -> Ruleset | None:
    try:
        return setup.table_ruleset_of(tournament, players)
    except RulesError:
        return None


def _shown(tournament: Tournament, item: Listed) -> dict[str, Any]:
    """A report with its deals in words, for the page."""
    names = list(item.report.players)
    ruleset = _ruleset(tournament, len(names))
    return {
        "item": item,
        "deals": [
            {
                "deal": deal,
                "words": deal_words(deal, ruleset, names) if ruleset else "",
                "held": deal.key in item.holds,
                "why": answer_words(deal.why) if deal.why else "",
            }
            for deal in item.deals
        ],
    }


@bp.get("/t/<token:token>/phones")
def index(token: str) -> WerkzeugResponse:
    """What the phones hold that this laptop lacks, per round and table."""
    tournament = setup.get_tournament(token)
    remember(tournament.token)
    reports = [_shown(tournament, item) for item in phone_reports.listed(tournament)]
    return render(
        "tournaments/phones/index.html",
        **page_context(tournament, reports=reports, form=ConfirmForm(formdata=None)),
    )


def _listed(tournament: Tournament, report_id: int) -> Listed:
    found = phone_reports.get_report(tournament, report_id)
    for item in phone_reports.listed(tournament):
        if item.report.id == found.id:
            return item
    abort(404)  # all of it is on the laptop by now: nothing left to list


@bp.post("/t/<token:token>/phones/<int:report_id>/take")
def take(token: str, report_id: int) -> WerkzeugResponse:
    """Take the report's missing deals into the table chosen, each at its place."""
    tournament = setup.get_tournament(token)
    if not ConfirmForm().validate():
        abort(400)
    back = url_for("t_phone_reports.index", token=tournament.token)
    item = _listed(tournament, report_id)
    chosen = whole_number(request.form.get("table", ""))
    table = next((t for t in item.targets if t.id == chosen), None)
    if table is None:
        flash(
            gettext("This table cannot take the report's deals: choose one of the list."), "error"
        )
        return go_to(back)
    match = table.match
    sheet = services.standing(match)
    deals: list[witness.Deal] = []
    numbers = {deal.key: deal.deal for deal in item.deals}
    unplaced = 0
    for deal in item.missing:
        entry = entry_at(deal.fields, match, sheet)
        if entry is None or deal.seq <= 0:
            unplaced += 1
            continue
        deals.append(witness.Deal(deal.key, deal.seq, entry, deal.struck, deal.after or None))
    outcomes = phone_reports.take_in(tournament, item.report, table, deals)
    stored = sum(1 for o in outcomes if o.answer == witness.Answer.STORED)
    refused = [o for o in outcomes if o.answer not in witness.ACCEPTED]
    flash(
        ngettext(
            "%(num)s deal taken in at table %(table)s.",
            "%(num)s deals taken in at table %(table)s.",
            stored,
            table=table.number,
        ),
        "info",
    )
    if refused or unplaced:
        why = [
            gettext("deal %(deal)s: %(why)s", deal=numbers[o.key], why=answer_words(o.answer))
            for o in refused
        ]
        if unplaced:
            why.append(gettext("%(num)s without a known place", num=unplaced))
        message = gettext(
            "Not taken in: %(list)s. Enter them by hand on the table's sheet, or type the "
            "table's paper slip.",
            list="; ".join(why),
        )
        flash(message, "error")
    return go_to(back)


@bp.post("/t/<token:token>/phones/<int:report_id>/aside")
def aside(token: str, report_id: int) -> WerkzeugResponse:
    """The organiser dealt with the report otherwise: it is no longer listed."""
    tournament = setup.get_tournament(token)
    if not ConfirmForm().validate():
        abort(400)
    found = phone_reports.get_report(tournament, report_id)
    phone_reports.set_aside(found)
    flash(
        gettext(
            "Round %(round)s, table %(table)s: the phone's report is set aside.",
            round=found.round_number,
            table=found.table_number,
        ),
        "info",
    )
    return go_to(url_for("t_phone_reports.index", token=tournament.token))
