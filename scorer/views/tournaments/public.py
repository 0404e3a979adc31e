"""The public link (TOURNAMENT.md section 3): the beamer's ranking, the seating, a player's page.

Everything here is a GET and reads by ``view_token`` only.  Each page polls
its changing part (``…/live``): the beamer every few seconds (a saved hand
shows within 5 s), the players' phones every 30 s.

Every answer comes from the tournament's public build that all processes share
(:mod:`~scorer.services.tournaments.published`, read at most every half second
per link and process).  A page's poll is tagged with the fingerprint of exactly
what it shows (:mod:`~scorer.services.tournaments.public_pages`: a page of the
ranking, a player's own line and table), so a poll whose page reads the same
after a hand saved elsewhere in the hall is a 204 (``?shown=``) or 304, and a
changed one is rendered once per build and process.  The poll paths never
open the session cookie (``scorer.web``'s ``_POLL_PATH``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, abort, current_app, request, url_for
from flask_babel import get_locale
from werkzeug.wrappers import Response as WerkzeugResponse

from ...house_rules import rules_page
from ...rules import RulesError, points_step
from ...rules.tournament import lost_game_fee
from ...services.tournaments import public_pages, published, setup
from ...services.tournaments import seating as seats
from ...services.tournaments.published import Shown
from ...web import go_to, render
from ..polls import conditional, etag, qr_svg, read_only, utc
from .links import external_url

bp = Blueprint("t_public", __name__)

BEAMER_POLL = "every 3s"
"""How often the beamer and the ranking ask (a saved hand must show within 5 s)."""

PHONE_POLL = "every 30s"
"""How often a player's phone asks (seating and own page change once a round, mostly)."""


def _shown(view_token: str) -> Shown:
    now = published.shown(view_token)
    if now is None:
        abort(404)
    return now


def _whole_number(name: str) -> int | None:
    raw = request.args.get(name, "")
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else None


View = Callable[[Shown], Any]
"""A page's value (``public_pages``) from what is shown now."""


def _context(view_token: str, now: Shown, key: tuple[Any, ...], view: Any) -> dict[str, Any]:
    """What a public page's template gets: its value, the link, its poll's ``shown``."""
    tag = f"{key}/{now.published.once(('digest', key), lambda: public_pages.digest(view))}"
    return {
        "view": view,
        "series": now.standings.series,
        "name": now.standings.name,
        "view_token": view_token,
        "tag": tag,
        # what the page shows, in the URL it polls: the same again is a 204
        "shown": etag(tag),
    }


def _page(view_token: str, key: tuple[Any, ...], make: View, template: str, **extra: Any) -> Any:
    """A whole public page (or its fragment for htmx) as it is now."""
    now = _shown(view_token)
    view = now.published.once(("view", key), lambda: make(now))
    context = _context(view_token, now, key, view)
    return read_only(render(f"{template}.html", _fragment(template), **context, **extra))


def _poll(view_token: str, key: tuple[Any, ...], make: View, template: str, **extra: Any) -> Any:
    """The page's changing part, or 204/304 when the page already shows what it would.

    The fingerprint of the page is made once per build and process; a page
    that changed is rendered once per build, process and language.
    """
    now = _shown(view_token)
    view = now.published.once(("view", key), lambda: make(now))
    context = _context(view_token, now, key, view)

    def build() -> WerkzeugResponse:
        html = now.published.once(
            ("html", key, str(get_locale())),
            lambda: render(_fragment(template), **context, **extra).get_data(as_text=True),
        )
        return Response(html, mimetype="text/html")

    return conditional(context["tag"], utc(now.published.built_at), build)


def _fragment(template: str) -> str:
    head, _, name = template.rpartition("/")
    return f"{head}/_{name}.html"


# -- the ranking (the beamer, and the phones) ------------------------------------

RANKING = "tournaments/public/ranking"


def _ranking_key() -> tuple[Any, ...]:
    """Which page, how many lines to a page, and whether the beamer asks (it says ``rows``)."""
    rows = _whole_number("rows")
    phone = int(current_app.config.get("PUBLIC_PAGE_ROWS", public_pages.PHONE_ROWS))
    size = public_pages.clamp_rows(rows if rows is not None else phone)
    return ("ranking", _whole_number("page") or 1, size, rows is not None)


