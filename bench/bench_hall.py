"""The hall at 1,000 tables with every page open (issues 28, 34 §6), stepped up.

Run from the top of the checkout::

    .venv/bin/python bench/bench_hall.py --write          # 200, 400, 700, 1,000; ~30 min
    .venv/bin/python bench/bench_hall.py --tables 1000 --seconds 60 --no-ceiling
    .venv/bin/python bench/bench_hall.py --tables 1000 --no-players --previews 0  # issue 28's

The load model, per step a fresh PostgreSQL database with a tournament of
``3 × tables`` players, round 1 drawn, served by gunicorn ``-w 2 --threads 4``
(gthread, ``bench/timed_app.py``: each answer's CPU time in the access log):

- during ``--arrival`` (30 s) every device opens its page, at a moment of its own;
  not counted in the step's figures;
- then for ``--seconds`` (180): every table's phone saves a hand about once a
  minute (the hand typed in ``--previews`` (3) steps ``--typing`` (2) s apart,
  each posting the form to the live preview as the form's htmx does, then the
  hand form posted as htmx does; 3–5× a real deal's pace), into the page it
  opened on arrival and the form each save's answer brings, as in the browser
  (``--reload``: the match page loaded again before every hand, issue 28's model);
- one spectator per three tables polls the ranking every 3 s exactly as the
  page's htmx does (the page's cookie, the polled element's URL with
  ``?shown=``, htmx's headers, ``If-None-Match`` and ``If-Modified-Since`` once
  cached), the phone's page of the ranking (50 lines; spectators start on the
  pages of the ranking in turn);
- the beamer polls the ranking every 3 s (a page of 20 lines, as a 1920×1080
  screen asks);
- every player's phone (``3 × tables``) keeps their own page open and polls it at
  the page's interval (30 s; ``--no-players``: none);
- the organiser's board polls every 5 s (its first page of 100 tables).

Printed per step: requests per second, p50/p95/max per kind with their status
counts, the same requests' time and CPU inside the workers per kind (which kind
the cores went to), the workers', PostgreSQL's and this client's cores, lost
hands, the load average, PostgreSQL's busiest statements; then the ceiling
ratios (``bench/bench_tournament.py``'s ``ceiling``: the unchanged polls → 304
over a bare Flask hello world under the same gunicorn).  ``--write`` puts the
step table and the CPU per request into ``bench/RESULTS.md`` ("The hall at 1,000
tables, every page open").  It holds when there are no errors, no lost hand and
every kind's p95 < ``--limit`` (100 ms).  The load client runs on the same
machine: its cores are printed, and a p95 is only as good as the machine is
quiet (the load average is in the table).  Nothing here is part of the test suite.
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
HEADING = "## The hall at 1,000 tables, every page open (issue 34 §6)"
STEPS = "200,400,700,1000"


KINDS = (
    "hand saved",
    "match page",
    "preview",
    "player poll",
    "spectator poll",
    "beamer poll",
    "board poll",
)
"""The request kinds of the step table, as the devices name them."""


@dataclass
class Step:
    """One size's figures, for the table in RESULTS.md."""

    tables: int
    saves: float
    requests: float
    p95: dict[str, float]
    cpu: dict[str, float]
    cores: float
    pg_cores: float
    client_cores: float
    lost: int
    errors: int
    load: str
    held: bool


