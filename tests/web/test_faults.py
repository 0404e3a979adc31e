"""No lost and no doubled hands: repeated forms, two phones, a server killed mid-stream.

The last test runs the app as it runs in production — gunicorn on 127.0.0.1, an
SQLite file in WAL mode — streams hands to it over HTTP, kills it with SIGKILL,
starts it again and checks that every hand the server acknowledged is there and
that the database is consistent.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event, func, select, text
from sqlalchemy.engine import Engine

from scorer import create_app, services
from scorer.extensions import db
from scorer.models import Hand, HandEvent, Match
from scorer.rules import PRESETS
from tests.builders import (
    HX,
    PG_URL,
    csrf_token_from,
    fill_hand,
    form_data,
    hand_data,
    hand_input,
    service_match,
    setup_data,
    start_match,
)
from tests.served import Phone, Server

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["Anna", "Berta", "Carl"]


def failed_hand(number: int) -> dict[str, Any]:
    """Hand ``number`` of a long match: the declarer goes round and fails (nobody wins)."""
    return {
        "declarer": number % 3,
        "bid": 300,
        "trump": "EGHS"[number % 4],
        "melds": [0, 0, 0],
        "tricks": [100, 80, None],
    }


def hand_count(app: Flask) -> int:
    with app.app_context():
        return db.session.execute(select(func.count()).select_from(Hand)).scalar_one()


# -- a form sent twice, two phones at once -----------------------------------


def test_a_hand_form_sent_twice_saves_one_hand(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    data = hand_data(client, token, **failed_hand(0))
    assert data["idempotency_key"]
    first = client.post(f"/m/{token}/hands", data=data)
    again = client.post(f"/m/{token}/hands", data=data)  # a double tap, or a retry
    assert first.status_code in (302, 303)
    assert again.status_code == first.status_code
    assert hand_count(app) == 1
    over_htmx = client.post(f"/m/{token}/hands", data=data, headers=HX)
    assert over_htmx.status_code == 200  # the fresh page, not a conflict: it was saved
    assert hand_count(app) == 1
    assert client.get(f"/m/{token}").get_data(as_text=True).count('<tr id="hand-') == 1


def test_a_new_form_saves_a_new_hand(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    one = hand_data(client, token, **failed_hand(0))
    client.post(f"/m/{token}/hands", data=one)
    two = hand_data(client, token, **failed_hand(1))
    assert two["idempotency_key"] != one["idempotency_key"]
    client.post(f"/m/{token}/hands", data=two)
    assert hand_count(app) == 2


def test_two_phones_on_one_match_get_a_clear_conflict(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    phone_a = hand_data(client, token, **failed_hand(0))
    phone_b = hand_data(client, token, declarer=1, bid=400, trump="E", melds=[0, 0, 0],
                        tricks=[120, 80, None])  # fmt: skip
    assert phone_a["version"] == phone_b["version"]

    assert client.post(f"/m/{token}/hands", data=phone_a).status_code in (302, 303)
    late = client.post(f"/m/{token}/hands?lang=en", data=phone_b, headers=HX)
    html = late.get_data(as_text=True)
    assert late.status_code == 409
    assert "Someone else changed this match" in html
    # the current state comes with it: phone A's hand, and a fresh form on the new version
    assert 'id="match-content"' in html and html.count('<tr id="hand-') == 1
    assert "(−600)" in html
    fresh = form_data(html, "hand-form")
    assert int(fresh["version"]) == int(phone_b["version"]) + 1
    assert fresh["idempotency_key"] != phone_b["idempotency_key"]
    assert hand_count(app) == 1
    with app.app_context():
        hand = db.session.execute(select(Hand)).scalar_one()
        assert (hand.declarer_party, hand.bid) == (0, 300)


@pytest.mark.parametrize("change", ["new", "correction", "delete"])
def test_a_save_that_loses_the_race_changes_nothing(app: Flask, change: str) -> None:
    """Two requests read the same version at the same moment: the version check in
    Python passes for both, the UPDATE of the match finds the row only for the first."""
    token = service_match(app, NAMES, 2, target=100_000)
    with app.app_context():
        match = services.get_match(token)
        read = match.version
        hand = services.live_hands(match)[-1] if change != "new" else None
        before = _state(token)
        # the other phone's save lands between this request's read and its write
        with db.engine.begin() as other:
            other.execute(
                Match.__table__.update()
                .where(Match.__table__.c.token == token)
                .values(version=read + 1)
            )
        with pytest.raises(services.ConflictError):
            if change == "delete":
                assert hand is not None
                services.delete_hand(match, hand, version=read)
            else:
                services.save_hand(match, hand_input(3, 5), hand=hand, version=read)
        # the session holds nothing of the lost change either
        assert [h.deleted_at for h in services.live_hands(match)] == [None, None]
    with app.app_context():
        after = _state(token)
    assert after == {**before, "version": read + 1}


def _state(token: str) -> dict[str, Any]:
    """What a lost save must not have touched: the hands, their lines and history."""
    match = services.get_match(token)
    hands = [(h.seq, h.bid, h.trump, tuple(p.points for p in h.parties)) for h in match.hands]
    events = db.session.execute(select(func.count()).select_from(HandEvent)).scalar_one()
    result = {
        "hands": hands,
        "events": events,
        "standing": match.standing,
        "version": match.version,
    }
    db.session.rollback()
    return result


def test_two_corrections_of_one_hand_do_not_overwrite_each_other(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, NAMES)
    client.post(f"/m/{token}/hands", data=hand_data(client, token, **failed_hand(0)))
    with app.app_context():
        hand_id = db.session.execute(select(Hand.id)).scalar_one()
    edit = client.get(f"/m/{token}/hands/{hand_id}/edit").get_data(as_text=True)
    phone_a = fill_hand(form_data(edit, "hand-form"), bid=350)
    phone_b = fill_hand(form_data(edit, "hand-form"), bid=400)
    assert client.post(f"/m/{token}/hands/{hand_id}", data=phone_a).status_code in (302, 303)
    assert client.post(f"/m/{token}/hands/{hand_id}", data=phone_b).status_code == 409
    with app.app_context():
        assert db.session.get(Hand, hand_id).bid == 350
        corrections = db.session.execute(
            select(func.count()).select_from(HandEvent).where(HandEvent.action == "corrected")
        ).scalar_one()
        assert corrections == 1


def test_a_delete_from_a_stale_page_is_a_conflict(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    client.post(f"/m/{token}/hands", data=hand_data(client, token, **failed_hand(0)))
    with app.app_context():
        hand_id = db.session.execute(select(Hand.id)).scalar_one()
    stale = form_data(client.get(f"/m/{token}/hands/{hand_id}?strike=1").get_data(as_text=True))
    client.post(f"/m/{token}/hands", data=hand_data(client, token, **failed_hand(1)))
    response = client.post(f"/m/{token}/hands/{hand_id}/delete", data=stale)
    assert response.status_code == 409
    with app.app_context():
        assert db.session.get(Hand, hand_id).deleted_at is None


# -- one intent, one thing: a double tap on "next match" and on "start match" ---


@contextmanager
def at_once(count: int) -> Iterator[None]:
    """Requests in ``count`` threads each wait at their first write until all have read.

    A request's first write is where it acts on what it read; holding every request
    there makes them act on the same state, as two phones (or a double tap) whose
    requests overlap do.
    """
    barrier = threading.Barrier(count, timeout=5)
    held: set[int] = set()

    def hold(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        me = threading.get_ident()
        writes = statement.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
        if writes and me not in held and threading.current_thread() is not threading.main_thread():
            held.add(me)
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait()

    event.listen(Engine, "before_cursor_execute", hold)
    try:
        yield
    finally:
        event.remove(Engine, "before_cursor_execute", hold)


def in_threads(app: Flask, send: Callable[[FlaskClient], Any], count: int = 2) -> list[Any]:
    """``send`` from ``count`` phones (test clients) at once; their responses."""
    answers: list[Any] = [None] * count
    clients = [app.test_client() for _ in range(count)]

    def run(i: int) -> None:
        try:
            answers[i] = send(clients[i])
        except Exception as exc:  # a 500 (the test client raises it)
            answers[i] = exc

    with at_once(count):
        threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    return answers


def finished_match(app: Flask) -> str:
    token = service_match(app, NAMES, 40, target=300)
    with app.app_context():
        assert services.sheet(services.get_match(token)).finished
    return token


def matches_of(app: Flask) -> list[tuple[int, int]]:
    """(session id, number) of every match."""
    with app.app_context():
        rows = db.session.execute(select(Match.session_id, Match.number).order_by(Match.id))
        return [(s, n) for s, n in rows]


def test_next_match_pressed_twice_makes_one_match(app: Flask, client: FlaskClient) -> None:
    token = finished_match(app)
    first = client.post(f"/m/{token}/next", data={})
    again = client.post(f"/m/{token}/next", data={})
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    assert [n for _, n in matches_of(app)] == [1, 2]


def test_next_match_from_two_phones_at_once_makes_one_match(app: Flask) -> None:
    token = finished_match(app)
    answers = in_threads(app, lambda c: c.post(f"/m/{token}/next", data={}))
    assert [getattr(a, "status_code", a) for a in answers] == [303, 303]
    assert answers[0].headers["Location"] == answers[1].headers["Location"]
    assert [n for _, n in matches_of(app)] == [1, 2]
    # and the session's backup imports again (a second "match 2" made it refuse)
    with app.app_context():
        data = services.export_sessions([services.get_match(token).session])
        db.session.remove()
    body = {"file": (io.BytesIO(json.dumps(data).encode()), "backup.json")}
    response = app.test_client().post("/import", data=body, content_type="multipart/form-data")
    assert response.status_code in (302, 303), response.get_data(as_text=True)[:2000]


def test_start_match_sent_twice_makes_one_session(app: Flask, client: FlaskClient) -> None:
    data = setup_data(client, NAMES, title="Krone")
    assert data["idempotency_key"]
    first = client.post("/new", data=data)
    again = client.post("/new", data=data)
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    assert len(matches_of(app)) == 1
    # a new setup form is a new intent
    other = setup_data(client, NAMES, title="Krone")
    assert other["idempotency_key"] != data["idempotency_key"]
    assert client.post("/new", data=other).status_code == 303
    assert len({s for s, _ in matches_of(app)}) == 2


def test_start_match_from_two_taps_at_once_makes_one_session(
    app: Flask, client: FlaskClient
) -> None:
    data = setup_data(client, NAMES, title="Krone")
    answers = in_threads(app, lambda c: c.post("/new", data=data))
    assert [getattr(a, "status_code", a) for a in answers] == [303, 303]
    assert answers[0].headers["Location"] == answers[1].headers["Location"]
    assert len(matches_of(app)) == 1


def test_start_match_with_a_used_key_and_other_players_is_refused(
    app: Flask, client: FlaskClient
) -> None:
    data = setup_data(client, NAMES)
    assert client.post("/new", data=data).status_code == 303
    # the back button brings the same form (and key) back; other names are another match
    changed = {**data, "players-2": "Dora"}
    response = client.post("/new?lang=en", data=changed)
    html = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "This form has already started a match with other players" in html
    kept = form_data(html, "setup-form")
    assert kept["players-2"] == "Dora"
    assert kept["idempotency_key"] != data["idempotency_key"]
    assert len(matches_of(app)) == 1
    # sent again (a fresh key), it starts the other match
    assert client.post("/new", data=kept | {"action": "start"}).status_code == 303
    assert len(matches_of(app)) == 2


# -- a key sent again with another hand -------------------------------------------


@pytest.mark.parametrize("htmx", [False, True])
def test_a_key_sent_again_with_another_hand_is_refused(
    app: Flask, client: FlaskClient, htmx: bool
) -> None:
    token = start_match(client, NAMES)
    data = hand_data(client, token, **failed_hand(0))
    assert client.post(f"/m/{token}/hands", data=data).status_code == 303
    other = fill_hand(data, declarer=1, bid=350, trump="E", melds=[0, 0, 0],
                      tricks=[60, 150, None])  # fmt: skip
    response = client.post(f"/m/{token}/hands?lang=en", data=other, headers=HX if htmx else {})
    html = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "This entry was already saved with other values" in html
    # the sheet shows the hand the key saved
    assert html.count('<tr id="hand-') == 1
    # what was typed is kept, with a fresh key: saving again enters it as a new hand
    kept = form_data(html, "hand-form")
    assert (kept["declarer"], kept["bid"], kept["trump"]) == ("1", "350", "E")
    assert kept["parties-1-tricks"] == "150"
    assert kept["idempotency_key"] not in ("", data["idempotency_key"])
    assert hand_count(app) == 1
    with app.app_context():
        hand = db.session.execute(select(Hand)).scalar_one()
        assert (hand.declarer_party, hand.bid) == (0, 300)


def test_a_key_sent_again_with_the_same_hand_written_otherwise_is_the_same_hand(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, NAMES)
    data = hand_data(client, token, **failed_hand(0))
    assert client.post(f"/m/{token}/hands", data=data).status_code == 303
    # the empty trick field filled in by hand, the bid with a leading zero: the same hand
    same = fill_hand(data, tricks=[100, 80, 70], bid="0300")
    assert client.post(f"/m/{token}/hands", data=same).status_code == 303
    assert hand_count(app) == 1


def test_a_key_sent_again_after_a_correction_is_the_corrected_hand(
    app: Flask, client: FlaskClient
) -> None:
    """The resend is compared with what the key first saved, not with a later correction."""
    token = start_match(client, NAMES)
    data = hand_data(client, token, **failed_hand(0))
    client.post(f"/m/{token}/hands", data=data)
    with app.app_context():
        hand_id = db.session.execute(select(Hand.id)).scalar_one()
    edit = client.get(f"/m/{token}/hands/{hand_id}/edit").get_data(as_text=True)
    client.post(
        f"/m/{token}/hands/{hand_id}", data=fill_hand(form_data(edit, "hand-form"), bid=350)
    )
    assert client.post(f"/m/{token}/hands", data=data).status_code == 303
    assert hand_count(app) == 1


def test_a_key_sent_twice_at_once_with_two_hands_saves_one(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    data = hand_data(client, token, **failed_hand(0))
    other = fill_hand(data, declarer=1, bid=350, trump="E", tricks=[60, 150, None])
    forms = [data, other]
    answers = in_threads(app, lambda c: c.post(f"/m/{token}/hands", data=forms.pop()))
    assert sorted(getattr(a, "status_code", 0) for a in answers) == [303, 409], answers
    assert hand_count(app) == 1


# -- SQLite ------------------------------------------------------------------


@pytest.mark.skipif(bool(PG_URL), reason="SQLite pragmas")
def test_sqlite_runs_in_wal_mode_with_foreign_keys(app: Flask) -> None:
    with app.app_context():
        assert db.session.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
        assert db.session.execute(text("PRAGMA foreign_keys")).scalar_one() == 1
        assert db.session.execute(text("PRAGMA busy_timeout")).scalar_one() >= 5000


# -- a server killed in the middle -------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    database = tmp_path / "scorer.sqlite"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{database}",
        "SECRET_KEY": "fault-test-secret",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("TEST_DATABASE_URL", None)
    # the schema by the migrations, as in production
    subprocess.run(
        [sys.executable, "-m", "flask", "--app", "scorer", "db", "upgrade"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    running = Server(env, tmp_path / "gunicorn.log")
    yield running
    running.stop()


def stream_hands(
    phone: Phone, token: str, acked: list[str], stop: threading.Event, first: int
) -> None:
    """Enter hands one after another until the server goes away; note every acknowledged key."""
    number = first
    while not stop.is_set():
        try:
            status, html = phone.request("GET", f"/m/{token}")
            if status != 200:
                return
            data = fill_hand(form_data(html, "hand-form"), **failed_hand(number))
            assert data["csrf_token"] == csrf_token_from(html)
            status, _ = phone.request("POST", f"/m/{token}/hands", data)
        except (OSError, http.client.HTTPException):
            return  # the server was killed under us: this hand was never acknowledged
        assert status in (200, 302, 303), status
        acked.append(data["idempotency_key"])
        number += 1


def test_a_killed_server_loses_no_acknowledged_hand(tmp_path: Path, server: Server) -> None:
    database = tmp_path / "scorer.sqlite"
    setup = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{database}"})
    with setup.app_context():
        tokens = [
            services.start_match(names=NAMES, ruleset=PRESETS["standard"]).token for _ in range(4)
        ]
        db.engine.dispose()

    server.start()
    acked: list[list[str]] = [[] for _ in tokens]
    stop = threading.Event()
    threads = [
        threading.Thread(target=stream_hands, args=(Phone(server.port), t, a, stop, 0))
        for t, a in zip(tokens, acked, strict=True)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 20
    while sum(map(len, acked)) < 40 and time.monotonic() < deadline:
        time.sleep(0.02)
    server.kill()  # SIGKILL with requests in flight
    stop.set()
    for thread in threads:
        thread.join(timeout=15)
    assert sum(map(len, acked)) >= 40

    # the file is sound before anything opens it again
    with sqlite3.connect(database) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert raw.execute("PRAGMA foreign_key_check").fetchall() == []

    server.start()
    for token, keys in zip(tokens, acked, strict=True):
        status, _ = Phone(server.port).request("GET", f"/m/{token}")
        assert status == 200
        with setup.app_context():
            match = db.session.execute(select(Match).where(Match.token == token)).scalar_one()
            hands = list(match.hands)
            stored = {h.idempotency_key for h in hands}
            assert set(keys) <= stored, "an acknowledged hand is missing"
            # at most the one hand in flight was saved without its answer arriving
            assert len(hands) - len(keys) in (0, 1)
            assert [h.seq for h in hands] == list(range(1, len(hands) + 1))
            assert match.version == 1 + len(hands)
            sheet = services.sheet(match)
            for row, number in zip(sheet.rows, range(len(hands)), strict=True):
                hand = row.hand
                assert hand.dealer_seat == number % 3
                assert len(hand.events) == 1
                again = services.settle_input(match, services.input_of(hand), hand.dealer_seat)
                assert [p.points for p in hand.parties] == again.points
            replayed = [sum(p.points for h in hands for p in h.parties if p.party == i)
                        for i in range(3)]  # fmt: skip
            assert sheet.totals == replayed
            db.session.remove()
    # and the restarted server takes the next hand
    phone = Phone(server.port)
    _, html = phone.request("GET", f"/m/{tokens[0]}")
    data = fill_hand(form_data(html, "hand-form"), **failed_hand(len(acked[0]) + 1))
    assert phone.request("POST", f"/m/{tokens[0]}/hands", data)[0] in (302, 303)
    with setup.app_context():
        db.engine.dispose()
