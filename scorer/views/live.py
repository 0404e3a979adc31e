"""The read-only share links: a match or a whole session, updating itself, and its QR code.

Everything here is a GET and reads by ``view_token`` only, so a share link can
look but never change anything.  The pages poll a fragment every few seconds
(htmx); the fragment answers a conditional GET with 304 while nothing has
changed, so the phones and the TV watching a table cost almost nothing.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import segno
from flask import Blueprint, Response, abort, make_response, request, url_for
from sqlalchemy import bindparam, func, select
from werkzeug.http import is_resource_modified
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import select_locale, services
from ..extensions import db
from ..models import GameSession, Match
from ..web import render

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


def _conditional(
    tag: str, last_modified: datetime, build: Callable[[], WerkzeugResponse]
) -> WerkzeugResponse:
    """``build()`` the response, or 304 when the client's copy is still current.

    The tag carries the language too: the same match reads differently in German.
    """
    # the selector's own answer ("de", "en"): the same text as str(get_locale()), without
    # parsing a babel Locale on the 304 path
    etag = hashlib.sha256(f"{tag}/{select_locale()}".encode()).hexdigest()[:20]
    if is_resource_modified(request.environ, etag=etag, last_modified=last_modified):
        response = build()
    else:
        response = make_response("", 304)
    # weak: the same fragment goes out gzip-, brotli- or zstd-compressed (and a strong
    # tag would get the encoding appended by Flask-Compress, so it would never match)
    response.set_etag(etag, weak=True)
    response.last_modified = last_modified
    response.vary.update(("HX-Request", "Cookie"))
    return _read_only(response)


def _match_context(match: Match) -> dict[str, Any]:
    later = [m for m in match.session.matches if m.number > match.number]
    return {
        "match": match,
        "sheet": services.sheet(match),
        "next_match": later[0] if later else None,
        "poll": POLL,
    }


def _tag(match_id: int, version: int, matches: int) -> str:
    # the number of matches too: the fragment links to the next match once it exists
    return f"m{match_id}.v{version}.n{matches}"


@bp.get("/v/<token:view_token>")
def match(view_token: str) -> WerkzeugResponse:
    """A match, read-only: progress, who deals, the sheet; it updates itself."""
    row = services.get_match_for_view(view_token)
    return _read_only(render("live/match.html", "live/_match.html", **_match_context(row)))


_OTHER = Match.__table__.alias("other")
# what the poll's ETag needs, in one statement and without loading a row into the ORM:
# the match's id, version and last change, and how many matches its session has
_POLL_STATE = select(
    Match.id,
    Match.version,
    Match.updated_at,
    select(func.count())
    .select_from(_OTHER)
    .where(_OTHER.c.session_id == Match.session_id)
    .scalar_subquery(),
).where(Match.view_token == bindparam("view_token"))


@bp.get("/v/<token:view_token>/sheet")
def match_sheet(view_token: str) -> WerkzeugResponse:
    """The part of the read-only match page that changes (polled; 304 when unchanged).

    The phones and the TV at a table ask every few seconds and nearly always get a
    304, so that path reads four values with one Core statement on a connection of
    its own (no ORM objects, no session cookie) and renders nothing.
    """
    with db.engine.connect() as connection:
        state = connection.execute(_POLL_STATE, {"view_token": view_token}).first()
    if state is None:
        abort(404)
    match_id, version, updated_at, matches = state

    def build() -> WerkzeugResponse:
        row = services.get_match_for_view(view_token)
        return render("live/_match.html", **_match_context(row))

    return _conditional(_tag(match_id, version, matches), _utc(updated_at), build)


def _session_context(row: GameSession) -> dict[str, Any]:
    matches = [(m, services.sheet(m)) for m in row.matches]
    return {"game_session": row, "matches": matches, "poll": POLL}


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
    """The polled part of the read-only session page (304 when unchanged)."""
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
