"""A printed ranking as blocks of lines: 600 players in a few seconds.

WeasyPrint pays for every line box it lays out, about a millisecond each: a
table cell per column made eight boxes per player (over six seconds of CPU for
600 players).  Here a player is three lines, in blocks of :data:`CHUNK`
players per table row: the place and start number as one line of DejaVu Sans
Mono, the name (and club) in the proportional font, and the points per round,
total and lost games as one more line of the monospaced font, its columns
padded with spaces in Python.  Every glyph of the mono font is equally wide
(:data:`scorer.pdf.grid.MONO_EM`), so the table head above gets column widths
that meet the figures exactly; the lines between players are the cells'
background, drawn once per cell.  The totals' grey band is the background of
one span per line around the total, padded to the line's height: a
background of the whole cell would run on below the last line where a block
breaks at a page end.

A name (with its club) that does not fit its column on one line, or whose
letters the font cannot measure (another script's fallback font, an emoji),
gets a table row of its own where it may wrap: no name is ever cut.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from ...rules.tournament import on_podium
from ...words import signed
from ..grid import MONO_EM, hard_stops, one_line
from ..resources import font_file

CHUNK = 25
"""Players per table row: a row breaks between its lines at a page end."""
LINE_MM = 5.6
"""One player's line, with its rule."""
RULE_MM = 0.14
FIGURES_PT = 9.5
"""The monospaced figures (place, start number, points)."""
NAME_PT = 10.0
CLUB_PT = 8.5
HEAD_PT = 8.5
MARK_PT = 7.0
"""The "withdrawn" mark after a name (framed: :data:`MARK_FRAME_PT` more)."""
MARK_FRAME_PT = 6.0
CELL_PAD_PT = 4.5
"""The name cell's padding either side (pt)."""
PAGE_PT = {"portrait": 186 / 25.4 * 72, "landscape": 273 / 25.4 * 72}
"""The width between the page margins (12 mm each side)."""
PAPER_MARK = "✎"
MONO_HEIGHT_EM = (1901 + 483) / 2048
"""DejaVu Sans Mono's ascent and descent (hhea), in em: an inline box's height in it."""


@functools.lru_cache(maxsize=8)
def _advances(path: str) -> tuple[dict[int, int], int]:
    from fontTools.ttLib import TTFont

    with TTFont(path, lazy=True) as font:
        hmtx = font["hmtx"]
        advances = {code: hmtx[glyph][0] for code, glyph in font.getBestCmap().items()}
        return advances, int(font["head"].unitsPerEm)


def text_pt(text: str, font: str, size: float) -> float | None:
    """The width of ``text`` in pt in one of the sheet's fonts; None when it has a letter
    the font lacks (the fallback font's width is unknown)."""
    try:
        advances, units = _advances(str(font_file(font)))
    except (OSError, KeyError, ValueError):
        return None
    total = 0
    for char in text:
        advance = advances.get(ord(char))
        if advance is None:
            return None
        total += advance
    return total * size / units


@dataclass(frozen=True)
class Column:
    """A column of the figures: its head, width in characters (a space either side)."""

    key: str
    head: str
    width: int
    this: bool = False


@dataclass(frozen=True)
class Block:
    """A table row of the ranking: some players' lines (one player: may wrap)."""

    left: str  # place and start number, a line per player
    names: Markup  # a line per player
    figures: Markup  # points per round, total (in its band), lost games, a line per player
    extra: tuple[Markup, ...]  # the extra columns' texts, a line per player each
    single: bool  # one player whose name wraps
    podium_end: bool  # the last row of the places 1-3: a firmer line under it


