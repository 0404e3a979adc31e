"""The tournament online over real sockets: a hosted copy that goes away and comes back.

The hosted copy runs as production does (gunicorn, on the tests' database:
PostgreSQL with ``TEST_DATABASE_URL``), the hall in this process on SQLite with
its pusher in a thread, sending over HTTP as it does in the hall.  A scripted
tournament goes on while the hosted copy is killed and started again at moments
the seeded lot picks; a watcher reads what the hosted page shows all along.
Every state the page showed is one the hall reached, in the hall's order (never
an older one after a newer), and at the end it shows the hall's last state exactly.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import create_engine, select

from scorer.extensions import db
from scorer.models import utcnow
from scorer.online_models import OnlinePage
from scorer.services.online.document import DocumentError, content_digest, document, loads
from scorer.services.online.hall import Pusher, links
from scorer.services.tournaments import money, public_state, setup
from tests.builders import INVITATION, make_app
from tests.online_builders import make_hall
from tests.served import Phone, Server
from tests.tournament_builders import a_hand, drawn, tournament_with

STEPS = 24


@pytest.fixture
def hosted(tmp_path: Path) -> Iterator[tuple[Server, str]]:
    (tmp_path / "hosted-db").mkdir()
    app = make_app(tmp_path / "hosted-db")
    with app.app_context():
        url = db.engine.url.render_as_string(hide_password=False)
        db.session.remove()
        db.engine.dispose()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "SECRET_KEY": "hosted-secret",
        "ONLINE_INVITATIONS": INVITATION,
    }
    env.pop("TEST_DATABASE_URL", None)
    server = Server(env, tmp_path / "hosted.log", threads=4)
    server.start()
    yield server, url
    server.stop()


def make_page(server: Server) -> tuple[str, str]:
    import re
    from html import unescape

    from tests.builders import csrf_token_from

    phone = Phone(server.port)
    _, html = phone.request("GET", "/online/new")
    status, _ = phone.request(
        "POST",
        "/online/new",
        {
            "name": "Herbstturnier",
            "invitation": INVITATION,
            "csrf_token": csrf_token_from(html),
        },
    )
    assert status == 303
    page = phone.last_location
    _, admin = phone.request("GET", page)
    line = unescape(re.search(r'id="line" class="copy-line" value="([^"]+)"', admin).group(1))
    public = re.search(r'id="public-link">[^<]*/o/([^<]+)<', admin).group(1)
    return line, public


def hall_digest(app: Flask, token: str) -> str:
    """What the hall's public side shows now, as the pusher would send it."""
    with app.app_context():
        tournament = setup.get_tournament(token)
        built = public_state.build(tournament.id)
        assert built is not None
        doc = document(
            built.standings, money.prize_list(tournament, built.standings), None, utcnow(), "UTC"
        )
        db.session.remove()
        return content_digest(doc)


def test_the_hosted_page_follows_the_hall_through_cuts(
    tmp_path: Path, hosted: tuple[Server, str]
) -> None:
    server, url = hosted
    line, public = make_page(server)
    hall = make_hall(tmp_path / "hall")
    with hall.app_context():
        tournament = tournament_with(9, deals=12)
        row = drawn(tournament)
        token, tables = tournament.token, [t.id for t in row.tables]
        db.session.remove()
    assert hall.test_client().post(f"/t/{token}/online", data={"line": line}).status_code == 303

    stop = threading.Event()

    def pushing() -> None:
        pusher = Pusher(zone="UTC")
        while not stop.is_set():
            with hall.app_context():
                for found in links():
                    pusher.push(found)
                db.session.remove()
            time.sleep(0.05)

    seen: list[str] = []
    engine = create_engine(url)

    def watching() -> None:
        while not stop.is_set():
            try:
                with engine.connect() as connection:
                    data = connection.execute(select(OnlinePage.data)).scalar_one_or_none()
            except Exception:  # the database is there; the read may meet a restart's moment
                data = None
            if data is not None:
                try:
                    digest = content_digest(loads(data))
                except DocumentError:
                    digest = "junk"
                if not seen or seen[-1] != digest:
                    seen.append(digest)
            time.sleep(0.02)

    workers = [threading.Thread(target=pushing), threading.Thread(target=watching)]
    for worker in workers:
        worker.start()
    states = [hall_digest(hall, token)]
    lot = random.Random(31)
    try:
        for step in range(STEPS):
            with hall.app_context():
                from scorer.tournament_models import TournamentTable

                table = db.session.get_one(TournamentTable, tables[step % len(tables)])
                from scorer import services

                services.save_hand(table.match, a_hand(table.match, declarer=step % 3))
                db.session.remove()
            states.append(hall_digest(hall, token))
            if lot.random() < 0.3 and server.process is not None:
                server.kill()  # the connection drops, a push perhaps in the middle
            elif server.process is None and lot.random() < 0.6:
                server.start(port=server.port)
            time.sleep(lot.uniform(0.0, 0.3))
        if server.process is None:
            server.start(port=server.port)
        deadline = time.monotonic() + 60
        while (not seen or seen[-1] != states[-1]) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        for worker in workers:
            worker.join(30)
        engine.dispose()
    assert "junk" not in seen
    order = [states.index(digest) for digest in seen]  # every state shown is one of the hall's
    assert order == sorted(order), order  # in the hall's order, never an older after a newer
    assert seen[-1] == states[-1]  # and at the end exactly the hall's last
    # the public page shows it, with the hall's time
    status, html = Phone(server.port).request("GET", f"/o/{public}")
    assert status == 200 and "aus der Halle" in html
