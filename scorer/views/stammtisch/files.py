"""The year's paper and files: the year sheet as PDF, the ranking as CSV, the year as Excel.

All three are made from the same plain tables (:func:`year_tables`): the ranking
(members, then the guests without a place), the evenings, the money (open
balances and the year's transfers, or the kitty), the records.  CSV as the
match's sheet (:mod:`scorer.spreadsheet`: semicolons, UTF-8 with BOM, CRLF, text
a spreadsheet would read as a formula quoted); Excel a sheet per table, numbers as
numbers, every text written as text; the PDF the same tables with the chart.
Through the twin as through the members' link: the files hold no link.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from flask import Blueprint
from flask_babel import get_locale, gettext
from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from werkzeug.wrappers import Response as WerkzeugResponse

from ... import slots
from ...chart import chart
from ...extensions import limiter
from ...pdf import PdfBusy
from ...pdf.stammtisch import year_pdf
from ...services.stammtisch import groups
from ...services.stammtisch.reading import YearView, year_view
from ...spreadsheet import csv_cell
from ...stammtisch_models import Stammtisch
from ...words import money
from ..files import download, file_name
from .words import (
    MONEY_MODES,
    MONEY_SHORT,
    RANKED_BY,
    RECORD_TITLES,
    day_long,
    names_of,
    record_value,
)

bp = Blueprint("st_files", __name__)

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV = "text/csv; charset=utf-8"
_SHEET_NAME = re.compile(r"[\[\]:*?/\\']")


@dataclass(frozen=True)
class Table:
    """One table of the year: its title, head and rows (numbers stay numbers); ``widths``
    are its columns' widths on paper (mm, 0: what is left), so that WeasyPrint lays the
    table out once instead of measuring every cell (a fixed table layout)."""

    title: str
    head: list[str]
    rows: list[list[Any]]
    widths: tuple[int, ...] = ()


def euros(cents: int) -> Decimal:
    """Cents as a number of euros (a spreadsheet adds them up)."""
    return Decimal(cents) / 100


def ranking_table(view: YearView) -> Table:
    """The ranking: a line per member (then the guests, without a place)."""
    head = [
        gettext("Place"),
        gettext("Name"),
        gettext("Points"),
        gettext("Matches"),
        gettext("Matches won"),
        gettext("Hands"),
        gettext("Hands won"),
        gettext("Hands lost"),
        gettext("Lost games"),
        gettext("Evenings"),
        gettext("Average per evening"),
        gettext("Money (€)"),
        gettext("Note"),
    ]
    rows = []
    for line in [*view.ranking.lines, *view.ranking.guests]:
        member = view.members.get(line.person)
        note = ""
        if line.place is None:
            note = gettext("guest")
        elif member is not None and member.left_on is not None:
            note = gettext("left on %(day)s", day=day_long(member.left_on))
        rows.append(
            [
                line.place if line.place is not None else "",
                view.name(line.person),
                line.points,
                line.matches,
                line.matches_won,
                line.hands,
                line.hands_won,
                line.hands_lost,
                line.lost_games,
                line.evenings,
                "" if line.average is None else line.average,
                euros(line.money),
                note,
            ]
        )
    return Table(gettext("Ranking"), head, rows)


def evenings_table(view: YearView) -> Table:
    """The evenings: day, who sat in (guests marked), the matches' winners, the money."""
    head = [
        gettext("Evening"),
        gettext("Day"),
        gettext("Players"),
        gettext("Matches"),
        gettext("Matches won"),
        gettext("Money"),
    ]
    rows = []
    for night in view.nights:
        players = ", ".join(
            s.name + (" (" + gettext("guest") + ")" if s.guest else "") for s in night.row.sitters
        )
        wins: dict[str, int] = {}
        for match in night.value.matches:
            if match.finished:
                for name in _winners(match):
                    wins[name] = wins.get(name, 0) + 1
        winners = ", ".join(
            f"{name} {count}" for name, count in sorted(wins.items(), key=lambda w: (-w[1], w[0]))
        )
        rows.append(
            [
                night.row.number,
                day_long(night.row.held_on),
                players,
                len(night.value.matches),
                winners,
                str(MONEY_SHORT.get(night.row.money_mode, night.row.money_mode)),
            ]
        )
    return Table(gettext("Evenings"), head, rows, (12, 24, 0, 14, 0, 24))


def _winners(match: Any) -> list[str]:
    return [n for n, p in zip(match.seats, match.parties, strict=True) if p in match.winners]


def money_table(view: YearView) -> Table:
    """The money: per person what is open between people and towards the kitty, then the
    year's transfers and the kitty."""
    ledger = view.ledger
    head = [gettext("Name"), gettext("Open (€)"), gettext("Owed to the kitty (€)")]
    rows: list[list[Any]] = [
        [view.name(a.person), euros(a.open), euros(a.kitty_open)] for a in ledger.accounts
    ]
    if ledger.transfers:
        rows.append([])
        rows.append([gettext("Who pays whom"), "", ""])
        for payer, payee, cents in ledger.transfers:
            rows.append([f"{view.name(payer)} → {view.name(payee)}", euros(cents), ""])
    kitty = ledger.kitty
    if kitty.carried or kitty.paid_in or kitty.paid_out:
        rows.append([])
        rows.append([gettext("Kitty from before"), euros(kitty.carried), ""])
        rows.append([gettext("Paid in"), euros(kitty.paid_in), ""])
        rows.append([gettext("Paid out"), euros(kitty.paid_out), ""])
        rows.append([gettext("In the kitty"), euros(kitty.balance), ""])
    return Table(gettext("Money"), head, rows, (0, 40, 50))


