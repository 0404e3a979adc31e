"""The hall at 1,000 tables: what a poll costs does not grow with the hall.

No timings here (bench/bench_hall.py measures them): what is asserted is the
work itself — statements counted, builds and renders counted.

- the organiser's board and the public build read a fixed number of statements
  whatever the number of tables;
- an unchanged poll is answered 204/304 without building or rendering anything;
- a build is made once per change for all processes: a second app on the same
  database answers from the stored build, and of many processes seeing a change
  one builds while the others answer from the last build;
- a page of the ranking a saved hand did not change answers 204.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import update

from scorer import create_app
from scorer.extensions import db
from scorer.models import utcnow
from scorer.services.tournaments import board, public_state, published
from scorer.tournament_models import PublicSnapshot, TournamentTable
from tests.builders import HX
from tests.tournament_builders import drawn, play_round, play_table, tournament_with
from tests.web.test_performance import count, statements
from tests.web.test_tournament_public import _polled


def hall(app: Flask, players: int, hands: int = 1) -> tuple[str, str]:
    """A tournament of ``players`` in round 1, ``hands`` hands at every table; its links."""
    with app.app_context():
        tournament = tournament_with(players, deals=3)
        row = drawn(tournament)
        play_round(row, hands=hands)
        links = tournament.token, tournament.view_token
        db.session.remove()
    return links


@pytest.mark.parametrize("kind", ["board", "build"])
def test_the_board_and_the_public_build_read_a_fixed_number_of_statements(
    app: Flask, kind: str
) -> None:
    counts = []
    client = app.test_client()
    for players in (9, 60):
        token, view = hall(app, players)
        if kind == "board":
            client.get(f"/t/{token}/board")
            counts.append(count(app, lambda t=token: client.get(f"/t/{t}/board/live")))
        else:
            with app.app_context():
                tournament_id = published.poll_state(view).tournament_id  # type: ignore[union-attr]
            with statements(app) as sent, app.app_context():
                public_state.build(tournament_id)
            counts.append(len(sent))
    assert counts[0] == counts[1], counts


def test_a_build_that_goes_on_reads_only_the_tables_that_moved(app: Flask) -> None:
    _, view = hall(app, 60)
    with app.app_context():
        state = published.poll_state(view)
        assert state is not None
        first = public_state.build(state.tournament_id)
        assert first is not None
        table = db.session.get_one(TournamentTable, first.rounds[0].tables[7].id)
        play_table(table, 1)
        db.session.expire_all()
        again = public_state.build(state.tournament_id, first)
        assert again is not None
    moved = [
        t.number
        for t, before in zip(again.rounds[0].tables, first.rounds[0].tables, strict=True)
        if t is not before
    ]
    assert moved == [first.rounds[0].tables[7].number]


class Spy:
    """Counts the builds and the renders of the public pages."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.builds = 0
        self.renders = 0
        real_build = public_state.build

        def build(*args: Any, **kwargs: Any) -> Any:
            self.builds += 1
            return real_build(*args, **kwargs)

        monkeypatch.setattr(public_state, "build", build)
        from scorer.views.tournaments import public

        real_render = public.render

        def render(*args: Any, **kwargs: Any) -> Any:
            self.renders += 1
            return real_render(*args, **kwargs)

        monkeypatch.setattr(public, "render", render)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    return Spy(monkeypatch)


def test_an_unchanged_poll_builds_and_renders_nothing(app: Flask, spy: Spy) -> None:
    _, view = hall(app, 12)
    client = app.test_client()
    urls = [
        _polled(client.get(f"/p/{view}{page}").get_data(as_text=True))
        for page in ("", "?rows=6", "/seats", "/players/2")
    ]
    builds, renders = spy.builds, spy.renders
    for url in urls:
        assert client.get(url, headers=HX).status_code == 204
        first = client.get(url.split("shown=")[0].rstrip("?&"), headers=HX)
        tag = first.headers["ETag"]
        renders = spy.renders
        again = client.get(url.split("shown=")[0].rstrip("?&"), headers={"If-None-Match": tag})
        assert again.status_code == 304
        assert spy.renders == renders
    assert spy.builds == builds


