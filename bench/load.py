"""Load test: many tables entering hands at once against gunicorn, bounded in time.

Run from the top of the checkout::

    .venv/bin/python bench/load.py                 # starts gunicorn on a fresh SQLite file
    .venv/bin/python bench/load.py --tables 50 --seconds 60 --workers 4
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000   # a server already running

Every table is a thread acting as the Schreiber's phone without JavaScript:
it starts a match through the setup form, then loops — load the match page,
read the hand form (CSRF token, version, idempotency key), post a hand, follow
nothing — until the time is up.  ``--spectators`` more threads per table watch
the share link as its browser does: load ``/v/<view_token>`` (which sets a session
cookie), then every 3 s ask the URL its ``#live`` element polls (``?shown=<etag>``)
with htmx's headers, the cookie and, once a copy of that URL is cached,
``If-None-Match`` and ``If-Modified-Since``; a 200 is swapped in and its new URL polled.
At the end every acknowledged hand (a 303/302 answer) is looked up: in the
SQLite file when the script started the server, else on the match pages.  Any
error or lost hand makes the exit status 1.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import secrets
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from anywhere: tests.builders is ours

from tests.builders import form_data  # noqa: E402

NAMES = ("Anna", "Berta", "Carl")


def form_of(html: str, form_id: str) -> dict[str, str]:
    """The fields a browser would send for one form of a page (the tests' reader)."""
    return form_data(html, form_id)


@dataclass
class Stats:
    """What every thread measured; appended under a lock."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    post_ms: list[float] = field(default_factory=list)
    get_ms: list[float] = field(default_factory=list)
    poll_ms: list[float] = field(default_factory=list)
    polls_304: int = 0
    polls_204: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, kind: str, ms: float) -> None:
        with self.lock:
            getattr(self, f"{kind}_ms").append(ms)

    def error(self, message: str) -> None:
        with self.lock:
            self.errors.append(message)


class Phone:
    """An HTTP client with cookies that follows no redirects."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.cookies: dict[str, str] = {}

    def request(
        self,
        method: str,
        path: str,
        form: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], str, float]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        sent = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        sent.update(headers or {})
        body = None
        if form is not None:
            body = urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        start = time.perf_counter()
        try:
            conn.request(method, path, body, sent)
            response = conn.getresponse()
            data = response.read().decode()
        finally:
            conn.close()
        ms = (time.perf_counter() - start) * 1000
        for cookie in response.msg.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        return response.status, dict(response.getheaders()), data, ms


@dataclass
class Table:
    token: str
    view_token: str
    acked: list[str] = field(default_factory=list)


def start_table(phone: Phone) -> Table:
    """A match started through the setup form, as the Schreiber does."""
    _, _, html, _ = phone.request("GET", "/new")
    data = form_of(html, "setup-form")
    for i, name in enumerate(NAMES):
        data[f"players-{i}"] = name
    data["action"] = "start"
    status, headers, _, _ = phone.request("POST", "/new", data)
    if status not in (302, 303):
        raise RuntimeError(f"starting a match answered {status}")
    token = headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    _, _, page, _ = phone.request("GET", f"/m/{token}")
    view = re.search(r"/v/([\w-]{20,})/qr\.svg", page)
    return Table(token, view.group(1) if view else "")


def hand(number: int) -> dict[str, str]:
    """Hand ``number``: the declarer goes round and fails, so the match never ends."""
    return {
        "declarer": str(number % 3),
        "bid": "300",
        "trump": "EGHS"[number % 4],
        "outcome": "played",
        "parties-0-melds": "20",
        "parties-1-melds": "",
        "parties-2-melds": "",
        "parties-0-tricks": "100",
        "parties-1-tricks": "80",
        "parties-2-tricks": "",
    }