def devices(
    servers: list[night_bench.Server], night: tdb.Night, args: argparse.Namespace, start: float
) -> tuple[hall.Hall, list[hall.TablePhone]]:
    """The hall's devices, each first asking at a moment of its own: the pages opened within
    ``--arrival`` seconds from ``start``, the table phones' first hands in the minute after."""
    tables = len(night.table_tokens)
    rng = random.Random(tables)
    place = hall.Hall(args.client_threads)
    ranking = f"/p/{night.view_token}"
    pages = max(1, -(-3 * tables // 50))
    for n in range(max(1, tables // 3)):
        first = hall.spread(rng, start, args.arrival)
        page = f"{ranking}?page={n % pages + 1}" if n % pages else ranking
        place.add(hall.Watcher(hall.Browser(servers, n), "spectator", page, first), first)
    place.add(hall.Watcher(hall.Browser(servers, 0), "beamer", f"{ranking}?rows=20", start), start)
    board = f"/t/{night.token}/board"
    place.add(hall.Watcher(hall.Browser(servers, 1), "board", board, start, every=5.0), start)
    if args.players:
        for number in night.numbers:
            first = hall.spread(rng, start, args.arrival)
            page = f"{ranking}/players/{number}"
            place.add(hall.Watcher(hall.Browser(servers, number), "player", page, first), first)
    phones = []
    for n, token in enumerate(night.table_tokens):
        first = hall.spread(rng, start + args.arrival, 60.0)
        phone = hall.TablePhone(
            hall.Browser(servers, n), token, first, 60.0, args.previews, args.typing, args.reload
        )
        phones.append(phone)
        place.add(phone, first if args.reload else hall.spread(rng, start, args.arrival))
    return place, phones


def run_step(
    pg: tdb.Postgres, tables: int, binary: str, args: argparse.Namespace, folder: Path
) -> Step:
    database = f"hall{tables}"
    url, env, night = tdb.fresh_night(pg, database, tables)
    options = ["-w", str(args.workers), "--threads", str(args.threads), "--log-level", "warning"]
    print(
        f"== {tables} tables ({3 * tables} players), gunicorn {' '.join(options[:4])} "
        f"(gthread), PostgreSQL 15; players' pages {'on' if args.players else 'off'}, "
        f"{args.previews} previews a hand; load average {load_average()}",
        flush=True,
    )
    app_env = {**env, "DATABASE_URL": url}
    with night_bench.serving(
        night_bench.SCORER, 1, options, app_env, folder, access=True
    ) as servers:
        night_bench.warm(servers, night)
        start = time.monotonic() + 1.0
        place, phones = devices(servers, night, args, start)
        arrival = hall.Record()
        place.run(arrival, start + args.arrival)
        pg.reset_statements(database)
        logs = [folder / f"access-{n}.log" for n in range(len(servers))]
        offsets = [log.stat().st_size for log in logs]
        before = (night_bench.servers_cpu(servers), pg.cpu(), time.process_time())
        began = time.monotonic()
        record = hall.Record()
        place.run(record, start + args.arrival + args.seconds)
        seconds = time.monotonic() - began
        cores = (night_bench.servers_cpu(servers) - before[0]) / seconds
        pg_cores = (pg.cpu() - before[1]) / seconds
        client_cores = (time.process_time() - before[2]) / seconds
        inside = hall.served(logs, offsets)
    night_bench.report(f"arrival ({args.arrival:.0f} s)", arrival, args.arrival)
    night_bench.report(f"{args.seconds:.0f} s", record, seconds)
    night_bench.inside_report(inside, seconds)
    acked, lost = night_bench.lost_hands(pg, database, phones)
    saves = len(record.ms.get("hand saved", [])) / seconds
    requests = len(record.every()) / seconds
    p95 = {kind: percentile(values, 95) for kind, values in record.ms.items()}
    cpu = {kind: percentile(values, 50) for kind, values in inside.cpu_ms.items()}
    load = load_average()
    errors = arrival.errors + record.errors
    held = night_bench.holds(record) and not arrival.errors and lost == 0
    held = held and all(v < args.limit for v in p95.values())
    print(
        f"  hands acknowledged {acked}, lost {lost}; errors {len(errors)}"
        f"{': ' + '; '.join(errors[:3]) if errors else ''}; gunicorn {cores:.2f} "
        f"cores, PostgreSQL {pg_cores:.2f} cores, this client {client_cores:.2f} cores; load "
        f"average {load}; requests started late: p95 {percentile(record.late_ms, 95):.0f} ms; "
        f"holds (every kind's p95 < {args.limit:.0f} ms): {'yes' if held else 'NO'}",
        flush=True,
    )
    print("  PostgreSQL's busiest statements (calls, total ms, mean ms):")
    for calls, total, mean, text in pg.top_statements(database):
        print(f"    {calls:7} {total:9.0f} {mean:7.3f}  {text}")
    if args.ceiling:
        with night_bench.serving(night_bench.SCORER, 1, options, app_env, folder) as (server,):
            night_bench.ceiling(binary, server, night, env, folder, options, args, pg, database)
    return Step(
        tables, saves, requests, p95, cpu, cores, pg_cores, client_cores, lost, len(errors),
        load, held,
    )  # fmt: skip


def table(steps: list[Step]) -> str:
    lines = [
        "| tables | saves/s | requests/s | "
        + " | ".join(f"{k} p95" for k in KINDS)
        + " | gunicorn cores | PostgreSQL cores | client cores | lost | errors | load average"
        " | holds |",
        "|" + "---|" * (10 + len(KINDS)),
    ]
    for s in steps:
        cells = [
            str(s.tables),
            f"{s.saves:.2f}",
            f"{s.requests:.0f}",
            *(f"{s.p95[k]:.0f} ms" if k in s.p95 else "–" for k in KINDS),
            f"{s.cores:.2f}",
            f"{s.pg_cores:.2f}",
            f"{s.client_cores:.2f}",
            str(s.lost),
            str(s.errors),
            s.load,
            "yes" if s.held else "NO",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cpu_table(steps: list[Step]) -> str:
    """The workers' CPU per request (median thread time inside a worker) by kind and size."""
    kinds = sorted({k for s in steps for k in s.cpu})
    lines = [
        "| tables | " + " | ".join(kinds) + " |",
        "|" + "---|" * (1 + len(kinds)),
    ]
    for s in steps:
        cells = [f"{s.cpu[k]:.1f}" if k in s.cpu else "–" for k in kinds]
        lines.append(f"| {s.tables} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write(steps: list[Step], args: argparse.Namespace) -> None:
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    section = (
        f"{HEADING}\n\n`bench/bench_hall.py` ({time.strftime('%Y-%m-%d %H:%M')}, "
        f"{os.cpu_count()} CPUs, {args.seconds:.0f} s a step after {args.arrival:.0f} s of "
        f"arrival; PostgreSQL 15, one gunicorn `-w {args.workers} --threads {args.threads}`; "
        "a save per table a minute"
        + (f" with {args.previews} previews while it is typed" if args.previews else "")
        + (
            " (the match page loaded before each hand)"
            if args.reload
            else " (into the page opened on arrival)"
        )
        + ", a spectator per three tables polling the ranking every 3 s, the beamer every "
        "3 s, the board every 5 s"
        + (", every player's own page every 30 s" if args.players else "")
        + "):\n\n"
        + table(steps)
        + "\n\nThe workers' CPU per request, ms (median thread time inside a worker, from "
        "gunicorn's access log):\n\n" + cpu_table(steps) + "\n"
    )
    pattern = re.compile(re.escape(HEADING) + r".*?(?=\n## |\Z)", re.S)
    text = pattern.sub(section, text) if pattern.search(text) else text.rstrip() + "\n\n" + section
    RESULTS.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default=STEPS)
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--arrival", type=float, default=30.0, help="seconds to open the pages")
    parser.add_argument("--no-players", dest="players", action="store_false")
    parser.add_argument("--previews", type=int, default=3, help="previews per hand typed")
    parser.add_argument("--typing", type=float, default=2.0, help="seconds between previews")
    parser.add_argument(
        "--reload", action="store_true", help="the phones load the match page before each hand"
    )
    parser.add_argument("--limit", type=float, default=100.0, help="p95 goal per kind, ms")
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
            write(steps, args)
        return 0 if all(s.held for s in steps) else 1
    finally:
        pg.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