def _ranking(key: tuple[Any, ...]) -> View:
    _, page, rows, beamer = key
    return lambda now: public_pages.ranking_view(now.standings, page, rows, beamer=beamer)


@bp.get("/p/<token:view_token>")
def ranking(view_token: str) -> WerkzeugResponse:
    """The live ranking, a page at a time: the beamer asks as many lines as fit its screen
    (``?rows=``) and turns the pages; a phone shows 50 lines and pages by links."""
    key = _ranking_key()
    return _page(view_token, key, _ranking(key), RANKING, poll=BEAMER_POLL)


@bp.get("/p/<token:view_token>/live")
def ranking_live(view_token: str) -> WerkzeugResponse:
    """A page of the ranking's changing part (polled; 204/304 when it reads the same)."""
    key = _ranking_key()
    return _poll(view_token, key, _ranking(key), RANKING, poll=BEAMER_POLL)


# -- where do I sit? -----------------------------------------------------------

SEATING = "tournaments/public/seating"
_SEATING_KEY = ("seating",)


def _seating(now: Shown) -> public_pages.SeatingView:
    return public_pages.seating_view(now.standings)


@bp.get("/p/<token:view_token>/seats")
def seating(view_token: str) -> WerkzeugResponse:
    """The current round's seating, alphabetical by name and by table."""
    return _page(view_token, _SEATING_KEY, _seating, SEATING, poll=PHONE_POLL)


@bp.get("/p/<token:view_token>/seats/live")
def seating_live(view_token: str) -> WerkzeugResponse:
    """The seating's changing part (polled; 204/304 when unchanged)."""
    return _poll(view_token, _SEATING_KEY, _seating, SEATING, poll=PHONE_POLL)


# -- a player's page, and finding it -----------------------------------------

PLAYER = "tournaments/public/player"
FIND = "tournaments/public/find.html"


def _player(number: int) -> View:
    return lambda now: public_pages.player_view(now.standings, number)


def _printable(typed: str) -> str:
    """What was typed, as the form shows it again (no control characters, not too long)."""
    return "".join(c for c in typed if c.isprintable())[:20]


def _find_page(view_token: str, typed: str, status: int) -> WerkzeugResponse:
    """The name list with the start-number form; ``typed`` and status 4xx: nobody has it."""
    now = _shown(view_token)
    players = now.published.once(("listed",), lambda: seats.listed(now.standings))
    context = {
        "name": now.standings.name,
        "view_token": view_token,
        "players": players,
        "typed": typed,
        "unknown": status != 200,
    }
    return read_only(render(FIND, status=status, **context))


@bp.get("/p/<token:view_token>/players/<int:number>")
def player(view_token: str, number: int) -> WerkzeugResponse:
    """A player's own page: table and seat this round, points per round, place.

    A start number nobody has: the name list, saying so (status 404).
    """
    if public_pages.player_view(_shown(view_token).standings, number).me is None:
        return _find_page(view_token, _printable(str(number)), 404)
    return _page(
        view_token, ("player", number), _player(number), PLAYER, poll=PHONE_POLL, number=number
    )


@bp.get("/p/<token:view_token>/players/<int:number>/live")
def player_live(view_token: str, number: int) -> WerkzeugResponse:
    """A player's page's changing part (polled; 204/304 when unchanged)."""
    return _poll(
        view_token, ("player", number), _player(number), PLAYER, poll=PHONE_POLL, number=number
    )


@bp.get("/p/<token:view_token>/me")
def find(view_token: str) -> WerkzeugResponse:
    """Pick your name from the list or type your start number; it leads to your page.

    A start number nobody has, or junk, says so and keeps what was typed (422).
    """
    typed = request.args.get("number")
    if typed is None:
        return _find_page(view_token, "", 200)
    number = seats.start_number(typed)
    if number is not None and seats.player_page(_shown(view_token).standings, number) is not None:
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
