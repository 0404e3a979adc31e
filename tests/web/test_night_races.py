"""The night's races: an organiser's write and a table phone's write at the same moment.

Every organiser write that can meet a table's write — drawing a round again,
closing it, a new link, a correction, a paper slip, a withdrawal — is forced
into both orders with :func:`tests.races.interleave`: one request has read the
state and is about to write when the other one runs whole and commits.  The
database decides: the winner's write stays, the loser gets a clear refusal (or,
where its write does not contradict the winner's, goes through on the state as
it is now), and no answer is a 500.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.models import Hand, Match
from scorer.services.tournaments import rounds, setup
from scorer.tournament_models import Entrant, RetiredLink, Round, TournamentTable
from tests.builders import HX, form_data, page_text
from tests.races import interleave
from tests.tournament_builders import drawn, play_round, tournament_with

HAND = {
    "declarer": "0",
    "bid": "150",
    "trump": "E",
    "outcome": "played",
    "parties-0-melds": "100",
    "parties-0-tricks": "130",
    "parties-1-tricks": "60",
    "parties-2-tricks": "60",
}


def status(answer: Any) -> Any:
    """The status of a test client's answer, or the exception a side raised."""
    return getattr(answer, "status_code", answer)


def a_round(app: Flask, players: int = 9, hands: int | None = 0) -> dict[str, Any]:
    """Round 1 of a tournament (tables of three, 3 deals), ``hands`` played at each table."""
    with app.app_context():
        tournament = tournament_with(players, deals=3)
        row = drawn(tournament)
        if hands != 0:
            play_round(row, hands)
        first = row.tables[0]
        return {
            "tournament": tournament.token,
            "round": row.id,
            "table": first.id,
            "match": first.match_id,
            "phone": first.match.token,
        }


def phone_form(client: FlaskClient, night: dict[str, Any], **extra: str) -> dict[str, str]:
    page = client.get(f"/m/{night['phone']}").get_data(as_text=True)
    return {**form_data(page, "hand-form"), **HAND, **extra}


def hands_of(app: Flask, match_id: int) -> int:
    with app.app_context():
        return int(
            db.session.execute(
                select(func.count()).select_from(Hand).where(Hand.match_id == match_id)
            ).scalar_one()
        )


def round_row(app: Flask, night: dict[str, Any]) -> dict[str, Any]:
    with app.app_context():
        row = db.session.get_one(Round, night["round"])
        return {
            "attempt": row.attempt,
            "closed": row.closed_at is not None,
            "tokens": [t.match.token for t in row.tables],
        }


@pytest.fixture
def phone(app: Flask) -> FlaskClient:
    client = app.test_client()
    client.set_cookie("lang", "en")
    return client


@pytest.fixture
def organiser(app: Flask) -> FlaskClient:
    client = app.test_client()
    client.set_cookie("lang", "en")
    return client


def followed(client: FlaskClient, answer: Any) -> str:
    """The page a redirect leads to (with its flashed message)."""
    assert status(answer) in (302, 303), answer
    return page_text(client.get(answer.headers["Location"]))


# -- drawing again against a table's first hand -------------------------------------------


def redraw_post(organiser: FlaskClient, night: dict[str, Any]) -> Any:
    return organiser.post(f"/t/{night['tournament']}/rounds/1/redraw", data={"attempt": "1"})


@pytest.mark.parametrize("htmx", [False, True])
def test_a_first_hand_that_reads_before_a_redraw_is_refused_and_told_why(
    app: Flask, phone: FlaskClient, organiser: FlaskClient, htmx: bool
) -> None:
    night = a_round(app)
    form = phone_form(phone, night)
    saved, redrawn = interleave(
        lambda: phone.post(f"/m/{night['phone']}/hands", data=form, headers=HX if htmx else {}),
        lambda: redraw_post(organiser, night),
    )
    # the organiser's redraw won: the round is drawn again, its old links name why
    assert status(redrawn) == 303
    assert "Round 1 drawn again" in followed(organiser, redrawn)
    after = round_row(app, night)
    assert after["attempt"] == 2
    assert night["phone"] not in after["tokens"]
    # the phone's save lost: nothing of it anywhere, and the phone is told to use its new link
    assert status(saved) in (409, 410)
    text = page_text(saved)
    assert "drawn again" in text
    with app.app_context():
        assert db.session.execute(select(func.count()).select_from(Hand)).scalar_one() == 0
    # and the old link keeps saying so
    later = phone.get(f"/m/{night['phone']}")
    assert later.status_code == 410
    assert "drawn again" in page_text(later)


