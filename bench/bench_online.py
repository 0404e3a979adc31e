"""The hosted copy under a final's viewers (issue 31): 1,000 browsers polling every 10 s.

Run from the top of the checkout::

    .venv/bin/python bench/bench_online.py                    # 1,000 viewers, 60 s; ~3 min
    .venv/bin/python bench/bench_online.py --viewers 2000 --tables 1000

A PostgreSQL of its own (``bench/tournament_db.py``) holds a hosted page to which
a hall's state was pushed (a tournament of ``3 × --tables`` players, a hand at
every table; made in process, pushed through ``services.online.hosted.receive``
as a hall's push is).  gunicorn ``-w 2 --threads 4`` serves it.  Then:

1. ``--viewers`` browsers open the hosted ranking (``/o/<token>``, spread over the
   first 10 s) and poll it every ``--every`` seconds exactly as the page's htmx
   does (cookie, ``?shown=``, htmx's headers, both validators once cached), while
   the hall pushes a new state every ``--push-every`` seconds (a hand at a table);
   printed: requests per second, p50/p95/max per kind with their statuses, the
   workers' and PostgreSQL's cores.
2. The ceiling ratio: the unchanged poll as the browser sends it (→ 304), ``wrk
   -t1 -c8``, over a bare Flask hello world under the same gunicorn, measured
   before and after (``bench/run.py``'s way), in 3 rounds, the median kept.

Nothing here is part of the test suite; tests never assert timings.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import bench_tournament as night_bench
import tournament_db as tdb
import tournament_load as hall
from load import percentile
from run import ACCEPT, ensure_wrk, free_port, load_average, wrk

ROOT, BENCH = hall.ROOT, hall.BENCH


def made_page(url: str, tables: int) -> tuple[str, object]:
    """A hosted page with a hall's state pushed to it; its public token and a pusher."""
    from scorer import create_app
    from scorer.extensions import db
    from scorer.models import utcnow
    from scorer.services.online import hosted
    from scorer.services.online.document import document, dumps
    from scorer.services.online.signing import body_hash, signature
    from scorer.services.tournaments import money, public_state, setup
    from tests.tournament_builders import play_round

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        night = tdb.build_night(url, tables)
        tournament = setup.get_tournament_for_view(night.view_token)
        play_round(tournament.round_rows[0], hands=1)
        page = hosted.make_page("Bezirksmeisterschaft")
        page_id, key, token = page.id, page.key, page.token
        generation, _ = hosted.connect(
            page_id,
            b'{"hall": "bench", "nonce": "benchbenchbench0"}',
            signature(
                key,
                "connect",
                page_id,
                body_hash(b'{"hall": "bench", "nonce": "benchbenchbench0"}'),
            ),
        )
        tournament_id, tables_ids = tournament.id, [t.id for t in tournament.round_rows[0].tables]
        db.session.remove()
    seq = [0]
    lock = threading.Lock()

    def push_one() -> None:
        """A hand somewhere in the hall, then its state pushed as a hall pushes it."""
        from scorer.tournament_models import TournamentTable
        from tests.tournament_builders import play_table

        with lock, app.app_context():
            table = db.session.get_one(TournamentTable, random.choice(tables_ids))
            play_table(table, 1)
            tournament = db.session.get_one(type(table.round.tournament), tournament_id)
            built = public_state.build(tournament_id)
            doc = document(
                built.standings, money.prize_list(tournament, built.standings), None,
                utcnow(), "Europe/Berlin",
            )  # fmt: skip
            body = dumps(doc)
            seq[0] += 1
            given = signature(key, "push", page_id, generation, seq[0], body_hash(body))
            hosted.receive(page_id, generation, seq[0], body, given)
            db.session.remove()

    push_one()
    return token, push_one


