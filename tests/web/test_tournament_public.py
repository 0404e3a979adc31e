"""The public link: the beamer's ranking, "where do I sit?", a player's page, their polls."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer import services
from scorer.extensions import db
from scorer.services.tournaments import rounds
from scorer.tournament_models import Entrant, Tournament
from tests.builders import HX
from tests.tournament_builders import a_hand, drawn, play_round, tournament_with

SHOWN_RE = re.compile(r'hx-get="([^"]+[?;]shown=[0-9a-f]+)"')


@dataclass
class Evening:
    """A tournament of 10 players (a table of four) in round 1, a hand at each table."""

    app: Flask
    view: str
    tournament_id: int

    def tournament(self) -> Tournament:
        found = db.session.get(Tournament, self.tournament_id)
        assert found is not None
        return found

    def save_hand_at(self, table_number: int) -> None:
        with self.app.app_context():
            row = self.tournament().round_rows[-1]
            match = next(t for t in row.tables if t.number == table_number).match
            services.save_hand(match, a_hand(match, declarer=1))


@pytest.fixture
def evening(app: Flask) -> Iterator[Evening]:
    with app.app_context():
        tournament = tournament_with(10, deals=3)
        row = drawn(tournament)
        play_round(row, hands=1)
        found = Evening(app, tournament.view_token, tournament.id)
        db.session.remove()
    yield found


def line_of(evening: Evening, number: int) -> tuple[int, int]:
    """A player's place and total as the database holds them now."""
    from scorer.services.tournaments.published import fresh_standings

    with evening.app.app_context():
        lines = fresh_standings(evening.tournament_id).lines
        line = next(x for x in lines if x.player.number == number)
        return line.place, line.total


def _polled(html: str) -> str:
    found = SHOWN_RE.search(html)
    assert found, "no polled URL with ?shown= in the page"
    return found.group(1).replace("&amp;", "&")


PAGES = ("", "/seats", "/players/3")


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_render_in_german_and_in_english(
    client: FlaskClient, evening: Evening, page: str
) -> None:
    german = client.get(f"/p/{evening.view}{page}")
    assert german.status_code == 200
    html = german.get_data(as_text=True)
    assert '<html lang="de">' in html
    assert "Herbstturnier" in html or "Christa" in html
    german_word, english_word = ("Tisch", "Table") if page == "/seats" else ("Summe", "Total")
    assert german_word in html
    english = client.get(f"/p/{evening.view}{page}?lang=en").get_data(as_text=True)
    assert '<html lang="en">' in english and english_word in english
    assert german.headers["X-Robots-Tag"] == "noindex, nofollow"
    # read-only: no form that writes, no organiser link
    assert 'method="post"' not in html.lower()
    with evening.app.app_context():
        assert evening.tournament().token not in html


def test_the_ranking_shows_places_points_per_round_and_progress(
    client: FlaskClient, evening: Evening
) -> None:
    html = client.get(f"/p/{evening.view}?lang=en").get_data(as_text=True)
    assert 'table class="pub-ranking" data-ranking' in html
    assert html.count("<tr") == 1 + 10  # the head and a line per player
    assert "provisional" in html
    assert "Round 1: 0 of 3 tables finished" in html
    assert 'src="/static/beamer.js' in html and "<script>" not in html
    assert 'hx-trigger="every 3s"' in html
    # the beamer (as many lines as fit its screen) names the tables still playing
    beamer = client.get(f"/p/{evening.view}?lang=en&rows=20").get_data(as_text=True)
    assert "1/4" in beamer and "1/3" in beamer  # each table's deal
    assert "data-beamer" in beamer and "1/4" not in html


def test_the_ranking_pages_are_balanced(client: FlaskClient, evening: Evening) -> None:
    """Ten lines, room for six: two pages of five (not six and a page of four)."""
    first = client.get(f"/p/{evening.view}?lang=en&rows=6").get_data(as_text=True)
    assert first.count("<tr class=") + first.count("<tr>") - 1 == 5
    assert "Page 1 of 2" in first
    second = client.get(f"/p/{evening.view}?lang=en&rows=6&page=2").get_data(as_text=True)
    assert "Page 2 of 2" in second
    assert client.get(f"/p/{evening.view}?rows=6&page=99").status_code == 200  # the last page