def play(phone: Phone, table: Table, stats: Stats, deadline: float) -> None:
    number = 0
    while time.monotonic() < deadline:
        try:
            status, _, html, ms = phone.request("GET", f"/m/{table.token}")
            stats.add("get", ms)
            if status != 200:
                stats.error(f"GET match page: {status}")
                return
            data = form_of(html, "hand-form")
            data.update(hand(number))
            status, _, body, ms = phone.request("POST", f"/m/{table.token}/hands", data)
            stats.add("post", ms)
        except (OSError, http.client.HTTPException) as exc:
            stats.error(f"{type(exc).__name__}: {exc}")
            return
        if status not in (302, 303):
            stats.error(f"POST hand: {status} {body[:200]!r}")
            return
        table.acked.append(data["idempotency_key"])
        number += 1


# the polled element of the share page and the CSRF token htmx sends from hx-headers
LIVE_RE = re.compile(r'<div id="live"[^>]*\shx-get="([^"]+)"')
CSRF_HEADER_RE = re.compile(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'')


def watch(phone: Phone, table: Table, stats: Stats, deadline: float) -> None:
    """A spectator's phone on the share link: the page once, then its poll every 3 s.

    As the browser sends it: the URL the ``#live`` element names (``?shown=``),
    htmx's headers, the session cookie and, from the browser's cache of that URL,
    both validators; after a 200 the new fragment's URL is polled.
    """
    page = f"/v/{table.view_token}"
    try:
        status, _, html, _ = phone.request("GET", page)
    except (OSError, http.client.HTTPException) as exc:
        stats.error(f"share page {type(exc).__name__}: {exc}")
        return
    found, csrf = LIVE_RE.search(html), CSRF_HEADER_RE.search(html)
    if status != 200 or not found:
        stats.error(f"share page: {status}")
        return
    url = unescape(found.group(1))
    htmx = {
        "HX-Request": "true",
        "HX-Trigger": "live",
        "HX-Target": "live",
        "HX-Current-URL": f"http://{phone.host}:{phone.port}{page}",
        **({"X-CSRFToken": csrf.group(1)} if csrf else {}),
    }
    cache: dict[str, dict[str, str]] = {}  # the browser's validators per URL
    while time.monotonic() < deadline:
        try:
            status, headers, body, ms = phone.request(
                "GET", url, headers={**htmx, **cache.get(url, {})}
            )
        except (OSError, http.client.HTTPException) as exc:
            stats.error(f"poll {type(exc).__name__}: {exc}")
            return
        stats.add("poll", ms)
        if status in (200, 204) and "ETag" in headers:
            cache[url] = {"If-None-Match": headers["ETag"]}
            if "Last-Modified" in headers:
                cache[url]["If-Modified-Since"] = headers["Last-Modified"]
        if status == 304:
            with stats.lock:
                stats.polls_304 += 1
        elif status == 204:
            with stats.lock:
                stats.polls_204 += 1
        elif status == 200:
            found = LIVE_RE.search(body)  # htmx swaps the element: its new URL is polled
            if found:
                url = unescape(found.group(1))
        else:
            stats.error(f"poll: {status}")
            return
        time.sleep(max(0.0, min(3.0, deadline - time.monotonic())))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_gunicorn(database: Path, workers: int, log: Path) -> tuple[subprocess.Popen[bytes], int]:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{database}",
        "SECRET_KEY": secrets.token_hex(32),
    }
    subprocess.run(
        [sys.executable, "-m", "flask", "--app", "scorer", "db", "upgrade"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    return launch_gunicorn(["-w", str(workers)], "scorer:create_app()", cwd=ROOT, env=env, log=log)


def launch_gunicorn(
    options: list[str], app: str, *, cwd: Path, env: dict[str, str], log: Path
) -> tuple[subprocess.Popen[bytes], int]:
    """gunicorn serving ``app`` on a free port of 127.0.0.1, answering ``GET /``."""
    port = free_port()
    gunicorn = Path(sys.executable).parent / "gunicorn"
    with log.open("ab") as out:
        process = subprocess.Popen(
            [str(gunicorn), *options, "-b", f"127.0.0.1:{port}", app],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=out,
            start_new_session=True,
        )
    for _ in range(300):
        try:
            if Phone("127.0.0.1", port).request("GET", "/")[0] == 200:
                return process, port
        except OSError:
            time.sleep(0.1)
    process.terminate()
    raise RuntimeError("gunicorn did not start; see " + str(log))


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def saved_keys(database: Path | None, phone: Phone, table: Table) -> tuple[set[str], int]:
    """The idempotency keys of the table's saved hands (SQLite), or just their number (pages)."""
    if database is not None:
        with sqlite3.connect(database) as db:
            rows = db.execute(
                "SELECT h.idempotency_key FROM hand h JOIN match m ON m.id = h.match_id "
                "WHERE m.token = ? AND h.deleted_at IS NULL",
                (table.token,),
            ).fetchall()
        return {r[0] for r in rows}, len(rows)
    _, _, html, _ = phone.request("GET", f"/m/{table.token}")
    return set(), html.count('<tr id="hand-')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (default: start gunicorn here)")
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers (sync)")
    parser.add_argument("--spectators", type=int, default=1, help="read-only pollers per table")
    args = parser.parse_args()

    process = None
    database: Path | None = None
    workdir = Path(tempfile.mkdtemp(prefix="scorer-load-"))
    if args.url:
        parts = urlsplit(args.url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
    else:
        database = workdir / "scorer.sqlite"
        process, port = start_gunicorn(database, args.workers, workdir / "gunicorn.log")
        host = "127.0.0.1"
        print(f"gunicorn -w {args.workers} (sync) on 127.0.0.1:{port}, SQLite {database}")
    try:
        phones = [Phone(host, port) for _ in range(args.tables)]
        tables = [start_table(phone) for phone in phones]
        stats = Stats()
        deadline = time.monotonic() + args.seconds
        threads = [
            threading.Thread(target=play, args=(phone, table, stats, deadline))
            for phone, table in zip(phones, tables, strict=True)
        ]
        threads += [
            threading.Thread(target=watch, args=(Phone(host, port), table, stats, deadline))
            for table in tables
            for _ in range(args.spectators)
        ]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started

        acked = sum(len(t.acked) for t in tables)
        lost = extra = 0
        for phone, table in zip(phones, tables, strict=True):
            keys, count = saved_keys(database, phone, table)
            if database is not None:
                lost += len(set(table.acked) - keys)
            else:
                lost += max(0, len(table.acked) - count)
            extra += max(0, count - len(table.acked))

        print(f"{args.tables} tables, {args.spectators} spectator(s) each, {elapsed:.1f} s")
        print(f"hands acknowledged: {acked} ({acked / elapsed:.1f} hands/s)")
        requests = len(stats.post_ms) + len(stats.get_ms) + len(stats.poll_ms)
        print(f"requests: {requests} ({requests / elapsed:.1f}/s)")
        for kind in ("post", "get", "poll"):
            values = getattr(stats, f"{kind}_ms")
            if values:
                print(
                    f"  {kind:5} n={len(values):6}  median {statistics.median(values):7.1f} ms"
                    f"  p95 {percentile(values, 95):7.1f} ms  max {max(values):7.1f} ms"
                )
        print(
            f"  polls answered 304: {stats.polls_304}, 204: {stats.polls_204}, "
            f"of {len(stats.poll_ms)}"
        )
        print(f"errors: {len(stats.errors)}  lost hands: {lost}  hands beyond the acked: {extra}")
        for message in stats.errors[:10]:
            print("  ", message)
        if database is not None:
            with sqlite3.connect(database) as db:
                print("integrity_check:", db.execute("PRAGMA integrity_check").fetchone()[0])
        return 1 if stats.errors or lost else 0
    finally:
        if process is not None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
