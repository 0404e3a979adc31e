"""100 redraws a few seconds apart at 200 tables (issue 34 §1): processes, memory, the phones.

Run from the top of the checkout::

    .venv/bin/python bench/bench_redraws.py                      # 200 tables, PostgreSQL
    .venv/bin/python bench/bench_redraws.py --sqlite --redraws 30 --every 2

It makes a fresh database (PostgreSQL 15 of its own, or ``--sqlite``) with two
tournaments: the one the organiser draws, ``3 × tables`` players checked in for
round 1, and a second one of ``--playing`` tables whose phones save a hand a
minute each (a drawn round takes no hand while it may still be drawn again).
It serves them as ``scorer serve`` does — gunicorn ``-w 2 --threads 4`` and the
job queue's worker (``python -m scorer.worker``) beside it, with the PDF cache,
the work slots and the queue in a folder of the run's own — and plays the hall
(``bench/tournament_load.py``): 3 beamers and every player's phone of the drawn
tournament open their page and poll it, the second tournament's tables save.
Then:

1. **idle** (``--idle`` s): the phones alone, nothing drawn: the hall's memory at
   rest (the baseline);
2. **redraws**: the organiser draws round 1 through the board's form, then draws
   it again ``--redraws`` times, ``--every`` seconds apart, through the round
   page's form, as a browser sends it (each a wish for the round's paper);
3. **the last paper**: the organiser taps "Tischkarten" and "Zettel" after the
   last redraw, following "being prepared" (202) as the page's reload does, until
   both PDFs come: tap-to-PDF of the newest draw.

Every second it counts the processes of the hall (gunicorn's master and workers,
the worker's consumer, scheduler and renderer) and their memory (PSS from
``/proc/<pid>/smaps_rollup``: pages shared by forks counted once; RSS too), and
the jobs waiting in the queue.  It prints the phones' p50/p95/max per kind of
request in each window, the most processes, the memory's peak above the idle
median, and what the worker did (renders made, renders cut off by a newer wish,
fresh renderer processes) from its log.  Nothing here is part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import tournament_db as tdb
import tournament_load as hall
from bench_paper_ahead import BEAMERS, Timed, Window, database, report, tap, worker_beside
from bench_tournament import SCORER, serving
from run import Server, load_average

from tests.builders import form_data

ROOT = hall.ROOT
ARRIVAL = 20.0
GIVE_UP = 600.0
"""Seconds the organiser's taps wait for the last draw's paper before the run fails."""


# -- the hall's processes ----------------------------------------------------------------


def below(pid: int) -> list[int]:
    """``pid`` and every process under it (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [pid], [pid]
    while frontier:
        here = frontier.pop()
        kids = [p for p, parent in parents.items() if parent == here]
        found += kids
        frontier += kids
    return found


def memory_kb(pid: int) -> tuple[int, int]:
    """(PSS, RSS) of ``pid`` in kB; (0, 0) once it has gone."""
    try:
        pss = rss = 0
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
            elif line.startswith("Rss:"):
                rss = int(line.split()[1])
        return pss, rss
    except (OSError, ValueError):
        return 0, 0


@dataclass
class Sample:
    at: float
    processes: int
    worker_processes: int
    pss_mb: float
    rss_mb: float
    worker_pss_mb: float
    waiting: int


def waiting(queue: Path) -> int:
    """Jobs in the queue's file (huey's ``task`` table), -1 when it cannot be read now."""
    try:
        with sqlite3.connect(f"file:{queue}?mode=ro", uri=True, timeout=1) as connection:
            return int(connection.execute("select count(*) from task").fetchone()[0])
    except sqlite3.Error:
        return -1


class Sampler(threading.Thread):
    """Every second: the hall's processes, their memory, the queue."""

    def __init__(self, server: Server, worker: subprocess.Popen[bytes] | None, queue: Path) -> None:
        super().__init__(daemon=True, name="sampler")
        self.server, self.worker, self.queue = server, worker, queue
        self.samples: list[Sample] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(1.0):
            served = below(self.server.process.pid)
            working = below(self.worker.pid) if self.worker is not None else []
            memory = {pid: memory_kb(pid) for pid in served + working}
            self.samples.append(
                Sample(
                    time.monotonic(),
                    sum(1 for pid in memory if memory[pid][1]),
                    sum(1 for pid in working if memory[pid][1]),
                    sum(m[0] for m in memory.values()) / 1024,
                    sum(m[1] for m in memory.values()) / 1024,
                    sum(memory[pid][0] for pid in working) / 1024,
                    waiting(self.queue),
                )
            )


# -- the organiser -----------------------------------------------------------------------


def draw(server: Server, token: str) -> None:
    browser = hall.Browser([server])
    status, _, html, _, _ = browser.request("GET", f"/t/{token}/board")
    data = form_data(html, "draw-form")
    status, _, _, _, _ = browser.request("POST", f"/t/{token}/rounds", form=data)
    if status != 303:
        raise RuntimeError(f"the draw answered {status}")


def redraw(server: Server, token: str) -> float:
    """Draw round 1 again through its page's form: the POST's milliseconds."""
    browser = hall.Browser([server])
    status, _, html, _, _ = browser.request("GET", f"/t/{token}/rounds/1")
    if status != 200:
        raise RuntimeError(f"the round's page answered {status}")
    data = form_data(html, "redraw-form")
    status, _, _, ms, _ = browser.request("POST", f"/t/{token}/rounds/1/redraw", form=data)
    if status != 303:
        raise RuntimeError(f"the redraw answered {status}")
    return ms


# -- the run -----------------------------------------------------------------------------


def run(args: argparse.Namespace, folder: Path) -> None:
    cache_dir, queue = folder / "pdf-cache", folder / "jobs" / "jobs.sqlite"
    with database(args, folder) as (url, _pg):
        night = tdb.build_night(url, args.tables, draw=False)
        # 60 deals: a hand a minute for the whole run, the match never over
        playing = tdb.build_night(url, args.playing, deals=60) if args.playing else None
        config = {
            "PDF_CACHE_DIR": str(cache_dir),
            "WORK_SLOT_DIR": str(folder / "work-slots"),
            "JOB_QUEUE": str(queue),
            "PDF_AHEAD": not args.without_worker,
        }
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "SECRET_KEY": secrets.token_hex(32),
            "DATABASE_URL": url,
            "BENCH_CONFIG": json.dumps(config),
        }
        options = ["-w", "2", "--threads", "4", "--log-level", "warning"]
        print(
            f"{args.tables} tables ({3 * args.tables} players) drawn {args.redraws + 1} times "
            f"every {args.every} s, {args.playing} tables of another tournament saving; "
            f"{'SQLite' if args.sqlite else 'PostgreSQL 15'}; load average {load_average()}",
            flush=True,
        )
        with serving(SCORER, 1, options, env, folder, access=True) as (server,):
            if args.without_worker:  # for comparison: no paper made ahead, no worker
                (folder / "worker.log").write_text("")
                play(server, None, night, playing, args, queue, folder)
            else:
                with worker_beside(config, env, folder) as worker:
                    play(server, worker, night, playing, args, queue, folder)


