"""The beamer (1920 × 1080) while the organiser's laptop cannot be reached: no script error,
a line saying the laptop is not reachable (the last state stays on the screen), gone
again as soon as the laptop answers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer.extensions import db
from tests.e2e.conftest import LiveServer
from tests.tournament_builders import drawn, play_round, tournament_with

pytestmark = pytest.mark.e2e

BEAMER = {"width": 1920, "height": 1080}


@pytest.fixture
def beamer(make_page: Callable[..., Any]) -> Page:
    """A wide screen's page: a script error fails the test (tests/e2e/conftest.py)."""
    page: Page = make_page(viewport=BEAMER, is_mobile=False, has_touch=False, lost_requests=True)
    page.set_default_timeout(15_000)
    return page


def test_the_beamer_says_the_laptop_is_not_reachable_and_throws_nothing(
    live_server: LiveServer, beamer: Page, shot: Callable[[Any, str], Path]
) -> None:
    with live_server.app.app_context():
        tournament = tournament_with(30, deals=3)
        play_round(drawn(tournament), hands=1)
        view = tournament.view_token
        db.session.remove()
    beamer.goto(f"/p/{view}")
    expect(beamer.locator("#live[data-beamer]")).to_be_visible()  # measured, paged
    note = beamer.locator("#unreachable")
    expect(note).to_be_hidden()

    live_server.line.cut.set()  # the laptop's server answers nothing any more
    # the beamer asks anew for the lines that fit (a resized window), and polls
    beamer.set_viewport_size({"width": 1920, "height": 800})
    expect(note).to_be_visible()
    expect(note).to_have_text(
        "Der Laptop der Turnierleitung ist gerade nicht erreichbar: hier steht der letzte "
        "Stand. Sobald er wieder antwortet, geht es von selbst weiter."
    )
    box = note.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800  # on the screen
    first = beamer.locator("table[data-ranking]").bounding_box()
    assert first is not None and first["y"] < box["y"]  # the ranking stays where it was
    expect(beamer.locator("table[data-ranking] tbody tr").first).to_be_visible()  # kept
    shot(beamer, "t34-beamer-unreachable")
    beamer.wait_for_timeout(3_500)  # a poll fails meanwhile too: still no script error

    live_server.line.cut.clear()
    expect(note).to_be_hidden()
