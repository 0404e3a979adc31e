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

from scorer import services
from scorer.extensions import db
from scorer.models import GameSession, Hand, HandEvent, Match
from scorer.services import HandInput, backup, backup_format
from tests.builders import (
    csrf_token_from,
    fresh_app,
    hand_input,
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
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    # the multipart body by hand: the test client's encoder spools a big file to a
    # temporary file that it never closes (a ResourceWarning, an error here)
    body = (
        b"--x\r\nContent-Disposition: form-data; name=file; filename=backup.json\r\n"
        b"Content-Type: application/json\r\n\r\n" + raw + b"\r\n--x--\r\n"
    )
    return client.post(
        f"/import?lang={lang}", data=body, content_type="multipart/form-data; boundary=x"
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
    with fresh_app(tmp_path / "other") as other:
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
R = "sessions.0.matches.0.ruleset"


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (f"{H}.0.parties.1.points", 999, "the rules give"),
        (f"{H}.0.parties.1.tricks", 200, "250"),
        (f"{H}.2.outcome", "durch_super", "outcome is missing or invalid"),
        (f"{H}.0.declarer", 7, "declarer is missing or invalid"),
        (f"{H}.0.bid", True, "bid is missing or invalid"),
        (f"{H}.0.bid", 155, "155"),
        (f"{H}.0.trump", "X", "trump is missing or invalid"),
        (f"{H}.0.parties.0.melds", -20, "melds is missing or invalid"),
        (f"{H}.0.parties", [], "parties is missing or invalid"),
        (f"{H}.0.created_at", "yesterday", "created_at is missing or invalid"),
        (f"{H}.0.events.0.snapshot.parties.0.party", 9, "party is missing or invalid"),
        ("sessions.0.matches.0.ruleset.target", "1000", "house rule 'target'"),
        ("sessions.0.matches.0.ruleset.jackpot", 5, "jackpot"),
        ("sessions.0.matches.0.ruleset.preset", "poker", "poker"),
        ("sessions.0.matches.0.seats.0.name", "", "name is missing or invalid"),
        ("sessions.0.matches.0.seats.1.name", "anna", "same name"),
        ("sessions.0.matches.0.seats", [{"name": "A", "party": 0}], "3 players"),
        ("sessions.0.matches.0.first_dealer", 3, "first_dealer is missing or invalid"),
        ("sessions.0.stake_cents", -5, "stake is missing or invalid"),
        ("sessions.0.stake_basis", "per_minute", "stake_basis is missing or invalid"),
        ("sessions.0.title", "x" * 81, "title is missing or invalid"),
        ("sessions.0.matches", "all", "matches is missing or invalid"),
        ("sessions", [], "no sessions"),
        ("version", 2, "version 2"),
        ("format", "something-else", "not a scorer backup"),
        # hostile values, named by their place in the file
        (f"{R}.pair", "x", "'pair'"),
        (f"{R}.team_size", True, "'team_size'"),
        (f"{R}.min_bid", 150.0, "'min_bid'"),
        (f"{R}.players", 3.0, "'players'"),
        (f"{R}.failed_extra", "x", "'failed_extra'"),
        (f"{R}.failed_extra", -50, "'failed_extra'"),
        (f"{R}.special_values", {"durch": 1.5}, "'durch'"),
        (f"{R}.special_values", [1, 2], "'special_values'"),
        (f"{R}.eight_ranks", [["A"]], "'eight_ranks'"),
        (f"{R}.preset", {"a": 1}, "'preset'"),
        (f"{R}.going_off_bonus", "flat " + "9" * 400, "'going_off_bonus'"),
        # the same table checks as the setup form
        (f"{R}.open_play", True, "two players"),
        (R, {"preset": "turnier", "deals": 10}, "multiple of the players"),
        (R, {"preset": "standard", "players": 3, "sevens": "no"}, "'sevens'"),
        (f"{R}.sevens", 1, "'sevens'"),
        ("sessions.0.created_at", "0001-01-01T00:00:00+01:00", "created_at is missing or invalid"),
        ("sessions.0.created_at", "1066-10-14T12:00:00", "created_at is missing or invalid"),
        (f"{H}.0.created_at", "9999-12-31T23:59:59-01:00", "created_at is missing or invalid"),
        (f"{H}.0.bid", 10**300, "bid is missing or invalid"),
        (f"{H}.0.parties.0.points", -(10**200), "points is missing or invalid"),
        (f"{H}.0.parties.1.meld_names", ["pair H"] * 41, "meld_names is missing or invalid"),
        (f"{H}.0.parties.1.meld_names", [7], "meld_names is missing or invalid"),
        (f"{H}.0.events.0.snapshot", [], "expected an object"),
        (
            f"{H}.0.events.0.snapshot.parties",
            [{"party": 0, "points": 0}] * 4,
            "parties is missing or invalid",
        ),
    ],
)
def test_bad_files_are_refused_naming_the_field_and_change_nothing(
    app: Flask,
    client: FlaskClient,
    exported: tuple[str, dict[str, Any], dict[str, Any]],
    path: str,
    value: Any,
    message: str,
) -> None:
    refused_without_a_trace(app, client, exported, path, value, message)


