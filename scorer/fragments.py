"""Rendered parts of pages kept in memory: the match page, its sheet table, its empty form.

The sheet is most of the match page's work (a row per hand, every number formatted)
and it changes only when a hand does.  Every change of a match bumps
``Match.version`` and sets ``Match.updated_at`` in the same transaction
(``services._touch``), so anything rendered for (token, version, updated_at,
language, …) can never be out of date: the next change asks for another key.  That
is why the caches are safe with several worker processes, each holding its own copy:
no process has to be told about a change, it simply never asks for the old key
again, and the least recently used entries fall out.  Bounded by count and by size.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from flask import g, get_template_attribute, request
from flask_babel import get_locale
from flask_wtf.csrf import generate_csrf
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from . import services
from .models import Match

# off: everything is rendered afresh (the tests compare both ways)
ENABLED = True
MAX_ENTRIES = 256
MAX_CHARS = 8 * 1024 * 1024  # per process and cache; a 500-hand table is about 0.4 MB

_lock = threading.Lock()
T = TypeVar("T", bound=str)


class _Kept(Generic[T]):
    """A least-recently-used store of rendered HTML, bounded by entries and characters."""

    def __init__(self) -> None:
        self._entries: OrderedDict[tuple[Any, ...], T] = OrderedDict()
        self._chars = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple[Any, ...]) -> T | None:
        with _lock:
            html = self._entries.get(key)
            if html is not None:
                self._entries.move_to_end(key)
            return html

    def put(self, key: tuple[Any, ...], html: T) -> None:
        with _lock:
            if key not in self._entries:
                self._entries[key] = html
                self._chars += len(html)
            while self._entries and (len(self._entries) > MAX_ENTRIES or self._chars > MAX_CHARS):
                _, dropped = self._entries.popitem(last=False)
                self._chars -= len(dropped)

    def clear(self) -> None:
        with _lock:
            self._entries.clear()
            self._chars = 0


_tables: _Kept[Markup] = _Kept()
_forms: _Kept[str] = _Kept()
_pages: _Kept[str] = _Kept()


def request_key() -> tuple[str, str]:
    """What every kept piece depends on besides the match: the request's language and
    the site's root as this request reached it (scheme, host and mount point).

    The share link and the QR code are absolute URLs: a page rendered for one host
    must never be answered to a request for another.
    """
    return (str(get_locale()), request.root_url)


def _key(match: Match, edit: bool) -> tuple[Any, ...]:
    # the token, not the id: SQLite may give a deleted match's id to a new one
    return (match.token, match.version, match.updated_at, *request_key(), edit)


def sheet_table(match: Match, sheet: services.Sheet, *, edit: bool = True) -> Markup:
    """The sheet table of ``match`` (``_macros/sheet.html``), from the cache if it holds it.

    ``sheet`` may be the standing without rows (:func:`services.standing`): on a miss
    the full sheet is loaded then.
    """
    key = _key(match, edit)
    html = _tables.get(key) if ENABLED else None
    if html is not None:
        return html
    if sheet.played is not None:  # the standing: no rows
        sheet = services.sheet(match)
    table = get_template_attribute("_macros/sheet.html", "table")
    html = Markup(table(sheet, edit_token=match.token if edit else None))
    if ENABLED:
        _tables.put(key, html)
    return html


def clear() -> None:
    """Forget everything kept (tests)."""
    for kept in (_tables, _forms, _pages):
        kept.clear()


# -- the empty hand form ---------------------------------------------------------------

# stand-ins kept in the cached form and page and replaced on every use: the session's CSRF
# token and the form's fresh idempotency key (both URL-safe, so no escaping changes them)
_CSRF_MARK = "csrfMARKf7Qx2Lz9"
_KEY_MARK = "idemMARKp3Vt8Wk1"
_VERSION_MARK = "verMARKq8Zr4Ty6"


def _form_key(match: Match, sheet: services.Sheet) -> tuple[Any, ...]:
    # what an empty form shows: the rules, the names, who sits out (not the version: it
    # is put in per request, so the form survives a saved hand)
    ruleset = sheet.ruleset
    return (
        match.token,
        repr(ruleset),
        tuple(sheet.parties),
        sheet.next_sits_out if ruleset.dealer_sits_out else None,
        *request_key(),
    )


@pass_context
def fresh_form(context: Context) -> Markup:
    """``hands/_form.html`` for a new hand, as it would render now, from the cache.

    An empty form depends on the match's state only (rules, names, who sits out)
    except for three values, which are put in per request: the match's version, the
    CSRF token of the session and a fresh idempotency key (``idempotency_key`` of
    the context).  The WTForms form is built only to render a missing one.
    """
    from .views.hands import hand_form

    match = context["match"]
    sheet = context["sheet"]
    idempotency = context["idempotency_key"]
    if not ENABLED:
        form = hand_form(match, sheet)
        form.idempotency_key.data = idempotency
        template = context.environment.get_template("hands/_form.html")
        return Markup(template.render({**context.get_all(), "form": form}))
    key = _form_key(match, sheet)
    html = _forms.get(key)
    if html is None:
        # built and rendered with a stand-in for the token (generate_csrf reads it from g)
        real = g.pop("csrf_token", None)
        g.csrf_token = _CSRF_MARK
        try:
            form = hand_form(match, sheet)
            form.idempotency_key.data = _KEY_MARK
            form.version.data = _VERSION_MARK
            template = context.environment.get_template("hands/_form.html")
            html = template.render({**context.get_all(), "form": form})
        finally:
            g.pop("csrf_token", None)
            if real is not None:
                g.csrf_token = real
        _forms.put(key, html)
    html = html.replace(_KEY_MARK, idempotency)
    html = html.replace(_VERSION_MARK, str(match.version))
    if _CSRF_MARK in html:
        html = html.replace(_CSRF_MARK, generate_csrf())
    return Markup(html)


# -- the whole match page -----------------------------------------------------------------

# The match page of one version reads the same for every visitor but for the CSRF token
# of their session and the fresh form's idempotency key: rendered once, kept with
# stand-ins for both, and answered by string replacement until the next change.  Only
# pages whose form is the empty one qualify (no flashed message, no two-player hand).


def page_key(token: str, version: int, updated_at: Any, fragment: bool) -> tuple[Any, ...]:
    """What the match page of this request depends on besides the match's version.

    The path with its query (the language links lead back to it), the language, the
    site's root (:func:`request_key`), and whether htmx asked for the fragment only.
    """
    return (token, version, updated_at, *request_key(), request.full_path, fragment)


def cached_page(key: tuple[Any, ...], csrf: Callable[[], str], idempotency_key: str) -> str | None:
    """The page kept under ``key`` with this request's CSRF token and a fresh key, or None."""
    html = _pages.get(key) if ENABLED else None
    if html is None:
        return None
    if _CSRF_MARK in html:
        html = html.replace(_CSRF_MARK, csrf())
    return html.replace(_KEY_MARK, idempotency_key)


def keep_page(key: tuple[Any, ...], html: str, csrf: str | None, idempotency_key: str) -> None:
    """Keep a rendered page, its CSRF token and idempotency key replaced by stand-ins."""
    if not ENABLED:
        return
    if csrf:
        html = html.replace(csrf, _CSRF_MARK)
    if idempotency_key:
        html = html.replace(idempotency_key, _KEY_MARK)
    _pages.put(key, html)
