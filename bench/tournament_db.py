"""PostgreSQL and the tournament in it, for ``bench/bench_tournament.py``.

- :class:`Postgres`: a PostgreSQL 15 server of its own (Debian's binaries), on a
  spare port of 127.0.0.1 in a temp dir, as ``tests/run.sh`` starts one for the
  suite, but with the server's default durability (``fsync`` on: a saved hand
  waits for the disk, as on the night) and ``pg_stat_statements`` loaded, so a
  run can say which statements the database spent its time on.
- :func:`build_night`: a tournament made through ``scorer.services.tournaments``
  (created, players with start numbers from round 1, round 1 drawn), in process;
  :func:`played_night`: one whose rounds are all played and closed.
- :func:`costs`: what building the standings, the public pages, a table
  phone's page and a saved hand cost in process, one at a time.
"""

from __future__ import annotations

import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PG_BIN = Path("/usr/lib/postgresql/15/bin")
USER = "scorer"


# -- PostgreSQL ------------------------------------------------------------------


class Postgres:
    """A PostgreSQL server in a temp dir of its own on 127.0.0.1:``port``; databases on demand."""

    def __init__(self, port: int) -> None:
        self.folder, self.port = Path(tempfile.mkdtemp(prefix="scorer-pg-")), port
        self.data = self.folder / "data"
        # the server refuses to run as root: Debian's postgres user runs it then
        self.runas = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *command: str) -> str:
        done = subprocess.run([*self.runas, *command], capture_output=True, text=True, cwd="/")
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:2])}: {done.stderr.strip()}")
        return done.stdout

    def start(self) -> None:
        if self.runas:
            shutil.chown(self.folder, "postgres")
        self._run(
            str(PG_BIN / "initdb"), "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8"
        )
        options = (
            f"-h 127.0.0.1 -p {self.port} -k {self.folder} "
            "-c shared_preload_libraries=pg_stat_statements -c max_connections=200"
        )
        self._run(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log"),
            "-w", "-o", options, "start",
        )  # fmt: skip

    def stop(self) -> None:
        subprocess.run(
            [*self.runas, str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop"],
            capture_output=True,
            cwd="/",
        )
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{USER}@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str, database: str = "postgres") -> str:
        """Run ``statement`` with psql; its rows as unaligned text."""
        return self._run(
            str(PG_BIN / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", USER,
            "-d", database, "-At", "-F", "\t", "-c", statement,
        )  # fmt: skip

    def fresh(self, database: str) -> str:
        """An empty database ``database`` (dropped first if it exists); its URL."""
        self.sql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        self.sql(f'CREATE DATABASE "{database}"')
        return self.url(database)

    def pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def cpu(self) -> float:
        """CPU seconds of the server: the postmaster and its children, ended backends included.

        (Each backend is a process group of its own, so ``server_cpu`` by group misses them.)
        """
        postmaster = self.pid()
        total = 0
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(entry.name) == postmaster or int(fields[1]) == postmaster:
                total += sum(int(f) for f in fields[11:15])  # utime, stime, waited-for children
        return total / os.sysconf("SC_CLK_TCK")

    def reset_statements(self, database: str) -> None:
        self.sql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", database)
        self.sql("SELECT pg_stat_statements_reset()", database)

    def top_statements(self, database: str, count: int = 6) -> list[tuple[int, float, float, str]]:
        """The statements the server spent most time on: calls, total ms, mean ms, text."""
        rows = self.sql(
            "SELECT calls, round(total_exec_time::numeric, 1), round(mean_exec_time::numeric, 3),"
            " regexp_replace(left(query, 110), '\\s+', ' ', 'g') FROM pg_stat_statements"
            f" WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '{database}')"
            f" ORDER BY total_exec_time DESC LIMIT {count}",
            database,
        )
        out = []
        for line in rows.splitlines():
            calls, total, mean, text = line.split("\t", 3)
            out.append((int(calls), float(total), float(mean), text))
        return out


def migrate(url: str, env: dict[str, str]) -> None:
    """The schema from the migrations, as the README's Production section creates it."""
    subprocess.run(
        [sys.executable, "-m", "flask", "--app", "scorer", "db", "upgrade"],
        cwd=ROOT,
        env={**env, "DATABASE_URL": url},
        check=True,
        capture_output=True,
    )


# -- the tournament --------------------------------------------------------------


@dataclass
class Night:
    """A tournament with round 1 drawn: its public link, its tables' links, its players."""

    view_token: str
    table_tokens: list[str]
    numbers: list[int]
    seconds: float  # to create it, register the players and draw round 1
    token: str = ""  # the organiser's link (the board)


def fresh_night(pg: Postgres, database: str, tables: int) -> tuple[str, dict[str, str], Night]:
    """A fresh ``database`` migrated with a tournament of ``tables`` tables, round 1 drawn
    (:func:`build_night`): its URL, the environment the app serves it with, the night."""
    url = pg.fresh(database)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SECRET_KEY": secrets.token_hex(32)}
    migrate(url, env)
    return url, env, build_night(url, tables)


def build_night(
    url: str, tables: int, deals: int = 12, rounds_: int = 3, draw: bool = True
) -> Night:
    """``3 × tables`` players checked in from round 1, round 1 drawn (all tables of three;
    ``draw=False``: not yet, no table links)."""
    from scorer import create_app
    from scorer.extensions import db
    from scorer.services.tournaments import rounds, setup
    from scorer.tournament_models import Entrant

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    started = time.perf_counter()
    with app.app_context():
        ruleset = setup.default_ruleset().replace(deals=deals)
        tournament = setup.create_tournament(
            name="Bezirksmeisterschaft", place="Festhalle", ruleset=ruleset, rounds=rounds_
        )
        for number in range(1, 3 * tables + 1):
            tournament.entrants.append(
                Entrant(name=f"Spieler {number}", club=f"Verein {number % 40}", number=number,
                        from_round=1)
            )  # fmt: skip
        db.session.commit()
        drawn = rounds.draw_round(tournament, 1).tables if draw else []
        drawn = sorted(drawn, key=lambda t: t.number)
        night = Night(
            view_token=tournament.view_token,
            table_tokens=[t.match.token for t in drawn],
            numbers=list(range(1, 3 * tables + 1)),
            seconds=time.perf_counter() - started,
            token=tournament.token,
        )
        db.session.remove()
        db.engine.dispose()
    return night


def played_night(url: str, tables: int, rounds_: int = 3) -> str:
    """A tournament of ``3 × tables`` players whose ``rounds_`` rounds of 12 deals are
    played out at every table and closed (``tests/tournament_builders``); its public link."""
    from scorer import create_app
    from scorer.extensions import db
    from scorer.services.tournaments import rounds, setup
    from tests.tournament_builders import play_round

    night = build_night(url, tables, rounds_=rounds_)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        tournament = setup.get_tournament_for_view(night.view_token)
        for number in range(1, rounds_ + 1):
            row = rounds.draw_round(tournament, number)
            play_round(row)
            rounds.close_round(tournament, row)
        db.session.remove()
        db.engine.dispose()
    return night.view_token


def table_totals(url: str, token: str) -> list[tuple[str, int]]:
    """The names and totals of a table's players, from its match's standing."""
    from scorer import create_app, services
    from scorer.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        match = services.get_match(token)
        totals = services.standing(match).totals
        out = [(seat.name, totals[seat.position]) for seat in match.seats]
        db.session.remove()
        db.engine.dispose()
    return out


def table_tokens(url: str, view_token: str) -> list[str]:
    """The links of the current round's tables, by table number."""
    from scorer import create_app
    from scorer.extensions import db
    from scorer.services.tournaments import setup

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        tournament = setup.get_tournament_for_view(view_token)
        tables = sorted(tournament.round_rows[-1].tables, key=lambda t: t.number)
        tokens = [t.match.token for t in tables]
        db.session.remove()
        db.engine.dispose()
    return tokens


def one_hand_each(url: str, view_token: str) -> None:
    """A hand at every table of the current round, through ``scorer.services`` (mid-round)."""
    hands_each(url, view_token, 1)


def hands_each(url: str, view_token: str, hands: int) -> None:
    """``hands`` hands at every table of the current round, through ``scorer.services``."""
    from scorer import create_app
    from scorer.extensions import db
    from scorer.services.tournaments import setup
    from tests.tournament_builders import play_table

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        tournament = setup.get_tournament_for_view(view_token)
        for table in tournament.round_rows[-1].tables:
            play_table(table, hands)
        db.session.remove()
        db.engine.dispose()


Cost = tuple[float, float]
"""Median CPU milliseconds of this process (the database's own work not counted) and
median wall milliseconds."""


def costs(url: str, view_token: str, tokens: list[str], runs: int = 7) -> dict[str, Cost]:
    """What each kind of work costs in process (Flask test client, no network), one at a time.

    ``standings build``: the ranking, progress and seating built from the database
    (what a poll after a change pays once per state and process); ``ranking page``:
    the beamer's whole page with the standings built for it (``PAGE_CACHE`` off);
    the fragments the beamer and a phone get after a change, the standings already
    built (kept); the unchanged poll (304); with ``tokens`` (tables in play), a
    table phone's match page and its hand saved over htmx (each at another table).
    """
    from load import hand

    from scorer import create_app
    from scorer.extensions import db
    from scorer.services.tournaments import setup, standings
    from tests.builders import form_data

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    uncached = create_app({"SQLALCHEMY_DATABASE_URI": url, "PAGE_CACHE": False})
    client, fresh = app.test_client(), uncached.test_client()
    htmx = {"HX-Request": "true"}
    out: dict[str, Cost] = {}

    def measure(name: str, call: Callable[[int], object], prepare: Callable[[int], object]) -> None:
        prepare(0)
        call(0)  # warm: templates compiled, connections open
        cpu, wall = [], []
        for n in range(1, runs + 1):
            prepare(n)
            start, used = time.perf_counter(), time.process_time()
            call(n)
            wall.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - used) * 1000)
        out[name] = (statistics.median(cpu), statistics.median(wall))

    def nothing(_: int) -> None:
        return None

    def build(_: int) -> None:
        with app.app_context():
            standings.build(setup.get_tournament_for_view(view_token))
            db.session.remove()

    def get(path: str, via: Any = client, headers: dict[str, str] | None = None) -> Any:
        def call(_: int) -> None:
            status = via.get(path, headers=headers or {}).status_code
            if status not in (200, 304):
                raise RuntimeError(f"{path}: {status}")

        return call

    measure("standings build", build, nothing)
    measure("ranking page, standings built", get(f"/p/{view_token}", fresh), nothing)
    measure("ranking fragment", get(f"/p/{view_token}/live", headers=htmx), nothing)
    measure("player fragment", get(f"/p/{view_token}/players/1/live", headers=htmx), nothing)
    live = f"/p/{view_token}/live"
    first = client.get(live, headers=htmx).headers
    cached = {"If-None-Match": first["ETag"], "If-Modified-Since": first["Last-Modified"]}
    measure("unchanged poll (304)", get(live, headers={**htmx, **cached}), nothing)

    if not tokens:  # no table plays (a finished tournament)
        with app.app_context():
            db.engine.dispose()
        with uncached.app_context():
            db.engine.dispose()
        return out

    def page(n: int) -> None:
        if client.get(f"/m/{tokens[n]}").status_code != 200:
            raise RuntimeError("match page")

    measure("match page", page, nothing)
    forms: dict[int, dict[str, str]] = {}

    def fill(n: int) -> None:
        token = tokens[runs + 1 + n]
        forms[n] = {**form_data(client.get(f"/m/{token}").get_data(as_text=True), "hand-form")}
        forms[n].update(hand(n))

    def save(n: int) -> None:
        token = tokens[runs + 1 + n]
        if client.post(f"/m/{token}/hands", data=forms[n], headers=htmx).status_code != 200:
            raise RuntimeError("hand saved")

    measure("hand saved", save, fill)
    with app.app_context():
        db.engine.dispose()
    with uncached.app_context():
        db.engine.dispose()
    return out
