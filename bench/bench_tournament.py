"""The tournament night under load (docs/rules.md section 13.7, issue 21): PostgreSQL, gunicorn.

Run from the top of the checkout::

    .venv/bin/python bench/bench_tournament.py --tables 200 --seconds 60
    .venv/bin/python bench/bench_tournament.py --tables 200,400,700,1000 --no-ceiling
    .venv/bin/python bench/bench_tournament.py --tables 200 --servers 2
    .venv/bin/python bench/bench_tournament.py --final     # the draw; 600 players' ranking

It starts PostgreSQL 15 of its own (``bench/tournament_load.py``), and for
each ``--tables`` a fresh database (``flask db upgrade``) holding a
tournament of ``3 × tables`` players made through
``scorer.services.tournaments`` (round 1 drawn, 12 deals), then gunicorn
``-w 2 --threads 4`` (gthread, README.md's Production section; ``--servers 2``:
two of them on two ports, every device's requests taking them in turn).  Then:

1. *Arrival* (``--arrival``, 30 s): the 3 beamers open the ranking
   (``/p/<view_token>``), every player's phone its own page
   (``/p/<view_token>/players/<number>``), spread over the time.
2. *The minute(s)* (``--seconds``): every table's phone saves a hand once a
   minute, at a moment of its own (``/m/<token>``, then the hand form posted
   as htmx does), while the beamers and the phones poll their page's
   fragment as the browser does (the URL with ``?shown=``, htmx's headers, the
   cookie, both validators once cached; the page's own interval).  Every
   acknowledged hand is looked up in the database afterwards.
3. *Ceiling ratio*: ``wrk`` on a bare Flask hello world (``bench/hello.py``)
   under the same gunicorn settings, before and after the unchanged polls of
   the ranking, the seating and a player's page as the browser sends them
   (→ 304), each ``wrk -t1 -c8 -d10s`` after a 2 s warm-up (``bench/run.py``'s).
4. With ``--servers 2``: a hand saved through one server, then the ranking
   asked of the other with the validators it had: it must answer 200 with the
   new points.

It holds when there are no errors and every kind of request has p95 < 300 ms.
``--final``: the draw of 200 players after 9 rounds (``bench/bench_draw.py``'s
figure) and the ranking page of 600 players after 3 rounds of 12 deals
(played through ``scorer.services``, rounds closed), asked cold and warm.
Nothing here is part of the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import re
import secrets
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import tournament_db as tdb
import tournament_load as hall
from bench_starve import server_cpu
from load import launch_gunicorn, percentile
from run import ACCEPT, Load, Server, ensure_wrk, free_port, load_average, wrk

ROOT, BENCH = hall.ROOT, hall.BENCH
P95_LIMIT_MS = 300.0
RATIO_TARGET = 0.5
BEAMERS = 3
SCORER = "scorer:create_app()"
TIMED = "timed_app:app()"  # scorer with each answer's CPU time (bench/timed_app.py)


@contextmanager
def serving(
    app: str,
    count: int,
    options: list[str],
    env: dict[str, str],
    folder: Path,
    cwd: Path = ROOT,
    access: bool = False,
) -> Iterator[list[Server]]:
    """``count`` gunicorn masters serving ``app``, each on a port of its own.

    ``access``: ``app`` wrapped by ``bench/timed_app.py`` (each answer's CPU time in a
    header), each server writing its access log (:data:`hall.ACCESS_FORMAT`) to
    ``folder/access-<n>.log``: the time and the CPU time each request took in a worker.
    """
    servers: list[Server] = []
    try:
        for n in range(count):
            log = folder / f"gunicorn-{app.split(':')[0]}-{n}.log"
            extra, served = [], app
            if access:
                extra = ["--access-logfile", str(folder / f"access-{n}.log")]
                extra += ["--access-logformat", hall.ACCESS_FORMAT, "--pythonpath", str(BENCH)]
                served = TIMED
            process, port = launch_gunicorn([*options, *extra], served, cwd=cwd, env=env, log=log)
            servers.append(Server(process, port))
        yield servers
    finally:
        for server in servers:
            os.killpg(server.process.pid, signal.SIGTERM)
            server.process.wait(timeout=30)


def servers_cpu(servers: list[Server]) -> float:
    return sum(server_cpu(s.process.pid) for s in servers)


def report(label: str, record: hall.Record, seconds: float) -> None:
    every = record.every()
    print(f"{label}: {len(every)} requests in {seconds:.0f} s ({len(every) / seconds:.1f}/s)")
    for kind in sorted(record.ms):
        print(hall.stats_line(kind, record.ms[kind], record.status[kind]))
    print(hall.stats_line("all", every))


def holds(record: hall.Record) -> bool:
    return not record.errors and all(
        percentile(values, 95) < P95_LIMIT_MS for values in record.ms.values()
    )


def lost_hands(pg: tdb.Postgres, database: str, phones: list[hall.TablePhone]) -> tuple[int, int]:
    """(acknowledged, acknowledged but not in the database)."""
    saved = set(
        pg.sql("SELECT idempotency_key FROM hand WHERE deleted_at IS NULL", database).split()
    )
    acked = [key for phone in phones for key in phone.acked]
    return len(acked), sum(1 for key in acked if key not in saved)


def warm(servers: list[Server], night: tdb.Night, rounds: int = 6) -> None:
    """A few of every request on each server before anything is timed (templates compiled,
    connections open in every worker), as on a night where the server has been up a while."""
    record = hall.Record()
    for server in servers:
        for n in range(rounds):
            browser = hall.Browser([server])
            hall.TablePhone(browser, night.table_tokens[n % len(night.table_tokens)], 0, 60).step(
                record
            )
            for page in ("", "/seats", f"/players/{night.numbers[n]}"):
                hall.Watcher(browser, "warm", f"/p/{night.view_token}{page}", 0).step(record)
    if record.errors:
        raise RuntimeError(f"warming up: {record.errors[:3]}")


def night_load(
    servers: list[Server],
    night: tdb.Night,
    args: argparse.Namespace,
    pg: tdb.Postgres,
    folder: Path,
) -> tuple[hall.Record, hall.Record, list[hall.TablePhone], dict[str, float], hall.Inside]:
    """Arrival, then the minute(s): the records of both, the table phones, the cores each
    part used in the minute(s) and the time and CPU inside the workers per kind."""
    rng = random.Random(len(night.table_tokens))
    place = hall.Hall(args.client_threads)
    start = time.monotonic() + 1.0
    window = start + args.arrival
    ranking = f"/p/{night.view_token}"
    for n in range(BEAMERS):
        first = hall.spread(rng, start, 5.0)
        place.add(hall.Watcher(hall.Browser(servers, n), "beamer", ranking, first), first)
    for number in night.numbers:
        page = f"/p/{night.view_token}/players/{number}"
        browser = hall.Browser(servers, number)
        first = hall.spread(rng, start, args.arrival)
        place.add(hall.Watcher(browser, "player", page, first), first)
    phones = []
    for n, token in enumerate(night.table_tokens):
        first = hall.spread(rng, window, 60.0)
        phones.append(hall.TablePhone(hall.Browser(servers, n), token, first, 60.0))
        place.add(phones[-1], first)
    arrival = hall.Record()
    place.run(arrival, window)
    logs = [folder / f"access-{n}.log" for n in range(len(servers))]
    offsets = [log.stat().st_size for log in logs]
    cpu = (servers_cpu(servers), pg.cpu(), time.process_time(), time.monotonic())
    record = hall.Record()
    place.run(record, window + args.seconds)
    seconds = time.monotonic() - cpu[3]
    used = {
        "gunicorn": (servers_cpu(servers) - cpu[0]) / seconds,
        "PostgreSQL": (pg.cpu() - cpu[1]) / seconds,
        "this client": (time.process_time() - cpu[2]) / seconds,
    }
    return arrival, record, phones, used, hall.served(logs, offsets)


def browser_poll(server: Server, page: str) -> tuple[str, dict[str, str]]:
    """The URL ``page`` polls and what its browser sends once it has a copy (→ 304).

    As the browser asks: the page's cookie, htmx's headers (with the page's
    ``X-CSRFToken`` where it has one), then the first poll of a current page
    (204) and the conditional one with both validators of it (304), checked.
    """
    browser = hall.Browser([server])
    status, _, html, _, _ = browser.request("GET", page)
    poll = hall.polled(html)
    if status != 200 or poll is None:
        raise RuntimeError(f"{page}: {status}, no polled element")
    headers = {
        "HX-Request": "true",
        "HX-Trigger": poll.element,
        "HX-Target": poll.element,
        "HX-Current-URL": f"http://127.0.0.1{page}",
        **({"X-CSRFToken": poll.csrf} if poll.csrf else {}),
        **({"Cookie": "; ".join(f"{k}={v}" for k, v in browser.cookies.items())}),
    }
    first = browser.request("GET", poll.url, headers=headers)
    if first[0] != 204:
        raise RuntimeError(f"the first poll of {page} answered {first[0]}, not 204")
    headers["If-None-Match"] = first[1]["ETag"]
    headers["If-Modified-Since"] = first[1]["Last-Modified"]
    again = browser.request("GET", poll.url, headers=headers)
    if again[0] != 304:
        raise RuntimeError(f"the conditional poll of {page} answered {again[0]}, not 304")
    return poll.url, headers


def ceiling(
    binary: str, server: Server, night: tdb.Night, env: dict[str, str], folder: Path,
    options: list[str], args: argparse.Namespace, pg: tdb.Postgres, database: str,
) -> None:  # fmt: skip
    """The unchanged polls of three pages ÷ the hello world's req/s, as bench/run.py measures.

    The hello world (same gunicorn settings) runs beside scorer and is measured
    before and after each poll; a poll's ratio is its req/s over the mean of
    those two.  ``--ratio-rounds`` rounds of this, the median ratio kept (the
    machine is shared: its other work moves single figures).  For reference,
    the share link's poll of table 1's match (the match's live view, which
    bench/run.py measures on SQLite), here on PostgreSQL.
    """
    load = {"seconds": args.wrk_seconds, "connections": 8}
    share = f"SELECT view_token FROM match WHERE token = '{night.table_tokens[0]}'"
    pages = {
        "ranking": f"/p/{night.view_token}",
        "seating": f"/p/{night.view_token}/seats",
        "player": f"/p/{night.view_token}/players/1",
        "match": f"/v/{pg.sql(share, database).strip()}",
    }
    polls = {name: browser_poll(server, page) for name, page in pages.items()}
    ratios: dict[str, list[float]] = {name: [] for name in polls}
    last: dict[str, tuple[Load, float]] = {}
    with serving("hello:app", 1, options, {**env}, folder, cwd=BENCH) as (hello_server,):

        def hello() -> Load:
            return wrk(binary, hello_server, "/", headers={"Accept-Encoding": ACCEPT}, **load)

        wrk(binary, hello_server, "/", seconds=2, connections=8)
        for url, headers in polls.values():
            wrk(binary, server, url, headers=headers, seconds=2, connections=8)
        hellos = [hello()]
        for _ in range(args.ratio_rounds):
            for name, (url, headers) in polls.items():
                before = pg.cpu()
                run = wrk(binary, server, url, headers=headers, **load)
                last[name] = (run, (pg.cpu() - before) / run.seconds)
                hellos.append(hello())
                ratios[name].append(run.rps / statistics.mean(h.rps for h in hellos[-2:]))
    print(
        f"ceiling ratio (wrk -t1 -c8 -d{args.wrk_seconds}s, gunicorn {' '.join(options[:4])}, "
        f"{args.ratio_rounds} rounds): hello world {min(h.rps for h in hellos):.0f}–"
        f"{max(h.rps for h in hellos):.0f} req/s ({statistics.median(h.rps for h in hellos):.0f} "
        f"median, {statistics.median(h.server_cores for h in hellos):.2f} cores)"
    )
    for name, values in ratios.items():
        ratio = statistics.median(values)
        run, pg_cores = last[name]
        mark = "ok" if ratio >= RATIO_TARGET and run.bad == 0 else "BELOW"
        mark += ", the match's share poll for reference" if name == "match" else ""
        print(
            f"  {name:8} poll → 304: ratio {ratio:.2f} ({mark} ≥ {RATIO_TARGET}; rounds "
            f"{', '.join(f'{v:.2f}' for v in values)}); last round {run.rps:.0f} req/s, "
            f"p50 {run.p50_ms:.1f} ms, p99 {run.p99_ms:.1f} ms, errors {run.bad}, "
            f"gunicorn {run.server_cores:.2f} cores, PostgreSQL {pg_cores:.2f} cores, "
            f"wrk {run.wrk_cores:.2f} cores"
        )


def shared_state(servers: list[Server], night: tdb.Night, url: str) -> bool:
    """A hand saved through the first server shows in the second one's ranking within 5 s.

    The second server's ranking is polled with the validators it gave before
    (304), then a hand is saved through the first one; the same poll, asked
    every 0.25 s, must answer 200 with the table's new totals in its players'
    lines (a process may show the state it built for up to ``TOURNAMENT_FRESH``
    seconds, so not at once).
    """
    one, other = hall.Browser([servers[0]]), hall.Browser([servers[1]])
    _, _, html, _, _ = other.request("GET", f"/p/{night.view_token}")
    poll = hall.polled(html)
    if poll is None:
        raise RuntimeError("the ranking has no polled element")
    htmx = {"HX-Request": "true", "HX-Trigger": poll.element, "HX-Target": poll.element}
    before = other.request("GET", poll.url, headers=htmx)
    cached = {"If-None-Match": before[1]["ETag"], "If-Modified-Since": before[1]["Last-Modified"]}
    unchanged = other.request("GET", poll.url, headers={**htmx, **cached})[0]
    record = hall.Record()
    hall.TablePhone(one, night.table_tokens[0], 0.0, 60.0).step(record)
    saved = time.monotonic()
    expected = tdb.table_totals(url, night.table_tokens[0])
    shown, answers = False, Counter[int]()
    while not shown and time.monotonic() - saved < 10:
        status, _, body, _, _ = other.request("GET", poll.url, headers={**htmx, **cached})
        answers[status] += 1
        shown = status == 200 and totals_shown(body, expected)
        if not shown:
            time.sleep(0.25)
    took = time.monotonic() - saved
    ok = unchanged == 304 and shown and took <= 5 and not record.errors
    print(
        f"two servers, one state: the ranking's poll on :{servers[1].port} answered "
        f"{unchanged} before a hand was saved through :{servers[0].port}, then "
        f"{', '.join(f'{s}×{n}' for s, n in sorted(answers.items()))}; the table's new "
        f"totals in it after {took:.1f} s: {'yes' if shown else 'NO'} ({'ok' if ok else 'WRONG'})"
    )
    return ok


def totals_shown(body: str, expected: list[tuple[str, int]]) -> bool:
    """Whether the ranking's lines give each named player the expected total."""
    # the lines with their numbers' thousands separators taken out ("1.200" in German)
    lines = [re.sub(r"(?<=\d)[.,\u202f\u00a0](?=\d{3})", "", line) for line in body.split("<tr")]
    return all(
        any(f">{name}<" in line and re.search(rf"[-−]?\b{abs(total)}\b", line) for line in lines)
        for name, total in expected
    )


