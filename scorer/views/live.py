"""The read-only share links: a match or a whole session, updating itself, and its QR code.

Everything here is a GET and reads by ``view_token`` only, so a share link can
look but never change anything.  The pages poll a fragment every few seconds
(htmx).  The fragment's URL says which version the page shows (``?shown=``, the
fragment's ETag): while that is still current the answer is 204 No Content, which
htmx leaves alone, and a conditional GET gets 304 — so the phones and the TV
watching a table cost almost nothing and the page is only swapped when it changed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Blueprint, Response, abort, current_app, url_for
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
from ..models import GameSession, Match
from ..web import render
from .polls import conditional, etag, qr_svg, read_only, utc

bp = Blueprint("live", __name__)

# how often the read-only pages ask for news (the fragment's hx-trigger)
POLL = "every 3s"


def _match_context(match: Match) -> dict[str, Any]:
    later = [m for m in match.session.matches if m.number > match.number]
    sheet = services.sheet(match)
    return {
        "match": match,
        "sheet": sheet,
        # a two-player hand in play: the bars follow its melds, as on the Schreiber's page
        "progress_sheet": services.live_sheet(sheet),
        "next_match": later[0] if later else None,
        "poll": POLL,
        # what the page shows, in the URL it polls: the same state again is a 204
        "shown": etag(_tag(match.id, match.version, len(match.session.matches))),
    }


def _tag(match_id: int, version: int, matches: int) -> str:
    # the number of matches too: the fragment links to the next match once it exists
    return f"m{match_id}.v{version}.n{matches}"


@bp.get("/v/<token:view_token>")
def match(view_token: str) -> WerkzeugResponse:
    """A match, read-only: progress, who deals, the sheet; it updates itself."""
    row = services.get_match_for_view(view_token)
    return read_only(render("live/match.html", "live/_match.html", **_match_context(row)))


@bp.get("/v/<token:view_token>/sheet")
def match_sheet(view_token: str) -> WerkzeugResponse:
    """The part of the read-only match page that changes (polled; 204/304 when unchanged).

    The phones and the TV at a table ask every few seconds and nearly always get a
    204 (or a 304), so that path reads four values with one Core statement on a connection of
    its own (no ORM objects, no session cookie) and renders nothing.
    """
    state = services.poll_state(view_token, float(current_app.config["SHARE_POLL_KEEP"]))
    if state is None:
        abort(404)
    match_id, version, updated_at, matches = state

    def build() -> WerkzeugResponse:
        row = services.get_match_for_view(view_token)
        return render("live/_match.html", **_match_context(row))

    return conditional(_tag(match_id, version, matches), utc(updated_at), build)


def _session_context(row: GameSession) -> dict[str, Any]:
    matches = [(m, services.sheet(m)) for m in row.matches]
    return {
        "game_session": row,
        "matches": matches,
        "poll": POLL,
        "shown": etag(_session_tag(row)[0]),
    }


def _session_tag(row: GameSession) -> tuple[str, datetime]:
    versions = ",".join(f"{m.id}:{m.version}" for m in row.matches)
    changed = max([row.updated_at, *(m.updated_at for m in row.matches)])
    return f"s{row.id}[{versions}]", utc(changed)


@bp.get("/v/s/<token:view_token>")
def session(view_token: str) -> WerkzeugResponse:
    """A session, read-only: every match with its totals (a TV at the club)."""
    row = services.get_session_for_view(view_token)
    return read_only(render("live/session.html", "live/_session.html", **_session_context(row)))


@bp.get("/v/s/<token:view_token>/sheet")
def session_sheet(view_token: str) -> WerkzeugResponse:
    """The polled part of the read-only session page (204/304 when unchanged)."""
    row = services.get_session_for_view(view_token)
    tag, changed = _session_tag(row)
    return conditional(tag, changed, lambda: render("live/_session.html", **_session_context(row)))


@bp.get("/v/<token:view_token>/qr.svg")
def match_qr(view_token: str) -> Response:
    """The QR code of a match's read-only link."""
    row = services.get_match_for_view(view_token)
    return qr_svg(url_for("live.match", view_token=row.view_token, _external=True))


@bp.get("/v/s/<token:view_token>/qr.svg")
def session_qr(view_token: str) -> Response:
    """The QR code of a session's read-only link."""
    row = services.get_session_for_view(view_token)
    return qr_svg(url_for("live.session", view_token=row.view_token, _external=True))
