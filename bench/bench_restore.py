"""A restore under load (issue 27 §4): the hall's saves and the beamer while a backup comes back.

On SQLite a writer holds the one write lock of the whole database from its
first write to its commit.  This measures what a table's phone and the beamer
get while the organiser restores a tournament's backup (or imports the largest
match backup) on the hall's laptop.

For each file (``--tables``, default a tournament of 50 and one of 200 tables,
3 rounds of 12 deals played and closed, made through ``scorer.services`` by
``bench/tournament_db.py`` and exported; the 200-table file is 8.4 MB, within
the restore page's 16 MB) it takes a fresh SQLite file, migrated with ``flask
db upgrade``, holding a tournament in play — 150 players, round 1 drawn: 50
tables of three — and serves it as ``python -m scorer.hall`` does: gunicorn
``-w 2 --threads 4`` (gthread), ``--timeout 60``, the app's defaults (SQLite in
WAL mode, ``synchronous=FULL``, one work slot).  Then, with the devices of
``bench/tournament_load.py`` (open loop: every request starts at its time):

- the 50 table phones save a hand each every 25 s, at moments of their own: one
  save every 0.5 s in all, each as the hand form sends it (``GET /m/<token>``,
  the form read — CSRF token, version, a fresh idempotency key — a hand filled
  in, ``POST /m/<token>/hands`` with htmx's headers);
- 3 beamers poll the public ranking every second (the page's own interval is
  3 s) as the browser asks: the polled element's URL, htmx's headers, the
  cookie, both validators once cached;
- after ``--before`` seconds (5) the organiser posts the file to ``/t/restore``
  as a browser's multipart upload (CSRF token and cookie from ``GET
  /t/restore``); ``--after`` seconds (5) after its answer the load stops.

Then the same with the largest match backup the web import takes (2,000 hands
in two sessions, as ``bench/bench_import.py`` makes it) posted to ``/import``
(``--no-matches``: not).  Every file ``--runs`` times (3), each on a fresh
database and server.

Printed per file: the answers and times of the uploads, and for the requests
that started while one ran (and, to compare, those before it) p50, p95 and max
of the saves, the match pages and the polls; errors; every acknowledged hand
looked up in the database by its idempotency key.  Last, the same restore (or
import) alone, in process, on a fresh file: each of its write transactions
from its first write (where SQLite takes the lock) to the end of its commit.
Nothing here is part of the test suite, and no test asserts a timing.

``--checkout PATH`` serves another checkout of the app with the same files and
the same load, e.g. the commit before a change::

    mkdir /tmp/scorer-before && git archive <commit> | tar -x -C /tmp/scorer-before
    .venv/bin/python bench/bench_restore.py --files /tmp/restore-files
    .venv/bin/python bench/bench_restore.py --files /tmp/restore-files --checkout /tmp/scorer-before

``--files DIR`` keeps the backup files there (made once: about 1.5 minutes for
both; the tournament in play is made anew for each run).
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import random
import secrets
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tournament_db as tdb
import tournament_load as hall
from load import launch_gunicorn, percentile
from run import Server, load_average
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from tests.builders import csrf_token_from

ROOT, BENCH = hall.ROOT, hall.BENCH
HALL_TABLES = 50
SAVE_EVERY = 25.0  # seconds between two hands of one table: 50 tables, one save every 0.5 s
BEAMERS = 3
POLL_EVERY = 1.0
KINDS = ("hand saved", "match page", "beamer poll")
OPTIONS = ["-w", "2", "--threads", "4", "-k", "gthread", "--timeout", "60"]
"""``python -m scorer.hall``'s gunicorn settings (scorer/hall.py)."""
MAKE_NIGHT = (
    "import json, sys; sys.path.insert(0, 'bench'); from tournament_db import build_night; "
    "n = build_night(sys.argv[1], int(sys.argv[2])); "
    "print(json.dumps({'view': n.view_token, 'tables': n.table_tokens}))"
)
"""The tournament in play, made by the served checkout's own code (its own schema)."""
LOCK_HOLDS = """
import json, sys, time
from sqlalchemy import event
from sqlalchemy.orm import Session
from scorer import create_app
from scorer.extensions import db
from scorer import services
from scorer.services.tournaments import backup
app = create_app({"SQLALCHEMY_DATABASE_URI": sys.argv[1]})
load = backup.restore if sys.argv[3] == "/t/restore" else services.import_backup
holds, first = [], {}
with app.app_context():
    @event.listens_for(db.engine, "before_cursor_execute")
    def wrote(connection, cursor, statement, *args):
        if "at" not in first and statement.lstrip()[:6].upper() in ("INSERT", "UPDATE", "DELETE"):
            first["at"] = time.perf_counter()
    @event.listens_for(Session, "after_commit")
    def committed(session):
        if "at" in first:
            holds.append(time.perf_counter() - first.pop("at"))
    raw = open(sys.argv[2], "rb").read()
    with app.test_request_context("/"):
        started = time.perf_counter()
        load(raw)
        total = time.perf_counter() - started
print(json.dumps({"total": total, "holds": holds}))
"""
"""The restore (or import) in process, alone, on a fresh file: each write transaction from
its first write (SQLite takes the write lock there) to the end of its commit (it frees it)."""