def step(
    pg: tdb.Postgres, tables: int, binary: str, args: argparse.Namespace, folder: Path
) -> bool:
    """One tournament size: the load (``--no-load``: none), then the ceiling ratio."""
    database = f"night{tables}"
    url, env, night = tdb.fresh_night(pg, database, tables)
    options = ["-w", str(args.workers), "--threads", str(args.threads), "--log-level", "warning"]
    print(
        f"== {tables} tables ({3 * tables} players), {args.servers} × gunicorn "
        f"{' '.join(options[:4])} (gthread), PostgreSQL 15; load average {load_average()}"
    )
    print(f"tournament made, players checked in, round 1 drawn: {night.seconds:.1f} s")
    app_env = {**env, "DATABASE_URL": url}
    held = True
    if args.load:
        with serving(SCORER, args.servers, options, app_env, folder, access=True) as servers:
            warm(servers, night)
            held = night_report(servers, night, args, pg, database, folder)
            if args.servers > 1:
                held = shared_state(servers, night, url) and held
    if args.ceiling:
        # a server of its own (no access log), on the same database after the load
        with serving(SCORER, 1, options, app_env, folder) as (server,):
            ceiling(binary, server, night, env, folder, options, args, pg, database)
    print(f"load average {load_average()}", flush=True)
    return held


