"""A paper slip's grid of deals drawn cheaply: one table row for all the deals.

A slip is mostly empty boxes to write in: sixteen deals of sixteen cells each
cost WeasyPrint a third of a second per slip, a minute for the 200 tables of
a big round.  Here the deals are one table row: the deal numbers and the
dealers are lines of text (a line per deal), and the boxes to write in are
the background of one cell per column — a grey rule at the foot of every
line, the lines between a player's melds, tricks and points, and the grey of
the deals the dealer sits out (a table of four), each one gradient layer the
width of its cell (a narrower layer WeasyPrint 70 paints over the whole cell).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ..grid import hard_stops, one_line
from .lines import text_pt

PAGE_MM = 186.0
"""The width between the page margins."""
FIXED_MM = (8.0, 21.0, 12.0, 16.0)
"""The deal's number, the dealer, the bid, the declarer's seat."""
PAD_MM = 0.8
"""A cell's text padding either side."""
DEALER_PT = 8.0
MM_PT = 72 / 25.4
RULE = "#888"
LINE = "#000"
OUT = "#d4d4d4"


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


@dataclass(frozen=True)
class SlipGrid:
    """What the template draws of one slip's deals: the lines and the cells' backgrounds."""

    row_mm: float
    player_mm: float
    numbers: str
    dealers: Markup
    out: tuple[str, ...]  # per player: "sits out" on the lines of the deals they sit out
    rules: str  # the rule at the foot of every line
    # per player: the rules, the grey of the deals sat out, the lines between the boxes
    boxes: tuple[str, ...]

    @property
    def fixed_mm(self) -> tuple[float, ...]:
        return FIXED_MM


def build(slip: Any, row_mm: float, sits_out: str) -> SlipGrid:
    """The grid of ``slip`` (paper.Slip) with lines of ``row_mm``; ``sits_out`` in words."""
    seats = slip.card.seats
    deals = slip.deals
    player_mm = (PAGE_MM - sum(FIXED_MM)) / max(1, len(seats))
    room = (FIXED_MM[1] - 2 * PAD_MM) * MM_PT - 1
    dealers = []
    for deal in deals:
        if deal.dealer is None:
            dealers.append(Markup(""))
            continue
        seat = seats[deal.dealer]
        number = f"{seat.seat} "
        name_room = room - (text_pt(number, "DejaVuSansCondensed-Bold.ttf", DEALER_PT) or 8)
        name = clip(one_line(seat.name), "DejaVuSansCondensed.ttf", DEALER_PT, name_room)
        dealers.append(Markup("<b>{}</b>{}").format(number, name))
    # a table of three has nobody sitting out: no lines at all (an empty line is a line box)
    out = tuple(
        "\n".join(sits_out if deal.sits_out == index else "" for deal in deals)
        if any(deal.sits_out == index for deal in deals)
        else ""
        for index in range(len(seats))
    )
    line = row_mm - 0.15
    rules = (
        f"linear-gradient(to bottom, transparent {line:.2f}mm, {RULE} {line:.2f}mm) "
        f"0 0 / 100% {row_mm}mm repeat-y"
    )
    width_pt = player_mm * MM_PT
    thirds = ", ".join(
        hard_stops(width_pt * k / 3 - 0.25, width_pt * k / 3 + 0.25, LINE) for k in (1, 2)
    )
    dividers = f"linear-gradient(to right, {thirds})"
    boxes = []
    for index in range(len(seats)):
        out_at = [d for d, deal in enumerate(deals) if deal.sits_out == index]
        layers = [rules]
        if out_at:
            # the deal goes round: this player sits out every len(seats)-th deal from the first
            layers.append(
                f"linear-gradient(to bottom, {OUT} {row_mm}mm, transparent {row_mm}mm) "
                f"0 {out_at[0] * row_mm:.3f}mm / 100% {row_mm * len(seats):.3f}mm repeat-y"
            )
        layers.append(dividers)
        boxes.append(", ".join(layers))
    return SlipGrid(
        row_mm=row_mm,
        player_mm=round(player_mm, 3),
        numbers="\n".join(str(deal.number) for deal in deals),
        dealers=Markup("\n").join(dealers),
        out=out,
        rules=rules,
        boxes=tuple(boxes),
    )


def grids(slips: Sequence[Any], row_mm: float, sits_out: str) -> list[SlipGrid]:
    """The grids of every slip."""
    return [build(slip, row_mm, sits_out) for slip in slips]


def backgrounds(found: Sequence[SlipGrid]) -> dict[str, str]:
    """Every distinct background of the grids, each with a class name (``bg0``, ``bg1`` …).

    A round's slips share a handful of backgrounds (the rules; per seat at a table
    of three or four): written once in the page's style instead of in every cell,
    WeasyPrint parses each once.
    """
    names: dict[str, str] = {}
    for grid in found:
        for background in (grid.rules, *grid.boxes):
            names.setdefault(background, f"bg{len(names)}")
    return names
