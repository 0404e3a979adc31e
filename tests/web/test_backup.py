"""Backups: JSON export and import (round trip, tokens, refusing bad files), CSV sheets."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from scorer import backup, services
from scorer.extensions import db
from scorer.models import GameSession, Hand, HandEvent, Match
from scorer.services import HandInput
from tests.builders import (
    csrf_token_from,
    make_app,
    page_text,
    service_match,
    session_token_of,
)

NAMES = ["Anna", "Bernd", "Jürgen"]
TEAM = ["Anna", "Bernd", "Carla", "Dieter"]


def snapshot(app: Flask, token: str) -> dict[str, Any]:
    """Everything an import must reproduce: sheets, totals, winners, settlement."""
    with app.app_context():
        row = services.get_session(token)
        result = services.settlement(row)
        matches = []
        for match in row.matches:
            current = services.sheet(match)
            matches.append(
                {
                    "number": match.number,
                    "parties": current.parties,
                    "rows": [
                        (r.number, r.dealer, r.declarer, r.points, r.totals, r.stars, r.sits_out)
                        for r in current.rows
                    ],
                    "totals": current.totals,
                    "winners": current.winners,
                    "finished": current.finished,
                    "stored_winners": match.winners,
                    "struck": [h.seq for h in match.hands if h.deleted_at],
                    "history": [len(h.events) for h in match.hands],
                }
            )
        return {
            "title": row.title,
            "stake": (row.stake_cents, row.stake_basis),
            "matches": matches,
            "balances": result.balances,
            "transfers": result.transfers,
        }


def build_session(app: Flask) -> str:
    """A session with a finished match, a corrected and a struck hand, and a running match."""
    hands = [
        HandInput(declarer=1, bid=150, trump="G", melds=[0, 100, 20], tricks=[60, 130, 60]),
        HandInput(declarer=2, bid=200, trump="S", outcome="gone_off", melds=[40, 0, 0]),
        HandInput(declarer=0, outcome="durch", won=True),
    ]
    first = service_match(app, NAMES, hands, stake_cents=20, title="Stammtisch Öhringen")
    session = session_token_of(app, first)
    second = service_match(app, NAMES, 4, session_token=session)
    with app.app_context():
        match = services.get_match(second)
        live = services.live_hands(match)
        services.delete_hand(match, live[1])
        data = services.input_of(live[2])
        data.melds[live[2].declarer_party or 0] += 20
        services.save_hand(match, data, hand=live[2])
    return session


def upload(client: FlaskClient, data: bytes | str, *, lang: str = "en") -> Any:
    raw = data.encode() if isinstance(data, str) else data
    return client.post(
        f"/import?lang={lang}",
        data={"file": (io.BytesIO(raw), "backup.json")},
        content_type="multipart/form-data",
    )


def counts(app: Flask) -> tuple[int, int, int, int]:
    with app.app_context():
        return tuple(  # type: ignore[return-value]
            db.session.execute(select(func.count()).select_from(model)).scalar_one()
            for model in (GameSession, Match, Hand, HandEvent)
        )


@pytest.fixture
def exported(app: Flask, client: FlaskClient) -> tuple[str, dict[str, Any], dict[str, Any]]:
    session = build_session(app)
    response = client.get(f"/s/{session}/backup.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert "attachment" in response.headers["Content-Disposition"]
    return session, json.loads(response.data), snapshot(app, session)


def test_round_trip_across_two_fresh_databases(
    exported: tuple[str, dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    session, data, before = exported
    assert data["format"] == "scorer-backup" and data["version"] == 1
    # a second installation (on PostgreSQL the same server, emptied by make_app)
    (tmp_path / "other").mkdir()
    other = make_app(tmp_path / "other")
    client = other.test_client()
    response = upload(client, json.dumps(data))
    assert response.status_code == 302, response.get_data(as_text=True)
    assert response.headers["Location"].endswith(f"/s/{session}")  # tokens kept
    after = snapshot(other, session)
    assert after == before
    assert before["balances"] and before["matches"][0]["finished"]
    with other.app_context():
        tokens = {m.token for m in services.get_session(session).matches}
    assert tokens == {m["token"] for m in data["sessions"][0]["matches"]}
    # the imported session is remembered on this device and can be exported again
    assert client.get(f"/s/{session}").status_code == 200
    again = json.loads(client.get(f"/s/{session}/backup.json").data)
    for item in (again, data):
        item.pop("exported_at")
    assert again == data
    with other.app_context():
        db.session.remove()
        db.engine.dispose()


def test_import_twice_gives_new_tokens_and_the_same_sheets(
    app: Flask, client: FlaskClient, exported: tuple[str, dict[str, Any], dict[str, Any]]
) -> None:
    session, data, before = exported
    response = upload(client, json.dumps(data))
    assert response.status_code == 302
    new_token = response.headers["Location"].rsplit("/", 1)[1]
    assert new_token != session
    assert snapshot(app, new_token) == before
    with app.app_context():
        old = {m.token for m in services.get_session(session).matches}
        new = {m.token for m in services.get_session(new_token).matches}
    assert not old & new


def test_csrf_is_required(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    refused = client.post(
        "/import", data={"file": (io.BytesIO(b"{}"), "b.json")}, content_type="multipart/form-data"
    )
    assert refused.status_code == 400
    token = csrf_token_from(client.get("/import").get_data(as_text=True))
    response = client.post(
        "/import?lang=en",
        data={"csrf_token": token, "file": (io.BytesIO(b"{}"), "b.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert "not a scorer backup" in page_text(response)


def _tamper(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    target: Any = out
    keys = path.split(".")
    for key in keys[:-1]:
        target = target[int(key)] if key.isdigit() else target[key]
    last = keys[-1]
    if value is KeyError:
        del target[last]
    elif last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return out


H = "sessions.0.matches.0.hands"


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (f"{H}.0.parties.1.points", 999, "the rules give"),
        (f"{H}.0.parties.1.tricks", 200, "250"),
        (f"{H}.2.outcome", "durch_super", "'outcome'"),
        (f"{H}.0.declarer", 7, "'declarer'"),
        (f"{H}.0.bid", True, "'bid'"),
        (f"{H}.0.bid", 155, "155"),
        (f"{H}.0.trump", "X", "'trump'"),
        (f"{H}.0.parties.0.melds", -20, "'melds'"),
        (f"{H}.0.parties", [], "'parties'"),
        (f"{H}.0.created_at", "yesterday", "'created_at'"),
        (f"{H}.0.events.0.snapshot.parties.0.party", 9, "'party'"),
        ("sessions.0.matches.0.ruleset.target", "1000", "house rules"),
        ("sessions.0.matches.0.ruleset.jackpot", 5, "jackpot"),
        ("sessions.0.matches.0.ruleset.preset", "poker", "poker"),
        ("sessions.0.matches.0.seats.0.name", "", "'name'"),
        ("sessions.0.matches.0.seats.1.name", "anna", "same name"),
        ("sessions.0.matches.0.seats", [{"name": "A", "party": 0}], "3 players"),
        ("sessions.0.matches.0.first_dealer", 3, "'first_dealer'"),
        ("sessions.0.stake_cents", -5, "'stake_cents'"),
        ("sessions.0.stake_basis", "per_minute", "'stake_basis'"),
        ("sessions.0.title", "x" * 81, "'title'"),
        ("sessions.0.matches", "all", "'matches'"),
        ("sessions", [], "no sessions"),
        ("version", 2, "version 2"),
        ("format", "something-else", "not a scorer backup"),
    ],
)
def test_bad_files_are_refused_and_change_nothing(
    app: Flask,
    client: FlaskClient,
    exported: tuple[str, dict[str, Any], dict[str, Any]],
    path: str,
    value: Any,
    message: str,
) -> None:
    _, data, _ = exported
    before = counts(app)
    response = upload(client, json.dumps(_tamper(data, path, value)))
    html = response.get_data(as_text=True)
    assert response.status_code == 422, html[:2000]
    assert "Nothing was imported" in html
    assert message in page_text(html)
    assert counts(app) == before


@pytest.mark.parametrize("raw", [b"", b"not json", b"\xff\xfe\x00", b"[1, 2]", b'"text"', b"{}"])
def test_not_a_backup(app: Flask, client: FlaskClient, raw: bytes) -> None:
    before = counts(app)
    response = upload(client, raw)
    assert response.status_code == 422
    assert counts(app) == before


def test_error_in_the_second_session_imports_nothing_of_the_first(
    app: Flask, client: FlaskClient, exported: tuple[str, dict[str, Any], dict[str, Any]]
) -> None:
    _, data, _ = exported
    two = copy.deepcopy(data)
    broken = copy.deepcopy(data["sessions"][0])
    broken["matches"][0]["hands"][0]["parties"][0]["points"] = 5000
    two["sessions"].append(broken)
    before = counts(app)
    assert upload(client, json.dumps(two)).status_code == 422
    assert counts(app) == before


def test_german_error_page(
    client: FlaskClient, exported: tuple[str, dict[str, Any], dict[str, Any]]
) -> None:
    response = upload(client, b"nonsense", lang="de")
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'lang="de"' in html and 'id="import-error"' in html


def test_no_file_is_422(client: FlaskClient) -> None:
    response = client.post("/import?lang=en", data={}, content_type="multipart/form-data")
    assert response.status_code == 422
    assert "Choose a backup file." in response.get_data(as_text=True)


def test_upload_over_two_mib_is_413(app: Flask, client: FlaskClient) -> None:
    before = counts(app)
    body = b"--x\r\nContent-Disposition: form-data; name=file; filename=b.json\r\n\r\n"
    body += b" " * (2 * 1024 * 1024) + b"\r\n--x--\r\n"
    # raw bytes: the test client's own multipart encoder would spool them to a temp file
    response = client.post("/import", data=body, content_type="multipart/form-data; boundary=x")
    assert response.status_code == 413
    assert counts(app) == before


def test_import_page_renders(client: FlaskClient) -> None:
    page = client.get("/import?lang=en").get_data(as_text=True)
    assert 'enctype="multipart/form-data"' in page and 'type="file"' in page


def test_device_backup_holds_the_sessions_this_device_opened(
    app: Flask, client: FlaskClient
) -> None:
    mine = session_token_of(app, service_match(app, NAMES, 1))
    service_match(app, NAMES, 1)  # another device's session
    assert client.get(f"/s/{mine}").status_code == 200
    data = json.loads(client.get("/backup.json").data)
    assert [s["token"] for s in data["sessions"]] == [mine]


def test_malformed_or_taken_tokens_are_replaced(
    app: Flask, client: FlaskClient, exported: tuple[str, dict[str, Any], dict[str, Any]]
) -> None:
    _, data, before = exported
    weak = _tamper(data, "sessions.0.token", "abc")
    response = upload(client, json.dumps(weak))
    assert response.status_code == 302
    token = response.headers["Location"].rsplit("/", 1)[1]
    assert token != "abc" and len(token) >= 22
    assert snapshot(app, token) == before


def test_two_player_swiss_match_round_trips(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, ["Anna", "Bernd"], preset="schweizer")
    with app.app_context():
        match = services.get_match(token)
        services.write_meld(match, 0, "pair H", 40, trump="H")
        services.finish_open_hand(match, [80, 50])
        services.write_meld(match, 1, "four A", 100)
    session = session_token_of(app, token)
    before = snapshot(app, session)
    data = client.get(f"/s/{session}/backup.json").data
    response = upload(client, data)
    assert response.status_code == 302
    copy_token = response.headers["Location"].rsplit("/", 1)[1]
    assert snapshot(app, copy_token) == before
    with app.app_context():
        match = services.get_session(copy_token).matches[0]
        assert [h.status for h in match.hands] == ["closed", "open"]
        assert [m.name for m in match.hands[1].meld_log] == ["four A"]


def test_cli_export_and_import(app: Flask, tmp_path: Path) -> None:
    session = build_session(app)
    before = snapshot(app, session)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["backup", "export"])
    assert result.exit_code == 0, result.output
    path = tmp_path / "all.json"
    path.write_text(result.output, encoding="utf-8")
    assert json.loads(result.output)["sessions"][0]["token"] == session
    result = runner.invoke(args=["backup", "import", str(path)])
    assert result.exit_code == 0, result.output
    new_token = result.output.split()[0]
    assert snapshot(app, new_token) == before
    path.write_text("{}", encoding="utf-8")
    result = runner.invoke(args=["backup", "import", str(path)])
    assert result.exit_code == 1


# -- CSV ------------------------------------------------------------------------


def test_csv_sheet_for_spreadsheets(app: Flask, client: FlaskClient) -> None:
    hands = [
        HandInput(declarer=1, bid=150, trump="G", melds=[0, 100, 20], tricks=[60, 130, 60]),
        HandInput(declarer=2, bid=400, trump="H", melds=[0, 0, 20], tricks=[60, 60, 130]),
        HandInput(declarer=0, outcome="durch", won=True),
    ]
    token = service_match(app, NAMES, hands, title="Stammtisch")
    response = client.get(f"/m/{token}/sheet.csv?lang=en")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert (
        (response.headers["Content-Disposition"])
        == 'attachment; filename="binokel-stammtisch-match-1.csv"'
    )
    raw = response.data
    assert raw.startswith(b"\xef\xbb\xbf")
    lines = raw.decode("utf-8-sig").split("\r\n")
    assert lines[0] == (
        "Hand;Dealer;Declarer;Bid;Trump;Outcome;Anna;Anna total;Bernd;Bernd total;"
        "Jürgen;Jürgen total"
    )
    assert lines[1] == "1;Anna;Bernd;150;G;made;60;60;230;230;80;80"
    assert lines[2] == "2;Bernd;Jürgen;400;H;failed;60;120;60;290;-800;-720"
    assert lines[3] == "3;Jürgen;Anna;;;Durch won;1000;1120;0;290;0;-720"
    assert lines[4] == "Total;;;;;;;1120;;290;;-720"
    assert lines[5] == ""


def test_export_module_refuses_foreign_json(app: Flask) -> None:
    with app.test_request_context("/"), pytest.raises(backup.BackupError):
        backup.parse(b'{"format": "other"}')
