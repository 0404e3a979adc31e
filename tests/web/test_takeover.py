"""The evening survives its laptop: the hall's server is killed mid-round, another laptop
takes over, and no deal a table was told was saved is lost (issue 35, "How it is checked").

Each run: the hall serves the second evening of a series (the first played and closed: the
draw counts its tables), put online on a hosted copy; it serves round 1 of four tables
(gunicorn, two workers, its own database); four table phones
(:class:`tests.phones.TablePhone`, the protocol of the phone's page) play their deals at
once, and the organiser downloads the tournament's backup now and then. At a moment the
run's seed picks — after the k-th save a phone was told was saved, plus a few milliseconds,
while the other tables' saves are on their way — the hall's process group is killed with
SIGKILL. A second laptop takes over on the same address or another (:data:`TAKEOVERS`: a
server restored from the last backup the organiser downloaded; the spare laptop that
followed the hall live, paired through the two laptops' pages, its follower killed with the
hall, taken over with the spare's tap), and the phones go on: they ask the new laptop what
it holds, send again what it lacks (in order, each with its key and place) and play their
remaining deals.  Then, on the second laptop's database:

* every deal a phone played is there exactly once, in the order it was played, as it
  was entered — so none a phone was told was saved is lost, and none is stored twice;
* round 1 closes, round 2 is drawn and the series ranking stands exactly as on a laptop
  that never died (the fixture ``evening``: the same deals entered on one laptop, closed,
  drawn);
* the hosted copy takes the second laptop's push (a new generation) and refuses the dead
  one's ("taken over").

20 runs per database and way of taking over, the moment of the kill and of the backups
seeded.  A way of taking over is an entry of :data:`TAKEOVERS`: ``prepare`` runs before
the hall plays (start the spare, pair it, wait until it holds the evening),
``take_over`` after the kill (tap "take over", or restore a file) and returns the
server that serves now.
"""

from __future__ import annotations

import http.client
import os
import random
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html import escape, unescape
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

from scorer import services
from scorer.extensions import db
from scorer.forms.witness import entry_of
from scorer.models import Hand
from scorer.services.backup_format import dumps
from scorer.services.online import hall as online
from scorer.services.tournaments import entrants, rounds, series, series_people, setup
from scorer.services.tournaments.backup import export_tournament, restore
from scorer.tournament_models import Tournament
from tests.builders import csrf_token_from, make_app
from tests.laptops import database_url
from tests.online_builders import Wire, make_page
from tests.phones import Http, TablePhone
from tests.served import ROOT, Server
from tests.tournament_builders import drawn, play_round, tournament_with

RUNS = 20
PLAYERS = 12  # four tables of three
DEALS = 6
TRICKS = ((130, 60, 60), (140, 60, 50), (120, 70, 60), (160, 50, 40))
WAIT = 60  # seconds: only reached when something hangs (the test fails then)


def planned(table: int, deal: int) -> dict[str, Any]:
    """The ``deal``-th hand (0-based) of ``table``, the same in every run."""
    declarer = deal % 3
    tricks = TRICKS[(deal + table) % len(TRICKS)]
    order = [declarer, (declarer + 1) % 3, (declarer + 2) % 3]
    points: list[int | None] = [None, None, None]
    for seat, value in zip(order, tricks, strict=True):
        points[seat] = value
    points[order[2]] = None  # the last one left empty: filled in from the trick total
    melds = [0, 0, 0]
    melds[declarer] = 100
    melds[(declarer + 1) % 3] = 20 if deal % 2 else 0
    return {
        "declarer": declarer,
        "bid": 150 + 10 * ((deal + table) % 6),
        "trump": "EGHS"[(deal + table) % 4],
        "outcome": "played",
        "melds": melds,
        "tricks": points,
    }


def fields(hand: dict[str, Any]) -> list[tuple[str, str]]:
    """A planned hand as the hand form's fields."""
    out = [(k, str(hand[k])) for k in ("declarer", "bid", "trump", "outcome")]
    for i, value in enumerate(hand["melds"]):
        out.append((f"parties-{i}-melds", str(value) if value else ""))
    for i, value in enumerate(hand["tricks"]):
        out.append((f"parties-{i}-tricks", "" if value is None else str(value)))
    return out


