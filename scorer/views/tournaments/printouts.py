"""The tournament's printouts as values, and how each is made: kept, in the request, or ahead.

A :class:`Printout` is what one PDF shows, read from the database (the plain
values of :mod:`scorer.services.tournaments.paper`), its cache key — the
digest of exactly those values, the language and the code
(:func:`scorer.pdf.tournament.document_key`) — and how to render it.  A
round's table cards and slips show its draw: a saved hand leaves their key
alone, a replaced link or a renamed player makes a new one.  A ranking shows
the results, so its key follows them.

:func:`serve` answers a tap: the kept PDF; else, while another process makes
it, a page that says it is being prepared and reloads itself (202); else a
small printout rendered in a work slot of the request, a big one (a round's
cards or slips at many tables, with ``PDF_AHEAD``) handed to a process of its
own (:mod:`scorer.ahead`) with the same page — as is a small one of a round
when every slot is taken (the process waits for one, the request does not).

:func:`prepare_round`, called after a draw, a redraw, a new link, a renamed
player or new settings, makes the round's cards and slips ahead, so the
organiser's tap at the break finds them ready; :func:`make_ahead` is what that
process runs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from flask import Response, current_app, render_template, request
from flask_babel import get_locale, gettext

from ... import ahead, slots
from ...pdf import PdfBusy, cache, making
from ...pdf import tournament as documents
from ...services.tournaments import paper, setup
from ...tournament_models import Round, Tournament
from ..files import download, file_name
from . import links

log = logging.getLogger(__name__)

INLINE_SECONDS = 1.0
"""A printout expected to render within this is made in the request, even with ``PDF_AHEAD``."""
START_SECONDS = 3.0
"""What starting a process of its own takes before it renders (Python, the app, WeasyPrint)."""
RETRY_MOST = 5
"""The "being prepared" page asks again after at most this many seconds."""


@dataclass(frozen=True)
class Printout:
    """One PDF: its kind and part (``"cards"``, ``"round-2"``), key, expected render time.

    ``round`` is set for a round's cards or slips: those may be made ahead
    (:data:`ROUND_PRINTOUTS` makes them again in the other process).
    """

    kind: str
    label: str
    key: str
    seconds: float
    render: Callable[[], bytes]
    round: int | None = None


# -- what each printout shows ----------------------------------------------------------


def _cards(tournament: Tournament, rows: Sequence[Round], label: str) -> Printout:
    heading = paper.heading(tournament)
    found = paper.cards(tournament, rows)
    urls = {
        card.table_id: links.external_url(tournament, "matches.show", token=card.token)
        for card in found
    }
    return Printout(
        "cards",
        label,
        documents.document_key("cards", label, heading, found, urls),
        len(found) * documents.CARD_SECONDS,
        lambda: documents.table_cards(heading, found, urls),
        rows[0].number if len(rows) == 1 else None,
    )


def round_cards(tournament: Tournament, row: Round) -> Printout:
    """The table cards of one round: its draw (seats, names, start numbers, links, deals)."""
    return _cards(tournament, [row], f"round-{row.number}")


def all_cards(tournament: Tournament) -> Printout:
    """The table cards of every round drawn so far, round after round."""
    return _cards(tournament, list(tournament.round_rows), "")


def round_slips(tournament: Tournament, row: Round, table: int | None = None) -> Printout:
    """The paper slips of one round (``table``: that table's alone).

    A slip shows no link: its values carry none, so a replaced link keeps it.
    """
    heading = paper.heading(tournament)
    found = [
        replace(slip, card=replace(slip.card, table_id=0, token="", link_number=0))
        for slip in paper.slips(tournament, row)
        if table is None or slip.card.table == table
    ]
    label = f"round-{row.number}" + (f"-table-{table}" if table is not None else "")
    return Printout(
        "slips",
        label,
        documents.document_key("slips", label, heading, found),
        len(found) * documents.SLIP_SECONDS,
        lambda: documents.paper_slips(heading, found),
        row.number if table is None else None,
    )


ROUND_PRINTOUTS: Mapping[str, Callable[[Tournament, Round], Printout]] = {
    "cards": round_cards,
    "slips": round_slips,
}
"""The printouts made ahead, by kind: a round's cards, then its slips."""


# -- a tap -----------------------------------------------------------------------------


def _being_prepared(printout: Printout, seconds: int) -> Response:
    """202: the PDF is being made; the page says when and asks again by itself."""
    retry = min(seconds, RETRY_MOST)
    html = render_template(
        "tournaments/paper_wait.html",
        kind=printout.kind,
        number=printout.round,
        seconds=seconds,
        retry=retry,
    )
    response = Response(html, status=202, mimetype="text/html")
    response.headers["Retry-After"] = str(retry)
    response.headers["Cache-Control"] = "no-store"
    return response


def _ahead_on() -> bool:
    """``PDF_AHEAD``, and a cache for the other process to leave its PDFs in."""
    return ahead.enabled() and bool(current_app.config["PDF_CACHE"])


def _can_wait(printout: Printout) -> bool:
    """Whether ``printout`` may be made in a process of its own (a round's cards or slips)."""
    return printout.round is not None and _ahead_on()


def _ahead(printout: Printout) -> bool:
    """Whether ``printout`` goes to a process of its own rather than the request."""
    return _can_wait(printout) and printout.seconds > INLINE_SECONDS


def serve(tournament: Tournament, printout: Printout) -> Response:
    """The PDF: kept, or made now (in a slot), or "being prepared" while a process makes it.

    503 with ``Retry-After`` when it has to be made here and every slot stays taken.
    """
    data = cache.read(printout.key)
    if data is None:
        made = _make(tournament, printout)
        if isinstance(made, Response):
            return made
        data = made
    name = file_name("binokel", tournament.name, *_called(printout), ext="pdf")
    return download(data, "application/pdf", name, inline=True)


def _called(printout: Printout) -> tuple[str, ...]:
    """What a printout's download is called, in the reader's language ("runde-2-tischkarten",
    "rangliste-nach-runde-1"): its kind in words, and the part its ``label`` names
    (``""``, ``"round-2"``, ``"round-2-table-3"``)."""
    parts = printout.label.split("-")
    found = len(parts) >= 2 and parts[0] == "round" and parts[1].isdecimal()
    number = int(parts[1]) if found else None
    at_table = len(parts) == 4 and parts[2] == "table" and parts[3].isdecimal()
    table = int(parts[3]) if found and at_table else None
    if printout.kind == "ranking":
        if number is None:
            return (gettext("Ranking"),)
        return (gettext("Ranking after round %(round)s", round=number),)
    kinds = {
        "cards": gettext("Table cards"),
        "slips": gettext("Paper slips"),
        "certificates": gettext("Certificates"),
        "prizes": gettext("Prize list"),
    }
    where = [] if number is None else [gettext("Round %(number)s", number=number)]
    if table is not None:
        where.append(gettext("Table %(number)s", number=table))
    return (*where, kinds.get(printout.kind, printout.kind))


def _make(tournament: Tournament, printout: Printout) -> bytes | Response:
    """A printout not kept: claimed and made here or handed on, or being made elsewhere."""
    try:
        claim = making.claim(printout.key, printout.seconds)
    except OSError:  # no claim without a cache folder to write: made here, unclaimed
        log.warning("could not claim a printout in the PDF cache", exc_info=True)
        try:
            return cache.cached_pdf(printout.key, printout.render)
        except PdfBusy:
            return slots.busy_response(gettext("Other printouts are being made right now."))
    if claim is None:
        found = making.under_way(printout.key)
        data = cache.read(printout.key)  # stored the moment its maker let go
        if data is not None:
            return data
        return _being_prepared(printout, found.left() if found else 1)
    with claim:
        data = cache.read(printout.key)  # stored before the claim was taken
        if data is not None:
            return data
        handed = _hand_on(tournament, printout, claim) if _ahead(printout) else None
        if handed is not None:
            return handed
        try:
            with slots.work_slot():
                data = printout.render()
        except PdfBusy:
            # a round's paper waits for the slot in a process of its own, not in this thread
            handed = _hand_on(tournament, printout, claim) if _can_wait(printout) else None
            if handed is not None:
                return handed
            return slots.busy_response(gettext("Other printouts are being made right now."))
        cache.keep(printout.key, data)
        return data


def _hand_on(tournament: Tournament, printout: Printout, claim: making.Claim) -> Response | None:
    """Hand ``printout`` (claimed) to a process of its own, with the rest of its round's
    paper that is neither kept nor under way (the organiser who taps the cards taps the
    slips next); the "being prepared" page, or None when no process started."""
    row = paper.round_row(tournament, printout.round or 0)
    claimed = _claim_round(tournament, row, (printout, claim))
    if _start(tournament, row.number, claimed):
        found = making.under_way(printout.key)
        return _being_prepared(printout, found.left() if found else 1)
    for _, other in claimed:
        if other is not claim:
            other.release()
    return None


# -- made ahead --------------------------------------------------------------------------


def _start(
    tournament: Tournament, number: int | None, claimed: Sequence[tuple[Printout, making.Claim]]
) -> bool:
    """Hand ``claimed`` (a round's printouts, each claimed) to a process of its own.

    True when it started: the claims are then the child's (this process lets go
    of its descriptors and leaves their files).
    """
    arguments = {
        "token": tournament.token,
        "round": number,
        "root": request.url_root,
        "lang": str(get_locale()),
        "made": [[p.kind, p.key] for p, _ in claimed],
    }
    folders = {
        "PDF_CACHE_DIR": str(slots.folder("PDF_CACHE_DIR", "pdf-cache")),
        "WORK_SLOT_DIR": str(slots.folder("WORK_SLOT_DIR", "work-slots")),
    }
    fds = [claim.fd for _, claim in claimed]
    child = ahead.start(f"{__name__}:make_ahead", arguments, fds, folders)
    if child is None:
        return False
    for _, claim in claimed:
        claim.release(done=False)
    return True


def _claim_round(
    tournament: Tournament, row: Round, held: tuple[Printout, making.Claim] | None = None
) -> list[tuple[Printout, making.Claim]]:
    """The round's printouts neither kept nor under way, claimed, in the order a process
    makes them (``held``: one the caller claimed already, in its place); each claim says
    when it should be ready (the slips come after the cards)."""
    claimed: list[tuple[Printout, making.Claim]] = []
    waited = START_SECONDS
    for kind, make in ROUND_PRINTOUTS.items():
        if held is not None and held[0].kind == kind:
            waited += held[0].seconds
            held[1].expect(waited)
            claimed.append(held)
            continue
        printout = make(tournament, row)
        if cache.read(printout.key) is not None:
            continue
        claim = making.claim(printout.key, waited + printout.seconds)
        if claim is None:
            continue
        if cache.read(printout.key) is not None:
            claim.release()
            continue
        waited += printout.seconds
        claimed.append((printout, claim))
    return claimed


def prepare_round(tournament: Tournament, row: Round | None = None) -> None:
    """Make the cards and slips of ``row`` (default: the round being played) ahead.

    Nothing when ``PDF_AHEAD`` is off, the round is closed, or they are kept or
    being made already; returns at once (a process of its own renders them).
    """
    if not _ahead_on():
        return
    if row is None:
        drawn = tournament.round_rows
        row = drawn[-1] if drawn else None
    if row is None or row.closed_at is not None:
        return
    claimed: list[tuple[Printout, making.Claim]] = []
    try:
        claimed = _claim_round(tournament, row)
        if claimed and _start(tournament, row.number, claimed):
            claimed = []
    except OSError:
        log.warning("could not make round %s's paper ahead", row.number, exc_info=True)
    finally:
        for _, claim in claimed:
            claim.release()


def make_ahead(arguments: dict[str, Any], fds: list[int]) -> None:
    """The process of its own (:func:`scorer.ahead.main`): render what it claimed, keep it.

    The printouts are read again here, in a request like the one that asked
    (same address, same language): a key that is not the claimed one any more
    (the round was drawn again meanwhile) is left to whoever claims the new one.
    Each render takes its turn in the work slots.
    """
    claims = [
        making.adopt(str(key), fd) for (_kind, key), fd in zip(arguments["made"], fds, strict=True)
    ]
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    try:
        with app.test_request_context(f"/?lang={arguments['lang']}", base_url=arguments["root"]):
            tournament = setup.get_tournament(str(arguments["token"]))
            row = paper.round_row(tournament, int(arguments["round"]))
            for claim, (kind, _key) in zip(claims, arguments["made"], strict=True):
                printout = ROUND_PRINTOUTS[str(kind)](tournament, row)
                if printout.key == claim.key:
                    started = time.perf_counter()
                    with slots.work_slot():
                        cache.keep(claim.key, printout.render())
                    log.info(
                        "made ahead: %s %s in %.1f s",
                        kind,
                        printout.label,
                        time.perf_counter() - started,
                    )
                claim.release()
    finally:
        for claim in claims:
            claim.release()
