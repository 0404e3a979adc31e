"""The tournament on paper (TOURNAMENT.md section 4): table cards, slips, rankings, certificates,
the prize list.

Every printout is a PDF behind the organiser's link, made as the match's
score sheet is (:mod:`scorer.views.sheets`): from the PDF cache when nothing it
shows has changed, else rendered in one of the server's work slots — 503 with
``Retry-After`` when they stay taken, 429 when one device asks too often
(``LIMIT_PDF``).  Each is keyed by what it shows (:mod:`.printouts`): a
round's table cards and slips by its draw, a ranking by its lines, the prize
list by its prizes — so a saved hand leaves the cards and slips in the cache.
A round's cards and slips are made ahead after the draw; a tap while they are
being made gets a page that says so and opens them when they are ready (202,
not counted against ``LIMIT_PDF``).
"""

from __future__ import annotations

from functools import partial

from flask import Blueprint, Response, abort, request
from werkzeug.wrappers import Response as WerkzeugResponse

from ... import slots
from ...extensions import limiter
from ...pdf import tournament as documents
from ...services.tournaments import money, paper, published, setup
from ...words import percent
from . import printouts
from .printouts import Printout, serve

bp = Blueprint("t_paper", __name__)

MAX_NUMBER_DIGITS = 4
"""A round's or table's number in an address has at most this many digits."""


def _counted(response: WerkzeugResponse) -> bool:
    """A PDF counts against the device's ``LIMIT_PDF``; a "being prepared" page does not
    (it asks again by itself every few seconds)."""
    return response.status_code != 202


def _number_arg(name: str) -> int | None:
    """``?<name>=n`` as a number (a round, a table); a value that names nothing is a 404."""
    text = request.args.get(name)
    if text is None or text == "":
        return None
    if not text.isascii() or not text.isdigit() or len(text) > MAX_NUMBER_DIGITS:
        abort(404)
    return int(text)


# -- table cards and paper slips -------------------------------------------------------


@bp.get("/t/<token:token>/rounds/<int:number>/cards.pdf")
@limiter.limit(slots.pdf_limit, deduct_when=_counted)
def round_cards(token: str, number: int) -> Response:
    """The table cards of round ``number``: four A6 cards to an A4 page, each with its QR code."""
    tournament = setup.get_tournament(token)
    row = paper.round_row(tournament, number)
    return serve(tournament, printouts.round_cards(tournament, row))


@bp.get("/t/<token:token>/cards.pdf")
@limiter.limit(slots.pdf_limit)
def all_cards(token: str) -> Response:
    """The table cards of every round drawn so far, round after round."""
    tournament = setup.get_tournament(token)
    if not tournament.round_rows:
        abort(404)
    return serve(tournament, printouts.all_cards(tournament))


@bp.get("/t/<token:token>/rounds/<int:number>/slips.pdf")
@limiter.limit(slots.pdf_limit, deduct_when=_counted)
def slips(token: str, number: int) -> Response:
    """The paper slips of round ``number``: one A4 page per table, a line per deal.

    ``?table=n`` prints one table's slip (the table whose phone failed: quick
    even in a round of 200 tables).
    """
    tournament = setup.get_tournament(token)
    row = paper.round_row(tournament, number)
    table = _number_arg("table")
    if table is not None and not any(t.number == table for t in row.tables):
        abort(404)
    return serve(tournament, printouts.round_slips(tournament, row, table))


# -- rankings and certificates ---------------------------------------------------------


@bp.get("/t/<token:token>/ranking.pdf")
@limiter.limit(slots.pdf_limit)
def ranking(token: str) -> Response:
    """The ranking after the last round drawn (the final one once it is closed), or ``?round=n``."""
    tournament = setup.get_tournament(token)
    number = _number_arg("round")
    if number is not None:
        paper.round_row(tournament, number)
    elif not tournament.round_rows:
        abort(404)
    sheet = paper.ranking_after(tournament, number)
    label = f"round-{number}" if number is not None else ""
    key = documents.document_key("ranking", label, sheet)
    build = partial(documents.ranking_document, sheet)
    return serve(tournament, Printout("ranking", label, key, 0.0, build))


@bp.get("/t/<token:token>/certificates.pdf")
@limiter.limit(slots.pdf_limit)
def certificates(token: str) -> Response:
    """A certificate for every player of the first three places (ties each get one)."""
    tournament = setup.get_tournament(token)
    if not tournament.round_rows:
        abort(404)
    sheet = paper.ranking_after(tournament)
    # what a certificate shows: the podium, after which round of how many, among how many
    shown = (sheet.heading, sheet.after, sheet.final, sheet.rounds, len(sheet.lines), sheet.podium)
    key = documents.document_key("certificates", "", *shown)
    build = partial(documents.certificates, sheet)
    return serve(tournament, Printout("certificates", "", key, 0.0, build))


@bp.get("/t/<token:token>/prizes.pdf")
@limiter.limit(slots.pdf_limit)
def prize_list(token: str) -> Response:
    """The prize list: what each winner gets (money or the item picked), and the joke prize.

    The figures are the money service's (:func:`~scorer.services.tournaments.money.prize_list`
    on the standings the beamer shows); "provisional" until the last round is closed.
    """
    tournament = setup.get_tournament(token)
    plist = money.prize_list(tournament, published.fresh_standings(tournament.id))
    words = [percent(int(share * money.HUNDRED_PERCENT)) for share in plist.shares]
    heading = paper.heading(tournament)
    key = documents.document_key("prizes", "", heading, plist, words)
    build = partial(documents.prize_list, heading, plist, words)
    return serve(tournament, Printout("prizes", "", key, 0.0, build))