# -- the evening, the same every run ----------------------------------------------------------


@dataclass(frozen=True)
class Evening:
    """Round 1 drawn, no deal played: the file every hall starts from, and round 2 as a
    laptop that never died draws it (start numbers per table)."""

    file: str
    token: str
    name: str
    links: tuple[str, ...]
    round_two: tuple[tuple[int, ...], ...]
    ranking: tuple[tuple[Any, ...], ...]


def seats(row: Any, tournament: Tournament) -> tuple[tuple[int, ...], ...]:
    numbers = {e.id: e.number or 0 for e in tournament.entrants}
    return tuple(tuple(numbers[p] for p in table.players) for table in row.tables)


def play_planned(tournament: Tournament) -> None:
    """Every table's planned deals, entered through the hand form's reading."""
    for number, table in enumerate(tournament.round_rows[0].tables):
        match = table.match
        for deal in range(DEALS):
            sheet = services.standing(match)
            entry = entry_of(fields(planned(number, deal)), sheet.ruleset, sheet.parties)
            assert entry is not None
            services.save_hand(match, entry)


def close_and_draw(tournament: Tournament) -> tuple[tuple[int, ...], ...]:
    rounds.close_round(tournament, tournament.round_rows[0])
    return seats(rounds.draw_round(tournament, 2), tournament)


def ranking(tournament: Tournament) -> tuple[tuple[Any, ...], ...]:
    """The series ranking: each person's place, points per evening and total."""
    assert tournament.series is not None
    lines = series.series_standings(tournament.series).lines
    return tuple((line.name, line.place, line.evenings, line.total) for line in lines)


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Evening:
    """The second evening of a series (the first played and closed: the draw counts its
    tables), its file, and round 2 and the series ranking as on a laptop that never died
    (the reference)."""
    folder = tmp_path_factory.mktemp("evening")
    app = make_app(folder, SQLALCHEMY_DATABASE_URI=database_url(folder, "reference"))
    with app.test_request_context("/"):
        first = tournament_with(PLAYERS, deals=DEALS, rounds_=2, name="Nachtcup")
        for number in (1, 2):
            row = drawn(first, number)
            play_round(row)
            rounds.close_round(first, row)
        tournament = series.new_evening(series.create_series(first), idempotency_key="abend-2")
        series_people.register_people(tournament)
        entrants.check_in_all(tournament)
        tournament.seed = "5eed1e55"
        db.session.commit()
        row = drawn(tournament)
        file = dumps(export_tournament(tournament))
        links = tuple(table.match.token for table in row.tables)
        play_planned(tournament)
        round_two = close_and_draw(tournament)
        found = Evening(
            file, tournament.token, tournament.name, links, round_two, ranking(tournament)
        )
        db.session.remove()
        db.engine.dispose()
    return found


# -- a run ----------------------------------------------------------------------------------


@dataclass
class Run:
    """One evening's run: the hall, the phones, the organiser's last file, the kill."""

    tmp_path: Path
    evening: Evening
    rng: random.Random
    env: dict[str, str]
    port: int = 0
    told: int = 0
    files: list[str] = field(default_factory=list)
    killed: threading.Event = field(default_factory=threading.Event)
    taken_over: threading.Event = field(default_factory=threading.Event)
    lock: threading.Condition = field(default_factory=threading.Condition)
    errors: list[BaseException] = field(default_factory=list)
    phones: dict[int, TablePhone] = field(default_factory=dict)
    lost_answers: int = 0
    # every server the run starts (stopped at its end, whatever happened)
    servers: list[Server] = field(default_factory=list)
    # processes beside the hall on its laptop (killed with it)
    beside: list[subprocess.Popen[bytes]] = field(default_factory=list)
    spare: Server | None = None
    # apps of this process on the run's databases (their connections closed at its end)
    apps: list[Flask] = field(default_factory=list)

    def laptop(self, name: str, url: str) -> Server:
        env = {**self.env, "DATABASE_URL": url, "SECRET_KEY": f"the-{name}-laptop"}
        server = Server(env, self.tmp_path / f"{name}.log", threads=4, preload=True)
        # its own address in its links (the pairing line), as python -m scorer.hall sets it
        env["PUBLIC_URL"] = f"http://127.0.0.1:{server.port}"
        self.servers.append(server)
        return server

    def saved(self) -> None:
        with self.lock:
            self.told += 1
            self.lock.notify_all()


