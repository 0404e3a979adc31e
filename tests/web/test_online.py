"""The tournament online: a hall pushes its public side to a hosted copy (issue 31).

Two instances in one process (``tests/online_builders``): the hall on SQLite,
the hosted copy on the tests' database (PostgreSQL with ``TEST_DATABASE_URL``).
"""

from __future__ import annotations

import json
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from scorer.extensions import db
from scorer.online_models import OnlineLink, OnlinePage
from scorer.services.online import document as documents
from scorer.services.online import hall as online_hall
from scorer.services.online.hall import Pusher
from scorer.services.online.signing import body_hash, parse_line, signature
from scorer.services.tournaments import setup
from scorer.services.unit import LostRace
from tests.builders import HX, page_text
from tests.online_builders import Pair, make_page, two_instances
from tests.tournament_builders import drawn, play_round, play_table, tournament_with
from tests.web.test_tournament_public import _polled


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    with two_instances(tmp_path) as made:
        yield made


def a_hall(pair: Pair, hands: int = 1) -> str:
    """A tournament in the hall (10 players, round 1, ``hands`` at every table); its token."""
    with pair.hall.app_context():
        tournament = tournament_with(10, deals=3)
        play_round(drawn(tournament), hands=hands)
        token = tournament.token
        db.session.remove()
    return token


def link(pair: Pair, token: str) -> str:
    """The hall's organiser puts the tournament online with the hosted page's line."""
    line, public = make_page(pair.hosted)
    client = pair.hall.test_client()
    response = client.post(f"/t/{token}/online", data={"line": line})
    assert response.status_code == 303, page_text(response)[:500]
    return public


def push(pair: Pair) -> list[str]:
    """One round of the hall's pusher."""
    with pair.hall.app_context():
        pusher = Pusher(post=pair.wire)
        from scorer.services.online.hall import links

        return [pusher.push(row) for row in links()]


def hall_lines(pair: Pair, token: str) -> list[str]:
    with pair.hall.app_context():
        view = setup.get_tournament(token).view_token
    html = pair.hall.test_client().get(f"/p/{view}?lang=en").get_data(as_text=True)
    return rows(html)


def rows(html: str) -> list[str]:
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    return [" ".join(page_text_of(r).split()) for r in body.split("<tr")[1:]]


def page_text_of(fragment: str) -> str:
    import re

    return re.sub(r"<[^>]+>", " ", "<tr" + fragment)


def test_the_hosted_page_shows_what_the_hall_shows(pair: Pair) -> None:
    token = a_hall(pair)
    public = link(pair, token)
    assert pair.hosted.test_client().get(f"/o/{public}").status_code == 404  # nothing yet
    assert push(pair) == ["sent"]
    hosted = pair.hosted.test_client().get(f"/o/{public}?lang=en")
    assert hosted.status_code == 200
    html = hosted.get_data(as_text=True)
    assert rows(html) == hall_lines(pair, token)
    assert "As of" in html and "from the hall" in html
    # nothing new: nothing sent
    assert push(pair) == ["same"]
    # the pages a hall's public link has, read from what was pushed
    client = pair.hosted.test_client()
    for page in ("/seats", "/players/3", "/me", "/prizes"):
        assert client.get(f"/o/{public}{page}?lang=en").status_code == 200, page


def test_a_new_state_shows_and_polls_answer_by_what_changed(pair: Pair) -> None:
    token = a_hall(pair)
    public = link(pair, token)
    push(pair)
    client = pair.hosted.test_client()
    url = _polled(client.get(f"/o/{public}").get_data(as_text=True))
    assert client.get(url, headers=HX).status_code == 204
    with pair.hall.app_context():
        play_table(setup.get_tournament(token).round_rows[0].tables[0], 1)
    assert push(pair) == ["sent"]
    changed = client.get(url, headers=HX)
    assert changed.status_code == 200
    assert rows(client.get(f"/o/{public}?lang=en").get_data(as_text=True)) == hall_lines(
        pair, token
    )


def test_a_page_id_that_comes_again_shows_its_own_state(pair: Pair) -> None:
    """A page's id and its first numbers (generation 1, push 1) come again when the hosted
    copy's database is made anew under the same address: a process that showed the
    earlier page shows the new one, not what it kept (a flake of the PostgreSQL suite)."""
    token = a_hall(pair)
    public = link(pair, token)
    push(pair)
    client = pair.hosted.test_client()
    before = rows(client.get(f"/o/{public}?lang=en").get_data(as_text=True))
    with pair.hall.app_context():
        play_table(setup.get_tournament(token).round_rows[0].tables[0], 1)
    assert push(pair) == ["sent"]
    with pair.hosted.app_context():
        page = db.session.execute(db.select(OnlinePage)).scalar_one()
        page.seq -= 1  # the numbers the kept state had, received anew
        db.session.commit()
    after = rows(client.get(f"/o/{public}?lang=en").get_data(as_text=True))
    assert after != before
    assert after == hall_lines(pair, token)


