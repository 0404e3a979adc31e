"""A save sent again with its idempotency key always gets the answer the first one would have.

The phone's offline queue sends a hand again with the same key whenever its first
send got no answer: the connection dropped, the answer was late, or the worker that
saved it died before it could answer.  Whatever happened to the first send, the
same key saves one hand, and its resend is answered as the save it is (a redirect
to the sheet, or over htmx the page with the hand) — never a conflict.

The first tests run the app as production does (gunicorn, two workers with four
threads each) with a fault forced at the worst moment: the worker killed between
the commit and the answer, the answer held after the commit while the resend
comes.  The last ones force the resend into the middle of the first send in one
process, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import http.client
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from scorer import create_app, services
from scorer.extensions import db
from scorer.models import Hand, Match
from scorer.rules import PRESETS
from tests.builders import HX, PG_URL, fill_hand, form_data, hand_data, make_app, start_match
from tests.races import interleave
from tests.served import Phone, Server

NAMES = ["Anna", "Berta", "Carl"]
HAND = {"declarer": 0, "bid": 300, "trump": "E", "melds": [0, 0, 0], "tricks": [100, 80, None]}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Server, Path, str]]:
    """gunicorn on the test's database with the faults of ``tests.faulty_app``; a match."""
    app = make_app(tmp_path)  # the schema (SQLite file, or the worker's PostgreSQL schema)
    with app.app_context():
        token = services.start_match(names=NAMES, ruleset=PRESETS["standard"]).token
        url = str(db.engine.url.render_as_string(hide_password=False))
        db.session.remove()
        db.engine.dispose()
    faults = tmp_path / "faults"
    faults.mkdir()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "SECRET_KEY": "resent-saves-secret",
        "SCORER_FAULTS": str(faults),
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    env.pop("TEST_DATABASE_URL", None)
    server = Server(env, tmp_path / "gunicorn.log", app="tests.faulty_app:create_app()", threads=4)
    server.start()
    yield server, faults, token
    server.stop()


def hands_in(tmp_path: Path, token: str) -> list[str | None]:
    """The idempotency keys of the match's hands, read by a process of the test's own."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": PG_URL or f"sqlite:///{tmp_path / 'test.sqlite'}"})
    with app.app_context():
        try:
            match_id = db.session.execute(select(Match.id).where(Match.token == token)).scalar_one()
            keys = db.session.execute(
                select(Hand.idempotency_key).where(Hand.match_id == match_id)
            ).scalars()
            return list(keys)
        finally:
            db.session.remove()
            db.engine.dispose()


def sent_form(phone: Phone, token: str) -> dict[str, str]:
    status, html = phone.request("GET", f"/m/{token}")
    assert status == 200
    return fill_hand(form_data(html, "hand-form"), **HAND)


def post(phone: Phone, token: str, form: dict[str, str], htmx: bool) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", phone.port, timeout=30)
    headers = {
        "Cookie": "; ".join(f"{k}={v}" for k, v in phone.cookies.items()),
        "Content-Type": "application/x-www-form-urlencoded",
        **(HX if htmx else {}),
    }
    from urllib.parse import urlencode

    try:
        conn.request("POST", f"/m/{token}/hands", urlencode(form), headers)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def answered_as_saved(status: int, html: str, htmx: bool) -> None:
    if htmx:
        assert status == 200, html[:2000]
        assert html.count('<tr id="hand-') == 1  # the sheet with the hand on it
    else:
        assert status == 303, html[:2000]


@pytest.mark.parametrize("htmx", [False, True])
def test_a_save_whose_worker_died_after_the_commit_is_answered_as_saved(
    tmp_path: Path, served: tuple[Server, Path, str], htmx: bool
) -> None:
    server, faults, token = served
    phone = Phone(server.port)
    form = sent_form(phone, token)
    (faults / "kill-after-commit").touch()
    with pytest.raises((http.client.HTTPException, OSError)):
        post(phone, token, form, htmx)  # the worker died: no answer at all
    assert not (faults / "kill-after-commit").exists()  # it got as far as the commit
    assert hands_in(tmp_path, token) == [form["idempotency_key"]]
    # the phone sends it again, as its queue does (gunicorn has started a new worker)
    deadline = time.monotonic() + 30
    while True:
        try:
            status, html = post(phone, token, form, htmx)
            break
        except (http.client.HTTPException, OSError):
            assert time.monotonic() < deadline
    answered_as_saved(status, html, htmx)
    assert hands_in(tmp_path, token) == [form["idempotency_key"]]


def test_a_resend_while_the_first_answer_is_late_is_answered_as_saved(
    tmp_path: Path, served: tuple[Server, Path, str]
) -> None:
    server, faults, token = served
    phone = Phone(server.port)
    form = sent_form(phone, token)
    (faults / "hold-after-commit").touch()
    first: dict[str, Any] = {}
    sender = threading.Thread(target=lambda: first.update(answer=post(phone, token, form, False)))
    sender.start()
    deadline = time.monotonic() + 30
    while not (faults / "holding").exists():
        assert time.monotonic() < deadline, "the first send never reached its commit"
        time.sleep(0.01)
    again = post(phone, token, form, True)  # saved, but its answer has not left
    (faults / "holding").unlink()  # the first answer leaves now
    sender.join(30)
    answered_as_saved(*again, htmx=True)
    assert first["answer"][0] == 303
    assert hands_in(tmp_path, token) == [form["idempotency_key"]]


# -- the resend in the middle of the first send, in one process ------------------------------


@pytest.mark.parametrize("htmx", [False, True])
def test_a_resend_that_read_before_the_first_send_committed_is_answered_as_saved(
    app: Flask, client: FlaskClient, htmx: bool
) -> None:
    """The resend has read the match (no hand under its key yet) when the first send
    commits; then it writes: its guarded write loses, and run again it finds the key."""
    token = start_match(client, NAMES)
    form = hand_data(client, token, **HAND)
    other = app.test_client()
    resent, first = interleave(
        lambda: client.post(f"/m/{token}/hands", data=form, headers=HX if htmx else {}),
        lambda: other.post(f"/m/{token}/hands", data=form),
    )
    assert first.status_code == 303
    answered_as_saved(resent.status_code, resent.get_data(as_text=True), htmx)
    with app.app_context():
        assert db.session.execute(select(func.count()).select_from(Hand)).scalar_one() == 1


def test_a_resend_with_other_values_under_the_same_key_is_still_refused(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, NAMES)
    form = hand_data(client, token, **HAND)
    changed = fill_hand(form, bid=350)
    other = app.test_client()
    resent, first = interleave(
        lambda: client.post(f"/m/{token}/hands?lang=en", data=changed),
        lambda: other.post(f"/m/{token}/hands", data=form),
    )
    assert first.status_code == 303
    assert resent.status_code == 409
    assert "This entry was already saved with other values" in resent.get_data(as_text=True)
