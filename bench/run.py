"""Every benchmark of issue #7 in one run; writes bench/RESULTS.md.

Run from the top of the checkout::

    .venv/bin/python bench/run.py                  # about 3 minutes
    .venv/bin/python bench/run.py --seconds 5      # shorter load runs

What it does, all on 127.0.0.1 and bounded in time:

1. *Ceiling ratio.*  Serves a bare Flask "hello world" (``bench/hello.py``) and
   scorer (on a fresh SQLite file, schema from the migrations) with the same
   gunicorn settings, one after the other, and drives each with ``wrk``:
   the read-only view's poll of an unchanged match as the share page's browser
   sends it (``?shown=``, session cookie, htmx headers, ``If-None-Match`` and
   ``If-Modified-Since`` → 304),
   the match page of a 30-hand match, and a hand submission as htmx sends it
   (real CSRF token, a fresh idempotency key per request; ``bench/submit.lua``).
   Every figure is requests per second divided by the hello app's, which is
   measured before and after scorer (the mean of both is the ceiling).
2. *Growth.*  Server time of the match page and of its part above the fold
   (the head: totals, progress, who deals, the entry form) at 10, 100 and 500
   hands, in-process with the Flask test client.
3. *Weight.*  Bytes over the wire (status line, headers, compressed body) for
   the first load of the match page with everything it loads, and for the
   later interactions: a hand submission, a preview, a poll.
4. *PDF* (``bench/bench_pdf.py``), 5. *meld calculator*
   (``bench/bench_calculator.py``) and 6. *import* of the largest backup
   (``bench/bench_import.py``), run as they are and their figures read.

``wrk`` comes from Debian; when it is missing and we are root it is installed
with apt-get.
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))

NAMES = ["Anna", "Bernd", "Carl"]
# what Chrome on Android sends
ACCEPT = "gzip, deflate, br, zstd"
HX = {"HX-Request": "true"}
TICK = os.sysconf("SC_CLK_TCK")

# targets of issue #7
RATIO_TARGETS = {"poll": 0.5, "page": 0.15, "submit": 0.1}
GROWTH_TARGET = 3.0
FIRST_LOAD_TARGET = 40 * 1024
LATER_TARGET = 5 * 1024
PDF_TARGET = 1.5
CALCULATOR_TARGET_MS = 10.0


# -- tools ---------------------------------------------------------------------


def ensure_wrk() -> str:
    """The path of wrk; installed from Debian when missing and we may."""
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() != 0:
        sys.exit("wrk is missing: sudo apt-get install -y wrk")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "wrk"]
    if subprocess.run(install, env=env, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=True)
        subprocess.run(install, env=env, check=True, capture_output=True)
    return shutil.which("wrk") or sys.exit("wrk could not be installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def children_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by the worker processes of ``pid``."""
    total = 0
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    for kid in kids:
        try:
            fields = Path(f"/proc/{kid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


@dataclass
class Server:
    """A gunicorn master on 127.0.0.1."""

    process: subprocess.Popen[bytes]
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def gunicorn(app: str, workers: int, env: dict[str, str], chdir: Path = ROOT) -> Iterator[Server]:
    """Serve ``app`` with the settings every figure of one run shares."""
    port = free_port()
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "--workers", str(workers),
        "--worker-class", "sync",
        "--bind", f"127.0.0.1:{port}",
        "--backlog", "2048",
        "--log-level", "warning",
        "--chdir", str(chdir),
        app,
    ]  # fmt: skip
    process = subprocess.Popen(command, env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn {app} did not start") from None
                time.sleep(0.1)
        time.sleep(0.5)  # every worker booted
        yield Server(process, port)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Load:
    """One wrk run."""

    rps: float
    requests: int
    bad: int
    p50_ms: float
    p99_ms: float
    wrk_cores: float
    server_cores: float
    seconds: float


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(
    binary: str,
    server: Server,
    path: str,
    *,
    seconds: int,
    connections: int,
    headers: dict[str, str] | None = None,
    script: Path | None = None,
    script_args: tuple[str, ...] = (),
) -> Load:
    """Drive ``path`` for ``seconds``; wrk's own CPU use is measured to show it is not the limit."""
    command = [binary, "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "10s"]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    if script:
        command += ["-s", str(script)]
    command.append(server.base + path)
    if script_args:
        command += ["--", *script_args]
    before = children_cpu(server.process.pid)
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    out = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.monotonic() - start
    server_cpu = children_cpu(server.process.pid) - before
    if process.returncode != 0 or "Requests/sec" not in out:
        raise RuntimeError(f"wrk failed:\n{out}")
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    bad = 0
    for pattern in (r"Non-2xx or 3xx responses: (\d+)", r"Socket errors: .*?timeout (\d+)"):
        found = re.search(pattern, out)
        bad += int(found.group(1)) if found else 0
    found = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+)", out)
    if found:
        # a sync worker closes every connection after its response; wrk counts some
        # of those closes as read errors without a lost request, so only connect
        # and write errors count
        bad += int(found.group(1)) + int(found.group(3))
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)$", out, re.MULTILINE))
    return Load(
        rps=float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),  # type: ignore[union-attr]
        requests=requests,
        bad=bad,
        p50_ms=_ms(latency["50"]),
        p99_ms=_ms(latency["99"]),
        wrk_cores=(usage.ru_utime + usage.ru_stime) / elapsed,
        server_cores=server_cpu / elapsed,
        seconds=elapsed,
    )


