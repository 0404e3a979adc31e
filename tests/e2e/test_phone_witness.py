"""What a table phone keeps of its round (static/witness.js), on one laptop: the deals it
sent, forgotten once the round is closed with all of them on the laptop; what another
phone or an older version left in its storage, and hostile values there, dropped or
shown as text, never as markup."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from scorer.extensions import db
from scorer.services.tournaments import rounds
from scorer.tournament_models import Tournament
from tests.e2e.conftest import LiveServer
from tests.tournament_builders import drawn, play_table, tournament_with

pytestmark = pytest.mark.e2e

ROWS = "#sheet tbody tr[id^=hand-]"


def round_of_three(live: LiveServer) -> dict[str, Any]:
    """Nine players, 3 deals, round 1 drawn: the tournament and table 1's link."""
    with live.app.app_context():
        tournament = tournament_with(9, deals=3, rounds_=1)
        row = drawn(tournament)
        out = {"token": tournament.token, "link": row.tables[0].match.token}
        db.session.remove()
    return out


def enter_and_save(page: Page) -> None:
    page.locator("#declarer-set label:has(input[value='0'])").click()
    page.locator("#bid").fill("150")
    page.locator("#trump-set label:has(input[value='E'])").click()
    page.locator("#parties-0-melds").fill("100")
    page.locator("#parties-0-tricks").fill("130")
    page.locator("#parties-1-tricks").fill("60")
    expect(page.locator("#live-result")).to_be_visible()
    page.locator("#hand-form button[type=submit]").click()


def kept(page: Page, link: str) -> Any:
    return page.evaluate(f"() => JSON.parse(localStorage.getItem('scorer.witness.{link}'))")


def test_the_phone_keeps_its_deals_until_the_round_is_closed(
    page: Page, live_server: LiveServer
) -> None:
    hall = round_of_three(live_server)
    page.goto(f"/m/{hall['link']}")
    for count in (1, 2, 3):
        enter_and_save(page)
        if count < 3:
            expect(page.locator(ROWS)).to_have_count(count)
    expect(page.locator("#confirm-0")).to_be_visible()  # the table's result
    record = kept(page, hall["link"])
    assert [d["st"] for d in record["deals"]] == ["saved"] * 3
    assert [d["s"] for d in record["deals"]] == [1, 2, 3]
    assert record["deals"][1]["f"][0][0] in ("declarer", "bid", "trump", "outcome")
    with live_server.app.app_context():
        tournament = db.session.execute(
            select(Tournament).where(Tournament.token == hall["token"])
        ).scalar_one()
        row = tournament.round_rows[0]
        for table in row.tables[1:]:
            play_table(table)
        rounds.close_round(tournament, row)
        db.session.remove()
    # the next question (the connection back: at once) hears the round is closed
    live_server.offline(page)
    live_server.offline(page, False)
    page.wait_for_function(
        f"() => localStorage.getItem('scorer.witness.{hall['link']}') === null"
    )
    expect(page.locator("#witness-panel")).to_be_hidden()


def test_old_and_hostile_storage_is_dropped_or_shown_as_text(
    page: Page, live_server: LiveServer
) -> None:
    hall = round_of_three(live_server)
    link = hall["link"]
    page.goto("/")
    tag = page.evaluate(
        f"() => fetch('/m/{link}/witness').then(r => r.json()).then(b => b.tag)"
    )
    evil = {
        "v": 1,
        "token": link,
        "tag": tag,
        "state": "here",
        "deals": [
            {
                "k": "abc",
                "s": 1,
                "n": 1,
                "f": [["bid", "<img src=x id=evil-bid>"], ["no_such_field", "x"]],
                "st": "saved",
                "why": "<img src=x id=evil-why>",
                "refusedAt": tag,
            },
            {"k": "<script>", "s": 2, "f": [], "st": "saved"},  # no key: dropped
            {"k": "def", "s": 3, "f": "not a list", "st": "saved"},  # dropped
        ]
        + [{"k": f"k{i}", "s": 4, "f": [], "st": "sent"} for i in range(500)],
    }
    page.evaluate(
        """([link, evil]) => {
            const record = JSON.parse(evil);
            record.at = Date.now();
            localStorage.setItem('scorer.witness.' + link, JSON.stringify(record));
            localStorage.setItem('scorer.witness.' + 'x'.repeat(22), 'not json at all');
            localStorage.setItem('scorer.witness.' + 'y'.repeat(22), JSON.stringify({v: 7}));
        }""",
        [link, json.dumps(evil)],
    )
    page.goto(f"/m/{link}")
    panel = page.locator("#witness-panel")
    expect(panel).to_contain_text("<img src=x id=evil-why>")  # as text
    expect(panel).to_contain_text("<img src=x id=evil-bid>")
    expect(page.locator("#evil-why, #evil-bid")).to_have_count(0)
    # the records that are no records went; this one is cut to what a phone keeps
    assert page.evaluate("() => localStorage.getItem('scorer.witness.' + 'x'.repeat(22))") is None
    assert page.evaluate("() => localStorage.getItem('scorer.witness.' + 'y'.repeat(22))") is None
    record = kept(page, link)
    assert len(record["deals"]) <= 60
    assert record["deals"][0]["f"] == [["bid", "<img src=x id=evil-bid>"]]
    assert not any(d["k"] in ("<script>", "def") for d in record["deals"])
    # the page works as ever: a deal is saved once
    enter_and_save(page)
    expect(page.locator(ROWS)).to_have_count(1)


def test_the_deals_of_the_round_before_are_forgotten_once_it_is_closed(
    page: Page, live_server: LiveServer
) -> None:
    with live_server.app.app_context():
        tournament = tournament_with(9, deals=3, rounds_=2)
        row = drawn(tournament)
        first = row.tables[0].match.token
        token = tournament.token
        db.session.remove()
    page.goto(f"/m/{first}")
    enter_and_save(page)
    expect(page.locator(ROWS)).to_have_count(1)
    assert kept(page, first) is not None
    with live_server.app.app_context():
        tournament = db.session.execute(
            select(Tournament).where(Tournament.token == token)
        ).scalar_one()
        row = tournament.round_rows[0]
        for table in row.tables:
            play_table(table)
        rounds.close_round(tournament, row)
        second = drawn(tournament, 2).tables[0].match.token
        db.session.remove()
    # the phone is given round 2's link: round 1's deals are all on the laptop, it is closed
    page.goto(f"/m/{second}")
    page.wait_for_function(f"() => localStorage.getItem('scorer.witness.{first}') === null")
    assert kept(page, second) is not None
