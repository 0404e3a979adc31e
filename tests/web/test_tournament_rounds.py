"""The organiser's rounds through the pages: the draw, the seating, drawing again, new links.

The tournaments are built with the services (tests/tournament_builders); what
is tested is what the organiser does with the browser: a button pressed once,
twice, in two tabs at once, on a stale page, with junk in the form.
"""

from __future__ import annotations

import pytest
from flask import Flask, url_for
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import func, select

from scorer import services
from scorer.extensions import db
from scorer.services.tournaments import rounds, setup
from scorer.tournament_models import Round, Tournament
from tests.builders import HX, fresh_app, page_text
from tests.tournament_builders import a_hand, drawn, play_round, tournament_with
from tests.web.test_faults import in_threads
from tests.web.test_fuzz import HAND_KEYS, SETTINGS, nasty


@pytest.fixture(autouse=True)
def in_english(client: FlaskClient) -> None:
    """The organiser reads English (the flashed messages are worded when they are made)."""
    client.set_cookie("lang", "en")


def new_tournament(app: Flask, players: int = 9, **kwargs: int) -> str:
    with app.app_context():
        return str(tournament_with(players, **kwargs).token)


def with_round(app: Flask, players: int = 9, hands: int | None = 0) -> str:
    """A tournament with round 1 drawn and ``hands`` hands at every table (None: all)."""
    with app.app_context():
        tournament = tournament_with(players)
        row = drawn(tournament, 1)
        if hands != 0:
            play_round(row, hands)
        return str(tournament.token)


def the_tournament(token: str) -> Tournament:
    return setup.get_tournament(token)


def round_count(app: Flask) -> int:
    with app.app_context():
        return int(db.session.execute(select(func.count()).select_from(Round)).scalar_one())


def flashed(client: FlaskClient, response: object) -> str:
    """The text of the page a redirect leads to (its flashed message included)."""
    location = response.headers["Location"]  # type: ignore[attr-defined]
    return page_text(client.get(location + ("&" if "?" in location else "?") + "lang=en"))


# -- the draw --------------------------------------------------------------------------


def test_the_organiser_draws_round_one_from_the_board(app: Flask, client: FlaskClient) -> None:
    token = new_tournament(app)
    board = page_text(client.get(f"/t/{token}/board?lang=en"))
    assert "No round has been drawn yet." in board
    assert "9 players are checked in for it. 3 tables." in board
    response = client.post(f"/t/{token}/rounds", data={"number": "1"})
    assert response.status_code == 303
    assert response.headers["Location"] == f"/t/{token}/rounds/1"
    page = client.get(f"/t/{token}/rounds/1?lang=en").get_data(as_text=True)
    with app.app_context():
        tournament = the_tournament(token)
        row = tournament.round_rows[0]
        assert f"Draw {row.seed}" in page
        for table in row.tables:
            assert f"/m/{table.match.token}" in page
            assert f"/t/{token}/tables/{table.id}/qr.svg?link=1" in page
        for entrant in tournament.entrants:
            assert entrant.name in page
    assert page.count("Schreiber, deals first") == 3
    assert "Draw again" in page


@pytest.mark.parametrize("lang", ["de", "en"])
def test_every_round_page_answers_in_both_languages(
    app: Flask, client: FlaskClient, lang: str
) -> None:
    token = with_round(app, 10, hands=1)
    with app.app_context():
        table = the_tournament(token).round_rows[0].tables[0]
        table_id, seq = table.id, 1
    pages = [
        f"/t/{token}/board",
        f"/t/{token}/rounds/1",
        f"/t/{token}/rounds/1/qr",
        f"/t/{token}/changes",
        f"/t/{token}/tables/{table_id}",
        f"/t/{token}/tables/{table_id}/link",
        f"/t/{token}/tables/{table_id}/paper",
        f"/t/{token}/tables/{table_id}/hands/{seq}/edit",
    ]
    for url in pages:
        response = client.get(f"{url}?lang={lang}")
        assert response.status_code == 200, url
        assert f'<html lang="{lang}">' in response.get_data(as_text=True), url


