"""Rendered parts of pages kept in memory: the match page, its sheet table, its empty form.

The sheet is most of the match page's work (a row per hand, every number formatted)
and it changes only when a hand does.  Every change of a match bumps
``Match.version`` and sets ``Match.updated_at`` in the same transaction
(``services.writes.touch``), and every key (:func:`key`, the one place keys are made)
holds both, or for the empty hand form what it shows of the match, together with
everything of the request that a rendered text can show.  So a kept text is never
out of date: the next change asks for another key.  That is
why the caches are safe with several worker processes, each holding its own copy:
no process has to be told about a change, it simply never asks for the old key
again, and the least recently used entries fall out.

The caches belong to the app (``app.extensions["scorer.cache"]``, made by
:func:`init_app`); ``PAGE_CACHE = False`` in the config renders everything afresh.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache
from flask import Flask, current_app, g, get_template_attribute, request
from flask_babel import get_locale
from flask_wtf.csrf import generate_csrf
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from . import services
from .forms import hand_form
from .models import Match

EXTENSION = "scorer.cache"
MAX_CHARS = 8 * 1024 * 1024  # per app and cache; a 500-hand table is about 0.4 MB
FORM_CHARS = 32 * 1024 * 1024
"""The empty forms' share: one per table (its names are in it), about 11 KB each, so a
hall of 1,000 tables keeps all of them (with 8 MB, 700: every save rendered its form)."""

Key = tuple[Hashable, ...]


class Kept:
    """A least-recently-used store of rendered HTML, bounded by its characters."""

    def __init__(self, max_chars: int = MAX_CHARS) -> None:
        self._lock = threading.Lock()  # the LRU order changes on every read
        self._entries: LRUCache[Key, str] = LRUCache(maxsize=max_chars, getsizeof=len)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, key: Key) -> str | None:
        with self._lock:
            return self._entries.get(key)

    def put(self, key: Key, html: str) -> None:
        if len(html) > self._entries.maxsize:
            return  # larger than the whole cache: never kept (LRUCache would refuse it)
        with self._lock:
            self._entries[key] = html

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


@dataclass
class Caches:
    """The kept texts of one app."""

    tables: Kept = field(default_factory=Kept)
    forms: Kept = field(default_factory=lambda: Kept(FORM_CHARS))
    pages: Kept = field(default_factory=Kept)

    def clear(self) -> None:
        for kept in (self.tables, self.forms, self.pages):
            kept.clear()


def init_app(app: Flask) -> None:
    """The app's caches, and the template globals that render through them."""
    app.extensions[EXTENSION] = Caches()
    app.jinja_env.globals["sheet_table"] = sheet_table
    app.jinja_env.globals["fresh_form"] = fresh_form


def caches_of(app: Flask) -> Caches:
    """The caches of ``app`` (tests look into them)."""
    caches: Caches = app.extensions[EXTENSION]
    return caches


def clear(app: Flask | None = None) -> None:
    """Forget everything kept (tests; ``app`` defaults to the current one)."""
    caches_of(app if app is not None else current_app).clear()


def _caches() -> Caches | None:
    """The current app's caches, or None when ``PAGE_CACHE`` is off."""
    app = current_app
    if not app.config.get("PAGE_CACHE", True):
        return None
    caches: Caches = app.extensions[EXTENSION]
    return caches


def key(kind: str, token: str, *shown: Hashable) -> Key:
    """The key of a kept text: everything it can show, of the match and of the request.

    Of the match: its token (not the id: SQLite may give a deleted match's id to a
    new one) and ``shown``, what the text shows of it — its version and last change
    (:func:`match_shown`), or for the empty hand form, which carries the version as
    a stand-in, the form's own state (:func:`form_shown`).  Of the request, always:
    the language; the site's root as this request reached it (scheme, host and
    mount point: the share link and the QR code are absolute URLs, a page rendered
    for one host must never be answered to a request for another); the method,
    path and query (the language links lead back to them); and the htmx headers
    that decide between the page and its fragment.  ``kind`` names the cache.
    """
    return (
        kind,
        token,
        *shown,
        str(get_locale()),
        request.root_url,
        request.method,
        request.full_path,
        request.headers.get("HX-Request"),
        request.headers.get("HX-Boosted"),
    )


def form_key(token: str, sheet: services.Sheet) -> Key:
    """The key of the empty hand form of ``token``'s match: what it shows of the match
    (:func:`form_shown`), the language and the site's root.

    Not the request's method, path and htmx headers (:func:`key`): the form names none
    of them, so the form the match page rendered answers the save after it, and the
    save's answer the next page.
    """
    return ("form", token, *form_shown(sheet), str(get_locale()), request.root_url)


