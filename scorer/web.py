"""What every view shares: fragment-or-page rendering, redirects, errors, headers.

One helper, :func:`render`, decides between the whole page and the fragment
for htmx requests and sets ``Vary: HX-Request``.  The words the pages show
(suits, outcomes, numbers, rules messages) are :mod:`scorer.words`; the kept
parts of the match page are :mod:`scorer.cache`.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from flask import (
    Flask,
    Request,
    Response,
    current_app,
    g,
    make_response,
    redirect,
    render_template,
    request,
)
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask_babel import gettext
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.exceptions import HTTPException, NotFound, SecurityError, UnsupportedMediaType
from werkzeug.routing import BaseConverter
from werkzeug.wrappers import Response as WerkzeugResponse

from . import services
from .extensions import db, htmx, limiter
from .services.spare import role as roles
from .services.tournaments.port import replaced_link, restored_lately
from .words import local_time

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)


class TokenConverter(BaseConverter):
    """``<token:token>``: a link's token as ``models.new_token`` makes them (URL-safe base64).

    Anything else in its place (a NUL, a dot, 65 characters) names no row: the URL
    does not match and the answer is 404, before any query is built from it.
    """

    regex = r"[A-Za-z0-9_-]{1,64}"


# what a browser drops or reads as "/" inside a URL (so "/\t/evil" would become "//evil")
_NOT_IN_A_PATH = re.compile(r"[\x00-\x20\x7f-\x9f\\]")


def same_site_path(target: str | None) -> str | None:
    """``target`` when it is a path on this site (with its query), else None.

    Only what a browser reads as this site's path qualifies: no scheme, no host,
    no control characters, spaces or backslashes, and not ``//`` (another host).

    >>> same_site_path("/m/abc?lang=en"), same_site_path("//evil.example")
    ('/m/abc?lang=en', None)
    >>> same_site_path("/\t/evil.example"), same_site_path("/\\\\evil.example")
    (None, None)
    """
    if not target or _NOT_IN_A_PATH.search(target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return None
    if parts.path.startswith("//"):
        return None
    return target


def is_htmx() -> bool:
    """True for a request that htmx sent (and that wants a fragment)."""
    return bool(htmx) and not htmx.boosted


def render(page: str, fragment: str | None = None, status: int = 200, **context: Any) -> Response:
    """The whole ``page`` for a normal request, ``fragment`` alone for htmx.

    Both templates get the same context; the page includes the fragment.
    """
    template = fragment if fragment and is_htmx() else page
    response = make_response(render_template(template, **context), status)
    response.vary.add("HX-Request")
    return response


def go_to(target: str) -> WerkzeugResponse:
    """Redirect after a successful POST: a plain 303 for the browser, and for htmx a
    200 with ``HX-Redirect`` (a 30x would be followed inside the XHR and its page
    swapped into the form)."""
    if is_htmx():
        response = make_response("", 200)
        response.headers["HX-Redirect"] = target
        return response
    return redirect(target, code=303)


SECURITY_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("X-Frame-Options", "DENY"),
)


def check_link(match: Any) -> None:
    """404 when the link this request came by no longer names ``match``.

    Asked after a write lost a race: the other write may have been the organiser's
    (a new link for the table, the round drawn again), and then the answer is why
    this link writes nothing any more (:func:`_not_found`), not a plain conflict.
    """
    token = (request.view_args or {}).get("token")
    if isinstance(token, str) and token != match.token:
        raise services.NotFound()


DRAIN_AT_MOST = 64 * 1024 * 1024
"""The most bytes of a refused body read (and forgotten) after a 413, so its sender gets
the answer: a server that closes the connection while the phone still sends makes the
phone's network stack report a broken connection instead of "too large"."""


def _drain_refused_body(response: Response) -> Response:
    """After a 413, what is left of the request's body is read (after the answer is sent)."""
    if response.status_code != 413:
        return response
    stream = request.environ.get("wsgi.input")
    length = request.content_length or 0
    if stream is None or not 0 < length <= DRAIN_AT_MOST:
        return response

    def drain() -> None:
        left = length
        while left > 0:
            chunk = stream.read(min(64 * 1024, left))
            if not chunk:
                break
            left -= len(chunk)

    response.call_on_close(drain)
    return response


def _security_headers(response: Response) -> Response:
    present = {name.lower() for name, _ in response.headers.items()}
    for name, value in SECURITY_HEADERS:
        if name.lower() not in present:
            response.headers.add(name, value)
    remembered = g.get("remember_lang")
    if remembered:
        response.set_cookie(
            "lang", remembered, max_age=60 * 60 * 24 * 365, samesite="Lax", httponly=True
        )
    return response


def _no_store(response: Response) -> Response:
    """Pages are private (the links are the secrets): no shared cache keeps them.

    An HTML answer that says nothing about caching is not stored at all; the
    read-only live pages (``private, no-cache`` with an ETag), the static files
    and the downloads set their own.
    """
    if response.mimetype == "text/html" and "Cache-Control" not in response.headers:
        response.cache_control.private = True
        response.cache_control.no_store = True
    return response


