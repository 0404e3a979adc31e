"""The score sheet as HTML from ``templates/pdf/``, rendered to a PDF by WeasyPrint.

The PDF looks like a Binokel block: a header with the date, the table, the
players and the rules; one line per hand with every party's result (losses in
brackets) and the running totals; the winner; signature lines.  A4 portrait,
about 40 hands a page, the table head repeated on every page, page numbers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from flask import current_app, render_template
from flask_babel import format_date, gettext
from markupsafe import Markup

from .. import services
from ..house_rules import house_rules, ruleset_line
from ..models import GameSession, Match
from ..words import outcome_text, signed, suit_name
from . import grid
from .resources import font_urls, url_fetcher


def preload() -> None:
    """Load WeasyPrint now (about 0.8 s), so that the first PDF a server renders does not
    pay for it: :func:`scorer.create_app` calls it in gunicorn's workers."""
    import weasyprint  # noqa: F401


def render_pdf(html: str) -> bytes:
    """HTML to PDF bytes, resources only through :func:`url_fetcher`."""
    from weasyprint import HTML

    static = Path(current_app.static_folder or "").resolve()
    document = HTML(string=html, base_url=static.as_uri() + "/", url_fetcher=url_fetcher())
    return bytes(document.write_pdf())


def _match_context(match: Match) -> dict[str, Any]:
    sheet = services.sheet(match)
    ruleset = sheet.ruleset
    teams = [[s.name for s in match.seats if s.party == party] for party in range(ruleset.parties)]
    stars = ruleset.special_tally == "stars"
    totals = [
        signed(total) + (f" ★{sheet.stars[i]}" if stars and sheet.stars[i] else "")
        for i, total in enumerate(sheet.totals)
    ]
    titles = [
        "#",
        gettext("Dealer"),
        gettext("Declarer"),
        gettext("Bid"),
        gettext("Trump"),
        gettext("Outcome"),
        gettext("Hand"),
        gettext("Total"),
    ]
    return {
        "match": match,
        "sheet": sheet,
        "date": format_date(match.created_at, "medium"),
        "rules_line": ruleset_line(ruleset),
        "house_rules": house_rules(ruleset),
        "teams": teams if ruleset.teams else [],
        "seat_names": [s.name for s in match.seats],
        "totals": totals,
        "grid": grid.build(sheet, titles, totals),
    }


def css_string(text: str) -> Markup:
    """Text as a quoted CSS string, safe inside ``<style>`` (for ``content:`` in ``@page``)."""
    out = []
    for char in str(text):
        if char in '\\"<>&' or ord(char) < 32:
            out.append(f"\\{ord(char):x} ")
        else:
            out.append(char)
    return Markup('"' + "".join(out) + '"')


def page_numbers() -> Markup:
    """``"Page " counter(page) " of " counter(pages)`` in the user's language (for ``@page``)."""
    text = gettext("Page %(page)s of %(pages)s", page="\x01", pages="\x02")
    parts = []
    for piece in re.split("([\x01\x02])", text):
        if piece == "\x01":
            parts.append("counter(page)")
        elif piece == "\x02":
            parts.append("counter(pages)")
        elif piece:
            parts.append(str(css_string(piece)))
    return Markup(" ".join(parts))


def _render(template: str, **context: Any) -> bytes:
    html = render_template(
        template,
        fonts=font_urls(),
        page_numbers=page_numbers(),
        css_title=css_string(context.get("title", "")),
        suit_name=suit_name,
        outcome_text=outcome_text,
        **context,
    )
    return render_pdf(html)


def match_pdf(match: Match) -> bytes:
    """The sheet of one match."""
    return _render("pdf/match.html", blocks=[_match_context(match)], title=_title(match.session))


def session_pdf(row: GameSession) -> bytes:
    """Every match of a session, each from a new page, and the settlement at the end."""
    return _render(
        "pdf/session.html",
        blocks=[_match_context(m) for m in row.matches],
        settlement=services.settlement(row),
        session=row,
        title=_title(row),
        date=format_date(row.created_at, "medium"),
    )


def _title(row: GameSession) -> str:
    return row.title or gettext("Binokel")
