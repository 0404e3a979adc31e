"""The score sheet as a PDF: HTML from ``templates/pdf/`` rendered by WeasyPrint.

The PDF looks like a Binokel block: a header with the date, the table, the
players and the rules; one line per hand with every party's result (losses in
brackets) and the running totals; the winner; signature lines.  A4 portrait,
about 40 hands a page, the table head repeated on every page, page numbers.

Fonts are embedded: DejaVu Sans, read from the system's font directory
(``PDF_FONT_DIR``, default ``/usr/share/fonts/truetype/dejavu``).  The URL
fetcher reads only our own static files and those two font files — a sheet
never touches the network, whatever a player's name says.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from flask import current_app, render_template
from flask_babel import format_date, gettext
from markupsafe import Markup

from . import services
from .models import GameSession, Match
from .rules import Ruleset
from .web import outcome_text, suit_name

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONT_FILES = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSansCondensed.ttf",
    "DejaVuSansCondensed-Bold.ttf",
)


class FetchRefused(ValueError):
    """A URL outside our static files (WeasyPrint logs it and leaves the resource out)."""


# -- words for the sheet (suit and outcome names: scorer.web) -----------------


def _end_text(ruleset: Ruleset) -> str:
    if ruleset.end == "deals":
        return gettext("%(deals)s deals", deals=ruleset.deals)
    if ruleset.end == "at_once":
        return gettext("to %(target)s, at once", target=ruleset.target)
    if ruleset.end == "with_game":
        return gettext("to %(target)s with a won game", target=ruleset.target)
    return gettext("to %(target)s", target=ruleset.target)


def ruleset_line(ruleset: Ruleset) -> str:
    """The rules in one line: preset, table, deck, end, bids."""
    from .forms import PRESET_LABELS

    parts = [str(PRESET_LABELS.get(ruleset.preset, ruleset.preset))]
    if ruleset.teams:
        parts.append(
            gettext(
                "%(players)s players in %(parties)s teams",
                players=ruleset.players,
                parties=ruleset.parties,
            )
        )
    else:
        parts.append(gettext("%(players)s players", players=ruleset.players))
    cards = 32 if ruleset.deck == "piquet" else (48 if ruleset.sevens else 40)
    parts.append(gettext("%(cards)s cards", cards=cards))
    parts.append(_end_text(ruleset))
    if not ruleset.open_play:
        parts.append(gettext("bids from %(min)s", min=ruleset.min_bid))
    return " · ".join(parts)


def _value(value: Any) -> str:
    if value is True:
        return gettext("yes")
    if value is False:
        return gettext("no")
    if value is None:
        return gettext("off")
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def house_rules(ruleset: Ruleset) -> list[str]:
    """The house rules that differ from the ruleset's preset, one short phrase each."""
    from .forms import RULE_OPTIONS

    labels = {o.name: str(o.label) for o in RULE_OPTIONS}
    out = []
    for key, value in ruleset.overrides().items():
        if key == "special_values":
            base = dict(Ruleset.from_dict({"preset": ruleset.preset}).special_values)
            for name, amount in value.items():
                if base.get(name) != amount:
                    out.append(f"{labels.get(name, name)}: {_value(amount)}")
        elif key == "team_size":
            out.append(gettext("teams of two") if value == 2 else gettext("everybody alone"))
        elif key == "players":
            continue  # the players are listed on the sheet
        else:
            out.append(f"{labels.get(key, key)}: {_value(value)}")
    return out


# -- rendering -----------------------------------------------------------------


def _allowed_files() -> list[Path]:
    font_dir = Path(current_app.config.get("PDF_FONT_DIR", FONT_DIR))
    return [font_dir / name for name in FONT_FILES]


def font_urls() -> dict[str, str]:
    """The font file URLs for ``@font-face``: regular, bold and their condensed cuts."""
    regular, bold, condensed, condensed_bold = _allowed_files()
    return {
        "regular": regular.as_uri(),
        "bold": bold.as_uri(),
        "condensed": condensed.as_uri(),
        "condensed_bold": condensed_bold.as_uri(),
    }


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


def fetch_file(url: str) -> tuple[bytes, str | None]:
    """The bytes and type of a file of our static folder or one of the sheet's fonts.

    Everything else is refused with :class:`FetchRefused` (other schemes,
    other files, paths that climb out of the static folder).
    """
    parsed = urlparse(url)
    if parsed.scheme != "file":
        raise FetchRefused(f"the PDF reads no {parsed.scheme!r} URLs: {url}")
    path = Path(unquote(parsed.path)).resolve()
    static = Path(current_app.static_folder or "").resolve()
    allowed = path.is_file() and (
        path.is_relative_to(static) or path in [p.resolve() for p in _allowed_files()]
    )
    if not allowed:
        raise FetchRefused(f"the PDF reads only our static files, not {url}")
    mime = "font/ttf" if path.suffix == ".ttf" else None
    return path.read_bytes(), mime


def url_fetcher() -> Any:
    """A WeasyPrint URL fetcher that reads only through :func:`fetch_file`."""
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class StaticOnly(URLFetcher):
        def fetch(self, url: str, headers: Any = None) -> Any:
            body, mime = fetch_file(url)
            return URLFetcherResponse(url, body, {"Content-Type": mime} if mime else None)

    return StaticOnly(allowed_protocols=("file",))


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
    return {
        "match": match,
        "sheet": sheet,
        "date": format_date(match.created_at, "medium"),
        "rules_line": ruleset_line(ruleset),
        "house_rules": house_rules(ruleset),
        "teams": teams if ruleset.teams else [],
        "layout": table_layout(ruleset.parties, ruleset.teams),
        "seat_names": [s.name for s in match.seats],
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