def refused_without_a_trace(
    app: Flask,
    client: FlaskClient,
    exported: tuple[str, dict[str, Any], dict[str, Any]],
    path: str,
    value: Any,
    message: str,
) -> None:
    """The export with ``value`` at ``path`` is refused with ``message``; nothing is added."""
    _, data, _ = exported
    before = counts(app)
    response = upload(client, json.dumps(_tamper(data, path, value)))
    html = response.get_data(as_text=True)
    assert response.status_code == 422, html[:2000]
    assert "Nothing was imported" in html and message in page_text(html)
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


def test_cli_export_of_a_token_that_begins_with_a_dash(app: Flask) -> None:
    from scorer.models import GameSession

    session = build_session(app)
    with app.app_context():
        row = services.get_session(session)
        assert isinstance(row, GameSession)
        row.token = "-w" + "x" * 20
        db.session.commit()
    result = app.test_cli_runner().invoke(args=["backup", "export", "-w" + "x" * 20])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["sessions"][0]["token"] == "-w" + "x" * 20


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
        "Jürgen;Jürgen total;Anna melds;Anna tricks;Bernd melds;Bernd tricks;"
        "Jürgen melds;Jürgen tricks"
    )
    # the results and running totals, then every party's melds and trick points
    assert lines[1] == "1;Anna;Bernd;150;Grün;made;60;60;230;230;80;80;0;60;100;130;20;60"
    assert lines[2] == "2;Bernd;Jürgen;400;Herz;failed;100;160;100;330;-800;-720;0;60;0;60;20;130"
    assert lines[3] == "3;Jürgen;Anna;;;Durch won;1000;1160;0;330;0;-720;;;;;;"
    assert lines[4] == "Total;;;;;;;1160;;330;;-720;;;;;;"
    assert lines[5] == ""


def test_export_module_refuses_foreign_json(app: Flask) -> None:
    with app.test_request_context("/"), pytest.raises(services.BackupError):
        backup_format.parse(b'{"format": "other"}')


# -- limits: what the app can serve, and what the web import takes ------------------


def _hands_file(per_match: list[int], sessions: int = 1) -> dict[str, Any]:
    """A file with empty hands: the counts are refused before any hand is read."""
    session: dict[str, Any] = {"matches": [{"hands": [{}] * n} for n in per_match]}
    return {"format": "scorer-backup", "version": 1, "sessions": [session] * sessions}


@pytest.mark.parametrize(
    ("per_match", "sessions", "message"),
    [
        ([501], 1, "a match can hold at most 500"),
        ([400, 400, 201], 1, "a session can hold at most 1000"),
        ([500, 300], 3, "one import takes at most 2000"),
    ],
)
def test_hand_limits_are_named(
    app: Flask, client: FlaskClient, per_match: list[int], sessions: int, message: str
) -> None:
    response = upload(client, json.dumps(_hands_file(per_match, sessions)))
    assert response.status_code == 422
    assert message in page_text(response)
    assert counts(app) == (0, 0, 0, 0)


