"""Two laptops for the tests of the spare: a hall and a spare, each on a database of its own.

On SQLite each gets a file of its own; with ``TEST_DATABASE_URL`` (PostgreSQL) each
a schema of its own (``<worker's schema>`` and ``<worker's schema>_spare``), so the
same tests run on both.  :class:`Wire` carries one laptop's requests to the other's
test client, and can be cut (a laptop gone: kill -9, a flat battery).

The interface for other tests (the phones' takeover tests use it too):

``two_laptops(tmp_path)``  a :class:`Laptops` (``hall``, ``spare``: apps; ``wire``)
``pair(laptops)``           the spare follows the hall (through their pages)
``follow(laptops)``         one round of the hall's follower (pushes what changed)
``take_over(laptops)``      the spare's one tap
``documents(app)``          every tournament's and series' backup document, by token
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask
from sqlalchemy import select

from scorer.extensions import db
from scorer.services import trouble
from scorer.services.spare.feed import Feed
from scorer.services.tournaments import backup, published
from scorer.services.wire import Answer, Unreachable
from scorer.tournament_models import Series, Tournament
from tests.builders import make_app
from tests.laptops import database_url

HALL_ADDRESS = "http://127.0.0.1:5000"
SPARE_ADDRESS = "http://127.0.0.2:5000"


def laptop(folder: Path, name: str, address: str, **config: Any) -> Flask:
    """A laptop: the app on a database of its own, as ``python -m scorer.hall`` runs it."""
    folder.mkdir(parents=True, exist_ok=True)
    app = make_app(
        folder,
        SQLALCHEMY_DATABASE_URI=database_url(folder, name),
        HALL=True,
        PUBLIC_URL=address,
        WORK_SLOT_DIR=str(folder / "work-slots"),
        **config,
    )
    published.forget()
    return app


@dataclass
class Wire:
    """The network between the laptops: a request goes to the test client of the laptop
    its address names; ``cut`` (a set of addresses) drops them."""

    laptops: dict[str, Flask]
    cut: set[str] = field(default_factory=set)
    sent: list[tuple[str, int]] = field(default_factory=list)

    def __call__(self, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        parts = urlsplit(url)
        where = f"{parts.scheme}://{parts.netloc}"
        if where in self.cut or where not in self.laptops:
            raise Unreachable(trouble.NO_NETWORK)
        client = self.laptops[where].test_client()
        response = client.post(
            parts.path,
            data=body,
            headers=headers,
            environ_base={"REMOTE_ADDR": "192.0.2.9"},  # another laptop, not this one
        )
        self.sent.append((parts.path, response.status_code))
        raw = response.get_data()
        return Answer(
            response.status_code,
            response.get_json(silent=True) or {},
            dict(response.headers),
            raw,
        )


@dataclass
class Laptops:
    hall: Flask
    spare: Flask
    wire: Wire
    feed: Feed


@contextmanager
def two_laptops(tmp_path: Path, **config: Any) -> Iterator[Laptops]:
    """A hall and a spare (not paired yet), and the wire between them."""
    hall = laptop(tmp_path / "hall", "hall", HALL_ADDRESS, **config)
    spare = laptop(tmp_path / "spare", "spare", SPARE_ADDRESS, **config)
    wire = Wire({HALL_ADDRESS: hall, SPARE_ADDRESS: spare})
    try:
        yield Laptops(hall, spare, wire, Feed(cards=HALL_ADDRESS, send=wire))
    finally:
        for app in (hall, spare):
            with app.app_context():
                db.session.remove()
                db.engine.dispose()


def pairing_line(hall: Flask) -> str:
    """The line the hall's page shows after "Pair a spare laptop"."""
    client = hall.test_client()
    assert client.post("/hall/code").status_code == 303
    page = client.get("/hall").get_data(as_text=True)
    found = re.search(r'id="pair-line" class="t-url" value="([^"]+)"', page)
    assert found, page[:3000]
    return unescape(found.group(1))


def pair(laptops: Laptops) -> None:
    """The spare follows the hall: the hall's line typed into the spare's page."""
    from scorer.services.spare import pairing

    line = pairing_line(laptops.hall)
    original = pairing.post
    pairing.post = laptops.wire  # the spare's page reaches the hall over the wire
    try:
        answer = laptops.spare.test_client().post("/spare/follow", data={"line": line})
    finally:
        pairing.post = original
    assert answer.status_code == 303, answer.get_data(as_text=True)[:3000]


def follow(laptops: Laptops, rounds: int = 1) -> list[str]:
    """Rounds of the hall's follower; what each came to."""
    outcomes = []
    with laptops.hall.app_context():
        for _ in range(rounds):
            outcomes.append(laptops.feed.round())
            db.session.remove()
    return outcomes


def follow_until_same(laptops: Laptops, most: int = 20) -> None:
    """Rounds until the follower has nothing left to send (a whole hall may take several)."""
    for _ in range(most):
        # no heartbeat due, however slow the round: only what changed goes
        laptops.feed.contacted = time.monotonic() + 3600
        outcome = follow(laptops)[0]
        if outcome == "same":
            return
        assert outcome == "sent", (outcome, laptops.wire.sent[-3:])
    raise AssertionError("the follower kept sending")


def take_over(laptops: Laptops) -> Any:
    client = laptops.spare.test_client()
    answer = client.post("/spare/takeover", data={"sure": "1"})
    assert answer.status_code == 303, answer.get_data(as_text=True)[:3000]
    return answer


def documents(app: Flask) -> dict[str, dict[str, Any]]:
    """Every series' and tournament's backup document on ``app``, by organiser token, without
    the moment it was made."""
    out: dict[str, dict[str, Any]] = {}
    with app.test_request_context("/"):
        for series in db.session.execute(select(Series)).scalars():
            data = backup.export_series(series)
            data.pop("exported_at")
            out[series.token] = data
        for tournament in db.session.execute(select(Tournament)).scalars():
            data = backup.export_tournament(tournament)
            data.pop("exported_at")
            out[tournament.token] = data
        db.session.remove()
    return out
