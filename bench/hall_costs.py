"""What each request of the hall costs the workers, in process: CPU per request kind.

Run from the top of the checkout::

    .venv/bin/python bench/hall_costs.py                    # 1,000 tables; ~2 minutes
    .venv/bin/python bench/hall_costs.py --tables 200,1000 --runs 15

A shared machine makes timings from outside move with whatever else runs on it;
the CPU time a request takes in its own thread moves much less.  So, for each
size, on a PostgreSQL of its own (``bench/tournament_db.py``): a tournament of
``3 × tables`` players, round 1 drawn, 4 hands at every table (mid-round), served
in this process by the Flask test client as a gunicorn worker serves it (its
long-lived objects frozen out of the garbage collector, ``scorer.create_app``'s
``gc.freeze``).  Each kind of request the hall's load (``bench/bench_hall.py``)
sends is timed ``--runs`` times (``time.thread_time``: this thread's CPU, the
database's work not included; the median is printed, and the wall time beside
it), each at another table so that nothing comes from a cache a real phone would
not find:

- a hand saved over htmx into the form the page brought, a preview of a hand
  half typed, the match page (after a save: its sheet rendered anew);
- the organiser's board after a change (its first page of 100 tables), its poll;
- the public polls: the ranking and a player's page unchanged (304), and the first
  poll of a player's page after a new build (the page's view worked out);
- the public build after a save (one process per change, ``published``), and the
  poll state's one statement;
- a bare Flask hello world in the same test client, for scale.

Then what the hall's load would cost at those rates (a save a table a minute,
three previews each, a spectator per three tables every 3 s, every player's page
every 30 s, the board every 5 s, a build every 1.5 s): cores of the workers.
Nothing here is part of the test suite.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import tournament_db as tdb
from load import hand
from run import free_port, load_average
from tournament_load import typed

from tests.builders import form_data

HX = {"HX-Request": "true"}


def costs(url: str, night: tdb.Night, runs: int) -> dict[str, tuple[float, float]]:
    """Median CPU and wall milliseconds per kind of request."""
    import hello

    from scorer import create_app
    from scorer.extensions import db
    from scorer.services.tournaments import public_state, setup, standings

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    client = app.test_client()
    tokens, view, organiser = night.table_tokens, night.view_token, night.token
    out: dict[str, tuple[float, float]] = {}
    turn = iter(range(len(tokens)))

    def measure(name: str, call: Callable[[], Any], prepare: Callable[[], Any] = list) -> None:
        prepare()
        call()  # warm: templates compiled, connections open, the rules' caches filled
        cpu, wall = [], []
        for _ in range(runs):
            prepare()
            start, used = time.perf_counter(), time.thread_time()
            call()
            wall.append((time.perf_counter() - start) * 1000)
            cpu.append((time.thread_time() - used) * 1000)
        out[name] = (statistics.median(cpu), statistics.median(wall))
        print(f"  {name:34} CPU {out[name][0]:7.2f} ms   wall {out[name][1]:7.2f} ms", flush=True)

    def ok(response: Any, *statuses: int) -> Any:
        if response.status_code not in statuses:
            raise RuntimeError(f"{response.request.path}: {response.status_code}")
        return response

    for path in (f"/m/{tokens[0]}", f"/t/{organiser}/board", f"/p/{view}", f"/p/{view}/players/1"):
        ok(client.get(path), 200)
    gc.collect()
    gc.freeze()  # as a gunicorn worker does after it started (scorer.create_app)

    state: dict[str, Any] = {}

    def a_table() -> None:
        token = tokens[next(turn)]
        page = ok(client.get(f"/m/{token}"), 200).get_data(as_text=True)
        state.update(token=token, form=form_data(page, "hand-form"))

    def save() -> None:
        form = {**state["form"], **hand(3)}
        answer = ok(client.post(f"/m/{state['token']}/hands", data=form, headers=HX), 200)
        if "form-error" in answer.get_data(as_text=True):
            raise RuntimeError("the hand was refused")

    def preview() -> None:
        form = {**state["form"], **typed(3, 2, 3)}
        ok(client.post(f"/m/{state['token']}/hands/preview", data=form, headers=HX), 200)

    def saved_elsewhere() -> None:
        a_table()
        save()

    measure("hand saved", save, a_table)
    measure("preview", preview, a_table)
    measure("match page", lambda: ok(client.get(f"/m/{state['token']}"), 200), saved_elsewhere)
    live = f"/t/{organiser}/board/live"
    measure("board poll, changed", lambda: ok(client.get(live, headers=HX), 200), saved_elsewhere)
    cached: dict[str, dict[str, str]] = {}

    def validators(path: str) -> dict[str, str]:
        first = ok(client.get(path, headers=HX), 200)
        return {**HX, "If-None-Match": first.headers["ETag"]}

    for name, path in (
        ("ranking poll, unchanged", f"/p/{view}/live"),
        ("player poll, unchanged", f"/p/{view}/players/5/live"),
    ):
        cached[path] = validators(path)
        measure(name, lambda p=path: ok(client.get(p, headers=cached[p]), 304))
    numbers = iter(range(100, 3 * len(tokens)))

    def new_build() -> None:
        saved_elsewhere()
        time.sleep(1.6)  # TOURNAMENT_FRESH: the next poll builds
        ok(client.get(f"/p/{view}/seats/live", headers=HX), 200)  # this poll builds
        # and this one looks players up in it (once per build and process: its index)
        ok(client.get(f"/p/{view}/players/1/live", headers=HX), 200)

    def player_poll() -> None:
        ok(client.get(f"/p/{view}/players/{next(numbers)}/live", headers=HX), 200)

    measure("player poll, first of a build", player_poll, new_build)
    measure("ranking poll, page changed", lambda: ok(client.get(f"/p/{view}/live"), 200), new_build)
    with app.app_context():
        tournament_id = setup.get_tournament_for_view(view).id
        db.session.remove()
        measure("poll state (one statement)", lambda: standings.poll_state(view))
        last = public_state.build(tournament_id)
        db.session.remove()
        measure(
            "public build after a save",
            lambda: public_state.build(tournament_id, last),
            saved_elsewhere,
        )
        db.session.remove()
    bare = hello.app.test_client()
    measure("hello world", lambda: bare.get("/"))
    with app.app_context():
        db.engine.dispose()
    return out


def projected(tables: int, found: dict[str, tuple[float, float]]) -> float:
    """The workers' cores the hall's load would take at these costs."""
    per_second = {
        "hand saved": tables / 60,
        "preview": 3 * tables / 60,
        "player poll, first of a build": 3 * tables / 30,
        "ranking poll, page changed": max(1, tables // 3) / 3,
        "board poll, changed": 1 / 5,
        "public build after a save": 1 / 1.5,
    }
    return sum(rate * found[kind][0] for kind, rate in per_second.items()) / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="1000")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--hands", type=int, default=4, help="hands at every table first")
    args = parser.parse_args()
    pg = tdb.Postgres(free_port())
    try:
        pg.start()
        for tables in (int(t) for t in args.tables.split(",")):
            url, _, night = tdb.fresh_night(pg, f"costs{tables}", tables)
            tdb.hands_each(url, night.view_token, args.hands)
            print(f"== {tables} tables, {args.hands} hands each; load average {load_average()}")
            found = costs(url, night, args.runs)
            print(
                f"  the hall's load at these costs: {projected(tables, found):.2f} cores of the "
                f"workers (the ranking's pages all changed at every build: its worst case); "
                f"load average {load_average()}",
                flush=True,
            )
        return 0
    finally:
        pg.stop()


if __name__ == "__main__":
    sys.exit(main())
