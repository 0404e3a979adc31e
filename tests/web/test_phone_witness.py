"""The table phone and the laptop that serves it now, over HTTP: what the laptop holds, the
deals a phone keeps sent again, reports of a table the laptop lacks, the organiser's list,
and every refusal of what a phone sends.

A "new laptop" is a second app on a database of its own with another secret key (its
form tokens refuse the first laptop's), restored from the first one's backup file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.models import Hand, Match
from scorer.services.backup_format import dumps
from scorer.services.tournaments import rounds
from scorer.services.tournaments.backup import export_tournament, restore
from scorer.tournament_models import PhoneReport, Tournament
from tests.builders import form_data, page_text
from tests.laptops import second_laptop
from tests.phones import FlaskTransport, Kept, TablePhone
from tests.tournament_builders import TABLE_HAND, drawn, tournament_with

HAND = TABLE_HAND
OTHER = {**TABLE_HAND, "declarer": 1, "melds": [0, 100, 0], "tricks": [60, 130, 60]}


@pytest.fixture
def hall(app: Flask) -> dict[str, Any]:
    """Round 1 of nine players (three tables, 3 deals): the tournament and its tables' links."""
    with app.app_context():
        tournament = tournament_with(9, deals=3, rounds_=2)
        row = drawn(tournament)
        return {
            "token": tournament.token,
            "view": tournament.view_token,
            "tables": [t.match.token for t in row.tables],
        }


def backup_of(app: Flask, token: str) -> str:
    with app.app_context():
        tournament = db.session.execute(
            select(Tournament).where(Tournament.token == token)
        ).scalar_one()
        text = dumps(export_tournament(tournament))
        db.session.remove()
        return text


@pytest.fixture
def spare(tmp_path: Path) -> Iterator[Flask]:
    """A second laptop: its own database and secret key, CSRF on."""
    with second_laptop(tmp_path, WTF_CSRF_ENABLED=True) as app:
        yield app


def posted_form(html: str, prefix: str) -> tuple[str, dict[str, str]]:
    """The address and fields of the first form whose id starts with ``prefix``."""
    found = re.search(rf'action="([^"]+)"[^>]*id="({prefix}[^"]+)"', html)
    assert found, html
    return found.group(1).replace("&amp;", "&"), form_data(html, found.group(2))


def restored(spare: Flask, text: str) -> None:
    with spare.app_context():
        assert restore(text).tournament is not None
        db.session.remove()


def keys_at(app: Flask, token: str) -> list[str | None]:
    with app.app_context():
        match_id = db.session.execute(select(Match.id).where(Match.token == token)).scalar_one()
        keys = list(
            db.session.execute(
                select(Hand.idempotency_key).where(Hand.match_id == match_id).order_by(Hand.seq)
            ).scalars()
        )
        db.session.remove()
        return keys


# -- the page and what the laptop holds --------------------------------------------------------


def test_a_table_page_tells_the_phone_where_to_ask_and_the_next_place(
    client: FlaskClient, hall: dict[str, Any]
) -> None:
    phone = TablePhone(FlaskTransport(client), hall["tables"][0])
    assert phone.load() == 200
    assert phone.next_seq == 1 and phone.next_deal == 1
    assert phone.page["round"] == 1 and phone.page["table"] == 1
    assert phone.page["view"] == hall["view"]
    assert "Turnierleitung" in phone.page["words"]["missing"]
    assert phone.save(**HAND) == 303
    phone.load()
    assert phone.next_seq == 2 and phone.next_deal == 2
    status, body = phone.held()
    assert status == 200 and body["table"] == "here" and not body["closed"]
    assert [key for _seq, key, _struck in body["hands"]] == [phone.kept[0].key]
    # asked again with the answer's tag: nothing changed, nothing said
    again = client.get(f"/m/{phone.token}/witness?tag={body['tag']}")
    assert again.status_code == 204 and again.get_data() == b""
    assert "no-store" in again.headers["Cache-Control"]


def test_a_match_outside_a_tournament_has_no_witness(client: FlaskClient) -> None:
    from tests.builders import start_match

    token = start_match(client, ["A", "B", "C"])
    assert 'id="witness"' not in client.get(f"/m/{token}").get_data(as_text=True)
    response = client.get(f"/m/{token}/witness")
    assert response.status_code == 404 and response.get_json() == {"table": "none"}


