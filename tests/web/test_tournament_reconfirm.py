"""A result changed after its players confirmed it: the board, the change list and the
table's phone mark the table until its players confirm again (issue 30).

Round 1 of 9 players at three tables of three deals, played out; table 1's players
confirm, then the organiser corrects a hand of it.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.extensions import db
from scorer.services.tournaments import backup, rounds, setup, tables
from scorer.tournament_models import Tournament, TournamentTable
from tests.builders import fill_hand, form_data, page_text
from tests.tournament_builders import drawn, play_round, tournament_with

CHANGED_DE = "nach der Unterschrift geändert: neu bestätigen"


@pytest.fixture
def signed(app: Flask) -> dict[str, object]:
    """Round 1 played out, table 1 confirmed by all three of its players."""
    with app.app_context():
        tournament = tournament_with(9)
        row = drawn(tournament, 1)
        play_round(row, None)
        table = row.tables[0]
        for player in table.players:
            tables.confirm(table, player)
        return {
            "token": tournament.token,
            "id": table.id,
            "match": table.match.token,
            "players": list(table.players),
        }


def correct(client: FlaskClient, signed: dict[str, object], bid: int = 160) -> None:
    base = f"/t/{signed['token']}/tables/{signed['id']}/hands/1"
    data = form_data(client.get(f"{base}/edit").get_data(as_text=True), "hand-form")
    assert client.post(base, data=fill_hand(data, bid=bid)).status_code == 303


def tap(client: FlaskClient, signed: dict[str, object], player: object) -> None:
    page = client.get(f"/m/{signed['match']}").get_data(as_text=True)
    data = form_data(page, "hand-form") if 'id="hand-form"' in page else {}
    response = client.post(
        f"/m/{signed['match']}/confirm",
        data={"csrf_token": data.get("csrf_token", ""), "entrant": str(player)},
    )
    assert response.status_code == 303


def board(client: FlaskClient, signed: dict[str, object]) -> str:
    return page_text(client.get(f"/t/{signed['token']}/board"))


def test_a_signed_table_reads_signed_until_a_correction(
    client: FlaskClient, signed: dict[str, object]
) -> None:
    before = board(client, signed)
    assert "unterschrieben" in before and CHANGED_DE not in before
    correct(client, signed)
    text = board(client, signed)
    assert CHANGED_DE in text
    assert "Tisch 1 nach der Unterschrift geändert" in text  # the summary line
    # the players whose confirmation went stale are named as such
    assert text.count("(neu zu bestätigen)") == 3
    sheet = page_text(client.get(f"/t/{signed['token']}/tables/{signed['id']}"))
    assert CHANGED_DE in sheet


def test_the_change_list_marks_the_table(client: FlaskClient, signed: dict[str, object]) -> None:
    correct(client, signed)
    text = page_text(client.get(f"/t/{signed['token']}/changes"))
    assert "die Spieler bestätigen auf dem Handy des Tisches neu" in text
    assert "Runde 1 · Tisch 1 · Spiel 1 · korrigiert" in text
    assert CHANGED_DE in text
    english = page_text(client.get(f"/t/{signed['token']}/changes?lang=en"))
    assert "changed after signing: confirm again" in english


def test_the_table_phone_asks_to_confirm_again_and_the_mark_goes(
    app: Flask, client: FlaskClient, signed: dict[str, object]
) -> None:
    phone = page_text(client.get(f"/m/{signed['match']}"))
    assert "Alle haben bestätigt" in phone
    correct(client, signed)
    phone = page_text(client.get(f"/m/{signed['match']}"))
    assert "nach der Bestätigung geändert" in phone
    assert phone.count("geändert: neu bestätigen") == 3
    assert "Alle haben bestätigt" not in phone
    players = list(signed["players"])  # type: ignore[call-overload]
    for player in players[:2]:
        tap(client, signed, player)
    # two of three again: still marked
    assert CHANGED_DE in board(client, signed)
    assert page_text(client.get(f"/m/{signed['match']}")).count("geändert: neu bestätigen") == 1
    tap(client, signed, players[2])
    text = board(client, signed)
    assert CHANGED_DE not in text and "unterschrieben" in text
    assert "Alle haben bestätigt" in page_text(client.get(f"/m/{signed['match']}"))
    changes = page_text(client.get(f"/t/{signed['token']}/changes"))
    assert CHANGED_DE not in changes and "korrigiert" in changes


def test_a_second_tap_on_a_standing_confirmation_changes_nothing(
    app: Flask, signed: dict[str, object]
) -> None:
    with app.app_context():
        table = db.session.get_one(TournamentTable, signed["id"])
        version = table.match.version
        tables.confirm(table, table.players[0])
        assert table.match.version == version


def test_the_mark_survives_a_backup(
    app: Flask, client: FlaskClient, signed: dict[str, object]
) -> None:
    """Nothing new is stored: the backup's hand events and confirmations keep their times."""
    with app.app_context():
        # the players confirmed a minute before the organiser's correction (a backup
        # keeps times to the second)
        table = db.session.get_one(TournamentTable, signed["id"])
        for confirmation in table.confirmations:
            confirmation.created_at -= timedelta(minutes=1)
        db.session.commit()
    correct(client, signed)
    with app.app_context():
        data = backup.export_tournament(setup.get_tournament(str(signed["token"])))
        restored = backup.restore(json.dumps(data)).tournament
        assert isinstance(restored, Tournament)
        first = restored.round_rows[0].tables[0]
        state = tables.state_of(first)
        assert state.changed and not state.signed
        assert state.stale == frozenset(first.players)
        assert not tables.state_of(restored.round_rows[0].tables[1]).changed


def test_after_the_close_the_mark_says_changed_without_asking(
    app: Flask, client: FlaskClient, signed: dict[str, object]
) -> None:
    with app.app_context():
        tournament = setup.get_tournament(str(signed["token"]))
        rounds.close_round(tournament, tournament.round_rows[0])
    correct(client, signed)
    text = board(client, signed)
    assert "nach der Unterschrift geändert" in text and CHANGED_DE not in text
    phone = page_text(client.get(f"/m/{signed['match']}"))
    assert "die Runde ist abgeschlossen" in phone
    assert "neu bestätigen" not in phone
