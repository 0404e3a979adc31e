"""What every self-updating read-only page shares: its poll's ETag, 204/304, QR codes.

A read-only page polls a fragment every few seconds (htmx).  The fragment's
URL says which version the page shows (``?shown=``, the fragment's ETag):
while that is still current the answer is 204 No Content, which htmx leaves
alone, and a conditional GET gets 304 — so the phones and the beamer watching
cost almost nothing and a page is only swapped when it changed.  Used by the
share links (:mod:`.live`) and the tournament's public pages.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from datetime import UTC, datetime

import segno
from flask import Response, current_app, make_response, request
from werkzeug.http import http_date, is_resource_modified
from werkzeug.wrappers import Response as WerkzeugResponse

from ..words import select_locale


def utc(moment: datetime) -> datetime:
    """A stored (naive, UTC) time as an aware one (for Last-Modified)."""
    return moment.replace(tzinfo=UTC)


def read_only(response: WerkzeugResponse) -> WerkzeugResponse:
    """Share links are not for search engines; every poll asks the server again."""
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    response.cache_control.private = True
    response.cache_control.no_cache = True
    return response


def etag(tag: str) -> str:
    """The fragment's ETag (and ``?shown=`` value) for the state ``tag`` describes.

    It carries the language too: the same match reads differently in German.
    """
    # the selector's own answer ("de", "en"): the same text as str(get_locale()), without
    # parsing a babel Locale on the 204/304 path
    return hashlib.sha256(f"{tag}/{select_locale()}".encode()).hexdigest()[:20]


def conditional(
    tag: str, last_modified: datetime, build: Callable[[], WerkzeugResponse]
) -> WerkzeugResponse:
    """``build()`` the response, or nothing when the client already shows this state.

    304 for a conditional GET whose copy is current; 204 when the page says (its
    ``?shown=``) that it shows this state — htmx does not swap a 204.
    """
    tag_value = etag(tag)
    if not is_resource_modified(request.environ, etag=tag_value, last_modified=last_modified):
        return unchanged(304, tag_value, last_modified)
    if request.args.get("shown") == tag_value:
        return unchanged(204, tag_value, last_modified)
    response = build()
    # weak: the same fragment goes out gzip-, brotli- or zstd-compressed (and a strong
    # tag would get the encoding appended by Flask-Compress, so it would never match)
    response.set_etag(tag_value, weak=True)
    response.last_modified = last_modified
    response.vary.update(("HX-Request", "Cookie"))
    return read_only(response)


def unchanged(status: int, etag: str, last_modified: datetime) -> WerkzeugResponse:
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


def qr_svg(url: str) -> Response:
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