def test_a_link_the_laptop_does_not_know_says_missing_or_replaced(
    app: Flask, client: FlaskClient, hall: dict[str, Any]
) -> None:
    response = client.get(f"/m/{'x' * 22}/witness")
    assert response.status_code == 404
    body = response.get_json()
    assert body["table"] == "missing" and body["report"] is None and body["csrf"]
    with app.app_context():
        tournament = db.session.execute(
            select(Tournament).where(Tournament.token == hall["token"])
        ).scalar_one()
        rounds.replace_link(tournament, tournament.round_rows[0].tables[0])
    body = client.get(f"/m/{hall['tables'][0]}/witness").get_json()
    assert body["table"] == "replaced"


# -- a new laptop ------------------------------------------------------------------------------


def test_a_new_laptop_gets_the_deals_it_lacks_from_the_phone_each_once(
    app: Flask, client: FlaskClient, hall: dict[str, Any], spare: Flask
) -> None:
    phone = TablePhone(FlaskTransport(client), hall["tables"][0])
    phone.load()
    phone.save(**HAND)
    text = backup_of(app, hall["token"])  # the organiser's download after deal 1
    phone.load()
    phone.save(**OTHER)
    phone.load()
    assert phone.version is not None
    # the hall's laptop dies; the spare restores the file; the phone meets it
    restored(spare, text)
    phone.http = FlaskTransport(spare.test_client())
    assert phone.load() == 200
    assert phone.page["laptop"] != TablePhone(FlaskTransport(client), phone.token).page.get(
        "laptop", "-"
    )
    answer = phone.sync()
    assert answer["status"] == 200 and answer["stored"] == 1
    assert [o["answer"] for o in answer["outcomes"]] == ["stored"]
    assert keys_at(spare, phone.token) == [d.key for d in phone.kept]
    # again: nothing stored twice, and the laptop answers 204 to the tag it gave
    assert phone.sync()["stored"] == 0
    assert keys_at(spare, phone.token) == [d.key for d in phone.kept]
    # the table plays on on the spare
    phone.load()
    assert phone.next_seq == 3
    assert phone.save(**HAND) == 303
    assert len(keys_at(spare, phone.token)) == 3


def test_the_old_laptops_form_token_is_refused_and_the_witness_gets_a_fresh_one(
    app: Flask, client: FlaskClient, hall: dict[str, Any], spare: Flask
) -> None:
    phone = TablePhone(FlaskTransport(client), hall["tables"][0])
    phone.load()
    text = backup_of(app, hall["token"])
    restored(spare, text)
    old_form = dict(phone.form)
    phone.http = FlaskTransport(spare.test_client())
    # the queued entry, sent as it was typed on the old laptop's page: its token is refused
    status, _ = phone.http(
        "POST",
        f"/m/{phone.token}/hands",
        list(
            {
                **old_form,
                "declarer": "0",
                "bid": "150",
                "trump": "E",
                "parties-0-melds": "100",
                "parties-0-tricks": "130",
                "parties-1-tricks": "60",
                "parties-2-tricks": "60",
            }.items()
        ),
    )
    assert status == 400
    # the phone kept it (sent, its place known): the witness takes it in with a fresh token
    phone.kept.append(
        Kept(
            key=old_form["idempotency_key"],
            seq=1,
            deal=1,
            fields=[
                ("declarer", "0"),
                ("bid", "150"),
                ("trump", "E"),
                ("outcome", "played"),
                ("parties-0-melds", "100"),
                ("parties-0-tricks", "130"),
                ("parties-1-tricks", "60"),
                ("parties-2-tricks", "60"),
            ],
        )
    )
    answer = phone.sync()
    assert answer["stored"] == 1
    assert keys_at(spare, phone.token) == [old_form["idempotency_key"]]


def test_deals_the_laptop_cannot_take_are_reported_and_listed_for_the_organiser(
    app: Flask, client: FlaskClient, hall: dict[str, Any], spare: Flask
) -> None:
    phone = TablePhone(FlaskTransport(client), hall["tables"][0])
    phone.load()
    text = backup_of(app, hall["token"])
    phone.save(**HAND)
    phone.load()
    phone.save(**OTHER)
    restored(spare, text)
    organiser = spare.test_client()
    # on the spare, another phone of the table entered deal 1 before this one came back
    other = TablePhone(FlaskTransport(organiser), phone.token)
    other.load()
    assert other.save(**OTHER) == 303
    phone.http = FlaskTransport(spare.test_client())
    answer = phone.sync()
    assert [o["answer"] for o in answer["outcomes"]] == ["taken", "before"]
    assert answer["reported"] is True
    assert "anderes Spiel" in answer["outcomes"][0]["words"]
    home = organiser.get(f"/t/{hall['token']}")
    assert "Die Handys haben Spiele, die diesem Laptop fehlen" in page_text(home)
    listing = page_text(organiser.get(f"/t/{hall['token']}/phones"))
    assert "Runde 1 · Tisch 1" in listing
    assert "Spiel 1" in listing and "Spiel 2" in listing
    assert "150" in listing and "Eichel" in listing
    # nothing of it was written into the table
    assert len(keys_at(spare, phone.token)) == 1


