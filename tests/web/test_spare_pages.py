"""The pages of the spare laptop as the organiser meets them, on both laptops.

The hall's page "If this laptop dies" pairs a spare (a line to type) and says how
far behind it is; the spare's page takes the line, lists what it holds and how far
behind it is, takes over with one tap (asking first while the hall seems alive),
then checks the address the printed cards carry and says what to do when it is
not this laptop's.  Both laptops' other pages say what the laptop is, and refuse
saves with a clear message when it is not the hall.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from scorer.extensions import db
from scorer.models import utcnow
from scorer.services.spare import receive, takeover
from scorer.services.tournaments import setup
from scorer.tournament_models import Tournament
from tests.builders import HX, enter_hand, hand_data, page_text
from tests.spare_builders import (
    SPARE_ADDRESS,
    Laptops,
    follow,
    follow_until_same,
    pair,
    pairing_line,
    take_over,
    two_laptops,
)
from tests.tournament_builders import TABLE_HAND, drawn, play_round, tournament_with


def english(client: object) -> object:
    """A client that reads the pages in English (the language cookie)."""
    client.get("/?lang=en")  # type: ignore[attr-defined]
    return client


@pytest.fixture
def laptops(tmp_path: Path) -> Iterator[Laptops]:
    with two_laptops(tmp_path) as both:
        with both.hall.test_request_context("/"):
            tournament = tournament_with(9, deals=3, rounds_=2)
            play_round(drawn(tournament, 1), hands=2)
            db.session.remove()
        yield both


def table_token(app: object, number: int = 1) -> str:
    with app.app_context():  # type: ignore[attr-defined]
        tournament = db.session.query(Tournament).first()
        assert tournament is not None
        token = tournament.round_rows[-1].tables[number - 1].match.token
        db.session.remove()
    return token


def test_the_hall_s_page_pairs_a_spare_and_says_how_far_behind_it_is(laptops: Laptops) -> None:
    client = english(laptops.hall.test_client())
    text = page_text(client.get("/hall"))
    assert "No spare yet" in text and "No backup to a folder" in text
    line = pairing_line(laptops.hall)
    assert re.fullmatch(r"http://127\.0\.0\.1:5000/hall#(?:[0-9A-Z]{4}-){3}[0-9A-Z]{4}", line)
    page = client.get("/hall").get_data(as_text=True)
    assert "Valid until" in page and "/hall/line.svg" in page
    assert client.get("/hall/line.svg").mimetype == "image/svg+xml"
    pair(laptops)
    assert "Waiting for the spare" in page_text(client.get("/hall"))
    follow_until_same(laptops)
    status = client.get("/hall/status", headers=HX)
    assert "The spare is up to date" in page_text(status)
    assert 'id="hall-status"' in status.get_data(as_text=True)  # the part alone, for htmx
    # the spare away: the hall's page says so, and how far behind it falls
    laptops.wire.cut.add(SPARE_ADDRESS)
    with laptops.hall.app_context():
        tournament = db.session.query(Tournament).first()
        assert tournament is not None
        play_round(tournament.round_rows[0])
        db.session.remove()
    follow(laptops)
    text = page_text(client.get("/hall/status", headers=HX))
    assert "does not answer" in text and "The spare lacks what was entered after" in text


def test_the_spare_s_page_lists_what_it_holds_and_takes_over(
    laptops: Laptops, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "heard from a moment ago", however slow this machine is between the push and the tap
    monkeypatch.setattr(takeover, "ALIVE", timedelta(hours=1))
    spare = english(laptops.spare.test_client())
    text = page_text(spare.get("/spare"))
    assert "Type the line it shows here" in text
    pair(laptops)
    follow_until_same(laptops)
    text = page_text(spare.get("/spare"))
    assert "Following the hall" in text and "http://127.0.0.1:5000" in text
    assert "Herbstturnier" in text and "round 1 (in play)" in text and "6 deals" in text
    assert "heard from" in text
    # every page of the spare says it is the spare; a save is refused with why
    token = table_token(laptops.spare)
    page = page_text(spare.get(f"/m/{token}"))
    assert "This laptop is the spare" in page
    form = hand_data(spare, token, **TABLE_HAND)
    refused = spare.post(f"/m/{token}/hands", data=form, headers=HX)
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    assert "this laptop is the spare" in page_text(refused)
    # the hall was heard from a moment ago: the tap asks first
    asked = spare.post("/spare/takeover", data={})
    assert asked.status_code == 409 and "seems to be running" in page_text(asked)
    assert 'name="sure" value="1"' in asked.get_data(as_text=True)
    done = spare.post("/spare/takeover", data={"sure": "1"})
    assert done.status_code == 303
    assert "This laptop is the hall now" in page_text(spare.get("/spare"))
    text = page_text(spare.get("/spare?lang=en", base_url="http://127.0.0.2:5000"))
    assert "The cards lead to http://127.0.0.1:5000: this laptop serves it" in text
    # it takes the table's deals now
    enter_hand(spare, token, **TABLE_HAND)


def test_a_dead_hall_is_taken_over_with_one_tap(laptops: Laptops) -> None:
    pair(laptops)
    follow_until_same(laptops)
    with laptops.spare.app_context():
        row = receive.following()
        assert row is not None
        row.received_at = utcnow() - timedelta(minutes=2)  # nothing heard for two minutes
        db.session.commit()
    answer = english(laptops.spare.test_client()).post("/spare/takeover", data={})
    assert answer.status_code == 303


def test_the_takeover_says_when_the_cards_lead_elsewhere(laptops: Laptops) -> None:
    with laptops.hall.app_context():
        tournament = db.session.query(Tournament).first()
        assert tournament is not None
        setup.update_settings(tournament, {"public_url": "http://198.51.100.7:5000"})
        db.session.remove()
    pair(laptops)
    follow_until_same(laptops)
    take_over(laptops)
    spare = english(laptops.spare.test_client())
    text = page_text(spare.get("/spare?lang=en", base_url="http://127.0.0.2:8000"))
    assert "The cards lead to http://198.51.100.7:5000, but this laptop does not serve" in text
    assert "Open this laptop's hotspot with the same name and password" in text
    assert "start it with PORT=5000" in text
    assert "Check again" in text


def test_the_old_hall_s_pages_say_it_was_replaced_and_refuse_saves(laptops: Laptops) -> None:
    pair(laptops)
    follow_until_same(laptops)
    take_over(laptops)
    laptops.feed.contacted = 0.0
    assert follow(laptops) == ["stopped"]
    client = english(laptops.hall.test_client())
    token = table_token(laptops.hall)
    page = page_text(client.get(f"/m/{token}"))
    assert "This laptop is no longer the hall" in page
    refused = client.post(f"/m/{token}/hands", data=hand_data(client, token, **TABLE_HAND))
    assert refused.status_code == 503
    assert "no longer the hall. The spare laptop took over" in page_text(refused)
    assert refused.headers["X-Scorer-Laptop"] == "replaced"
    status = page_text(client.get("/hall/status", headers=HX))
    assert "This laptop is no longer the hall" in status


def test_a_table_not_on_this_laptop_says_so_plainly(laptops: Laptops) -> None:
    missing = english(laptops.hall.test_client()).get("/m/" + "A" * 22)
    assert missing.status_code == 404 and missing.headers["X-Scorer-Not-Here"] == "match"
    assert "This match is not on this laptop" in page_text(missing)
    pair(laptops)
    follow_until_same(laptops)
    take_over(laptops)
    missing = english(laptops.spare.test_client()).get("/m/" + "A" * 22)
    text = page_text(missing)
    assert "This table is not on this laptop" in text and "Herbstturnier" in text
    assert "tell the organisers" in text