def match_shown(version: int, updated_at: Any) -> tuple[Hashable, ...]:
    """What a text rendered from the match as it is now shows of it: this version of it.

    Every change bumps both in the same transaction (``services.writes.touch``).
    """
    return (version, updated_at)


def form_shown(sheet: services.Sheet) -> tuple[Hashable, ...]:
    """What the empty hand form shows of the match: its rules, the names, who sits out.

    Not the version: it is put in per request (a stand-in), so the kept form
    survives a saved hand and the next submission answers with it.
    """
    ruleset = sheet.ruleset
    sits_out = sheet.next_sits_out if ruleset.dealer_sits_out else None
    return ("rules", repr(ruleset), tuple(sheet.parties), sits_out)


# -- the sheet table ----------------------------------------------------------------------


def sheet_table(match: Match, sheet: services.Sheet, *, edit: bool = True) -> Markup:
    """The sheet table of ``match`` (``_macros/sheet.html``), from the cache if it holds it.

    ``sheet`` may be the standing without rows (:func:`services.standing`): on a miss
    the full sheet is loaded then.
    """
    caches = _caches()
    table_key = key("table", match.token, *match_shown(match.version, match.updated_at), edit)
    html = caches.tables.get(table_key) if caches is not None else None
    if html is not None:
        return Markup(html)
    if sheet.played is not None:  # the standing: no rows
        sheet = services.sheet(match)
    table = get_template_attribute("_macros/sheet.html", "table")
    html = Markup(table(sheet, edit_token=match.token if edit else None))
    if caches is not None:
        caches.tables.put(table_key, html)
    return html


# -- the empty hand form ---------------------------------------------------------------

# stand-ins kept in the cached form and page and replaced on every use: the session's CSRF
# token, the form's fresh idempotency key (both URL-safe, so no escaping changes them) and
# the match's version in the form
_CSRF_MARK = "csrfMARKf7Qx2Lz9"
_KEY_MARK = "idemMARKp3Vt8Wk1"
_VERSION_MARK = "verMARKq8Zr4Ty6"


def _render_form(context: Context, idempotency_key: str, version: str | None = None) -> str:
    form = hand_form(context["match"], context["sheet"])
    form.idempotency_key.data = idempotency_key
    if version is not None:
        form.version.data = version
    template = context.environment.get_template("hands/_form.html")
    return template.render({**context.get_all(), "form": form})


@pass_context
def fresh_form(context: Context) -> Markup:
    """``hands/_form.html`` for a new hand, as it would render now, from the cache.

    An empty form depends on what it shows of the match (:func:`form_shown`) except
    for three values, which are put in per request: the match's version, the CSRF
    token of the session and a fresh idempotency key (``idempotency_key`` of the
    context).  The WTForms form is built only to render a missing one.
    """
    match = context["match"]
    idempotency = context["idempotency_key"]
    caches = _caches()
    if caches is None:
        return Markup(_render_form(context, idempotency))
    kept = form_key(match.token, context["sheet"])
    html = caches.forms.get(kept)
    if html is None:
        # rendered with a stand-in for the token (generate_csrf reads it from g)
        real = g.pop("csrf_token", None)
        g.csrf_token = _CSRF_MARK
        try:
            html = _render_form(context, _KEY_MARK, _VERSION_MARK)
        finally:
            g.pop("csrf_token", None)
            if real is not None:
                g.csrf_token = real
        caches.forms.put(kept, html)
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


def page_key(token: str, version: int, updated_at: Any) -> Key:
    """The key of the match page this request asks for (:func:`key`)."""
    return key("page", token, *match_shown(version, updated_at))


def cached_page(page: Key, csrf: Callable[[], str], idempotency_key: str) -> str | None:
    """The page kept under ``page`` with this request's CSRF token and a fresh key, or None."""
    caches = _caches()
    html = caches.pages.get(page) if caches is not None else None
    if html is None:
        return None
    if _CSRF_MARK in html:
        html = html.replace(_CSRF_MARK, csrf())
    return html.replace(_KEY_MARK, idempotency_key)


def keep_page(page: Key, html: str, csrf: str | None, idempotency_key: str) -> None:
    """Keep a rendered page, its CSRF token and idempotency key replaced by stand-ins."""
    caches = _caches()
    if caches is None:
        return
    if csrf:
        html = html.replace(csrf, _CSRF_MARK)
    if idempotency_key:
        html = html.replace(idempotency_key, _KEY_MARK)
    caches.pages.put(page, html)