def test_the_hosted_copy_holds_no_link_of_the_hall(pair: Pair) -> None:
    """What is pushed holds nothing the public link does not show: no organiser, public or
    table link, and the players numbered by their place in the list, not by their row."""
    token = a_hall(pair)
    with pair.hall.app_context():
        tournament = setup.get_tournament(token)
        from scorer.services.tournaments import series

        series.create_series(tournament)
        links = [tournament.token, tournament.view_token, tournament.series.token]
        links += [tournament.series.view_token]
        links += [t.match.token for r in tournament.round_rows for t in r.tables]
        links += [t.match.view_token for r in tournament.round_rows for t in r.tables]
        db.session.remove()
    link(pair, token)
    push(pair)
    _, body, _ = pair.wire.sent[-1]
    plain = zlib.decompress(body).decode()
    assert not [found for found in links if found in plain]
    doc = documents.loads(body)
    assert [p.entrant_id for p in doc.standings.players] == list(range(1, 11))
    assert doc.series is not None and all(not e.token for e in doc.series.evenings)


def test_a_forged_push_is_refused_and_shows_nothing(pair: Pair) -> None:
    token = a_hall(pair)
    public = link(pair, token)
    push(pair)
    url, body, headers = pair.wire.sent[-1]
    client = pair.hosted.test_client()
    before = rows(client.get(f"/o/{public}").get_data(as_text=True))
    forged = dict(headers, **{"X-Scorer-Seq": str(int(headers["X-Scorer-Seq"]) + 1)})
    answer = client.post(url.split("localhost")[-1], data=body, headers=forged)
    assert answer.status_code == 403
    wrong_key = dict(headers, **{"X-Scorer-Signature": signature("ab" * 32, "push", 1, 1, 1, "x")})
    assert client.post(url.split("localhost")[-1], data=body, headers=wrong_key).status_code == 403
    assert rows(client.get(f"/o/{public}").get_data(as_text=True)) == before
    with pair.hosted.app_context():
        assert db.session.get_one(OnlinePage, 1).seq == 1


def test_a_push_sent_twice_is_taken_once_and_an_older_one_is_refused(pair: Pair) -> None:
    token = a_hall(pair)
    public = link(pair, token)
    push(pair)
    first = pair.wire.sent[-1]
    with pair.hall.app_context():
        play_table(setup.get_tournament(token).round_rows[0].tables[1], 1)
    push(pair)
    second = pair.wire.sent[-1]
    client = pair.hosted.test_client()
    path = lambda url: "/" + url.split("/", 3)[-1]  # noqa: E731
    again = client.post(path(second[0]), data=second[1], headers=second[2])
    assert (again.status_code, again.get_json()["taken"]) == (200, False)
    older = client.post(path(first[0]), data=first[1], headers=first[2])  # out of order
    assert older.status_code == 409
    assert rows(client.get(f"/o/{public}?lang=en").get_data(as_text=True)) == hall_lines(
        pair, token
    )


def test_a_new_laptop_takes_over_and_the_old_one_stops(pair: Pair, tmp_path: Path) -> None:
    token = a_hall(pair)
    line, public = make_page(pair.hosted)
    pair.hall.test_client().post(f"/t/{token}/online", data={"line": line})
    assert push(pair) == ["sent"]
    # a second hall (a restored backup on a new laptop) connects with the same line
    with pair.hall.app_context():
        row = db.session.get_one(OnlineLink, setup.get_tournament(token).id)
        old = (row.generation, row.seq)
        play_table(setup.get_tournament(token).round_rows[0].tables[0], 1)
    with two_instances(tmp_path / "second", hosted=pair.hosted) as other:
        other_token = a_hall(other, hands=2)
        other.hall.test_client().post(f"/t/{other_token}/online", data={"line": line})
        assert push(other) == ["sent"]
        shown = rows(pair.hosted.test_client().get(f"/o/{public}?lang=en").get_data(as_text=True))
        assert shown == hall_lines(other, other_token)
        # the old laptop's next push is refused: it stops and says so
        assert push(pair) == ["stopped"]
        with pair.hall.app_context():
            row = db.session.get_one(OnlineLink, setup.get_tournament(token).id)
            assert row.error == "taken over" and (row.generation, row.seq) >= old
        page = pair.hall.test_client().get(f"/t/{token}/online?lang=en")
        assert "Another laptop sends to this page now" in page_text(page)
        again = rows(pair.hosted.test_client().get(f"/o/{public}?lang=en").get_data(as_text=True))
        assert again == shown


def test_a_replayed_connect_is_refused(pair: Pair) -> None:
    token = a_hall(pair)
    link(pair, token)
    push(pair)
    connect = next(s for s in pair.wire.sent if s[0].endswith("/connect"))
    client = pair.hosted.test_client()
    path = "/" + connect[0].split("/", 3)[-1]
    assert client.post(path, data=connect[1], headers=connect[2]).status_code == 409
    with pair.hosted.app_context():
        assert db.session.get_one(OnlinePage, 1).generation == 1