def play(
    server: Server,
    worker: subprocess.Popen[bytes] | None,
    night: tdb.Night,
    playing: tdb.Night | None,
    args: argparse.Namespace,
    queue: Path,
    folder: Path,
) -> None:
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
    for n, token in enumerate(playing.table_tokens if playing else []):
        first = hall.spread(rng, start, 60.0)
        place.add(hall.TablePhone(hall.Browser([server], n), token, first, 60.0), first)
    sampler = Sampler(server, worker, queue)
    sampler.start()
    runner = threading.Thread(target=place.run, args=(record, start + 7200, stop))
    runner.start()
    windows: list[Window] = []
    posts: list[float] = []
    try:
        time.sleep(max(0.0, start + ARRIVAL - time.monotonic()))
        idle = Window("idle: the phones, nothing drawn", time.monotonic())
        time.sleep(args.idle)
        idle.end = time.monotonic()
        windows.append(idle)
        redraws = Window(f"the draw and {args.redraws} redraws", time.monotonic())
        draw(server, night.token)
        for _ in range(args.redraws):
            time.sleep(args.every)
            posts.append(redraw(server, night.token))
        redraws.end = time.monotonic()
        redraws.notes.append(
            f"redraw POST p50 {statistics.median(posts):.0f} ms, max {max(posts):.0f} ms"
            if posts
            else "no redraw"
        )
        windows.append(redraws)
        last = Window("the last draw's paper tapped", time.monotonic())
        for kind in ("cards", "slips"):
            found = tap(server.port, f"/t/{night.token}/rounds/1/{kind}.pdf")
            answers = ", ".join(f"{s}×{found.answers.count(s)}" for s in sorted(set(found.answers)))
            last.notes.append(f"{kind}: tap-to-PDF {found.seconds:.1f} s ({answers})")
        last.end = time.monotonic()
        windows.append(last)
        time.sleep(2.0)
    finally:
        stop.set()
        runner.join()
        sampler.stop.set()
        sampler.join()
    report(record, windows)
    if record.errors:
        print(f"  errors: {len(record.errors)}; " + "; ".join(record.errors[:5]))
    summary(sampler.samples, idle, folder / "worker.log")
    print(f"  load average {load_average()}", flush=True)