# -- the benchmark database ------------------------------------------------------


@dataclass
class Fixture:
    """What the runs need: the database and the matches in it."""

    env: dict[str, str]
    page_token: str = ""
    view_token: str = ""
    submit_tokens: list[str] = field(default_factory=list)
    submit_hands: int = 0


def build_database(tmp: Path, submit_matches: int, submit_hands: int) -> Fixture:
    """A fresh SQLite file, schema from the migrations, with the matches of the runs."""
    from flask_migrate import upgrade

    from scorer import create_app, services
    from scorer.extensions import db
    from tests.builders import service_match

    url = f"sqlite:///{tmp / 'bench.sqlite'}"
    env = {"DATABASE_URL": url, "SECRET_KEY": secrets.token_hex(32)}
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": env["SECRET_KEY"]})
    fixture = Fixture(env=env, submit_hands=submit_hands)
    with app.app_context():
        upgrade()
    fixture.page_token = service_match(app, NAMES, 30, target=100_000, title="Stammtisch")
    with app.app_context():
        fixture.view_token = services.get_match(fixture.page_token).view_token
    fixture.submit_tokens = [
        # the highest target a ruleset takes (MAX_TARGET): no match ends during the runs
        service_match(app, NAMES, submit_hands, target=100_000)
        for _ in range(submit_matches)
    ]
    with app.app_context():
        db.engine.dispose()
    return fixture


# -- HTTP on the wire ------------------------------------------------------------


@dataclass
class Wire:
    """One response as it went over the wire."""

    status: int
    headers: http.client.HTTPMessage
    body: bytes  # as sent (compressed)
    size: int  # status line + headers + body

    @property
    def encoding(self) -> str:
        return self.headers.get("Content-Encoding", "identity")

    def text(self) -> str:
        return decode(self.body, self.encoding).decode()


