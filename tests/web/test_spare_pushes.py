"""What a spare takes from the network: only its hall's pushes, whole, checked value by value.

Every hostile push is refused with a status and a reason, and leaves the spare's
database as it was: unsigned or signed with another key, replayed, of another
generation, not zlib, not JSON, of another release's columns, a row of another
unit, a value of the wrong type, a text with NUL or a lone surrogate, too long, a
zip bomb.  A laptop that is not a spare takes none; a spare that took over answers
"taken over" to the hall it followed.  Pairing: a wrong code is counted, and ten
void it.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from scorer.extensions import db
from scorer.services.online.signing import body_hash, signature
from scorer.services.spare import pairing, receive
from scorer.services.wire import Answer
from tests.spare_builders import (
    SPARE_ADDRESS,
    Laptops,
    documents,
    follow_until_same,
    pair,
    pairing_line,
    take_over,
    two_laptops,
)
from tests.tournament_builders import drawn, play_round, tournament_with


@pytest.fixture
def laptops(tmp_path: Path) -> Iterator[Laptops]:
    with two_laptops(tmp_path) as both:
        with both.hall.app_context():
            tournament = tournament_with(9, deals=3, rounds_=2)
            play_round(drawn(tournament, 1), hands=2)
            db.session.remove()
        yield both


@pytest.fixture
def sent(laptops: Laptops) -> dict[str, Any]:
    """The hall's first real push to the spare (body unpacked, headers), already taken."""
    caught: dict[str, Any] = {}
    wire = laptops.wire

    def keep(url: str, body: bytes, headers: dict[str, str]) -> Answer:
        if url.endswith("/spare/push") and "message" not in caught:
            caught["message"] = json.loads(zlib.decompress(body))
            caught["headers"] = headers
        return wire(url, body, headers)

    laptops.feed.send = keep
    pair(laptops)
    follow_until_same(laptops)
    assert "message" in caught
    return caught


def key_of(spare: Flask) -> tuple[str, int, int]:
    with spare.app_context():
        row = receive.following()
        assert row is not None
        found = (row.key, row.generation, row.seq)
        db.session.remove()
    return found


def push(
    spare: Flask,
    message: Any,
    *,
    seq: int | None = None,
    key: str | None = None,
    generation: int | None = None,
    body: bytes | None = None,
) -> Any:
    """POST a push to the spare as a hall would (signed with ``key``, the pairing's)."""
    real_key, real_generation, last = key_of(spare)
    key = key or real_key
    generation = real_generation if generation is None else generation
    seq = last + 1 if seq is None else seq
    if body is None:
        body = zlib.compress(json.dumps(message).encode())
    headers = {
        "Content-Type": "application/octet-stream",
        "X-Scorer-Generation": str(generation),
        "X-Scorer-Seq": str(seq),
        "X-Scorer-Signature": signature(key, "push", generation, seq, body_hash(body)),
    }
    return spare.test_client().post(
        "/spare/push", data=body, headers=headers, environ_base={"REMOTE_ADDR": "192.0.2.9"}
    )


def unchanged(laptops: Laptops, before: dict[str, Any]) -> None:
    assert documents(laptops.spare) == before


def _table_unit(message: dict[str, Any]) -> dict[str, Any]:
    return next(u for u in message["units"] if u["kind"] == "m")


def _tournament_unit(message: dict[str, Any]) -> dict[str, Any]:
    return next(u for u in message["units"] if u["kind"] == "t")


def test_the_hall_s_own_push_again_is_answered_as_taken(
    laptops: Laptops, sent: dict[str, Any]
) -> None:
    message = sent["message"]
    _, _, last = key_of(laptops.spare)
    again = push(laptops.spare, message, seq=last + 1)
    assert again.status_code == 200 and again.get_json()["fresh"] is True
    body = zlib.compress(json.dumps(message).encode())
    twice = push(laptops.spare, None, seq=last + 2, body=body)
    assert twice.status_code == 200
    same = push(laptops.spare, None, seq=last + 2, body=body)
    assert same.status_code == 200 and same.get_json()["fresh"] is False
    older = push(laptops.spare, message, seq=last)
    assert older.status_code == 409