def summary(samples: list[Sample], idle: Window, log: Path) -> None:
    at_rest = [s for s in samples if idle.start <= s.at < idle.end] or samples[:5]
    base_pss = statistics.median(s.pss_mb for s in at_rest)
    base_rss = statistics.median(s.rss_mb for s in at_rest)
    worst = max(samples, key=lambda s: s.pss_mb)
    print(
        f"  processes of the hall: at most {max(s.processes for s in samples)} "
        f"(the worker's: at most {max(s.worker_processes for s in samples)}); "
        f"jobs waiting: at most {max(s.waiting for s in samples)}"
    )
    print(
        f"  memory (PSS) idle {base_pss:.0f} MB, peak {worst.pss_mb:.0f} MB: "
        f"{worst.pss_mb - base_pss:.0f} MB above idle (the worker's share then "
        f"{worst.worker_pss_mb:.0f} MB); RSS summed: idle {base_rss:.0f} MB, peak "
        f"{max(s.rss_mb for s in samples):.0f} MB"
    )
    text = log.read_text(errors="replace")
    print(
        f"  the worker: {text.count('made ahead:')} PDFs made, "
        f"{text.count('a newer wish came, stopped')} renders cut off by a newer wish, "
        f"{text.count('a fresh worker process')} fresh renderer processes"
    )
    print("  memory over time (s since the first sample: PSS MB, processes, jobs waiting):")
    first = samples[0].at if samples else 0.0
    step = max(1, len(samples) // 24)
    print(
        "   "
        + "; ".join(
            f"{s.at - first:.0f}: {s.pss_mb:.0f}, {s.processes}, {s.waiting}"
            for s in samples[::step]
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--redraws", type=int, default=100)
    parser.add_argument("--every", type=float, default=3.0, help="seconds between redraws")
    parser.add_argument("--playing", type=int, default=50, help="tables saving meanwhile")
    parser.add_argument("--idle", type=float, default=15.0, help="seconds of the idle hall")
    parser.add_argument("--sqlite", action="store_true", help="SQLite instead of PostgreSQL")
    parser.add_argument(
        "--without-worker",
        action="store_true",
        help="for comparison: PDF_AHEAD off, no worker (the paper made when it is tapped)",
    )
    parser.add_argument("--client-threads", type=int, default=192)
    args = parser.parse_args()
    # a redraw of 200 tables is seconds of CPU: on a busy machine more than a phone waits
    hall.TIMEOUT = max(hall.TIMEOUT, 120)
    folder = Path(tempfile.mkdtemp(prefix="scorer-redraws-"))
    print(f"{os.cpu_count()} CPUs, load average {load_average()}", flush=True)
    try:
        run(args, folder)
    finally:
        if os.environ.get("BENCH_KEEP"):
            print(f"kept: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