def records_table(view: YearView) -> Table:
    """The records: what, how much, who, and where (evening, match, hand)."""
    head = [
        gettext("Record"),
        gettext("Value"),
        gettext("Who"),
        gettext("Evening"),
        gettext("Match"),
        gettext("Hand"),
    ]
    rows = []
    for record in view.records:
        for holder in record.holders:
            night = view.night(holder.hand.evening)
            rows.append(
                [
                    str(RECORD_TITLES[record.kind]),
                    record_value(record),
                    names_of(holder.people, view.name),
                    day_long(night.row.held_on) if night else holder.hand.evening,
                    holder.hand.match,
                    holder.hand.hand,
                ]
            )
    return Table(gettext("Records"), head, rows, (48, 40, 0, 24, 14, 14))


def year_tables(view: YearView) -> list[Table]:
    """Every table of the year, in the order of the year sheet."""
    return [ranking_table(view), evenings_table(view), money_table(view), records_table(view)]


def _cell(value: Any) -> Any:
    if isinstance(value, Decimal):
        text = f"{value:.2f}"
        locale = get_locale()
        return text.replace(".", ",") if locale is not None and locale.language == "de" else text
    return csv_cell(value)


def year_csv(view: YearView) -> bytes:
    """The ranking as CSV bytes (a line per person)."""
    table = ranking_table(view)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow([_cell(cell) for cell in table.head])
    for row in table.rows:
        writer.writerow([_cell(cell) for cell in row])
    return out.getvalue().encode("utf-8-sig")


def _text(cell: Any, value: str) -> None:
    """Write ``value`` as text: openpyxl would store ``=…`` as a formula."""
    cell.value = value
    cell.data_type = "s"


def year_xlsx(title: str, tables: list[Table]) -> bytes:
    """The year as an Excel workbook: a sheet per table, a title, a bold frozen head."""
    book = Workbook()
    first = book.active
    assert first is not None
    book.remove(first)
    for table in tables:
        sheet = book.create_sheet((_SHEET_NAME.sub(" ", table.title).strip() or "Jahr")[:31])
        _text(sheet.cell(row=1, column=1), title)
        sheet.cell(row=1, column=1).font = Font(bold=True, size=14)
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
                elif isinstance(value, Decimal):
                    cell.value = float(value)
                    cell.number_format = "#,##0.00"
                elif value is not None:
                    cell.value = value
                if column <= len(widths):
                    widths[column - 1] = max(widths[column - 1], len(str(value or "")))
        for column, width in enumerate(widths, 1):
            sheet.column_dimensions[get_column_letter(column)].width = min(max(width, 6) + 2, 50)
        sheet.freeze_panes = "A4"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _title(view: YearView) -> str:
    return f"{view.group.name} · {view.year.label}"


def _name(view: YearView, ext: str) -> str:
    return file_name("stammtisch", view.group.name, view.year.label, ext=ext)


def _pdf(group: Stammtisch, number: int) -> WerkzeugResponse:
    view = year_view(group, number)
    lines = view.ranking.lines
    drawn = None
    if lines and len(view.ranking.running) > 1:
        drawn = chart(
            [view.name(line.person) for line in lines],
            [list(points) for points in view.ranking.running],
            None,
            paper=True,
        )
    try:
        data = year_pdf(
            _title(view),
            view=view,
            tables=year_tables(view),
            chart=drawn,
            ranked_by=RANKED_BY,
            money_modes=MONEY_MODES,
            money=money,
        )
    except PdfBusy:
        return slots.busy_response(gettext("Other score sheets are being printed right now."))
    return download(data, "application/pdf", _name(view, "pdf"), inline=True)


def _csv(group: Stammtisch, number: int) -> WerkzeugResponse:
    view = year_view(group, number)
    return download(year_csv(view), CSV, _name(view, "csv"))


def _xlsx(group: Stammtisch, number: int) -> WerkzeugResponse:
    view = year_view(group, number)
    return download(year_xlsx(_title(view), year_tables(view)), XLSX, _name(view, "xlsx"))


@bp.get("/st/<token:token>/year/<int:number>/year.pdf")
@limiter.limit(slots.pdf_limit)
def pdf(token: str, number: int) -> WerkzeugResponse:
    """The year sheet as PDF."""
    return _pdf(groups.get_group(token), number)


@bp.get("/sv/<token:view_token>/year/<int:number>/year.pdf", endpoint="pdf_view")
@limiter.limit(slots.pdf_limit)
def pdf_of_view(view_token: str, number: int) -> WerkzeugResponse:
    """The year sheet as PDF (the read-only twin)."""
    return _pdf(groups.get_group_for_view(view_token), number)


@bp.get("/st/<token:token>/year/<int:number>/year.csv", endpoint="csv")
def csv_file(token: str, number: int) -> WerkzeugResponse:
    """The year's ranking as CSV."""
    return _csv(groups.get_group(token), number)


@bp.get("/sv/<token:view_token>/year/<int:number>/year.csv", endpoint="csv_view")
def csv_of_view(view_token: str, number: int) -> WerkzeugResponse:
    """The year's ranking as CSV (the read-only twin)."""
    return _csv(groups.get_group_for_view(view_token), number)


@bp.get("/st/<token:token>/year/<int:number>/year.xlsx")
def xlsx(token: str, number: int) -> WerkzeugResponse:
    """The year as an Excel workbook."""
    return _xlsx(groups.get_group(token), number)


@bp.get("/sv/<token:view_token>/year/<int:number>/year.xlsx", endpoint="xlsx_view")
def xlsx_of_view(view_token: str, number: int) -> WerkzeugResponse:
    """The year as an Excel workbook (the read-only twin)."""
    return _xlsx(groups.get_group_for_view(view_token), number)
