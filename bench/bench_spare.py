"""The spare laptop (issue 35 §1): how far behind a save it is, and what following costs the phones.

Run from the top of the checkout::

    .venv/bin/python bench/bench_spare.py                     # 200 tables, 3 × 90 s; ~12 min
    .venv/bin/python bench/bench_spare.py --tables 50 --seconds 60
    .venv/bin/python bench/bench_spare.py --write             # the table into RESULTS.md

Two laptops on this machine's loopback, each as ``python -m scorer.hall`` serves
it (gunicorn ``-w 2 --threads 4``, gthread, SQLite in WAL mode with
``synchronous=FULL``): the hall on 127.0.0.1, the spare on 127.0.0.2, each its
own database file.  The hall holds a tournament of ``--tables`` tables (three
players each) whose rounds 1 and 2 are played out (12 deals) and closed, round 3
drawn: at 200 tables about 7,200 hands, the 8.5 MB backup of the issue.  The load
of ``bench/tournament_load.py`` (open loop): every table's phone saves a hand of
round 3 about once a minute (the hand form as htmx posts it), one spectator per
three tables and the beamer poll the ranking every 3 s.

Three phases of ``--seconds`` each, the same load:

1. **alone**: the hall as before, nothing follows it;
2. **spare**: the spare is paired through its page (the hall's line typed in),
   the hall's follower (``python -m scorer.follow``, at its low priority) has
   brought it the whole hall, then pushes what changes; every acknowledged save
   is looked for in the spare's database by its idempotency key (every 0.1 s):
   the spare's lag is the time from the phone's answer to the deal on the spare;
3. **spare and folder**: the same, and the continuous backup written to a folder
   (``BACKUP_FOLDER``); the folder's lag is the time from the phone's answer to a
   complete file holding the deal.

Printed: per phase p50/p95/max of the saves, the match pages and the polls (the
phones' p95 with and without following), errors and lost hands (every
acknowledged hand looked up on the hall), the first sync's time and size, the
lags, the follower's and the spare's CPU, the load average.  Both laptops share
this machine's cores here (on the night each has its own): the figures are
pessimistic, and noisy on a shared machine (the load average is given).
Nothing here is part of the test suite.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
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
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

import tournament_db as tdb
import tournament_load as hall
from load import percentile
from run import load_average

from tests.builders import csrf_token_from

ROOT, BENCH = hall.ROOT, hall.BENCH
RESULTS = BENCH / "RESULTS.md"
HEADING = "## The spare laptop (issue 35 §1)"
OPTIONS = ["-w", "2", "--threads", "4", "-k", "gthread", "--timeout", "60"]
"""``python -m scorer.hall``'s gunicorn settings (scorer/hall.py)."""
KINDS = ("hand saved", "match page", "spectator poll", "beamer poll")
TICK = os.sysconf("SC_CLK_TCK")

MAKE_HALL = """
import json, sys
sys.path.insert(0, "bench")
from tournament_db import build_night
from scorer import create_app
from scorer.extensions import db
from scorer.services.tournaments import rounds, setup
from tests.tournament_builders import play_round
url, tables = sys.argv[1], int(sys.argv[2])
night = build_night(url, tables)
app = create_app({"SQLALCHEMY_DATABASE_URI": url})
with app.app_context():
    tournament = setup.get_tournament_for_view(night.view_token)
    for number in (1, 2):
        row = tournament.round_rows[number - 1]
        play_round(row)
        rounds.close_round(tournament, row)
        row = rounds.draw_round(tournament, number + 1)
    tokens = [t.match.token for t in sorted(row.tables, key=lambda t: t.number)]
    print(json.dumps({"view": night.view_token, "tables": tokens}))
"""


# -- the two laptops -------------------------------------------------------------------------


