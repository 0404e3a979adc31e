"""A round's paper is kept by what it shows and made ahead by the job queue's worker.

The cards and slips of a round show its draw, never a hand: a saved hand leaves
them in the cache (nothing is rendered again), a replaced link renders the cards
again (the slips show no link), a renamed player both.  With ``PDF_AHEAD`` and a
worker alive, every change of what they show wishes for them after its commit: one
job in the kept queue (``scorer.jobs``), the newest wish replacing the ones before;
a tap meanwhile is told they are being prepared (202, the page asks again).  These
tests run the queue themselves (:func:`tests.builders.run_jobs`, as the worker does)
and say the worker is alive; ``test_worker.py`` runs the real worker process.
"""

from __future__ import annotations

import fcntl
import io
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from pypdf import PdfReader

from scorer import create_app, services
from scorer.extensions import db
from scorer.jobs import jobs
from scorer.paper import ahead
from scorer.pdf import tournament as documents
from scorer.services.tournaments import board, entrants, rounds, setup
from scorer.views.tournaments import printouts
from tests.builders import page_text, run_jobs
from tests.tournament_builders import a_hand, drawn, tournament_with


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


@pytest.fixture
def ahead_app(app: Flask) -> Flask:
    """The app with ``PDF_AHEAD`` on and its worker alive (the tests run its queue)."""
    app.config.update(PDF_AHEAD=True, JOB_ALIVE=3600)
    jobs(app).beat()
    return app


def queued(app: Flask) -> int:
    return jobs(app).waiting()


def live(app: Flask) -> list[str]:
    """The queued jobs that are the newest wish for their round (the rest do nothing)."""
    queue = jobs(app)
    found = []
    for task in queue.huey.pending():
        kwargs = task.kwargs
        key = f"paper:{kwargs['tournament']}:{kwargs['round']}:{kwargs['lang']}"
        if (queue.get(key) or {}).get("id") == task.id:
            found.append(task.id)
    return found


@contextmanager
def slot_held(app: Flask) -> Iterator[None]:
    """The only work slot of the requests taken (another render)."""
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


def redraw_through_the_page(client: FlaskClient, token: str, attempt: int) -> None:
    response = client.post(f"/t/{token}/rounds/1/redraw?lang=en", data={"attempt": str(attempt)})
    assert response.status_code == 303


def a_round_without_a_wish(app: Flask) -> str:
    """Round 1 drawn before the worker was there: nothing wished for."""
    app.config["PDF_AHEAD"] = False
    try:
        return a_round(app)
    finally:
        app.config["PDF_AHEAD"] = True


def a_tournament(app: Flask) -> str:
    with app.app_context():
        return str(tournament_with(9, rounds_=3).token)


def being_prepared(client: FlaskClient, token: str, kind: str) -> None:
    response = client.get(f"/t/{token}/rounds/1/{kind}.pdf?lang=en")
    assert response.status_code == 202, kind
    assert 1 <= int(response.headers["Retry-After"]) <= printouts.RETRY_MOST
    assert response.headers["Cache-Control"] == "no-store"
    text = page_text(response)
    assert "Being prepared: ready in about" in text
    assert "This page reloads itself and shows the PDF" in text
    assert f'content="{response.headers["Retry-After"]}"' in response.get_data(as_text=True)


def test_the_draw_queues_one_job_that_makes_the_cards_and_slips(
    ahead_app: Flask, renders: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(printouts, "INLINE_SECONDS", 0.0)  # three tables count as big
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)  # answers at once: the worker renders
    assert not renders and queued(ahead_app) == 1
    for kind in ("cards", "slips"):
        being_prepared(client, token, kind)
    assert queued(ahead_app) == 1  # the taps found the job waiting: not a second one
    # the round's page and a saved hand wish for nothing more
    assert client.get(f"/t/{token}/rounds/1?lang=en").status_code == 200
    with ahead_app.app_context():
        table = setup.get_tournament(token).round_rows[0].tables[0]
        services.save_hand(table.match, a_hand(table.match))
    assert queued(ahead_app) == 1
    assert run_jobs(ahead_app) == 1
    assert renders == {"cards.html": 1, "slips.html": 1}
    cards, slips = both(client, token)
    assert renders == {"cards.html": 1, "slips.html": 1}  # the taps: from the cache
    assert "Table 3" in text_of(cards) and "Paper slip · Round 1 · Table 3" in text_of(slips)
    assert not list(Path(ahead_app.config["PDF_CACHE_DIR"]).glob("*.making"))


def test_a_hundred_redraws_leave_one_live_job_and_it_makes_the_last_seating(
    ahead_app: Flask, renders: Counter[str]
) -> None:
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)
    for attempt in range(1, 101):
        redraw_through_the_page(client, token, attempt)
        assert len(live(ahead_app)) == 1
    assert queued(ahead_app) == 101  # the older ones: each a look at the queue, no more
    assert run_jobs(ahead_app) == 101
    assert renders == {"cards.html": 1, "slips.html": 1}
    with ahead_app.app_context():
        row = setup.get_tournament(token).round_rows[0]
        assert row.attempt == 101
        first = row.tables[0].match.seats[0].name
    cards, _slips = both(client, token)
    assert first in text_of(cards)
    assert renders == {"cards.html": 1, "slips.html": 1}


