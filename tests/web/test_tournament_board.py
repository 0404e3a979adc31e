"""The organiser's board through the pages: live tables, closing, corrections, paper, changes.

Round 1 of 9 players at three tables of three deals.  The table phones enter
hands through the match page as they do at the table; the organiser watches
the board (its poll answers 204/304 while nothing changed), closes the round,
corrects a hand of a closed round with the same hand form, types in a paper
slip, and reads the list of changes.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from scorer import services
from scorer.extensions import db
from scorer.models import Match
from scorer.rules import RulesError
from scorer.services.tournaments import board as boards
from scorer.services.tournaments import rounds, setup, tables
from scorer.tournament_models import Tournament
from scorer.words import local_time, rules_message
from tests.builders import HX, fill_hand, form_data, page_text
from tests.tournament_builders import a_hand, drawn, play_round, tournament_with

POLL_RE = re.compile(r'hx-get="([^"]+/board/live\?shown=[0-9a-f]+)"')


@pytest.fixture(autouse=True)
def in_english(client: FlaskClient) -> None:
    client.set_cookie("lang", "en")


def with_round(app: Flask, players: int = 9, hands: int | None = 0) -> str:
    with app.app_context():
        tournament = tournament_with(players)
        row = drawn(tournament, 1)
        if hands != 0:
            play_round(row, hands)
        return str(tournament.token)


def the(token: str) -> Tournament:
    return setup.get_tournament(token)


def table_of(app: Flask, token: str, number: int) -> dict[str, object]:
    with app.app_context():
        table = the(token).round_rows[-1].tables[number - 1]
        return {"id": table.id, "match": table.match.token, "players": list(table.players)}


def play(app: Flask, token: str, number: int, hands: int = 1) -> None:
    with app.app_context():
        match = the(token).round_rows[-1].tables[number - 1].match
        for _ in range(hands):
            services.save_hand(
                match, a_hand(match, declarer=services.standing(match).hand_count % 3)
            )


def confirm_all(app: Flask, token: str, number: int) -> None:
    with app.app_context():
        table = the(token).round_rows[-1].tables[number - 1]
        for player in table.players:
            tables.confirm(table, player)


def after(client: FlaskClient, response: object) -> str:
    return page_text(client.get(response.headers["Location"]))  # type: ignore[attr-defined]


# -- the board -------------------------------------------------------------------------


def test_the_board_shows_every_table(app: Flask, client: FlaskClient) -> None:
    token = with_round(app)
    play(app, token, 1, 3)
    confirm_all(app, token, 1)
    play(app, token, 2, 3)
    play(app, token, 3, 1)
    text = page_text(client.get(f"/t/{token}/board"))
    assert "Round 1 of 2" in text
    assert "2 of 3 tables done · 1 signed" in text
    assert "Table 1 done" in text and "signed" in text
    assert "Table 2 done" in text and "not signed by all" in text
    assert "Table 3 Deal 2 of 3" in text
    assert "Table 3 is still playing" in text


def test_a_large_board_reads_in_pages_and_counts_every_table(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two tables to a page (a hall: 100): page 2 holds table 3, the counts all three."""
    monkeypatch.setattr(boards, "BOARD_ROWS", 2)
    token = with_round(app)
    play(app, token, 1, 3)
    first = client.get(f"/t/{token}/board").get_data(as_text=True)
    assert 'id="board-table-1"' in first and 'id="board-table-2"' in first
    assert 'id="board-table-3"' not in first
    assert "Page 1 of 2" in page_text(first)
    assert "1 of 3 tables done" in page_text(first)
    second = client.get(f"/t/{token}/board?page=2").get_data(as_text=True)
    assert 'id="board-table-3"' in second and 'id="board-table-1"' not in second
    assert "1 of 3 tables done" in page_text(second)
    # the page polls its own page; a page beyond the last is the last, junk the first
    assert re.search(r'hx-get="[^"]*board/live\?page=2', second)
    live = client.get(f"/t/{token}/board/live?page=2", headers=HX).get_data(as_text=True)
    assert 'id="board-table-3"' in live and 'id="board-table-1"' not in live
    assert 'id="board-table-3"' in client.get(f"/t/{token}/board?page=99").get_data(as_text=True)
    junk = client.get(f"/t/{token}/board?page=x%00")
    assert junk.status_code == 200 and 'id="board-table-1"' in junk.get_data(as_text=True)


