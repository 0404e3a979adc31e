"""The tournament's money: who owes what, the cash desk's "paid", the prize fund and the prizes.

``/t/<token>/money`` (organiser): every player checked in with the entry fee,
the lost games and their money per round and in total, what they owe, and a
tap "paid" (htmx swaps the line and the totals; without JavaScript the form
posts and the page comes back at the line).  ``/t/<token>/prizes``
(organiser): what the organiser keeps, where the lost-game money goes, the
prizes (shares of the fund or a prize table, a joke prize for the last place)
and the prize list they make.  ``/p/<view_token>/prizes`` (public, read-only):
the prize list, "provisional" until the last round is closed.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from ...forms.tournament_money import PaidForm, PrizeForm
from ...rules import RulesError
from ...services.tournaments import entrants, money, published, setup, standings
from ...services.tournaments.money import AmountChanged, Ledger
from ...tournament_models import Tournament
from ...web import go_to, is_htmx, render
from ...words import fund_note, percent, rules_message
from ...words import money as euros
from ..polls import conditional
from ..public_pages import hall_shown
from .links import external_url

bp = Blueprint("t_money", __name__)

SHOWS = ("all", "open")
"""The money list shows every player, or only those who still owe something."""


def _way(tournament: Tournament) -> dict[str, Any]:
    """The organiser's way around from the money pages."""
    return {
        "tournament": tournament,
        "home_url": url_for("t_organiser.home", token=tournament.token),
        "money_url": url_for("t_money.index", token=tournament.token),
        "prizes_url": url_for("t_money.prizes", token=tournament.token),
    }


# -- who owes what ---------------------------------------------------------------------------


def _filters() -> tuple[str, str]:
    query = request.args.get("q", "")[: entrants.MAX_NAME]
    show = request.args.get("show", "all")
    return query, show if show in SHOWS else "all"


def _back(tournament: Tournament, anchor: str = "") -> str:
    """The money page again with the search and filter the organiser had."""
    query, show = _filters()
    args: dict[str, Any] = {"q": query or None, "show": None if show == "all" else show}
    return url_for("t_money.index", token=tournament.token, **args) + anchor


def _money_context(tournament: Tournament, ledger: Ledger) -> dict[str, Any]:
    query, show = _filters()
    found = {e.id for e in entrants.search(tournament.entrants, query)}
    shown = [
        a
        for a in ledger.accounts
        if a.entrant_id in found and (show == "all" or a.outstanding_cents or a.refund_cents)
    ]
    return {
        **_way(tournament),
        "ledger": ledger,
        "fund": ledger.fund,
        "fund_note": fund_note(ledger.fund),
        "accounts": shown,
        "query": query,
        "show": show,
        "examples": money.fee_examples(tournament, (4, 6)),
    }




@bp.get("/t/<token:token>/money")
def index(token: str) -> WerkzeugResponse:
    """Who owes what: entry fee, lost-game money per round and in total, paid or not."""
    tournament = setup.get_tournament(token)
    context = _money_context(tournament, money.ledger(tournament))
    return render("tournaments/money/index.html", "tournaments/money/_list.html", **context)


@bp.post("/t/<token:token>/money/<int:entrant_id>")
def pay(token: str, entrant_id: int) -> WerkzeugResponse:
    """The cash desk's tap: paid (the amount the page showed) or not paid after all.

    A second tap changes nothing; an amount that changed since the page was
    loaded is refused with the new amount (409).  htmx gets the line and the
    totals, a browser without JavaScript the page again at the line.
    """
    tournament = setup.get_tournament(token)
    entrant = entrants.entrant_of(tournament, entrant_id)
    form = PaidForm()
    error, status = None, 200
    if not form.validate():
        error, status = gettext("This tap could not be read. Reload the page and try again."), 422
    else:
        try:
            if form.action.data == "paid":
                money.mark_paid(tournament, entrant.id, form.cents.data or 0)
            else:
                money.mark_unpaid(tournament, entrant.id)
        except AmountChanged as exc:
            error, status = (
                gettext(
                    "%(name)s owes %(owed)s now, not %(shown)s: a result was changed. "
                    "Check the amount and tap again.",
                    name=entrant.name,
                    owed=euros(exc.owed_cents),
                    shown=euros(exc.shown_cents),
                ),
                409,
            )
        except RulesError as exc:
            error, status = rules_message(exc), 422
    if is_htmx():
        ledger = money.ledger(tournament)
        account = ledger.account(entrant.id)
        if account is None:
            abort(404)
        return render(
            "tournaments/money/_row_swap.html",
            status=status,
            account=account,
            row_error=error,
            **_money_context(tournament, ledger),
        )
    if error:
        flash(error, "error")
    return go_to(_back(tournament, f"#a-{entrant.id}"))


# -- the prizes ------------------------------------------------------------------------------


def _prize_context(tournament: Tournament, current: standings.Standings) -> dict[str, Any]:
    """The prize list of ``current``'s ranking, its shares and its fund in words."""
    plist = money.prize_list(tournament, current)
    return {
        "plist": plist,
        "share_words": [percent(int(share * money.HUNDRED_PERCENT)) for share in plist.shares],
        "fund_note": fund_note(plist.fund),
    }


@bp.route("/t/<token:token>/prizes", methods=["GET", "POST"])
def prizes(token: str) -> WerkzeugResponse:
    """The money settings and the prize list they make (as the ranking stands now)."""
    tournament = setup.get_tournament(token)
    posted = request.method == "POST"
    form = PrizeForm() if posted else PrizeForm(formdata=None)
    error = None
    if not posted:
        form.fill(money.settings_of(tournament))
    elif form.validate():
        try:
            money.update_prizes(tournament, form.settings())
        except RulesError as exc:
            error = rules_message(exc)
        else:
            flash(gettext("The prize settings are saved."), "ok")
            return go_to(url_for("t_money.prizes", token=tournament.token) + "#prize-list")
    else:
        error = gettext("Please correct the marked fields.")
    return render(
        "tournaments/money/prizes.html",
        status=422 if error else 200,
        form=form,
        error=error,
        **_prize_context(tournament, published.fresh_standings(tournament.id)),
        public_prizes_url=external_url(
            tournament, "t_money.public_prizes", view_token=tournament.view_token
        ),
        **_way(tournament),
    )


@bp.get("/p/<token:view_token>/prizes")
def public_prizes(view_token: str) -> WerkzeugResponse:
    """The prize list for everybody (read-only): "provisional" until the last round is closed.

    Built once per state of the tournament (the public pages' poll tag); a
    reload of an unchanged list is a 304.
    """
    now = hall_shown(view_token)
    if now is None:
        abort(404)
    state = now.state

    def build() -> WerkzeugResponse:
        tournament = setup.get_tournament_for_view(view_token)
        current = now.standings
        return render(
            "tournaments/money/public.html",
            tournament=tournament,
            view_token=view_token,
            **_prize_context(tournament, current),
        )

    return conditional(f"{state.tag}/prizes", state.last_modified, build)