@pytest.mark.parametrize(
    "change",
    [
        "key",
        "generation",
        "zlib",
        "json",
        "format",
        "columns",
        "scope",
        "type",
        "bool",
        "nul",
        "surrogate",
        "long",
        "twice",
        "time",
        "shape",
    ],
)
def test_a_hostile_push_is_refused_and_changes_nothing(
    laptops: Laptops, sent: dict[str, Any], change: str
) -> None:
    before = documents(laptops.spare)
    message = json.loads(json.dumps(sent["message"]))
    table = _table_unit(message)
    tournament = _tournament_unit(message)
    kwargs: dict[str, Any] = {}
    expected = 400
    if change == "key":
        kwargs["key"] = "cd" * 32
        expected = 403
    elif change == "generation":
        kwargs["generation"] = 7  # signed with the right key, of another generation
        expected = 409
    elif change == "zlib":
        kwargs["body"] = b"not compressed at all"
    elif change == "json":
        kwargs["body"] = zlib.compress(b"{not json")
    elif change == "format":
        message["format"] = "scorer-backup"
    elif change == "columns":
        message["columns"]["match"] = message["columns"]["match"][:-1]
    elif change == "scope":
        entrants = tournament["rows"]["tournament_entrant"]
        column = message["columns"]["tournament_entrant"].index("tournament_id")
        entrants[0][column] = 999  # an entrant of another tournament
    elif change == "type":
        column = message["columns"]["match"].index("version")
        table["rows"]["match"][0][column] = "7"
    elif change == "bool":
        column = message["columns"]["match"].index("version")
        table["rows"]["match"][0][column] = True
    elif change == "nul":
        column = message["columns"]["seat"].index("name")
        table["rows"]["seat"][0][column] = "Anna\x00"
    elif change == "surrogate":
        column = message["columns"]["seat"].index("name")
        table["rows"]["seat"][0][column] = "Anna\ud800"
    elif change == "long":
        column = message["columns"]["seat"].index("name")
        table["rows"]["seat"][0][column] = "A" * 41
    elif change == "twice":
        message["units"].append(table)
    elif change == "time":
        column = message["columns"]["match"].index("created_at")
        table["rows"]["match"][0][column] = "yesterday"
    elif change == "shape":
        table["rows"]["hand"][0] = table["rows"]["hand"][0][:-1]
    answer = push(laptops.spare, message, **kwargs)
    assert answer.status_code == expected, answer.get_json()
    assert answer.get_json().get("why")
    unchanged(laptops, before)