def laptop_database(run: Run, name: str, file: str) -> str:
    """A database called ``name`` with ``file`` restored in it; its URL."""
    url = database_url(run.tmp_path, name)
    app = make_app(run.tmp_path / f"{name}-instance", SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        assert restore(file).tournament is not None
        db.session.remove()
        db.engine.dispose()
    return url


@dataclass(frozen=True)
class Takeover:
    """How a second laptop takes over: ``prepare`` before the hall plays (a spare that
    follows it: ``run.laptop`` makes its server, ``run.env`` and ``run.tmp_path`` are
    there), ``take_over`` once it is dead — the server that serves now and the URL of
    its database.  It serves on the hall's address (``run.port``) as a spare that opens
    the same hotspot does; one on another port is where the phones go next (the test's
    stand-in for the address the phones were told beforehand)."""

    prepare: Callable[[Run], None]
    take_over: Callable[[Run], tuple[Server, str]]


def _nothing(run: Run) -> None:
    return None


def _restore_last_file(run: Run) -> tuple[Server, str]:
    """The README's way without a spare: install, "Turnier aus Sicherung laden" with the
    last file the organiser downloaded, serve on the hall's address."""
    url = laptop_database(run, "spare", run.files[-1])
    server = run.laptop("spare", url)
    server.env["PUBLIC_URL"] = f"http://127.0.0.1:{run.port}"
    server.start(port=run.port)
    return server, url


def _own_page(line: Http, path: str) -> str:
    """A page of the laptop's own browser (the spare's pages answer to it alone): its form
    token."""
    status, page = line("GET", path)
    assert status == 200, (path, status, page[:2000])
    return csrf_token_from(page)


def _pair_a_spare(run: Run) -> None:
    """The spare laptop of issue 35 §1: an empty database served beside the hall, paired
    through the two laptops' pages (the hall's line typed on the spare's), and the hall's
    follower (``python -m scorer.follow``) pushing to it from the start — killed with the
    hall, as everything on a laptop that dies."""
    url = database_url(run.tmp_path, "spare")
    app = make_app(run.tmp_path / "spare-instance", SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    spare = run.laptop("spare", url)
    spare.start(spare.port)
    organiser = Http(run.port)
    status, _ = organiser("POST", "/hall/code", [("csrf_token", _own_page(organiser, "/hall"))])
    assert status == 303
    found = re.search(r'id="pair-line" class="t-url" value="([^"]+)"', organiser("GET", "/hall")[1])
    assert found, "no pairing line on the hall's page"
    on_spare = Http(spare.port)
    token = _own_page(on_spare, "/spare")
    status, page = on_spare(
        "POST", "/spare/follow", [("csrf_token", token), ("line", unescape(found.group(1)))]
    )
    assert status == 303, re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))[-1500:]
    follower = {
        **run.env,
        "DATABASE_URL": database_url(run.tmp_path, "hall", fresh=False),
        "PUBLIC_URL": f"http://127.0.0.1:{run.port}",
    }
    with (run.tmp_path / "follow.log").open("ab") as log:
        run.beside.append(
            subprocess.Popen(
                [str(ROOT / ".venv" / "bin" / "python"), "-m", "scorer.follow"],
                cwd=ROOT,
                env=follower,
                stdout=log,
                stderr=log,
            )
        )
    run.spare = spare
    # the evening is on the spare before its first deal (the organiser pairs before the round)
    deadline = time.monotonic() + WAIT
    while escape(run.evening.name) not in on_spare("GET", "/spare/status")[1]:
        assert time.monotonic() < deadline, (run.tmp_path / "follow.log").read_text()[-3000:]
        time.sleep(0.2)


def _take_over_live(run: Run) -> tuple[Server, str]:
    """The organiser's one tap on the spare's page "Jetzt übernehmen" (asked again, since
    the hall was heard from a moment ago: "Trotzdem übernehmen"); the spare serves now."""
    spare = run.spare
    assert spare is not None
    on_spare = Http(spare.port)
    token = _own_page(on_spare, "/spare")
    status, page = on_spare("POST", "/spare/takeover", [("csrf_token", token), ("sure", "1")])
    assert status == 303, page[:2000]
    return spare, database_url(run.tmp_path, "spare", fresh=False)