@dataclass(frozen=True)
class Lines:
    """The ranking laid out: columns, widths in pt, blocks of lines, the cells' backgrounds."""

    left: tuple[Column, ...]
    figures: tuple[Column, ...]
    extra_heads: tuple[str, ...]
    extra_pt: float
    name_pt: float
    blocks: tuple[Block, ...]
    char_pt: float
    orientation: str

    def column_pt(self, column: Column) -> float:
        return round((column.width + 2) * self.char_pt, 3)

    @property
    def left_pt(self) -> float:
        return round(sum(self.column_pt(c) for c in self.left), 3)

    @property
    def figures_pt(self) -> float:
        return round(sum(self.column_pt(c) for c in self.figures), 3)

    @property
    def stripes(self) -> str:
        """The lines between players: one grey rule at the foot of every line."""
        line = LINE_MM - RULE_MM
        return (
            f"linear-gradient(to bottom, transparent {line:.2f}mm, #aaa {line:.2f}mm) "
            f"0 0 / 100% {LINE_MM}mm repeat-y"
        )

    @property
    def band_padding(self) -> str:
        """The padding of a total's span (``.band``) that makes its background the whole
        line but the rule: the line's half leading above, less the rule below."""
        half = (LINE_MM - MONO_HEIGHT_EM * FIGURES_PT * 25.4 / 72) / 2
        return f"{half:.3f}mm 0 {half - RULE_MM:.3f}mm"

    @property
    def band(self) -> str:
        """The totals' grey band across the figures' cell of a row of its own (hard stops)."""
        x = 0.0
        for column in self.figures:
            width = self.column_pt(column)
            if column.key == "total":
                stops = hard_stops(x, x + width, "#e4e4e4")
                return f"linear-gradient(to right, {stops})"
            x += width
        return "none"


def _pad(text: str, width: int) -> str:
    return " " + text.rjust(width) + " "


def _head_chars(text: str, char_pt: float) -> int:
    """Characters of the figures' font a head text needs (condensed bold, :data:`HEAD_PT`);
    the column's two spaces are the head's padding."""
    width = text_pt(text, "DejaVuSansCondensed-Bold.ttf", HEAD_PT)
    if width is None:
        width = len(text) * HEAD_PT * 0.62
    return math.ceil(width / char_pt)


def _name_html(line: Any, withdrawn: str) -> Markup:
    html = Markup('<b class="name">{}</b>').format(one_line(line.name))
    if line.club:
        html += Markup('<span class="club"> · {}</span>').format(one_line(line.club))
    if line.withdrawn:
        html += Markup(' <span class="mark">{}</span>').format(withdrawn)
    return html


def _name_fits(line: Any, withdrawn: str, room: float) -> bool:
    parts = [text_pt(one_line(line.name), "DejaVuSans-Bold.ttf", NAME_PT)]
    if line.club:
        parts.append(text_pt(" · " + one_line(line.club), "DejaVuSans.ttf", CLUB_PT))
    if line.withdrawn:
        mark = text_pt(" " + withdrawn, "DejaVuSans.ttf", MARK_PT)
        parts.append(None if mark is None else mark + MARK_FRAME_PT)
    widths = [p for p in parts if p is not None]
    return len(widths) == len(parts) and sum(widths) <= room


def _extra_fits(texts: Sequence[str], room: float) -> bool:
    for text in texts:
        width = text_pt(text, "DejaVuSans.ttf", NAME_PT)
        if width is None or width > room:
            return False
    return True