def test_a_redraw_that_reads_before_a_first_hand_is_refused_and_the_hand_stays(
    app: Flask, phone: FlaskClient, organiser: FlaskClient
) -> None:
    night = a_round(app)
    form = phone_form(phone, night)
    redrawn, saved = interleave(
        lambda: redraw_post(organiser, night),
        lambda: phone.post(f"/m/{night['phone']}/hands", data=form),
    )
    assert status(saved) == 303
    assert hands_of(app, night["match"]) == 1
    assert status(redrawn) == 303
    assert "table 1 has started: round 1 can no longer be drawn again" in followed(
        organiser, redrawn
    )
    after = round_row(app, night)
    assert after["attempt"] == 1
    assert night["phone"] in after["tokens"]


# -- closing a round against a table's last change -------------------------------------------


def close_post(organiser: FlaskClient, night: dict[str, Any]) -> Any:
    url = f"/t/{night['tournament']}/rounds/1/close"
    return organiser.post(url, data={"warned": "1,2,3", "sure": "1"})


def strike_last(phone: FlaskClient, night: dict[str, Any]) -> Any:
    page = phone.get(f"/m/{night['phone']}/hands/3?strike=1").get_data(as_text=True)
    return phone.post(f"/m/{night['phone']}/hands/3/delete", data=form_data(page))


def struck(app: Flask, match_id: int) -> int:
    with app.app_context():
        return int(
            db.session.execute(
                select(func.count())
                .select_from(Hand)
                .where(Hand.match_id == match_id, Hand.deleted_at.is_not(None))
            ).scalar_one()
        )


def test_a_close_that_reads_before_a_table_strikes_its_last_hand_is_refused(
    app: Flask, phone: FlaskClient, organiser: FlaskClient
) -> None:
    night = a_round(app, hands=None)
    closed, stricken = interleave(
        lambda: close_post(organiser, night), lambda: strike_last(phone, night)
    )
    assert status(stricken) == 303
    assert struck(app, night["match"]) == 1
    assert "table 1 has not finished" in followed(organiser, closed)
    assert round_row(app, night)["closed"] is False


def test_a_strike_that_reads_before_the_close_is_refused_with_the_reason(
    app: Flask, phone: FlaskClient, organiser: FlaskClient
) -> None:
    night = a_round(app, hands=None)
    stricken, closed = interleave(
        lambda: strike_last(phone, night), lambda: close_post(organiser, night)
    )
    assert status(closed) == 303
    assert round_row(app, night)["closed"] is True
    assert status(stricken) == 409
    assert "This round of the tournament is closed" in page_text(stricken)
    assert struck(app, night["match"]) == 0


def test_a_confirmation_that_reads_before_the_close_is_refused_not_swallowed(
    app: Flask, phone: FlaskClient, organiser: FlaskClient
) -> None:
    night = a_round(app, hands=None)
    with app.app_context():
        player = db.session.get_one(TournamentTable, night["table"]).players[0]
    page = phone.get(f"/m/{night['phone']}").get_data(as_text=True)
    form = {**form_data(page, "confirm-form"), "entrant": str(player)}
    confirmed, closed = interleave(
        lambda: phone.post(f"/m/{night['phone']}/confirm", data=form),
        lambda: close_post(organiser, night),
    )
    assert status(closed) == 303
    assert status(confirmed) == 409
    assert "this round is closed" in page_text(confirmed)
    with app.app_context():
        assert db.session.get_one(TournamentTable, night["table"]).confirmations == []


# -- a new link against a table's save ------------------------------------------------------


def replace_post(organiser: FlaskClient, night: dict[str, Any]) -> Any:
    return organiser.post(
        f"/t/{night['tournament']}/tables/{night['table']}/link", data={"link": "1"}
    )


def link_number(app: Flask, night: dict[str, Any]) -> int:
    with app.app_context():
        return db.session.get_one(TournamentTable, night["table"]).link_number


