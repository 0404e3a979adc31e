"""An evening's backup is whole, and a restore says what it restored (issue 35 §3, §4).

The night of the issue: a series evening on a hall, online; the organiser
downloads the evening's backup; the laptop dies; a second laptop restores it.
The evening comes back inside its series (the series ranking, the draw across
the evenings counting the evening before), the hosted copy follows the new
laptop and refuses the old one, the restore's answer and the organiser's page say
the file's time, its last round and its deals, the public pages say "restored,
state of …", and a table link the file does not hold says so plainly.
"""

from __future__ import annotations

import io
import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorer.extensions import db
from scorer.online_models import OnlineLink
from scorer.services.tournaments import entrants, rounds, series, series_people, setup
from tests.builders import page_text
from tests.online_builders import Pair, make_page, two_instances
from tests.tournament_builders import drawn, play_round, play_table, tournament_with
from tests.web.test_online import push, rows


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    with two_instances(tmp_path) as made:
        yield made


def a_series_evening(pair: Pair) -> tuple[str, str]:
    """Evening 1 played and closed; evening 2 drawn, two deals at a table; its tokens."""
    with pair.hall.app_context():
        one = tournament_with(9, deals=3, rounds_=1, name="Cup 1")
        play_round(drawn(one, 1))
        rounds.close_round(one, one.round_rows[0])
        cup = series.create_series(one)
        two = series.new_evening(cup, idempotency_key=secrets.token_hex(8))
        two.rounds = 2
        db.session.commit()
        series_people.register_people(two)
        entrants.check_in_all(two)
        play_table(drawn(two, 1).tables[0], 2)
        tokens = (cup.token, two.token)
        db.session.remove()
    return tokens


def restore(app: Any, data: dict[str, Any]) -> Any:
    client = app.test_client()
    client.get("/?lang=en")
    body = {"file": (io.BytesIO(json.dumps(data).encode()), "evening.json")}
    answer = client.post("/t/restore", data=body, content_type="multipart/form-data")
    assert answer.status_code == 303, page_text(answer)[:2000]
    return client, answer


def test_the_evening_comes_back_inside_its_series_and_online(pair: Pair, tmp_path: Path) -> None:
    cup_token, evening = a_series_evening(pair)
    line, public = make_page(pair.hosted)
    hall = pair.hall.test_client()
    hall.get("/?lang=en")
    assert hall.post(f"/t/{evening}/online", data={"line": line}).status_code == 303
    assert push(pair) == ["sent"]
    # the evening's backup section says what the file holds
    text = page_text(hall.get(f"/t/{evening}"))
    assert "together with its series “Cup”: all 2 evenings" in text
    assert "With its connection to the results online" in text
    data = json.loads(hall.get(f"/t/{evening}/backup.json").data)
    assert data["format"] == "scorer-series" and data["evening"] == 2
    assert len(data["series"]["evenings"]) == 2
    # the laptop dies; a second one restores the evening's file
    with two_instances(tmp_path / "second", hosted=pair.hosted) as other:
        client, answer = restore(other.hall, data)
        assert answer.headers["Location"] == f"/t/{evening}"  # the evening, not the series
        page = page_text(client.get(f"/t/{evening}"))
        assert "Restored: the state of the file" in page
        assert "round 1 (in play), 2 deals" in page
        assert "The results online follow this laptop now" in page
        assert "The evening came back inside its series “Cup” (2 evenings)" in page
        assert "Brought back on this laptop" in page and "Restored from a backup at" in page
        assert "This evening belongs to the series “Cup”" in page
        assert "Make a series" not in page
        # the series is here, with both evenings: its ranking counts evening 1
        with other.hall.app_context():
            made = series.get_series(cup_token)
            assert [t.token for t in made.tournaments][1] == evening
            assert len(made.tournaments) == 2
            second = setup.get_tournament(evening)
            assert series_people.earlier_counted(second) == 1
            assert series_people.met_before(second)  # the draw counts evening 1's tables
            link = db.session.get(OnlineLink, second.id)
            assert link is not None and link.generation is None
            play_round(second.round_rows[0])
            rounds.close_round(second, second.round_rows[0])
            row = drawn(second, 2)
            view = second.view_token
            db.session.remove()
        round_page = page_text(client.get(f"/t/{evening}/rounds/2"))
        assert (
            "this evening or of the evening before" in round_page
            or "counted: this evening and the evening before" in round_page
        )
        assert row is not None
        # the public pages say it was restored (until a new round is drawn: round 2 is)
        public_page = page_text(client.get(f"/p/{view}"))
        assert "restored, state of" not in public_page
        # the hosted copy follows the new laptop, and refuses the old one
        assert push(other) == ["sent"]
        shown = rows(pair.hosted.test_client().get(f"/o/{public}?lang=en").get_data(as_text=True))
        with other.hall.app_context():
            assert shown and len(shown) == 9
        # the old laptop comes back and its table saves a deal: the hosted copy refuses it
        with pair.hall.app_context():
            old = setup.get_tournament(evening)
            play_table(old.round_rows[0].tables[0], 1)
            db.session.remove()
        assert push(pair) == ["stopped"]