def inside_report(inside: hall.Inside, seconds: float) -> None:
    """The same requests' time inside the workers, and the workers' CPU per kind of request
    (gunicorn's access log, ``bench/timed_app.py``), the kind that used most first."""
    print("  inside the workers (gunicorn's access log), the same requests:")
    for kind in sorted(inside.ms):
        print(hall.stats_line(kind, inside.ms[kind]))
    spent = {kind: sum(values) for kind, values in inside.cpu_ms.items()}
    total = sum(spent.values()) or 1.0
    print(
        f"  the workers' CPU per request (thread time), of {total / 1000:.1f} s "
        f"in all ({total / 1000 / seconds:.2f} cores):"
    )
    for kind in sorted(spent, key=spent.__getitem__, reverse=True):
        values = inside.cpu_ms[kind]
        print(
            f"  {kind:16} p50 {percentile(values, 50):6.1f} ms  p95 {percentile(values, 95):6.1f}"
            f" ms  in all {spent[kind] / 1000:6.1f} s ({spent[kind] / total:.0%})"
        )


def night_report(
    servers: list[Server],
    night: tdb.Night,
    args: argparse.Namespace,
    pg: tdb.Postgres,
    database: str,
    folder: Path,
) -> bool:
    """The night's load on ``servers``, printed; whether it holds."""
    pg.reset_statements(database)
    arrival, record, phones, used, inside = night_load(servers, night, args, pg, folder)
    report(f"arrival ({args.arrival:.0f} s)", arrival, args.arrival)
    report(f"the minute(s) ({args.seconds:.0f} s)", record, args.seconds)
    inside_report(inside, args.seconds)
    acked, lost = lost_hands(pg, database, phones)
    errors = arrival.errors + record.errors
    print(f"  hands acknowledged {acked}, not in the database {lost}; errors {len(errors)}")
    for message in errors[:8]:
        print("   ", message)
    print(
        "  CPU in the minute(s): "
        + ", ".join(f"{name} {cores:.2f} cores" for name, cores in used.items())
        + f"; load average {load_average()}; requests started late: p95 "
        f"{percentile(record.late_ms, 95):.0f} ms, max {max(record.late_ms, default=0):.0f} ms"
    )
    print("  PostgreSQL's busiest statements (calls, total ms, mean ms):")
    for calls, total, mean, text in pg.top_statements(database):
        print(f"    {calls:7} {total:9.0f} {mean:7.3f}  {text}")
    held = holds(record) and holds(arrival) and lost == 0
    print(f"holds (0 errors, every kind p95 < {P95_LIMIT_MS:.0f} ms): {'yes' if held else 'NO'}")
    return held


