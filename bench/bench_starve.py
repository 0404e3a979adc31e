"""Can strangers starve the server?  A table's live view and hand form while others import, print.

Issue 20 §4: the live view and the hand form should answer within 1 s whatever
anybody asks of the expensive routes.  For each gunicorn configuration —
``-w 2 --threads 4`` (gthread, README.md's recommendation) and ``-w 2`` (sync) —
this starts gunicorn on a fresh copy of one prepared SQLite database (migrated
with ``flask db upgrade``, as ``bench/load.py`` does) with the app's default
settings (``bench/starve_app.py``: only the work slots' and the PDF cache's
folders are moved into a temp dir), then runs these phases one after the other:

- *quiet*: the table alone;
- *one address*: the strangers share one client address (127.0.0.1), so the
  per-client limits (``LIMIT_IMPORT``, ``LIMIT_PDF``) bite at once;
- *own addresses*: every stranger thread connects from its own loopback
  address (127.0.0.10, .11, …; Linux routes all of 127/8 to ``lo``), as many
  different strangers would;
- *limiter off*: a second server of the same configuration with
  ``RATELIMIT_ENABLED = False`` (``starve_app:app(limits=False)``): the work
  slots alone, whatever the number of strangers.

The *table* is two phones on a 30-hand match: every 0.5 s the spectator's
share-page poll as its browser sends it (``?shown=``, htmx headers, the cookie,
the validators of its cache; as ``bench/load.py``'s ``watch``) and the
Schreiber's live preview of the hand form (htmx POST
``/m/<token>/hands/preview``); every 4th tick the match page, every 10th a hand
saved over htmx (then the page again, for the new form).  The *strangers*
(threads without pause): half post the largest backup the web takes (one
session of 1,000 hands, 0.91 MiB, generated as ``bench_import.py`` does) to
``/import`` as a browser's multipart upload with the CSRF token of their
``GET /import``; half ask for the session PDF of their own 1,000-hand session,
``?lang=`` alternating, and change the session's stake after every PDF they
got, so every render is cold (not in the PDF cache).

Per phase it prints the table's latencies (p50 / p95 / max, all requests and
per kind), the strangers' answers (ok / 429 / 503 / other) and the CPU seconds
of the gunicorn processes and of this client.  Nothing is written.  Run::

    .venv/bin/python bench/bench_starve.py              # about 3 minutes
    .venv/bin/python bench/bench_starve.py --seconds 10 --strangers 6
"""

from __future__ import annotations

import argparse
import http.client
import io
import os
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_pdf import compact, imported, session_backup
from load import CSRF_HEADER_RE, LIVE_RE, NAMES, form_of, hand, launch_gunicorn, percentile
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from scorer import create_app
from scorer.extensions import db
from scorer.services import backup_format as backup
from tests.builders import csrf_token_from, service_match

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
TICK = 0.5  # seconds between the table's requests
HX = {"HX-Request": "true"}
CONFIGS = {"gthread": ["-w", "2", "--threads", "4"], "sync": ["-w", "2"]}
VIEW_RE = re.compile(r"/v/([\w-]{20,})/qr\.svg")


class Client:
    """One device: its cookies and, over loopback, its own source address."""

    def __init__(self, port: int, source: str = HOST) -> None:
        self.port, self.source = port, source
        self.cookies: dict[str, str] = {}

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes, float]:
        conn = http.client.HTTPConnection(
            HOST, self.port, timeout=120, source_address=(self.source, 0)
        )
        sent = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        sent.update(headers or {})
        start = time.perf_counter()
        try:
            conn.request(method, path, body, sent)
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        ms = (time.perf_counter() - start) * 1000
        for cookie in response.msg.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        return response.status, dict(response.getheaders()), data, ms

    def form(
        self, path: str, data: dict[str, str], headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes, float]:
        kind = {"Content-Type": "application/x-www-form-urlencoded"}
        return self.request("POST", path, urlencode(data).encode(), {**kind, **(headers or {})})

    def page(self, path: str) -> str:
        status, _, data, _ = self.request("GET", path)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status}")
        return data.decode()


@dataclass
class Fixture:
    database: Path  # migrated, with the data below; copied for every server
    live: str  # the table's match, 30 hands
    pdf_sessions: list[str]  # one 1,000-hand session per PDF stranger
    backup: bytes  # the 1,000-hand backup the import strangers post


def migrate(database: Path, env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "flask", "--app", "scorer", "db", "upgrade"],
        cwd=ROOT,
        env={**env, "DATABASE_URL": f"sqlite:///{database}"},
        check=True,
        capture_output=True,
    )