def test_the_qr_code_is_a_picture_of_the_tables_link(app: Flask, client: FlaskClient) -> None:
    token = with_round(app)
    with app.app_context():
        table_id = the_tournament(token).round_rows[0].tables[0].id
    response = client.get(f"/t/{token}/tables/{table_id}/qr.svg?link=1")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert response.get_data(as_text=True).lstrip().startswith("<svg")


def test_the_qr_sheet_has_every_table(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, 12)
    text = page_text(client.get(f"/t/{token}/rounds/1/qr?lang=en"))
    for number in (1, 2, 3, 4):
        assert f"Table {number} · Round 1" in text


def test_drawing_twice_answers_with_the_same_round(app: Flask, client: FlaskClient) -> None:
    token = new_tournament(app)
    first = client.post(f"/t/{token}/rounds", data={"number": "1"})
    again = client.post(f"/t/{token}/rounds", data={"number": "1"})
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    assert round_count(app) == 1


def test_two_tabs_drawing_at_once_make_one_draw(app: Flask) -> None:
    token = new_tournament(app)
    answers = in_threads(app, lambda c: c.post(f"/t/{token}/rounds", data={"number": "1"}))
    assert [getattr(a, "status_code", a) for a in answers] == [303, 303]
    assert {a.headers["Location"] for a in answers} == {f"/t/{token}/rounds/1"}
    assert round_count(app) == 1
    with app.app_context():
        assert len(the_tournament(token).round_rows[0].tables) == 3


@pytest.mark.parametrize("players", [0, 1, 2, 5])
def test_too_few_players_are_told_on_the_page_they_came_from(
    app: Flask, client: FlaskClient, players: int
) -> None:
    token = new_tournament(app, players)
    back = f"/t/{token}/board"
    response = client.post(f"/t/{token}/rounds", data={"number": "1", "back": back})
    assert response.status_code == 303 and response.headers["Location"] == back
    text = flashed(client, response)
    assert "check in" in text
    assert round_count(app) == 0


def test_the_refusal_speaks_german_too(app: Flask, client: FlaskClient) -> None:
    token = new_tournament(app, 2)
    client.set_cookie("lang", "de")
    response = client.post(f"/t/{token}/rounds", data={"number": "1"})
    text = page_text(client.get(response.headers["Location"]))
    assert "Eine Runde braucht mindestens 3 Spieler, nicht 2" in text


def test_the_next_round_waits_for_the_open_one(app: Flask, client: FlaskClient) -> None:
    token = with_round(app)
    response = client.post(f"/t/{token}/rounds", data={"number": "2"})
    assert "close round 1 before drawing the next" in flashed(client, response)
    assert round_count(app) == 1


