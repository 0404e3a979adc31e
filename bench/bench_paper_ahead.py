"""The round's paper at the break (issue 28): tap-to-PDF at 200 tables, the phones meanwhile.

Run from the top of the checkout::

    .venv/bin/python bench/bench_paper_ahead.py                 # 200 tables, PostgreSQL
    .venv/bin/python bench/bench_paper_ahead.py --sqlite --modes inline
    .venv/bin/python bench/bench_paper_ahead.py --tables 50 --quiet 20

For each of ``--modes`` (``ahead``: the app as it ships, ``PDF_AHEAD`` on and the
job queue's worker beside the server, as ``scorer serve`` runs it; ``inline``: off,
every PDF made in the request that asks, as before issue 28) it makes a
tournament of ``3 × tables`` players checked in for round 1 (not drawn) in a
fresh database (PostgreSQL 15 of its own, or ``--sqlite``), serves it with
gunicorn ``-w 2 --threads 4`` (gthread; the PDF cache, the work slots and the job
queue in a folder of the run's own) and plays the hall
(``bench/tournament_load.py``): the 3 beamers and every player's phone open
their page over 20 s and poll it at the page's interval.  Then, while they
poll:

1. **the draw**: the organiser draws round 1 through the board's form (the
   POST's time is printed); every table's phone starts saving a hand a minute
   (its page, then the hand form), the first ones spread over the next minute.
2. **made ahead** (``ahead``): the time from the draw until the round's cards
   and slips are in the PDF cache (the worker's work), then the
   organiser's taps on "Tischkarten" and "Zettel", three each: tap-to-PDF.
   (``inline``: the same time after the draw, with nothing made.)
3. **nothing made** (``--quiet`` s): the phones alone, for comparison.
4. **cold**: the cache emptied, both printouts tapped at once, each tap's
   page following ``Retry-After`` (a 202 "being prepared", a 503 "busy") until
   the PDF comes, as the page's own reload does: tap-to-PDF cold.

The phones' requests are split by when they started into these windows: p50,
p95 and max per kind in each, the window's length and its errors.  Nothing
here is part of the test suite.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import tournament_db as tdb
import tournament_load as hall
from bench_tournament import SCORER, serving
from load import percentile
from run import Server, free_port, load_average

from tests.builders import form_data

ROOT, BENCH = hall.ROOT, hall.BENCH
BEAMERS = 3
ARRIVAL = 20.0
TAPS = 3
GIVE_UP = 300.0
"""Seconds a tap follows "being prepared" pages before the run calls it failed."""


class Timed(hall.Record):
    """A :class:`tournament_load.Record` that also keeps when each request started."""

    def __init__(self) -> None:
        super().__init__()
        self.started: list[tuple[float, str, float, int]] = []

    def took(self, kind: str, ms: float, status: int) -> None:
        super().took(kind, ms, status)
        with self.lock:
            self.started.append((time.monotonic() - ms / 1000, kind, ms, status))


@dataclass
class Window:
    """A part of the run: from, to (monotonic seconds), and what happened in it."""

    name: str
    start: float
    end: float = 0.0
    notes: list[str] = field(default_factory=list)


@dataclass
class Tap:
    """An organiser's tap on a printout: seconds to the PDF and the answers on the way."""

    seconds: float
    answers: list[int]
    size: int


def tap(port: int, path: str) -> Tap:
    """GET ``path`` as the organiser's browser does, following "being prepared" (202) and
    "busy" (503) by their ``Retry-After`` until the PDF comes."""
    started = time.monotonic()
    answers = []
    while True:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            connection.request("GET", path, headers={"Accept-Encoding": "identity"})
            response = connection.getresponse()
            body = response.read()
        finally:
            connection.close()
        answers.append(response.status)
        if response.status == 200 and body.startswith(b"%PDF"):
            return Tap(time.monotonic() - started, answers, len(body))
        if response.status not in (202, 503) or time.monotonic() - started > GIVE_UP:
            raise RuntimeError(f"{path}: {answers}, {body[:200]!r}")
        time.sleep(float(response.headers.get("Retry-After", "1")))