def prepare(folder: Path, pdf_sessions: int, env: dict[str, str]) -> Fixture:
    """The database every server starts from, built in process with ``scorer.services``."""
    database = folder / "template.sqlite"
    migrate(database, env)
    app = create_app(
        {
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{database}",
            "WORK_SLOT_DIR": str(folder / "work-slots"),
            "PDF_CACHE_DIR": str(folder / "pdf-cache"),
        }
    )
    live = service_match(app, NAMES, 30, target=100_000, title="Stammtisch")
    matches = backup.MAX_SESSION_HANDS // backup.MAX_HANDS
    data = session_backup(app, backup.MAX_HANDS, matches)
    sessions = [imported(app, data) for _ in range(pdf_sessions)]
    with app.app_context():
        db.engine.dispose()
    with sqlite3.connect(database) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return Fixture(database, live, sessions, compact(data))


def start_server(
    fixture: Fixture, workdir: Path, options: list[str], limits: bool, env: dict[str, str]
) -> tuple[subprocess.Popen[bytes], int]:
    """gunicorn on a fresh copy of the fixture's database; its process and port."""
    workdir.mkdir()
    database = workdir / "scorer.sqlite"
    shutil.copyfile(fixture.database, database)
    env = {**env, "DATABASE_URL": f"sqlite:///{database}", "STARVE_DIR": str(workdir)}
    app = "starve_app:app()" if limits else "starve_app:app(limits=False)"
    return launch_gunicorn(
        [*options, "--pythonpath", str(ROOT / "bench")],
        app,
        cwd=ROOT,
        env=env,
        log=workdir / "gunicorn.log",
    )