def _big_session(data: dict[str, Any], matches: int, hands: int) -> dict[str, Any]:
    """The exported session grown to ``matches`` matches of ``hands`` hands each.

    Every hand carries meld names and a correction in its history, as a busy
    evening at a real table would leave them.
    """
    out = copy.deepcopy(data)
    session = out["sessions"][0]
    template = session["matches"][0]
    templates = template["hands"]
    grown = []
    for number in range(1, matches + 1):
        match = copy.deepcopy(template)
        match.update(number=number, token=None, view_token=None, finished_at=None)
        match["hands"] = []
        for index in range(hands):
            hand = copy.deepcopy(templates[index % len(templates)])
            hand.update(seq=index + 1, dealer_seat=index % 3)
            for line in hand["parties"]:
                if line["melds"]:
                    line["meld_names"] = ["family H", "four A", "pair G"]
            created = hand["events"][0]
            hand["events"] = [created, {**created, "action": "corrected"}]
            match["hands"].append(hand)
        grown.append(match)
    session["matches"] = grown
    return out


def test_the_largest_session_fits_the_web_import_and_comes_back(
    app: Flask, client: FlaskClient
) -> None:
    hands = [hand_input(3, n) for n in range(14)]
    token = service_match(app, NAMES, hands, target=100_000, title="Ö" * 80)
    session = session_token_of(app, token)
    data = json.loads(client.get(f"/s/{session}/backup.json").data)
    per_match = backup_format.MAX_SESSION_HANDS // 2
    assert per_match <= backup_format.MAX_HANDS
    big = _big_session(data, 2, per_match)
    response = upload(client, json.dumps(big))
    assert response.status_code == 302, page_text(response)[:500]
    imported = response.headers["Location"].rsplit("/", 1)[1]
    exported = client.get(f"/s/{imported}/backup.json").data
    assert b"\n" not in exported  # compact: no indentation
    assert len(exported) < app.config["MAX_CONTENT_LENGTH"]
    assert len(exported) <= backup.MAX_SESSION_BYTES + 200  # the envelope
    again = upload(client, exported)
    assert again.status_code == 302, page_text(again)[:500]
    copy_token = again.headers["Location"].rsplit("/", 1)[1]
    with app.app_context():
        first, second = services.get_session(imported), services.get_session(copy_token)
        assert [len(m.hands) for m in second.matches] == [per_match, per_match]
        assert [services.sheet(m).totals for m in second.matches] == [
            services.sheet(m).totals for m in first.matches
        ]