def test_a_zip_bomb_is_refused(
    laptops: Laptops, sent: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(receive, "MOST_UNPACKED", 1024)
    before = documents(laptops.spare)
    body = zlib.compress(json.dumps({**sent["message"], "pad": " " * 10_000}).encode())
    answer = push(laptops.spare, None, body=body)
    assert answer.status_code == 400 and "too much" in answer.get_json()["why"]
    unchanged(laptops, before)


def test_a_push_without_its_numbers_is_refused(laptops: Laptops, sent: dict[str, Any]) -> None:
    answer = laptops.spare.test_client().post("/spare/push", data=b"x")
    assert answer.status_code == 400


def test_a_laptop_that_is_not_a_spare_takes_no_push(laptops: Laptops, sent: dict[str, Any]) -> None:
    body = zlib.compress(json.dumps(sent["message"]).encode())
    answer = laptops.hall.test_client().post(
        "/spare/push",
        data=body,
        headers={"X-Scorer-Generation": "1", "X-Scorer-Seq": "9", "X-Scorer-Signature": "00"},
    )
    assert answer.status_code == 404


def test_a_spare_that_took_over_tells_the_old_hall(laptops: Laptops, sent: dict[str, Any]) -> None:
    take_over(laptops)
    answer = push(laptops.spare, sent["message"])
    assert answer.status_code == 409
    told = answer.get_json()
    assert told["taken_over"] is True and told["generation"] == 2 and told["since"]
    forged = push(laptops.spare, sent["message"], key="cd" * 32)
    assert forged.status_code == 403  # only the hall of the pairing learns it


def test_pages_off_a_hall_and_for_strangers(tmp_path: Path, laptops: Laptops) -> None:
    client = laptops.hall.test_client()
    stranger = {"REMOTE_ADDR": "192.0.2.50"}
    assert client.get("/hall", environ_base=stranger).status_code == 403
    assert client.get("/spare", environ_base=stranger).status_code == 403
    assert client.get("/hall", headers={"X-Forwarded-For": "192.0.2.50"}).status_code == 403
    laptops.hall.config["HALL"] = False
    assert client.get("/hall").status_code == 404
    assert client.post("/hall/pair", data=b"x").status_code == 404


def _pair_request(hall: Flask, code: str, spare: str = SPARE_ADDRESS) -> Any:
    body = json.dumps(
        {"spare": spare, "nonce": "ab" * 16, "columns": pairing.columns_digest()}
    ).encode()
    key = pairing.code_key(code)  # the test plays a spare that guesses
    return hall.test_client().post(
        "/hall/pair",
        data=body,
        headers={"X-Scorer-Signature": signature(key, "pair", body_hash(body))},
        environ_base={"REMOTE_ADDR": "192.0.2.9"},
    )


def test_a_wrong_code_is_counted_and_ten_void_it(laptops: Laptops) -> None:
    line = pairing_line(laptops.hall)
    code = pairing.parse_line(line).code
    for _ in range(pairing.TRIES):
        assert _pair_request(laptops.hall, "0" * 16).status_code == 403
    # the right code now: void (a stranger guessed too often)
    assert _pair_request(laptops.hall, code).status_code == 410
    with laptops.hall.app_context():
        link = pairing.link()
        assert link is not None and not link.address and not link.code


def test_the_right_code_pairs_once(laptops: Laptops) -> None:
    code = pairing.parse_line(pairing_line(laptops.hall)).code
    assert _pair_request(laptops.hall, code, spare="http://127.0.0.2:5000/x").status_code == 400
    answer = _pair_request(laptops.hall, code)
    assert answer.status_code == 200 and answer.headers["X-Scorer-Signature"]
    assert _pair_request(laptops.hall, code).status_code == 410  # used up


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("", "Type the line"),
        ("10.42.0.1:5000/hall#K7Q2-M9XD-4HP3-ZR8W", "starts with the hall's address"),
        ("http://10.42.0.1:5000/hall", "16 letters and digits"),
        ("http://10.42.0.1:5000/hall#K7Q2-M9XD", "16 letters and digits"),
        ("http://10.42.0.1:5000/other#K7Q2-M9XD-4HP3-ZR8W", "/hall and the code"),
        ("http://127.0.0.1:5000/hall#0000-0000-0000-0000", "does not know this code"),
        ("http://127.0.0.9:5000/hall#K7Q2-M9XD-4HP3-ZR8W", "does not answer"),
    ],
)
def test_a_wrong_line_on_the_spare_says_what(laptops: Laptops, line: str, says: str) -> None:
    pairing_line(laptops.hall)  # a code is open on the hall
    original = pairing.post
    pairing.post = laptops.wire
    try:
        answer = laptops.spare.test_client().post("/spare/follow?lang=en", data={"line": line})
    finally:
        pairing.post = original
    assert answer.status_code == 422
    text = answer.get_data(as_text=True)
    assert says in text.replace("&#39;", "'")
    assert f'value="{line}"' in text.replace("&#34;", '"') or not line  # kept as typed


def test_a_laptop_with_matches_of_its_own_is_no_spare(laptops: Laptops) -> None:
    with laptops.spare.app_context():
        tournament_with(9, name="Eigenes")
        db.session.remove()
    line = pairing_line(laptops.hall)
    answer = laptops.spare.test_client().post("/spare/follow?lang=en", data={"line": line})
    assert answer.status_code == 422
    assert "empty database" in answer.get_data(as_text=True)
