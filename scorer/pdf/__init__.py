"""The score sheet as a PDF: the layout (:mod:`.layout`), the hands as lines of a
monospaced grid (:mod:`.grid`), what a sheet may read (:mod:`.resources`), the
rules in words (:mod:`scorer.house_rules`), and the disk cache (:mod:`.cache`); a render runs in
one of the work slots shared by every worker process (:mod:`scorer.slots`).

The views ask for :func:`sheet_pdf` and :func:`sheets_pdf`: a PDF from the
cache when nothing it shows has changed, else rendered in a slot and kept.
"""

from __future__ import annotations

from ..house_rules import house_rules, ruleset_line
from ..models import GameSession, Match
from .cache import PdfBusy, cached_pdf, match_key, session_key
from .layout import css_string, match_pdf, preload, render_pdf, session_pdf
from .resources import FetchRefused, fetch_file, font_urls, url_fetcher

__all__ = [
    "FetchRefused",
    "PdfBusy",
    "cached_pdf",
    "css_string",
    "fetch_file",
    "font_urls",
    "house_rules",
    "match_key",
    "match_pdf",
    "preload",
    "render_pdf",
    "ruleset_line",
    "session_key",
    "session_pdf",
    "sheet_pdf",
    "sheets_pdf",
    "url_fetcher",
]


def sheet_pdf(match: Match) -> bytes:
    """The PDF of one match, from the cache when it has not changed (see :func:`cached_pdf`)."""
    return cached_pdf(match_key(match), lambda: match_pdf(match))


def sheets_pdf(row: GameSession) -> bytes:
    """The PDF of a whole session, from the cache when nothing in it has changed."""
    return cached_pdf(session_key(row), lambda: session_pdf(row))
