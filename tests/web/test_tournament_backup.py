"""The tournament's backup pages and the ranking as CSV and Excel, through the test client."""

from __future__ import annotations

import csv
import io
import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from openpyxl import load_workbook
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.services.tournaments import board, entrants, rounds
from scorer.tournament_models import Entrant, Tournament
from tests.builders import csrf_token_from, page_text
from tests.tournament_builders import drawn, play_round, tournament_with


def evening(app: Flask, *, close: bool = True, names: list[str] | None = None) -> Tournament:
    """Nine players, round 1 played (table 3 from paper), closed; the tournament's rows."""
    with app.test_request_context():
        tournament = tournament_with(names or 9, rounds_=1)
        row = drawn(tournament, 1)
        third = row.tables[2]
        play_round(row)
        board.set_paper(tournament, third, {p: (150, 1) for p in third.players})
        if close:
            rounds.close_round(tournament, row)
        db.session.expunge_all()
        return tournament


def tokens(app: Flask) -> tuple[str, str]:
    with app.app_context():
        t = db.session.execute(select(Tournament)).scalars().first()
        assert t is not None
        return t.token, t.view_token


def tournament_count(app: Flask) -> int:
    with app.app_context():
        return int(db.session.execute(select(func.count()).select_from(Tournament)).scalar_one())


def upload(client: FlaskClient, data: bytes, lang: str = "en") -> Any:
    return client.post(
        f"/t/restore?lang={lang}",
        data={"file": (io.BytesIO(data), "turnier.json")},
        content_type="multipart/form-data",
    )


# -- backup and restore ----------------------------------------------------------------


