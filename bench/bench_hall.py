"""The hall at 1,000 tables (issue 28): saves, spectators, the beamer and the board, stepped up.

Run from the top of the checkout::

    .venv/bin/python bench/bench_hall.py                       # 50,100,200,400,700,1000; ~35 min
    .venv/bin/python bench/bench_hall.py --tables 200 --seconds 60
    .venv/bin/python bench/bench_hall.py --tables 1000 --no-ceiling --write   # RESULTS.md's table

The load model (heavier than ``bench/bench_tournament.py``'s night, which has every
player's phone asking its own page every 30 s): per step a fresh PostgreSQL
database with a tournament of ``3 × tables`` players, round 1 drawn, served by
gunicorn ``-w 2 --threads 4`` (gthread), and for ``--seconds`` (180):

- every table's phone saves a hand about once a minute (``/m/<token>``, then the
  hand form posted as htmx does; 3–5× a real deal's pace);
- one spectator per three tables polls the ranking every 3 s exactly as the
  page's htmx does (the page's cookie, the polled element's URL with
  ``?shown=``, htmx's headers, ``If-None-Match`` and ``If-Modified-Since`` once
  cached), the phone's page of the ranking (50 lines; spectators start on the
  pages of the ranking in turn);
- the beamer polls the ranking every 3 s (a page of 20 lines, as a 1920×1080
  screen asks);
- the organiser's board polls every 5 s.

Printed per step: requests per second, p50/p95/max per kind with their status
counts, the workers' and PostgreSQL's cores, lost hands, the load average; then
the ceiling ratios (``bench/bench_tournament.py``'s ``ceiling``: the unchanged
polls → 304 over a bare Flask hello world under the same gunicorn).  ``--write``
puts the step table into ``bench/RESULTS.md`` ("The hall at 1,000 tables").
It holds when there are no errors, no lost hand and every kind's p95 < 300 ms.
Nothing here is part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import bench_tournament as night_bench
import tournament_db as tdb
import tournament_load as hall
from load import percentile
from run import ensure_wrk, free_port, load_average

ROOT, BENCH = hall.ROOT, hall.BENCH
RESULTS = BENCH / "RESULTS.md"
HEADING = "## The hall at 1,000 tables (issue 28)"
STEPS = "50,100,200,400,700,1000"


@dataclass
class Step:
    """One size's figures, for the table in RESULTS.md."""

    tables: int
    saves: float
    polls: float
    p95: dict[str, float]
    cores: float
    pg_cores: float
    lost: int
    errors: int
    load: str
    held: bool