def final(pg: tdb.Postgres, folder: Path, args: argparse.Namespace) -> None:
    """The draw's time (bench_draw.py), then 600 players' ranking after 3 rounds, as a page."""
    import bench_draw

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        bench_draw.measure(200, 9)
    print(out.getvalue().strip())
    url = pg.fresh("final")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SECRET_KEY": secrets.token_hex(32)}
    tdb.migrate(url, env)
    made = time.perf_counter()
    view_token = tdb.played_night(url, 200, rounds_=3)
    print(
        f"600 players, 3 rounds of 12 deals played and closed: {time.perf_counter() - made:.0f} s"
    )
    options = ["-w", str(args.workers), "--threads", str(args.threads), "--log-level", "warning"]
    with serving(SCORER, 1, options, {**env, "DATABASE_URL": url}, folder) as (server,):
        browser = hall.Browser([server])
        times = []
        for _ in range(6):
            status, _, html, ms, _ = browser.request("GET", f"/p/{view_token}")
            times.append(ms)
            if status != 200:
                raise RuntimeError(f"the ranking answered {status}")
        print(
            f"the final ranking page (/p/<view_token>, {len(html) / 1024:.0f} KiB): first asks "
            f"(each worker's first: standings built, templates compiled) "
            f"{', '.join(f'{t:.0f}' for t in times[:2])} ms; "
            f"then {', '.join(f'{t:.0f}' for t in times[2:])} ms"
        )
    show_costs(tdb.costs(url, view_token, []))
    print("the PDF of the final ranking comes with the tournament's paper (a later issue)")