def test_download_and_restore_as_a_copy_shows_the_organiser_link_once(
    app: Flask, client: FlaskClient
) -> None:
    evening(app)
    token, _view = tokens(app)
    home = client.get(f"/t/{token}?lang=en")
    assert f"/t/{token}/backup.json" in home.get_data(as_text=True)
    response = client.get(f"/t/{token}/backup.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert 'filename="tournament-herbstturnier' in response.headers["Content-Disposition"]
    data = response.get_data()
    assert json.loads(data)["format"] == "scorer-tournament"
    restored = upload(client, data)
    assert restored.status_code == 303
    target = restored.headers["Location"]
    assert target.startswith("/t/") and token not in target
    page = client.get(target + "?lang=en")
    text = page_text(page)
    assert "restored as a copy with new links" in text
    assert "Your organiser link" in text
    assert "Your organiser link" not in page_text(client.get(target + "?lang=en"))
    assert tournament_count(app) == 2


def test_restore_on_an_empty_installation_keeps_the_links(
    app: Flask, client: FlaskClient, tmp_path: Any
) -> None:
    evening(app)
    token, view = tokens(app)
    data = client.get(f"/t/{token}/backup.json").get_data()
    with app.app_context():
        db.session.remove()
        db.drop_all()
        db.create_all()
    response = upload(client, data, lang="en")
    assert response.headers["Location"] == f"/t/{token}"
    text = page_text(client.get(f"/t/{token}?lang=en"))
    assert "Restored with its links" in text and "Your organiser link" in text
    assert client.get(f"/p/{view}").status_code == 200


def test_the_restore_page_is_linked_and_renders(client: FlaskClient) -> None:
    assert "/t/restore" in client.get("/?lang=en").get_data(as_text=True)
    assert "/t/restore" in client.get("/t/new?lang=en").get_data(as_text=True)
    page = client.get("/t/restore?lang=en")
    assert page.status_code == 200
    assert "printed table cards" in page_text(page)
    assert "Sicherung" in page_text(client.get("/t/restore?lang=de"))


def test_csrf_is_required(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    refused = client.post(
        "/t/restore",
        data={"file": (io.BytesIO(b"{}"), "b.json")},
        content_type="multipart/form-data",
    )
    assert refused.status_code == 400
    token = csrf_token_from(client.get("/t/restore").get_data(as_text=True))
    response = client.post(
        "/t/restore?lang=en",
        data={"csrf_token": token, "file": (io.BytesIO(b"{}"), "b.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert "not a scorer backup" in page_text(response)


def good_file(app: Flask, client: FlaskClient) -> dict[str, Any]:
    evening(app, close=False)
    token, _view = tokens(app)
    data: dict[str, Any] = json.loads(client.get(f"/t/{token}/backup.json").get_data())
    return data


def refusals(app: Flask, client: FlaskClient, change: Any) -> dict[str, str]:
    """The restore's message, by language, for a good file ``change`` spoiled (with its
    422); nothing is restored."""
    data = good_file(app, client)
    change(data)
    raw = json.dumps(data).encode()
    before = tournament_count(app)
    said = {}
    for lang in ("en", "de"):
        response = upload(client, raw, lang)
        assert response.status_code == 422
        found = re.search(r'id="restore-error">([^<]*)<', response.get_data(as_text=True))
        assert found is not None
        said[lang] = unescape(found[1])
    assert tournament_count(app) == before
    return said


@pytest.mark.parametrize(
    ("change", "english", "german"),
    [
        (lambda d: d["tournament"].update(name="An\x00na"), "control characters", "Steuerzeichen"),
        (
            lambda d: d["tournament"]["rounds"][0]["tables"][0].update(players=[1, 2, 99]),
            "start number 99",
            "99",
        ),
        (
            lambda d: d["tournament"]["rounds"].append(
                dict(d["tournament"]["rounds"][0], number=2)
            ),
            "tournament: rounds is missing or invalid",
            "Turnier: Runden fehlt oder ist ungültig",
        ),
        (
            lambda d: d.update(format="scorer-tabelle"),
            "not a scorer backup",
            "keine scorer-Sicherung",
        ),
    ],
)
def test_a_hostile_file_is_refused_in_both_languages(
    app: Flask, client: FlaskClient, change: Any, english: str, german: str
) -> None:
    said = refusals(app, client, change)
    assert english in said["en"] and said["en"].startswith("Nothing was restored")
    assert german in said["de"] and said["de"].startswith("Nichts wurde wiederhergestellt")


@pytest.mark.parametrize(
    ("change", "english", "german"),
    [
        (
            lambda d: d["tournament"].pop("entry_fee_cents"),
            "tournament: entry fee is missing or invalid",
            "Turnier: Startgeld fehlt oder ist ungültig",
        ),
        (
            lambda d: d["tournament"].update(entry_fee_cents="5 €"),
            "tournament: entry fee is missing or invalid",
            "Turnier: Startgeld fehlt oder ist ungültig",
        ),
        (
            lambda d: d["tournament"]["entrants"][8].update(name="Eva\x07Maier"),
            "tournament, player 9, name: control characters",
            "Turnier, Spieler 9, Name: Steuerzeichen",
        ),
        (
            lambda d: d["tournament"].update(place="Rößle\x1b"),
            "tournament, venue: control characters",
            "Turnier, Ort: Steuerzeichen",
        ),
    ],
)
def test_a_refused_restore_names_the_place_as_the_organiser_knows_it(
    app: Flask, client: FlaskClient, change: Any, english: str, german: str
) -> None:
    """Issue 30: "'entry_fee_cents'" and "tournament.entrants.10.name" are what the
    organiser should never read; the entry fee and the player's number in the list are."""
    said = refusals(app, client, change)
    assert english in said["en"] and german in said["de"]
    for message in said.values():
        for internal in ("entry_fee_cents", "entrants", "10", ".name", "'"):
            assert internal not in message


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 10_000 + b"]" * 10_000,
        b'{"format": "scorer-tournament", "version": 1, "tournament": {"rounds_planned": '
        + b"1" * 309
        + b"}}",
        b'{"format": "scorer-tournament", "version": 1, "tournament": 1e309}',
        b"\x00\x01",
    ],
)
def test_nesting_huge_numbers_and_junk_are_a_message(client: FlaskClient, raw: bytes) -> None:
    response = upload(client, raw)
    assert response.status_code == 422
    assert "Nothing was restored" in page_text(response)


def test_two_open_rounds_are_refused(app: Flask, client: FlaskClient) -> None:
    with app.test_request_context():
        tournament = tournament_with(9, rounds_=2)
        row = drawn(tournament, 1)
        play_round(row)
        rounds.close_round(tournament, row)
        drawn(tournament, 2)
        token = tournament.token
    data = json.loads(client.get(f"/t/{token}/backup.json").get_data())
    data["tournament"]["rounds"][0]["closed_at"] = None
    response = upload(client, json.dumps(data).encode())
    assert response.status_code == 422
    assert "only the last round can still be open" in page_text(response)


def test_an_oversize_upload_is_413_with_a_message(client: FlaskClient) -> None:
    body = b"--x\r\nContent-Disposition: form-data; name=file; filename=b.json\r\n\r\n"
    body += b" " * (16 * 1024 * 1024) + b"\r\n--x--\r\n"
    response = client.post(
        "/t/restore?lang=en", data=body, content_type="multipart/form-data; boundary=x"
    )
    assert response.status_code == 413
    assert "larger than 16 MB" in page_text(response)
    assert "At most 16 MB per file." in page_text(client.get("/t/restore?lang=en"))


def test_a_tournament_file_larger_than_a_match_backup_is_restored(
    app: Flask, client: FlaskClient
) -> None:
    # a big evening's file passes the 2 MB of the match import (200 tables: ~8.5 MB)
    evening(app)
    token, _ = tokens(app)
    data = client.get(f"/t/{token}/backup.json").get_data()
    padded = data[:-1] + b" " * (3 * 1024 * 1024) + data[-1:]
    # the multipart body as bytes: the test client would spool a big file to a temp file
    # it never closes
    body = b"--x\r\nContent-Disposition: form-data; name=file; filename=b.json\r\n"
    body += b"Content-Type: application/json\r\n\r\n" + padded + b"\r\n--x--\r\n"
    multipart = "multipart/form-data; boundary=x"
    response = client.post("/t/restore?lang=en", data=body, content_type=multipart)
    assert response.status_code == 303, page_text(response)[:300]
    assert tournament_count(app) == 2  # a copy: its links are in use here
    # the match import keeps its own limit
    assert client.post("/import?lang=en", data=body, content_type=multipart).status_code == 413


def test_a_series_link_that_names_nothing_is_404(client: FlaskClient) -> None:
    assert client.get("/cup/abcdefghijklmnopqrstuv/backup.json").status_code == 404
    assert client.get("/t/abcdefghijklmnopqrstuv/backup.json").status_code == 404


# -- the ranking as CSV and Excel ----------------------------------------------------------

NASTY = ['=HYPERLINK("http://x")', "+Bertl", "Christa", "@Done", "Egon", "Frieda", "Gustl"]
NASTY += ["Hanne", "-Ilse"]


def test_the_ranking_as_csv(app: Flask, client: FlaskClient) -> None:
    evening(app, names=NASTY)
    token, view = tokens(app)
    home = client.get(f"/t/{token}?lang=en").get_data(as_text=True)
    assert f"/t/{token}/ranking.csv" in home and f"/t/{token}/ranking.xlsx" in home
    public = client.get(f"/p/{view}?lang=en").get_data(as_text=True)
    assert f"/p/{view}/ranking.csv" in public and f"/p/{view}/ranking.xlsx" in public
    for url in (f"/t/{token}/ranking.csv?lang=en", f"/p/{view}/ranking.csv?lang=en"):
        response = client.get(url)
        assert response.status_code == 200
        raw = response.get_data()
        assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig")), delimiter=";"))
        assert rows[0] == [
            "Place",
            "Start number",
            "Name",
            "Club",
            "Round 1",
            "Total",
            "Lost games",
            "Marks",
        ]
        assert len(rows) == 10  # final: no note
        names = {r[2] for r in rows[1:]}
        assert '\'=HYPERLINK("http://x")' in names and "'+Bertl" in names and "'-Ilse" in names
        assert all(r[0].isdigit() and r[5].lstrip("-").isdigit() for r in rows[1:])
        assert sum(1 for r in rows[1:] if "from paper (round 1)" in r[7]) == 3
    german = client.get(f"/t/{token}/ranking.csv?lang=de").get_data().decode("utf-8-sig")
    assert german.startswith("Rang;Startnummer;Name")


def test_the_ranking_as_excel(app: Flask, client: FlaskClient) -> None:
    evening(app, names=NASTY, close=False)
    token, view = tokens(app)
    response = client.get(f"/p/{view}/ranking.xlsx?lang=en")
    assert response.status_code == 200
    assert "provisional" in response.headers["Content-Disposition"]
    book = load_workbook(io.BytesIO(response.get_data()))
    sheet = book.active
    assert sheet is not None
    assert sheet.title.startswith("Herbstturnier")
    assert "Provisional" in str(sheet["A2"].value)
    assert [c.value for c in sheet[3]][:3] == ["Place", "Start number", "Name"]
    assert sheet["A3"].font.bold and sheet.freeze_panes == "A4"
    names = [sheet.cell(row=r, column=3) for r in range(4, 13)]
    hyperlink = next(c for c in names if str(c.value).startswith("=HYPER"))
    assert hyperlink.data_type == "s"  # text, never a formula
    assert all(isinstance(sheet.cell(row=r, column=6).value, int) for r in range(4, 13))
    csv_text = client.get(f"/t/{token}/ranking.csv?lang=en").get_data().decode("utf-8-sig")
    assert "Provisional: round 1 is still being played." in csv_text


def test_a_withdrawn_player_is_marked(app: Flask, client: FlaskClient) -> None:
    with app.test_request_context():
        tournament = tournament_with(10, rounds_=2)
        row = drawn(tournament, 1)
        play_round(row)
        rounds.close_round(tournament, row)
        gone = db.session.execute(select(Entrant).where(Entrant.number == 4)).scalar_one()
        entrants.withdraw(tournament, gone)
        token = tournament.token
    text = client.get(f"/t/{token}/ranking.csv?lang=en").get_data().decode("utf-8-sig")
    line = next(r for r in csv.reader(io.StringIO(text), delimiter=";") if r[1] == "4")
    assert "withdrawn" in line[-1]
    assert "Provisional: not every round has been played." in text


def test_a_series_downloads_and_restores(app: Flask, client: FlaskClient) -> None:
    from scorer.tournament_models import Series

    with app.test_request_context():
        series = Series(name="Binokel-Cup", counting="all")
        db.session.add(series)
        evening_one = tournament_with(9, rounds_=1, name="Cup 1")
        evening_one.series = series
        db.session.commit()
        token = series.token
    response = client.get(f"/cup/{token}/backup.json")
    assert response.status_code == 200
    assert 'filename="serie-binokel-cup.json"' in response.headers["Content-Disposition"]
    data = response.get_data()
    assert json.loads(data)["series"]["evenings"][0]["name"] == "Cup 1"
    restored = upload(client, data)
    assert restored.status_code == 303
    with app.app_context():
        assert db.session.execute(select(func.count()).select_from(Series)).scalar_one() == 2


# -- the server's protection: as the match import ------------------------------------------


@pytest.fixture
def limited(tmp_path: Any) -> Any:
    from tests.builders import fresh_app

    with fresh_app(tmp_path, RATELIMIT_ENABLED=True, LIMIT_IMPORT="2 per minute") as app:
        yield app


def test_a_client_restoring_too_often_gets_429_and_a_busy_server_503(limited: Flask) -> None:
    from scorer import slots

    client = limited.test_client()
    for _ in range(2):
        assert upload(client, b"{}").status_code == 422
    response = upload(client, b"{}")
    assert response.status_code == 429
    assert "Retry-After" in response.headers
    other = limited.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    limited.config.update(WORK_SLOT_WAIT=0.1)
    with limited.test_request_context("/"), slots.work_slot():
        busy = upload(other, b"{}")
    assert busy.status_code == 503
    assert "Nothing was restored: the server is busy." in page_text(busy)


# -- the command line --------------------------------------------------------------------


def test_the_command_line_exports_and_restores_any_size(app: Flask, tmp_path: Path) -> None:
    evening(app)
    token, _ = tokens(app)
    runner = app.test_cli_runner()
    exported = runner.invoke(args=["tournament", "export", token])
    assert exported.exit_code == 0, exported.output
    assert json.loads(exported.output)["format"] == "scorer-tournament"
    path = tmp_path / "turnier.json"
    # bigger than the restore page takes: the command line has no upload limit
    path.write_text(exported.output[:-2] + " " * (17 * 1024 * 1024) + exported.output[-2:])
    restored = runner.invoke(args=["tournament", "restore", str(path)])
    assert restored.exit_code == 0, restored.output
    assert restored.output.startswith("/t/") and "new links" in restored.output
    assert tournament_count(app) == 2
    path.write_text('{"format": "scorer-tournament", "version": 1}')
    refused = runner.invoke(args=["tournament", "restore", str(path)])
    assert refused.exit_code == 1
    assert "Nothing was restored" in refused.output
    assert tournament_count(app) == 2
    unknown = runner.invoke(args=["tournament", "export", "abcdefghijklmnopqrstuv"])
    assert unknown.exit_code == 1


def test_the_command_line_exports_a_series(app: Flask, tmp_path: Path) -> None:
    from scorer.services.tournaments import series as cups

    evening(app)
    token, _ = tokens(app)
    with app.app_context():
        from scorer.services.tournaments import setup

        cup = cups.create_series(setup.get_tournament(token))
        cup_token = cup.token
    runner = app.test_cli_runner()
    exported = runner.invoke(args=["tournament", "export", cup_token])
    assert exported.exit_code == 0, exported.output
    assert json.loads(exported.output)["format"] == "scorer-series"


def test_a_token_that_begins_with_a_dash_is_no_option(app: Flask) -> None:
    from scorer.tournament_models import Tournament as Row

    evening(app)
    with app.app_context():
        row = db.session.execute(select(Row)).scalars().one()
        row.token = "-w" + "x" * 20
        db.session.commit()
    exported = app.test_cli_runner().invoke(args=["tournament", "export", "-w" + "x" * 20])
    assert exported.exit_code == 0, exported.output
    assert json.loads(exported.output)["format"] == "scorer-tournament"
