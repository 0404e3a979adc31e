"""A round's table cards and paper slips made ahead by the job queue's worker.

At the break the organiser taps "Tischkarten" and "Zettel"; made then, 200
tables' paper would take the renderer half a minute (bench/RESULTS.md,
"Tournament paper").  So each change of what they show — a draw, a redraw, a
new table link, a renamed player, new settings, announced by the use cases
(:mod:`scorer.services.events`) — is answered after its commit by a *wish*: a
job (:mod:`scorer.jobs`) for the worker (``python -m scorer.worker``) to make
the round's cards, then its slips, as they stand when its turn comes, in the
language and at the address of the request that made the change.

- **The newest wish wins.**  A wish is for one round of one draw (the round's
  ``attempt``) in one language; the queue keeps, per round and language, the
  newest (:func:`wish`).  A queued wish for the same draw already covers a later
  change (the job reads the round when its turn comes): no second job.  An older
  job whose turn comes does nothing but look that it is not the newest; the
  newest reads the round right before it renders and drops itself when it was
  drawn again or closed since; while it renders it looks every second whether a
  newer wish came (a renamed player, a new link, the round closed) and stops
  (:func:`scorer.jobs.watch`).  A hundred redraws in a row leave one live job per
  round.
- **No transaction while it waits or renders**: it reads what the printouts show,
  ends its session, renders from those values and keeps the PDFs in the cache.
- **Made once**: it claims each PDF before it renders (:mod:`scorer.pdf.making`):
  a tap meanwhile is told "being prepared", nobody makes it twice, and what is
  kept already (a saved setting that changes nothing on paper) is not made again.
- **Which language**: the language of the request that made the change — the
  organiser's device, whose paper it is; a hall prints in one language.  A tap in
  the other language wishes for that language's paper (202, one job), so that the
  worker does not render every round twice for a language nobody may print.
- **Without a worker** (no sign of life within ``JOB_ALIVE``, e.g. a plain ``flask
  run``) nothing is wished: a tap renders the printout as it would without a queue.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from flask import current_app, has_request_context, request
from flask_babel import get_locale

from .. import jobs as job_queue
from ..extensions import db
from ..jobs import Abandoned, jobs, watch
from ..pdf import cache, making
from ..services import bus
from ..services.errors import NotFound
from ..services.events import ROUND_PAPER_CHANGED, RoundClosed
from ..services.tournaments import paper
from ..tournament_models import Round, Tournament
from .printouts import ROUND_PRINTOUTS, Printout

log = logging.getLogger(__name__)

JOB = "paper.round"
"""The job that makes a round's cards and slips (:func:`make_round`)."""

QUEUED, STARTED, DONE, WITHDRAWN = "queued", "started", "done", "withdrawn"
"""What became of a round's newest wish: waiting in the queue, being made (its PDFs
claimed), made or dropped, withdrawn (the round closed)."""


def _key(tournament: int, number: int, lang: str) -> str:
    return f"paper:{tournament}:{number}:{lang}"


def on() -> bool:
    """Whether a round's paper is made ahead: ``PDF_AHEAD``, a cache to keep it in, and a
    worker that runs the queue."""
    config = current_app.config
    return bool(config.get("PDF_AHEAD")) and bool(config["PDF_CACHE"]) and jobs().alive()


def _made_where() -> tuple[str, str]:
    """The language and address the paper is made in: the request's (outside one, the
    default language and ``PUBLIC_URL``)."""
    if has_request_context():
        return str(get_locale()), request.url_root
    config = current_app.config
    root = str(config.get("PUBLIC_URL") or "http://localhost").rstrip("/") + "/"
    return str(config["BABEL_DEFAULT_LOCALE"]), root


def wish(tournament: Tournament, row: Round, *, asked: bool = False) -> bool:
    """Have the worker make ``row``'s cards and slips (of its draw as it is now) in this
    request's language, as they stand when its turn comes.

    The newest wish for the round replaces the ones before it; a wish for the same draw
    still waiting in the queue is not queued again.  ``asked``: a tap asked for them
    (made even once the round is closed; a wish made ahead is for an open round).
    False without a worker (nothing queued: the caller renders them itself).
    """
    if not on():
        return False
    lang, root = _made_where()
    queue = jobs()
    key = _key(tournament.id, row.number, lang)
    drawn = row.attempt
    with queue.lock():
        found = queue.get(key) or {}
        if (
            found.get("state") == QUEUED
            and found.get("drawn") == drawn
            and (found.get("asked") or not asked or row.closed_at is None)
        ):
            return True
        task = queue.task(
            JOB,
            tournament=tournament.id,
            round=row.number,
            drawn=drawn,
            lang=lang,
            root=root,
            asked=asked,
        )
        queue.put(key, {"id": task.id, "state": QUEUED, "drawn": drawn, "asked": asked})
    queue.enqueue(task)  # (outside the lock: in immediate mode the job runs here and now)
    return True