def stop(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


def server_cpu(group: int) -> float:
    """CPU seconds (user + system, with waited-for children) of gunicorn's process group."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == group:
            total += sum(int(f) for f in fields[11:15])
    return total / ticks


@dataclass
class Record:
    """What the threads of one phase saw; appended under the lock."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    table: dict[str, list[float]] = field(default_factory=dict)
    table_errors: list[str] = field(default_factory=list)
    strangers: dict[str, Counter[str]] = field(
        default_factory=lambda: {"import": Counter(), "pdf": Counter()}
    )

    def took(self, kind: str, ms: float, status: int, expected: tuple[int, ...]) -> None:
        with self.lock:
            self.table.setdefault(kind, []).append(ms)
            if status not in expected:
                self.table_errors.append(f"{kind}: {status}")

    def answered(self, kind: str, status: int | str) -> None:
        bucket = status if status in (429, 503) else "ok" if status in (200, 302, 303) else "other"
        with self.lock:
            self.strangers[kind][str(bucket)] += 1


def table(port: int, token: str, record: Record, deadline: float) -> None:
    """Two phones at a table: the spectator's poll and the Schreiber's preview every 0.5 s."""
    phone, spectator = Client(port, "127.0.0.2"), Client(port, "127.0.0.3")
    match = f"/m/{token}"
    html = phone.page(match)
    view = VIEW_RE.search(html)
    share = f"/v/{view.group(1) if view else ''}"
    shared = spectator.page(share)
    live, csrf = LIVE_RE.search(shared), CSRF_HEADER_RE.search(shared)
    if not live or not csrf:
        raise RuntimeError("the share page has no polled #live element")
    url = unescape(live.group(1))
    htmx = {
        **HX,
        "HX-Trigger": "live",
        "HX-Target": "live",
        "HX-Current-URL": f"http://{HOST}:{port}{share}",
        "X-CSRFToken": csrf.group(1),
    }
    cache: dict[str, str] = {}
    form = form_of(html, "hand-form")
    tick, number = 0, 0
    next_at = time.monotonic()
    while time.monotonic() < deadline:
        try:
            status, headers, body, ms = spectator.request("GET", url, headers={**htmx, **cache})
            record.took("poll", ms, status, (200, 204, 304))
            if status in (200, 204) and "ETag" in headers:
                cache = {"If-None-Match": headers["ETag"]}
                if "Last-Modified" in headers:
                    cache["If-Modified-Since"] = headers["Last-Modified"]
            if status == 200 and (found := LIVE_RE.search(body.decode())):
                url = unescape(found.group(1))
            typed = {**form, **hand(number)}
            status, _, _, ms = phone.form(f"{match}/hands/preview", typed, HX)
            record.took("preview", ms, status, (200,))
            if tick % 10 == 9:
                status, _, _, ms = phone.form(f"{match}/hands", typed, HX)
                record.took("save", ms, status, (200,))
                number += 1
            if tick % 4 == 3 or tick % 10 == 9:
                status, _, data, ms = phone.request("GET", match)
                record.took("page", ms, status, (200,))
                if status == 200:
                    form = form_of(data.decode(), "hand-form")
        except (OSError, http.client.HTTPException) as exc:
            with record.lock:
                record.table_errors.append(f"{type(exc).__name__}: {exc}")
        tick += 1
        next_at = max(next_at + TICK, time.monotonic() - TICK)
        time.sleep(max(0.0, min(next_at, deadline) - time.monotonic()))


def importer(port: int, source: str, raw: bytes, record: Record, deadline: float) -> None:
    """Posts the 1,000-hand backup to /import, again and again."""
    client = Client(port, source)
    token = csrf_token_from(client.page("/import"))
    upload = FileStorage(io.BytesIO(raw), "scorer-backup.json", content_type="application/json")
    boundary, body = encode_multipart({"csrf_token": token, "file": upload})
    kind = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    while time.monotonic() < deadline:
        try:
            status: int | str = client.request("POST", "/import", body, kind)[0]
        except (OSError, http.client.HTTPException) as exc:
            status = type(exc).__name__
        record.answered("import", status)


def printer(port: int, source: str, session: str, record: Record, deadline: float) -> None:
    """Asks for its session's PDF, again and again; a new stake after each PDF it got."""
    client = Client(port, source)
    page = f"/s/{session}"
    stake = form_of(client.page(page), "stake-form")
    number = 0
    while time.monotonic() < deadline:
        lang = ("de", "en")[number % 2]
        try:
            status: int | str = client.request("GET", f"{page}/sheets.pdf?lang={lang}")[0]
        except (OSError, http.client.HTTPException) as exc:
            status = type(exc).__name__
        record.answered("pdf", status)
        if status == 200:  # the next render must not come from the PDF cache
            number += 1
            stake["stake"] = f"0,{number % 90 + 10}"
            client.form(f"{page}/stake", stake)


def phase(
    port: int, group: int, fixture: Fixture, seconds: float, strangers: int, own: bool | None
) -> tuple[Record, float, float, float]:
    """One phase: the table, and ``strangers`` threads (none when ``own`` is None)."""
    record = Record()
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=table, args=(port, fixture.live, record, deadline))]
    for n in range(strangers if own is not None else 0):
        source = f"127.0.0.{10 + n}" if own else HOST
        if n % 2 == 0:
            args = (port, source, fixture.backup, record, deadline)
            threads.append(threading.Thread(target=importer, args=args))
        else:
            args = (port, source, fixture.pdf_sessions[n // 2], record, deadline)
            threads.append(threading.Thread(target=printer, args=args))
    cpu, mine, start = server_cpu(group), time.process_time(), time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return record, time.monotonic() - start, server_cpu(group) - cpu, time.process_time() - mine


def report(label: str, record: Record, elapsed: float, cpu: float, mine: float) -> None:
    every = [ms for values in record.table.values() for ms in values]
    late = sum(ms > 1000 for ms in every)
    print(f"-- {label}: {elapsed:.1f} s")

    def line(name: str, values: list[float]) -> str:
        return (
            f"  {name:8} n={len(values):4}  p50 {percentile(values, 50):7.1f} ms"
            f"  p95 {percentile(values, 95):7.1f} ms  max {max(values, default=0):7.1f} ms"
        )

    print(line("table", every) + f"  over 1 s: {late}")
    for kind in ("poll", "preview", "page", "save"):
        print(line(kind, record.table.get(kind, [])))
    if record.table_errors:
        print(f"  table errors: {len(record.table_errors)}: {', '.join(record.table_errors[:5])}")
    for kind, counts in record.strangers.items():
        if counts:
            print(
                f"  strangers' {kind:6}: ok {counts['ok']:4}  429 {counts['429']:4}"
                f"  503 {counts['503']:4}  other {counts['other']:3}"
            )
    print(f"  CPU: gunicorn {cpu:.1f} s ({cpu / elapsed:.2f} cores), this client {mine:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="each phase with strangers")
    parser.add_argument("--quiet", type=float, default=5.0, help="the table alone")
    parser.add_argument("--strangers", type=int, default=8, help="threads; half import, half print")
    parser.add_argument("--configs", default="gthread,sync", help=f"of {', '.join(CONFIGS)}")
    args = parser.parse_args()

    env = {**os.environ, "PYTHONPATH": str(ROOT), "SECRET_KEY": secrets.token_hex(32)}
    folder = Path(tempfile.mkdtemp(prefix="scorer-starve-"))
    try:
        started = time.monotonic()
        fixture = prepare(folder, (args.strangers + 1) // 2, env)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(
            f"{os.cpu_count()} CPUs, load average {load}; "
            f"fixture {time.monotonic() - started:.0f} s: "
            f"a 30-hand match, {len(fixture.pdf_sessions)} sessions of 1,000 hands, "
            f"backup {len(fixture.backup) / 2**20:.2f} MiB; {args.strangers} strangers "
            f"(half import, half PDF)"
        )
        for name in args.configs.split(","):
            options = CONFIGS[name]
            for limits, phases in (
                (True, [("quiet", None), ("one address", False), ("own addresses", True)]),
                (False, [("limiter off", True)]),
            ):
                process, port = start_server(
                    fixture, folder / f"{name}-{limits}", options, limits, env
                )
                try:
                    for label, own in phases:
                        seconds = args.quiet if own is None else args.seconds
                        result = phase(port, process.pid, fixture, seconds, args.strangers, own)
                        report(f"{name} ({' '.join(options)}), {label}", *result)
                finally:
                    stop(process)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"total {time.monotonic() - started:.0f} s, load average {load}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
