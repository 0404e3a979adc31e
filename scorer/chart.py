"""The score chart: every party's running total over the hands, as SVG coordinates.

Presentation only.  The running totals are the sheet's (:class:`scorer.services.Sheet`,
whose rows carry the totals that ``scorer.rules.replay`` computed; struck hands are not
on the sheet); this module maps them onto a drawing and nothing else.  The template
``_macros/chart.html`` draws what :func:`chart` returns as an inline ``<svg>`` (no script,
no style attribute: colours are classes in ``static/scorer.css`` and presentation
attributes for the PDF).

>>> c = chart(["Anna", "Ben"], [[0, 0], [120, -40], [300, 20]], target=1000)
>>> [line.points for line in c.lines]
['32,164 123,145 214,118', '32,164 123,170 214,161']
>>> c.target_y, c.zero_y
(10, 164)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from flask import Flask

from . import services
from .models import Match

WIDTH = 340  # the drawing's user units (the SVG scales to the card's width)
HEIGHT = 200
LEFT = 30  # room for the axis' numbers, at least (more for wider ones)
RIGHT = 126  # room for the labels at the lines' ends
TOP = 10
BOTTOM = 30  # room for the hand numbers
LABEL_GAP = 13  # the least distance between two labels' baselines
MAX_POINTS = 150  # more points than that are finer than the drawing: every n-th hand
MAX_LABEL = 9  # characters of a name at the end of its line
# on paper: the text's width (186 mm on A4) at 0.3 mm a unit, the names in full up to
# PAPER_LABEL characters, the type the size of the sheet's (9 units = 7.7 pt)
PAPER_WIDTH = 620
PAPER_HEIGHT = 230
PAPER_LABEL = 34
PAPER_FONT = 9
# dash patterns, so that the lines differ on a black-and-white print as well as in colour
DASHES = ("", "6 3", "2 3", "9 3 2 3", "1 2", "12 4")


@dataclass(frozen=True)
class Line:
    """One party's line: its points, the label at its end and its final total."""

    party: int
    name: str
    short: str  # the name as the label shows it (long ones shortened)
    total: int
    points: str
    end_x: int
    end_y: int
    label_y: int
    dash: str


@dataclass(frozen=True)
class Tick:
    """A number on an axis and where it stands."""

    value: int
    at: int