def test_a_session_whose_backup_would_not_fit_the_web_import_is_refused(
    app: Flask,
    client: FlaskClient,
    exported: tuple[str, dict[str, Any], dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, data, _ = exported
    size = len(backup_format.dumps({"s": data["sessions"][0]}).encode())
    monkeypatch.setattr(backup, "MAX_SESSION_BYTES", size // 2)
    before = counts(app)
    response = upload(client, json.dumps(data))
    assert response.status_code == 422
    assert f"at most {size // 2}" in page_text(response)
    assert counts(app) == before


def _over_the_limit() -> bytes:
    body = b"--x\r\nContent-Disposition: form-data; name=file; filename=b.json\r\n\r\n"
    return body + b" " * (2 * 1024 * 1024) + b"\r\n--x--\r\n"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_file_over_the_web_limit_gets_the_import_page_with_the_command(
    app: Flask, client: FlaskClient, lang: str
) -> None:
    response = client.post(
        f"/import?lang={lang}",
        data=_over_the_limit(),
        content_type="multipart/form-data; boundary=x",
    )
    assert response.status_code == 413
    html = response.get_data(as_text=True)
    assert f'lang="{lang}"' in html and 'id="import-error"' in html and 'id="import-form"' in html
    assert "flask --app scorer backup import FILE" in page_text(html)
    if lang == "en":
        assert "larger than 2 MB" in page_text(html)
    assert counts(app) == (0, 0, 0, 0)


def test_a_file_over_the_web_limit_with_csrf_on(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    client.get("/import")
    response = client.post(
        "/import?lang=en", data=_over_the_limit(), content_type="multipart/form-data; boundary=x"
    )
    assert response.status_code == 413
    assert "flask --app scorer backup import FILE" in page_text(response)


def test_too_large_elsewhere_keeps_the_error_page(client: FlaskClient, app: Flask) -> None:
    session = session_token_of(app, service_match(app, NAMES, 1))
    response = client.post(
        f"/s/{session}/stake?lang=en",
        data=_over_the_limit(),
        content_type="multipart/form-data; boundary=x",
    )
    assert response.status_code == 413
    assert "import-form" not in response.get_data(as_text=True)


# -- poisoned rulesets and other hostile files ---------------------------------------

S0 = "sessions.0.matches.0.seats.0"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_when_the_file_is_read(
    app: Flask,
    client: FlaskClient,
    exported: tuple[str, dict[str, Any], dict[str, Any]],
    constant: str,
) -> None:
    _, data, _ = exported
    before = counts(app)
    text = json.dumps(_tamper(data, f"{R}.target", "@@"))
    response = upload(client, text.replace('"@@"', constant))
    assert response.status_code == 422
    assert f"the number {constant}, which JSON does not know" in page_text(response)
    assert counts(app) == before


def test_a_nan_target_would_be_refused_by_the_rules_too(
    exported: tuple[str, dict[str, Any], dict[str, Any]], app: Flask
) -> None:
    _, data, _ = exported
    poisoned = _tamper(data, f"{R}.target", float("nan"))
    with app.test_request_context("/?lang=en"), pytest.raises(services.BackupError, match="target"):
        backup.load(poisoned)


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 5000 + "]" * 5000,
        '{"format": "scorer-backup", "version": 1, "sessions": ' + "[" * 50 + "]" * 50 + "}",
    ],
)
def test_deep_nesting_is_refused(app: Flask, client: FlaskClient, raw: str) -> None:
    response = upload(client, raw)
    assert response.status_code == 422
    assert "nested more than" in page_text(response)


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (f"{S0}.name", "Anna\x00"),
        (f"{S0}.name", "\ud800"),
        ("sessions.0.title", "Stamm\x1btisch"),
        ("sessions.0.title", "\udfff tisch"),
        (f"{H}.0.parties.0.meld_names", ["pair\x00H"]),
        (f"{H}.0.events.0.action", "created\x00"),
        (f"{R}.jackpot\x00", 5),
        (f"{H}.0.meld_log", [{"party": 0, "name": "\x07", "points": 20}]),
    ],
)
def test_nul_control_characters_and_lone_surrogates_are_refused(
    app: Flask,
    client: FlaskClient,
    exported: tuple[str, dict[str, Any], dict[str, Any]],
    path: str,
    text: Any,
) -> None:
    _, data, _ = exported
    before = counts(app)
    response = upload(client, json.dumps(_tamper(data, path, text)))  # ensure_ascii: \\ud800
    assert response.status_code == 422
    page = page_text(response)
    assert "control characters" in page
    # the place as people read it ("session 1, match 1, seat 1, name"), not the file's keys
    assert "session 1" in page and "sessions.0" not in page
    assert counts(app) == before


def test_ordinary_whitespace_in_a_title_is_kept(
    app: Flask, client: FlaskClient, exported: tuple[str, dict[str, Any], dict[str, Any]]
) -> None:
    _, data, _ = exported
    response = upload(client, json.dumps(_tamper(data, "sessions.0.title", "Stamm\ttisch")))
    assert response.status_code == 302


def test_a_token_with_a_line_break_is_replaced(
    app: Flask, client: FlaskClient, exported: tuple[str, dict[str, Any], dict[str, Any]]
) -> None:
    session, data, _ = exported
    bent = _tamper(data, "sessions.0.token", session + "\n")
    response = upload(client, json.dumps(bent))
    assert response.status_code == 302
    with app.app_context():
        tokens = db.session.execute(select(GameSession.token)).scalars().all()
    assert len(tokens) == 2 and not any("\n" in token for token in tokens)


def test_a_meld_the_rules_do_not_know_is_refused_in_the_meld_log(
    app: Flask, client: FlaskClient
) -> None:
    token = service_match(app, ["Anna", "Bernd"], preset="schweizer")
    with app.app_context():
        match = services.get_match(token)
        services.write_meld(match, 0, "pair H", 40, trump="H")
    session = session_token_of(app, token)
    data = json.loads(client.get(f"/s/{session}/backup.json").data)
    bad = _tamper(data, f"{H}.0.meld_log.0.name", "<b>jackpot</b>")
    before = counts(app)
    response = upload(client, json.dumps(bad))
    assert response.status_code == 422
    assert "name is missing or invalid" in page_text(response)
    assert counts(app) == before
