"""The paper trail of a match: the score sheet as PDF (A4) and as CSV for spreadsheets."""

from __future__ import annotations

from flask import Blueprint, Response
from flask_babel import gettext

from .. import services, slots
from ..extensions import limiter
from ..pdf import PdfBusy, sheet_pdf
from ..spreadsheet import sheet_csv
from .files import download, file_name

bp = Blueprint("sheets", __name__)


def _match(number: int) -> str:
    """The match in a download's name, in the reader's words ("partie-2", "match-2")."""
    return gettext("match %(number)s", number=number)


@bp.get("/m/<token:token>/sheet.pdf")
@limiter.limit(slots.pdf_limit)
def pdf(token: str) -> Response:
    """The score sheet of a match as a PDF (A4 portrait, for printing and signing)."""
    match = services.get_match(token)
    name = file_name("binokel", match.session.title, _match(match.number), ext="pdf")
    try:
        data = sheet_pdf(match)
    except PdfBusy:
        return slots.busy_response(gettext("Other score sheets are being printed right now."))
    return download(data, "application/pdf", name, inline=True)


@bp.get("/m/<token:token>/sheet.csv")
def csv(token: str) -> Response:
    """The sheet as CSV: semicolons, UTF-8 with BOM (opens in German Excel by double click)."""
    match = services.get_match(token)
    data = sheet_csv(services.sheet(match))
    name = file_name("binokel", match.session.title, _match(match.number), ext="csv")
    return download(data, "text/csv; charset=utf-8", name)
