"""The tournament on paper (TOURNAMENT.md section 4): table cards, slips, rankings, certificates,
the prize list.

Every printout is a PDF behind the organiser's link, made as the match's
score sheet is (:mod:`scorer.views.sheets`): from the PDF cache when nothing it
shows has changed, else rendered in one of the server's work slots — 503 with
``Retry-After`` when they stay taken, 429 when one device asks too often
(``LIMIT_PDF``).  The cache key is the tournament's poll tag (players, rounds,
tables, every hand: :func:`~scorer.services.tournaments.standings.poll_state`),
the kind of printout and its round, the address the QR codes carry, and the
language (:func:`scorer.pdf.tournament.document_key`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from flask import Blueprint, Response, abort, request
from flask_babel import gettext

from ... import slots
from ...extensions import limiter
from ...pdf import PdfBusy, cached_pdf
from ...pdf import tournament as printouts
from ...services.tournaments import money, paper, published, setup, standings
from ...tournament_models import Round, Tournament
from ...words import percent
from ..sheets import download, file_name
from . import links

bp = Blueprint("t_paper", __name__)

MAX_NUMBER_DIGITS = 4
"""A round's or table's number in an address has at most this many digits."""


def _tag(tournament: Tournament) -> str:
    """Everything the tournament's printouts show, as one tag (one statement)."""
    state = standings.poll_state(tournament.view_token)
    if state is None:
        abort(404)
    return state.tag


def _send(
    tournament: Tournament,
    kind: str,
    label: str,
    build: Callable[[], bytes],
    *more: object,
) -> Response:
    """The printout from the cache or rendered in a work slot; 503 while the slots are taken.

    ``label`` names the part shown ("round-2", "" for all) in the key and the file's
    name; ``more`` adds what else the key needs (the address the QR codes carry).
    """
    key = printouts.document_key(kind, label, _tag(tournament), *more)
    try:
        data = cached_pdf(key, build)
    except PdfBusy:
        return slots.busy_response(gettext("Other printouts are being made right now."))
    name = file_name("binokel", tournament.name, label, kind, ext="pdf")
    return download(data, "application/pdf", name, inline=True)


def _number_arg(name: str) -> int | None:
    """``?<name>=n`` as a number (a round, a table); a value that names nothing is a 404."""
    text = request.args.get(name)
    if text is None or text == "":
        return None
    if not text.isascii() or not text.isdigit() or len(text) > MAX_NUMBER_DIGITS:
        abort(404)
    return int(text)


# -- table cards and paper slips -------------------------------------------------------


def _cards_pdf(tournament: Tournament, rows: Sequence[Round]) -> bytes:
    cards = paper.cards(tournament, rows)
    urls = {
        card.table_id: links.external_url(tournament, "matches.show", token=card.token)
        for card in cards
    }
    return printouts.table_cards(paper.heading(tournament), cards, urls)


@bp.get("/t/<token:token>/rounds/<int:number>/cards.pdf")
@limiter.limit(slots.pdf_limit)
def round_cards(token: str, number: int) -> Response:
    """The table cards of round ``number``: four A6 cards to an A4 page, each with its QR code."""
    tournament = setup.get_tournament(token)
    row = paper.round_row(tournament, number)
    build = partial(_cards_pdf, tournament, [row])
    return _send(tournament, "cards", f"round-{number}", build, links.base_url(tournament))


@bp.get("/t/<token:token>/cards.pdf")
@limiter.limit(slots.pdf_limit)
def all_cards(token: str) -> Response:
    """The table cards of every round drawn so far, round after round."""
    tournament = setup.get_tournament(token)
    rows = list(tournament.round_rows)
    if not rows:
        abort(404)
    build = partial(_cards_pdf, tournament, rows)
    return _send(tournament, "cards", "", build, links.base_url(tournament))


@bp.get("/t/<token:token>/rounds/<int:number>/slips.pdf")
@limiter.limit(slots.pdf_limit)
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
    label = f"round-{number}" + (f"-table-{table}" if table is not None else "")

    def build() -> bytes:
        found = paper.slips(tournament, row)
        if table is not None:
            found = [slip for slip in found if slip.card.table == table]
        return printouts.paper_slips(paper.heading(tournament), found)

    return _send(tournament, "slips", label, build)


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
    part = f"round-{number}" if number is not None else ""
    return _send(
        tournament,
        "ranking",
        part,
        lambda: printouts.ranking_document(paper.ranking_after(tournament, number)),
    )


@bp.get("/t/<token:token>/certificates.pdf")
@limiter.limit(slots.pdf_limit)
def certificates(token: str) -> Response:
    """A certificate for every player of the first three places (ties each get one)."""
    tournament = setup.get_tournament(token)
    if not tournament.round_rows:
        abort(404)
    return _send(
        tournament,
        "certificates",
        "",
        lambda: printouts.certificates(paper.ranking_after(tournament)),
    )


@bp.get("/t/<token:token>/prizes.pdf")
@limiter.limit(slots.pdf_limit)
def prize_list(token: str) -> Response:
    """The prize list: what each winner gets (money or the item picked), and the joke prize.

    The figures are the money service's (:func:`~scorer.services.tournaments.money.prize_list`
    on the standings the beamer shows); "provisional" until the last round is closed.  The
    prize settings bump the tournament's version, so the cached PDF follows them.
    """
    tournament = setup.get_tournament(token)

    def build() -> bytes:
        plist = money.prize_list(tournament, published.fresh_standings(tournament.id))
        words = [percent(int(share * money.HUNDRED_PERCENT)) for share in plist.shares]
        return printouts.prize_list(paper.heading(tournament), plist, words)

    return _send(tournament, "prizes", "", build)
