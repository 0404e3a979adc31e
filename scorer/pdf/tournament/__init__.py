"""The tournament's printouts as PDFs: table cards, paper slips, rankings, certificates.

Each is rendered from ``templates/pdf/tournament/`` with the plain values of
:mod:`scorer.services.tournaments.paper` (this package knows no tournament
row: the match's PDF room imports nothing of the tournament), through the same
machinery as the score sheet: WeasyPrint with the DejaVu fonts, a URL
fetcher that reads only our static files and the fonts
(:func:`.layout.render_pdf`), a render in one of the work slots and a disk
cache keyed by what the PDF shows (:mod:`.cache`, keys from :func:`document_key`;
when and where each is made: :mod:`scorer.views.tournaments.printouts`).

- **Table cards**: four A6 cards to an A4 page with cut lines; the table's
  QR code (at least 3 cm, read from 30 cm) is a PNG of one pixel per module,
  printed sharp (:func:`qr_image`).
- **Paper slips**: one A4 page per table, a line per deal (who deals, who
  sits out at a table of four), totals and a line to sign per player; the
  boxes one drawing per kind of table, the words columns of lines over it
  (:mod:`.slipgrid`, :mod:`.slipframe`).
- **Rankings**: A4 portrait, the table head repeated on every page, page
  numbers, "provisional" while the round is open.
- **Certificates**: A4 landscape, one page per player of the first three places.

- **Prize list**: the winners alone, with what each gets (:func:`prize_list`);
  a ranking with columns of its own may still reuse :func:`ranking_document`
  (extra columns; ``pdf/tournament/_ranking.html``'s macros).
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import segno
from flask import current_app, render_template
from flask_babel import format_date, format_number, get_locale, gettext
from markupsafe import Markup

from ...words import MINUS, local_time, signed
from ...words import money as money_text
from ..layout import css_string, page_numbers
from ..resources import font_urls, url_fetcher
from . import lines, slipframe, slipgrid

TEMPLATES = "pdf/tournament"
QR_MM = 36
"""The QR code's side on a table card: far above the 3 cm a phone reads from 30 cm."""
CARDS_PER_PAGE = 4
"""A6 cards on an A4 page (two across, two down)."""
NAME_IN_TITLE = 44
"""The tournament's name in the page head is cut here: a longer one would push the app's
name off the line."""
PNG_URI = "data:image/png;base64,"
SLIP_LINE_MM = 7.5
"""A deal's line on a paper slip: room to write a hand's figures by hand."""
CARD_SECONDS = 0.02
SLIP_SECONDS = 0.05
"""About what a table card and a paper slip take to render (bench/RESULTS.md, "Tournament
paper"): the "ready in n seconds" of a printout being made, and whether it is worth a
process of its own."""


@functools.lru_cache(maxsize=8)
def _fingerprint(template_folder: str) -> str:
    """A hash of what turns the values into these PDFs: templates, this module, translations.

    An upgrade that changes a printout's look or words serves no PDF of the old one.
    """
    templates = Path(template_folder)
    package = Path(__file__).parent  # scorer/pdf/tournament
    scorer = package.parents[1]
    sources = sorted((templates / TEMPLATES).glob("*.html"))
    sources.append(templates / "pdf" / "_fonts.css.html")
    sources += sorted(package.glob("*.py"))
    sources += [package.parent / "layout.py", package.parent / "resources.py"]
    sources.append(scorer / "services" / "tournaments" / "paper.py")
    sources += sorted((scorer / "translations").glob("*/LC_MESSAGES/*.mo"))
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes() if path.is_file() else b"")
    return digest.hexdigest()


