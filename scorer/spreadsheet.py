"""The sheet of a match as CSV, for spreadsheets.

One line per hand: who declared (the player, also at a table of teams), the bid,
the trump by its name and how it ended, each party's result and
running total, then each party's melds and trick points as entered (empty where
the hand has none: a special game, a party that sat out).  Semicolons (German
Excel opens it with a double click; LibreOffice and Numbers detect it), UTF-8
with a byte order mark so Excel reads the umlauts, CRLF line ends, numbers as
plain integers with a minus sign (a spreadsheet cannot add up bracketed losses).
A text cell that a spreadsheet would take for a formula (a player called
``=HYPERLINK(…)``) gets a leading apostrophe (OWASP, "CSV injection"); numbers
stay numbers.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from flask_babel import gettext as _

from .rules import SPECIAL_GAMES
from .services import Sheet
from .words import outcome_text, suit_name

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_cell(value: Any) -> Any:
    """A cell as a spreadsheet should read it: text that starts like a formula is quoted.

    Numbers are written as they are (``-180`` stays a number).
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def sheet_csv(current: Sheet) -> bytes:
    """The sheet as CSV bytes: UTF-8 with BOM, semicolons, CRLF; heads in the user's language."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    head = [_("Hand"), _("Dealer"), _("Declarer"), _("Bid"), _("Trump"), _("Outcome")]
    for name in current.parties:
        head += [name, _("%(name)s total", name=name)]
    for name in current.parties:
        head += [_("%(name)s melds", name=name), _("%(name)s tricks", name=name)]
    writer.writerow([csv_cell(cell) for cell in head])
    for row in current.rows:
        hand = row.hand
        line: list[Any] = [
            row.number,
            row.dealer,
            row.declarer or "",  # at a table of teams, the player who declared
            hand.bid or "",
            suit_name(hand.trump),
            outcome_text(hand),
        ]
        for i, points in enumerate(row.points):
            line += ["" if row.sits_out[i] else points, row.totals[i]]
        lines = {p.party: p for p in hand.parties}
        for i in range(len(current.parties)):
            party = lines.get(i)
            if party is None or party.sits_out or hand.outcome in SPECIAL_GAMES:
                line += ["", ""]  # nothing melded or played out
            else:
                line += [party.melds, "" if party.tricks is None else party.tricks]
        writer.writerow([csv_cell(cell) for cell in line])
    total: list[Any] = [_("Total"), "", "", "", "", ""]
    for value in current.totals:
        total += ["", value]
    total += ["", ""] * len(current.parties)
    writer.writerow([csv_cell(cell) for cell in total])
    return out.getvalue().encode("utf-8-sig")
