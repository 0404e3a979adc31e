"""The table phone: the match page of a tournament table, its confirmations, a closed
round and a replaced link (docs/rules.md section 13.3)."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.extensions import db
from scorer.models import Hand, Match
from scorer.services.tournaments import rounds
from scorer.tournament_models import Confirmation, Tournament, TournamentTable
from tests.builders import enter_hand, form_data, page_text
from tests.tournament_builders import TABLE_HAND, drawn, play_round, tournament_with

HAND = TABLE_HAND


@pytest.fixture
def table(app: Flask) -> dict[str, Any]:
    """Round 1 of a tournament of 9 (three tables of three, 3 deals): table 1's link."""
    with app.app_context():
        tournament = tournament_with(9, deals=3)
        row = drawn(tournament)
        first = row.tables[0]
        return {
            "token": first.match.token,
            "tournament": tournament.id,
            "table": first.id,
            "players": list(first.players),
        }


def _table(table: dict[str, Any]) -> TournamentTable:
    return db.session.get_one(TournamentTable, table["table"])


def test_the_table_phone_says_round_table_and_deal(client: FlaskClient, table: dict) -> None:
    text = page_text(client.get(f"/m/{table['token']}"))
    assert "Herbstturnier" in text
    assert "Runde 1 · Tisch 1" in text
    assert "Spiel 1 von 3" in text
    assert "Nächste Partie" not in text
    enter_hand(client, table["token"], **HAND)
    assert "Spiel 2 von 3" in page_text(client.get(f"/m/{table['token']}"))


def test_in_english_too(client: FlaskClient, table: dict) -> None:
    text = page_text(client.get(f"/m/{table['token']}?lang=en"))
    assert "Round 1 · Table 1" in text
    assert "Deal 1 of 3" in text


def test_the_last_deal_shows_the_result_and_a_confirm_tap_per_player(
    app: Flask, client: FlaskClient, table: dict
) -> None:
    for _ in range(3):
        enter_hand(client, table["token"], **HAND)
    page = client.get(f"/m/{table['token']}").get_data(as_text=True)
    text = page_text(page)
    assert "Ergebnis von Tisch 1" in text
    assert "alle 3 Spiele gespielt" in text
    assert 'id="hand-form"' not in page
    for seat in range(3):
        assert f'id="confirm-{seat}"' in page
    first = table["players"][0]
    response = client.post(f"/m/{table['token']}/confirm", data={"entrant": str(first)})
    assert response.status_code == 303
    # the same tap again (a double tap) changes nothing
    client.post(f"/m/{table['token']}/confirm", data={"entrant": str(first)})
    with app.app_context():
        assert db.session.query(Confirmation).count() == 1
    for entrant in table["players"][1:]:
        client.post(f"/m/{table['token']}/confirm", data={"entrant": str(entrant)})
    text = page_text(client.get(f"/m/{table['token']}"))
    assert "Alle haben bestätigt" in text


@pytest.mark.parametrize("entrant", ["", "abc", "999999", "1" * 400, "\x00", "-1"])
def test_a_tap_for_someone_not_at_the_table_is_refused(
    client: FlaskClient, table: dict, entrant: str
) -> None:
    for _ in range(3):
        enter_hand(client, table["token"], **HAND)
    response = client.post(f"/m/{table['token']}/confirm", data={"entrant": entrant})
    assert response.status_code == 400


def test_confirming_before_the_last_deal_is_refused_with_why(
    client: FlaskClient, table: dict
) -> None:
    response = client.post(
        f"/m/{table['token']}/confirm", data={"entrant": str(table["players"][0])}
    )
    assert response.status_code == 409
    assert "sobald der Tisch seine Spiele gespielt hat" in page_text(response)


def test_a_confirm_tap_on_a_match_outside_a_tournament_is_404(client: FlaskClient) -> None:
    from tests.builders import start_match

    token = start_match(client, ["A", "B", "C"])
    assert client.post(f"/m/{token}/confirm", data={"entrant": "1"}).status_code == 404


