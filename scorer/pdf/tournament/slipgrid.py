"""A paper slip drawn cheaply: one shared drawing per kind of table, a few columns of text.

A slip is mostly empty boxes to write in, and WeasyPrint pays for every box it
lays out (about a millisecond each): as a table of cells, a slip cost 80–170 ms,
half a minute for the 200 tables of a big round.  But the lines, the boxes and
the grey of the deals a player sits out are the same on every slip of a kind of
table (three or four players, the same deals): so they are one SVG drawing of
lines and rectangles (:func:`.slipframe.frame`, no text: WeasyPrint draws an SVG's text
letter by letter), the background of a block of fixed size, parsed once per
document however many slips show it.  The words on it are a few absolutely
placed columns of lines (``white-space: pre``: a line costs a line box, not a
cell): a row of heads is one line, its words set apart by spaces measured in
the font (:func:`spaced`); the deals' numbers, who deals, the players' names
are a column each.

The deals come in blocks, one a page (:func:`pages`: a table of 60 deals runs
onto the next page, its heads again); the last block has the rows of the totals
and lost games, and the signatures follow on the same page.  Names are cut to
their column with "…" (:func:`clip`, :func:`wrapped`): nothing runs out of its
box.  The words come in the page's language (:class:`Words`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup
from markupsafe import escape as escape_markup

from ..grid import one_line
from .lines import text_pt
from .slipframe import (
    FIXED_MM,
    NAME_MM,
    PAGE_MM,
    PT_MM,
    SIGN_GAP_MM,
    SIGN_GUTTER_MM,
    SIGN_ROW_MM,
    SUB_MM,
    SUM_MM,
    Geometry,
    frame,
    sign_frame,
    sign_height,
)

PAGE_HEIGHT_MM = 297.0 - 14.0 - 15.0
"""The height between the page margins (``pdf/tournament/_base.html``)."""
TAIL = 3
"""The last deals that go onto the page of the totals when these do not fit below all."""
TITLE_MM = 40.0
"""The slip's title, its tournament line and how it is filled in, above the players'
lines: rather too much (the first page's block then fits below it)."""
SEAT_MM = 3.6
"""The dealer's seat number before the dealer's name."""
PAD_MM = 0.8
"""A column's text clear of its lines, either side."""
TEXT_EM = (1901 + 483) / 2048
"""DejaVu's ascent and descent (hhea), in em: the height of a line's text."""
CONDENSED = "DejaVuSansCondensed.ttf"
CONDENSED_BOLD = "DejaVuSansCondensed-Bold.ttf"
SANS = "DejaVuSans.ttf"


@dataclass(frozen=True)
class Words:
    """The slip's words in the page's language."""

    deal: str
    dealer: str
    bid: str
    declarer: str
    seat: str
    melds: str
    tricks: str
    points: str
    total: str
    lost: str
    sits_out: str
    typed_in: str
    signature: str
    schreiber: str


def clip(text: str, font: str, size: float, room_pt: float) -> str:
    """``text`` cut with "…" to fit ``room_pt`` in ``font`` (a letter the font lacks:
    counted as wide as an M, so a cut never overflows)."""
    if (text_pt(text, font, size) or room_pt + 1) <= room_pt:
        return text
    em = text_pt("M", font, size) or size
    out = ""
    for char in text:
        width = text_pt(out + char + "…", font, size)
        if width is None:
            width = (len(out) + 2) * em
        if width > room_pt:
            break
        out += char
    return out + "…"


def _room(width_mm: float) -> float:
    """The room in pt for text in a column ``width_mm`` wide (padding off, a point spare)."""
    return (width_mm - 2 * PAD_MM) / PT_MM - 1


def spaced(items: Sequence[tuple[float, str]], font: str, size: float) -> str:
    """One line with each text starting near its place (``(left_mm, text)``, left to right):
    the gaps are spaces, as many as the font's space is wide (half a space off at most).

    A row of heads as one line of text costs one line box instead of a box per head.
    """
    space = text_pt(" ", font, size) or size / 3
    line, cursor = "", 0.0
    for left_mm, text in items:
        count = max(1 if line else 0, round((left_mm / PT_MM - cursor) / space))
        line += " " * count + text
        cursor += count * space + (text_pt(text, font, size) or len(text) * size * 0.6)
    return line


def _centred(middle_mm: float, text: str, font: str, size: float) -> tuple[float, str]:
    width = text_pt(text, font, size) or len(text) * size * 0.6
    return middle_mm - width * PT_MM / 2, text


# -- what differs from slip to slip ------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """A column of lines placed in a block (mm); ``kind`` its CSS class (font, line height)."""

    kind: str
    left_mm: float
    top_mm: float
    width_mm: float
    text: Markup


@dataclass(frozen=True)
class Block:
    """A block of fixed height: its drawing (a ``data:`` URI, or "" for none), its columns."""

    frame: str
    height_mm: float
    columns: tuple[Column, ...]


@dataclass(frozen=True)
class SlipGrid:
    """A slip below its title: the players, the blocks of deals, the signatures."""

    players: Block
    blocks: tuple[Block, ...]
    sign: Block


PLAYER_PT = 9.5
PLAYER_LINE_MM = 5.0
NAME_HEAD_PT = 8.0
HEAD_PT = 6.5
OUT_PT = 7.0
DEAL_PT = 8.0
SIGN_PT = 8.0


def _lines(texts: Sequence[object]) -> Markup:
    return Markup("\n").join(escape_markup(t) for t in texts)


def _players(slip: Any, numbers: Sequence[str], words: Words) -> Block:
    """Seat, start number, name in three columns; seat 1 is the Schreiber and deals first."""
    seats = slip.card.seats
    seat_mm, number_mm = 7.0, 16.0
    name_mm = PAGE_MM - seat_mm - number_mm
    names = []
    for seat in seats:
        name = one_line(seat.name)
        if seat.schreiber:
            role = f" — {words.schreiber}"
            room = _room(name_mm) - (text_pt(role, "DejaVuSans-Bold.ttf", 8.0) or 8.0 * len(role))
            names.append(
                Markup('{}<span class="role">{}</span>').format(
                    clip(name, SANS, PLAYER_PT, room), role
                )
            )
        else:
            names.append(escape_markup(clip(name, SANS, PLAYER_PT, _room(name_mm))))
    columns = (
        Column("people seat", 0.0, 0.0, seat_mm, _lines([s.seat for s in seats])),
        Column("people", seat_mm, 0.0, number_mm, _lines(numbers)),
        Column("people", seat_mm + number_mm, 0.0, name_mm, Markup("\n").join(names)),
    )
    return Block("", len(seats) * PLAYER_LINE_MM, columns)


def wrapped(text: str, font: str, size: float, room_pt: float, most: int = 2) -> list[str]:
    """``text`` in at most ``most`` lines of ``room_pt``, broken between words or after a
    hyphen (a word too long for a line between its letters), the last line cut with "…"."""

    def fits(line: str) -> bool:
        width = text_pt(line, font, size)
        return width is not None and width <= room_pt

    lines: list[str] = []
    gaps: list[str] = []  # what stood before each line in the text: a space, or a hyphen's end
    for word in text.split():
        for k, part in enumerate(re.findall(r"[^-]+-*|-+", word)):
            gap = " " if k == 0 else ""
            if lines and fits(lines[-1] + gap + part):
                lines[-1] += gap + part
                continue
            while not fits(part) and len(lines) < most:
                cut = clip(part, font, size, room_pt)[:-1] or part[:1]  # as much as fits
                lines.append(cut)
                gaps.append(gap)
                part, gap = part[len(cut) :], ""
            lines.append(part)
            gaps.append(gap)
    if len(lines) > most:
        rest = lines[most - 1] + "".join(
            g + line for g, line in zip(gaps[most:], lines[most:], strict=True)
        )
        lines = [*lines[: most - 1], clip(rest, font, size, room_pt)]
    return [line for line in lines if line] or [""]


def _heads(shape: Geometry, seats: Sequence[Any]) -> list[Column]:
    """Each player's seat and name over their three columns, in the middle of the row:
    one line, or two (the second cut with "…")."""
    room = (shape.player_mm - 2 * PAD_MM) / PT_MM - 1
    line_mm = NAME_HEAD_PT * 1.15 * PT_MM
    heads = []
    for index, seat in enumerate(seats):
        lines = wrapped(f"{seat.seat} · {one_line(seat.name)}", CONDENSED_BOLD, NAME_HEAD_PT, room)
        top = (NAME_MM - len(lines) * line_mm) / 2
        x = shape.player_x(index)
        heads.append(Column("head", x, top, shape.player_mm, _lines(lines)))
    return heads


def _deals(shape: Geometry, seats: Sequence[Any], deals: Sequence[Any]) -> list[Column]:
    """The deals' numbers, and who deals each: seat number and name (cut to the column)."""
    x = shape.fixed_x
    name_mm = FIXED_MM[1] - SEAT_MM
    room = _room(name_mm) + PAD_MM / PT_MM
    dealers = [seats[d.dealer] if d.dealer is not None else None for d in deals]
    top = shape.body_top
    return [
        Column("deals number", x[0], top, FIXED_MM[0], _lines([d.number for d in deals])),
        Column(
            "deals dealer-seat",
            x[1],
            top,
            SEAT_MM,
            _lines([s.seat if s is not None else "" for s in dealers]),
        ),
        Column(
            "deals dealer",
            x[1] + SEAT_MM - PAD_MM,
            top,
            name_mm,
            _lines(
                [
                    clip(one_line(s.name), CONDENSED, DEAL_PT, room) if s is not None else ""
                    for s in dealers
                ]
            ),
        ),
    ]


def _sign(seats: Sequence[Any], words: Words) -> Block:
    """The names under the signature lines (seats 1 and 3 on the left, 2 and 4 on the
    right) and the organiser's initials."""
    height = sign_height(len(seats))
    half = (PAGE_MM - SIGN_GUTTER_MM) / 2
    room = half / PT_MM - 2
    # a line box of SIGN_ROW_MM centres its text: its first line's text 1 mm under the line
    top = SIGN_GAP_MM + 1.0 - (SIGN_ROW_MM - TEXT_EM * SIGN_PT * PT_MM) / 2
    columns = []
    for side in (0, 1):
        texts = [
            clip(f"{words.signature} · {s.seat} · {one_line(s.name)}", SANS, SIGN_PT, room)
            for s in seats[side::2]
        ]
        left = 0.0 if side == 0 else half + SIGN_GUTTER_MM
        columns.append(Column("sign", left, top, half, _lines(texts)))
    typed = escape_markup(f"{words.typed_in} ________")
    columns.append(Column("typed", 0.0, height - 3.6, PAGE_MM, typed))
    return Block(sign_frame(len(seats)), height, tuple(columns))


@functools.lru_cache(maxsize=64)
def _static(
    seats: int, row_mm: float, sits_out: tuple[int | None, ...], sums: bool, words: Words
) -> tuple[Column, ...]:
    """The words of a block that are the same on every slip of its kind: the heads, who
    sits out, the totals' labels."""
    shape = Geometry(seats, row_mm)
    xs, pm, top = shape.fixed_x, shape.player_mm, shape.body_top
    size = HEAD_PT
    # the fixed columns' heads at the foot of the head, a long one in two lines
    heads = (words.deal, words.dealer, words.bid, f"{words.declarer} ({words.seat})")
    stacked = [
        wrapped(h, CONDENSED_BOLD, size, (w - 1.0) / PT_MM)
        for h, w in zip(heads, FIXED_MM, strict=True)
    ]
    rows = max(len(lines) for lines in stacked)
    bold = []
    for row in range(rows):
        items = []
        for index, lines in enumerate(stacked):
            line = (rows - len(lines)) if row >= rows - len(lines) else None
            if line is not None:
                middle = xs[index] + FIXED_MM[index] / 2
                items.append(_centred(middle, lines[row - line], CONDENSED_BOLD, size))
        bold.append(spaced(items, CONDENSED_BOLD, size))
    line_mm = size * 1.15 * PT_MM
    subs = []
    for index in range(seats):
        for third, word in enumerate((words.melds, words.tricks, words.points)):
            middle = shape.player_x(index) + pm * (third + 0.5) / 3
            subs.append(_centred(middle, word, CONDENSED, size))
    columns = [
        Column("heads", 0.0, top - 0.7 - rows * line_mm, PAGE_MM, _lines(bold)),
        Column(
            "heads sub", 0.0, top - 0.7 - line_mm, PAGE_MM, _lines([spaced(subs, CONDENSED, size)])
        ),
    ]
    if any(out is not None for out in sits_out):
        marks = [
            spaced(
                [_centred(shape.player_x(out) + pm / 2, words.sits_out, CONDENSED, OUT_PT)],
                CONDENSED,
                OUT_PT,
            )
            if out is not None
            else ""
            for out in sits_out
        ]
        columns.append(Column("deals out", 0.0, top, PAGE_MM, _lines(marks)))
    if sums:
        bottom = top + len(sits_out) * row_mm
        labels = _lines([words.total, words.lost])
        columns.append(Column("labels", 0.0, bottom, xs[-1] - 2.0, labels))
    return tuple(columns)


def pages(deals: int, seats: int, row_mm: float) -> list[int]:
    """How many deals each page's block holds: page 1 what fits below the title and the
    players, every further page a page full; the last block leaves room for the totals and
    the signatures (and takes :data:`TAIL` deals with it, never the totals alone).

    >>> pages(12, 3, 7.5), pages(16, 4, 7.5), pages(60, 3, 5.5), pages(80, 4, 5.5)
    ([12], [16], [36, 24], [35, 42, 3])
    """
    head = NAME_MM + SUB_MM
    room = PAGE_HEIGHT_MM - TITLE_MM - seats * PLAYER_LINE_MM - head
    end = 2 * SUM_MM + sign_height(seats)
    sizes, rest = [], deals
    while True:
        fits = max(1, int(room / row_mm))
        if rest * row_mm + end <= room or rest == 0:
            sizes.append(rest)
            return sizes
        take = max(1, min(fits, rest - TAIL))
        sizes.append(take)
        rest -= take
        room = PAGE_HEIGHT_MM - head


def build(slip: Any, row_mm: float, words: Words, numbers: Sequence[str]) -> SlipGrid:
    """The grid of ``slip`` (paper.Slip) with lines of ``row_mm``, in ``words``;
    ``numbers``: each player's start number as the page writes it ("No. 12")."""
    seats = slip.card.seats
    shape = Geometry(len(seats), row_mm)
    deals = list(slip.deals)
    chunks, start = [], 0
    for size in pages(len(deals), len(seats), row_mm):
        chunks.append(deals[start : start + size])
        start += size
    blocks = []
    for index, chunk in enumerate(chunks):
        last = index == len(chunks) - 1
        outs = tuple(d.sits_out for d in chunk)
        columns = (
            *_static(len(seats), row_mm, outs, last, words),
            *_heads(shape, seats),
            *_deals(shape, seats, chunk),
        )
        blocks.append(
            Block(frame(len(seats), row_mm, outs, last), shape.height(len(chunk), last), columns)
        )
    return SlipGrid(_players(slip, numbers, words), tuple(blocks), _sign(seats, words))


def frames(grids: Sequence[SlipGrid]) -> dict[str, str]:
    """Every distinct drawing of the grids, each with a class name (``f0``, ``f1`` …).

    A round's slips share a handful (per kind of table, the signatures per number
    of players): written once in the page's style, WeasyPrint reads each once.
    """
    names: dict[str, str] = {}
    for grid in grids:
        for block in (*grid.blocks, grid.sign):
            if block.frame:
                names.setdefault(block.frame, f"f{len(names)}")
    return names
