"""A table phone's page left open while the hall's laptop dies and another takes over.

The hall serves the phone; the organiser downloads a backup; the table saves more deals,
then loses the connection and queues one ("wird gesendet, sobald …").  The hall's server
stops for good, and a second laptop — its own database, restored from that backup, its
own secret key — serves on the same address.  Back online, the page that stayed open
sends what the new laptop lacks (the deal told saved and the queued one), each once, and
shows the new laptop's state with a word about it.  A laptop without the table: the page
says so with its deals listed, the organiser's page lists them, the organiser takes them
in, and the page says that too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from flask import Flask
from playwright.sync_api import Page, expect
from sqlalchemy import select

from scorer.extensions import db
from scorer.models import Hand, Match
from scorer.services.backup_format import dumps
from scorer.services.tournaments.backup import export_tournament, restore
from scorer.tournament_models import Tournament
from tests.e2e.conftest import (
    PHONE,
    TIMEOUT_MS,
    LiveServer,
    fits_width,
    no_axe_violations,
    start_server,
    stop_server,
    take_shot,
)
from tests.laptops import second_laptop
from tests.tournament_builders import drawn, tournament_with

pytestmark = pytest.mark.e2e

ROWS = "#sheet tbody tr[id^=hand-]"
# the witness asks at least every 10 s and at once when the connection comes back
WAIT_MS = 30_000
HARMLESS = (
    "Failed to load resource",
    # the hand form's queue sends its kept entry to the new laptop, which refuses the old
    # laptop's form token (400); the page's own witness takes the entry in instead
    "htmx:responseError",
    "htmx:sendError",
    "htmx:afterRequest",
    "Response Status Error Code 400",
)


@pytest.fixture
def phone(browser: Any, live_server: LiveServer) -> Iterator[Page]:
    """A phone at 390×844 whose console may show what a dead laptop makes it show."""
    context = browser.new_context(
        viewport=PHONE,
        locale="de-DE",
        has_touch=True,
        is_mobile=True,
        base_url=live_server.url,
        service_workers="block",
    )
    context.set_default_timeout(TIMEOUT_MS)
    problems: list[str] = []
    page = context.new_page()
    page.on(
        "console",
        lambda msg: (
            problems.append(msg.text)
            if msg.type == "error" and not msg.text.startswith(HARMLESS)
            else None
        ),
    )
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    yield page
    context.close()
    assert problems == []


@pytest.fixture
def spare(tmp_path: Path) -> Iterator[Flask]:
    """The second laptop's app: its own database and secret key."""
    with second_laptop(tmp_path, WTF_CSRF_ENABLED=True) as app:
        yield app


def take_over(live: LiveServer, app: Flask) -> None:
    """The hall's laptop is gone for good; ``app`` serves on its address."""
    port = urlparse(live.url).port
    assert port is not None
    live.line.cut.set()  # a connection the browser kept to the old server: reset
    stop_server(live)
    spare = start_server(app, port)
    live.app, live.server, live.thread, live.line = app, spare.server, spare.thread, spare.line


def hall_tournament(live: LiveServer, *, draw: bool = True) -> dict[str, Any]:
    with live.app.app_context():
        tournament = tournament_with(9, deals=6, rounds_=2)
        out: dict[str, Any] = {"token": tournament.token, "backup": None}
        if not draw:
            out["backup"] = dumps(export_tournament(tournament))
        out["link"] = drawn(tournament).tables[0].match.token
        db.session.remove()
    return out


def backup(live: LiveServer, token: str) -> str:
    """The organiser's "Sicherung herunterladen"."""
    with live.app.app_context():
        found = db.session.execute(select(Tournament).where(Tournament.token == token)).scalar_one()
        text = dumps(export_tournament(found))
        db.session.remove()
    return text


def restored(app: Flask, text: str) -> None:
    with app.app_context():
        assert restore(text).tournament is not None
        db.session.remove()


def keys_at(app: Flask, link: str) -> list[str | None]:
    with app.app_context():
        match = db.session.execute(select(Match).where(Match.token == link)).scalar_one()
        keys = list(
            db.session.execute(
                select(Hand.idempotency_key).where(Hand.match_id == match.id).order_by(Hand.seq)
            ).scalars()
        )
        db.session.remove()
    return keys


def enter(page: Page, declarer: str = "0", bid: str = "150") -> str:
    """The table's Schreiber types a deal (not saved yet); the key it will go with."""
    page.locator(f"#declarer-set label:has(input[value='{declarer}'])").click()
    page.locator("#bid").fill(bid)
    page.locator("#trump-set label:has(input[value='E'])").click()
    page.locator(f"#parties-{declarer}-melds").fill("100")
    page.locator(f"#parties-{declarer}-tricks").fill("130")
    other = "1" if declarer != "1" else "2"
    page.locator(f"#parties-{other}-tricks").fill("60")
    expect(page.locator("#live-result")).to_be_visible()
    # the live result asks 350 ms after the last keystroke: let it finish before a cut
    page.wait_for_timeout(450)
    expect(page.locator(".htmx-request")).to_have_count(0)
    return page.locator("#hand-form input[name=idempotency_key]").input_value()