def test_a_quiet_table_is_flagged(app: Flask, client: FlaskClient) -> None:
    token = with_round(app)
    play(app, token, 2, 1)
    match_token = table_of(app, token, 2)["match"]
    with app.app_context():
        long_ago = services.get_match(str(match_token)).updated_at - timedelta(minutes=25)
        db.session.execute(
            update(Match).where(Match.token == match_token).values(updated_at=long_ago)
        )
        db.session.commit()
    text = page_text(client.get(f"/t/{token}/board"))
    with app.app_context():
        shown = local_time(long_ago)  # on the hall's clock
    assert f"nothing since {shown}: phone offline?" in text
    assert "1 table quiet" in text


def test_the_board_poll_is_204_or_304_while_nothing_changed(
    app: Flask, client: FlaskClient
) -> None:
    token = with_round(app)
    page = client.get(f"/t/{token}/board").get_data(as_text=True)
    found = POLL_RE.search(page)
    assert found, "no polled URL in the board"
    url = found.group(1).replace("&amp;", "&")
    same = client.get(url, headers=HX)
    assert (same.status_code, same.data) == (204, b"")
    fresh = client.get(f"/t/{token}/board/live", headers=HX)
    assert fresh.status_code == 200
    assert 'id="t-board"' in fresh.get_data(as_text=True)
    assert "<html" not in fresh.get_data(as_text=True)
    etag = fresh.headers["ETag"]
    assert client.get(f"/t/{token}/board/live", headers={"If-None-Match": etag}).status_code == 304
    play(app, token, 1)
    changed = client.get(url, headers=HX)
    assert changed.status_code == 200
    assert "Deal 2 of 3" in page_text(changed)
    assert client.get(f"/t/{token}/board/live", headers={"If-None-Match": etag}).status_code == 200


