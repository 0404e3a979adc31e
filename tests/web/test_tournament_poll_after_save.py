"""A poll after a save sees it: the phones' and the beamer's polls, the organiser's board.

As the devices do it: the table's phone saves a hand through its page's form over
htmx; the player's phone, the beamer and the organiser's board then poll with the
validators of what they show (``If-None-Match``, the fragment's ``?shown=``) and
get the new state at once (the tests' app builds at every poll:
``TOURNAMENT_FRESH`` 0).  And what a poll asks the database is the tournament's row and
its few rows of changes, whatever the number of its tables
(``services.tournaments.counting``).
"""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from scorer.extensions import db
from scorer.services.tournaments import board, standings
from tests.builders import HX, fill_hand, form_data
from tests.tournament_builders import drawn, tournament_with
from tests.web.test_performance import statements
from tests.web.test_tournament_public import _polled


def test_a_hand_saved_at_the_table_shows_at_the_next_poll_of_every_page(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        tournament = tournament_with(9, deals=3)
        row = drawn(tournament)
        table = row.tables[0]
        token, view, organiser = table.match.token, tournament.view_token, tournament.token
        player = next(e.number for e in tournament.entrants if e.id == table.players[0])
        db.session.remove()
    pages = {
        "player": f"/p/{view}/players/{player}?lang=en",
        "beamer": f"/p/{view}?rows=20&lang=en",
        "board": f"/t/{organiser}/board?lang=en",
    }
    polls = {name: _polled(client.get(page).get_data(as_text=True)) for name, page in pages.items()}
    cached = {}
    for name, url in polls.items():
        assert client.get(url, headers=HX).status_code == 204, name
        bare = re.sub(r"[?&]shown=[^&]*", "", url)
        first = client.get(bare, headers=HX)
        cached[name] = (bare, {**HX, "If-None-Match": first.headers["ETag"]})
        assert client.get(bare, headers=cached[name][1]).status_code == 304, name

    page = client.get(f"/m/{token}").get_data(as_text=True)
    hand = fill_hand(
        form_data(page, "hand-form"),
        declarer=0,
        bid=150,
        trump="H",
        melds=[100, 0, 0],
        tricks=[130, 70, 50],
    )
    assert client.post(f"/m/{token}/hands", data=hand, headers=HX).status_code == 200

    for name, url in polls.items():
        assert client.get(url, headers=HX).status_code == 200, name  # ?shown= is stale
        bare, headers = cached[name]
        changed = client.get(bare, headers=headers)
        assert changed.status_code == 200, name
        text = changed.get_data(as_text=True)
        if name == "board":
            assert "Deal 2 of 3" in text
        else:
            assert "230" in text or "+230" in text, name  # the declarer's 100 + 130


def test_the_polls_read_the_tournament_s_rows_whatever_its_tables(app: Flask) -> None:
    with app.app_context():
        tournament = tournament_with(30, deals=3)
        drawn(tournament)
        view, organiser = tournament.view_token, tournament.token
        db.session.remove()
    with statements(app) as sent, app.app_context():
        assert standings.poll_state(view) is not None
    (public,) = sent
    tables = set(re.findall(r"(?:FROM|JOIN)\s+(\w+)", public))
    assert tables == {"tournament", "tournament_changes"}, public  # no match, no table
    with statements(app) as sent, app.app_context():
        assert board.poll_state(organiser) is not None
    (organisers,) = sent
    assert "sum(match.version" not in organisers.lower()
    assert "tournament_changes" in organisers  # its tables are read for the quiet ones