def draw(server: Server, token: str) -> float:
    """The organiser draws round 1 through the board's form: the POST's seconds."""
    browser = hall.Browser([server])
    status, _, html, _, _ = browser.request("GET", f"/t/{token}/board")
    if status != 200:
        raise RuntimeError(f"board: {status}")
    data = form_data(html, "draw-form")
    status, _, _, ms, _ = browser.request("POST", f"/t/{token}/rounds", form=data)
    if status != 303:
        raise RuntimeError(f"the draw answered {status}")
    return ms / 1000


def cached(folder: Path) -> int:
    """PDFs in the cache, when nothing is being made (no claim file): else -1."""
    if list(folder.glob("*.making")):
        return -1
    return len(list(folder.glob("*.pdf")))


@contextmanager
def database(args: argparse.Namespace, folder: Path) -> Iterator[tuple[str, object | None]]:
    """A fresh database with the schema from the migrations: its URL (and PostgreSQL)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if args.sqlite:
        url = f"sqlite:///{folder / 'paper.sqlite'}"
        tdb.migrate(url, env)
        yield url, None
        return
    pg = tdb.Postgres(free_port())
    try:
        pg.start()
        url = pg.fresh("paper")
        tdb.migrate(url, env)
        yield url, pg
    finally:
        pg.stop()


def report(record: Timed, windows: list[Window]) -> None:
    kinds = sorted({kind for _, kind, _, _ in record.started})
    for window in windows:
        inside = [r for r in record.started if window.start <= r[0] < window.end]
        seconds = window.end - window.start
        print(
            f"  {window.name} ({seconds:.0f} s, {len(inside)} requests"
            f"{'; ' + '; '.join(window.notes) if window.notes else ''}):"
        )
        for kind in kinds:
            values = [ms for _, k, ms, _ in inside if k == kind]
            bad = sum(1 for _, k, _, status in inside if k == kind and status >= 400)
            if values:
                print(
                    f"    {kind:14} n={len(values):5}  p50 {percentile(values, 50):7.1f} ms  "
                    f"p95 {percentile(values, 95):7.1f} ms  max {max(values):7.1f} ms"
                    + (f"  errors {bad}" if bad else "")
                )


@contextmanager
def worker_beside(
    config: dict[str, object], env: dict[str, str], folder: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """The job queue's worker (``python -m scorer.worker``) on ``config`` over the app's
    settings, as ``scorer serve`` starts it beside gunicorn; its log in ``folder``."""
    settings = folder / "worker.json"
    settings.write_text(json.dumps(config))
    with (folder / "worker.log").open("wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "scorer.worker", "--settings", str(settings)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            yield worker
        finally:
            worker.terminate()
            worker.wait(timeout=60)


def one_mode(mode: str, args: argparse.Namespace, folder: Path) -> None:
    work = folder / mode
    work.mkdir()
    cache_dir, slot_dir = work / "pdf-cache", work / "work-slots"
    with database(args, work) as (url, _pg):
        night = tdb.build_night(url, args.tables, draw=False)
        config = {
            "PDF_CACHE_DIR": str(cache_dir),
            "WORK_SLOT_DIR": str(slot_dir),
            "JOB_QUEUE": str(work / "jobs" / "jobs.sqlite"),
            "PDF_AHEAD": mode == "ahead",
        }
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "SECRET_KEY": secrets.token_hex(32),
            "DATABASE_URL": url,
            "BENCH_CONFIG": json.dumps(config),
        }
        options = ["-w", str(args.workers), "--threads", str(args.threads)]
        options += ["--log-level", "warning"]
        database_name = "SQLite" if args.sqlite else "PostgreSQL 15"
        print(
            f"== {mode}: {args.tables} tables ({3 * args.tables} players), gunicorn "
            f"{' '.join(options[:4])} (gthread), {database_name}; load average {load_average()}",
            flush=True,
        )
        # access=True: bench/timed_app.py, which takes BENCH_CONFIG
        with serving(SCORER, 1, options, env, work, access=True) as (server,):
            if mode == "ahead":
                with worker_beside(config, env, work):
                    run_hall(server, night, url, args, cache_dir)
            else:
                run_hall(server, night, url, args, cache_dir)


def run_hall(
    server: Server, night: tdb.Night, url: str, args: argparse.Namespace, cache_dir: Path
) -> None:
    port = server.port
    rng = random.Random(args.tables)
    place = hall.Hall(args.client_threads)
    record = Timed()
    stop = threading.Event()
    start = time.monotonic() + 1.0
    ranking = f"/p/{night.view_token}"
    for n in range(BEAMERS):
        first = hall.spread(rng, start, 5.0)
        place.add(hall.Watcher(hall.Browser([server], n), "beamer", ranking, first), first)
    for number in night.numbers:
        page = f"/p/{night.view_token}/players/{number}"
        first = hall.spread(rng, start, ARRIVAL)
        place.add(hall.Watcher(hall.Browser([server], number), "player", page, first), first)
    runner = threading.Thread(target=place.run, args=(record, start + 3600, stop))
    runner.start()
    windows: list[Window] = []
    try:
        time.sleep(max(0.0, start + ARRIVAL + 5 - time.monotonic()))
        windows.append(Window("arrival", start, time.monotonic()))
        # 1. the draw; the table phones start
        drawn_at = time.monotonic()
        seconds = draw(server, night.token)
        made = Window("after the draw", drawn_at, notes=[f"the draw's POST {seconds:.2f} s"])
        for n, token in enumerate(tdb.table_tokens(url, night.view_token)):
            first = hall.spread(rng, time.monotonic(), 60.0)
            place.add(hall.TablePhone(hall.Browser([server], n), token, first, 60.0), first)
        # 2. made ahead: until both PDFs are in the cache
        if args.ahead_expected:
            while cached(cache_dir) < 2:
                if time.monotonic() - drawn_at > GIVE_UP:
                    raise RuntimeError("the paper made ahead did not come")
                time.sleep(0.2)
            made.name = "while the paper is made ahead"
            ready = time.monotonic() - drawn_at
            made.notes.append(f"cards and slips in the cache {ready:.1f} s after the draw")
            args.made_seconds = ready
        else:  # as long as the paper took to be made ahead in the run before, for comparison
            time.sleep(max(0.0, drawn_at + args.made_seconds - time.monotonic()))
        made.end = time.monotonic()
        windows.append(made)
        if args.ahead_expected:
            taps = Window("the taps after it", time.monotonic())
            for kind in ("cards", "slips"):
                found = [tap(port, f"/t/{night.token}/rounds/1/{kind}.pdf") for _ in range(TAPS)]
                taps.notes.append(
                    f"{kind}: tap-to-PDF "
                    + ", ".join(f"{t.seconds * 1000:.0f} ms" for t in found)
                    + f" ({found[0].size / 1024:.0f} KiB)"
                )
            taps.end = time.monotonic()
            windows.append(taps)
        # 3. nothing made
        quiet = Window("nothing made", time.monotonic())
        time.sleep(args.quiet)
        quiet.end = time.monotonic()
        windows.append(quiet)
        # 4. cold: both tapped at once, the cache empty
        for path in cache_dir.glob("*.pdf"):
            path.unlink()
        cold = Window("cold: both tapped, nothing in the cache", time.monotonic())
        results: dict[str, Tap] = {}

        def cold_tap(kind: str) -> None:
            results[kind] = tap(port, f"/t/{night.token}/rounds/1/{kind}.pdf")

        tappers = [threading.Thread(target=cold_tap, args=(k,)) for k in ("cards", "slips")]
        for tapper in tappers:
            tapper.start()
        for tapper in tappers:
            tapper.join()
        cold.end = time.monotonic()
        for kind in ("cards", "slips"):
            found = results[kind]
            answers = ", ".join(f"{s}×{found.answers.count(s)}" for s in sorted(set(found.answers)))
            cold.notes.append(f"{kind}: tap-to-PDF {found.seconds:.1f} s ({answers})")
        windows.append(cold)
    finally:
        stop.set()
        runner.join()
    report(record, windows)
    if record.errors:
        print(f"  errors: {len(record.errors)}; " + "; ".join(record.errors[:5]))
    print(f"  load average {load_average()}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--sqlite", action="store_true", help="SQLite instead of PostgreSQL")
    parser.add_argument("--modes", default="ahead,inline", help="ahead, inline or both")
    parser.add_argument("--quiet", type=float, default=30.0, help="seconds of 'nothing made'")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--client-threads", type=int, default=192)
    args = parser.parse_args()
    args.made_seconds = args.quiet
    folder = Path(tempfile.mkdtemp(prefix="scorer-paper-"))
    print(f"{os.cpu_count()} CPUs, load average {load_average()}", flush=True)
    try:
        for mode in args.modes.split(","):
            args.ahead_expected = mode == "ahead"
            one_mode(mode, args, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