@dataclass
class Timeline(hall.Record):
    """The record of every request, with when it started (monotonic) and its kind."""

    started: list[tuple[float, float, str]] = field(default_factory=list)

    def took(self, kind: str, ms: float, status: int) -> None:
        super().took(kind, ms, status)
        with self.lock:
            self.started.append((time.monotonic() - ms / 1000, ms, kind))

    def between(self, start: float, end: float) -> dict[str, list[float]]:
        """The milliseconds of the requests that started from ``start`` to ``end``, by kind."""
        out: dict[str, list[float]] = {}
        with self.lock:
            for at, ms, kind in self.started:
                if start <= at <= end:
                    out.setdefault(kind, []).append(ms)
        return out


# -- the files -----------------------------------------------------------------------


def backup_file(folder: Path, tables: int) -> Path:
    """The backup of a tournament of ``tables`` tables, 3 rounds of 12 deals played and
    closed (made once in ``folder``, with this checkout's code)."""
    path = folder / f"tournament-{tables}.json"
    if path.exists():
        return path
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/source.sqlite"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SECRET_KEY": secrets.token_hex(32)}
        tdb.migrate(url, env)
        view_token = tdb.played_night(url, tables)
        from scorer import create_app
        from scorer.extensions import db
        from scorer.services.backup_format import dumps
        from scorer.services.tournaments import backup, setup

        app = create_app({"SQLALCHEMY_DATABASE_URI": url})
        with app.app_context():
            text = dumps(backup.export_tournament(setup.get_tournament_for_view(view_token)))
            db.session.remove()
            db.engine.dispose()
    path.write_text(text)
    print(
        f"made {path.name}: {len(text) / 1e6:.1f} MB in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return path


def match_backup(folder: Path) -> Path:
    """The largest match backup the web import takes: two sessions of two matches of 500
    hands (``MAX_FILE_HANDS``, 1.8 MB; as ``bench/bench_import.py`` makes it)."""
    path = folder / "matches-2000.json"
    if path.exists():
        return path
    from bench_pdf import compact, session_backup

    from scorer.extensions import db
    from scorer.services import backup_format
    from tests.builders import make_app

    with tempfile.TemporaryDirectory() as tmp:
        maker = make_app(Path(tmp))
        data = session_backup(maker, backup_format.MAX_HANDS, 2)
        with maker.app_context():
            db.engine.dispose()
    sessions = backup_format.MAX_FILE_HANDS // (2 * backup_format.MAX_HANDS)
    data["sessions"] = data["sessions"] * sessions
    path.write_bytes(compact(data))
    return path


# -- the hall --------------------------------------------------------------------------


def prepared(checkout: Path, folder: Path) -> tuple[Path, dict[str, str], dict[str, Any]]:
    """A fresh SQLite file migrated by ``checkout`` with a tournament in play in it: its
    path, the server's environment and the tournament's links."""
    database = folder / "hall.sqlite"
    url = f"sqlite:///{database}"
    env = {
        **os.environ,
        "PYTHONPATH": str(checkout),
        "SECRET_KEY": secrets.token_hex(32),
        "DATABASE_URL": url,
    }
    subprocess.run(
        [sys.executable, "-m", "flask", "--app", "scorer", "db", "upgrade"],
        cwd=checkout,
        env=env,
        check=True,
        capture_output=True,
    )
    done = subprocess.run(
        [sys.executable, "-c", MAKE_NIGHT, url, str(HALL_TABLES)],
        cwd=checkout,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    night = json.loads(done.stdout.strip().splitlines()[-1])
    return database, env, night


def upload(port: int, page: str, raw: bytes) -> tuple[int, str, float]:
    """The organiser uploads ``raw`` on ``page`` (``/t/restore``, ``/import``): status,
    Location, seconds."""
    browser = hall.Browser([Server(None, port)])  # type: ignore[arg-type]  # no process needed
    status, _, html, _, _ = browser.request("GET", page)
    if status != 200:
        raise RuntimeError(f"GET {page}: {status}")
    file = FileStorage(io.BytesIO(raw), "backup.json", content_type="application/json")
    boundary, body = encode_multipart({"csrf_token": csrf_token_from(html), "file": file})
    cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    started = time.perf_counter()
    try:
        connection.request(
            "POST",
            page,
            body=body,
            headers={
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "Cookie": cookie,
            },
        )
        response = connection.getresponse()
        response.read()
    finally:
        connection.close()
    return response.status, response.headers.get("Location", ""), time.perf_counter() - started


def lost_hands(database: Path, phones: list[hall.TablePhone]) -> tuple[int, int]:
    """(acknowledged, acknowledged but not in the database)."""
    with sqlite3.connect(database) as connection:
        saved = {
            row[0]
            for row in connection.execute(
                "SELECT idempotency_key FROM hand WHERE deleted_at IS NULL"
            )
        }
    acked = [key for phone in phones for key in phone.acked]
    return len(acked), sum(1 for key in acked if key not in saved)


class Until(hall.Device):
    """A device that stops asking once ``stop`` is set."""

    def __init__(self, device: hall.Device, stop: threading.Event) -> None:
        self.device, self.stop = device, stop

    def step(self, record: hall.Record) -> float | None:
        return None if self.stop.is_set() else self.device.step(record)


@dataclass
class Outcome:
    """What the runs of one file measured."""

    restores: list[tuple[int, float]] = field(default_factory=list)  # status, seconds
    during: dict[str, list[float]] = field(default_factory=dict)
    before: dict[str, list[float]] = field(default_factory=dict)
    acked: int = 0
    lost: int = 0
    errors: list[str] = field(default_factory=list)
    late_ms: list[float] = field(default_factory=list)

    def add(self, into: dict[str, list[float]], found: dict[str, list[float]]) -> None:
        for kind, values in found.items():
            into.setdefault(kind, []).extend(values)


def lock_holds(checkout: Path, path: Path, page: str) -> str:
    """How long the restore (or import) of ``path`` holds SQLite's write lock, in process and
    alone."""
    with tempfile.TemporaryDirectory(prefix="scorer-lock-") as tmp:
        url = f"sqlite:///{tmp}/lock.sqlite"
        env = {**os.environ, "PYTHONPATH": str(checkout), "DATABASE_URL": url}
        subprocess.run(
            [sys.executable, "-m", "flask", "--app", "scorer", "db", "upgrade"],
            cwd=checkout,
            env=env,
            check=True,
            capture_output=True,
        )
        done = subprocess.run(
            [sys.executable, "-c", LOCK_HOLDS, url, str(path), page],
            cwd=checkout,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    holds = [1000 * h for h in found["holds"]]
    return (
        f"  SQLite's write lock, {page} alone in process ({found['total']:.1f} s): "
        f"{len(holds)} write transactions, longest {max(holds):.0f} ms, p50 "
        f"{percentile(holds, 50):.0f} ms, {sum(holds) / 1000:.2f} s in all"
    )


def measure(checkout: Path, path: Path, page: str, label: str, args: argparse.Namespace) -> None:
    """``--runs`` uploads of ``path`` to ``page`` under the hall's load, each on a fresh
    database and server; printed together."""
    raw = path.read_bytes()
    outcome = Outcome()
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="scorer-restore-") as tmp:
            folder = Path(tmp)
            database, env, night = prepared(checkout, folder)
            process, port = launch_gunicorn(
                [*OPTIONS, "--log-level", "warning"],
                "scorer:create_app()",
                cwd=checkout,
                env=env,
                log=folder / "gunicorn.log",
            )
            try:
                run(port, night, database, page, raw, args, outcome)
            finally:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
    times = ", ".join(f"{status} in {seconds:.1f} s" for status, seconds in outcome.restores)
    print(f"== {label}, {len(raw) / 1e6:.1f} MB to {page}: {times}; load average {load_average()}")
    for name, found in (
        ("while it ran", outcome.during),
        (f"in the {args.before:.0f} s before", outcome.before),
    ):
        print(f"  {name}:")
        for kind in KINDS:
            print(hall.stats_line(kind, found.get(kind, [])))
    print(
        f"  hands acknowledged {outcome.acked}, not in the database {outcome.lost}; "
        f"errors {len(outcome.errors)}; requests started late: max "
        f"{max(outcome.late_ms, default=0):.0f} ms",
        flush=True,
    )
    for message in outcome.errors[:8]:
        print("   ", message)
    print(lock_holds(checkout, path, page), flush=True)


def run(
    port: int,
    night: dict[str, Any],
    database: Path,
    page: str,
    raw: bytes,
    args: argparse.Namespace,
    outcome: Outcome,
) -> None:
    """The hall's load on the server at ``port`` with an upload in the middle of it."""
    server = Server(None, port)  # type: ignore[arg-type]  # no process needed
    view: str = night["view"]
    tokens: list[str] = night["tables"]
    # warm: both workers have compiled the pages the devices ask for
    for _ in range(4):
        warm = hall.Browser([server])
        for path in (f"/m/{tokens[0]}", f"/p/{view}", page):
            warm.request("GET", path)
    rng = random.Random(27)
    room = hall.Hall(threads=64)
    record = Timeline()
    stop = threading.Event()
    start = time.monotonic() + 0.5
    phones = [hall.TablePhone(hall.Browser([server]), token, 0.0, SAVE_EVERY) for token in tokens]
    for phone in phones:
        phone.next = hall.spread(rng, start, SAVE_EVERY)
        room.add(Until(phone, stop), phone.next)
    for _ in range(BEAMERS):
        at = hall.spread(rng, start, POLL_EVERY)
        beamer = hall.Watcher(hall.Browser([server]), "beamer", f"/p/{view}", at, POLL_EVERY)
        room.add(Until(beamer, stop), at)
    player = threading.Thread(target=room.run, args=(record, start + 3600))
    player.start()
    try:
        time.sleep(args.before)
        began = time.monotonic()
        status, _location, seconds = upload(port, page, raw)
        ended = time.monotonic()
        time.sleep(args.after)
    finally:
        stop.set()
        player.join()
    outcome.restores.append((status, seconds))
    outcome.add(outcome.during, record.between(began, ended))
    outcome.add(outcome.before, record.between(start, began))
    acked, lost = lost_hands(database, phones)
    outcome.acked += acked
    outcome.lost += lost
    outcome.errors += record.errors
    outcome.late_ms += record.late_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tables", default="50,200", help="sizes of the restored files")
    parser.add_argument(
        "--no-matches", dest="matches", action="store_false", help="no match backup import"
    )
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the app to serve")
    parser.add_argument("--files", type=Path, help="keep the backup files here")
    parser.add_argument("--before", type=float, default=5.0)
    parser.add_argument("--after", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=3, help="restores of each file")
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    commit = subprocess.run(
        ["git", "log", "-1", "--format=%h %s"], cwd=checkout, capture_output=True, text=True
    ).stdout.strip()
    print(f"serving {checkout} ({commit[:70]})")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.files or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for tables in (int(t) for t in args.tables.split(",") if t):
            path = backup_file(folder, tables)
            measure(checkout, path, "/t/restore", f"{tables} tables", args)
        if args.matches:
            measure(checkout, match_backup(folder), "/import", "2,000 hands of matches", args)


if __name__ == "__main__":
    main()