def test_no_connection_then_the_newest_state_when_it_comes_back(pair: Pair) -> None:
    token = a_hall(pair)
    public = link(pair, token)
    pair.wire.cut = True
    assert push(pair) == ["unreachable"]
    page = pair.hall.test_client().get(f"/t/{token}/online?lang=en")
    assert "no connection" in page_text(page)
    with pair.hall.app_context():
        play_table(setup.get_tournament(token).round_rows[0].tables[2], 1)
    assert push(pair) == ["unreachable"]
    pair.wire.cut = False
    assert push(pair) == ["sent"]
    shown = rows(pair.hosted.test_client().get(f"/o/{public}?lang=en").get_data(as_text=True))
    assert shown == hall_lines(pair, token)
    assert "the hosted page shows the state of" in page_text(
        pair.hall.test_client().get(f"/t/{token}/online?lang=en")
    )


def test_a_unit_run_again_never_sends_twice(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    """The connect's answer, the reserved number and the push's answer are each kept in a
    unit of work of their own, the requests between them: each unit loses a race once and
    runs again, and still every request went out once."""
    token = a_hall(pair)
    public = link(pair, token)
    lost: list[str] = []

    def losing_once(real: Callable[..., Any]) -> Callable[..., Any]:
        def inner(*args: Any, **kwargs: Any) -> Any:
            unit = sys._getframe(1).f_code.co_name
            if unit in ("_connected", "_reserve", "_record") and unit not in lost:
                lost.append(unit)
                raise LostRace()
            return real(*args, **kwargs)

        return inner

    monkeypatch.setattr(online_hall, "_sending", losing_once(online_hall._sending))
    monkeypatch.setattr(online_hall, "utcnow", losing_once(online_hall.utcnow))
    assert push(pair) == ["sent"]
    assert lost == ["_connected", "_reserve", "_record"]
    assert [url.rsplit("/", 1)[-1] for url, _, _ in pair.wire.sent] == ["connect", "push"]
    with pair.hall.app_context():
        row = db.session.get_one(OnlineLink, setup.get_tournament(token).id)
        assert (row.seq, row.confirmed, row.error) == (1, 1, "")
    shown = rows(pair.hosted.test_client().get(f"/o/{public}?lang=en").get_data(as_text=True))
    assert shown == hall_lines(pair, token)
    assert push(pair) == ["same"]


@pytest.mark.parametrize(
    "body",
    [b"", b"not zlib", b"x\x9c" + b"\x00" * 20, b"{}", json.dumps({"format": 1}).encode()],
)
def test_junk_signed_with_the_key_is_refused(pair: Pair, body: bytes) -> None:
    token = a_hall(pair)
    line, public = make_page(pair.hosted)
    pair.hall.test_client().post(f"/t/{token}/online", data={"line": line})
    push(pair)
    key = parse_line(line).key
    headers = {
        "X-Scorer-Generation": "1",
        "X-Scorer-Seq": "99",
        "X-Scorer-Signature": signature(key, "push", 1, 1, 99, body_hash(body)),
    }
    answer = pair.hosted.test_client().post("/online/1/push", data=body, headers=headers)
    assert answer.status_code == 400
    assert pair.hosted.test_client().get(f"/o/{public}").status_code == 200


def test_a_taken_down_page_shows_nothing_and_takes_nothing(pair: Pair) -> None:
    token = a_hall(pair)
    line, public = make_page(pair.hosted)
    pair.hall.test_client().post(f"/t/{token}/online", data={"line": line})
    push(pair)
    client = pair.hosted.test_client()
    with pair.hosted.app_context():
        admin = db.session.get_one(OnlinePage, 1).admin_token
    assert client.post(f"/online/a/{admin}/down", data={}).status_code == 303
    assert client.get(f"/o/{public}").status_code == 404
    with pair.hall.app_context():
        play_table(setup.get_tournament(token).round_rows[0].tables[0], 1)
    assert push(pair) == ["refused"]


def test_a_wrong_line_is_refused_in_the_users_language(pair: Pair) -> None:
    token = a_hall(pair)
    client = pair.hall.test_client()
    response = client.post(f"/t/{token}/online", data={"line": "https://example.org/online/1"})
    assert response.status_code == 422
    assert "Der Schlüssel" in page_text(response) or "Schlüssel" in page_text(response)
    assert "https://example.org/online/1" in response.get_data(as_text=True)
    with pair.hall.app_context():
        assert db.session.query(OnlineLink).count() == 0


def test_the_hosted_admin_page_and_form(app: Flask) -> None:
    client = app.test_client()
    assert client.get("/online/new").status_code == 200
    empty = client.post("/online/new", data={"name": ""})
    assert empty.status_code == 422