def test_the_public_pages_say_a_restore_moved_them_back(pair: Pair, tmp_path: Path) -> None:
    with pair.hall.app_context():
        tournament = tournament_with(9, deals=3, rounds_=2)
        play_round(drawn(tournament, 1), hands=2)
        token, view = tournament.token, tournament.view_token
        db.session.remove()
    data = json.loads(pair.hall.test_client().get(f"/t/{token}/backup.json").data)
    with two_instances(tmp_path / "second", hosted=pair.hosted) as other:
        client, _ = restore(other.hall, data)
        for path in (f"/p/{view}", f"/p/{view}/seats", f"/p/{view}/players/1"):
            assert "restored, state of" in page_text(client.get(path)), path
        # a table drawn after the file was made is not here: its link says so plainly
        missing = client.get("/m/" + "Z" * 22)
        text = page_text(missing)
        assert missing.status_code == 404
        assert "This table is not on this laptop" in text and "Herbstturnier" in text
        assert "a table drawn or changed after that is not in it" in text
        assert "Not on this laptop" in text


def test_a_copy_does_not_take_the_online_connection(pair: Pair) -> None:
    with pair.hall.app_context():
        tournament = tournament_with(9, deals=3)
        token = tournament.token
        db.session.remove()
    line, _ = make_page(pair.hosted)
    pair.hall.test_client().post(f"/t/{token}/online", data={"line": line})
    data = json.loads(pair.hall.test_client().get(f"/t/{token}/backup.json").data)
    client, answer = restore(pair.hall, data)  # the same laptop: a copy with new links
    page = page_text(client.get(answer.headers["Location"]))
    assert "restored as a copy with new links" in page
    assert "The results online follow this laptop now" not in page
    with pair.hall.app_context():
        assert db.session.query(OnlineLink).count() == 1


def test_a_file_with_a_broken_online_connection_is_refused(pair: Pair) -> None:
    with pair.hall.app_context():
        tournament = tournament_with(9, deals=3)
        token = tournament.token
        db.session.remove()
    data = json.loads(pair.hall.test_client().get(f"/t/{token}/backup.json").data)
    for bad in ({"address": "ftp://x/online/1", "key": "ab" * 32}, {"address": 3}, "x"):
        data["tournament"]["online"] = bad
        client = pair.hosted.test_client()
        body = {"file": (io.BytesIO(json.dumps(data).encode()), "t.json")}
        answer = client.post("/t/restore?lang=en", data=body, content_type="multipart/form-data")
        assert answer.status_code == 422
        assert "Nothing was restored" in page_text(answer) and "online" in page_text(answer)
    data["tournament"]["online"] = None
    data_copy = {**data, "evening": 3}
    body = {"file": (io.BytesIO(json.dumps(data_copy).encode()), "t.json")}
    # a tournament's file naming an evening: it is no series, the name is ignored
    answer = pair.hosted.test_client().post(
        "/t/restore", data=body, content_type="multipart/form-data"
    )
    assert answer.status_code == 303
