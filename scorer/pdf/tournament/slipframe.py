"""The drawing a paper slip shares with every slip of its kind of table: lines and grey only.

The boxes to write in, the rules under every deal, the lines between a
player's melds, tricks and points, the totals' rows and the grey of the deals a
player sits out (a table of four) are the same on every slip of three or four
players with the same deals: one SVG drawing (:func:`frame`), the background of
a block of fixed size, which WeasyPrint parses once per document however many
slips show it.  It holds no text: WeasyPrint draws an SVG's text letter by
letter (the words go on it as columns of lines, :mod:`.slipgrid`).  The
signatures' lines are one more (:func:`sign_frame`).  Sizes in mm.
"""

from __future__ import annotations

import base64
import functools
from dataclasses import dataclass

PAGE_MM = 186.0
"""The width between the page margins."""
FIXED_MM = (8.0, 21.0, 12.0, 16.0)
"""The deal's number, the dealer, the bid, the declarer's seat."""
NAME_MM = 8.0
"""The heads' first row: the players' seats and names."""
SUB_MM = 4.5
"""The heads' second row: melds, tricks, points."""
SUM_MM = 9.0
"""A row of the totals, of the lost games."""
SIGN_GAP_MM = 10.0
SIGN_ROW_MM = 12.5
SIGN_GUTTER_MM = 8.0
PT_MM = 25.4 / 72
THIN = 0.5 * PT_MM
THICK = 1.4 * PT_MM
RULE = "#888"
OUT = "#d4d4d4"
SVG_URI = "data:image/svg+xml;base64,"
SVG_HEAD = b'<svg xmlns="http://www.w3.org/2000/svg" '
"""How each of our drawings begins (the PDF's URL fetcher takes no other SVG)."""


@dataclass(frozen=True)
class Geometry:
    """Where the lines of a slip's grid go (mm): its columns and rows."""

    seats: int
    row_mm: float

    @property
    def player_mm(self) -> float:
        return (PAGE_MM - sum(FIXED_MM)) / max(1, self.seats)

    @property
    def fixed_x(self) -> tuple[float, ...]:
        """The left edge of each fixed column, and where the players begin."""
        edges = [0.0]
        for width in FIXED_MM:
            edges.append(edges[-1] + width)
        return tuple(edges)

    def player_x(self, index: int) -> float:
        return self.fixed_x[-1] + index * self.player_mm

    @property
    def body_top(self) -> float:
        return NAME_MM + SUB_MM

    def height(self, deals: int, sums: bool) -> float:
        """A block of ``deals`` (and the totals' rows): its height."""
        return self.body_top + deals * self.row_mm + (2 * SUM_MM if sums else 0.0)


class _Svg:
    """An SVG drawing in mm, built up line by line."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def line(
        self, x1: float, y1: float, x2: float, y2: float, width: float, colour: str = "#000"
    ) -> None:
        self.parts.append(
            f'<line x1="{x1:.3f}" y1="{y1:.3f}" x2="{x2:.3f}" y2="{y2:.3f}" '
            f'stroke="{colour}" stroke-width="{width:.3f}"/>'
        )

    def rect(self, x: float, y: float, width: float, height: float, colour: str) -> None:
        self.parts.append(
            f'<rect x="{x:.3f}" y="{y:.3f}" width="{width:.3f}" height="{height:.3f}" '
            f'fill="{colour}"/>'
        )

    def uri(self, height_mm: float) -> str:
        size = f'width="{PAGE_MM}mm" height="{height_mm:.3f}mm"'
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" {size} '
            f'viewBox="0 0 {PAGE_MM} {height_mm:.3f}">{"".join(self.parts)}</svg>'
        )
        return SVG_URI + base64.b64encode(svg.encode()).decode()


@functools.lru_cache(maxsize=64)
def frame(seats: int, row_mm: float, sits_out: tuple[int | None, ...], sums: bool) -> str:
    """The lines of a block of deals (``sits_out``: who sits out each, by seat index) and the
    grey of the deals sat out, as an SVG ``data:`` URI; ``sums``: the totals' rows below."""
    shape = Geometry(seats, row_mm)
    svg = _Svg()
    xs, pm = shape.fixed_x, shape.player_mm
    top = shape.body_top
    bottom = top + len(sits_out) * row_mm
    height = shape.height(len(sits_out), sums)
    right = PAGE_MM
    for deal, out in enumerate(sits_out):
        if out is not None:
            svg.rect(shape.player_x(out), top + deal * row_mm, pm, row_mm, OUT)
    for deal in range(1, len(sits_out)):
        svg.line(0, top + deal * row_mm, right, top + deal * row_mm, 0.15, RULE)
    svg.line(0, THIN / 2, right, THIN / 2, THIN)
    svg.line(xs[-1], NAME_MM, right, NAME_MM, THIN)
    svg.line(0, top, right, top, THIN)
    for x in (THIN / 2, *xs[1:-1]):
        svg.line(x, 0, x, bottom, THIN)
    for index in range(seats):
        x = shape.player_x(index)
        for third in (1, 2):
            svg.line(x + pm * third / 3, NAME_MM, x + pm * third / 3, bottom, THIN)
    for index in range(seats + 1):
        x = min(shape.player_x(index), right - THICK / 2)
        svg.line(x, 0, x, height, THICK)
    if sums:
        svg.line(0, bottom, right, bottom, THICK)
        svg.line(0, bottom + SUM_MM, right, bottom + SUM_MM, THIN)
        svg.line(0, height - THIN / 2, right, height - THIN / 2, THIN)
        svg.line(THIN / 2, bottom, THIN / 2, height, THIN)
    else:
        svg.line(0, bottom - THIN / 2, right, bottom - THIN / 2, THIN)
    return svg.uri(height)


@functools.lru_cache(maxsize=8)
def sign_frame(seats: int) -> str:
    """The signature lines, two to a row, as an SVG ``data:`` URI."""
    svg = _Svg()
    half = (PAGE_MM - SIGN_GUTTER_MM) / 2
    for seat in range(seats):
        x = 0.0 if seat % 2 == 0 else half + SIGN_GUTTER_MM
        y = SIGN_GAP_MM + (seat // 2) * SIGN_ROW_MM
        svg.line(x, y, x + half, y, 0.7 * PT_MM)
    return svg.uri(sign_height(seats))


def sign_height(seats: int) -> float:
    """The signatures' block: a gap, a row per two players, the organiser's initials."""
    return SIGN_GAP_MM + (seats + 1) // 2 * SIGN_ROW_MM + 4.0