def test_a_change_while_the_job_waits_is_made_by_that_job(
    ahead_app: Flask, renders: Counter[str]
) -> None:
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)
    with ahead_app.test_request_context("/?lang=en"):  # the organiser's device, in English
        tournament = setup.get_tournament(token)
        entrant = next(e for e in tournament.entrants if e.number is not None)
        entrants.edit(tournament, entrant, "Walburga Renamed", entrant.club, "")
        rounds.replace_link(tournament, tournament.round_rows[0].tables[1])
        setup.update_settings(tournament, {"place": "Krone, Bopfingen"})
    assert queued(ahead_app) == 1  # the job reads the round when its turn comes
    run_jobs(ahead_app)
    assert renders == {"cards.html": 1, "slips.html": 1}
    cards, slips = both(client, token)
    assert "Walburga Renamed" in text_of(cards) and "Krone, Bopfingen" in text_of(slips)
    assert renders == {"cards.html": 1, "slips.html": 1}
    # new settings that change nothing on paper: a job, which finds both kept
    with ahead_app.test_request_context("/?lang=en"):
        setup.update_settings(setup.get_tournament(token), {"entry_fee_cents": 500})
    assert run_jobs(ahead_app) == 1
    assert renders == {"cards.html": 1, "slips.html": 1}


def test_a_job_for_a_draw_made_again_since_drops_itself(
    ahead_app: Flask, renders: Counter[str]
) -> None:
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)
    # drawn again without a wish (as if its event were lost): the job reads the round
    # right before it renders and finds another draw
    ahead_app.config["PDF_AHEAD"] = False
    with ahead_app.app_context():
        tournament = setup.get_tournament(token)
        rounds.redraw(tournament, tournament.round_rows[0], 1)
    ahead_app.config["PDF_AHEAD"] = True
    assert run_jobs(ahead_app) == 1
    assert not renders


def test_a_closed_round_is_not_made_ahead_but_a_tap_gets_it(
    ahead_app: Flask, renders: Counter[str]
) -> None:
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)
    with ahead_app.app_context():
        tournament = setup.get_tournament(token)
        row = tournament.round_rows[0]
        numbers = {e.id: e.number or 0 for e in tournament.entrants}
        for table in row.tables:
            board.set_paper(tournament, table, {p: (numbers[p] * 10, 0) for p in table.players})
        rounds.close_round(tournament, row)
    assert run_jobs(ahead_app) == 1
    assert not renders  # withdrawn with the close
    # the organiser taps the closed round's slips: asked for, they are made
    with slot_held(ahead_app):  # (small enough for the request, but no slot)
        being_prepared(client, token, "slips")
    assert run_jobs(ahead_app) == 1
    assert renders == {"cards.html": 1, "slips.html": 1}
    assert client.get(f"/t/{token}/rounds/1/slips.pdf?lang=en").status_code == 200


def test_a_render_holds_no_connection_and_no_work_slot(
    ahead_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)
    seen: list[tuple[int, int]] = []
    real = documents.render_document

    def looking(template: str, **kwargs: Any) -> bytes:
        if template not in ("cards.html", "slips.html"):
            return real(template, **kwargs)
        with ahead_app.app_context():
            pool = db.engine.pool
            held = pool.checkedout() if hasattr(pool, "checkedout") else 0
        # a request's PDF meanwhile (another thread, as a web worker's) gets the
        # requests' slot: no 503
        answers: list[int] = []
        asking = threading.Thread(
            target=lambda: answers.append(client.get(f"/t/{token}/ranking.pdf?lang=en").status_code)
        )
        asking.start()
        asking.join()
        seen.append((held, answers[0]))
        return real(template, **kwargs)

    monkeypatch.setattr(documents, "render_document", looking)
    run_jobs(ahead_app)
    assert seen[:2] == [(0, 200), (0, 200)]


def test_a_tap_before_anything_was_wished_queues_one_job(
    ahead_app: Flask, monkeypatch: pytest.MonkeyPatch, renders: Counter[str]
) -> None:
    token = a_round_without_a_wish(ahead_app)
    assert queued(ahead_app) == 0
    monkeypatch.setattr(printouts, "INLINE_SECONDS", 0.0)  # three tables count as big
    client = ahead_app.test_client()
    being_prepared(client, token, "slips")
    being_prepared(client, token, "cards")  # the same job makes both: not a second
    assert queued(ahead_app) == 1
    run_jobs(ahead_app)
    assert renders == {"cards.html": 1, "slips.html": 1}
    both(client, token)
    # one table's slip is no round's paper: made in the request
    one = client.get(f"/t/{token}/rounds/1/slips.pdf?table=2&lang=en")
    assert one.status_code == 200 and renders["slips.html"] == 2