def test_a_phone_whose_table_is_missing_reports_and_the_organiser_takes_it_in(
    app: Flask, tmp_path: Path, spare: Flask
) -> None:
    # the organiser's file is from before round 1 was drawn; the spare draws it again
    with app.app_context():
        tournament = tournament_with(9, deals=3, rounds_=2)
        token = tournament.token
        db.session.remove()
    text = backup_of(app, token)
    with app.app_context():
        tournament = db.session.execute(
            select(Tournament).where(Tournament.token == token)
        ).scalar_one()
        link = drawn(tournament).tables[1].match.token
        db.session.remove()
    phone = TablePhone(FlaskTransport(app.test_client()), link)
    phone.load()
    phone.save(**HAND)
    phone.load()
    phone.save(**OTHER)
    restored(spare, text)
    organiser = spare.test_client()
    page = organiser.get(f"/t/{token}").get_data(as_text=True)
    draw = re.search(r'action="([^"]+)" class="t-draw"', page).group(1)  # type: ignore[union-attr]
    csrf = page.split('name="csrf_token" value="')[1].split('"')[0]
    assert organiser.post(draw, data={"csrf_token": csrf, "number": "1"}).status_code == 303
    phone.http = FlaskTransport(spare.test_client())
    answer = phone.sync()
    assert answer["status"] == 200 and answer["table"] == "missing"
    assert answer["report"] == "open"
    listing = organiser.get(f"/t/{token}/phones").get_data(as_text=True)
    assert "Runde 1 · Tisch 2" in page_text(listing)
    # the same seed drew the same seats: the report goes to table 2 with a tap
    action, form = posted_form(listing, "take-")
    done = organiser.post(action, data=form)
    assert done.status_code == 303
    after = organiser.get(f"/t/{token}/phones")
    assert "2 Spiele bei Tisch 2 übernommen" in page_text(after)
    assert "Kein Handy hat etwas" in page_text(after)
    with spare.app_context():
        count = db.session.execute(
            select(func.count())
            .select_from(Hand)
            .where(Hand.idempotency_key.in_([d.key for d in phone.kept]))
        ).scalar_one()
        assert count == 2
        db.session.remove()
    # the phone learns its deals were taken in
    status, body = phone.held()
    assert status == 404 and body["report"] == "taken"


def test_the_organiser_sets_a_report_aside(client: FlaskClient, hall: dict[str, Any]) -> None:
    phone = TablePhone(FlaskTransport(client), "y" * 22)
    phone.page = {"view": hall["view"], "round": 3, "table": 7, "players": ["A", "B", "C"]}
    phone.kept.append(Kept("k1", 1, 1, [("declarer", "0"), ("bid", "150")], told=True))
    answer = phone.sync()
    assert answer["report"] == "open"
    listing = client.get(f"/t/{hall['token']}/phones").get_data(as_text=True)
    assert "Runde 3 · Tisch 7" in page_text(listing)
    assert "hat diese Spieler auf diesen Plätzen" in page_text(listing)  # nowhere to go
    action, form = posted_form(listing, "aside-")
    assert client.post(action, data=form).status_code == 303
    assert "Kein Handy hat etwas" in page_text(client.get(f"/t/{hall['token']}/phones"))
    assert phone.held()[1]["report"] == "set_aside"


# -- what a phone sends is checked ---------------------------------------------------------------


def deal_form(token: str, **over: str) -> dict[str, str]:
    form = {
        "table": token,
        "key0": "abc",
        "seq0": "1",
        "deal0": "1",
        "told0": "1",
        "d0.declarer": "0",
        "d0.bid": "150",
        "d0.trump": "E",
        "d0.outcome": "played",
        "d0.parties-0-melds": "100",
        "d0.parties-0-tricks": "130",
        "d0.parties-1-tricks": "60",
        "d0.parties-2-tricks": "60",
    }
    form.update(over)
    return form