def test_after_the_round_is_closed_the_table_writes_nothing_and_keeps_what_it_had(
    app: Flask, client: FlaskClient, table: dict
) -> None:
    for _ in range(3):
        enter_hand(client, table["token"], **HAND)
    edit = client.get(f"/m/{table['token']}/hands/1/edit").get_data(as_text=True)
    correction = form_data(edit, "hand-form")
    with app.app_context():
        tournament = db.session.get_one(Tournament, table["tournament"])
        row = tournament.round_rows[0]
        play_round(row)  # the other tables
        rounds.close_round(tournament, row)
        hands_before = db.session.query(Hand).count()
    correction["bid"] = "160"
    response = client.post(f"/m/{table['token']}/hands/1", data=correction)
    assert response.status_code == 409
    assert "Runde des Turniers ist abgeschlossen" in page_text(response)
    response = client.post(
        f"/m/{table['token']}/hands/1/delete", data={"version": correction["version"]}
    )
    assert response.status_code == 409
    with app.app_context():
        assert db.session.query(Hand).count() == hands_before
        match = db.session.get_one(TournamentTable, table["table"]).match
        assert [h.bid for h in match.hands] == [150, 150, 150]
        assert all(h.deleted_at is None for h in match.hands)


def test_a_closed_round_with_a_hand_unplayed_shows_no_form(
    app: Flask, client: FlaskClient, table: dict
) -> None:
    with app.app_context():
        tournament = db.session.get_one(Tournament, table["tournament"])
        row = tournament.round_rows[0]
        # every table's result came on a paper slip (its phone failed before a hand)
        for each in row.tables:
            each.paper = {str(e): [0, 0] for e in each.players}
        db.session.commit()
        rounds.close_round(tournament, row)
    page = client.get(f"/m/{table['token']}").get_data(as_text=True)
    assert 'id="hand-form"' not in page
    assert 'id="locked-note"' in page
    data = {"declarer": "0", "bid": "150", "trump": "E", "outcome": "played"}
    assert client.post(f"/m/{table['token']}/hands", data=data).status_code == 409


def test_a_replaced_link_says_so_and_writes_nothing(
    app: Flask, client: FlaskClient, table: dict
) -> None:
    enter_hand(client, table["token"], **HAND)
    form = form_data(client.get(f"/m/{table['token']}").get_data(as_text=True), "hand-form")
    with app.app_context():
        tournament = db.session.get_one(Tournament, table["tournament"])
        new = rounds.replace_link(tournament, _table(table))
    old = client.get(f"/m/{table['token']}")
    assert old.status_code == 410
    assert "Dieser Link wurde ersetzt" in page_text(old)
    # the old phone's queued hand, sent by htmx: the page shows why, nothing is saved
    sent = client.post(f"/m/{table['token']}/hands", data=form, headers={"HX-Request": "true"})
    assert sent.status_code == 409
    # in place of the page's whole content: the notice alone, no form, no buttons
    assert sent.headers["HX-Retarget"] == "#main"
    assert sent.headers["HX-Reswap"].startswith("innerHTML")
    text = page_text(sent)
    assert "Dieser Link wurde ersetzt" in text
    assert "Spiel eintragen" not in text and "Rückgängig" not in text
    assert 'id="hand-form"' not in sent.get_data(as_text=True)
    # without JavaScript: a page with the notice alone
    plain = client.post(f"/m/{table['token']}/hands", data=form)
    assert plain.status_code == 410
    assert "Dieser Link wurde ersetzt" in page_text(plain)
    assert 'id="hand-form"' not in plain.get_data(as_text=True)
    with app.app_context():
        assert db.session.query(Hand).count() == 1
    # the new phone goes on at the same deal
    assert "Spiel 2 von 3" in page_text(client.get(f"/m/{new}"))
    enter_hand(client, new, **HAND)
    with app.app_context():
        assert db.session.query(Match).filter_by(token=new).one().version > 1
        assert db.session.query(Hand).count() == 2


def test_an_unknown_link_is_still_a_plain_404(client: FlaskClient) -> None:
    assert client.get("/m/nothing-here-at-all").status_code == 404


def test_a_tournament_table_has_no_next_match(app: Flask, client: FlaskClient, table: dict) -> None:
    for _ in range(3):
        enter_hand(client, table["token"], **HAND)
    response = client.post(f"/m/{table['token']}/next", follow_redirects=True)
    assert "Turniertisch spielt eine Partie je Runde" in page_text(response)
    with app.app_context():
        assert db.session.query(Match).count() == 3  # the round's three tables, no more
