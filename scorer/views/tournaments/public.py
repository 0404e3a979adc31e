"""The public link (docs/rules.md section 13.4): the beamer's ranking, the seating, a player's page.

Everything here is a GET and reads by ``view_token`` only.  Each page polls
its changing part (``…/live``): the beamer every few seconds (a saved hand
shows within 5 s), the players' phones every 30 s.

Every answer comes from the tournament's public build that all processes share
(:mod:`~scorer.services.tournaments.published`, read at most every half second
per link and process); the pages themselves are :mod:`scorer.views.public_pages`'
(the same pages a hosted copy serves).  The poll paths never open the session
cookie (``scorer.web``'s ``_POLL_PATH``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response
from werkzeug.wrappers import Response as WerkzeugResponse

from ...house_rules import rules_page
from ...rules import points_step
from ...services.tournaments import money, setup
from ...services.tournaments.public_pages import Source
from ...services.tournaments.published import Published
from ...services.tournaments.restored import public_note_of
from ...web import render
from ..polls import qr_svg, read_only
from ..public_pages import PublicSite, add_public_pages, hall_shown
from .links import external_url

bp = Blueprint("t_public", __name__)


def _built(view_token: str) -> Source | None:
    now = hall_shown(view_token)
    return now.published if now is not None else None


def _restored(now: Source) -> dict[str, Any]:
    """A restore (or a spare's takeover) moved the pages back: they say so, with the time of
    the state, until a new round is drawn (read once per build)."""
    assert isinstance(now, Published)
    note = now.once(("restored",), lambda: public_note_of(now.tournament_id))
    if note is None:
        return {}
    return {"restored_stand": note.stand, "restored_how": note.how}


SITE = PublicSite("t_public", _built, _restored)
"""The hall's public pages, read from its shared build (``services.tournaments.published``)."""


add_public_pages(bp, "p", SITE)


@bp.get("/p/<token:view_token>/qr.svg")
def qr(view_token: str) -> Response:
    """The QR code the beamer shows: the public link's "find me" page, as phones reach it."""
    tournament = setup.get_tournament_for_view(view_token)
    return qr_svg(external_url(tournament, "t_public.find", view_token=tournament.view_token))


@bp.get("/p/<token:view_token>/rules")
def rules(view_token: str) -> WerkzeugResponse:
    """The tournament's rules page: how the evening runs and is ranked, then the game's rules.

    Where docs/rules.md section 13 is silent the app decided; the page says what (rounds,
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
            fees=money.fee_examples(tournament, (1, 4, 6)),
            slip_step=points_step(three),
            **rules_page(three),
        )
    )


