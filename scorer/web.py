"""What every view shares: fragment-or-page rendering, errors, headers, formatting.

One helper, :func:`render`, decides between the whole page and the fragment
for htmx requests and sets ``Vary: HX-Request``.  :func:`rules_message` turns a
``RulesError`` into the user's language.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, g, make_response, redirect, render_template, request
from flask_babel import format_decimal, get_locale, gettext, lazy_gettext
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, SecurityError
from werkzeug.routing import BaseConverter
from werkzeug.wrappers import Response as WerkzeugResponse

from .extensions import db, htmx
from .rules import SPECIAL_GAMES, RulesError

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


def rules_message(error: RulesError) -> str:
    """A rules error in the user's language (the English template is the msgid)."""
    params = error.params
    try:
        text = str(gettext(error.template))
        return text.format(**params) if params else text
    except (KeyError, IndexError, ValueError):
        return str(error)


# The words of the sheet, translated lazily: one lookup per use, not a dict
# of gettext calls per row.
SUIT_NAMES = {
    "E": lazy_gettext("Eichel"),
    "G": lazy_gettext("Grün"),
    "H": lazy_gettext("Herz"),
    "S": lazy_gettext("Schellen"),
}
OUTCOME_WORDS = {
    "gone_off": lazy_gettext("gone off"),
    "forfeit": lazy_gettext("forfeit"),
    "durch": lazy_gettext("Durch"),
    "durch_open": lazy_gettext("Durch open"),
    "durch_hand": lazy_gettext("Durch hand"),
    "bettel": lazy_gettext("Bettel"),
    "bettel_open": lazy_gettext("Bettel open"),
    "bettel_hand": lazy_gettext("Bettel hand"),
    "open_play": lazy_gettext("hand"),
}


def suit_name(letter: str | None) -> str:
    """The suit's German name (the same in both languages, as on the cards)."""
    name = SUIT_NAMES.get(letter or "")
    return str(name) if name is not None else ""


def outcome_text(hand: Any) -> str:
    """How the sheet names a hand's outcome: made, failed, gone off, Durch won …"""
    if hand.outcome == "played":
        return gettext("made") if hand.made else gettext("failed")
    word = OUTCOME_WORDS.get(hand.outcome)
    text = str(word) if word is not None else hand.outcome
    if hand.outcome in SPECIAL_GAMES:
        text += " " + (gettext("won") if hand.won else gettext("lost"))
    return text


def meld_label(name: str) -> str:
    """A meld name of RULES.md section 3 in the user's words: ``pair H`` → "Paar Herz"."""
    suits = SUIT_NAMES
    ranks = {
        "A": gettext("aces"),
        "10": gettext("tens"),
        "K": gettext("kings"),
        "O": gettext("Ober"),
        "U": gettext("Unter"),
        "7": gettext("sevens"),
    }
    kind, _, target = name.partition(" ")
    if kind == "pair":
        return gettext("Pair %(suit)s", suit=suits.get(target, target))
    if kind == "family":
        return gettext("Family %(suit)s", suit=suits.get(target, target))
    if kind == "double_family":
        return gettext("Double family %(suit)s", suit=suits.get(target, target))
    if kind == "four":
        return gettext("Four %(rank)s", rank=ranks.get(target, target))
    if kind == "eight":
        return gettext("Eight %(rank)s", rank=ranks.get(target, target))
    fixed = {
        "binokel": gettext("Binokel"),
        "double_binokel": gettext("Double Binokel"),
        "gross_binokel": gettext("Groß-Binokel"),
        "diss": gettext("Diss"),
    }
    return fixed.get(name, name)


def bonus_label(spec: str) -> str:
    """A going-off or failed bonus setting in words: ``per_player 10`` → "10 per player"."""
    kind, _, amount = spec.partition(" ")
    if kind == "per_player":
        return gettext("%(n)s per player dealt in", n=amount)
    if kind == "flat":
        return gettext("%(n)s each", n=amount)
    if kind == "half_bid":
        return gettext("half the bid")
    return gettext("nothing")


# the thousands separator of the languages we speak (babel's standard decimal pattern
# groups by three there); the sheet formats hundreds of numbers per page
_GROUP = {"de": ".", "en": ","}


def _integer(points: int) -> str:
    locale = get_locale()
    group = _GROUP.get(locale.language) if locale is not None else None
    if group is None or locale.territory is not None:
        return format_decimal(points)
    return f"{points:,}".replace(",", group) if points >= 1000 else str(points)


def signed(points: int | None) -> str:
    """A result as the sheet writes it: losses in brackets, ``(−400)``."""
    if points is None:
        return ""
    if points < 0:
        return f"(−{_integer(-points)})"
    return _integer(points)


def money(cents: int) -> str:
    """Cents as euros in the user's locale: ``1,20 €``."""
    from flask_babel import format_currency

    return format_currency(cents / 100, "EUR")


def _security_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
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


def _csrf_error(error: CSRFError) -> tuple[str, int]:
    message = gettext("The form has expired. Please reload the page and try again.")
    return render_template("errors/error.html", code=400, error=error, message=message), 400


def _server_error(error: Exception) -> tuple[str, int]:
    db.session.rollback()
    return render_template("errors/error.html", code=500, error=error), 500


def init_app(app: Flask) -> None:
    """Hooks, error pages, the ``token`` URL converter and template helpers.

    Called before the blueprints are registered: their rules use the converter.
    """
    app.url_map.converters["token"] = TokenConverter
    app.before_request(_remember_language)
    app.after_request(_security_headers)
    app.after_request(_no_store)
    app.register_error_handler(CSRFError, _csrf_error)
    app.register_error_handler(HTTPException, _error_page)
    app.register_error_handler(500, _server_error)
    app.jinja_env.filters["signed"] = signed
    app.jinja_env.filters["money"] = money
    app.jinja_env.filters["bonus"] = bonus_label
    app.jinja_env.globals["get_locale"] = get_locale
    app.jinja_env.globals["rules_message"] = rules_message
    app.jinja_env.globals["meld_label"] = meld_label
    from .fragments import fresh_form, sheet_table

    app.jinja_env.globals["sheet_table"] = sheet_table
    app.jinja_env.globals["fresh_form"] = fresh_form
    app.jinja_env.globals["suit_name"] = suit_name
    app.jinja_env.globals["outcome_text"] = outcome_text