SECRET_ARGUMENTS = ("token", "view_token")
"""The route arguments that are a link's secret (``<token:…>``): the organiser's, a table's,
a match's, a session's, a series', the hosted copy's admin link and the read-only links."""

NOINDEX = "noindex, nofollow"


def is_secret_page() -> bool:
    """True when this request's address carries a link's secret: no search engine may keep
    or follow it (the ``X-Robots-Tag`` header of :func:`_noindex`, and the page's robots
    meta in ``base.html``), whatever the answer (a page, a PDF, a 404)."""
    arguments = request.view_args or {}
    return any(name in arguments for name in SECRET_ARGUMENTS)


def _noindex(response: Response) -> Response:
    if "X-Robots-Tag" not in response.headers and is_secret_page():
        response.headers["X-Robots-Tag"] = NOINDEX
    return response


def _remember_language() -> None:
    chosen = request.args.get("lang")
    if chosen in ("de", "en") and chosen != request.cookies.get("lang"):
        g.remember_lang = chosen


def _error_page(error: HTTPException) -> tuple[str, int] | Response:
    code = error.code or 500
    if isinstance(error, SecurityError):
        # a host not in TRUSTED_HOSTS: no URL can be built for it, so no page either
        response = make_response(gettext("This site is not served under this host name."), code)
        response.mimetype = "text/plain"
        return response
    return render_template("errors/error.html", code=code, error=error), code


REPLACED_NOTICE_AT = "#main"
"""Where a replaced link's explanation goes on the page that asked (see :func:`_not_found`)."""


def _not_found(_: Exception) -> tuple[str, int] | Response:
    """404, or for a table's replaced link why it writes nothing any more.

    An htmx request (the hand form, its live result, the offline queue sending a
    kept hand) gets the explanation with 409, which takes the place of the whole
    page's content: the hand form, its save and undo buttons and the sheet write
    nothing any more, so the page shows the notice alone (what was typed stays
    kept on the phone as a draft).  Without JavaScript the answer is a page
    with the notice alone (410).
    """
    token = (request.view_args or {}).get("token")
    old = replaced_link(token) if isinstance(token, str) else None
    if old is None and request.path.startswith(("/m/", "/v/")):
        return _missing_match()
    if old is None:
        return _error_page(NotFound())
    if is_htmx():
        response = make_response(render_template("tournaments/table/_replaced.html", link=old), 409)
        response.headers["HX-Retarget"] = REPLACED_NOTICE_AT
        response.headers["HX-Reswap"] = "innerHTML show:window:top"
        return response
    return render_template("tournaments/table/replaced.html", link=old), 410


def _missing_match() -> Response:
    """A match's link this laptop does not know: said plainly, with what was restored here
    lately (a table drawn after the backup was made is not in it).

    ``X-Scorer-Not-Here: match`` tells a table phone's page that this laptop lacks its
    table (it keeps what it holds and says so; it does not drop a queued entry).
    """
    lately = restored_lately()
    message = gettext(
        "This match is not on this laptop. A link works only exactly as it was shared; if "
        "yours is, please tell the organisers (Turnierleitung)."
    )
    if lately:
        found = lately[0].restored
        message = gettext(
            "This table is not on this laptop. “%(name)s” was brought back here at %(at)s from "
            "a state of %(stand)s: a table drawn or changed after that is not in it. Please "
            "tell the organisers (Turnierleitung); keep the phone as it is.",
            name=lately[0].name,
            at=local_clock(found.at),
            stand=local_clock(found.stand),
        )
    response = make_response(
        render_template("errors/error.html", code=404, message=message, missing=True), 404
    )
    response.headers["X-Scorer-Not-Here"] = "match"
    return response


def local_clock(moment: Any) -> str:
    """A stored (UTC) time as the hall's clock shows it ("20:41"), or "?"."""
    return local_time(moment) if moment is not None else "?"


def _not_the_hall(error: roles.NotTheHall) -> tuple[str, int, dict[str, str]]:
    """A write on a laptop that is not the hall: nothing was saved, and why.

    503 with ``Retry-After``: a table phone's page keeps an entry it could not save here
    (it is not lost) and sends it again later — to the laptop that is the hall then.
    """
    db.session.rollback()
    role = error.role
    if role.role == roles.SPARE:
        message = gettext(
            "Nothing was saved: this laptop is the spare. It follows the hall and takes "
            "nothing itself until it takes over (page “Spare laptop”)."
        )
    else:
        message = gettext(
            "Nothing was saved: this laptop is no longer the hall. The spare laptop took "
            "over at %(at)s; enter everything there.",
            at=local_clock(role.replaced_at),
        )
    headers = {"Retry-After": "30", "X-Scorer-Laptop": role.role}
    return render_template("errors/error.html", code=503, message=message), 503, headers


