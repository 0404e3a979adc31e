"""A table phone whose saved hand's answer was lost, while the organiser replaced its link.

The phone (390 × 844, German) saves a hand; the server saves it but the answer never
arrives, so static/scorer.js keeps the hand and sends it again.  Meanwhile the
organiser gives the table a new link.  The resend is answered as saved: the phone
forgets the hand (nothing is kept to type again) and shows that its link was
replaced, naming the hand it saved.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.models import Hand
from scorer.services.tournaments import rounds, setup
from tests.e2e.conftest import LiveServer, take_shot
from tests.tournament_builders import drawn, tournament_with

pytestmark = pytest.mark.e2e


def hands_saved(live: LiveServer) -> int:
    with live.app.app_context():
        count = db.session.execute(select(func.count()).select_from(Hand)).scalar_one()
        db.session.remove()
    return int(count)


def draft(page: Page, token: str) -> Any:
    key = page.locator("[data-draft-key]").first.get_attribute("data-draft-key")
    assert key and token in key
    return key


def test_the_resend_after_a_new_link_is_taken_as_saved_and_nothing_is_kept_to_type_again(
    lossy_page: Page, live_server: LiveServer
) -> None:
    page = lossy_page
    with live_server.app.app_context():
        tournament = tournament_with(9, deals=3)
        row = drawn(tournament)
        token, table_id, phone = tournament.token, row.tables[0].id, row.tables[0].match.token
        db.session.remove()
    page.goto(f"/m/{phone}")
    key = draft(page, phone)
    page.locator("#declarer-set label:has(input[value='0'])").click()
    page.locator("#bid").fill("150")
    page.locator("#trump-set label:has(input[value='E'])").click()
    page.locator("#parties-0-melds").fill("100")
    page.locator("#parties-0-tricks").fill("130")
    page.locator("#parties-1-tricks").fill("60")
    page.locator("#parties-2-tricks").fill("60")
    expect(page.locator("#live-result")).to_be_visible()
    page.wait_for_timeout(450)  # the live result's request, asked 350 ms after typing
    expect(page.locator(".htmx-request")).to_have_count(0)

    lost: list[str] = []

    def lose_the_answer(route: Any) -> None:
        lost.append(route.request.url)
        route.fetch()  # the server saves the hand ...
        route.abort("connectionreset")  # ... and the phone never hears of it

    page.route("**/hands", lose_the_answer, times=1)
    page.locator("#hand-form .actions button[type=submit]").click()
    expect(page.locator("#hand-form .offline-note")).to_be_visible()
    assert page.evaluate(f"() => JSON.parse(localStorage.getItem('{key}')).pending") is True
    assert hands_saved(live_server) == 1 and len(lost) == 1

    # the organiser gives the table a new link while the phone waits to send again
    with live_server.app.app_context():
        found = setup.get_tournament(token)
        table = next(t for t in found.round_rows[0].tables if t.id == table_id)
        rounds.replace_link(found, table)
        db.session.remove()

    # the queue sends the hand again by itself: answered as saved
    notice = page.locator("#link-replaced")
    expect(notice).to_contain_text("Dieser Link wurde ersetzt")
    expect(page.locator("#resent-saved")).to_have_text(
        "Spiel 1 wurde gespeichert, bevor dieser Link ersetzt wurde: es steht im "
        "Schreibblock, und das neue Handy zeigt es. Bitte nicht noch einmal eintragen."
    )
    box = page.locator("#resent-saved").bounding_box()
    assert box is not None and 0 <= box["y"] < 844  # in sight, where the phone is
    expect(page.locator("#hand-form")).to_have_count(0)
    assert page.evaluate(f"() => localStorage.getItem('{key}')") is None
    take_shot(page, "t34-resent-after-replaced")
    page.wait_for_timeout(3_500)  # no later attempt of the queue
    assert hands_saved(live_server) == 1

    # a reload shows the old link's notice, and nothing comes back to be typed again
    page.reload()
    expect(page.locator("#link-replaced")).to_contain_text("Dieser Link wurde ersetzt")
    assert page.evaluate(f"() => localStorage.getItem('{key}')") is None
    assert hands_saved(live_server) == 1