@dataclass
class Laptop:
    """A laptop's gunicorn on ``host`` with its database and environment."""

    name: str
    host: str
    database: Path
    env: dict[str, str]
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, log: Path) -> None:
        self.port = free_port(self.host)
        self.env["PUBLIC_URL"] = self.url
        gunicorn = Path(sys.executable).parent / "gunicorn"
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [str(gunicorn), *OPTIONS, "-b", f"{self.host}:{self.port}", "scorer:create_app()"],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=out,
                start_new_session=True,
            )
        for _ in range(300):
            try:
                if request(self.host, self.port, "GET", "/")[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not start; see {log}")

    def stop(self) -> None:
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)
            self.process = None

    def cpu(self) -> float:
        return tree_cpu(self.process.pid) if self.process is not None else 0.0


def free_port(host: str) -> int:
    import socket

    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its children (the gunicorn workers)."""
    total = 0.0
    for child in [pid, *children(pid)]:
        try:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(c) for c in found]


def request(
    host: str,
    port: int,
    method: str,
    path: str,
    form: dict[str, str] | None = None,
    cookies: dict[str, str] | None = None,
) -> tuple[int, str, dict[str, str]]:
    connection = http.client.HTTPConnection(host, port, timeout=120)
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in (cookies or {}).items())}
    body = None
    if form is not None:
        body = urlencode(form)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
    finally:
        connection.close()
    got = dict(cookies or {})
    for cookie in response.headers.get_all("Set-Cookie") or []:
        name, _, rest = cookie.partition("=")
        got[name] = rest.split(";", 1)[0]
    return response.status, text, got


def pair(hall_laptop: Laptop, spare: Laptop) -> None:
    """The organiser pairs the spare: the hall's line, typed into the spare's page."""
    status, page, cookies = request(hall_laptop.host, hall_laptop.port, "GET", "/hall")
    assert status == 200, status
    token = csrf_token_from(page)
    status, _, cookies = request(
        hall_laptop.host, hall_laptop.port, "POST", "/hall/code", {"csrf_token": token}, cookies
    )
    _, page, _ = request(hall_laptop.host, hall_laptop.port, "GET", "/hall", cookies=cookies)
    line = unescape(re.search(r'id="pair-line" class="t-url" value="([^"]+)"', page).group(1))
    status, page, cookies = request(spare.host, spare.port, "GET", "/spare")
    token = csrf_token_from(page)
    status, page, _ = request(
        spare.host, spare.port, "POST", "/spare/follow", {"csrf_token": token, "line": line},
        cookies,
    )  # fmt: skip
    if status != 303:
        raise RuntimeError(f"pairing: {status} {page[:500]}")


def sql(database: Path, statement: str, *args: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10) as connection:
        return list(connection.execute(statement, args))


# -- what the phones and the spare see --------------------------------------------------------


class Phone(hall.TablePhone):
    """A table phone that notes when each hand was acknowledged."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.when: dict[str, float] = {}

    def step(self, record: hall.Record) -> float | None:
        before = len(self.acked)
        following = super().step(record)
        for key in self.acked[before:]:
            self.when[key] = time.monotonic()
        return following


@dataclass
class Lags:
    """The seconds from each acknowledged save to the deal on the spare (and in the folder)."""

    spare: list[float] = field(default_factory=list)
    folder: list[float] = field(default_factory=list)
    seen_spare: set[str] = field(default_factory=set)
    seen_folder: set[str] = field(default_factory=set)