def save(page: Page) -> None:
    page.locator("#hand-form button[type=submit]").click()


def test_a_page_open_across_a_takeover_sends_what_the_new_laptop_lacks(
    phone: Page, live_server: LiveServer, spare: Flask
) -> None:
    hall = hall_tournament(live_server)
    phone.goto(f"/m/{hall['link']}")
    keys = [enter(phone)]
    save(phone)
    expect(phone.locator(ROWS)).to_have_count(1)
    text = backup(live_server, hall["token"])  # the organiser's file: deal 1
    keys.append(enter(phone, declarer="1"))
    save(phone)
    expect(phone.locator(ROWS)).to_have_count(2)  # told saved
    # the table enters deal 3; as it saves, the laptop dies: the phone queues it
    keys.append(enter(phone, declarer="2"))
    live_server.offline(phone)
    save(phone)
    expect(phone.locator("#hand-form .offline-note")).to_be_visible()
    # a second laptop, restored from the file, serves on the hall's address
    restored(spare, text)
    take_over(live_server, spare)
    assert keys_at(spare, hall["link"]) == keys[:1]
    live_server.offline(phone, False)
    note = phone.locator("#witness-panel")
    # (on a machine so busy that the answer to what the phone sent came too late, the page
    # finds the deals on the laptop at its next question and says just that)
    said = re.compile("fehlten 2 Spiele dieses Tisches|er hat alle Spiele dieses Tisches")
    expect(note).to_contain_text(said, timeout=WAIT_MS)
    expect(phone.locator(ROWS)).to_have_count(3)
    expect(phone.locator(".tb-deal")).to_have_text("Spiel 4 von 6")
    expect(phone.locator("#bid")).to_have_value("")  # the queued deal is not "unsent" now
    assert keys_at(spare, hall["link"]) == keys
    assert fits_width(phone)
    take_shot(phone, "phone-after-takeover")
    no_axe_violations(phone, "a table's page after a takeover")
    # the page goes on with the new laptop; nothing is sent twice
    keys.append(enter(phone))
    save(phone)
    expect(phone.locator(ROWS)).to_have_count(4)
    assert keys_at(spare, hall["link"]) == keys


def test_a_laptop_without_the_table_hears_from_the_phone_and_the_organiser_takes_it_in(
    phone: Page, live_server: LiveServer, spare: Flask, make_page: Any
) -> None:
    # the organiser's file is from before the draw: the new laptop has no round yet
    hall = hall_tournament(live_server, draw=False)
    phone.goto(f"/m/{hall['link']}")
    keys = [enter(phone)]
    save(phone)
    expect(phone.locator(ROWS)).to_have_count(1)
    keys.append(enter(phone, declarer="1"))
    save(phone)
    expect(phone.locator(ROWS)).to_have_count(2)
    live_server.offline(phone)
    restored(spare, hall["backup"])
    take_over(live_server, spare)
    live_server.offline(phone, False)
    panel = phone.locator("#witness-panel")
    expect(panel).to_contain_text("Runde 1, Tisch 1 gibt es auf dem Laptop", timeout=WAIT_MS)
    expect(panel).to_contain_text("bitte der Turnierleitung melden")
    expect(panel.locator(".witness-deals li")).to_have_count(2)
    expect(panel.locator(".witness-deals li").first).to_contain_text("Spiel 1: ")
    expect(panel).to_contain_text("gemeldet um", timeout=WAIT_MS)
    assert fits_width(phone)
    take_shot(phone, "phone-table-missing")
    no_axe_violations(phone, "a table's page on a laptop without the table")
    # the organiser draws round 1 on the new laptop (the same seed: the same seats) and
    # takes the phone's deals in from the organiser's page
    organiser = make_page()
    organiser.goto(f"/t/{hall['token']}")
    organiser.get_by_role("button", name="Runde 1 auslosen").click()
    organiser.goto(f"/t/{hall['token']}")
    expect(organiser.locator("#phone-reports")).to_be_visible()
    organiser.locator("#phone-reports-link").click()
    expect(organiser.locator(".t-phone-report")).to_contain_text("Runde 1 · Tisch 1")
    take_shot(organiser, "organiser-phone-reports")
    no_axe_violations(organiser, "what the phones hold")
    organiser.get_by_role("button", name="2 Spiele bei Tisch 1 übernehmen").click()
    expect(organiser.locator("#no-phone-reports")).to_be_visible()
    new_link = keys_at_new_table(spare, hall["token"])
    assert new_link == keys
    # the phone hears of it at its next question
    expect(panel).to_contain_text("hat die Spiele dieses Handys übernommen", timeout=WAIT_MS)


def keys_at_new_table(app: Flask, token: str) -> list[str | None]:
    with app.app_context():
        found = db.session.execute(select(Tournament).where(Tournament.token == token)).scalar_one()
        link = found.round_rows[0].tables[0].match.token
        db.session.remove()
    return keys_at(app, link)