def test_a_round_closed_is_no_longer_provisional(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(6, deals=3, rounds_=2)
        row = drawn(tournament)
        play_round(row)
        rounds.close_round(tournament, row)
        view = tournament.view_token
    html = client.get(f"/p/{view}?lang=en").get_data(as_text=True)
    assert "provisional" not in html and "Ranking after round 1" in html
    assert "Round 1 is closed." in html
    with app.app_context():
        tournament = db.session.get(Tournament, 1)
        assert tournament is not None
        second = drawn(tournament, 2)
        play_round(second)
        rounds.close_round(tournament, second)
    assert "Final ranking" in client.get(f"/p/{view}?lang=en").get_data(as_text=True)


def test_before_the_draw_the_registered_players_and_not_drawn_yet(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        tournament = tournament_with(4)
        view = tournament.view_token
    for page in ("", "/seats"):
        html = client.get(f"/p/{view}{page}?lang=en").get_data(as_text=True)
        assert "not drawn yet" in html and "4 players registered" in html
        assert all(name in html for name in ("Anna", "Bertl", "Christa", "Done"))
    mine = client.get(f"/p/{view}/players/2?lang=en").get_data(as_text=True)
    assert "not drawn yet" in mine and "Bertl" in mine


def test_a_withdrawn_player_is_marked(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(7, deals=3)
        row = drawn(tournament)
        play_round(row)
        rounds.close_round(tournament, row)
        anna = next(e for e in tournament.entrants if e.name == "Anna")
        anna.withdrawn_before = 2
        tournament.entrants.append(Entrant(name="Zenzi", number=8, from_round=2))
        db.session.commit()
        drawn(tournament, 2)
        view = tournament.view_token
    html = client.get(f"/p/{view}?lang=en").get_data(as_text=True)
    line = re.search(r'<tr class="withdrawn">.*?</tr>', html, re.S)
    assert line is not None and "Anna" in line.group(0) and "withdrawn" in line.group(0)
    assert "–" in line.group(0)  # round 2: not played
    zenzi = re.search(r"<tr>(?:(?!</tr>).)*Zenzi.*?</tr>", html, re.S)
    assert zenzi is not None and "–" in zenzi.group(0)
    mine = client.get(f"/p/{view}/players/1?lang=en").get_data(as_text=True)
    assert "You have withdrawn" in mine


def test_the_seating_by_name_and_by_table(client: FlaskClient, evening: Evening) -> None:
    html = client.get(f"/p/{evening.view}/seats?lang=en").get_data(as_text=True)
    by_name = html[html.index('id="by-name"') : html.index('id="by-table"')]
    names = re.findall(r'/players/\d+">([^<]+)</a>', by_name)
    assert names == sorted(names) and len(names) == 10
    assert by_name.count("Schreiber") == 3  # one per table
    with evening.app.app_context():
        row = evening.tournament().round_rows[0]
        for table in row.tables:
            block = html[html.index(f'id="table-{table.number}"') :]
            block = block[: block.index("</section>")]
            seated = [db.session.get(Entrant, p).name for p in table.players]  # type: ignore[union-attr]
            assert [n for n in re.findall(r"</span> ([^<]+?)(?: <span|</li>)", block)] == seated


def test_a_players_page(client: FlaskClient, evening: Evening) -> None:
    html = client.get(f"/p/{evening.view}/players/3?lang=en").get_data(as_text=True)
    assert "Christa" in html and "Start number 3" in html
    with evening.app.app_context():
        row = evening.tournament().round_rows[0]
        christa = next(e for e in evening.tournament().entrants if e.number == 3)
        table = next(t for t in row.tables if christa.id in t.players)
        seat = table.players.index(christa.id) + 1
    assert f"Table {table.number}</strong> · <strong>Seat {seat}" in html
    assert re.search(r"Place \d+ of 10", html)
    assert "Round 1" in html and "Lost games" in html


def test_find_by_start_number_or_name(client: FlaskClient, evening: Evening) -> None:
    page = client.get(f"/p/{evening.view}/me?lang=en")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'name="number"' in html and 'method="get"' in html
    assert html.count(f'href="/p/{evening.view}/players/') == 10
    found = client.get(f"/p/{evening.view}/me?number=+7+")
    assert found.status_code == 303
    assert found.headers["Location"].endswith(f"/p/{evening.view}/players/7")


@pytest.mark.parametrize(
    "typed", ["99", "0", "-1", "abc", "99999999999999999999", "1e3", "", "7\x00", "<b>7</b>"]
)
def test_a_start_number_nobody_has_says_so_and_keeps_it(
    client: FlaskClient, evening: Evening, typed: str
) -> None:
    response = client.get(f"/p/{evening.view}/me", query_string={"number": typed, "lang": "en"})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "pick your name below" in html
    assert "<b>7" not in html and "\x00" not in html
    if typed.isdigit():
        assert f'value="{typed}"' in html and f"Nobody has start number {typed}" in html


@pytest.mark.parametrize("number", ["99", "0", "99999999999999999999"])
def test_a_players_address_with_a_number_nobody_has(
    client: FlaskClient, evening: Evening, number: str
) -> None:
    response = client.get(f"/p/{evening.view}/players/{number}?lang=en")
    assert response.status_code == 404
    assert "Nobody has start number" in response.get_data(as_text=True)
    assert client.get(f"/p/{evening.view}/players/{number}/live").status_code == 200


@pytest.mark.parametrize("number", ["-1", "abc", "1.5", "%00"])
def test_a_players_address_that_is_no_number(
    client: FlaskClient, evening: Evening, number: str
) -> None:
    assert client.get(f"/p/{evening.view}/players/{number}").status_code == 404


@pytest.mark.parametrize(
    "path",
    ["/p/nobody", "/p/nobody/seats", "/p/nobody/players/1", "/p/nobody/me", "/p/nobody/live",
     "/p/nobody/seats/live", "/p/nobody/players/1/live", "/p/nobody/qr.svg", "/p/a.b",
     "/p/%00/seats"],
)  # fmt: skip
def test_an_unknown_public_link_is_404(client: FlaskClient, path: str) -> None:
    assert client.get(path).status_code == 404


@pytest.mark.parametrize("page", PAGES)
def test_a_poll_of_what_the_page_shows_is_204_and_a_conditional_get_304(
    client: FlaskClient, evening: Evening, page: str
) -> None:
    url = _polled(client.get(f"/p/{evening.view}{page}").get_data(as_text=True))
    assert url.startswith(f"/p/{evening.view}{page}/live?shown=")
    same = client.get(url, headers=HX)
    assert (same.status_code, same.data) == (204, b"")
    fragment = client.get(url.split("?")[0], headers=HX)
    assert fragment.status_code == 200 and "<html" not in fragment.get_data(as_text=True)
    assert _polled(fragment.get_data(as_text=True)) == url
    etag = fragment.headers["ETag"]
    modified = fragment.headers["Last-Modified"]
    # as a browser asks again: both validators
    again = client.get(
        url.split("?")[0], headers={"If-None-Match": etag, "If-Modified-Since": modified}
    )
    assert again.status_code == 304 and again.data == b""
    assert again.headers["Cache-Control"] == "private, no-cache"


@pytest.mark.parametrize("table", [1, 2, 3])
def test_a_hand_saved_changes_the_polls_of_the_pages_it_changes_and_no_other(
    client: FlaskClient, evening: Evening, table: int
) -> None:
    """A hand moves points: the ranking reads otherwise; the seating does not; a player's
    page only when the hand was saved at their table."""
    with evening.app.app_context():
        row = evening.tournament().round_rows[-1]
        at = next(t for t in row.tables if t.number == table)
        numbers = {db.session.get_one(Entrant, p).number for p in at.players}
    urls = {
        page: _polled(client.get(f"/p/{evening.view}{page}").get_data(as_text=True))
        for page in PAGES
    }
    before = line_of(evening, 3)
    evening.save_hand_at(table)
    changes = {page: client.get(url, headers=HX).status_code for page, url in urls.items()}
    assert changes["/seats"] == 204
    assert changes[""] == 200
    # player 3's page: their table's deal, or their line (a place moves with others' points)
    moved = 3 in numbers or line_of(evening, 3) != before
    assert changes["/players/3"] == (200 if moved else 204)
    changed = client.get(urls[""], headers=HX)
    assert _polled(changed.get_data(as_text=True)) != urls[""]


def test_the_ranking_poll_shows_the_new_points(client: FlaskClient, evening: Evening) -> None:
    url = _polled(client.get(f"/p/{evening.view}?lang=en&rows=20").get_data(as_text=True))
    before = client.get(url.split("?")[0] + "?lang=en", headers=HX).get_data(as_text=True)
    evening.save_hand_at(2)
    after = client.get(url + "&lang=en", headers=HX).get_data(as_text=True)
    assert after != before
    assert "2/3" in after and "2/3" not in before  # table 2 is at its second deal


def test_polls_never_open_the_session(
    client: FlaskClient, evening: Evening, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flask.sessions import SecureCookieSessionInterface

    urls = [
        _polled(client.get(f"/p/{evening.view}{page}").get_data(as_text=True)) for page in PAGES
    ]

    def refuse(*_: Any) -> None:
        raise AssertionError("the session was opened")

    monkeypatch.setattr(SecureCookieSessionInterface, "open_session", refuse)
    for url in urls:
        assert client.get(url, headers=HX).status_code == 204
        response = client.get(url.split("?")[0], headers=HX)
        assert response.status_code == 200 and "Set-Cookie" not in response.headers


def test_the_beamer_qr_code_leads_to_the_find_page(client: FlaskClient, evening: Evening) -> None:
    response = client.get(f"/p/{evening.view}/qr.svg")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"


def test_while_tables_save_fast_the_ranking_is_built_at_most_every_few_seconds(
    app: Flask, client: FlaskClient, evening: Evening, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build less than TOURNAMENT_FRESH seconds old is shown again (its own ETag, so a
    204 stays true to what the page shows); after that the new state is built."""
    from datetime import datetime, timedelta

    from scorer.services.tournaments import published

    app.config["TOURNAMENT_FRESH"] = 1.5
    clock = [datetime(2026, 11, 27, 20, 0)]
    monkeypatch.setattr(published, "utcnow", lambda: clock[0])
    url = _polled(client.get(f"/p/{evening.view}?rows=20").get_data(as_text=True))
    evening.save_hand_at(2)
    clock[0] += timedelta(seconds=0.5)
    assert client.get(url, headers=HX).status_code == 204  # still the state just built
    clock[0] += timedelta(seconds=1.5)
    response = client.get(url, headers=HX)
    assert response.status_code == 200  # fresh enough no more: the new state
    assert "2/3" in response.get_data(as_text=True)


def test_a_process_reads_the_poll_state_at_most_every_half_second(
    app: Flask, client: FlaskClient, evening: Evening, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within TOURNAMENT_POLL_KEEP seconds a poll answers from the state read last (one
    read per link and process); after it, a saved hand shows."""
    from scorer.services.tournaments import published

    app.config["TOURNAMENT_POLL_KEEP"] = 0.5
    clock = [500.0]
    from scorer.services import kept

    monkeypatch.setattr(kept.time, "monotonic", lambda: clock[0])
    reads = []
    real = published.poll_state
    monkeypatch.setattr(published, "poll_state", lambda token: reads.append(token) or real(token))
    url = _polled(client.get(f"/p/{evening.view}?rows=20").get_data(as_text=True))
    assert client.get(url, headers=HX).status_code == 204
    evening.save_hand_at(2)
    clock[0] += 0.2
    assert client.get(url, headers=HX).status_code == 204  # the state read 0.2 s ago
    assert len(reads) == 1
    clock[0] += 0.4
    response = client.get(url, headers=HX)
    assert response.status_code == 200 and "2/3" in response.get_data(as_text=True)
    assert len(reads) == 2