def show_costs(found: dict[str, tdb.Cost]) -> None:
    print("  in process, one at a time (median CPU of the app, the database's not counted; wall):")
    for name, (cpu, wall) in found.items():
        print(f"    {name:32} CPU {cpu:7.1f} ms   wall {wall:7.1f} ms")


def cost_steps(pg: tdb.Postgres, sizes: list[int]) -> None:
    """Per size: round 1 with a hand at every table, then :func:`tdb.costs`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for tables in sizes:
        url = pg.fresh(f"costs{tables}")
        tdb.migrate(url, env)
        night = tdb.build_night(url, tables)
        tdb.one_hand_each(url, night.view_token)
        print(f"== {tables} tables, round 1, a hand at every table; load average {load_average()}")
        show_costs(tdb.costs(url, night.view_token, night.table_tokens))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="200", help="a number, or several: 200,400,700,1000")
    parser.add_argument("--seconds", type=float, default=60.0, help="the measured minute(s)")
    parser.add_argument("--arrival", type=float, default=30.0, help="the phones open their pages")
    parser.add_argument("--servers", type=int, default=1, help="app servers on one PostgreSQL")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--client-threads", type=int, default=192)
    parser.add_argument("--wrk-seconds", type=int, default=5)
    parser.add_argument("--ratio-rounds", type=int, default=3)
    parser.add_argument("--no-ceiling", dest="ceiling", action="store_false")
    parser.add_argument("--no-load", dest="load", action="store_false", help="the ratios only")
    parser.add_argument("--final", action="store_true", help="only the draw and the final ranking")
    parser.add_argument("--costs", action="store_true", help="each kind of work in process")
    parser.add_argument("--go-on", action="store_true", help="step up even after a step fails")
    args = parser.parse_args()

    binary = ensure_wrk()
    folder = Path(tempfile.mkdtemp(prefix="scorer-tournament-"))
    pg = tdb.Postgres(free_port())
    print(f"{os.cpu_count()} CPUs, load average {load_average()}", flush=True)
    try:
        pg.start()  # inside: a server that failed to start still leaves no folder behind
        if args.final:
            final(pg, folder, args)
            return 0
        if args.costs:
            cost_steps(pg, [int(t) for t in args.tables.split(",")])
            return 0
        ok = True
        for tables in (int(t) for t in args.tables.split(",")):
            ok = step(pg, tables, binary, args, folder) and ok
            if not ok and not args.go_on:
                break
        return 0 if ok else 1
    finally:
        pg.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
