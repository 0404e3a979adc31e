"""The hall's devices for ``bench/bench_tournament.py``: table phones, beamers, players' phones.

The devices (:class:`TablePhone`, :class:`Watcher`) and the :class:`Hall` that
plays them on a schedule: a pool of client threads, each request started at
its time (open loop: a slow server makes the answers late, not the asking),
every request timed from connect to the last byte of the answer; the time the
same requests spent inside gunicorn's workers comes from its access log
(:func:`served`).  PostgreSQL and the tournament in it: ``bench/tournament_db.py``.
"""

from __future__ import annotations

import heapq
import http.client
import random
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (str(ROOT), str(BENCH)):
    if folder not in sys.path:
        sys.path.insert(0, folder)

from load import hand  # noqa: E402
from run import ACCEPT, Server, decode  # noqa: E402

from tests.builders import form_data  # noqa: E402

TIMEOUT = 30.0
"""Seconds a device waits for an answer (a phone's browser waits longer; the run must end)."""
GIVE_UP = 30.0
"""A device whose ask is this many seconds overdue (every client thread was waiting) gives up."""


# -- what the devices measure ------------------------------------------------------


@dataclass
class Record:
    """Every request of a run by kind: time, status; errors; how late requests started."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    ms: dict[str, list[float]] = field(default_factory=dict)
    status: dict[str, Counter[int]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    late_ms: list[float] = field(default_factory=list)

    def took(self, kind: str, ms: float, status: int) -> None:
        with self.lock:
            self.ms.setdefault(kind, []).append(ms)
            self.status.setdefault(kind, Counter())[status] += 1

    def error(self, message: str) -> None:
        with self.lock:
            self.errors.append(message)

    def every(self) -> list[float]:
        return [ms for values in self.ms.values() for ms in values]


class Browser:
    """One phone's or beamer's browser: cookies, compressed answers, servers taken in turn.

    With two servers every request goes to the next one (a load balancer's round
    robin), so a cookie, a form or a poll's validators from one server are used
    on the other.
    """

    def __init__(self, servers: Sequence[Server], start: int = 0) -> None:
        self.servers = list(servers)
        self.turn = start
        self.cookies: dict[str, str] = {}

    def request(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        form: dict[str, str] | None = None,
    ) -> tuple[int, http.client.HTTPMessage, str, float, Server]:
        server = self.servers[self.turn % len(self.servers)]
        self.turn += 1
        sent = {"Accept-Encoding": ACCEPT, **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        start = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=TIMEOUT)
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        ms = (time.perf_counter() - start) * 1000
        for cookie in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        encoding = response.headers.get("Content-Encoding", "identity")
        text = decode(data, encoding).decode() if data else ""
        return response.status, response.headers, text, ms, server


class Device:
    """Something in the hall that asks the server on a schedule; :meth:`step` says when next."""

    def step(self, record: Record) -> float | None:
        """Ask once; the monotonic time of the next ask, or None when done."""
        raise NotImplementedError


def typed(number: int, step: int, steps: int) -> dict[str, str]:
    """Hand ``number`` as far as it is typed at preview ``step`` of ``steps``: its fields in
    the form's order, the first ``step / steps`` of them filled in, the rest still empty.

    >>> [len([v for v in typed(0, k, 3).values() if v]) for k in (1, 2, 3)]
    [4, 5, 7]
    """
    fields = list(hand(number).items())
    shown = -(-len(fields) * step // steps)
    return {name: value if i < shown else "" for i, (name, value) in enumerate(fields)}


class TablePhone(Device):
    """A table's phone: a hand every ``every`` seconds (the first at ``first``), as the hand
    form sends it.

    The phone loads the match page (``/m/<token>``) and reads the hand form (CSRF
    token, version, a fresh idempotency key); a hand is filled in (``bench/load.py``'s:
    the declarer goes round and fails, so the table never finishes) and posted as
    htmx does (``HX-Request`` …; the answer is 200 with the new top of the page and
    the fresh form).  With ``previews``, the Schreiber types the hand in that many
    steps ``typing`` seconds apart, and each step posts the form to the live preview
    as the form's htmx does (``hx-post`` of ``/m/<token>/hands/preview`` with the
    whole form, answered with the preview fragment); the hand is saved ``typing``
    seconds after the last one.  ``reload``: the page is loaded again before every
    hand (issue 28's model); without it the page is loaded once, when the device is
    first asked (which may be before its first hand), and every next hand is typed
    into the form the last save's answer brought, as in the browser.
    """

    def __init__(
        self,
        browser: Browser,
        token: str,
        first: float,
        every: float,
        previews: int = 0,
        typing: float = 2.0,
        reload: bool = True,
    ) -> None:
        self.browser, self.token = browser, token
        self.next, self.every = first, every
        self.previews, self.typing, self.reload = previews, typing, reload
        self.hands = 0
        self.acked: list[str] = []
        self.form: dict[str, str] | None = None
        self.typed = 0

    def _htmx(self, target: str) -> dict[str, str]:
        return {
            "HX-Request": "true",
            "HX-Trigger": target,
            "HX-Target": target,
            "HX-Current-URL": f"http://127.0.0.1/m/{self.token}",
        }

    def step(self, record: Record) -> float | None:
        page = f"/m/{self.token}"
        if self.form is None:
            status, _, html, ms, _ = self.browser.request("GET", page)
            record.took("match page", ms, status)
            if status != 200:
                record.error(f"match page {status}")
                return None
            self.form, self.typed = form_data(html, "hand-form"), 0
            if self.previews:
                return self.next + self.typing
            if time.monotonic() < self.next:
                return self.next  # opened ahead of the first hand
        if self.typed < self.previews:
            self.typed += 1
            data = {**self.form, **typed(self.hands, self.typed, self.previews)}
            status, _, body, ms, _ = self.browser.request(
                "POST", f"{page}/hands/preview", headers=self._htmx("preview"), form=data
            )
            record.took("preview", ms, status)
            if status != 200:
                record.error(f"preview {status}: {body[:160]!r}")
                return None
            return self.next + self.typing * (self.typed + 1)
        data = {**self.form, **hand(self.hands)}
        status, _, body, ms, _ = self.browser.request(
            "POST", f"{page}/hands", headers=self._htmx("hand-form"), form=data
        )
        record.took("hand saved", ms, status)
        if status != 200 or "form-error" in body:
            record.error(f"hand {status}: {body[:160]!r}")
            return None
        self.acked.append(data["idempotency_key"])
        self.hands += 1
        self.next += self.every
        self.typed = 0
        self.form = None if self.reload else form_data(body, "hand-form")
        if self.form is not None and self.previews:
            return self.next + self.typing
        return self.next


# the polled element of a public page: its hx-get is the fragment's URL (…/live?shown=…;
# a match's share page: …/sheet?shown=…)
POLLED_RE = re.compile(r"<\w+\s[^>]*\bhx-get=\"[^\"]*/(?:live|sheet)\b[^\"]*\"[^>]*>")
ATTRIBUTE_RE = re.compile(r'([\w-]+)="([^"]*)"')
HEADERS_RE = re.compile(r"hx-headers='\{\"X-CSRFToken\": \"([^\"]+)\"\}'")
EVERY_RE = re.compile(r"every (\d+(?:\.\d+)?)(ms|s)")


@dataclass
class Polled:
    """A page's polled element: the URL it asks, its id, its interval in seconds."""

    url: str
    element: str
    every: float
    csrf: str


def polled(html: str) -> Polled | None:
    """The first element of ``html`` that polls a fragment (``…/live``, ``…/sheet``), as htmx
    reads it."""
    found = POLLED_RE.search(html)
    if not found:
        return None
    attributes = {k: unescape(v) for k, v in ATTRIBUTE_RE.findall(found.group(0))}
    every = EVERY_RE.search(attributes.get("hx-trigger", ""))
    seconds = float(every.group(1)) / (1000 if every.group(2) == "ms" else 1) if every else 0.0
    csrf = HEADERS_RE.search(html)
    return Polled(
        attributes["hx-get"], attributes.get("id", ""), seconds, csrf.group(1) if csrf else ""
    )


class Watcher(Device):
    """A beamer or a player's phone: opens its page once, then polls its fragment.

    As the browser asks: the URL the page's polled element names (``?shown=``),
    htmx's headers (and the page's ``X-CSRFToken`` when it has one), the cookie
    and, once its cache holds that URL, ``If-None-Match`` and
    ``If-Modified-Since``.  A 200 is swapped in and its element's URL polled
    next.  ``every`` overrides the page's own interval (0: the page's).
    """

    def __init__(
        self, browser: Browser, kind: str, page: str, first: float, every: float = 0.0
    ) -> None:
        self.browser, self.kind, self.page = browser, kind, page
        self.next, self.every = first, every
        self.poll: Polled | None = None
        self.cache: dict[str, dict[str, str]] = {}

    def step(self, record: Record) -> float | None:
        if self.poll is None:
            status, _, html, ms, _ = self.browser.request("GET", self.page)
            record.took(f"{self.kind} page", ms, status)
            self.poll = polled(html) if status == 200 else None
            if self.poll is None:
                record.error(f"{self.kind} page {status}, polled element: none")
                return None
            self.every = self.every or self.poll.every
        else:
            url = self.poll.url
            htmx = {
                "HX-Request": "true",
                "HX-Trigger": self.poll.element,
                "HX-Target": self.poll.element,
                "HX-Current-URL": f"http://127.0.0.1{self.page}",
                **({"X-CSRFToken": self.poll.csrf} if self.poll.csrf else {}),
            }
            status, headers, body, ms, _ = self.browser.request(
                "GET", url, headers={**htmx, **self.cache.get(url, {})}
            )
            record.took(f"{self.kind} poll", ms, status)
            if status in (200, 204) and headers.get("ETag"):
                self.cache[url] = {"If-None-Match": headers["ETag"]}
                if headers.get("Last-Modified"):
                    self.cache[url]["If-Modified-Since"] = headers["Last-Modified"]
            if status == 200:
                found = polled(body)  # htmx swaps the element: its new URL is asked next
                if found is None:
                    record.error(f"{self.kind} poll: 200 without the polled element")
                    return None
                self.poll = Polled(found.url, self.poll.element, found.every, self.poll.csrf)
            elif status not in (204, 304):
                record.error(f"{self.kind} poll {status}")
                return None
        self.next += self.every
        return self.next


class Hall:
    """Plays devices on their schedule with a pool of client threads until a deadline.

    One dispatcher thread hands each device to the pool when its time comes;
    the device's next time goes back into the heap.  How late a request
    started against its time is kept (``Record.late_ms``): a late start means
    the client, not the server, held things up.
    """

    def __init__(self, threads: int = 192) -> None:
        self.threads = threads
        self.heap: list[tuple[float, int, Device]] = []
        self.cond = threading.Condition()
        self.count = 0
        self.busy = 0

    def add(self, device: Device, at: float) -> None:
        with self.cond:
            heapq.heappush(self.heap, (at, self.count, device))
            self.count += 1
            self.cond.notify()

    def run(self, record: Record, until: float, stop: threading.Event | None = None) -> None:
        """Every device's asks due before ``until`` (or until ``stop`` is set); returns when
        the last answer came."""
        with ThreadPoolExecutor(max_workers=self.threads) as pool, self.cond:
            while True:
                now = time.monotonic()
                going = stop is None or not stop.is_set()
                if going and self.heap and self.heap[0][0] < until:
                    if self.heap[0][0] <= now:
                        due, _, device = heapq.heappop(self.heap)
                        self.busy += 1
                        pool.submit(self._one, device, due, record)
                    else:
                        self.cond.wait(timeout=min(self.heap[0][0] - now, 0.5))
                elif self.busy:
                    self.cond.wait(timeout=0.5)
                else:
                    return  # what is due later stays for the next run

    def _one(self, device: Device, due: float, record: Record) -> None:
        late = time.monotonic() - due
        record.late_ms.append(late * 1000)
        try:
            if late > GIVE_UP:
                raise TimeoutError(f"not asked: the client is {late:.0f} s behind")
            following = device.step(record)
        except Exception as exc:  # refused, timed out, or a bug: counted, and the run goes on
            record.error(f"{type(device).__name__}: {type(exc).__name__}: {exc}")
            following = None
        with self.cond:
            self.busy -= 1
            if following is not None:
                heapq.heappush(self.heap, (following, self.count, device))
                self.count += 1
            self.cond.notify()


ACCESS_FORMAT = "%(m)s %(U)s %(s)s %(D)s %({x-bench-cpu-us}o)s"
"""gunicorn's access log line: method, path, status, microseconds inside the worker and
the CPU microseconds of its thread (``bench/timed_app.py``)."""


def kind_of(method: str, path: str) -> str:
    """The kind of request a device's ask is (as :class:`Record` names them; the beamer's
    and the spectators' polls of the ranking differ only in their query: "ranking")."""
    if path.startswith("/m/"):
        if path.endswith("/preview"):
            return "preview"
        return "hand saved" if method == "POST" else "match page"
    if path.startswith("/t/"):
        return f"board {'poll' if path.endswith('/live') else 'page'}"
    who = "player" if "/players/" in path else "ranking"
    return f"{who} {'poll' if path.endswith('/live') else 'page'}"


@dataclass
class Inside:
    """Per kind of request: milliseconds inside the workers, and CPU milliseconds of it."""

    ms: dict[str, list[float]] = field(default_factory=dict)
    cpu_ms: dict[str, list[float]] = field(default_factory=dict)


def served(logs: Sequence[Path], offsets: Sequence[int]) -> Inside:
    """What the access logs after ``offsets`` say of each kind of request.

    A request's time runs from its parsed head to its last byte written: the
    client's time minus this is the wait for a connection and a worker thread.
    """
    out = Inside()
    for log, offset in zip(logs, offsets, strict=True):
        with log.open("rb") as file:
            file.seek(offset)
            for line in file.read().decode(errors="replace").splitlines():
                parts = line.split()
                if len(parts) != 5 or not parts[3].isdigit():
                    continue
                kind = kind_of(parts[0], parts[1])
                out.ms.setdefault(kind, []).append(int(parts[3]) / 1000)
                if parts[4].isdigit():
                    out.cpu_ms.setdefault(kind, []).append(int(parts[4]) / 1000)
    return out


def spread(rng: random.Random, start: float, seconds: float) -> float:
    """A moment in ``[start, start + seconds)``: when a device first asks."""
    return start + rng.random() * seconds


def stats_line(name: str, values: list[float], statuses: Counter[int] | None = None) -> str:
    """``name n=… p50 … p95 … max …`` and the answers' statuses."""
    from load import percentile

    text = (
        f"  {name:16} n={len(values):6}  p50 {percentile(values, 50):7.1f} ms"
        f"  p95 {percentile(values, 95):7.1f} ms  max {max(values, default=0):7.1f} ms"
    )
    if statuses:
        text += "  " + " ".join(f"{s}:{n}" for s, n in sorted(statuses.items()))
    return text