def laptop_role() -> roles.Role:
    """What this laptop is (every page's banner says when it is not the hall); a hall when
    the database cannot say (an error page shows without the banner, never a second error)."""
    try:
        return roles.current()
    except SQLAlchemyError:
        db.session.rollback()
        return roles.Role()


def _forms_only() -> None:
    """Every page posts form data; any other body is refused before a form reads it.

    Flask-WTF would read a JSON body as the form's data: a JSON array cannot be
    read so (a 500), and JSON numbers such as ``1e309`` are floats no field expects.
    """
    if request.method in ("POST", "PUT", "PATCH", "DELETE") and request.is_json:
        raise UnsupportedMediaType()


def _conflict(error: Exception) -> tuple[str, int]:
    """A write that kept losing races (or whose rows another request removed): nothing of
    it was saved.  Views that know better (a form kept, the current state) catch it first."""
    db.session.rollback()
    message = gettext(
        "Someone else changed this at the same moment; nothing was saved by this request. "
        "Reload the page and try again."
    )
    return render_template("errors/error.html", code=409, error=error, message=message), 409


def _csrf_error(error: CSRFError) -> tuple[str, int]:
    message = gettext("The form has expired. Please reload the page and try again.")
    return render_template("errors/error.html", code=400, error=error, message=message), 400


def _server_error(error: Exception) -> tuple[str, int]:
    db.session.rollback()
    return render_template("errors/error.html", code=500, error=error), 500


# the share links' polled fragments (views.live) and the tournament's public polls
# (views.tournaments.public): they never use the session
_POLL_PATH = re.compile(
    r"/v/(?:s/)?[A-Za-z0-9_-]{1,64}/sheet"
    r"|/[po]/[A-Za-z0-9_-]{1,64}(?:/seats|/players/[0-9]{1,20})?/live"
)


class SessionsButNotOnPolls(SecureCookieSessionInterface):
    """The signed session cookie, not even read for the share links' polls.

    A spectator's browser sends the cookie with every poll (the share page set it
    for its CSRF token), and checking its signature was a fifth of the poll's time.
    The poll views never touch the session, and an untouched empty session writes
    no cookie back.  (Flask opens the session before it matches the URL, hence the path.)
    """

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if _POLL_PATH.fullmatch(request.path):
            return self.session_class()
        return super().open_session(app, request)


def _a_poll() -> bool:
    """Whether this request is a read-only page's poll: the per-client limits of the
    expensive routes (``scorer.slots``) have nothing to count there, and looking for a
    limit cost a fifth of an unchanged poll's time."""
    return _POLL_PATH.fullmatch(request.path) is not None


_POLLS_UNLIMITED: list[bool] = []
"""Whether the limiter (one for every app of the process) already passes the polls by."""


def upload_limit(endpoint: str | None) -> int | None:
    """The most bytes a request to ``endpoint`` may send: ``UPLOAD_LIMITS`` of the route, or
    ``MAX_CONTENT_LENGTH`` (a tournament's backup file is larger than a club's sessions)."""
    larger = current_app.config.get("UPLOAD_LIMITS", {}).get(endpoint) if endpoint else None
    return int(larger) if larger else current_app.config.get("MAX_CONTENT_LENGTH")


class UploadRequest(Request):
    """A request whose body may be as large as its route allows (:func:`upload_limit`).

    Read by the CSRF check and the form alike, before the view runs: the route
    is known by then (routing comes first).
    """

    chosen_limit: int | None = None
    """A limit a view sets on this request (Flask 3.1's per-request setting) wins."""

    @property
    def max_content_length(self) -> int | None:
        if self.chosen_limit is not None:
            return self.chosen_limit
        if not current_app:
            return None
        return upload_limit(self.url_rule.endpoint if self.url_rule else None)

    @max_content_length.setter
    def max_content_length(self, value: int | None) -> None:
        self.chosen_limit = value


def init_app(app: Flask) -> None:
    """Hooks, error pages and the ``token`` URL converter.

    Called before the blueprints are registered: their rules use the converter.
    """
    app.url_map.converters["token"] = TokenConverter
    app.request_class = UploadRequest
    app.before_request(_remember_language)
    app.before_request(_forms_only)
    app.session_interface = SessionsButNotOnPolls()
    if not _POLLS_UNLIMITED:
        limiter.request_filter(_a_poll)
        _POLLS_UNLIMITED.append(True)
    app.after_request(_security_headers)
    app.after_request(_drain_refused_body)
    app.after_request(_no_store)
    app.after_request(_noindex)
    app.jinja_env.globals["secret_page"] = is_secret_page
    app.register_error_handler(CSRFError, _csrf_error)
    app.register_error_handler(HTTPException, _error_page)
    # a link or id that names no row (services raise their own NotFound): the same 404 page,
    # unless it is a tournament table's link that the organiser replaced
    app.register_error_handler(services.NotFound, _not_found)
    app.register_error_handler(services.ConflictError, _conflict)
    app.register_error_handler(roles.NotTheHall, _not_the_hall)
    app.add_template_global(laptop_role, "laptop_role")
    app.register_error_handler(500, _server_error)