def watch(
    phones: list[Phone],
    spare_db: Path,
    folder: Path | None,
    before: dict[str, int],
    lags: Lags,
    stop: threading.Event,
) -> None:
    """Every 0.1 s: which acknowledged deals the spare holds now (by idempotency key), and
    which the folder's file holds (by the number of deals of each table in it; ``before``:
    each table's deals when the phase began)."""
    mtime = 0.0
    while not stop.is_set():
        pending = {
            k: t for p in phones for k, t in list(p.when.items()) if k not in lags.seen_spare
        }
        keys = list(pending)
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found = sql(
                spare_db, f"SELECT idempotency_key FROM hand WHERE idempotency_key IN ({marks})",
                *chunk,
            )  # fmt: skip
            now = time.monotonic()
            for (key,) in found:
                lags.spare.append(now - pending[str(key)])
                lags.seen_spare.add(str(key))
        files = list(folder.glob("*.json")) if folder is not None else []
        if files and files[0].stat().st_mtime != mtime:
            mtime = files[0].stat().st_mtime
            held = _deals(json.loads(files[0].read_text()))
            now = time.monotonic()
            for phone in phones:
                for index, (key, acked) in enumerate(list(phone.when.items())):
                    in_file = held.get(phone.token, 0) - before.get(phone.token, 0)
                    if key not in lags.seen_folder and index < in_file:
                        lags.folder.append(now - acked)
                        lags.seen_folder.add(key)
        stop.wait(0.1)


def _deals(data: dict[str, object]) -> dict[str, int]:
    """The deals of each table's match in a tournament's backup file, by the match's link."""
    tournament = data["tournament"]
    assert isinstance(tournament, dict)
    return {
        table["match"]["token"]: len(table["match"]["hands"])
        for row in tournament["rounds"]
        for table in row["tables"]
    }


@dataclass
class Phase:
    name: str
    ms: dict[str, list[float]]
    errors: list[str]
    acked: int
    lost: int
    lags: Lags
    follower_cores: float
    spare_cores: float
    hall_cores: float
    load: str


