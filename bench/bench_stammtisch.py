"""The Stammtisch's year page at 40 evenings of 10 matches: server time per request.

Run: ``.venv/bin/python bench/bench_stammtisch.py [--rounds 20] [--evenings 40]
[--matches 10] [--db PATH]``.

A group of six members plays 40 Thursdays of 10 matches each (three or four of them
a night, a guest now and then; every match played to its end by the rules, through
the use cases: about 5,000 hands), once, into a SQLite file that is kept between the
script's runs (the system's temporary folder, ``--db`` names another; made again when
missing).  Then, in process with Flask's test
client (no network), each page is asked ``--rounds`` times and its server time
measured: the year page (ranking, chart, records, evenings), the year through the
read-only twin, the money page, an evening's page, the ranking as CSV, the year as
Excel, and the year sheet as PDF (first render, then from the cache); with the SQL
statements of one request.  Also the group's backup: its size, the export's time,
and the restore's (all of it checked, then written in one transaction: how long
SQLite's write lock is held).  Target: the year page under 0.5 s a request.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event, select

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scorer import create_app  # noqa: E402
from scorer.extensions import db  # noqa: E402
from scorer.models import Match, utcnow  # noqa: E402
from scorer.services.backup_format import dumps  # noqa: E402
from scorer.services.stammtisch import groups  # noqa: E402
from scorer.services.stammtisch.backup import export_group  # noqa: E402
from scorer.services.stammtisch.reading import forget, year_view  # noqa: E402
from scorer.services.stammtisch.restoring import restore  # noqa: E402
from scorer.stammtisch_models import Stammtisch  # noqa: E402
from tests.stammtisch_builders import a_group, play_evening  # noqa: E402

MEMBERS = ("Anna", "Bert", "Carla", "Dieter", "Erna", "Fritz")


def app_on(path: Path) -> Any:
    return create_app(
        {
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}",
            "SECRET_KEY": "bench",
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False,
            # each run its own: the first render is measured, not a PDF of an earlier run
            "PDF_CACHE_DIR": tempfile.mkdtemp(prefix="stammtisch-pdf-"),
            "WORK_SLOT_DIR": tempfile.mkdtemp(prefix="stammtisch-slots-"),
            "PDF_AHEAD": False,
        }
    )


def build(path: Path, evenings: int, matches: int) -> None:
    """The year, played through the use cases (minutes: once, kept in ``path``)."""
    app = app_on(path)
    started = time.perf_counter()
    with app.app_context():
        db.create_all()
        group = a_group(MEMBERS, name="Krone", stake_cents=10, target=1000)
        rng = random.Random(37)
        for week in range(evenings):
            here = rng.sample(MEMBERS, rng.choice((3, 3, 4)))
            guests = ["Gustav"] if week % 9 == 4 and len(here) == 3 else []
            if guests:
                here = here[:2]
            play_evening(
                group,
                here,
                guests=guests,
                matches=matches,
                day=date(2025, 1, 2) + timedelta(days=7 * week),
                seed=rng.randrange(10**6),
            )
            print(f"  evening {week + 1} of {evenings}", end="\r", flush=True)
        db.session.remove()
    print(f"  built in {time.perf_counter() - started:.0f} s" + " " * 20)


def counted(app: Any) -> list[int]:
    """A list that counts the SQL statements sent while it is watched."""
    seen = [0]
    with app.app_context():
        event.listen(
            db.engine, "before_cursor_execute", lambda *a: seen.__setitem__(0, seen[0] + 1)
        )
    return seen


def reference() -> float:
    """Seconds of a fixed piece of pure Python (the same on every machine): how busy the
    machine is, to read this run's figures against another's."""
    started = time.perf_counter()
    sum(i * i for i in range(2_000_000))
    return time.perf_counter() - started


def saved_a_hand(app: Any) -> None:
    """What a hand saved tonight changes for the year: its match's version and time (as
    ``services.writes.touch`` writes them)."""
    with app.app_context():
        last = db.session.execute(
            select(Match).order_by(Match.session_id.desc(), Match.number).limit(1)
        ).scalar_one()
        last.version += 1
        last.updated_at = utcnow()
        db.session.commit()
        db.session.remove()


def timed(
    client: Any, url: str, rounds: int, statements: list[int], before_each: Any = None
) -> tuple[float, float, int]:
    times = []
    for _ in range(rounds):
        if before_each is not None:
            before_each()
        before = statements[0]
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
        sent = statements[0] - before
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))], sent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--evenings", type=int, default=40)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument(
        "--db",
        type=Path,
        # outside the checkout (no database file in the repository's tree): kept in the
        # system's temporary folder between runs
        default=Path(tempfile.gettempdir()) / "scorer-bench-stammtisch-year.sqlite",
    )
    args = parser.parse_args()
    if not args.db.exists():
        print(f"building {args.evenings} evenings of {args.matches} matches into {args.db}")
        build(args.db, args.evenings, args.matches)
    app = app_on(args.db)
    # as a served worker does (scorer.create_app under gunicorn): what the process holds
    # from its start moved out of the garbage collector's sight
    gc.collect()
    gc.freeze()
    with app.app_context():
        group = db.session.query(Stammtisch).first()
        assert group is not None
        token, view_token = group.token, group.view_token
        evening = max(1, args.evenings // 2)
        view = year_view(group)
        hands = sum(len(m.hands) for n in view.nights for m in n.value.matches)
        matches = sum(len(n.value.matches) for n in view.nights)
        print(f"{len(view.nights)} evenings, {matches} matches, {hands} hands")
        db.session.remove()
    print(f"reference: {reference() * 1000:.0f} ms (2,000,000 squares summed)")
    statements = counted(app)
    client = app.test_client()

    def hand() -> None:
        saved_a_hand(app)

    pages = [
        ("year page, first in a process", f"/st/{token}", args.rounds, forget),
        ("year page, after a saved hand", f"/st/{token}", args.rounds, hand),
        ("year page", f"/st/{token}", args.rounds, None),
        ("year, read-only twin", f"/sv/{view_token}", args.rounds, None),
        ("money page, after a saved hand", f"/st/{token}/money", args.rounds, hand),
        ("money page", f"/st/{token}/money", args.rounds, None),
        ("an evening's page", f"/st/{token}/evening/{evening}", args.rounds, None),
        ("ranking CSV", f"/st/{token}/year/1/year.csv", args.rounds, None),
        ("year Excel", f"/st/{token}/year/1/year.xlsx", max(3, args.rounds // 4), None),
    ]
    print(f"{'page':32} {'median':>9} {'p95':>9} {'SQL':>5}")
    for name, url, rounds, before_each in pages:
        client.get(url)  # warm: templates compiled, rulesets parsed
        median, p95, sent = timed(client, url, rounds, statements, before_each)
        print(f"{name:32} {median * 1000:7.0f} ms {p95 * 1000:7.0f} ms {sent:5}")
    pdf = f"/st/{token}/year/1/year.pdf"
    started = time.perf_counter()
    assert client.get(pdf).data.startswith(b"%PDF")
    first = time.perf_counter() - started
    median, p95, sent = timed(client, pdf, 5, statements)
    print(f"{'year PDF, first render':32} {first * 1000:7.0f} ms")
    print(f"{'year PDF, cached':32} {median * 1000:7.0f} ms {p95 * 1000:7.0f} ms {sent:5}")
    with app.app_context():
        started = time.perf_counter()
        raw = dumps(export_group(groups.get_group(token))).encode()
        exported = time.perf_counter() - started
        db.session.remove()
    print(f"backup: {len(raw) / 1e6:.1f} MB, exported in {exported:.1f} s")
    with open("/proc/loadavg") as load:
        print("load average:", " ".join(load.read().split()[:3]))
    print(f"reference: {reference() * 1000:.0f} ms (2,000,000 squares summed)")
    with tempfile.TemporaryDirectory() as folder:
        target = app_on(Path(folder) / "restore.sqlite")
        with target.app_context():
            db.create_all()
            lock = [0.0, 0.0]
            engine = db.engine
            event.listen(
                engine,
                "before_cursor_execute",
                lambda _c, _cu, statement, *_: (
                    lock.__setitem__(0, lock[0] or time.perf_counter())
                    if statement.lstrip().upper().startswith("INSERT")
                    else None
                ),
            )
            event.listen(engine, "commit", lambda _c: lock.__setitem__(1, time.perf_counter()))
            started = time.perf_counter()
            restore(raw)
            took = time.perf_counter() - started
            print(
                f"restore: {took:.1f} s in all, the write lock held "
                f"{(lock[1] - lock[0]) * 1000:.0f} ms (from the first INSERT to the commit)"
            )
            db.session.remove()


if __name__ == "__main__":
    main()
