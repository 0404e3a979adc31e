"""The spare laptop in the browser: paired with one line, following, taken over with one tap.

Two laptops served over HTTP on this machine's loopback: the hall on 127.0.0.1,
the spare on 127.0.0.2 (each a server of its own, each its own database); the
hall's follower pushes to the spare over real HTTP in a thread.  The organiser
pairs them through the two pages, watches the spare hold the evening, the hall
dies, the spare takes over (asking first: the hall was heard from a moment ago)
and says the cards' address is not its own (another port here) and what to do;
the old laptop, back, says it was replaced and refuses the table's deal.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from werkzeug.serving import make_server

from scorer.extensions import db
from scorer.pdf import preload as preload_pdf
from scorer.services.spare import takeover
from scorer.services.spare.feed import Feed
from scorer.services.wire import post
from tests.e2e.conftest import TIMEOUT_MS, Line, fits_width, no_axe_violations
from tests.spare_builders import laptop
from tests.tournament_builders import drawn, play_round, tournament_with

pytestmark = pytest.mark.e2e


class Served:
    """An app served on ``host`` (a free port) in a thread, until ``stop``."""

    def __init__(self, app: Any, host: str) -> None:
        self.app = app
        self.server = make_server(host, 0, Line(app), threaded=True)
        self.url = f"http://{host}:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


class Follower:
    """The hall's follower in a thread: a round every few tenths of a second, until stopped."""

    def __init__(self, app: Any, cards: str) -> None:
        self.app = app
        self.feed = Feed(cards=cards, send=lambda url, body, headers: post(url, body, headers, 5))
        self.halt = threading.Event()
        self.stopped = threading.Event()  # it heard that the spare took over
        self.outcomes: list[str] = []
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.halt.is_set():
            with self.app.app_context():
                try:
                    self.outcomes.append(self.feed.round())
                finally:
                    db.session.remove()
            if self.outcomes[-1] == "stopped":
                self.stopped.set()
            self.halt.wait(0.3)

    def stop(self) -> None:
        self.halt.set()
        self.thread.join(timeout=10)


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[Served, Served]]:
    preload_pdf()
    hall_app = laptop(tmp_path / "hall", "hall", "http://127.0.0.1:0", WTF_CSRF_ENABLED=True)
    spare_app = laptop(tmp_path / "spare", "spare", "http://127.0.0.2:0", WTF_CSRF_ENABLED=True)
    hall, spare = Served(hall_app, "127.0.0.1"), Served(spare_app, "127.0.0.2")
    # each laptop's own address, as python -m scorer.hall sets it
    hall_app.config["PUBLIC_URL"], spare_app.config["PUBLIC_URL"] = hall.url, spare.url
    with hall_app.app_context():
        tournament = tournament_with(9, deals=3, rounds_=2)
        play_round(drawn(tournament, 1), hands=2)
        db.session.remove()
    yield hall, spare
    for served in (hall, spare):
        if served.thread.is_alive():
            served.stop()
        with served.app.app_context():
            db.session.remove()
            db.engine.dispose()


def test_a_spare_follows_and_takes_over_with_one_tap(
    two: tuple[Served, Served], make_page: Any, shot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    hall, spare = two
    # the hall counts as heard from "a moment ago" however long this busy machine takes
    # between its death and the tap (the app's ten seconds, made independent of its speed):
    # the takeover asks first
    monkeypatch.setattr(takeover, "ALIVE", timedelta(hours=1))
    organiser = make_page(base_url=hall.url)
    organiser.goto("/")
    organiser.get_by_role("link", name="Ersatz-Laptop und Sicherungsordner").click()
    organiser.get_by_role("button", name="Ersatz-Laptop koppeln").click()
    line = organiser.locator("#pair-line").input_value()
    assert line.startswith(hall.url + "/hall#")
    assert fits_width(organiser)
    no_axe_violations(organiser, "the hall's page")
    shot(organiser, "spare-hall-page")

    laptop_two = make_page(base_url=spare.url)
    laptop_two.goto("/spare")
    no_axe_violations(laptop_two, "the spare's page, not paired")
    laptop_two.get_by_label("Kopplungszeile der Halle").fill(line[:-4])  # cut short
    laptop_two.get_by_role("button", name="Der Halle folgen").click()
    expect(laptop_two.locator("#pair-form .errors")).to_contain_text("16 Buchstaben")
    expect(laptop_two.get_by_label("Kopplungszeile der Halle")).to_have_value(line[:-4])
    laptop_two.get_by_label("Kopplungszeile der Halle").fill(line)
    laptop_two.get_by_role("button", name="Der Halle folgen").click()
    expect(laptop_two.locator(".flash-ok")).to_contain_text("Dieser Laptop folgt jetzt der Halle")

    follower = Follower(hall.app, hall.url)
    try:
        # the page asks again every few seconds: the evening arrives by itself
        expect(laptop_two.locator("#holds")).to_contain_text(
            "Herbstturnier", timeout=3 * TIMEOUT_MS
        )
        expect(laptop_two.locator("#holds")).to_contain_text("6 Spiele")
        expect(laptop_two.locator("#behind")).to_contain_text("Stand der Halle")
        expect(laptop_two.locator("#laptop-note")).to_contain_text("Ersatz-Laptop")
        organiser.reload()
        expect(organiser.locator("#spare-state")).to_contain_text(
            "auf dem neuesten Stand", timeout=3 * TIMEOUT_MS
        )
        assert fits_width(laptop_two)
        no_axe_violations(laptop_two, "the spare's page, following")
        shot(laptop_two, "spare-following")
    finally:
        follower.stop()
    organiser.close()  # (its page would ask a dead laptop: a console error)
    hall.stop()  # the hall's laptop dies

    laptop_two.get_by_role("button", name="Jetzt übernehmen").click()
    expect(laptop_two.locator("#takeover-ask")).to_contain_text("scheint zu laufen")
    laptop_two.get_by_role("button", name="Trotzdem übernehmen").click()
    expect(laptop_two.locator(".flash-ok")).to_contain_text("Dieser Laptop ist jetzt die Halle")
    # the cards carry the old laptop's address and port: not this one's, and it says what to do
    expect(laptop_two.locator("#address-problem")).to_contain_text(
        f"Die Tischkarten führen zu {hall.url}"
    )
    expect(laptop_two.locator("#address-problem")).to_contain_text("mit PORT=")
    expect(laptop_two.locator("#laptop-note")).to_have_count(0)
    assert fits_width(laptop_two)
    no_axe_violations(laptop_two, "the spare after the takeover")
    shot(laptop_two, "spare-taken-over")

    # the old laptop comes back: its first contact tells it, its pages say so
    back = Follower(hall.app, hall.url)
    try:
        assert back.stopped.wait(60), back.outcomes
    finally:
        back.stop()
    again = Served(hall.app, "127.0.0.1")
    try:
        old = make_page(base_url=again.url)
        old.goto("/")
        expect(old.locator("#laptop-note")).to_contain_text("nicht mehr die Halle")
        assert fits_width(old)
        shot(old, "spare-old-hall")
    finally:
        again.stop()
