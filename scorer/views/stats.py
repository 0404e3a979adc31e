"""The evening at a glance: the players' statistics and the match's score chart.

``/s/<token>/stats`` counts one session (and, below it, every session this device
has opened); ``/stats`` counts the device's sessions alone.  ``/m/<token>/chart`` is the
match page's chart card again, asked for by ``static/app.js`` when a hand saved over
htmx left the open chart behind.  The counting is :mod:`scorer.services.stats`, the
chart's drawing :mod:`scorer.chart`.
"""

from __future__ import annotations

from flask import Blueprint
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
from ..chart import of_sheet
from ..web import render
from .recent import recent

bp = Blueprint("stats", __name__)


@bp.get("/s/<token:token>/stats")
def session_page(token: str) -> WerkzeugResponse:
    """One session's numbers per player, and the device's over all its sessions."""
    row = services.get_session(token)
    tokens = recent()
    if row.token not in tokens:
        tokens = [row.token, *tokens]
    return render(
        "stats/show.html",
        row=row,
        stats=services.session_stats(row),
        device=services.device_stats(tokens),
    )


@bp.get("/stats")
def device_page() -> WerkzeugResponse:
    """The numbers over every session this device has opened."""
    return render(
        "stats/show.html",
        row=None,
        stats=None,
        device=services.device_stats(recent()),
    )


@bp.get("/m/<token:token>/chart")
def chart(token: str) -> WerkzeugResponse:
    """The match's chart card, unfolded (the page's card asks for it after a new hand)."""
    match = services.get_match(token)
    return render(
        "stats/_chart_card.html",
        match=match,
        chart=of_sheet(services.sheet(match)),
    )