def test_after_the_last_round_nothing_more_is_drawn(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(9, rounds_=1)
        row = drawn(tournament, 1)
        play_round(row)
        rounds.close_round(tournament, row)
        token = tournament.token
    assert "All rounds are played." in page_text(client.get(f"/t/{token}/board?lang=en"))
    response = client.post(f"/t/{token}/rounds", data={"number": "2"})
    assert "all are drawn" in flashed(client, response)
    assert round_count(app) == 1


@pytest.mark.parametrize("number", ["", "abc", "1\x00", "-1", str(10**309), "1e3", "99"])
def test_junk_for_the_round_draws_nothing(app: Flask, client: FlaskClient, number: str) -> None:
    token = new_tournament(app)
    response = client.post(f"/t/{token}/rounds", data={"number": number})
    assert response.status_code == 303
    text = flashed(client, response)
    assert "cannot be drawn" in text
    assert round_count(app) == 0


def test_a_refusal_goes_back_to_the_page_the_button_was_on(app: Flask, client: FlaskClient) -> None:
    token = new_tournament(app, 5)
    home = f"/t/{token}"
    response = client.post(
        f"/t/{token}/rounds", data={"number": "1"}, headers={"Referer": f"http://localhost{home}"}
    )
    assert response.headers["Location"] == home
    elsewhere = client.post(
        f"/t/{token}/rounds", data={"number": "1"}, headers={"Referer": "http://evil.example/x"}
    )
    assert elsewhere.headers["Location"] == f"/t/{token}/board"


def test_the_way_back_stays_on_this_site(app: Flask, client: FlaskClient) -> None:
    token = new_tournament(app, 2)
    for back in ("//evil.example/x", "https://evil.example/", "/\t/evil.example"):
        response = client.post(f"/t/{token}/rounds", data={"number": "1", "back": back})
        assert response.headers["Location"] == f"/t/{token}/board"


def test_htmx_gets_a_redirect_header(app: Flask, client: FlaskClient) -> None:
    token = new_tournament(app)
    response = client.post(f"/t/{token}/rounds", data={"number": "1"}, headers=HX)
    assert response.status_code == 200
    assert response.headers["HX-Redirect"] == f"/t/{token}/rounds/1"


# -- drawing again ---------------------------------------------------------------------


def test_drawing_again_gives_a_new_seed(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, 12)
    with app.app_context():
        seed = the_tournament(token).round_rows[0].seed
    response = client.post(f"/t/{token}/rounds/1/redraw", data={"attempt": "1"})
    assert response.headers["Location"] == f"/t/{token}/rounds/1"
    text = flashed(client, response)
    assert "Round 1 drawn again." in text
    assert f"Draw {seed}-2" in text
    # the other tab still showed the first draw
    stale = client.post(f"/t/{token}/rounds/1/redraw", data={"attempt": "1"})
    assert "drawn again in another tab" in flashed(client, stale)
    with app.app_context():
        assert the_tournament(token).round_rows[0].attempt == 2


@pytest.mark.parametrize("attempt", ["", "x", "\x00", str(10**309)])
def test_drawing_again_with_junk_changes_nothing(
    app: Flask, client: FlaskClient, attempt: str
) -> None:
    token = with_round(app)
    response = client.post(f"/t/{token}/rounds/1/redraw", data={"attempt": attempt})
    assert response.status_code == 303
    with app.app_context():
        assert the_tournament(token).round_rows[0].attempt == 1


def test_once_a_hand_is_entered_the_draw_stands(app: Flask, client: FlaskClient) -> None:
    token = with_round(app)
    with app.app_context():
        match = the_tournament(token).round_rows[0].tables[1].match
        services.save_hand(match, a_hand(match))
    page = page_text(client.get(f"/t/{token}/rounds/1?lang=en"))
    assert "Draw again" not in page
    assert "A table has entered a hand: this draw stands" in page
    response = client.post(f"/t/{token}/rounds/1/redraw", data={"attempt": "1"})
    assert "table 2 has started: round 1 can no longer be drawn again" in flashed(client, response)
    with app.app_context():
        assert the_tournament(token).round_rows[0].attempt == 1


# -- replacing a table's link ----------------------------------------------------------


def test_replacing_a_link_is_asked_first_and_done_once(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=1)
    with app.app_context():
        table = the_tournament(token).round_rows[0].tables[0]
        table_id, old = table.id, table.match.token
    ask = page_text(client.get(f"/t/{token}/tables/{table_id}/link?lang=en"))
    assert "The old link then writes nothing any more" in ask
    assert "Yes, give table 1 a new link" in ask
    response = client.post(f"/t/{token}/tables/{table_id}/link", data={"link": "1"})
    assert response.headers["Location"] == f"/t/{token}/rounds/1#table-1"
    text = flashed(client, response)
    assert "Table 1 has a new link (link 2)" in text
    with app.app_context():
        table = the_tournament(token).round_rows[0].tables[0]
        new = table.match.token
        assert new != old and table.link_number == 2
        assert rounds.retired(old) is not None
    page = client.get(f"/t/{token}/rounds/1").get_data(as_text=True)
    assert f"/m/{new}" in page and f"/m/{old}" not in page
    assert f"/t/{token}/tables/{table_id}/qr.svg?link=2" in page
    # the same confirmation sent again (a double tap): no third link
    again = client.post(f"/t/{token}/tables/{table_id}/link", data={"link": "1"})
    assert "already has a new link" in flashed(client, again)
    with app.app_context():
        assert the_tournament(token).round_rows[0].tables[0].link_number == 2
    # the new phone goes on at the same deal
    assert client.get(f"/m/{new}").status_code == 200


def test_a_closed_rounds_links_are_not_replaced(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=None)
    with app.app_context():
        tournament = the_tournament(token)
        rounds.close_round(tournament, tournament.round_rows[0])
        table_id = tournament.round_rows[0].tables[0].id
    response = client.post(f"/t/{token}/tables/{table_id}/link", data={"link": "1"})
    assert "the round is closed: its tables write nothing any more" in flashed(client, response)
    with app.app_context():
        assert the_tournament(token).round_rows[0].tables[0].link_number == 1


# -- addresses that name nothing -------------------------------------------------------


def test_addresses_that_name_nothing_are_404(app: Flask, client: FlaskClient) -> None:
    token = with_round(app)
    other = with_round(app)
    with app.app_context():
        foreign = the_tournament(other).round_rows[0].tables[0].id
    for url in (
        "/t/no-such-token/board",
        "/t/no-such-token/board/live",
        f"/t/{token}/rounds/2",
        f"/t/{token}/rounds/{10**30}",
        f"/t/{token}/rounds/1/qr?x=1".replace("1/qr", "7/qr"),
        f"/t/{token}/tables/{foreign}",
        f"/t/{token}/tables/{foreign}/qr.svg",
        f"/t/{token}/tables/{10**30}/paper",
        f"/t/{token}/tables/{foreign}/hands/1/edit",
    ):
        assert client.get(url).status_code == 404, url


# -- random posts to every organiser route of a round -------------------------------------

# the organiser's POST routes and their fields (tests/web/test_fuzz.py fuzzes the match's)
ORGANISER_FIELDS = {
    "t_rounds.draw": ["number", "back"],
    "t_rounds.redraw": ["attempt"],
    "t_rounds.replace_link": ["link"],
    "t_rounds.close": ["warned", "sure", "back"],
    "t_corrections.update": [*HAND_KEYS, "version"],
    "t_corrections.strike": ["version"],
    "t_corrections.restore": ["version"],
    "t_corrections.paper": [
        "shown",
        "remove",
        *(f"{f}_{s}" for f in ("points", "lost") for s in (0, 1, 2, 3, 99)),
    ],
}


def test_every_organiser_post_route_is_fuzzed(app: Flask) -> None:
    posts = {r.endpoint for r in app.url_map.iter_rules() if "POST" in (r.methods or ())}
    mine = {e for e in posts if e.startswith(("t_rounds.", "t_corrections."))}
    assert mine == set(ORGANISER_FIELDS)


@pytest.mark.parametrize("endpoint", sorted(ORGANISER_FIELDS))
def test_random_posts_to_the_organisers_routes_never_fail(endpoint: str) -> None:
    with fresh_app() as app:
        client = app.test_client()
        with app.app_context():
            tournament = tournament_with(10)
            row = drawn(tournament, 1)
            play_round(row, 2)
            token = str(tournament.token)
            tables = [t.id for t in row.tables]
        rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
        keys = ORGANISER_FIELDS[endpoint]
        wrong = st.sampled_from([0, 2, 7, 2**31, 2**63, 10**30])

        @SETTINGS
        @given(
            st.dictionaries(st.sampled_from(keys), nasty, max_size=len(keys)),
            st.sampled_from(tables * 3 + [tables[-1] + 100, 2**63]),
            st.one_of(st.just(1), st.just(2), wrong),
            st.booleans(),
        )
        def check(fields: dict[str, str], table_id: int, number: int, htmx: bool) -> None:
            values = {"token": token, "table_id": table_id, "number": number}
            with app.test_request_context():
                path = url_for(endpoint, **{k: values[k] for k in rule.arguments})
            response = client.post(path, data=fields, headers=HX if htmx else {})
            assert response.status_code < 500, (path, fields)
            assert client.get(f"/t/{token}/board").status_code == 200

        check()