def decode(body: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        import gzip

        return gzip.decompress(body)
    if encoding == "br":
        import brotli

        return bytes(brotli.decompress(body))
    if encoding == "zstd":
        from backports import zstd

        return bytes(zstd.decompress(body))
    if encoding == "deflate":
        import zlib

        return zlib.decompress(body)
    return body


def fetch(
    server: Server,
    path: str,
    *,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    body: str | None = None,
) -> Wire:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    sent = {"Accept-Encoding": ACCEPT, **(headers or {})}
    if body is not None:
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    connection.request(method, path, body=body, headers=sent)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    head = f"HTTP/1.1 {response.status} {response.reason}\r\n{response.headers}"
    return Wire(response.status, response.headers, data, len(head.encode()) + len(data))


def session_cookie(wire: Wire) -> str:
    for value in wire.headers.get_all("Set-Cookie") or []:
        if value.startswith("session="):
            return value.split(";", 1)[0]
    raise RuntimeError("no session cookie")


def hand_body(page_html: str, *, number: int = 0) -> dict[str, str]:
    """The hand form of a match page, filled with a valid hand (no idempotency key)."""
    from tests.builders import form_data

    data = form_data(page_html, "hand-form")
    data.update(
        {
            "declarer": str(number % 3),
            "bid": "200",
            "trump": "EGHS"[number % 4],
            "outcome": "played",
            "parties-0-melds": "100",
            "parties-1-melds": "20",
            "parties-2-melds": "20",
            "parties-0-tricks": "130",
            "parties-1-tricks": "60",
            "parties-2-tricks": "60",
        }
    )
    data.pop("idempotency_key", None)
    return data


# the polled element of the share page: htmx asks its hx-get URL (with ?shown=) every 3 s
LIVE_RE = re.compile(r'<div id="live"[^>]*\shx-get="([^"]+)"')
CSRF_HEADER_RE = re.compile(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'')


@dataclass
class BrowserPoll:
    """The read-only poll as a phone's browser sends it, taken from the share page itself.

    The share page (``/v/<view_token>``) gives the fragment's URL with ``?shown=<etag>``,
    its session cookie (the page renders a CSRF token) and the ``X-CSRFToken`` that htmx
    adds from ``hx-headers``; htmx sends ``HX-Request``, ``HX-Trigger``, ``HX-Target`` and
    ``HX-Current-URL``; the browser adds the cookie and, from its cache of that URL,
    ``If-None-Match`` and ``If-Modified-Since``.
    """

    page: str  # the share page's path
    url: str  # the fragment's URL as the page polls it
    cookie: str
    csrf: str
    origin: str

    def htmx(self) -> dict[str, str]:
        """What every poll carries, before the browser's cache has the URL."""
        return {
            "HX-Request": "true",
            "HX-Trigger": "live",
            "HX-Target": "live",
            "HX-Current-URL": self.origin + self.page,
            "X-CSRFToken": self.csrf,
            "Cookie": self.cookie,
            "Accept-Encoding": ACCEPT,
        }

    @staticmethod
    def conditional(cached: Wire) -> dict[str, str]:
        """The validators a browser sends from its cached copy of the URL."""
        return {
            "If-None-Match": cached.headers["ETag"],
            "If-Modified-Since": cached.headers["Last-Modified"],
        }


def browser_poll(server: Server, view_token: str) -> tuple[BrowserPoll, Wire, Wire]:
    """The share page's poll; its first answer (204: the page is current) and the
    conditional one the browser sends next with the validators of the first (304)."""
    page = f"/v/{view_token}"
    share = fetch(server, page)
    html = share.text()
    found, csrf = LIVE_RE.search(html), CSRF_HEADER_RE.search(html)
    if not found or not csrf:
        raise RuntimeError("the share page has no polled #live element or no X-CSRFToken")
    poll = BrowserPoll(
        page, unescape(found.group(1)), session_cookie(share), csrf.group(1), server.base
    )
    if "shown=" not in poll.url:
        raise RuntimeError(f"the share page polls {poll.url} without ?shown=")
    first = fetch(server, poll.url, headers=poll.htmx())
    if first.status != 204:
        raise RuntimeError(f"the first poll of a current page answered {first.status}, not 204")
    again = fetch(server, poll.url, headers={**poll.htmx(), **poll.conditional(first)})
    if again.status != 304:
        raise RuntimeError(f"the conditional poll answered {again.status}, not 304")
    return poll, first, again


# -- 1. ceiling ratio --------------------------------------------------------------


@dataclass
class Ratios:
    hello: list[Load]
    runs: dict[str, Load]
    workers: int
    connections: int
    seconds: int

    @property
    def ceiling(self) -> float:
        return statistics.mean(h.rps for h in self.hello)

    def ratio(self, name: str) -> float:
        return self.runs[name].rps / self.ceiling


def say(name: str, load: Load) -> None:
    """One load run on the console, as it finishes."""
    print(f"  {name}: {load.rps:.0f} req/s, {load.server_cores:.2f} cores", flush=True)


def ceiling_ratios(binary: str, fixture: Fixture, tmp: Path, args: argparse.Namespace) -> Ratios:
    settings = {"workers": args.workers}
    load = {"seconds": args.seconds, "connections": args.connections}
    hello: list[Load] = []

    def measure_hello() -> None:
        with gunicorn("hello:app", chdir=BENCH, env={}, **settings) as server:
            wrk(binary, server, "/", seconds=2, connections=args.connections)  # warm up
            hello.append(wrk(binary, server, "/", headers={"Accept-Encoding": ACCEPT}, **load))
        say("hello", hello[-1])

    runs: dict[str, Load] = {}
    measure_hello()
    with gunicorn("scorer:create_app()", env=fixture.env, **settings) as server:
        only = args.only or {"poll", "page", "submit"}
        # the poll: the read-only fragment, unchanged since the phone's last look, as
        # the share page's browser sends it (?shown=, cookie, htmx headers, both validators)
        poll, first, _ = browser_poll(server, fixture.view_token)
        url = poll.url
        poll_headers = {**poll.htmx(), **poll.conditional(first)}
        if "poll" in only:
            wrk(binary, server, url, headers=poll_headers, seconds=2, connections=args.connections)
            runs["poll"] = wrk(binary, server, url, headers=poll_headers, **load)
            say("poll", runs["poll"])

        page = f"/m/{fixture.page_token}"
        page_headers = {"Accept-Encoding": ACCEPT}
        if "page" in only:
            wrk(binary, server, page, headers=page_headers, seconds=2, connections=args.connections)
            runs["page"] = wrk(binary, server, page, headers=page_headers, **load)
            say("page", runs["page"])

        # a phone: one GET gives the session cookie and its CSRF token, valid for every match
        wire = fetch(server, f"/m/{fixture.submit_tokens[0]}")
        data = tmp / "submit.txt"
        data.write_text(
            "\n".join(
                [
                    session_cookie(wire),
                    urlencode({**hand_body(wire.text()), "version": ""}),
                    *fixture.submit_tokens,
                ]
            )
            + "\n"
        )
        submit = {"script": BENCH / "submit.lua", "script_args": (str(data),)}
        if "submit" in only:
            wrk(binary, server, "/", seconds=2, connections=args.connections, **submit)
            runs["submit"] = wrk(binary, server, "/", **submit, **load)
            say("submit", runs["submit"])
    measure_hello()
    return Ratios(hello, runs, args.workers, args.connections, args.seconds)


# -- 3. weight -------------------------------------------------------------------------

STATIC_RE = re.compile(r'(?:href|src)="(/static/[^"]+)"')
# what an installable page makes the browser fetch besides: the web-app manifest and the
# service worker (static/app.js registers it from its data-sw attribute)
TOUCH_ICON_RE = re.compile(r'<link rel="apple-touch-icon" href="([^"]+)"')
APP_RE = re.compile(r'<link rel="manifest" href="([^"]+)"|data-sw="([^"]+)"')


@dataclass
class Weight:
    first: list[tuple[str, Wire]]
    later: list[tuple[str, Wire]]
    fonts: list[str]
    cache_control: dict[str, str]

    @property
    def first_total(self) -> int:
        return sum(w.size for _, w in self.first)


def weight(fixture: Fixture) -> Weight:
    with gunicorn("scorer:create_app()", env=fixture.env, workers=1) as server:
        page_path = f"/m/{fixture.page_token}"
        page = fetch(server, page_path)
        html = page.text()
        first = [(page_path, page)]
        cache_control: dict[str, str] = {}
        fonts: list[str] = []
        # a browser fetches a file once, whatever fragment (``suits.svg#suit-E``) names a part
        # of it; the apple-touch-icon only when the page is added to an iPhone's home screen
        touch = set(TOUCH_ICON_RE.findall(html))
        files = [u.split("#")[0] for u in STATIC_RE.findall(html.replace("&amp;", "&"))]
        for url in dict.fromkeys(u for u in files if u not in touch):
            wire = fetch(server, url)
            first.append((url, wire))
            cache_control[url] = wire.headers.get("Cache-Control", "")
            if url.split("?")[0].endswith(".css"):
                css = wire.text()
                fonts += re.findall(r"@font-face|url\([^)]*\.(?:woff2?|ttf|otf|eot)", css)
        fonts += re.findall(r'<link[^>]+as="font"', html)
        for manifest, worker in APP_RE.findall(html):
            url = manifest or worker
            first.append((url, fetch(server, url)))

        cookie = session_cookie(page)
        later: list[tuple[str, Wire]] = []
        body = hand_body(html, number=1)
        preview = fetch(
            server,
            f"{page_path}/hands/preview",
            method="POST",
            headers={**HX, "Cookie": cookie},
            body=urlencode(body),
        )
        later.append(("preview (htmx POST, the live result under the form)", preview))
        poll, polled, unchanged = browser_poll(server, fixture.view_token)
        later.append(("poll, first ask of the shown version (`?shown=` current → 204)", polled))
        later.append(("poll, unchanged (conditional GET → 304)", unchanged))
        body["idempotency_key"] = secrets.token_urlsafe(16)
        saved = fetch(
            server,
            f"{page_path}/hands",
            method="POST",
            headers={**HX, "Cookie": cookie},
            body=urlencode(body),
        )
        if saved.status != 200:
            raise RuntimeError(f"hand submission answered {saved.status}")
        later.append(("hand submission (htmx POST → the fresh match content)", saved))
        # the same request as before the hand (the page still shows the old version)
        changed = fetch(server, poll.url, headers={**poll.htmx(), **poll.conditional(polled)})
        if changed.status != 200:
            raise RuntimeError(f"the poll after a hand answered {changed.status}")
        later.append(("poll after a hand (200, the read-only fragment)", changed))
    return Weight(first, later, fonts, cache_control)


# -- 2. growth ---------------------------------------------------------------------------


@dataclass
class Growth:
    hands: list[int]
    page_ms: dict[int, float]
    head_ms: dict[int, float]
    page_queries: dict[int, int]
    head_queries: dict[int, int]


def _median_ms(call: Callable[[], Any], runs: int) -> float:
    call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def growth(tmp: Path, sizes: tuple[int, ...], runs: int) -> Growth:
    from flask import render_template
    from sqlalchemy import event

    from scorer import cache, services
    from scorer.extensions import db
    from scorer.views.hands import entry_context
    from tests.builders import make_app, service_match

    (tmp / "growth").mkdir()
    app = make_app(tmp / "growth")
    statements: list[str] = []
    with app.app_context():
        event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    client = app.test_client()
    result = Growth(list(sizes), {}, {}, {}, {})
    for hands in sizes:
        token = service_match(app, NAMES, hands, target=100_000)

        def page(token: str = token) -> None:
            # the first load of this version: the sheet and the form rendered, not cached
            cache.clear(app)
            response = client.get(f"/m/{token}")
            assert response.status_code == 200
            response.get_data()

        def head(token: str = token) -> None:
            # the part above the fold, as the match page computes and renders it
            cache.clear(app)
            with app.test_request_context(f"/m/{token}"):
                match = services.get_match(token)
                standing = services.standing(match)
                render_template("matches/_head.html", **entry_context(match, standing))
                db.session.remove()

        result.page_ms[hands] = _median_ms(page, runs)
        result.head_ms[hands] = _median_ms(head, runs)
        statements.clear()
        page()
        result.page_queries[hands] = len(statements)
        statements.clear()
        head()
        result.head_queries[hands] = len(statements)
        print(
            f"  {hands} hands: page {result.page_ms[hands]:.1f} ms, "
            f"head {result.head_ms[hands]:.1f} ms",
            flush=True,
        )
    with app.app_context():
        db.engine.dispose()
    return result


# -- 4. PDF and 5. calculator, by their own scripts -------------------------------------


def run_script(name: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, str(BENCH / name), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{out.stdout}\n{out.stderr}")
    return out.stdout


@dataclass
class Pdf:
    wall: float
    cpu: float
    output: str


def pdf(runs: int) -> Pdf:
    out = run_script("bench_pdf.py", str(runs))
    wall = float(re.search(r"warm: median ([\d.]+) s", out).group(1))  # type: ignore[union-attr]
    cpu = float(re.search(r"warm CPU time: median ([\d.]+) s", out).group(1))  # type: ignore[union-attr]
    return Pdf(wall, cpu, out.strip())


@dataclass
class Calculator:
    cases: list[tuple[str, float, float, float]]  # label, median, p95, max (ms)
    output: str


def calculator(taps: int) -> Calculator:
    out = run_script("bench_calculator.py", str(taps))
    cases = []
    for line in out.splitlines():
        found = re.match(
            r"^(.+?)\s+(?:wall:\s+)?median\s+([\d.]+) ms\s+p95\s+([\d.]+) ms\s+max\s+([\d.]+) ms",
            line,
        )
        if found:
            label, median, p95, top = found.groups()
            cases.append((label.strip(), float(median), float(p95), float(top)))
    return Calculator(cases, out.strip())


@dataclass
class Import:
    lines: list[str]  # one per file: hands, size, median wall, CPU
    output: str


def import_backup(runs: int) -> Import:
    out = run_script("bench_import.py", str(runs))
    lines = [line for line in out.splitlines() if " hands, " in line and "median" in line]
    return Import(lines, out.strip())


# -- RESULTS.md ------------------------------------------------------------------------


def ok(passed: bool) -> str:
    return "✅" if passed else "❌"


def kib(size: int) -> str:
    return f"{size / 1024:.1f} KiB"


def machine() -> str:
    cpu = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    from importlib.metadata import version

    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split()
    return (
        f"{platform.system()} {platform.release()}, {os.cpu_count()} CPUs ({cpu}), "
        f"Python {platform.python_version()}, Flask {version('flask')}, "
        f"gunicorn {version('gunicorn')}, SQLAlchemy {version('sqlalchemy')}, "
        f"{' '.join(wrk_version[:2]) if wrk_version else 'wrk'}"
    )


def report(
    started: datetime,
    loads: tuple[str, str],
    ratios: Ratios,
    fixture: Fixture,
    grown: Growth,
    weighed: Weight,
    pdf_result: Pdf,
    calc: Calculator,
    imported: Import,
) -> str:
    lines: list[str] = []
    add = lines.append
    add("# Benchmark results")
    add("")
    add("Written by `.venv/bin/python bench/run.py` (see `bench/README.md`); every figure")
    add("below comes from this one run.")
    add("")
    add(f"- Date: {started:%Y-%m-%d %H:%M} UTC")
    add(f"- Machine: {machine()}")
    add(f"- Load average (1, 5, 15 min): {loads[0]} at the start, {loads[1]} at the end")
    add("- Database: SQLite (WAL) in a temporary directory, schema from the migrations")
    add("")
    add("## 1. Ceiling ratio (requests per second ÷ bare Flask hello world)")
    add("")
    add(
        f"gunicorn `--workers {ratios.workers} --worker-class sync` on 127.0.0.1 for both "
        f"apps; `wrk -t1 -c{ratios.connections} -d{ratios.seconds}s` after a 2 s warm-up, "
        f"`Accept-Encoding: {ACCEPT}` on every request. The ceiling is the mean of the "
        f"hello app measured before ({ratios.hello[0].rps:.0f} req/s) and after "
        f"({ratios.hello[-1].rps:.0f} req/s) scorer: **{ratios.ceiling:.0f} req/s**."
    )
    add("")
    add("| what | req/s | ratio | target | | p50 | p99 | errors | server CPU | wrk CPU |")
    add("|---|---|---|---|---|---|---|---|---|---|")
    labels = {
        "poll": "read-only poll, unchanged match, as the browser sends it (`?shown=`, "
        "`If-None-Match` + `If-Modified-Since`, htmx headers, session cookie → 304)",
        "page": "match page, 30 hands (200, full page)",
        "submit": f"hand submission over htmx (200, fresh content; {len(fixture.submit_tokens)} "
        f"matches of {fixture.submit_hands}+ hands)",
    }
    for h in ratios.hello:
        add(
            f"| hello world | {h.rps:.0f} | 1 | | | {h.p50_ms:.1f} ms | {h.p99_ms:.1f} ms | "
            f"{h.bad} | {h.server_cores:.2f} cores | {h.wrk_cores:.2f} cores |"
        )
    for name, label in labels.items():
        run = ratios.runs[name]
        ratio = ratios.ratio(name)
        target = RATIO_TARGETS[name]
        add(
            f"| {label} | {run.rps:.0f} | **{ratio:.2f}** | ≥ {target} | "
            f"{ok(ratio >= target and run.bad == 0)} | {run.p50_ms:.1f} ms | {run.p99_ms:.1f} ms | "
            f"{run.bad} | {run.server_cores:.2f} cores | {run.wrk_cores:.2f} cores |"
        )
    add("")
    add(
        "Errors are non-2xx/3xx answers, timeouts and connect or write errors (the "
        "submission run must answer every request with 200: a fresh idempotency key "
        "per request and the real CSRF token of the session cookie). CPU columns: "
        "cores busy on average during the run — the workers (from /proc) and wrk "
        "itself (its rusage); wrk needing a fraction of one core while the workers "
        "fill the rest shows the load generator is not the limit."
    )
    add("")
    add("## 2. Growth: server time of the match page")
    add("")
    add(
        "In-process with the Flask test client (no network), SQLite, median of the "
        "runs after one warm-up. *Above the fold* is `services.standing()` plus "
        "rendering `matches/_head.html` with the same context as the page (totals, "
        "progress, who deals, the entry form); the page is the whole GET `/m/<token>`."
    )
    add("")
    add("| hands | above the fold | queries | whole page | queries |")
    add("|---|---|---|---|---|")
    for n in grown.hands:
        add(
            f"| {n} | {grown.head_ms[n]:.1f} ms | {grown.head_queries[n]} | "
            f"{grown.page_ms[n]:.1f} ms | {grown.page_queries[n]} |"
        )
    small, large = grown.hands[0], grown.hands[-1]
    head_growth = grown.head_ms[large] / grown.head_ms[small]
    per_hand = [
        (grown.page_ms[b] - grown.page_ms[a]) / (b - a)
        for a, b in zip(grown.hands, grown.hands[1:], strict=False)
    ]
    add("")
    add(
        f"- Above the fold, {large} ÷ {small} hands: **{head_growth:.2f}×** (target ≤ "
        f"{GROWTH_TARGET:.0f}×) {ok(head_growth <= GROWTH_TARGET)}"
    )
    linear = max(per_hand) <= 2 * min(per_hand)
    add(
        "- Whole page, cost per extra hand between the sizes: "
        + ", ".join(f"{p:.3f} ms" for p in per_hand)
        + f" (linear: the slopes within 2× of each other) {ok(linear)}"
    )
    add("")
    add("## 3. Weight: bytes over the wire (compressed)")
    add("")
    add(
        f"Through gunicorn with `Accept-Encoding: {ACCEPT}` (Chrome on Android); each "
        "size is the status line, the headers and the body as sent."
    )
    add("")
    add("First load of the match page (30 hands), with everything it loads:")
    add("")
    add("| resource | encoding | bytes | Cache-Control |")
    add("|---|---|---|---|")
    for url, wire in weighed.first:
        add(
            f"| `{url}` | {wire.encoding} | {wire.size} | "
            f"{weighed.cache_control.get(url, wire.headers.get('Cache-Control', '')) or '—'} |"
        )
    total = weighed.first_total
    add(
        f"| **total** | | **{kib(total)}** (target ≤ {kib(FIRST_LOAD_TARGET)}) "
        f"{ok(total <= FIRST_LOAD_TARGET)} | |"
    )
    add("")
    add(
        "Web fonts: "
        + (
            "none (the CSS names system fonts only; no `@font-face`, no font preload) ✅"
            if not weighed.fonts
            else f"found {weighed.fonts} ❌"
        )
    )
    add("")
    add("Every later interaction (target ≤ 5 KiB each):")
    add("")
    add("| interaction | status | encoding | bytes | |")
    add("|---|---|---|---|---|")
    for label, wire in weighed.later:
        add(
            f"| {label} | {wire.status} | {wire.encoding} | {wire.size} | "
            f"{ok(wire.size <= LATER_TARGET)} |"
        )
    add("")
    add("## 4. PDF of a 60-hand match")
    add("")
    add(
        "`bench/bench_pdf.py 5`: in-process with the test client, warm renders (the first, "
        "cold render of a process pays for importing WeasyPrint)."
    )
    add("")
    add(
        f"- warm wall time, median: **{pdf_result.wall:.2f} s** (target < {PDF_TARGET} s) "
        f"{ok(pdf_result.wall < PDF_TARGET)}"
    )
    add(f"- warm CPU time of the process, median: {pdf_result.cpu:.2f} s")
    add("")
    add("```")
    add(pdf_result.output)
    add("```")
    add("")
    add("## 5. Meld calculator: server time per update")
    add("")
    add(
        "`bench/bench_calculator.py 100`: every tap a request through the test client as "
        "htmx sends it, timed to the complete response body."
    )
    add("")
    add("| case | median | p95 | max | target < 10 ms (median) |")
    add("|---|---|---|---|---|")
    for label, median, p95, top in calc.cases:
        add(
            f"| {label} | {median:.1f} ms | {p95:.1f} ms | {top:.1f} ms | "
            f"{ok(median < CALCULATOR_TARGET_MS)} |"
        )
    add("")
    add("```")
    add(calc.output)
    add("```")
    add("")
    add("## 6. Import of the largest backup the web takes")
    add("")
    add(
        "`bench/bench_import.py 3`: in-process with the test client, every run into a fresh "
        "SQLite file (`synchronous=FULL`, CSRF on): the multipart upload of `/import`, "
        "encoded beforehand, timed to the redirect (JSON checked, every row inserted, "
        "committed). The largest session a file may hold is 1,000 hands (2 matches × 500); "
        "a file may hold two of them."
    )
    add("")
    add("```")
    add(imported.output)
    add("```")
    add("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=int, default=10, help="length of each wrk run")
    parser.add_argument("--connections", type=int, default=8, help="wrk connections")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--submit-matches", type=int, default=40)
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument(
        "--only",
        type=lambda text: set(text.split(",")),
        default=None,
        help="only these ceiling-ratio runs (poll,page,submit): print the ratios, "
        "write no RESULTS.md (a quick check while optimising)",
    )
    args = parser.parse_args()

    binary = ensure_wrk()
    started = datetime.now(UTC)
    load_start = load_average()
    print(f"load average {load_start}", flush=True)
    with tempfile.TemporaryDirectory(prefix="scorer-bench-") as name:
        tmp = Path(name)
        print("building the database …", flush=True)
        fixture = build_database(tmp, args.submit_matches, submit_hands=20)
        print("1. ceiling ratio", flush=True)
        ratios = ceiling_ratios(binary, fixture, tmp, args)
        if args.only:
            for name in ratios.runs:
                print(f"  {name}: ratio {ratios.ratio(name):.3f}", flush=True)
            return
        print("3. weight", flush=True)
        weighed = weight(fixture)
        print("2. growth", flush=True)
        grown = growth(tmp, (10, 100, 500), runs=15)
    print("4. PDF", flush=True)
    pdf_result = pdf(5)
    print("5. calculator", flush=True)
    calc = calculator(100)
    print("6. import", flush=True)
    imported = import_backup(3)
    text = report(
        started,
        (load_start, load_average()),
        ratios,
        fixture,
        grown,
        weighed,
        pdf_result,
        calc,
        imported,
    )
    args.out.write_text(text)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
