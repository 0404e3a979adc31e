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
from ..models import GameSession, Match
from ..words import outcome_text, signed, suit_name
from .resources import font_urls, url_fetcher
from .words import house_rules, ruleset_line


def table_layout(parties: int, teams: bool) -> dict[str, Any]:
    """Font size (pt) and the widths (mm) of the six hand columns, by the number of parties.

    The page is 186 mm wide; what the hand columns leave is shared by the
    parties' two columns each (result and running total), which must hold
    ``(−2.000)`` without clipping.
    """
    if parties <= 3:
        widths = [6, 16, 30 if teams else 21, 15, 14, 25]
        return {"font": 8.5, "head": 7.5, "widths": widths}
    if parties == 4:
        return {"font": 7.5, "head": 6.5, "widths": [5, 13, 16, 11, 13, 19]}
    return {"font": 6, "head": 5.5, "widths": [5.5, 10, 11, 7, 9.5, 14]}


def render_pdf(html: str) -> bytes:
    """HTML to PDF bytes, resources only through :func:`url_fetcher`."""
    from weasyprint import HTML

    static = Path(current_app.static_folder or "").resolve()
    document = HTML(string=html, base_url=static.as_uri() + "/", url_fetcher=url_fetcher())
    return bytes(document.write_pdf())


CHUNK = 20  # hands per table row of the sheet (a row breaks between its lines at a page end)


def _line(text: str) -> str:
    # a line of a ``white-space: pre`` cell: a newline in a name would start a new hand
    return " ".join(str(text).splitlines())


TAIL = 3  # the last hands, kept on the page of the totals (never the totals alone)


def hand_chunks(
    sheet: services.Sheet, chunk: int = CHUNK, tail: int = TAIL
) -> list[list[tuple[str, str]]]:
    """The sheet's hands as table rows of ``chunk`` hands: per cell its class and its lines.

    WeasyPrint spends most of a long sheet on the boxes, text layouts and
    borders of its cells; twelve cells for ``chunk`` hands instead of twelve
    per hand make a 500-hand sheet several times faster.  Every line is one
    hand, so the columns stay aligned and a row breaks cleanly between hands.
    The last ``tail`` hands are a row of their own, the last one: the template
    keeps it with the totals, so a page never starts with the totals alone.
    """
    rows = sheet.rows
    body = rows[: max(0, len(rows) - tail)]
    parts = [body[start : start + chunk] for start in range(0, len(body), chunk)]
    if len(rows) > len(body):
        parts.append(rows[len(body) :])
    classes = ["l n", "l", "l", "", "l", "l"] + ["pts", "run"] * len(sheet.parties)
    chunks = []
    for part in parts:
        columns: list[list[str]] = [[] for _ in classes]
        for row in part:
            hand = row.hand
            cells = [
                str(row.number),
                row.dealer,
                row.declarer or "",
                str(hand.bid or ""),
                suit_name(hand.trump),
                outcome_text(hand),
            ]
            for i, points in enumerate(row.points):
                if row.sits_out[i]:
                    cells.append("–")
                else:
                    cells.append(signed(points) + (" ★" if row.stars[i] else ""))
                cells.append(signed(row.totals[i]))
            for column, cell in zip(columns, cells, strict=True):
                column.append(_line(cell))
        chunks.append([(c, "\n".join(lines)) for c, lines in zip(classes, columns, strict=True)])
    return chunks


def _match_context(match: Match) -> dict[str, Any]:
    sheet = services.sheet(match)
    ruleset = sheet.ruleset
    teams = [[s.name for s in match.seats if s.party == party] for party in range(ruleset.parties)]
    return {
        "match": match,
        "sheet": sheet,
        "date": format_date(match.created_at, "medium"),
        "rules_line": ruleset_line(ruleset),
        "house_rules": house_rules(ruleset),
        "teams": teams if ruleset.teams else [],
        "layout": table_layout(ruleset.parties, ruleset.teams),
        "seat_names": [s.name for s in match.seats],
        "chunks": hand_chunks(sheet),
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


def _page_numbers() -> Markup:
    """``"Page " counter(page) " of " counter(pages)`` in the user's language."""
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
        page_numbers=_page_numbers(),
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