def run_step(
    pg: tdb.Postgres, tables: int, binary: str, args: argparse.Namespace, folder: Path
) -> Step:
    database = f"hall{tables}"
    url, env, night = tdb.fresh_night(pg, database, tables)
    options = ["-w", str(args.workers), "--threads", str(args.threads), "--log-level", "warning"]
    print(
        f"== {tables} tables ({3 * tables} players), gunicorn {' '.join(options[:4])} "
        f"(gthread), PostgreSQL 15; load average {load_average()}",
        flush=True,
    )
    app_env = {**env, "DATABASE_URL": url}
    with night_bench.serving(
        night_bench.SCORER, 1, options, app_env, folder, access=True
    ) as servers:
        night_bench.warm(servers, night)
        pg.reset_statements(database)
        rng = random.Random(tables)
        place = hall.Hall(args.client_threads)
        start = time.monotonic() + 1.0
        ranking = f"/p/{night.view_token}"
        pages = max(1, -(-3 * tables // 50))
        for n in range(max(1, tables // 3)):
            first = hall.spread(rng, start, 3.0)
            page = f"{ranking}?page={n % pages + 1}" if n % pages else ranking
            place.add(hall.Watcher(hall.Browser(servers, n), "spectator", page, first), first)
        place.add(
            hall.Watcher(hall.Browser(servers, 0), "beamer", f"{ranking}?rows=20", start), start
        )
        board = f"/t/{night.token}/board"
        place.add(hall.Watcher(hall.Browser(servers, 1), "board", board, start, every=5.0), start)
        phones = []
        for n, token in enumerate(night.table_tokens):
            first = hall.spread(rng, start, 60.0)
            phones.append(hall.TablePhone(hall.Browser(servers, n), token, first, 60.0))
            place.add(phones[-1], first)
        before = (night_bench.servers_cpu(servers), pg.cpu(), time.monotonic())
        record = hall.Record()
        place.run(record, start + args.seconds)
        seconds = time.monotonic() - before[2]
        cores = (night_bench.servers_cpu(servers) - before[0]) / seconds
        pg_cores = (pg.cpu() - before[1]) / seconds
    night_bench.report(f"{args.seconds:.0f} s", record, seconds)
    acked, lost = night_bench.lost_hands(pg, database, phones)
    saves = len(record.ms.get("hand saved", [])) / seconds
    polls = sum(len(v) for k, v in record.ms.items() if k.endswith("poll")) / seconds
    p95 = {kind: percentile(values, 95) for kind, values in record.ms.items()}
    load = load_average()
    held = night_bench.holds(record) and lost == 0
    print(
        f"  hands acknowledged {acked}, lost {lost}; errors {len(record.errors)}"
        f"{': ' + '; '.join(record.errors[:3]) if record.errors else ''}; gunicorn {cores:.2f} "
        f"cores, PostgreSQL {pg_cores:.2f} cores; load average {load}; requests started late: "
        f"p95 {percentile(record.late_ms, 95):.0f} ms; holds: {'yes' if held else 'NO'}",
        flush=True,
    )
    if args.ceiling:
        with night_bench.serving(night_bench.SCORER, 1, options, app_env, folder) as (server,):
            night_bench.ceiling(binary, server, night, env, folder, options, args, pg, database)
    return Step(tables, saves, polls, p95, cores, pg_cores, lost, len(record.errors), load, held)


def table(steps: list[Step]) -> str:
    kinds = ("hand saved", "spectator poll", "beamer poll", "board poll")
    lines = [
        "| tables | saves/s | polls/s | "
        + " | ".join(f"{k} p95" for k in kinds)
        + " | gunicorn cores | PostgreSQL cores | lost | errors | load average | holds |",
        "|" + "---|" * (9 + len(kinds)),
    ]
    for s in steps:
        cells = [
            str(s.tables),
            f"{s.saves:.2f}",
            f"{s.polls:.1f}",
            *(f"{s.p95[k]:.0f} ms" if k in s.p95 else "–" for k in kinds),
            f"{s.cores:.2f}",
            f"{s.pg_cores:.2f}",
            str(s.lost),
            str(s.errors),
            s.load,
            "yes" if s.held else "NO",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write(steps: list[Step], seconds: float) -> None:
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    section = (
        f"{HEADING}\n\n`bench/bench_hall.py` ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, "
        f"{seconds:.0f} s a step; PostgreSQL 15, one gunicorn `-w 2 --threads 4`; a save per "
        "table a minute, a spectator per three tables polling the ranking every 3 s, the "
        "beamer every 3 s, the board every 5 s):\n\n" + table(steps) + "\n"
    )
    pattern = re.compile(re.escape(HEADING) + r".*?(?=\n## |\Z)", re.S)
    text = pattern.sub(section, text) if pattern.search(text) else text.rstrip() + "\n\n" + section
    RESULTS.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default=STEPS)
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--client-threads", type=int, default=256)
    parser.add_argument("--wrk-seconds", type=int, default=5)
    parser.add_argument("--ratio-rounds", type=int, default=3)
    parser.add_argument("--no-ceiling", dest="ceiling", action="store_false")
    parser.add_argument("--write", action="store_true", help="the step table into RESULTS.md")
    args = parser.parse_args()
    binary = ensure_wrk()
    folder = Path(tempfile.mkdtemp(prefix="scorer-hall-"))
    pg = tdb.Postgres(free_port())
    print(f"{os.cpu_count()} CPUs, load average {load_average()}", flush=True)
    steps: list[Step] = []
    try:
        pg.start()
        for tables in (int(t) for t in args.tables.split(",")):
            steps.append(run_step(pg, tables, binary, args, folder))
        print(table(steps))
        if args.write:
            write(steps, args.seconds)
        return 0 if all(s.held for s in steps) else 1
    finally:
        pg.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