@pytest.mark.parametrize("htmx", [False, True])
def test_a_hand_that_reads_before_a_new_link_is_refused_and_told_why(
    app: Flask, phone: FlaskClient, organiser: FlaskClient, htmx: bool
) -> None:
    night = a_round(app)
    form = phone_form(phone, night)
    saved, replaced = interleave(
        lambda: phone.post(f"/m/{night['phone']}/hands", data=form, headers=HX if htmx else {}),
        lambda: replace_post(organiser, night),
    )
    assert status(replaced) == 303
    assert "Table 1 has a new link (link 2)" in followed(organiser, replaced)
    assert status(saved) == (409 if htmx else 410)
    assert "This link has been replaced" in page_text(saved)
    assert hands_of(app, night["match"]) == 0
    with app.app_context():
        assert db.session.execute(select(RetiredLink.token)).scalar_one() == night["phone"]


def test_a_new_link_that_reads_before_a_hand_is_made_and_the_hand_stays(
    app: Flask, phone: FlaskClient, organiser: FlaskClient
) -> None:
    night = a_round(app)
    form = phone_form(phone, night)
    replaced, saved = interleave(
        lambda: replace_post(organiser, night),
        lambda: phone.post(f"/m/{night['phone']}/hands", data=form),
    )
    assert status(saved) == 303
    assert hands_of(app, night["match"]) == 1
    assert "Table 1 has a new link (link 2)" in followed(organiser, replaced)
    assert link_number(app, night) == 2
    with app.app_context():
        match = db.session.get_one(Match, night["match"])
        assert match.token != night["phone"]
        assert match.version == 3  # the hand, then the new link: both counted


def test_two_tabs_replacing_one_link_make_one_new_link(app: Flask, organiser: FlaskClient) -> None:
    night = a_round(app)
    other = app.test_client()
    first, second = interleave(
        lambda: replace_post(organiser, night), lambda: replace_post(other, night)
    )
    assert status(first) == status(second) == 303
    assert link_number(app, night) == 2
    assert "already has a new link" in followed(organiser, first)


# -- the organiser's correction against the table's next hand --------------------------------


def correction_form(organiser: FlaskClient, night: dict[str, Any]) -> dict[str, str]:
    url = f"/t/{night['tournament']}/tables/{night['table']}/hands/1/edit"
    return {**form_data(organiser.get(url).get_data(as_text=True), "hand-form"), "bid": "160"}


def correct(organiser: FlaskClient, night: dict[str, Any], form: dict[str, str]) -> Any:
    url = f"/t/{night['tournament']}/tables/{night['table']}/hands/1"
    return organiser.post(url, data=form)


def bids(app: Flask, match_id: int) -> list[int]:
    with app.app_context():
        hands = db.session.execute(
            select(Hand.bid).where(Hand.match_id == match_id).order_by(Hand.seq)
        ).scalars()
        return list(hands)


def test_a_correction_that_reads_before_the_tables_next_hand_is_refused_keeping_its_form(
    app: Flask, phone: FlaskClient, organiser: FlaskClient
) -> None:
    night = a_round(app, hands=1)
    form = phone_form(phone, night)
    fix = correction_form(organiser, night)
    corrected, saved = interleave(
        lambda: correct(organiser, night, fix),
        lambda: phone.post(f"/m/{night['phone']}/hands", data=form),
    )
    assert status(saved) == 303
    assert status(corrected) == 409
    assert "What you typed is kept below" in page_text(corrected)
    assert form_data(corrected.get_data(as_text=True), "hand-form")["bid"] == "160"
    assert bids(app, night["match"]) == [150, 150]


def test_a_hand_that_reads_before_the_organisers_correction_is_refused(
    app: Flask, phone: FlaskClient, organiser: FlaskClient
) -> None:
    night = a_round(app, hands=1)
    form = phone_form(phone, night)
    fix = correction_form(organiser, night)
    saved, corrected = interleave(
        lambda: phone.post(f"/m/{night['phone']}/hands", data=form, headers=HX),
        lambda: correct(organiser, night, fix),
    )
    assert status(corrected) == 303
    assert status(saved) == 409
    assert "Someone else changed this match in the meantime" in page_text(saved)
    assert bids(app, night["match"]) == [160]


# -- a paper slip against the table's phone ---------------------------------------------------


def slip_post(organiser: FlaskClient, night: dict[str, Any], points: int = 300) -> Any:
    url = f"/t/{night['tournament']}/tables/{night['table']}/paper"
    form = form_data(organiser.get(url).get_data(as_text=True))
    for seat in range(3):
        form[f"points_{seat}"] = str(points - 100 * seat)
        form[f"lost_{seat}"] = "0"
    form.pop("remove", None)
    return organiser.post(url, data=form)


def paper_of(app: Flask, night: dict[str, Any]) -> Any:
    with app.app_context():
        return db.session.get_one(TournamentTable, night["table"]).paper