def withdraw(tournament: int, number: int) -> None:
    """No paper of round ``number`` is wished for any more (it is closed): a job waiting for
    it does nothing, one making it stops.  What a tap asked for is still made."""
    queue = jobs()
    for lang in current_app.config["LANGUAGES"]:
        key = _key(tournament, number, lang)
        with queue.lock():
            found = queue.get(key)
            if found and not found.get("asked") and found.get("state") in (QUEUED, STARTED):
                queue.put(key, {**found, "id": None, "state": WITHDRAWN})


# -- after a commit ----------------------------------------------------------------------


def after_change(event: Any) -> None:
    """A round's paper shows something new (:data:`~scorer.services.events.ROUND_PAPER_CHANGED`):
    the newest wish for it.  A player or the settings: the round being played, if open."""
    if not on():
        return
    tournament = db.session.get(Tournament, event.tournament)
    if tournament is None or not tournament.round_rows:
        return
    number = getattr(event, "round", None)
    if number is None:
        number = tournament.round_rows[-1].number
    row = next((r for r in tournament.round_rows if r.number == number), None)
    if row is None or row.closed_at is not None:
        return
    wish(tournament, row)


def after_close(event: RoundClosed) -> None:
    """A closed round's paper is not made ahead any more."""
    if current_app.config.get("PDF_AHEAD") and jobs().alive():
        withdraw(event.tournament, event.round)


# -- the job -----------------------------------------------------------------------------


def _wanted(tournament_id: int, number: int, drawn: int, asked: bool) -> list[Printout]:
    """The round's printouts as they stand, read now; none when the round is gone, was drawn
    again since the wish, or is closed (unless a tap asked)."""
    tournament = db.session.get(Tournament, tournament_id)
    if tournament is None:
        return []
    try:
        row = paper.round_row(tournament, number)
    except NotFound:
        return []
    if row.attempt != drawn or (row.closed_at is not None and not asked):
        return []
    return [make(tournament, row) for make in ROUND_PRINTOUTS.values()]


def _claim(printouts: list[Printout]) -> list[tuple[Printout, making.Claim]]:
    """Those of ``printouts`` neither kept nor being made, claimed, each saying when it should
    be ready (one after the other)."""
    claimed: list[tuple[Printout, making.Claim]] = []
    waited = 0.0
    for printout in printouts:
        if cache.read(printout.key) is not None:
            continue
        claim = making.claim(printout.key, waited + printout.seconds)
        if claim is None:
            continue  # a tap makes it in its request right now
        if cache.read(printout.key) is not None:
            claim.release()
            continue
        waited += printout.seconds
        claimed.append((printout, claim))
    return claimed


def _mark(queue: job_queue.Jobs, key: str, job: str, state: str) -> None:
    """Say what became of wish ``job``, unless a newer one has taken its place."""
    with queue.lock():
        found = queue.get(key)
        if found and found.get("id") == job:
            queue.put(key, {**found, "state": state})


def make_round(
    *, job: str, tournament: int, round: int, drawn: int, lang: str, root: str, asked: bool
) -> None:
    """The job: make round ``round``'s cards and slips (see the module's docstring)."""
    queue = jobs()
    key = _key(tournament, round, lang)

    def newest() -> bool:
        return bool((queue.get(key) or {}).get("id") == job)

    if not newest():
        return  # a newer wish took its place: it makes the paper
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    with app.test_request_context(f"/?lang={lang}", base_url=root):
        try:
            printouts = _wanted(tournament, round, drawn, asked)
        finally:
            db.session.remove()  # what they show is read: no transaction from here on
        claimed = _claim(printouts)
        _mark(queue, key, job, STARTED)
        try:
            for printout, claim in claimed:
                if not newest():
                    break
                started = time.perf_counter()
                try:
                    with watch(newest):
                        data = printout.render()
                except Abandoned:
                    log.info("round %s's %s: a newer wish came, stopped", round, printout.kind)
                    break
                cache.keep(printout.key, data)
                claim.release()
                log.info(
                    "made ahead: round %s's %s (%s) in %.1f s",
                    round,
                    printout.kind,
                    lang,
                    time.perf_counter() - started,
                )
        finally:
            for _, claim in claimed:
                claim.release()
            _mark(queue, key, job, DONE)


def init_app(app: Any) -> None:
    """The job registered with the app's queue; the paper wished for after each change."""
    jobs(app).register(JOB, make_round)
    for kind in ROUND_PAPER_CHANGED:
        bus.register(kind, after_change)
    bus.register(RoundClosed, after_close)
