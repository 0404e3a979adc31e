"""Rendered parts of pages kept in memory: the sheet table of a match at one version.

The sheet is most of the match page's work (a row per hand, every number formatted)
and it changes only when a hand does.  Every change of a match bumps
``Match.version`` and sets ``Match.updated_at`` in the same transaction
(``services._touch``), so a table rendered for (token, version, updated_at,
language, edit links) can never be out of date: the next change asks for another
key.  That is why the cache is safe with several worker processes, each holding its
own copy: no process has to be told about a change, it simply never asks for the old
key again, and the least recently used tables fall out.  Bounded by count and by size.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import get_template_attribute, request
from flask_babel import get_locale
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from . import services
from .models import Match

# off: everything is rendered afresh (the tests compare both ways)
ENABLED = True
MAX_TABLES = 256
MAX_CHARS = 8 * 1024 * 1024  # per process; a 500-hand table is about 0.4 MB

_tables: OrderedDict[tuple[Any, ...], Markup] = OrderedDict()
_chars = 0
_lock = threading.Lock()


def _key(match: Match, edit: bool) -> tuple[Any, ...]:
    # the token, not the id: SQLite may give a deleted match's id to a new one
    return (
        match.token,
        match.version,
        match.updated_at,
        str(get_locale()),
        request.script_root,
        edit,
    )


def sheet_table(match: Match, sheet: services.Sheet, *, edit: bool = True) -> Markup:
    """The sheet table of ``match`` (``_macros/sheet.html``), from the cache if it holds it.

    ``sheet`` may be the standing without rows (:func:`services.standing`): on a miss
    the full sheet is loaded then.
    """
    global _chars
    key = _key(match, edit)
    with _lock:
        html = _tables.get(key) if ENABLED else None
        if html is not None:
            _tables.move_to_end(key)
            return html
    if sheet.played is not None:  # the standing: no rows
        sheet = services.sheet(match)
    table = get_template_attribute("_macros/sheet.html", "table")
    html = Markup(table(sheet, edit_token=match.token if edit else None))
    if not ENABLED:
        return html
    with _lock:
        if key not in _tables:
            _tables[key] = html
            _chars += len(html)
        while _tables and (len(_tables) > MAX_TABLES or _chars > MAX_CHARS):
            _, dropped = _tables.popitem(last=False)
            _chars -= len(dropped)
    return html


def clear() -> None:
    """Forget every table (tests)."""
    global _chars
    with _lock:
        _tables.clear()
        _forms.clear()
        _chars = 0


# -- the empty hand form ---------------------------------------------------------------

# stand-ins rendered into the cached form and replaced on every use: the session's CSRF
# token and the form's fresh idempotency key (both URL-safe, so no escaping changes them)
_CSRF_MARK = "csrfMARKf7Qx2Lz9"
_KEY_MARK = "idemMARKp3Vt8Wk1"
_VERSION_MARK = "verMARKq8Zr4Ty6"

_forms: OrderedDict[tuple[Any, ...], str] = OrderedDict()
MAX_FORMS = 256


def _form_key(match: Match, sheet: services.Sheet) -> tuple[Any, ...]:
    # what an empty form shows: the rules, the names, who sits out (not the version: it
    # is put in per request, so the form survives a saved hand)
    ruleset = sheet.ruleset
    return (
        match.token,
        repr(ruleset),
        tuple(sheet.parties),
        sheet.next_sits_out if ruleset.dealer_sits_out else None,
        str(get_locale()),
        request.script_root,
    )


@pass_context
def fresh_form(context: Context) -> Markup:
    """``hands/_form.html`` for a new hand, as it would render now, from the cache.

    An empty form depends on the match's state only (rules, names, who sits out)
    except for three values, which are put in per request: the match's version, the
    CSRF token of the session and a fresh idempotency key.
    """
    if not ENABLED:
        template = context.environment.get_template("hands/_form.html")
        return Markup(template.render(context.get_all()))
    form = context["form"]
    match = context["match"]
    key = _form_key(match, context["sheet"])
    csrf = getattr(form, "csrf_token", None)
    token = getattr(csrf, "current_token", None)
    with _lock:
        html = _forms.get(key)
        if html is not None:
            _forms.move_to_end(key)
    if html is None:
        idempotency = form.idempotency_key.data
        version = form.version.data
        form.idempotency_key.data = _KEY_MARK
        form.version.data = _VERSION_MARK
        if token is not None:
            csrf.current_token = _CSRF_MARK  # type: ignore[union-attr]
        try:
            template = context.environment.get_template("hands/_form.html")
            html = template.render(context.get_all())
        finally:
            form.idempotency_key.data = idempotency
            form.version.data = version
            if token is not None:
                csrf.current_token = token  # type: ignore[union-attr]
        with _lock:
            _forms[key] = html
            while len(_forms) > MAX_FORMS:
                _forms.popitem(last=False)
    html = html.replace(_KEY_MARK, form.idempotency_key.data or "")
    html = html.replace(_VERSION_MARK, str(form.version.data or ""))
    if token is not None:
        html = html.replace(_CSRF_MARK, token)
    return Markup(html)
