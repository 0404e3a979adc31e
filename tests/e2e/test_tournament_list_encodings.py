"""The organiser imports a club's CSV in an old encoding on a phone (390 × 844, German).

A Windows-1252 file shows its names first, saying how it was read; the organiser
registers them with one tap.  A Shift-JIS file read that way shows garbled names,
marked: the organiser registers nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer.extensions import db
from scorer.services.tournaments import setup
from tests.e2e.conftest import LiveServer, fits_width, no_axe_violations

pytestmark = pytest.mark.e2e


def registered(live: LiveServer, token: str) -> list[str]:
    with live.app.app_context():
        found = sorted(e.name for e in setup.get_tournament(token).entrants)
        db.session.remove()
    return found


def players_page(live: LiveServer, page: Page) -> str:
    """A new tournament's players page, open; the tournament's token."""
    with live.app.app_context():
        token = setup.create_tournament(name="Preisbinokel", rounds=3).token
        db.session.remove()
    page.goto(f"/t/{token}/players")
    return token


def choose_file(page: Page, name: str, data: bytes) -> None:
    page.locator("#import-form input[type=file]").set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": data}]
    )
    page.locator("#import-form button[type=submit]").click()


def test_an_old_excel_csv_shows_its_names_and_one_tap_registers_them(
    live_server: LiveServer, page: Page, shot: Callable[[Any, str], Path]
) -> None:
    token = players_page(live_server, page)
    names = ["Jürgen Weiß", "Bärbel Öhler", "Xaver Ott"]
    data = ("Name;Verein\r\n" + "\r\n".join(f"{n};TSV" for n in names)).encode("cp1252")
    choose_file(page, "Mitglieder.csv", data)

    check = page.locator("#import-check")
    expect(check).to_contain_text("als Windows-1252 (westeuropäisch) gelesen")
    expect(check.locator(".t-import-names li")).to_have_count(3)
    expect(check.locator(".t-import-names")).to_contain_text("Jürgen Weiß")
    top = check.bounding_box()
    assert top is not None and top["y"] < 844  # in sight after the upload
    assert registered(live_server, token) == []
    assert fits_width(page)
    no_axe_violations(page, "the names of a Windows-1252 list")
    shot(page, "t34-import-check")

    page.get_by_role("button", name="Ja, diese 3 Spieler anmelden").click()
    expect(page.locator(".flash-ok").first).to_contain_text("3 Spieler angemeldet.")
    assert registered(live_server, token) == sorted(names)


def test_a_shift_jis_list_shows_garbled_names_and_registers_nothing(
    live_server: LiveServer, page: Page, shot: Callable[[Any, str], Path]
) -> None:
    token = players_page(live_server, page)
    choose_file(page, "members.csv", "山田太郎\r\n鈴木花子\r\n".encode("shift_jis"))
    expect(page.locator("#import-check-garbled")).to_contain_text(
        "2 Namen enthalten Zeichen, die kein Name hat"
    )
    expect(page.locator(".t-import-names .t-garbled")).to_have_count(2)
    shot(page, "t34-import-garbled")
    page.get_by_role("link", name="Nein, niemanden anmelden").click()
    page.wait_for_url(f"**/t/{token}/players#import")
    expect(page.locator("#import-check")).to_have_count(0)
    assert registered(live_server, token) == []