def run(args: argparse.Namespace, pg: tdb.Postgres, binary: str, folder: Path) -> None:
    url = pg.fresh("online")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SECRET_KEY": secrets.token_hex(32)}
    tdb.migrate(url, env)
    token, push_one = made_page(url, args.tables)
    options = ["-w", str(args.workers), "--threads", str(args.threads), "--log-level", "warning"]
    app_env = {**env, "DATABASE_URL": url}
    print(
        f"== a hosted page of {3 * args.tables} players, {args.viewers} viewers polling every "
        f"{args.every:.0f} s, a push every {args.push_every:.0f} s; gunicorn "
        f"{' '.join(options[:4])}; load average {load_average()}",
        flush=True,
    )
    with night_bench.serving(night_bench.SCORER, 1, options, app_env, folder) as servers:
        place = hall.Hall(args.client_threads)
        rng = random.Random(args.viewers)
        start = time.monotonic() + 1.0
        for n in range(args.viewers):
            first = hall.spread(rng, start, min(10.0, args.every))
            watcher = hall.Watcher(hall.Browser(servers, n), "viewer", f"/o/{token}", first)
            watcher.every = args.every
            place.add(watcher, first)
        stop = threading.Event()

        def pushing() -> None:
            while not stop.wait(args.push_every):
                push_one()

        pusher = threading.Thread(target=pushing, daemon=True)
        before = (night_bench.servers_cpu(servers), pg.cpu(), time.monotonic())
        pusher.start()
        record = hall.Record()
        place.run(record, start + args.seconds)
        stop.set()
        seconds = time.monotonic() - before[2]
        cores = (night_bench.servers_cpu(servers) - before[0]) / seconds
        pg_cores = (pg.cpu() - before[1]) / seconds
        night_bench.report(f"{args.seconds:.0f} s", record, seconds)
        print(
            f"  gunicorn {cores:.2f} cores, PostgreSQL {pg_cores:.2f} cores; errors "
            f"{len(record.errors)}; load average {load_average()}; holds (0 errors, p95 < 300 ms):"
            f" {'yes' if night_bench.holds(record) else 'NO'}",
            flush=True,
        )
        server = servers[0]
        poll_url, headers = night_bench.browser_poll(server, f"/o/{token}")
        load = {"seconds": args.wrk_seconds, "connections": 8}
        with night_bench.serving("hello:app", 1, options, {**env}, folder, cwd=BENCH) as (hello,):
            wrk(binary, hello, "/", seconds=2, connections=8)
            wrk(binary, server, poll_url, headers=headers, seconds=2, connections=8)
            hellos = [wrk(binary, hello, "/", headers={"Accept-Encoding": ACCEPT}, **load)]
            ratios = []
            for _ in range(3):
                run_ = wrk(binary, server, poll_url, headers=headers, **load)
                hellos.append(wrk(binary, hello, "/", headers={"Accept-Encoding": ACCEPT}, **load))
                ratios.append(run_.rps / statistics.mean(h.rps for h in hellos[-2:]))
        print(
            f"ceiling ratio of the hosted page's unchanged poll (→ 304): "
            f"{statistics.median(ratios):.2f} (rounds {', '.join(f'{r:.2f}' for r in ratios)}); "
            f"last {run_.rps:.0f} req/s, p50 {run_.p50_ms:.1f} ms, p99 {run_.p99_ms:.1f} ms, "
            f"errors {run_.bad}; hello world {statistics.median(h.rps for h in hellos):.0f} req/s"
        )
        print(
            f"p95 of the viewers' polls: {percentile(record.ms.get('viewer poll', [0]), 95):.1f} ms"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewers", type=int, default=1000)
    parser.add_argument("--every", type=float, default=10.0)
    parser.add_argument("--push-every", type=float, default=5.0)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--client-threads", type=int, default=256)
    parser.add_argument("--wrk-seconds", type=int, default=5)
    args = parser.parse_args()
    binary = ensure_wrk()
    folder = Path(tempfile.mkdtemp(prefix="scorer-online-"))
    pg = tdb.Postgres(free_port())
    try:
        pg.start()
        run(args, pg, binary, folder)
        return 0
    finally:
        pg.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
