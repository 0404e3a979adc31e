"""The hands of a sheet as lines of text on a monospaced grid.

WeasyPrint pays for every box it lays out: a line in a cell costs about a
millisecond, whatever it holds.  A table cell per column made twelve lines per
hand (three parties); here every hand is one line of DejaVu Sans Mono, its
columns padded with spaces in Python, so a hand costs one line.  All glyphs of
the font are equally wide (:data:`MONO_EM`), so the table head above the lines
gets column widths that meet the grid exactly, and the rules between the
parties, the band of the running totals and the lines between hands are the
background of the row group, drawn once a page instead of once a cell.

The widths come from what the sheet holds (the longest name, outcome, number),
capped for names (:data:`CAPS`); the font shrinks from :func:`font_size` until
the grid fits the 186 mm of the page.  A name the mono font cannot write
exactly (another script, an emoji) gets cells of its own (:func:`monospaced`).
"""

from __future__ import annotations

import functools
import math
import unicodedata
from dataclasses import dataclass

from .. import services
from ..words import outcome_text, signed, suit_name
from .resources import font_file

MONO_EM = 1233 / 2048  # the advance of every glyph of DejaVu Sans Mono, in em
PAGE_PT = 186 / 25.4 * 72  # A4 less the side margins
HEAD_EM = 0.88  # the table head's font size, of the grid's (``th`` in _base.html)
CHUNK = 20  # hands per table row (a row breaks between its lines at a page end)
TAIL = 3  # the last hands, kept on the page of the totals (never the totals alone)
LINE_MM = 5.75  # one hand, with its rule
RULE_MM = 0.14  # the grey rule under every hand
ROOMY_SHRINK = 1.0  # pt the font may lose before columns lose their spaces
MIN_FONT = 5.5  # pt; below it the names are cut shorter
KEYS = ("n", "dealer", "declarer", "bid", "trump", "outcome")
CAPS = {"dealer": 12, "declarer": 16, "trump": 8, "outcome": 22}  # longer names get "…"


def font_size(parties: int) -> float:
    """The grid's font size (pt) before it shrinks to fit: smaller for more parties."""
    if parties <= 3:
        return 8.5
    if parties == 4:
        return 7.5
    return 6.5


@dataclass
class Column:
    """One column of the grid: its head, its role (a CSS class) and its width in characters."""

    key: str
    title: str
    right: bool
    width: int = 1

    roomy: bool = True  # a space either side; else only where columns would touch

    @property
    def before(self) -> int:
        """Spaces before the text (none at the left edge of the table)."""
        if self.key == "n":
            return 0
        return 1 if self.roomy or self.key != "run" else 0

    @property
    def after(self) -> int:
        """Spaces after the text (always before a party's rule and the totals' band)."""
        return 1 if self.roomy or self.key in ("outcome", "pts", "run") else 0

    @property
    def cells(self) -> int:
        """The column's width in characters, its spaces included."""
        return self.before + self.width + self.after


@dataclass
class Grid:
    """The hands as lines: the columns, the font, and the lines in table rows."""

    columns: list[Column]
    font: float
    chunks: list[list[tuple[int, str]]]  # per table row its cells: columns spanned, lines

    def char_pt(self) -> float:
        return MONO_EM * self.font

    def column_pt(self, column: Column) -> float:
        """A column's width in pt: its characters and its spaces."""
        return round(column.cells * self.char_pt(), 3)

    @property
    def width_pt(self) -> float:
        return round(sum(self.column_pt(c) for c in self.columns), 3)

    @property
    def background(self) -> str:
        """The lines' ``background``: rules before the parties, lines between hands, bands.

        Drawn once a page (the background of the row group, not of every
        cell); the positions are computed here, so they meet the head's columns
        to the thousandth of a point.  Above the lines between hands the rules,
        below them the band of the running totals.  Rules and bands are hard
        stops of one gradient across the width each: a gradient layer sized to
        a single rule is painted over the whole box by WeasyPrint 70.
        """
        rules: list[str] = []
        bands: list[str] = []
        x = 0.0
        for column in self.columns:
            pt = self.column_pt(column)
            if column.key == "pts":
                rules.append(hard_stops(x, x + 1, "#111"))
            if column.key == "run":
                bands.append(hard_stops(x, x + pt, "#eee"))
            x += pt
        line = LINE_MM - RULE_MM
        stripes = (
            f"linear-gradient(to bottom, transparent {line:.2f}mm, #bbb {line:.2f}mm) "
            f"0 0 / 100% {LINE_MM}mm repeat-y"
        )
        if not rules:
            return stripes
        across = "linear-gradient(to right, {})"
        return f"{across.format(', '.join(rules))}, {stripes}, {across.format(', '.join(bands))}"


def hard_stops(start: float, end: float, colour: str) -> str:
    """Gradient stops that paint ``colour`` from ``start`` to ``end`` (pt), nothing around."""
    return (
        f"transparent {start:.3f}pt, {colour} {start:.3f}pt, "
        f"{colour} {end:.3f}pt, transparent {end:.3f}pt"
    )


def text_width(text: str) -> int:
    """Grid cells a text takes: East Asian wide characters two, combining marks none."""
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells, an ellipsis where it was cut."""
    if text_width(text) <= width:
        return text
    out = ""
    for char in text:
        if text_width(out + char) > width - 1:
            break
        out += char
    return out + "…"


def one_line(text: object) -> str:
    """A cell's text on one line: a newline in a name would start a new hand."""
    return " ".join(str(text).split())