@dataclass(frozen=True)
class Chart:
    """Everything ``_macros/chart.html`` draws."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    hands: int
    lines: list[Line]
    target: int | None  # None: the match does not end at a target (fixed deals)
    target_y: int | None
    zero_y: int
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    label_x: int
    font_size: int = 10  # the axes' numbers
    label_size: int = 11  # the labels at the lines' ends (bold)
    deals: int | None = None  # a match of a fixed number of deals: how many (the x axis's end)


def _shown_indices(count: int) -> list[int]:
    """The hands drawn: all of them, or evenly spread ones (always the first and last)."""
    if count <= MAX_POINTS:
        return list(range(count))
    step = (count - 1) / (MAX_POINTS - 1)
    return sorted({round(i * step) for i in range(MAX_POINTS)} | {count - 1})


def _nice_step(span: int) -> int:
    """A round distance between the axis' numbers (1, 2, 2.5 or 5 times a power of ten):
    about four of them over ``span``.

    >>> _nice_step(1000), _nice_step(1500), _nice_step(100_000), _nice_step(3)
    (250, 500, 25000, 1)
    """
    raw = max(1, span // 4)
    power = 1
    while True:
        for factor in (1, 2, 2.5, 5):
            step = int(factor * power)
            if step >= raw and step == factor * power:
                return step
        power *= 10


def _label_width(value: int) -> int:
    """About how wide an axis number is drawn (10 units a character: digits, separators,
    the brackets of a loss).

    >>> _label_width(500), _label_width(100_000), _label_width(-1500)
    (18, 39, 42)
    """
    digits = len(str(abs(value)))
    chars = digits + (digits - 1) // 3 * 0.5 + (2.5 if value < 0 else 0)
    return round(chars * 6)


MINUS = "\u2212"  # the sheet's minus (words.MINUS; the words are a sibling of this module)
# DejaVu Sans Bold (the PDF's "Sheet Sans"), in ems: the widest of each kind of character,
# so that a label measured here is never wider on paper (m, w, M and W are wider still)
_EM_WIDE = {**dict.fromkeys("mwMW", 1.1), **dict.fromkeys("()", 0.46), " ": 0.35}
_EM_NARROW = dict.fromkeys(".,;:'", 0.4)


def _em(char: str) -> float:
    if char in _EM_WIDE:
        return _EM_WIDE[char]
    if char in _EM_NARROW:
        return _EM_NARROW[char]
    if char.isdigit():
        return 0.7
    if char.islower():
        return 0.72
    if char.isupper():
        return 0.85
    return 1.0  # the minus (U+2212), &, … and anything else


def _text_width(text: str, size: int) -> int:
    """At most how wide a bold label of ``size`` units is drawn.

    >>> _text_width("Anna 1.110", 10), _text_width("Jürgen (−350)", 9)
    (66, 80)
    """
    return math.ceil(sum(_em(char) for char in text) * size)


def _written(total: int) -> str:
    """A total as the label writes it (``words.signed``: losses in brackets with a minus,
    a separator per three digits), for its width.

    >>> _written(1110), _written(-350)
    ('1,110', '(−350)')
    """
    return f"({MINUS}{-total:,})" if total < 0 else f"{total:,}"


def _spread(wanted: list[int], low: int, high: int, gap: int = LABEL_GAP) -> list[int]:
    """Label baselines as near to ``wanted`` as they can be, at least ``gap`` apart."""
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    placed: dict[int, int] = {}
    last = low - gap
    for i in order:
        y = max(wanted[i], last + gap)
        placed[i] = y
        last = y
    overflow = last - high
    if overflow > 0:  # pushed below the drawing: move them all up, keeping the gaps
        for i in order:
            placed[i] -= overflow
    return [placed[i] for i in range(len(wanted))]


def chart(
    parties: Sequence[str],
    running: Sequence[Sequence[int]],
    target: int | None,
    *,
    deals: int | None = None,
    paper: bool = False,
) -> Chart:
    """The chart of ``running`` (one list of totals per point, the first the start: zeros).

    Negative totals are drawn below the zero line; the target is a line when it fits the
    scale (always: the scale reaches it).  A match of a fixed number of ``deals`` has no
    target (None): its hands axis runs to the last deal, so the chart shows how far it is.
    ``paper``: the PDF's drawing, as wide as the
    page's text, its type the sheet's size and the names in full (up to PAPER_LABEL
    characters), the plot leaving room for the longest label:

    >>> c = chart(["Anna-Lena Müller & Carl-Friedrich", "Bernhard & Dorothea"],
    ...           [[0, 0], [230, 140], [1110, 1110]], 1000, paper=True)
    >>> [line.short for line in c.lines], c.right, c.label_size
    (['Anna-Lena Müller & Carl-Friedrich', 'Bernhard & Dorothea'], 356, 9)
    """
    width, height = (PAPER_WIDTH, PAPER_HEIGHT) if paper else (WIDTH, HEIGHT)
    max_label = PAPER_LABEL if paper else MAX_LABEL
    font_size, label_size = (PAPER_FONT, PAPER_FONT) if paper else (10, 11)
    count = len(running)
    shown = _shown_indices(count)
    values = [t for i in shown for t in running[i]]
    low = min([0, *values])
    high = max([target or 0, *values, 1])
    span = high - low
    step = _nice_step(span)
    first_tick = -(-low // step) * step
    tick_values = range(first_tick, high + 1, step)
    left = max(LEFT, max(_label_width(v) for v in tick_values) + 5)
    shorts = [name if len(name) <= max_label else name[: max_label - 1] + "…" for name in parties]
    # room for the longest label as it is written (a loss in brackets), but the plot keeps
    # half the width; on the screen at least RIGHT
    longest = max(
        _text_width(f"{short} {_written(running[-1][p])}", label_size)
        for p, short in enumerate(shorts)
    )
    room = min(longest + 12, width // 2 - left)
    right = room if paper else max(RIGHT, room)
    plot_w = width - left - right
    plot_h = height - TOP - BOTTOM
    last = max(1, count - 1, deals or 0)

    def x_of(i: int) -> int:
        return left + round(plot_w * i / last)

    def y_of(value: int) -> int:
        return TOP + round(plot_h * (high - value) / span)

    lines = []
    ends = []
    for p, name in enumerate(parties):
        pts = " ".join(f"{x_of(i)},{y_of(running[i][p])}" for i in shown)
        total = running[-1][p]
        ends.append(y_of(total))
        lines.append((p, name, shorts[p], total, pts))
    label_ys = _spread(
        [y + 4 for y in ends], TOP + 4, height - BOTTOM + 4, gap=max(LABEL_GAP, label_size + 2)
    )
    y_ticks = [Tick(v, y_of(v)) for v in tick_values]
    x_step = max(1, -(-last // 5))
    x_ticks = [Tick(i, x_of(i)) for i in range(0, max(count, last + 1), x_step)]
    if (count > 1 or deals) and x_ticks[-1].value != last:
        if x_of(last) - x_ticks[-1].at < 16:
            x_ticks.pop()
        x_ticks.append(Tick(last, x_of(last)))
    return Chart(
        width=width,
        height=height,
        left=left,
        right=width - right,
        top=TOP,
        bottom=height - BOTTOM,
        hands=count - 1,
        lines=[
            Line(p, name, short, total, pts, x_of(last), ends[p], label_ys[p], DASHES[p % 6])
            for p, name, short, total, pts in lines
        ],
        target=target,
        target_y=None if target is None else y_of(target),
        zero_y=y_of(0),
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        label_x=x_of(last) + 6,
        font_size=font_size,
        label_size=label_size,
        deals=deals,
    )


def of_sheet(sheet: services.Sheet, *, paper: bool = False) -> Chart:
    """The chart of a sheet with its rows: the running totals of its hands, from zero."""
    zero = [0] * len(sheet.parties)
    running = [zero, *(row.totals for row in sheet.rows)]
    ruleset = sheet.ruleset
    target = ruleset.target if ruleset.has_target else None
    return chart(sheet.parties, running, target, deals=ruleset.fixed_deals, paper=paper)


def score_chart(match: Match, sheet: services.Sheet, paper: bool = False) -> Chart:
    """``score_chart(match, sheet)`` in a template: the standing (no rows) loads the sheet;
    ``paper=True`` for the PDF (:func:`chart`)."""
    if sheet.played is not None:
        sheet = services.sheet(match)
    return of_sheet(sheet, paper=paper)


def init_app(app: Flask) -> None:
    """The ``score_chart`` template helper."""
    app.jinja_env.globals["score_chart"] = score_chart