def test_a_small_rounds_paper_is_made_in_the_request_and_queued_when_no_slot_is_free(
    ahead_app: Flask, renders: Counter[str]
) -> None:
    token = a_round_without_a_wish(ahead_app)
    client = ahead_app.test_client()
    with slot_held(ahead_app):
        being_prepared(client, token, "cards")
        assert queued(ahead_app) == 1
        # a ranking is no round's paper: busy, try again
        busy = client.get(f"/t/{token}/ranking.pdf?lang=en")
        assert busy.status_code == 503 and "Retry-After" in busy.headers
    assert not renders
    slips = client.get(f"/t/{token}/rounds/1/slips.pdf?lang=en")  # a slot is free: made now
    assert slips.status_code == 200 and renders == {"slips.html": 1}
    run_jobs(ahead_app)
    assert renders == {"cards.html": 1, "slips.html": 1}  # the job found the slips kept


def test_without_a_worker_nothing_is_queued_and_the_tap_renders(
    app: Flask, renders: Counter[str]
) -> None:
    app.config.update(PDF_AHEAD=True, JOB_ALIVE=0.0)  # no sign of life is recent enough
    jobs(app).beat()
    client = app.test_client()
    token = a_tournament(app)
    draw_through_the_page(client, token)
    assert queued(app) == 0
    cards, slips = both(client, token)
    assert renders == {"cards.html": 1, "slips.html": 1}
    assert "Table 3" in text_of(cards) and "Paper slip · Round 1 · Table 3" in text_of(slips)


def test_the_other_language_is_wished_for_when_it_is_tapped(
    ahead_app: Flask, renders: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)  # in English: the English paper
    run_jobs(ahead_app)
    monkeypatch.setattr(printouts, "INLINE_SECONDS", 0.0)
    german = client.get(f"/t/{token}/rounds/1/cards.pdf?lang=de")
    assert german.status_code == 202 and "Wird vorbereitet" in page_text(german)
    assert run_jobs(ahead_app) == 1
    assert renders == {"cards.html": 2, "slips.html": 2}
    assert client.get(f"/t/{token}/rounds/1/cards.pdf?lang=de").status_code == 200


def test_a_restart_keeps_the_queued_paper(
    ahead_app: Flask, app_config: dict[str, Any], renders: Counter[str]
) -> None:
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)
    assert queued(ahead_app) == 1
    # the hall stops before its worker ran the job; started again, the new processes find
    # the queue where it was (the same instance's files and database)
    settings = {
        **app_config,
        "TESTING": True,
        "SQLITE_SYNCHRONOUS": "OFF",
        "SQLALCHEMY_DATABASE_URI": ahead_app.config["SQLALCHEMY_DATABASE_URI"],
        "JOB_QUEUE": ahead_app.config["JOB_QUEUE"],
        "WORK_SLOT_DIR": ahead_app.config["WORK_SLOT_DIR"],
        "PDF_AHEAD": True,
        "JOB_ALIVE": 3600,
    }
    again = create_app(settings)  # (not a fresh database: the one the hall had)
    try:
        assert run_jobs(again) == 1
        assert renders == {"cards.html": 1, "slips.html": 1}
        assert both(again.test_client(), token)
    finally:
        with again.app_context():
            db.session.remove()
            db.engine.dispose()


def test_in_huey_s_immediate_mode_the_draw_makes_them_at_once(
    app: Flask, renders: Counter[str]
) -> None:
    app.config.update(PDF_AHEAD=True, JOB_IMMEDIATE=True)
    client = app.test_client()
    token = a_tournament(app)
    draw_through_the_page(client, token)  # the job ran after the commit, in the request
    assert renders == {"cards.html": 1, "slips.html": 1}
    both(client, token)
    assert renders == {"cards.html": 1, "slips.html": 1}


def test_a_job_lost_with_a_killed_renderer_is_queued_again_by_the_next_tap(
    ahead_app: Flask, renders: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(printouts, "INLINE_SECONDS", 0.0)
    client = ahead_app.test_client()
    token = a_tournament(ahead_app)
    draw_through_the_page(client, token)
    queue = jobs(ahead_app)
    taken = queue.huey.dequeue()  # a renderer takes the job, says so, and is killed
    assert taken is not None and queued(ahead_app) == 0
    with ahead_app.app_context():
        tournament_id = setup.get_tournament(token).id
    key = f"paper:{tournament_id}:1:en"
    with queue.lock():
        queue.put(key, {**queue.get(key), "state": ahead.STARTED})
    being_prepared(client, token, "cards")  # nothing claims the cards: wished for again
    assert queued(ahead_app) == 1
    run_jobs(ahead_app)
    assert renders == {"cards.html": 1, "slips.html": 1}
    both(client, token)
