"""The read-only share links: a match or a whole session, updating itself, and its QR code.

Everything here is a GET and reads by ``view_token`` only, so a share link can
look but never change anything.  The pages poll a fragment every few seconds
(htmx).  The fragment's URL says which version the page shows (``?shown=``, the
fragment's ETag): while that is still current the answer is 204 No Content, which
htmx leaves alone, and a conditional GET gets 304 — so the phones and the TV
watching a table cost almost nothing and the page is only swapped when it changed.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import segno
from flask import Blueprint, Response, abort, current_app, make_response, request, url_for
from werkzeug.http import http_date, is_resource_modified
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
from ..models import GameSession, Match
from ..web import render
from ..words import select_locale

bp = Blueprint("live", __name__)

# how often the read-only pages ask for news (the fragment's hx-trigger)
POLL = "every 3s"


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC)


def _read_only(response: WerkzeugResponse) -> WerkzeugResponse:
    """Share links are not for search engines; every poll asks the server again."""
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    response.cache_control.private = True
    response.cache_control.no_cache = True
    return response


def _etag(tag: str) -> str:
    """The fragment's ETag (and ``?shown=`` value) for the state ``tag`` describes.

    It carries the language too: the same match reads differently in German.
    """
    # the selector's own answer ("de", "en"): the same text as str(get_locale()), without
    # parsing a babel Locale on the 204/304 path
    return hashlib.sha256(f"{tag}/{select_locale()}".encode()).hexdigest()[:20]


def _conditional(
    tag: str, last_modified: datetime, build: Callable[[], WerkzeugResponse]
) -> WerkzeugResponse:
    """``build()`` the response, or nothing when the client already shows this state.

    304 for a conditional GET whose copy is current; 204 when the page says (its
    ``?shown=``) that it shows this state — htmx does not swap a 204.
    """
    etag = _etag(tag)
    if not is_resource_modified(request.environ, etag=etag, last_modified=last_modified):
        return _unchanged(304, etag, last_modified)
    if request.args.get("shown") == etag:
        return _unchanged(204, etag, last_modified)
    response = build()
    # weak: the same fragment goes out gzip-, brotli- or zstd-compressed (and a strong
    # tag would get the encoding appended by Flask-Compress, so it would never match)
    response.set_etag(etag, weak=True)
    response.last_modified = last_modified
    response.vary.update(("HX-Request", "Cookie"))
    return _read_only(response)


def _unchanged(status: int, etag: str, last_modified: datetime) -> WerkzeugResponse:
    """The poll's answer when nothing changed: the same headers as the fragment's, no body.

    Built from plain header lines: the phones and the TV at a table ask every few
    seconds, and this is nearly every answer they get.
    """
    return current_app.response_class(
        status=status,
        headers=[
            ("ETag", f'W/"{etag}"'),
            ("Last-Modified", http_date(last_modified)),
            ("Vary", "HX-Request, Cookie"),
            ("X-Robots-Tag", "noindex, nofollow"),
            ("Cache-Control", "private, no-cache"),
        ],
    )


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
        "shown": _etag(_tag(match.id, match.version, len(match.session.matches))),
    }


def _tag(match_id: int, version: int, matches: int) -> str:
    # the number of matches too: the fragment links to the next match once it exists
    return f"m{match_id}.v{version}.n{matches}"


@bp.get("/v/<token:view_token>")
def match(view_token: str) -> WerkzeugResponse:
    """A match, read-only: progress, who deals, the sheet; it updates itself."""
    row = services.get_match_for_view(view_token)
    return _read_only(render("live/match.html", "live/_match.html", **_match_context(row)))


@bp.get("/v/<token:view_token>/sheet")
def match_sheet(view_token: str) -> WerkzeugResponse:
    """The part of the read-only match page that changes (polled; 204/304 when unchanged).

    The phones and the TV at a table ask every few seconds and nearly always get a
    204 (or a 304), so that path reads four values with one Core statement on a connection of
    its own (no ORM objects, no session cookie) and renders nothing.
    """
    state = services.poll_state(view_token)
    if state is None:
        abort(404)
    match_id, version, updated_at, matches = state

    def build() -> WerkzeugResponse:
        row = services.get_match_for_view(view_token)
        return render("live/_match.html", **_match_context(row))

    return _conditional(_tag(match_id, version, matches), _utc(updated_at), build)


def _session_context(row: GameSession) -> dict[str, Any]:
    matches = [(m, services.sheet(m)) for m in row.matches]
    return {
        "game_session": row,
        "matches": matches,
        "poll": POLL,
        "shown": _etag(_session_tag(row)[0]),
    }


def _session_tag(row: GameSession) -> tuple[str, datetime]:
    versions = ",".join(f"{m.id}:{m.version}" for m in row.matches)
    changed = max([row.updated_at, *(m.updated_at for m in row.matches)])
    return f"s{row.id}[{versions}]", _utc(changed)


@bp.get("/v/s/<token:view_token>")
def session(view_token: str) -> WerkzeugResponse:
    """A session, read-only: every match with its totals (a TV at the club)."""
    row = services.get_session_for_view(view_token)
    return _read_only(render("live/session.html", "live/_session.html", **_session_context(row)))


@bp.get("/v/s/<token:view_token>/sheet")
def session_sheet(view_token: str) -> WerkzeugResponse:
    """The polled part of the read-only session page (204/304 when unchanged)."""
    row = services.get_session_for_view(view_token)
    tag, changed = _session_tag(row)
    return _conditional(tag, changed, lambda: render("live/_session.html", **_session_context(row)))


def _qr(url: str) -> Response:
    """A QR code of ``url`` as SVG (no inline styles: presentation attributes only)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(
        out, kind="svg", scale=5, border=2, xmldecl=False, dark="#1d1d1b", light="#ffffff"
    )
    response = make_response(out.getvalue())
    response.mimetype = "image/svg+xml"
    # the picture of a link never changes; the link itself is the secret
    response.cache_control.private = True
    response.cache_control.max_age = 24 * 60 * 60
    return response


@bp.get("/v/<token:view_token>/qr.svg")
def match_qr(view_token: str) -> Response:
    """The QR code of a match's read-only link."""
    row = services.get_match_for_view(view_token)
    return _qr(url_for("live.match", view_token=row.view_token, _external=True))


@bp.get("/v/s/<token:view_token>/qr.svg")
def session_qr(view_token: str) -> Response:
    """The QR code of a session's read-only link."""
    row = services.get_session_for_view(view_token)
    return _qr(url_for("live.session", view_token=row.view_token, _external=True))