def _plain(value: Any) -> Any:
    """A value of a key's parts as JSON: a dataclass by its class and fields, a date as
    ISO text, anything else (a Decimal) as its text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return [type(value).__name__, fields]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, frozenset | set):
        return sorted(value, key=repr)
    return str(value)


def document_key(kind: str, *parts: object) -> str:
    """The cache key of a printout: its kind, what it shows (``parts``), the language, the code.

    ``parts`` are the values the printout is rendered from, whole (frozen
    dataclasses of :mod:`scorer.services.tournaments.paper`, the addresses its
    QR codes carry): nothing it shows is left out, and nothing it does not show
    (a saved hand, for a table card) is in.
    """
    fingerprint = _fingerprint(str(current_app.template_folder or ""))
    text = json.dumps(
        ["tournament", kind, *parts, str(get_locale()), fingerprint],
        default=_plain,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=4096)
def qr_png(url: str) -> bytes:
    """The QR code of ``url`` as a PNG of one pixel per module (printed without smoothing).

    Error correction M (a fold or a coffee stain on the card), a quiet zone of
    two modules (the card's white margin adds more).  A table's link stays the
    same all evening, so each code is made once per process: segno's choice of
    the best mask is the dearest part of a card (about 9 ms).
    """
    return bytes(segno.make(url, error="m").png_data_uri(scale=1, border=2).encode())


def qr_image(url: str) -> Markup:
    """The ``<img>`` of ``url``'s QR code (CSS sets its size, ``image-rendering: pixelated``).

    An image instead of an inline SVG: WeasyPrint parses a code's SVG path of
    several hundred runs in about 20 ms, a PNG of 37 × 37 pixels it takes as
    it is; drawn without interpolation, its modules print as sharp squares.
    Only segno's PNG goes into the page, never the URL's text.
    """
    return Markup('<img class="qr" src="{}" alt="">').format(qr_png(url).decode())


def _render(html: str) -> bytes:
    """HTML to PDF bytes: :func:`.layout.render_pdf`'s fetcher, and the QR codes' PNGs."""
    from weasyprint import HTML
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    inner = url_fetcher()

    class WithCodes(URLFetcher):
        """Our static files and fonts, a ``data:image/png`` URI that is one of our codes, and
        a ``data:image/svg+xml`` URI that is one of our slips' drawings."""

        def fetch(self, url: str, headers: Any = None) -> Any:
            if url.startswith(PNG_URI):
                body = base64.b64decode(url[len(PNG_URI) :], validate=True)
                if body.startswith(b"\x89PNG"):
                    return URLFetcherResponse(url, body, {"Content-Type": "image/png"})
            if url.startswith(slipframe.SVG_URI):
                body = base64.b64decode(url[len(slipframe.SVG_URI) :], validate=True)
                if body.startswith(slipframe.SVG_HEAD):
                    return URLFetcherResponse(url, body, {"Content-Type": "image/svg+xml"})
            return inner.fetch(url, headers)

    static = Path(current_app.static_folder or "").resolve()
    fetcher = WithCodes(allowed_protocols=("file", "data"))
    document = HTML(string=html, base_url=static.as_uri() + "/", url_fetcher=fetcher)
    return bytes(document.write_pdf())


def day_text(held_on: str, first_drawn: Any = None) -> str:
    """The evening's date in words ("8. November 2025"): its own, else the day round 1 was drawn."""
    try:
        day = date.fromisoformat(held_on) if held_on else None
    except ValueError:
        day = None
    if day is None and first_drawn is not None:
        day = date.fromisoformat(local_time(first_drawn, "%Y-%m-%d"))
    return str(format_date(day, "long")) if day is not None else ""


def points_text(points: int) -> str:
    """Points as a certificate writes them: ``1.234``, a loss ``−120`` (no brackets)."""
    return str(format_number(points)).replace("-", MINUS)


def shortened(text: str, most: int) -> str:
    """``text`` cut to ``most`` characters, an ellipsis where it was cut.

    >>> shortened("Herbstturnier des Musikvereins", 12)
    'Herbstturni…'
    """
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


def render_document(
    template: str, *, title: str, folder: str = TEMPLATES, **context: Any
) -> bytes:
    """``<folder>/<template>`` (``pdf/tournament`` unless said) as PDF bytes: the fonts, the
    page numbers and the title for ``@page``, the words every printout uses."""
    html = render_template(
        f"{folder}/{template}",
        fonts=font_urls(),
        page_numbers=page_numbers(),
        title=title,
        css_title=css_string(title),
        signed=signed,
        points_text=points_text,
        **context,
    )
    return _render(html)


def page_title(heading: Any, kind: str = "") -> str:
    """The page head's title: the tournament's name (cut when long) and what the page is."""
    name = shortened(heading.name, NAME_IN_TITLE)
    return f"{name} · {kind}" if kind else name


def _head(heading: Any) -> dict[str, Any]:
    return {"heading": heading, "day": day_text(heading.held_on, heading.first_drawn)}


def table_cards(heading: Any, cards: Sequence[Any], links: Mapping[int, str]) -> bytes:
    """Four A6 table cards to an A4 page: ``cards`` (paper.TableCard), ``links`` by table id."""
    qr = {card.table_id: qr_image(links[card.table_id]) for card in cards}
    pages = [cards[i : i + CARDS_PER_PAGE] for i in range(0, len(cards), CARDS_PER_PAGE)]
    return render_document(
        "cards.html",
        title=page_title(heading),
        pages=pages,
        links=links,
        qr=qr,
        qr_mm=QR_MM,
        **_head(heading),
    )


def paper_slips(heading: Any, slips: Sequence[Any]) -> bytes:
    """One A4 paper slip per table (paper.Slip): a line per deal, totals, signatures.

    A line is 7.5 mm high, room for a hand's figures; a round of many deals gets
    lower lines (never below 5.5 mm) before a slip runs onto a second page.  The
    boxes, heads and labels are one drawing per kind of table (:mod:`.slipgrid`).
    """
    most = max((len(slip.deals) for slip in slips), default=0)
    row_mm = SLIP_LINE_MM if most <= 16 else max(5.5, round(SLIP_LINE_MM * 16 / most, 2))
    words = slipgrid.Words(
        deal=gettext("Deal"),
        dealer=gettext("Dealer"),
        bid=gettext("Bid"),
        declarer=gettext("Declarer"),
        seat=gettext("Seat"),
        melds=gettext("Melds"),
        tricks=gettext("Tricks"),
        points=gettext("Points"),
        total=gettext("Total points"),
        lost=gettext("Lost games"),
        sits_out=gettext("sits out"),
        typed_in=gettext("Typed in by the organiser (initials):"),
        signature=gettext("Signature"),
        schreiber=gettext("Schreiber, deals first"),
    )
    grids = [
        slipgrid.build(
            slip,
            row_mm,
            words,
            [gettext("No. %(number)s", number=s.number) for s in slip.card.seats],
        )
        for slip in slips
    ]
    return render_document(
        "slips.html",
        title=page_title(heading, gettext("Paper slips")),
        slips=slips,
        grids=grids,
        frames=slipgrid.frames(grids),
        row_mm=row_mm,
        **_head(heading),
    )


Column = tuple[str, Mapping[int, str]]
"""An extra column of a ranking: its head, and its text per entrant id (e.g. a prize)."""


def ranking_title(sheet: Any) -> str:
    """ "Final ranking" once the last round is closed, else "Ranking after round n"."""
    if sheet.final:
        return str(gettext("Final ranking"))
    return str(gettext("Ranking after round %(round)s", round=sheet.after))


def ranking_heads() -> dict[str, str]:
    """The heads of a printed ranking's columns in the page's language."""
    return {
        "place": gettext("Place"),
        "no": gettext("No."),
        "round": gettext("Round %(number)s", number="{round}"),
        "total": gettext("Total"),
        "lost": gettext("Lost games"),
        "withdrawn": gettext("withdrawn"),
    }


def ranking_document(
    sheet: Any,
    *,
    template: str = "ranking.html",
    title: str | None = None,
    extra: Sequence[Column] = (),
    extra_mm: float = 28,
    **context: Any,
) -> bytes:
    """A ranking (paper.RankingSheet) on A4: a line per player, the head on every page.

    ``extra`` adds columns after the lost games (the prize list's "Prize"), each
    ``extra_mm`` wide (a text too long for it gives its player a row of their own);
    ``template`` may be another page that imports ``_ranking.html``'s macros
    (its context: ``sheet``, ``g`` the :class:`.lines.Lines`, ``heading``, ``day``).
    A4 portrait up to five rounds and extra columns, landscape beyond.
    """
    heading = sheet.heading
    text = title or ranking_title(sheet)
    kind = text + (" (" + gettext("provisional") + ")" if sheet.provisional else "")
    grid = lines.layout(
        sheet, ranking_heads(), extra, this_round=not sheet.final, extra_mm=extra_mm
    )
    return render_document(
        template,
        title=page_title(heading, kind),
        sheet=sheet,
        g=grid,
        heading_text=text,
        head_pt=lines.HEAD_PT,
        line_mm=lines.LINE_MM,
        figures_pt=lines.FIGURES_PT,
        name_pt=lines.NAME_PT,
        club_pt=lines.CLUB_PT,
        mark_pt=lines.MARK_PT,
        pad_pt=lines.CELL_PAD_PT,
        **_head(heading),
        **context,
    )


def certificates(sheet: Any) -> bytes:
    """A certificate (Urkunde) per player of the first three places, A4 landscape."""
    heading = sheet.heading
    return render_document(
        "certificates.html",
        title=page_title(heading, gettext("Certificates")),
        sheet=sheet,
        lines=sheet.podium,
        place_words={
            1: gettext("1st place"),
            2: gettext("2nd place"),
            3: gettext("3rd place"),
        },
        **_head(heading),
    )


def prize_list(heading: Any, plist: Any, share_words: Sequence[str]) -> bytes:
    """The prize list on A4 (money.PrizeList): what each winner gets, the joke prize.

    The winners only, in the order they are called to the prize table: place
    (a shared place as "2.–4."), start number, name, points, prize — money as
    the rules split the fund, or the item picked in order.  Nothing is counted
    here: every figure is the money service's.  Without prizes set, a page that
    says so (printed before the settings, it must not look like "no prizes").
    """
    return render_document(
        "prizes.html",
        title=page_title(heading, gettext("Prize list")),
        p=plist,
        share_words=list(share_words),
        money=money_text,
        **_head(heading),
    )