def test_a_slip_that_reads_before_the_tables_hand_is_saved_and_the_hand_stays(
    app: Flask, phone: FlaskClient, organiser: FlaskClient
) -> None:
    night = a_round(app)
    form = phone_form(phone, night)
    slipped, saved = interleave(
        lambda: slip_post(organiser, night),
        lambda: phone.post(f"/m/{night['phone']}/hands", data=form),
    )
    assert status(saved) == 303
    assert status(slipped) == 303
    assert "paper slip saved" in followed(organiser, slipped)
    assert hands_of(app, night["match"]) == 1
    assert sorted(points for points, _ in paper_of(app, night).values()) == [100, 200, 300]


def test_a_hand_that_reads_before_the_slip_is_refused_and_the_slip_stays(
    app: Flask, phone: FlaskClient, organiser: FlaskClient
) -> None:
    night = a_round(app)
    form = phone_form(phone, night)
    saved, slipped = interleave(
        lambda: phone.post(f"/m/{night['phone']}/hands", data=form, headers=HX),
        lambda: slip_post(organiser, night),
    )
    assert status(slipped) == 303
    assert status(saved) == 409
    assert hands_of(app, night["match"]) == 0
    assert paper_of(app, night) is not None


# -- a withdrawal against the draw of the next round ----------------------------------------


def closed_round(app: Flask, players: int = 10) -> dict[str, Any]:
    night = a_round(app, players=players, hands=None)
    with app.app_context():
        tournament = setup.get_tournament(night["tournament"])
        rounds.close_round(tournament, tournament.round_rows[0])
        night["player"] = tournament.entrants[0].id
    return night


def withdraw_post(organiser: FlaskClient, night: dict[str, Any]) -> Any:
    url = f"/t/{night['tournament']}/players/{night['player']}"
    return organiser.post(url, data={"action": "withdraw", "sure": "1"})


def draw_post(client: FlaskClient, night: dict[str, Any]) -> Any:
    return client.post(f"/t/{night['tournament']}/rounds", data={"number": "2"})


def seated_in(app: Flask, night: dict[str, Any], number: int) -> tuple[bool, int | None]:
    """Whether the player sits in round ``number``, and the round they are withdrawn before."""
    with app.app_context():
        tournament = setup.get_tournament(night["tournament"])
        row = next(r for r in tournament.round_rows if r.number == number)
        entrant = db.session.get_one(Entrant, night["player"])
        return any(entrant.id in t.players for t in row.tables), entrant.withdrawn_before


def test_a_withdrawal_that_reads_before_the_draw_counts_from_the_round_after(
    app: Flask, organiser: FlaskClient
) -> None:
    night = closed_round(app)
    other = app.test_client()
    withdrawn, drawn_now = interleave(
        lambda: withdraw_post(organiser, night), lambda: draw_post(other, night)
    )
    assert status(drawn_now) == status(withdrawn) == 303
    # drawn for round 2 (the draw came first), withdrawn from round 3 on
    assert seated_in(app, night, 2) == (True, 3)


def test_a_draw_that_reads_before_a_withdrawal_leaves_the_player_out(
    app: Flask, organiser: FlaskClient
) -> None:
    night = closed_round(app)
    other = app.test_client()
    drawn_now, withdrawn = interleave(
        lambda: draw_post(other, night), lambda: withdraw_post(organiser, night)
    )
    assert status(drawn_now) == status(withdrawn) == 303
    assert seated_in(app, night, 2) == (False, 2)
    with app.app_context():
        row = setup.get_tournament(night["tournament"]).round_rows[1]
        assert sorted(len(t.players) for t in row.tables) == [3, 3, 3]


def test_a_withdrawal_while_the_players_table_saves_a_hand_keeps_both(
    app: Flask, phone: FlaskClient, organiser: FlaskClient
) -> None:
    night = a_round(app)
    with app.app_context():
        night["player"] = db.session.get_one(TournamentTable, night["table"]).players[1]
    form = phone_form(phone, night)
    withdrawn, saved = interleave(
        lambda: withdraw_post(organiser, night),
        lambda: phone.post(f"/m/{night['phone']}/hands", data=form),
    )
    assert status(saved) == status(withdrawn) == 303
    assert hands_of(app, night["match"]) == 1
    with app.app_context():
        assert db.session.get_one(Entrant, night["player"]).withdrawn_before == 2