@pytest.mark.parametrize(
    ("over", "words"),
    [
        ({"table": "z" * 22}, "für einen anderen Tisch"),
        ({"key0": "bad key!"}, "keine Spiele eines Tisches"),
        ({"seq0": "-1"}, "keine Spiele eines Tisches"),
        ({"seq0": "9" * 400}, "keine Spiele eines Tisches"),
        ({"d0.bid": "15\x000"}, "keine Spiele eines Tisches"),
        ({"key1": "abc", "seq1": "2"}, "keine Spiele eines Tisches"),
        ({"key0": ""}, "keine Spiele eines Tisches"),
        ({"key99": "x", "seq99": "1"}, "keine Spiele eines Tisches"),
    ],
)
def test_a_forged_or_broken_resend_is_refused_and_nothing_is_stored(
    app: Flask, client: FlaskClient, hall: dict[str, Any], over: dict[str, str], words: str
) -> None:
    token = hall["tables"][0]
    response = client.post(f"/m/{token}/witness", data=deal_form(token, **over))
    assert response.status_code == 400
    assert words in response.get_json()["error"]
    assert keys_at(app, token) == []


def test_a_huge_resend_is_refused(app: Flask, client: FlaskClient, hall: dict[str, Any]) -> None:
    token = hall["tables"][0]
    form = deal_form(token, **{"d0.meld_names": "x" * 150_000})
    response = client.post(f"/m/{token}/witness", data=form)
    assert response.status_code == 413
    assert "Zu viel auf einmal" in response.get_json()["error"]
    assert keys_at(app, token) == []


def test_a_deal_the_form_refuses_and_a_key_reused_are_refused_and_reported(
    app: Flask, client: FlaskClient, hall: dict[str, Any]
) -> None:
    token = hall["tables"][0]
    phone = TablePhone(FlaskTransport(client), token)
    phone.load()
    phone.save(**HAND)
    key = phone.kept[0].key
    bad = deal_form(token, key0=key, **{"d0.bid": "350"})  # the key, with another deal
    answer = client.post(f"/m/{token}/witness", data=bad).get_json()
    assert answer["outcomes"][0]["answer"] == "reused"
    junk = deal_form(token, key0="fresh", seq0="2", **{"d0.parties-0-tricks": "999"})
    answer = client.post(f"/m/{token}/witness", data=junk).get_json()
    assert answer["outcomes"][0]["answer"] == "refused"
    assert keys_at(app, token) == [key]
    with app.app_context():
        assert db.session.execute(select(func.count()).select_from(PhoneReport)).scalar_one() == 1
        db.session.remove()


def test_a_report_is_refused_for_a_table_that_is_here_or_an_unknown_tournament(
    client: FlaskClient, hall: dict[str, Any]
) -> None:
    here = hall["tables"][0]
    form = {**deal_form(here), "view": hall["view"], "round": "1", "player": "A"}
    response = client.post(f"/m/{here}/witness/report", data=form)
    assert response.status_code == 409 and response.get_json()["table"] == "here"
    stranger = "s" * 22
    form = {**deal_form(stranger), "view": "v" * 22, "round": "1", "player": "A"}
    response = client.post(f"/m/{stranger}/witness/report", data=form)
    assert response.status_code == 404 and response.get_json()["tournament"] == "missing"
    form = {**deal_form(stranger), "view": hall["view"], "round": "0", "player": "A"}
    response = client.post(f"/m/{stranger}/witness/report", data=form)
    assert response.status_code == 400
    form = {**deal_form(stranger), "view": hall["view"], "round": "1", "player": "A" * 41}
    assert client.post(f"/m/{stranger}/witness/report", data=form).status_code == 400


def test_what_a_phone_sends_needs_the_laptops_form_token(csrf_app: Flask, tmp_path: Path) -> None:
    with csrf_app.app_context():
        tournament = tournament_with(9, deals=3)
        token = drawn(tournament).tables[0].match.token
        db.session.remove()
    client = csrf_app.test_client()
    response = client.post(f"/m/{token}/witness", data=deal_form(token))
    assert response.status_code == 400
    csrf = client.get(f"/m/{token}/witness").get_json()["csrf"]
    response = client.post(
        f"/m/{token}/witness", data=deal_form(token), headers={"X-CSRFToken": csrf}
    )
    assert response.status_code == 200
    assert response.get_json()["outcomes"][0]["answer"] == "stored"