def test_the_board_before_the_first_draw_offers_it(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        token = tournament_with(10).token
    text = page_text(client.get(f"/t/{token}/board"))
    assert "Draw round 1" in text and "10 players are checked in for it. 3 tables." in text


# -- closing the round -----------------------------------------------------------------


def test_closing_is_refused_while_tables_play(app: Flask, client: FlaskClient) -> None:
    token = with_round(app)
    play(app, token, 1, 3)
    play(app, token, 2, 1)
    board = page_text(client.get(f"/t/{token}/board"))
    assert "Tables 2, 3 are still playing" in board
    response = client.post(f"/t/{token}/rounds/1/close", data={"warned": ""})
    assert response.status_code == 303
    assert "tables 2, 3 have not finished" in after(client, response)
    with app.app_context():
        assert the(token).round_rows[0].closed_at is None


def test_closing_with_unsigned_tables_asks_once_more(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=None)
    confirm_all(app, token, 1)
    board = page_text(client.get(f"/t/{token}/board"))
    assert "Tables 2, 3 have not confirmed their results with every player" in board
    # a page that warned of table 2 only: table 3 is asked about
    asked = client.post(f"/t/{token}/rounds/1/close", data={"warned": "2"})
    assert asked.status_code == 200
    text = page_text(asked)
    assert "Tables 2, 3 have not confirmed their results" in text
    assert "Close round 1 anyway" in text
    with app.app_context():
        assert the(token).round_rows[0].closed_at is None
    confirmed = form_data(asked.get_data(as_text=True))
    assert confirmed["warned"] == "2,3"
    closed = client.post(f"/t/{token}/rounds/1/close", data=confirmed)
    assert closed.status_code == 303
    text = after(client, closed)
    assert "Round 1 is closed." in text
    assert "Draw round 2" in text
    with app.app_context():
        assert the(token).round_rows[0].closed_at is not None
    again = client.post(f"/t/{token}/rounds/1/close", data=confirmed)
    assert again.status_code == 303  # closing twice is harmless


@pytest.mark.parametrize("warned", ["\x00", "1,2,x," + "9" * 400, str(10**309)])
def test_junk_in_the_close_form_only_asks_again(
    app: Flask, client: FlaskClient, warned: str
) -> None:
    token = with_round(app, hands=None)
    asked = client.post(f"/t/{token}/rounds/1/close", data={"warned": warned})
    assert asked.status_code == 200
    assert "Close round 1 anyway" in page_text(asked)


def test_closing_a_signed_round_asks_once(app: Flask, client: FlaskClient) -> None:
    """Issue 30: a tap on "Close round 1" asks first, even with every table signed."""
    token = with_round(app, hands=None)
    for number in (1, 2, 3):
        confirm_all(app, token, number)
    board = client.get(f"/t/{token}/board").get_data(as_text=True)
    asked = client.post(f"/t/{token}/rounds/1/close", data=form_data(board, "close-form"))
    assert asked.status_code == 200
    text = page_text(asked)
    assert "Close round 1?" in text and "Every table is done and signed." in text
    assert "Yes, close round 1" in text and "Back, do not close" in text
    with app.app_context():
        assert the(token).round_rows[0].closed_at is None
    sure = form_data(asked.get_data(as_text=True), "close-confirm")
    assert sure == {"warned": "", "sure": "1", "back": f"/t/{token}/board"}
    closed = client.post(f"/t/{token}/rounds/1/close", data=sure)
    assert closed.headers["Location"] == f"/t/{token}/board"
    assert "Round 1 is closed." in after(client, closed)
    with app.app_context():
        assert the(token).round_rows[0].closed_at is not None


def test_the_close_questions_address_reopened_asks_again(app: Flask, client: FlaskClient) -> None:
    """A reload or the back button on "Close round 1?" (a GET on its address) was 405
    "Nicht erlaubt" (issue 34 §7): it asks the question as it stands now."""
    token = with_round(app)
    play(app, token, 2, 3)
    play(app, token, 3, 3)
    play(app, token, 1)  # table 1 still plays
    address = f"/t/{token}/rounds/1/close"
    playing = client.get(address)
    assert playing.status_code == 303 and playing.headers["Location"] == f"/t/{token}/board"
    assert "Table 1 is still playing" in after(client, playing)
    confirm_all(app, token, 2)
    play(app, token, 1, 2)  # its last two deals
    reopened = client.get(address + "?lang=de")
    assert reopened.status_code == 200
    text = page_text(reopened)
    assert "Runde 1 abschließen?" in text and "Nicht erlaubt" not in text
    assert "An den Tischen 1, 3 haben noch nicht alle Spieler das Ergebnis bestätigt" in text
    sure = form_data(reopened.get_data(as_text=True), "close-confirm")
    assert sure == {"warned": "1,3", "sure": "1", "back": f"/t/{token}/board"}
    with app.app_context():
        assert the(token).round_rows[0].closed_at is None  # asking changes nothing
    closed = client.post(address, data=sure)
    assert closed.headers["Location"] == f"/t/{token}/board"
    with app.app_context():
        assert the(token).round_rows[0].closed_at is not None
    # reopened once more, the round is closed: that is said where the rounds are
    again = client.get(address + "?back=//evil.example/x")
    assert again.status_code == 303 and again.headers["Location"] == f"/t/{token}/board"
    assert "Runde 1 ist abgeschlossen." in after(client, again)
    assert client.get(f"/t/{token}/rounds/9/close").status_code == 404


@pytest.mark.parametrize("back", ["//evil.example/x", "https://evil.example/", "/\\evil"])
def test_the_close_goes_back_only_to_this_site(app: Flask, client: FlaskClient, back: str) -> None:
    token = with_round(app, hands=None)
    for number in (1, 2, 3):
        confirm_all(app, token, number)
    closed = client.post(
        f"/t/{token}/rounds/1/close", data={"warned": "", "sure": "1", "back": back}
    )
    assert closed.headers["Location"] == f"/t/{token}/board"


def test_the_next_round_is_drawn_from_the_board(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=None)
    with app.app_context():
        for number in (1, 2, 3):
            confirm = the(token).round_rows[0].tables[number - 1]
            for player in confirm.players:
                tables.confirm(confirm, player)
    client.post(f"/t/{token}/rounds/1/close", data={"warned": "", "sure": "1"})
    board = client.get(f"/t/{token}/board").get_data(as_text=True)
    data = form_data(board, "draw-form")
    assert data == {"number": "2", "back": f"/t/{token}/board"}
    response = client.post(f"/t/{token}/rounds", data=data)
    assert response.headers["Location"] == f"/t/{token}/rounds/2"
    assert "Round 2 of 2" in page_text(client.get(f"/t/{token}/board"))


def test_a_table_phone_writing_after_the_close_is_refused(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=None)
    match = str(table_of(app, token, 1)["match"])
    with app.app_context():
        seq = services.live_hands(services.get_match(match))[0].seq
    edit = form_data(client.get(f"/m/{match}/hands/{seq}/edit").get_data(as_text=True), "hand-form")
    with app.app_context():
        rounds.close_round(the(token), the(token).round_rows[0])
    response = client.post(f"/m/{match}/hands/{seq}", data=fill_hand(edit, bid=160))
    assert response.status_code == 409
    assert "This round of the tournament is closed" in page_text(response)
    with app.app_context():
        assert services.live_hands(services.get_match(match))[0].bid == 150


# -- the organiser's corrections -------------------------------------------------------


def organiser_edit(client: FlaskClient, token: str, table_id: object, seq: int) -> dict[str, str]:
    page = client.get(f"/t/{token}/tables/{table_id}/hands/{seq}/edit")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f'action="/t/{token}/tables/{table_id}/hands/{seq}"' in html
    assert f'href="/t/{token}/tables/{table_id}"' in html  # cancel: the table's sheet
    return form_data(html, "hand-form")


def test_the_organiser_corrects_a_closed_round(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=None)
    table = table_of(app, token, 1)
    with app.app_context():
        rounds.close_round(the(token), the(token).round_rows[0])
    sheet = client.get(f"/t/{token}/tables/{table['id']}").get_data(as_text=True)
    assert "round closed" in page_text(sheet)
    assert f'href="/t/{token}/tables/{table["id"]}/hands/1/edit"' in sheet
    data = organiser_edit(client, token, table["id"], 1)
    assert data["bid"] == "150"
    response = client.post(
        f"/t/{token}/tables/{table['id']}/hands/1", data=fill_hand(data, bid=160)
    )
    assert response.status_code == 303
    assert response.headers["Location"] == f"/t/{token}/board"
    with app.app_context():
        match = services.get_match(str(table["match"]))
        assert services.live_hands(match)[0].bid == 160
        assert match.locked == "closed"
    changes = page_text(client.get(f"/t/{token}/changes"))
    assert "Round 1 · table 1 · deal 1 · corrected Organiser" in changes
    assert "150" in changes and "160" in changes


def test_a_correction_over_htmx_goes_back_by_header(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=None)
    table = table_of(app, token, 2)
    data = organiser_edit(client, token, table["id"], 2)
    response = client.post(
        f"/t/{token}/tables/{table['id']}/hands/2", data=fill_hand(data, bid=170), headers=HX
    )
    assert response.status_code == 200
    assert response.headers["HX-Redirect"] == f"/t/{token}/board"


@pytest.mark.parametrize("bid", ["1\x00", str(10**309), "-150", "abc"])
def test_a_bad_correction_keeps_what_was_typed(app: Flask, client: FlaskClient, bid: str) -> None:
    token = with_round(app, hands=None)
    table = table_of(app, token, 1)
    data = organiser_edit(client, token, table["id"], 1)
    response = client.post(
        f"/t/{token}/tables/{table['id']}/hands/1",
        data=fill_hand(data, bid=bid, **{"parties-0-melds": "70"}),
    )
    assert response.status_code == 422
    kept = form_data(response.get_data(as_text=True), "hand-form")
    assert kept["parties-0-melds"] == "70"
    assert f'action="/t/{token}/tables/{table["id"]}/hands/1"' in response.get_data(as_text=True)
    with app.app_context():
        assert services.live_hands(services.get_match(str(table["match"])))[0].bid == 150


def test_a_correction_from_a_stale_form_keeps_the_form(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=None)
    table = table_of(app, token, 1)
    data = organiser_edit(client, token, table["id"], 1)
    play_again = table["match"]
    with app.app_context():  # the table phone corrects the same deal meanwhile
        match = services.get_match(str(play_again))
        services.save_hand(match, a_hand(match, declarer=1), hand=services.live_hands(match)[0])
    response = client.post(
        f"/t/{token}/tables/{table['id']}/hands/1", data=fill_hand(data, bid=180)
    )
    assert response.status_code == 409
    text = page_text(response)
    assert "This match was changed in the meantime. What you typed is kept below" in text
    kept = form_data(response.get_data(as_text=True), "hand-form")
    assert kept["bid"] == "180"
    again = client.post(f"/t/{token}/tables/{table['id']}/hands/1", data=kept)
    assert again.status_code == 303
    with app.app_context():
        assert services.live_hands(services.get_match(str(play_again)))[0].bid == 180


def test_the_organiser_strikes_and_restores_a_hand(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=None)
    table = table_of(app, token, 3)
    edit = client.get(f"/t/{token}/tables/{table['id']}/hands/2/edit").get_data(as_text=True)
    assert "Strike hand 2" in page_text(edit)
    strike = form_data(edit, "strike-form")
    struck = client.post(f"/t/{token}/tables/{table['id']}/hands/2/strike", data=strike)
    assert struck.headers["Location"] == f"/t/{token}/tables/{table['id']}"
    sheet = page_text(client.get(f"/t/{token}/tables/{table['id']}"))
    assert "struck" in sheet and "Restore" in sheet
    with app.app_context():
        version = services.get_match(str(table["match"])).version
    client.post(f"/t/{token}/tables/{table['id']}/hands/2/restore", data={"version": str(version)})
    changes = page_text(client.get(f"/t/{token}/changes"))
    assert "table 3 · deal 2 · restored Organiser" in changes
    assert "table 3 · deal 2 · struck Organiser" in changes
    stale = client.post(
        f"/t/{token}/tables/{table['id']}/hands/2/strike", data={"version": str(version)}
    )
    assert "changed this sheet meanwhile" in after(client, stale)


# -- paper slips -----------------------------------------------------------------------


def slip(points: list[object], lost: list[object], shown: str | None = None) -> dict[str, str]:
    data = {f"points_{i}": str(p) for i, p in enumerate(points)}
    data.update({f"lost_{i}": str(n) for i, n in enumerate(lost)})
    if shown is not None:
        data["shown"] = shown
    return data


def test_a_paper_slip_is_typed_in_and_counts(app: Flask, client: FlaskClient) -> None:
    token = with_round(app)
    play(app, token, 2, 1)
    table = table_of(app, token, 2)
    page = client.get(f"/t/{token}/tables/{table['id']}/paper")
    text = page_text(page)
    assert "The table's phone has entered 1 hand: the slip takes their place." in text
    shown = form_data(page.get_data(as_text=True))["shown"]
    response = client.post(
        f"/t/{token}/tables/{table['id']}/paper", data=slip([420, -150, 90], [0, 2, 1], shown)
    )
    assert response.status_code == 303 and response.headers["Location"] == f"/t/{token}/board"
    board = after(client, response)
    assert "Table 2: paper slip saved." in board
    assert "Table 2 from paper" in board
    with app.app_context():
        results = tables.results(the(token).round_rows[0])
        players = table["players"]
        assert [results[p].points for p in players] == [420, -150, 90]  # type: ignore[attr-defined]
        assert all(results[p].paper for p in players)  # type: ignore[attr-defined]
    again = client.get(f"/t/{token}/tables/{table['id']}/paper").get_data(as_text=True)
    assert form_data(again)["points_0"] == "420"  # it can be edited
    changes = page_text(client.get(f"/t/{token}/changes"))
    assert "Round 1 · table 2 · paper slip Organiser" in changes


@pytest.mark.parametrize(
    ("points", "lost", "message"),
    [
        (["1\x00", 20, 30], [0, 0, 0], "Enter a whole number from -50000 to 50000."),
        ([str(10**309), 20, 30], [0, 0, 0], "Enter a whole number from -50000 to 50000."),
        ([10, 20, 30], [0, -1, 0], "Enter a whole number from 0 to 3."),
        ([10, 20, 30], [0, 4, 0], "Enter a whole number from 0 to 3."),
        ([10, 20], [0, 0], "This field is required."),
        (["", "", ""], ["", "", ""], "This field is required."),
        (["1.5", 20, 30], [0, 0, 0], "Enter a whole number"),
        ([10, 20, 30], [2, 1, 1], "the table played 3 deals: at most 3 lost games together"),
    ],
)
def test_a_bad_paper_slip_is_refused_with_values_kept(
    app: Flask, client: FlaskClient, points: list[object], lost: list[object], message: str
) -> None:
    token = with_round(app)
    table = table_of(app, token, 1)
    response = client.post(f"/t/{token}/tables/{table['id']}/paper", data=slip(points, lost))
    assert response.status_code == 422
    text = page_text(response)
    assert message in text
    kept = form_data(response.get_data(as_text=True))
    if points[0] != "1\x00":
        assert kept["points_0"] == str(points[0])
    with app.app_context():
        assert the(token).round_rows[0].tables[0].paper is None


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_slip_no_game_can_make_is_refused_naming_the_player(
    app: Flask, client: FlaskClient, lang: str
) -> None:
    """Tricks are rounded to ten at the tournament: 437 points is a typing slip."""
    client.set_cookie("lang", lang)
    token = with_round(app)
    table = table_of(app, token, 1)
    with app.app_context():
        tournament = the(token)
        row = tournament.round_rows[0].tables[0]
        name = row.match.seats[1].name
        before = (tournament.version, row.match.version)
    with app.test_request_context(f"/?lang={lang}"):
        # the message as the user's language has it (German once the catalogue holds it)
        expected = rules_message(
            RulesError(
                "{name}: {points} points cannot be played with these rules: "
                "every game's points are a multiple of {step}",
                name=name,
                points=437,
                step=10,
            )
        )
    typed = slip([420, 437, -150], [0, 1, 2])
    response = client.post(f"/t/{token}/tables/{table['id']}/paper", data=typed)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert f'lang="{lang}"' in html
    text = page_text(response)
    assert expected in text and name in expected and "437" in expected
    if lang == "en":
        assert (
            f"{name}: 437 points cannot be played with these rules: "
            "every game's points are a multiple of 10" in text
        )
    kept = form_data(html)
    assert [kept[f"points_{i}"] for i in range(3)] == ["420", "437", "-150"]
    assert [kept[f"lost_{i}"] for i in range(3)] == ["0", "1", "2"]
    with app.app_context():
        tournament = the(token)
        row = tournament.round_rows[0].tables[0]
        assert row.paper is None and row.paper_log is None
        assert (tournament.version, row.match.version) == before
        assert not any(r.paper for r in tables.results(tournament.round_rows[0]).values())


def test_a_slip_changed_in_another_tab_is_not_overwritten(app: Flask, client: FlaskClient) -> None:
    token = with_round(app)
    table = table_of(app, token, 1)
    url = f"/t/{token}/tables/{table['id']}/paper"
    shown = form_data(client.get(url).get_data(as_text=True))["shown"]
    client.post(url, data=slip([10, 20, 30], [0, 0, 0], shown))
    stale = client.post(url, data=slip([70, 80, 90], [0, 0, 0], shown))
    assert stale.status_code == 409
    text = page_text(stale)
    assert "changed in another tab" in text and "The slip now reads" in text
    kept = form_data(stale.get_data(as_text=True))
    assert kept["points_0"] == "70"
    with app.app_context():
        assert the(token).round_rows[0].tables[0].paper == {
            str(p): [v, 0]
            for p, v in zip(table["players"], [10, 20, 30], strict=True)  # type: ignore[call-overload]
        }
    # the form now carries the slip as it is: saved again, it replaces it
    assert client.post(url, data=kept).status_code == 303
    # the same slip sent twice (a double tap) is saved once
    assert client.post(url, data=kept).status_code == 303


def test_a_paper_slip_is_removed(app: Flask, client: FlaskClient) -> None:
    token = with_round(app)
    table = table_of(app, token, 1)
    url = f"/t/{token}/tables/{table['id']}/paper"
    client.post(url, data=slip([10, 20, 30], [0, 0, 0]))
    page = client.get(url).get_data(as_text=True)
    assert "Remove the slip" in page
    response = client.post(url, data={"shown": form_data(page)["shown"], "remove": "1"})
    assert "Table 1: paper slip removed." in after(client, response)
    with app.app_context():
        assert the(token).round_rows[0].tables[0].paper is None


# -- the change list -------------------------------------------------------------------


def test_the_change_list_names_the_link(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=None)
    table = table_of(app, token, 1)
    old = str(table["match"])
    # the Schreiber corrects deal 1 after the last deal, on link 1
    edit = form_data(client.get(f"/m/{old}/hands/1/edit").get_data(as_text=True), "hand-form")
    assert client.post(f"/m/{old}/hands/1", data=fill_hand(edit, bid=170)).status_code == 303
    # the link is replaced; the new phone corrects deal 2
    client.post(f"/t/{token}/tables/{table['id']}/link", data={"link": "1"})
    new = str(table_of(app, token, 1)["match"])
    edit = form_data(client.get(f"/m/{new}/hands/2/edit").get_data(as_text=True), "hand-form")
    assert client.post(f"/m/{new}/hands/2", data=fill_hand(edit, bid=180)).status_code == 303
    text = page_text(client.get(f"/t/{token}/changes"))
    assert "table 1 · deal 1 · corrected Table phone (link 1)" in text
    assert "table 1 · deal 2 · corrected Table phone (link 2, new)" in text
    assert text.index("deal 2 · corrected") < text.index("deal 1 · corrected")  # newest first
    german = page_text(client.get(f"/t/{token}/changes?lang=de"))
    assert german.count("170") >= 1


def test_the_change_list_is_empty_at_first(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, hands=2)
    assert "No changes so far." in page_text(client.get(f"/t/{token}/changes"))


# -- with CSRF protection on, as in production -------------------------------------


def test_every_organiser_form_carries_its_csrf_token(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    client.set_cookie("lang", "en")
    with csrf_app.app_context():
        token = tournament_with(9).token
    board = client.get(f"/t/{token}/board").get_data(as_text=True)
    drawn_ = client.post(f"/t/{token}/rounds", data=form_data(board, "draw-form"))
    assert drawn_.headers["Location"] == f"/t/{token}/rounds/1"
    page = client.get(f"/t/{token}/rounds/1").get_data(as_text=True)
    again = client.post(f"/t/{token}/rounds/1/redraw", data=form_data(page, "redraw-form"))
    assert again.status_code == 303
    with csrf_app.app_context():
        row = the(token).round_rows[0]
        assert row.attempt == 2
        table_id = row.tables[0].id
        play_round(row)
    link = client.get(f"/t/{token}/tables/{table_id}/link").get_data(as_text=True)
    replaced = client.post(f"/t/{token}/tables/{table_id}/link", data=form_data(link, "link-form"))
    assert "has a new link (link 2)" in after(client, replaced)
    paper = client.get(f"/t/{token}/tables/{table_id}/paper").get_data(as_text=True)
    typed = {**form_data(paper, "paper-form"), "points_0": "10", "points_1": "20", "points_2": "30"}
    typed.update({"lost_0": "0", "lost_1": "0", "lost_2": "0"})
    assert client.post(f"/t/{token}/tables/{table_id}/paper", data=typed).status_code == 303
    edit = client.get(f"/t/{token}/tables/{table_id}/hands/1/edit").get_data(as_text=True)
    corrected = client.post(
        f"/t/{token}/tables/{table_id}/hands/1",
        data=fill_hand(form_data(edit, "hand-form"), bid=160),
    )
    assert corrected.status_code == 303
    board = client.get(f"/t/{token}/board").get_data(as_text=True)
    asked = client.post(f"/t/{token}/rounds/1/close", data=form_data(board, "close-form"))
    assert asked.status_code == 200 and "Close round 1?" in page_text(asked)
    closed = client.post(
        f"/t/{token}/rounds/1/close", data=form_data(asked.get_data(as_text=True), "close-confirm")
    )
    assert "Round 1 is closed." in after(client, closed)
    refused = client.post(f"/t/{token}/rounds/1/close", data={"warned": ""})
    assert refused.status_code == 400  # no token: the form has expired


def test_the_change_list_shows_who_sat_a_deal_out(app: Flask, client: FlaskClient) -> None:
    token = with_round(app, players=10, hands=None)  # a table of four and two of three
    with app.app_context():
        match = the(token).round_rows[0].tables[0].match
        second = services.live_hands(match)[1]
        sitting_out = second.dealer_seat
        services.save_hand(match, a_hand(match, declarer=2), hand=second)
        name = the(token).round_rows[0].tables[0].match.seats[sitting_out].name
    page = client.get(f"/t/{token}/changes").get_data(as_text=True)
    assert f'<th>{name}</th><td colspan="2" class="muted">Dealer sits out</td>' in page
    client.set_cookie("lang", "de")
    assert "Geber setzt aus" in page_text(client.get(f"/t/{token}/changes"))
