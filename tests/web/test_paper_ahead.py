"""A round's paper is kept by what it shows and made ahead, in a process of its own.

The cards and slips of a round show its draw, never a hand: a saved hand leaves
them in the cache (nothing is rendered again), a replaced link renders the cards
again (the slips show no link), a renamed player both.  With ``PDF_AHEAD`` the
draw hands them to a child process at a lower priority that holds a work slot
while it renders; a tap meanwhile is told they are being prepared (202, the page
asks again), and once the child is done the tap gets them from the cache.  The
tests wait for the child's end (:func:`scorer.ahead.running`), never for a time.
"""

from __future__ import annotations

import fcntl
import io
import os
import subprocess
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from pypdf import PdfReader

from scorer import ahead, services
from scorer.pdf import tournament as documents
from scorer.services.tournaments import entrants, rounds, setup
from scorer.views.tournaments import printouts
from tests.builders import page_text
from tests.tournament_builders import a_hand, drawn, tournament_with

CHILD_TIMEOUT = 300
"""Seconds a test waits for a child to end before it fails (a child that hangs)."""


@pytest.fixture
def app_config(tmp_path: Path) -> dict[str, Any]:
    return {
        "PDF_CACHE_DIR": str(tmp_path / "pdf-cache"),
        "WORK_SLOT_DIR": str(tmp_path / "work-slots"),
        "PUBLIC_URL": "http://192.168.4.1:5000",
    }


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every printout this process renders, counted by its template."""
    counted: Counter[str] = Counter()
    real = documents.render_document

    def counting(template: str, **kwargs: Any) -> bytes:
        counted[template] += 1
        return real(template, **kwargs)

    monkeypatch.setattr(documents, "render_document", counting)
    return counted


def a_round(app: Flask, players: int = 9) -> str:
    with app.app_context():
        tournament = tournament_with(players, rounds_=3)
        drawn(tournament, 1)
        return str(tournament.token)


def text_of(data: bytes) -> str:
    return " ".join(
        " ".join(p.extract_text() or "" for p in PdfReader(io.BytesIO(data)).pages).split()
    )


def both(client: FlaskClient, token: str) -> tuple[bytes, bytes]:
    """The round's cards and slips, each a PDF."""
    found = []
    for kind in ("cards", "slips"):
        response = client.get(f"/t/{token}/rounds/1/{kind}.pdf?lang=en")
        assert response.status_code == 200 and response.data.startswith(b"%PDF"), kind
        found.append(response.data)
    return found[0], found[1]


# -- kept by what they show -------------------------------------------------------------


def test_a_saved_hand_leaves_the_rounds_cards_and_slips_in_the_cache(
    app: Flask, client: FlaskClient, renders: Counter[str]
) -> None:
    token = a_round(app)
    cards, slips = both(client, token)
    assert renders == {"cards.html": 1, "slips.html": 1}
    with app.app_context():
        table = setup.get_tournament(token).round_rows[0].tables[0]
        services.save_hand(table.match, a_hand(table.match))
    assert both(client, token) == (cards, slips)
    assert renders == {"cards.html": 1, "slips.html": 1}  # nothing rendered again
    # the ranking shows the hand: it is made again
    client.get(f"/t/{token}/ranking.pdf?lang=en")
    with app.app_context():
        table = setup.get_tournament(token).round_rows[0].tables[1]
        services.save_hand(table.match, a_hand(table.match))
    assert client.get(f"/t/{token}/ranking.pdf?lang=en").status_code == 200
    assert renders["ranking.html"] == 2


def test_a_replaced_link_makes_new_cards_and_keeps_the_slips(
    app: Flask, client: FlaskClient, renders: Counter[str]
) -> None:
    token = a_round(app)
    cards, slips = both(client, token)
    with app.app_context():
        tournament = setup.get_tournament(token)
        rounds.replace_link(tournament, tournament.round_rows[0].tables[1])
    new_cards, same_slips = both(client, token)
    assert new_cards != cards and same_slips == slips
    assert renders == {"cards.html": 2, "slips.html": 1}


def test_a_renamed_player_makes_both_again(
    app: Flask, client: FlaskClient, renders: Counter[str]
) -> None:
    token = a_round(app)
    both(client, token)
    with app.app_context():
        tournament = setup.get_tournament(token)
        entrant = tournament.entrants[0]
        entrants.edit(tournament, entrant, "Walburga Renamed", entrant.club, "")
    cards, slips = both(client, token)
    assert renders == {"cards.html": 2, "slips.html": 2}
    assert "Walburga Renamed" in text_of(cards) and "Walburga Renamed" in text_of(slips)
    # the same round in the other language is another printout
    assert client.get(f"/t/{token}/rounds/1/cards.pdf?lang=de").status_code == 200
    assert renders["cards.html"] == 3


# -- made ahead --------------------------------------------------------------------------