def test_a_page_of_the_ranking_a_hand_did_not_change_answers_204(app: Flask) -> None:
    """Twelve players on pages of three; tables 2 to 4 came on paper with the top nine
    totals, table 1 plays: its hand changes the last page only, the others answer 204."""
    with app.app_context():
        tournament = tournament_with(12, deals=3)
        row = drawn(tournament)
        for table, top in zip(row.tables[1:], (3000, 2000, 1000), strict=True):
            slip = {p: (top - 100 * seat, 0) for seat, p in enumerate(table.players)}
            board.set_paper(tournament, table, slip)
        view, first = tournament.view_token, row.tables[0].id
        db.session.remove()
    app.config["PUBLIC_PAGE_ROWS"] = 3  # a phone's page of the ranking
    client = app.test_client()
    pages = {
        page: _polled(client.get(f"/p/{view}?page={page}").get_data(as_text=True))
        for page in (1, 2, 3, 4)
    }
    with app.app_context():
        play_table(db.session.get_one(TournamentTable, first), 1)
        db.session.remove()
    answers = {page: client.get(url, headers=HX).status_code for page, url in pages.items()}
    assert answers == {1: 204, 2: 204, 3: 204, 4: 200}


@pytest.fixture
def second_app(tmp_path: Path, app: Flask) -> Iterator[Flask]:
    """Another process on the same database (another gunicorn worker, another machine)."""
    with app.app_context():
        url = db.engine.url.render_as_string(hide_password=False)
    other = create_app(
        {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": url,
            "TOURNAMENT_FRESH": 0,
            "TOURNAMENT_POLL_KEEP": 0,
            "SQLITE_SYNCHRONOUS": "OFF",
            "WORK_SLOT_DIR": str(tmp_path / "other-slots"),
        }
    )
    yield other
    with other.app_context():
        db.session.remove()
        db.engine.dispose()


def test_a_build_is_made_once_for_all_processes(app: Flask, second_app: Flask, spy: Spy) -> None:
    _, view = hall(app, 9)
    assert app.test_client().get(f"/p/{view}").status_code == 200
    builds = spy.builds
    # the other process answers from the stored build: it builds nothing
    assert second_app.test_client().get(f"/p/{view}/seats").status_code == 200
    assert spy.builds == builds


def test_of_two_processes_seeing_a_change_one_builds_the_other_shows_the_last_build(
    app: Flask, second_app: Flask, spy: Spy
) -> None:
    _, view = hall(app, 9)
    url = _polled(app.test_client().get(f"/p/{view}?rows=20").get_data(as_text=True))
    with app.app_context():
        from scorer.services.tournaments import setup

        tournament = setup.get_tournament_for_view(view)
        play_table(tournament.round_rows[0].tables[1], 1)
        # another process has claimed the next build a moment ago
        db.session.execute(update(PublicSnapshot).values(claimed_at=utcnow()))
        db.session.commit()
    builds = spy.builds
    assert second_app.test_client().get(url, headers=HX).status_code == 204  # the last build
    assert spy.builds == builds
    # a claim older than CLAIM_FOR is a builder that died: the next poll builds
    with app.app_context():
        stale = utcnow() - published.CLAIM_FOR - timedelta(seconds=1)
        db.session.execute(update(PublicSnapshot).values(claimed_at=stale))
        db.session.commit()
    assert second_app.test_client().get(url, headers=HX).status_code == 200
    assert spy.builds == builds + 1
    with app.app_context():
        assert db.session.get_one(PublicSnapshot, 1).claimed_at is None


def test_a_build_that_fails_gives_its_claim_back(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, view = hall(app, 9)
    client = app.test_client()
    assert client.get(f"/p/{view}").status_code == 200
    with app.app_context():
        from scorer.services.tournaments import setup

        play_table(setup.get_tournament_for_view(view).round_rows[0].tables[0], 1)

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(public_state, "build", broken)
    with pytest.raises(RuntimeError):
        client.get(f"/p/{view}")
    with app.app_context():
        assert db.session.get_one(PublicSnapshot, 1).claimed_at is None
