"""A tap on a tournament printout: the kept PDF, rendered in the request, or being prepared.

What each printout shows and its key are :mod:`scorer.paper.printouts`'s.
:func:`serve` answers a tap at once, in this order:

1. the PDF kept in the cache (a round's cards and slips are usually made ahead by the
   job queue's worker after each change: :mod:`scorer.paper.ahead`);
2. while somebody makes it (the worker, another request), a page that says it is
   being prepared and reloads itself (202);
3. a round's cards or slips that take the renderer more than :data:`INLINE_SECONDS`,
   or any of them while every work slot is taken, are wished for from the worker (one
   job: not a second while one for the same draw waits) with that page;
4. anything else rendered in one of the request's work slots (503 with ``Retry-After``
   when they are all taken).  Without a worker (``PDF_AHEAD`` off, a plain ``flask
   run``) every printout is made so, as before the queue.

The worker takes none of the work slots: its renders run beside the requests' at a
lower priority (:mod:`scorer.jobs`), so a tap on a ranking is never told "busy"
because paper is being made ahead.
"""

from __future__ import annotations

import logging
import math

from flask import Response, render_template
from flask_babel import gettext

from ... import slots
from ...paper import ahead
from ...paper.printouts import Printout
from ...pdf import PdfBusy, cache, making
from ...services.tournaments import paper
from ...tournament_models import Tournament
from ..files import download, file_name

log = logging.getLogger(__name__)

INLINE_SECONDS = 1.0
"""A round's printout expected to render within this is made in the request (when a slot is
free), even with a worker."""
RETRY_MOST = 5
"""The "being prepared" page asks again after at most this many seconds."""


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


def serve(tournament: Tournament, printout: Printout) -> Response:
    """The PDF: kept, or made now (in a slot), or "being prepared" by the worker.

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
    """A printout not kept: made here, wished for from the worker, or being made elsewhere."""
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
        if printout.seconds > INLINE_SECONDS:
            wished = _wished(tournament, printout, claim)
            if wished is not None:
                return wished
        try:
            with slots.work_slot():
                data = printout.render()
        except PdfBusy:
            # a round's paper waits for the worker, not in this thread
            wished = _wished(tournament, printout, claim)
            if wished is not None:
                return wished
            return slots.busy_response(gettext("Other printouts are being made right now."))
        cache.keep(printout.key, data)
        return data


def _wished(
    tournament: Tournament, printout: Printout, claim: making.Claim
) -> bytes | Response | None:
    """A round's cards or slips wished for from the worker (``claim`` let go: the worker
    claims them), and the "being prepared" page; None when there is no worker."""
    if printout.round is None or not ahead.on():
        return None
    claim.release()
    row = paper.round_row(tournament, printout.round)
    if not ahead.wish(tournament, row, asked=True):
        return None
    data = cache.read(printout.key)  # made at once (huey's immediate mode)
    if data is not None:
        return data
    found = making.under_way(printout.key)
    return _being_prepared(printout, found.left() if found else math.ceil(printout.seconds) + 1)