TAKEOVERS = {
    "restored-from-last-file": Takeover(_nothing, _restore_last_file),
    "live-spare": Takeover(_pair_a_spare, _take_over_live),
}


def put_online(run: Run, url: str) -> Flask:
    """The evening put online on a hosted copy (its page made through its form, the line
    carried to the hall's database, a first push sent): the hosted copy's app."""
    hosted = make_app(
        run.tmp_path / "hosted", SQLALCHEMY_DATABASE_URI=database_url(run.tmp_path, "hosted")
    )
    run.apps.append(hosted)
    line, _page = make_page(hosted, run.evening.name)
    assert pushes(run, url, hosted, line) == ["sent"]
    return hosted


def pushes(run: Run, url: str, hosted: Flask, line: str = "") -> list[str]:
    """A round of the pusher on the laptop of database ``url`` (``line``: linked first)."""
    app = make_app(run.tmp_path / "pusher", SQLALCHEMY_DATABASE_URI=url)
    with app.test_request_context("/"):
        if line:
            online.link(setup.get_tournament(run.evening.token), line)
        pusher = online.Pusher(post=Wire(hosted))
        outcomes = [pusher.push(row) for row in online.links()]
        db.session.remove()
        db.engine.dispose()
    return outcomes


def table_phone(run: Run, link: str, table: int) -> None:
    """One table's phone: plays its deals, keeps them, and goes on with whichever laptop
    serves now — the page's protocol (``static/scorer.js``, ``static/witness.js``).

    As on the page, a deal is saved with the form of the page last loaded: a page of the
    dead laptop is refused by the new one (its form token, or its version), and no
    connection at all keeps the deal as sent.  Either way the phone asks the laptop
    what it holds and sends what it lacks before it loads the page again.
    """
    line = Http(run.port)
    phone = TablePhone(line, link)
    lost = True  # (the first round: ask, then load the page)
    try:
        while True:
            if run.killed.is_set() and not run.taken_over.is_set():
                assert run.taken_over.wait(WAIT), "no laptop took over"
            try:
                if lost:
                    line.port = run.port  # the laptop that serves now
                    answer = phone.sync()
                    assert answer["status"] == 200, answer
                    assert phone.load() == 200
                    lost = False
                if len(phone.kept) >= DEALS:
                    break
                status = phone.save(**planned(table, len(phone.kept)))
                if status == 303:
                    run.saved()
                    assert phone.load() == 200
                else:
                    # another laptop refuses the dead one's page: ask, then load it again
                    assert status in (400, 409) and run.killed.is_set(), status
                    lost = True
            except (OSError, http.client.HTTPException):
                lost = True  # no answer: what was sent stays kept, the phone asks again
                run.lost_answers += 1
                if not run.killed.is_set():
                    time.sleep(0.2)
        # the round is played, and the page stays open: it asks whichever laptop serves
        # at the end (after the takeover) and sends what it lacks
        assert run.taken_over.wait(WAIT), "no laptop took over"
        line.port = run.port
        for _attempt in range(3):
            try:
                answer = phone.sync()
            except (OSError, http.client.HTTPException):
                continue  # (a phone that met the dying hall: once more)
            assert answer["status"] == 200, answer
            if answer.get("stored", 0) == 0:
                break
        status, held = phone.held()
        assert status == 200 and {key for _s, key, _x in held["hands"]} >= {
            d.key for d in phone.kept
        }, (held, phone.kept)
        run.phones[table] = phone
    except BaseException as exc:
        run.errors.append(exc)
        with run.lock:
            run.lock.notify_all()


def wait_for(run: Run, told: int) -> None:
    deadline = time.monotonic() + WAIT
    with run.lock:
        while run.told < told and not run.errors:
            left = deadline - time.monotonic()
            assert left > 0, f"the tables stopped at {run.told} saves"
            run.lock.wait(left)
    assert not run.errors, run.errors


def download(run: Run) -> None:
    """The organiser's "Sicherung herunterladen" on the hall."""
    status, text = Http(run.port)("GET", f"/t/{run.evening.token}/backup.json")
    assert status == 200
    run.files.append(text)