@functools.lru_cache(maxsize=4)
def _advances(path: str) -> tuple[dict[int, int], int, int]:
    from fontTools.ttLib import TTFont

    with TTFont(path, lazy=True) as font:
        hmtx = font["hmtx"]
        advances = {code: hmtx[glyph][0] for code, glyph in font.getBestCmap().items()}
        return advances, int(font["head"].unitsPerEm), int(hmtx[".notdef"][0])


def head_width(text: str) -> int:
    """Grid cells a head text takes in the head's font (DejaVu Sans Condensed Bold, smaller)."""
    try:
        advances, units, fallback = _advances(str(font_file("DejaVuSansCondensed-Bold.ttf")))
    except (OSError, KeyError):  # no such font: a generous guess
        return math.ceil(len(text) * 1.05)
    em = sum(advances.get(ord(c), fallback) for c in text) / units
    return math.ceil(em * HEAD_EM / MONO_EM + 0.3)


def hand_cells(row: services.SheetRow) -> list[str]:
    """One hand as the grid writes it: number, dealer, declarer, bid, trump, outcome, parties."""
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
    return [one_line(c) for c in cells]


def build(
    sheet: services.Sheet,
    titles: list[str],
    totals: list[str],
    chunk: int = CHUNK,
    tail: int = TAIL,
) -> Grid:
    """The grid of a sheet.

    ``titles`` are the heads of the six hand columns (:data:`KEYS`) and then of
    a party's two (result, running total); ``totals`` the total row's texts,
    which the running-total columns must hold too.
    """
    pts_title, run_title = titles[6:]
    columns = [
        Column(key, title, key in ("n", "bid")) for key, title in zip(KEYS, titles[:6], strict=True)
    ]
    for _party in sheet.parties:
        columns.append(Column("pts", pts_title, True))
        columns.append(Column("run", run_title, True))
    lines = [hand_cells(row) for row in sheet.rows]
    natural = []
    for index, column in enumerate(columns):
        widest = max((text_width(cells[index]) for cells in lines), default=0)
        if column.key == "run":
            widest = max(widest, text_width(totals[(index - 6) // 2]))
        natural.append(widest)
    for key in ("pts", "run"):  # every party as wide as the widest
        same = max(w for c, w in zip(columns, natural, strict=True) if c.key == key)
        natural = [same if c.key == key else w for c, w in zip(columns, natural, strict=True)]
    head_widths = [head_width(c.title) for c in columns]
    # the font shrinks a little first, then the spaces go, then the names shrink,
    # then the font again, until the grid fits
    base = font_size(len(sheet.parties))
    for column, widest, head in zip(columns, natural, head_widths, strict=True):
        column.width = max(1, head, min(widest, CAPS.get(column.key, widest)))
    if PAGE_PT / (sum(c.cells for c in columns) * MONO_EM) < base - ROOMY_SHRINK:
        for column in columns:
            column.roomy = False
    caps = dict(CAPS)
    while True:
        for column, widest, head in zip(columns, natural, head_widths, strict=True):
            column.width = max(1, head, min(widest, caps.get(column.key, widest)))
        fits = PAGE_PT / (sum(c.cells for c in columns) * MONO_EM)
        if fits >= MIN_FONT or max(caps.values()) <= 4:
            break
        caps[max(caps, key=caps.__getitem__)] -= 1
    font = min(base, math.floor(fits * 10) / 10)
    # what the page leaves goes to the outcome, so the table is as wide as the head
    columns[5].width += max(0, int(PAGE_PT / (MONO_EM * font)) - sum(c.cells for c in columns))

    def padded(column: Column, cell: str) -> str:
        text = clip(cell, column.width)
        pad = " " * (column.width - text_width(text))
        return (
            " " * column.before + (pad + text if column.right else text + pad) + " " * column.after
        )

    # a name the mono font cannot write exactly (other scripts, emoji, combining
    # marks) is drawn in some other font, of a width nobody knows here: then
    # the names get cells of their own and the table keeps the columns aligned
    names_fit = all(monospaced(cells[1]) and monospaced(cells[2]) for cells in lines)
    spans = [(0, len(columns))] if names_fit else [(0, 1), (1, 2), (2, 3), (3, len(columns))]
    rows = sheet.rows
    body = max(0, len(rows) - tail)
    parts = [lines[start : min(start + chunk, body)] for start in range(0, body, chunk)]
    if len(lines) > body:
        parts.append(lines[body:])
    chunks = []
    for part in parts:
        cells = []
        for start, end in spans:
            texts = [
                "".join(
                    padded(c, t) for c, t in zip(columns[start:end], hand[start:end], strict=True)
                )
                for hand in part
            ]
            cells.append((end - start, "\n".join(t.rstrip() for t in texts)))
        chunks.append(cells)
    return Grid(columns, font, chunks)


@functools.lru_cache(maxsize=256)
def monospaced(text: str) -> bool:
    """Whether DejaVu Sans Mono writes ``text`` one glyph of :data:`MONO_EM` per character."""
    try:
        covered = _advances(str(font_file("DejaVuSansMono.ttf")))[0]
    except (OSError, KeyError):
        return text.isascii()
    return all(
        ord(c) in covered and not unicodedata.combining(c) and text_width(c) == 1 for c in text
    )