def wait_for_children() -> None:
    for child in ahead.running():
        try:
            child.wait(timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            child.kill()  # a test leaves no process behind, even a hung one
            child.wait()
            raise
    assert not ahead.running()


@pytest.fixture
def ahead_app(app: Flask) -> Iterator[Flask]:
    """The app with ``PDF_AHEAD`` on; every child it starts has ended after the test."""
    app.config.update(PDF_AHEAD=True, PDF_AHEAD_WAIT=CHILD_TIMEOUT)
    try:
        yield app
    finally:
        wait_for_children()


@contextmanager
def slot_held(app: Flask) -> Iterator[None]:
    """The only work slot taken (another render): a child waits for it, so a test sees it
    running, whatever the machine's speed."""
    folder = Path(app.config["WORK_SLOT_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "slot-0.lock").open("ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def draw_through_the_page(client: FlaskClient, token: str) -> None:
    response = client.post(f"/t/{token}/rounds?lang=en", data={"number": "1", "back": ""})
    assert response.status_code == 303


def a_tournament(app: Flask) -> str:
    with app.app_context():
        return str(tournament_with(9, rounds_=3).token)


def test_the_draw_makes_the_cards_and_slips_ahead(ahead_app: Flask, renders: Counter[str]) -> None:
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    with slot_held(ahead_app):
        draw_through_the_page(client, token)  # answers at once: a child renders
        children = ahead.running()
        assert len(children) == 1
    wait_for_children()
    assert children[0].returncode == 0
    cards, slips = both(client, token)
    assert not renders  # both came from the cache: this process rendered nothing
    assert "Table 3" in text_of(cards) and "Paper slip · Round 1 · Table 3" in text_of(slips)
    # the round page finds them kept: nothing more is started
    assert client.get(f"/t/{token}/rounds/1?lang=en").status_code == 200
    assert not ahead.running()
    assert not list(Path(ahead_app.config["PDF_CACHE_DIR"]).glob("*.making"))


def test_a_tap_while_they_are_made_is_told_when_they_are_ready(
    ahead_app: Flask, renders: Counter[str]
) -> None:
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    with slot_held(ahead_app):
        draw_through_the_page(client, token)
        (child,) = ahead.running()
        # the child waits for the slot, at a lower priority than this process
        assert os.getpriority(os.PRIO_PROCESS, child.pid) > os.getpriority(os.PRIO_PROCESS, 0)
        for kind in ("cards", "slips"):
            response = client.get(f"/t/{token}/rounds/1/{kind}.pdf?lang=en")
            assert response.status_code == 202, kind
            assert 1 <= int(response.headers["Retry-After"]) <= printouts.RETRY_MOST
            assert response.headers["Cache-Control"] == "no-store"
            text = page_text(response)
            assert "Being prepared: ready in about" in text
            assert "This page reloads itself and shows the PDF" in text
            refresh = f'content="{response.headers["Retry-After"]}"'
            assert refresh in response.get_data(as_text=True)
        # the round page again (a second tab): no second child for the same paper
        assert client.get(f"/t/{token}/rounds/1?lang=en").status_code == 200
        assert ahead.running() == [child]
    wait_for_children()
    both(client, token)
    assert not renders  # the taps rendered nothing themselves


def test_a_tap_before_anything_was_made_hands_a_big_round_to_a_child(
    ahead_app: Flask, monkeypatch: pytest.MonkeyPatch, renders: Counter[str]
) -> None:
    token = a_round(ahead_app)  # drawn without the page: nothing made ahead
    monkeypatch.setattr(printouts, "INLINE_SECONDS", 0.0)  # three tables count as big
    client = ahead_app.test_client()
    with slot_held(ahead_app):
        first = client.get(f"/t/{token}/rounds/1/slips.pdf?lang=en")
        assert first.status_code == 202
        assert len(ahead.running()) == 1  # one child makes the round's cards too, then slips
        # the cards tapped next: under way already, no second child
        assert client.get(f"/t/{token}/rounds/1/cards.pdf?lang=en").status_code == 202
        assert len(ahead.running()) == 1
    wait_for_children()
    again = client.get(f"/t/{token}/rounds/1/slips.pdf?lang=en")
    assert again.status_code == 200 and again.data.startswith(b"%PDF")
    assert client.get(f"/t/{token}/rounds/1/cards.pdf?lang=en").status_code == 200
    assert not renders
    # one table's slip is small: made in the request
    one = client.get(f"/t/{token}/rounds/1/slips.pdf?table=2&lang=en")
    assert one.status_code == 200 and renders == {"slips.html": 1}


def test_a_redraw_makes_the_new_seating_ahead(ahead_app: Flask, renders: Counter[str]) -> None:
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)
    wait_for_children()
    before = both(client, token)
    with slot_held(ahead_app):
        response = client.post(f"/t/{token}/rounds/1/redraw?lang=en", data={"attempt": "1"})
        assert response.status_code == 303
        assert len(ahead.running()) == 1
    wait_for_children()
    after = both(client, token)
    assert after[0] != before[0] and after[1] != before[1]
    assert not renders


def test_a_small_rounds_paper_waits_for_a_busy_slot_in_a_child_not_in_the_request(
    ahead_app: Flask, renders: Counter[str]
) -> None:
    token = a_round(ahead_app)  # three tables: small enough for the request, but no slot
    client = ahead_app.test_client()
    with slot_held(ahead_app):
        waiting = client.get(f"/t/{token}/rounds/1/cards.pdf?lang=en")
        assert waiting.status_code == 202 and len(ahead.running()) == 1
        # a ranking is no round's paper: busy, try again
        busy = client.get(f"/t/{token}/ranking.pdf?lang=en")
        assert busy.status_code == 503 and "Retry-After" in busy.headers
    wait_for_children()
    cards = client.get(f"/t/{token}/rounds/1/cards.pdf?lang=en")
    assert cards.status_code == 200 and "Table 3" in text_of(cards.data)
    assert not renders


def test_without_a_cache_folder_to_write_the_paper_is_made_in_the_request(
    ahead_app: Flask, tmp_path: Path, renders: Counter[str]
) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    ahead_app.config["PDF_CACHE_DIR"] = str(tmp_path / "a-file" / "pdf-cache")
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)  # nothing can be claimed: nothing started
    assert not ahead.running()
    cards, slips = both(client, token)
    assert renders == {"cards.html": 1, "slips.html": 1}
    assert "Table 3" in text_of(cards) and "Paper slip · Round 1 · Table 3" in text_of(slips)