@pytest.fixture
def env() -> dict[str, str]:
    served = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": str(ROOT),
        "TIMEZONE": "Europe/Berlin",
        "HALL": "1",  # each laptop as python -m scorer.hall serves it (the spare's pages)
    }
    served.pop("TEST_DATABASE_URL", None)
    return served


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        if server.process is not None:
            server.stop()


@pytest.mark.parametrize("takeover", list(TAKEOVERS))
@pytest.mark.parametrize("seed", range(RUNS))
def test_the_hall_dies_mid_round_and_no_deal_a_table_was_told_was_saved_is_lost(
    tmp_path: Path,
    evening: Evening,
    env: dict[str, str],
    servers: list[Server],
    seed: int,
    takeover: str,
    request: pytest.FixtureRequest,
) -> None:
    how = TAKEOVERS[takeover]
    run = Run(tmp_path, evening, random.Random(seed), env, servers=servers)

    def end_beside() -> None:
        for process in run.beside:
            if process.poll() is None:
                process.kill()
                process.wait()
        for app in run.apps:
            with app.app_context():
                db.session.remove()
                db.engine.dispose()

    request.addfinalizer(end_beside)
    hall = run.laptop("hall", laptop_database(run, "hall", evening.file))
    hall.start(hall.port)
    run.port = hall.port
    hall_url = database_url(tmp_path, "hall", fresh=False)
    hosted = put_online(run, hall_url)
    how.prepare(run)
    download(run)  # before the first deal
    total = len(evening.links) * DEALS
    kill_at = run.rng.randint(1, total - 2)
    files_at = sorted(run.rng.sample(range(1, kill_at + 1), min(2, kill_at)))
    phones = [
        threading.Thread(target=table_phone, args=(run, link, table), daemon=True)
        for table, link in enumerate(evening.links)
    ]
    for thread in phones:
        thread.start()
    for told in files_at:
        wait_for(run, told)
        download(run)
    wait_for(run, kill_at)
    time.sleep(run.rng.uniform(0, 0.03))  # somewhere in the saves on their way
    run.killed.set()  # (first: a phone that meets the dead hall knows it is dead)
    hall.kill()
    for process in run.beside:  # the laptop dies whole
        process.kill()
        process.wait()
    server, url = how.take_over(run)
    run.port = server.port
    run.taken_over.set()
    for thread in phones:
        thread.join(WAIT)
        assert not thread.is_alive(), "a table's phone hangs"
    assert not run.errors, run.errors
    server.stop()
    check_second_laptop(tmp_path, url, evening, run.phones)
    # the hosted copy follows the second laptop (a new generation) and refuses the dead one
    assert pushes(run, url, hosted) == ["sent"]
    assert pushes(run, hall_url, hosted) == ["stopped"]


def check_second_laptop(
    tmp_path: Path, url: str, evening: Evening, phones: dict[int, TablePhone]
) -> None:
    app: Flask = make_app(tmp_path / "check", SQLALCHEMY_DATABASE_URI=url)
    with app.test_request_context("/"):
        tournament = setup.get_tournament(evening.token)
        for number, table in enumerate(tournament.round_rows[0].tables):
            phone = phones[number]
            hands = list(
                db.session.execute(
                    select(Hand).where(Hand.match_id == table.match_id).order_by(Hand.seq)
                ).scalars()
            )
            # every deal the phone played, once each, in order: none lost, none twice
            assert [h.idempotency_key for h in hands] == [d.key for d in phone.kept]
            assert [h.seq for h in hands] == list(range(1, DEALS + 1))
            assert all(h.deleted_at is None for h in hands)
            for deal, hand in enumerate(hands):
                wanted = planned(number, deal)
                entered = services.input_of(hand)
                assert (entered.declarer, entered.bid, entered.trump) == (
                    wanted["declarer"],
                    wanted["bid"],
                    wanted["trump"],
                )
                assert list(entered.melds) == wanted["melds"]
                assert sorted(t or 0 for t in entered.tricks) == sorted(
                    TRICKS[(deal + number) % len(TRICKS)]
                )
        assert close_and_draw(tournament) == evening.round_two
        assert ranking(tournament) == evening.ranking
        db.session.remove()
        db.engine.dispose()