def layout(
    sheet: Any,
    heads: Mapping[str, str],
    extra: Sequence[tuple[str, Mapping[int, str]]] = (),
    *,
    this_round: bool = False,
    chunk: int = CHUNK,
    extra_mm: float = 28,
) -> Lines:
    """The ranking ``sheet`` (paper.RankingSheet) as blocks of lines.

    ``heads`` names the heads in the page's language: ``place``, ``no``,
    ``total``, ``lost``, ``round`` (with ``{round}``) and the ``withdrawn`` mark.
    ``extra`` are further columns after the lost games (head, text per entrant
    id), ``extra_mm`` wide each, written in the proportional font.
    """
    char_pt = MONO_EM * FIGURES_PT
    lines = sheet.lines
    places = [f"{line.place}." for line in lines]
    numbers = [str(line.number or "") for line in lines]
    left = tuple(
        Column(key, heads[key], max([len(t) for t in texts] + [_head_chars(heads[key], char_pt)]))
        for key, texts in (("place", places), ("no", numbers))
    )

    def points_text(points: int | None, paper: bool) -> str:
        if points is None:
            return "– "
        return signed(points) + (PAPER_MARK if paper else " ")

    round_texts = [
        [points_text(p, line.paper[i]) for i, p in enumerate(line.rounds)] for line in lines
    ]
    figures: list[Column] = []
    for index, number in enumerate(sheet.rounds):
        head = heads["round"].format(round=number)
        width = max([len(texts[index]) for texts in round_texts] + [2])
        last = index == len(sheet.rounds) - 1
        figures.append(
            Column(f"r{number}", head, max(width, _head_chars(head, char_pt)), this_round and last)
        )
    totals = [signed(line.total) + " " for line in lines]
    lost = [str(line.lost) for line in lines]
    for key, texts in (("total", totals), ("lost", lost)):
        head = heads[key]
        width = max([len(t) for t in texts] + [_head_chars(head, char_pt), 2])
        figures.append(Column(key, head, width))
    orientation = "landscape" if len(sheet.rounds) + len(extra) > 5 else "portrait"
    extra_pt = extra_mm / 25.4 * 72
    fixed = sum((c.width + 2) * char_pt for c in (*left, *figures)) + extra_pt * len(extra)
    name_pt = PAGE_PT[orientation] - fixed
    room = name_pt - 2 * CELL_PAD_PT - 1
    withdrawn = heads["withdrawn"]

    def row_of(index: int) -> tuple[str, Markup, Markup, tuple[Markup, ...]]:
        line = lines[index]
        left_text = _pad(places[index], left[0].width) + _pad(numbers[index], left[1].width)
        cells = [*round_texts[index], totals[index], lost[index]]
        figures_text = Markup("").join(
            Markup('<span class="band">{}</span>').format(_pad(t, c.width))
            if c.key == "total"
            else _pad(t, c.width)
            for t, c in zip(cells, figures, strict=True)
        )
        extras = tuple(escape(one_line(texts.get(line.entrant_id, ""))) for _, texts in extra)
        return left_text.rstrip(), _name_html(line, withdrawn), figures_text.rstrip(), extras

    podium_last = max((i for i, line in enumerate(lines) if on_podium(line.place)), default=-1)
    blocks: list[Block] = []
    group: list[int] = []

    def close(single: bool = False) -> None:
        if not group:
            return
        rows = [row_of(i) for i in group]
        blocks.append(
            Block(
                left="\n".join(r[0] for r in rows),
                names=Markup("\n").join(r[1] for r in rows),
                figures=Markup("\n").join(r[2] for r in rows),
                extra=tuple(Markup("\n").join(r[3][k] for r in rows) for k in range(len(extra))),
                single=single,
                podium_end=group[-1] == podium_last and podium_last < len(lines) - 1,
            )
        )
        group.clear()

    extra_room = extra_pt - 2 * CELL_PAD_PT - 1
    for index, line in enumerate(lines):
        extra_texts = [one_line(texts.get(line.entrant_id, "")) for _, texts in extra]
        if not _name_fits(line, withdrawn, room) or not _extra_fits(extra_texts, extra_room):
            close()
            group.append(index)
            close(single=True)
            continue
        group.append(index)
        if len(group) >= chunk or index == podium_last:
            close()
    close()
    return Lines(
        left=left,
        figures=tuple(figures),
        extra_heads=tuple(head for head, _ in extra),
        extra_pt=round(extra_pt, 3),
        name_pt=round(name_pt, 3),
        blocks=tuple(blocks),
        char_pt=char_pt,
        orientation=orientation,
    )
