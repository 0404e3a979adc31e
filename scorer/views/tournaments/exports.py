"""The ranking as a spreadsheet: CSV and Excel, for the club's website and newsletter.

``/t/<token>/ranking.csv|xlsx`` for the organiser, ``/p/<view_token>/ranking.csv|xlsx``
on the public ranking (which is public anyway).  The lines are the ranking's
own (:func:`scorer.services.tournaments.published.fresh_standings`: never ranked
again here): place, start number, name, club, points per round, total, lost
games, and the marks (withdrawn, from a paper slip).  Before the last round is
closed the ranking is marked provisional (a last line in the CSV, the title
of the sheet, and the file name).

CSV as the match's sheet (:mod:`scorer.spreadsheet`): semicolons, UTF-8 with
BOM, CRLF, a leading apostrophe on text a spreadsheet would read as a formula.
Excel with openpyxl: a title, the header row in bold and frozen, numbers as
numbers, column widths; every text is written as text (a name ``=HYPERLINK(…)``
stays a name, never a formula).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Any

from flask import Blueprint
from flask_babel import gettext as _
from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from werkzeug.wrappers import Response as WerkzeugResponse

from ...services.tournaments import setup
from ...services.tournaments.published import fresh_standings
from ...services.tournaments.standings import Standings
from ...spreadsheet import csv_cell
from ...tournament_models import Tournament
from ..files import download, file_name
from .shared import day_text

bp = Blueprint("t_export", __name__)

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV = "text/csv; charset=utf-8"
_SHEET_NAME = re.compile(r"[\[\]:*?/\\']")


@dataclass(frozen=True)
class Table:
    """The ranking as rows of cells: a title, the header, the lines, a closing note."""

    title: str
    head: list[str]
    rows: list[list[Any]]
    note: str
    provisional: bool


def ranking_table(tournament: Tournament, current: Standings) -> Table:
    """The ranking's lines as cells (numbers stay numbers; a round not played is empty)."""
    head = [_("Place"), _("Start number"), _("Name"), _("Club")]
    head += [_("Round %(number)s", number=n) for n in current.rounds]
    head += [_("Total"), _("Lost games"), _("Marks")]
    rows = []
    for line in current.lines:
        marks = []
        if line.player.withdrawn:
            marks.append(_("withdrawn"))
        paper = [str(n) for n, p in zip(current.rounds, line.paper, strict=False) if p]
        if paper:
            marks.append(_("from paper (round %(rounds)s)", rounds=", ".join(paper)))
        rows.append(
            [line.place, line.player.number, line.player.name, line.player.club]
            + ["" if points is None else points for points in line.rounds]
            + [line.total, line.lost, "; ".join(marks)]
        )
    title = " · ".join(p for p in (tournament.name, day_text(tournament.held_on)) if p)
    provisional = not current.final
    note = ""
    if provisional:
        note = (
            _("Provisional: round %(number)s is still being played.", number=current.progress.round)
            if current.provisional and current.progress is not None
            else _("Provisional: not every round has been played.")
        )
    return Table(title=title, head=head, rows=rows, note=note, provisional=provisional)


def ranking_csv(table: Table) -> bytes:
    """The ranking as CSV bytes: UTF-8 with BOM, semicolons, CRLF, formula-like text quoted."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow([csv_cell(cell) for cell in table.head])
    for row in table.rows:
        writer.writerow([csv_cell(cell) for cell in row])
    if table.note:
        writer.writerow([csv_cell(table.note)])
    return out.getvalue().encode("utf-8-sig")


def _text(cell: Any, value: str) -> None:
    """Write ``value`` as text: openpyxl would store ``=…`` as a formula."""
    cell.value = value
    cell.data_type = "s"


def ranking_xlsx(table: Table) -> bytes:
    """The ranking as an Excel workbook: title, bold frozen header, numbers as numbers."""
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = (_SHEET_NAME.sub(" ", table.title).strip() or _("Ranking"))[:31]
    _text(sheet.cell(row=1, column=1), table.title)
    sheet.cell(row=1, column=1).font = Font(bold=True, size=14)
    if table.note:
        _text(sheet.cell(row=2, column=1), table.note)
    widths = [len(h) for h in table.head]
    for column, heading in enumerate(table.head, 1):
        cell = sheet.cell(row=3, column=column)
        _text(cell, heading)
        cell.font = Font(bold=True)
    for number, row in enumerate(table.rows, 4):
        for column, value in enumerate(row, 1):
            cell = sheet.cell(row=number, column=column)
            if isinstance(value, str):
                _text(cell, value)
            elif value is not None:
                cell.value = value
            widths[column - 1] = max(widths[column - 1], len(str(value or "")))
    for column, width in enumerate(widths, 1):
        sheet.column_dimensions[get_column_letter(column)].width = min(max(width, 6) + 2, 50)
    sheet.freeze_panes = "A4"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _name(tournament: Tournament, table: Table, ext: str) -> str:
    state = _("provisional") if table.provisional else ""
    return file_name(_("ranking"), tournament.name, tournament.held_on, state, ext=ext)


def _csv(tournament: Tournament) -> WerkzeugResponse:
    table = ranking_table(tournament, fresh_standings(tournament.id))
    return download(ranking_csv(table), CSV, _name(tournament, table, "csv"))


def _xlsx(tournament: Tournament) -> WerkzeugResponse:
    table = ranking_table(tournament, fresh_standings(tournament.id))
    return download(ranking_xlsx(table), XLSX, _name(tournament, table, "xlsx"))


@bp.get("/t/<token:token>/ranking.csv", endpoint="ranking_csv")
def ranking_csv_page(token: str) -> WerkzeugResponse:
    """The ranking as CSV (the organiser's link)."""
    return _csv(setup.get_tournament(token))


@bp.get("/t/<token:token>/ranking.xlsx", endpoint="ranking_xlsx")
def ranking_xlsx_page(token: str) -> WerkzeugResponse:
    """The ranking as an Excel sheet (the organiser's link)."""
    return _xlsx(setup.get_tournament(token))


@bp.get("/p/<token:view_token>/ranking.csv")
def public_csv(view_token: str) -> WerkzeugResponse:
    """The ranking as CSV (the public link: the ranking is public anyway)."""
    return _csv(setup.get_tournament_for_view(view_token))


@bp.get("/p/<token:view_token>/ranking.xlsx")
def public_xlsx(view_token: str) -> WerkzeugResponse:
    """The ranking as an Excel sheet (the public link)."""
    return _xlsx(setup.get_tournament_for_view(view_token))
