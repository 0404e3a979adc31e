"""The public link (TOURNAMENT.md section 3): the beamer's ranking, the seating, a player's page.

Everything here is a GET and reads by ``view_token`` only.  Each page polls
its changing part (``…/live``): the beamer every few seconds (a saved hand
shows within 5 s), the players' phones every 30 s.  The poll's tag is
:func:`~scorer.services.tournaments.standings.poll_state` (one Core
statement), and :func:`~scorer.views.polls.conditional` answers 204 to a page
that already shows that state (``?shown=``) and 304 to a conditional GET, so
a hall full of phones watching costs almost nothing.  The poll paths never
open the session cookie (``scorer.web``'s ``_POLL_PATH``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, abort, request, url_for
from werkzeug.wrappers import Response as WerkzeugResponse

from ...house_rules import rules_page
from ...rules import RulesError, points_step
from ...rules.tournament import lost_game_fee
from ...services.tournaments import polls, setup, standings
from ...services.tournaments import seating as seats
from ...services.tournaments.standings import PollState, Standings
from ...web import go_to, render
from ..polls import conditional, etag, qr_svg, read_only
from .links import external_url

bp = Blueprint("t_public", __name__)

BEAMER_POLL = "every 3s"
"""How often the beamer asks (a saved hand must show within 5 s, the answer's way included)."""

PHONE_POLL = "every 30s"
"""How often a player's phone asks (seating and own page change once a round, mostly)."""

WAITING_SHOWN = 24
"""The most tables the beamer names as still playing (the furthest behind); the rest are counted."""


def _state(view_token: str) -> PollState:
    state = polls.recent_poll_state(view_token)
    if state is None:
        abort(404)
    return standings.settled(state)


Extra = Callable[[Standings], dict[str, Any]]
"""What a page adds to the shared context, from the standings."""


def _context(view_token: str, state: PollState, page: str, poll: str) -> dict[str, Any]:
    """What every public page's template gets: the tournament, its standings, the poll.

    ``state`` must have been read before: the standings are kept under its tag.
    """
    tournament = setup.get_tournament_for_view(view_token)
    return {
        "tournament": tournament,
        "standings": standings.standings(tournament, state.tag),
        "view_token": view_token,
        "poll": poll,
        # what the page shows, in the URL it polls: the same state again is a 204
        "shown": etag(f"{state.tag}/{page}"),
    }


def _page(view_token: str, page: str, poll: str, template: str, extra: Extra) -> WerkzeugResponse:
    """A whole public page (or its fragment for htmx) as it is now."""
    context = _context(view_token, _state(view_token), page, poll)
    context.update(extra(context["standings"]))
    return read_only(render(f"{template}.html", _fragment(template), **context))


def _poll(view_token: str, page: str, poll: str, template: str, extra: Extra) -> WerkzeugResponse:
    """The page's changing part, or 204/304 when the poll already shows this state.

    The tag is read first (one statement, no ORM rows); only a changed state
    loads the tournament, and its standings are built once per state and process.
    """
    state = _state(view_token)

    def build() -> WerkzeugResponse:
        context = _context(view_token, state, page, poll)
        context.update(extra(context["standings"]))
        return render(_fragment(template), **context)

    return conditional(f"{state.tag}/{page}", state.last_modified, build)


def _fragment(template: str) -> str:
    head, _, name = template.rpartition("/")
    return f"{head}/_{name}.html"


# -- the ranking (the beamer) --------------------------------------------------

RANKING = "tournaments/public/ranking"


def _ranking_extra(_: Standings) -> dict[str, Any]:
    return {"waiting_shown": WAITING_SHOWN}


@bp.get("/p/<token:view_token>")
def ranking(view_token: str) -> WerkzeugResponse:
    """The live ranking: for the beamer (large type, pages turning) and for any phone."""
    return _page(view_token, "ranking", BEAMER_POLL, RANKING, _ranking_extra)


@bp.get("/p/<token:view_token>/live")
def ranking_live(view_token: str) -> WerkzeugResponse:
    """The ranking's changing part (polled; 204/304 when unchanged)."""
    return _poll(view_token, "ranking", BEAMER_POLL, RANKING, _ranking_extra)


# -- where do I sit? -----------------------------------------------------------

SEATING = "tournaments/public/seating"


def _seating_extra(current: Standings) -> dict[str, Any]:
    return {"by_name": seats.by_name(current), "by_table": seats.by_table(current)}


@bp.get("/p/<token:view_token>/seats")
def seating(view_token: str) -> WerkzeugResponse:
    """The current round's seating, alphabetical by name and by table."""
    return _page(view_token, "seating", PHONE_POLL, SEATING, _seating_extra)


@bp.get("/p/<token:view_token>/seats/live")
def seating_live(view_token: str) -> WerkzeugResponse:
    """The seating's changing part (polled; 204/304 when unchanged)."""
    return _poll(view_token, "seating", PHONE_POLL, SEATING, _seating_extra)


# -- a player's page, and finding it -----------------------------------------

PLAYER = "tournaments/public/player"
FIND = "tournaments/public/find.html"


def _player_extra(number: int) -> Extra:
    return lambda current: {"me": seats.player_page(current, number), "number": number}


def _printable(typed: str) -> str:
    """What was typed, as the form shows it again (no control characters, not too long)."""
    return "".join(c for c in typed if c.isprintable())[:20]


def _find_page(view_token: str, typed: str, status: int) -> WerkzeugResponse:
    """The name list with the start-number form; ``typed`` and status 4xx: nobody has it."""
    context = _context(view_token, _state(view_token), "find", PHONE_POLL)
    context["players"] = seats.listed(context["standings"])
    context["typed"] = typed
    context["unknown"] = status != 200
    return read_only(render(FIND, status=status, **context))


@bp.get("/p/<token:view_token>/players/<int:number>")
def player(view_token: str, number: int) -> WerkzeugResponse:
    """A player's own page: table and seat this round, points per round, place.

    A start number nobody has: the name list, saying so (status 404).
    """
    context = _context(view_token, _state(view_token), f"player{number}", PHONE_POLL)
    context.update(_player_extra(number)(context["standings"]))
    if context["me"] is None:
        return _find_page(view_token, _printable(str(number)), 404)
    return read_only(render(f"{PLAYER}.html", _fragment(PLAYER), **context))


@bp.get("/p/<token:view_token>/players/<int:number>/live")
def player_live(view_token: str, number: int) -> WerkzeugResponse:
    """A player's page's changing part (polled; 204/304 when unchanged)."""
    return _poll(view_token, f"player{number}", PHONE_POLL, PLAYER, _player_extra(number))


@bp.get("/p/<token:view_token>/me")
def find(view_token: str) -> WerkzeugResponse:
    """Pick your name from the list or type your start number; it leads to your page.

    A start number nobody has, or junk, says so and keeps what was typed (422).
    """
    typed = request.args.get("number")
    if typed is None:
        return _find_page(view_token, "", 200)
    number = seats.start_number(typed)
    if number is not None:
        context = _context(view_token, _state(view_token), "find", PHONE_POLL)
        if seats.player_page(context["standings"], number) is not None:
            return go_to(url_for("t_public.player", view_token=view_token, number=number))
    return _find_page(view_token, _printable(typed), 422)


@bp.get("/p/<token:view_token>/qr.svg")
def qr(view_token: str) -> Response:
    """The QR code the beamer shows: the public link's "find me" page, as phones reach it."""
    tournament = setup.get_tournament_for_view(view_token)
    return qr_svg(external_url(tournament, "t_public.find", view_token=tournament.view_token))


@bp.get("/p/<token:view_token>/rules")
def rules(view_token: str) -> WerkzeugResponse:
    """The tournament's rules page: how the evening runs and is ranked, then the game's rules.

    Where TOURNAMENT.md is silent the app decided; the page says what (rounds,
    tables of four, the draw, ranking and tie-break, lost games, confirmations,
    late arrivals and withdrawals, paper slips).
    """
    tournament = setup.get_tournament_for_view(view_token)
    three = setup.ruleset_of(tournament)
    return read_only(
        render(
            "tournaments/public/rules.html",
            tournament=tournament,
            view_token=view_token,
            four=setup.table_ruleset_of(tournament, 4),
            fees=_fee_examples(tournament.fee_schedule),
            slip_step=points_step(three),
            **rules_page(three),
        )
    )


def _fee_examples(schedule: str) -> list[tuple[int, int]]:
    """What 1, 4 and 6 lost games cost on ``schedule``, in cents (the rules price them)."""
    try:
        return [(lost, int(lost_game_fee(lost, schedule) * 100)) for lost in (1, 4, 6)]
    except RulesError:
        return []