def run_phase(
    name: str,
    hall_laptop: Laptop,
    tokens: list[str],
    view: str,
    args: argparse.Namespace,
    spare: Laptop | None,
    follower: subprocess.Popen[bytes] | None,
    folder: Path | None,
) -> Phase:
    servers = [hall.Server(None, hall_laptop.port)]  # type: ignore[arg-type]
    rng = random.Random(len(name))
    place = hall.Hall(args.client_threads)
    start = time.monotonic() + 1.0
    ranking = f"/p/{view}"
    pages = max(1, -(-3 * len(tokens) // 50))
    for n in range(max(1, len(tokens) // 3)):
        first = hall.spread(rng, start, 3.0)
        page = f"{ranking}?page={n % pages + 1}" if n % pages else ranking
        place.add(hall.Watcher(hall.Browser(servers, n), "spectator", page, first), first)
    place.add(hall.Watcher(hall.Browser(servers, 0), "beamer", f"{ranking}?rows=20", start), start)
    phones = []
    for n, token in enumerate(tokens):
        first = hall.spread(rng, start, 60.0)
        phones.append(Phone(hall.Browser(servers, n), token, first, 60.0))
        place.add(phones[-1], first)
    lags, stop = Lags(), threading.Event()
    watcher = None
    if spare is not None:
        before = {
            str(token): int(count)  # type: ignore[call-overload]
            for token, count in sql(
                hall_laptop.database,
                "SELECT m.token, count(h.id) FROM match m LEFT JOIN hand h ON h.match_id = m.id "
                "GROUP BY m.id",
            )
        }
        watcher = threading.Thread(
            target=watch, args=(phones, spare.database, folder, before, lags, stop), daemon=True
        )
        watcher.start()
    cpu = (
        tree_cpu(follower.pid) if follower else 0.0,
        spare.cpu() if spare else 0.0,
        hall_laptop.cpu(),
        time.monotonic(),
    )
    record = hall.Record()
    print(f"== {name}: {args.seconds:.0f} s; load average {load_average()}", flush=True)
    place.run(record, start + args.seconds)
    time.sleep(args.settle if spare is not None else 0)  # the last saves reach the spare
    stop.set()
    if watcher is not None:
        watcher.join(timeout=30)
    seconds = time.monotonic() - cpu[3]
    saved = {str(k) for (k,) in sql(hall_laptop.database, "SELECT idempotency_key FROM hand")}
    acked = [k for p in phones for k in p.acked]
    phase = Phase(
        name,
        record.ms,
        record.errors,
        len(acked),
        sum(1 for k in acked if k not in saved),
        lags,
        ((tree_cpu(follower.pid) if follower else 0.0) - cpu[0]) / seconds,
        ((spare.cpu() if spare else 0.0) - cpu[1]) / seconds,
        (hall_laptop.cpu() - cpu[2]) / seconds,
        load_average(),
    )
    report(phase)
    return phase


def report(phase: Phase) -> None:
    for kind in KINDS:
        values = phase.ms.get(kind, [])
        if values:
            print(
                f"  {kind:15s} n={len(values):5d} p50 {percentile(values, 50):6.0f} ms  "
                f"p95 {percentile(values, 95):6.0f} ms  max {max(values):6.0f} ms"
            )
    print(f"  acknowledged {phase.acked}, lost {phase.lost}; errors {len(phase.errors)}")
    for name, values in (("spare", phase.lags.spare), ("folder", phase.lags.folder)):
        if values:
            print(
                f"  {name} lag n={len(values)} p50 {percentile(values, 50):.1f} s  "
                f"p95 {percentile(values, 95):.1f} s  max {max(values):.1f} s"
            )
    print(
        f"  cores: hall's gunicorn {phase.hall_cores:.2f}, follower {phase.follower_cores:.2f}, "
        f"spare {phase.spare_cores:.2f}; load average {phase.load}",
        flush=True,
    )


def first_sync(hall_laptop: Laptop, spare: Laptop) -> tuple[float, int]:
    """Seconds until the spare holds every hand of the hall (no load meanwhile), and the
    hands it then holds."""
    started = time.monotonic()
    wanted = sql(hall_laptop.database, "SELECT count(*) FROM hand")[0][0]
    while time.monotonic() - started < 600:
        try:
            held = sql(spare.database, "SELECT count(*) FROM hand")[0][0]
        except sqlite3.OperationalError:
            held = 0
        if held == wanted:
            return time.monotonic() - started, int(held)  # type: ignore[arg-type]
        time.sleep(0.1)
    raise RuntimeError("the spare never caught up")


def table(phases: list[Phase], sync: tuple[float, int], tables: int, seconds: float) -> str:
    lines = [
        "| phase | hand saved p50 / p95 / max | match page p95 | spectator poll p95 | "
        "beamer poll p95 | spare lag p50 / p95 / max | folder lag p50 / p95 / max | "
        "follower cores | spare cores | lost | errors | load average |",
        "|" + "---|" * 12,
    ]

    def trio(values: list[float], unit: str = "ms", scale: float = 1.0) -> str:
        if not values:
            return "–"
        fmt = "{:.0f}" if unit == "ms" else "{:.1f}"
        parts = (percentile(values, 50), percentile(values, 95), max(values))
        return " / ".join(fmt.format(v * scale) for v in parts) + f" {unit}"

    for p in phases:
        saved = p.ms.get("hand saved", [])
        lines.append(
            "| "
            + " | ".join(
                [
                    p.name,
                    trio(saved),
                    f"{percentile(p.ms.get('match page', []), 95):.0f} ms",
                    f"{percentile(p.ms.get('spectator poll', []), 95):.0f} ms",
                    f"{percentile(p.ms.get('beamer poll', []), 95):.0f} ms",
                    trio(p.lags.spare, "s"),
                    trio(p.lags.folder, "s"),
                    f"{p.follower_cores:.2f}",
                    f"{p.spare_cores:.2f}",
                    str(p.lost),
                    str(len(p.errors)),
                    p.load,
                ]
            )
            + " |"
        )
    return "\n".join(lines) + (
        f"\n\n{tables} tables, {seconds:.0f} s a phase; the first sync of the whole hall "
        f"({sync[1]} hands) took {sync[0]:.1f} s."
    )


def write(text: str) -> None:
    body = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    section = (
        f"{HEADING}\n\n`bench/bench_spare.py` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        f", {os.cpu_count()} CPUs shared with other developers' work; both laptops on this one "
        "machine):\n\n" + text + "\n"
    )
    pattern = re.compile(re.escape(HEADING) + r".*?(?=\n## |\Z)", re.S)
    body = pattern.sub(section, body) if pattern.search(body) else body.rstrip() + "\n\n" + section
    RESULTS.write_text(body)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--settle", type=float, default=8.0)
    parser.add_argument("--client-threads", type=int, default=256)
    parser.add_argument("--write", action="store_true", help="the table into RESULTS.md")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="scorer-spare-"))
    stick = folder / "stick"
    stick.mkdir()
    base = {**os.environ, "PYTHONPATH": str(ROOT), "HALL": "1"}
    hall_laptop = Laptop(
        "hall", "127.0.0.1", folder / "hall.sqlite",
        {**base, "SECRET_KEY": secrets.token_hex(32), "DATABASE_URL": f"sqlite:///{folder}/hall.sqlite"},
    )  # fmt: skip
    spare = Laptop(
        "spare", "127.0.0.2", folder / "spare.sqlite",
        {**base, "SECRET_KEY": secrets.token_hex(32), "DATABASE_URL": f"sqlite:///{folder}/spare.sqlite"},
    )  # fmt: skip
    follower: subprocess.Popen[bytes] | None = None
    print(f"{os.cpu_count()} CPUs, load average {load_average()}", flush=True)
    try:
        for laptop in (hall_laptop, spare):
            tdb.migrate(str(laptop.env["DATABASE_URL"]), laptop.env)
        started = time.perf_counter()
        made = subprocess.run(
            [sys.executable, "-c", MAKE_HALL, hall_laptop.env["DATABASE_URL"], str(args.tables)],
            cwd=ROOT, env=hall_laptop.env, check=True, capture_output=True, text=True,
        )  # fmt: skip
        night = json.loads(made.stdout.strip().splitlines()[-1])
        hands = sql(hall_laptop.database, "SELECT count(*) FROM hand")[0][0]
        print(f"the hall: {args.tables} tables, {hands} hands, made in "
              f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
        hall_laptop.start(folder / "hall.log")
        spare.start(folder / "spare.log")
        phases = [run_phase("alone", hall_laptop, night["tables"], night["view"], args, None,
                            None, None)]  # fmt: skip
        pair(hall_laptop, spare)
        follower = subprocess.Popen(
            [sys.executable, "-m", "scorer.follow"], cwd=ROOT, env=hall_laptop.env,
            stdout=(folder / "follow.log").open("ab"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        sync = first_sync(hall_laptop, spare)
        print(f"first sync: {sync[1]} hands in {sync[0]:.1f} s", flush=True)
        phases.append(run_phase("spare", hall_laptop, night["tables"], night["view"], args, spare,
                                follower, None))  # fmt: skip
        follower.terminate()
        follower.wait(timeout=30)
        follower = subprocess.Popen(
            [sys.executable, "-m", "scorer.follow"], cwd=ROOT,
            env={**hall_laptop.env, "BACKUP_FOLDER": str(stick)},
            stdout=(folder / "follow.log").open("ab"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        waited = time.monotonic()
        while not list(stick.glob("*.json")) and time.monotonic() - waited < 600:
            time.sleep(0.1)  # the folder's first file (the whole tournament, read once)
        print(f"first file in the folder: {time.monotonic() - waited:.1f} s", flush=True)
        phases.append(run_phase("spare and folder", hall_laptop, night["tables"], night["view"],
                                args, spare, follower, stick))  # fmt: skip
        text = table(phases, sync, args.tables, args.seconds)
        print(text)
        if args.write:
            write(text)
        return 0 if all(not p.lost and not p.errors for p in phases) else 1
    finally:
        if follower is not None:
            follower.terminate()
        for laptop in (hall_laptop, spare):
            laptop.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
