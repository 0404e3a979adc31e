"""A Stammtisch's backup: the group with all its evenings, restored on another server.

Restored, it computes the same year (ranking, records, every balance, the kitty) and
keeps its links; restored a second time it is a copy with new links; a malformed or
tampered file is refused with a clear message and changes nothing.
"""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.models import GameSession
from scorer.services.stammtisch import groups, new_year, payments
from scorer.services.stammtisch.people import find_person, leave
from scorer.services.stammtisch.reading import year_view
from scorer.stammtisch_models import Stammtisch
from tests.builders import fresh_app, multipart, page_text
from tests.stammtisch_builders import a_group, played_year


def a_year_with_everything(app: Flask) -> str:
    """Two years of a group that pays into the kitty and to each other; its token."""
    with app.app_context():
        group = a_group(money="pay", stake_cents=10)
        played_year(group, evenings=3, matches=2)
        payer, payee, cents = year_view(group, hands=False).ledger.transfers[0]
        payments.pay(
            group, payer_id=int(payer), payee_id=int(payee), cents=cents, day=date(2025, 2, 1)
        )
        dieter = find_person(group, "Dieter")
        assert dieter is not None
        leave(group, dieter.id, date(2025, 2, 2))
        new_year.new_year(group, day=date(2025, 12, 28))
        year = groups.current_year(group)
        year.money_mode = "kitty"
        db.session.commit()
        played_year(group, evenings=2, matches=1, start=date(2026, 1, 8), seed=3)
        books = year_view(group, hands=False).ledger
        owing = next(a for a in books.accounts if a.kitty_open)
        payments.pay_kitty(
            group, payer_id=int(owing.person), cents=owing.kitty_open, day=date(2026, 1, 16)
        )
        payments.payout(
            group,
            cents=owing.kitty_open,
            day=date(2026, 2, 1),
            note="Ausflug",
            today=date(2026, 2, 2),
        )
        token = group.token
        db.session.remove()
    return token


def year_numbers(app: Flask, token: str, number: int) -> dict[str, Any]:
    """What a year shows, by name (ids differ between servers)."""
    with app.app_context():
        view = year_view(groups.get_group(token), number)
        name = view.name
        return {
            "ranking": [
                (line.place, name(line.person), line.points, line.matches_won, line.lost_games)
                for line in [*view.ranking.lines, *view.ranking.guests]
            ],
            "records": [
                (r.kind, r.value, [tuple(name(p) for p in h.people) for h in r.holders])
                for r in view.records
            ],
            "accounts": sorted(
                (name(a.person), a.carried, a.evenings, a.open, a.kitty_open)
                for a in view.ledger.accounts
            ),
            "transfers": sorted((name(p), name(q), c) for p, q, c in view.ledger.transfers),
            "kitty": view.ledger.kitty.balance,
        }


def restore(client: FlaskClient, raw: bytes) -> Any:
    return client.post("/st/restore", **multipart({"file": (raw, "stammtisch.json")}))


def counts(app: Flask) -> tuple[int, int]:
    with app.app_context():
        return (
            db.session.execute(select(func.count()).select_from(Stammtisch)).scalar_one(),
            db.session.execute(select(func.count()).select_from(GameSession)).scalar_one(),
        )


def test_restored_on_another_server_it_is_the_same_year(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    token = a_year_with_everything(app)
    raw = client.get(f"/st/{token}/backup.json").data
    assert json.loads(raw)["format"] == "scorer-stammtisch"
    (tmp_path / "other").mkdir()
    with fresh_app(tmp_path / "other") as other:
        there = other.test_client()
        response = restore(there, raw)
        assert response.status_code == 303, page_text(response)[:2000]
        assert response.headers["Location"] == f"/st/{token}"
        assert "Mit seinen Links geladen" in page_text(there.get(f"/st/{token}"))
        for number in (1, 2):
            assert year_numbers(other, token, number) == year_numbers(app, token, number)
        # the evenings are sessions as any: their links kept, their sheets the same
        html = there.get(f"/st/{token}/evening/1").get_data(as_text=True)
        assert there.get(f"/st/{token}/year/1/year.pdf").status_code == 200
        assert "/m/" in html
        # restored a second time: a copy with new links
        again = restore(there, raw)
        assert again.status_code == 303
        assert again.headers["Location"] != f"/st/{token}"
        assert "Kopie mit neuen Links" in page_text(there.get(again.headers["Location"]))
        assert counts(other)[0] == 2


def _file(app: Flask, client: FlaskClient) -> dict[str, Any]:
    with app.app_context():
        group = a_group(money="kitty", stake_cents=50)
        played_year(group, evenings=2, matches=1)
        account = next(a for a in year_view(group, hands=False).ledger.accounts if a.kitty_open)
        payments.pay_kitty(
            group, payer_id=int(account.person), cents=account.kitty_open, day=date(2025, 1, 9)
        )
        token = group.token
    data: dict[str, Any] = json.loads(client.get(f"/st/{token}/backup.json").data)
    return data


Tamper = Callable[[dict[str, Any]], None]


def _points(data: dict[str, Any]) -> None:
    hand = data["stammtisch"]["evenings"][0]["session"]["matches"][0]["hands"][0]
    hand["parties"][0]["points"] += 10


def _seat(data: dict[str, Any]) -> None:
    data["stammtisch"]["evenings"][0]["sitters"][0]["name"] = "Niemand"


def _payout(data: dict[str, Any]) -> None:
    data["stammtisch"]["payments"].append(
        {
            "kind": "payout",
            "payer": None,
            "payee": None,
            "cents": 10**6,
            "paid_on": "2025-06-01",
            "note": "Ausflug",
            "evening": None,
            "created_at": "2025-06-01T20:00:00",
            "struck_at": None,
        }
    )


@pytest.mark.parametrize(
    ("tamper", "said"),
    [
        (lambda d: d.update(format="scorer-backup"), "keine scorer-Sicherung"),
        (lambda d: d.update(version=99), "Formatversion"),
        (lambda d: d.pop("stammtisch"), "Stammtisch"),
        (lambda d: d["stammtisch"].update(name="\x00"), "Steuerzeichen"),
        (
            lambda d: d["stammtisch"]["years"][0]["members"][0].update(person=99),
            "Mitglied 1: Person fehlt",
        ),
        (lambda d: d["stammtisch"]["years"][0].update(stake_cents=-1), "Jahr 1"),
        (lambda d: d["stammtisch"]["years"][0].update(ruleset={"players": 99}), "Jahr 1"),
        (
            lambda d: d["stammtisch"]["people"].append(
                {"name": "anna", "created_at": "2025-01-01"}
            ),
            "denselben Namen",
        ),
        (lambda d: d["stammtisch"]["evenings"][0].update(year=7), "Abend 1: Jahr fehlt"),
        (lambda d: d["stammtisch"]["evenings"][0]["sitters"][0].update(guest=True), "Gast"),
        (_points, "Abend 1"),
        (_seat, "saß aber nicht mit"),
        (_payout, "mehr, als in der Kasse war"),
        (lambda d: d["stammtisch"]["payments"][0].update(kind="gift"), "Zahlung 1"),
        (lambda d: d["stammtisch"]["payments"][0].update(payee=1), "passt nicht"),
    ],
)
def test_a_malformed_file_is_refused_and_changes_nothing(
    app: Flask, client: FlaskClient, tamper: Tamper, said: str
) -> None:
    data = _file(app, client)
    before = counts(app)
    bad = copy.deepcopy(data)
    tamper(bad)
    response = restore(client, json.dumps(bad).encode())
    assert response.status_code == 422, response.status_code
    text = page_text(response)
    assert "Nichts wurde wiederhergestellt" in text and said in text, text[:2000]
    assert counts(app) == before


@pytest.mark.parametrize("raw", [b"{not json", b"\xff\xfe", b'{"a": NaN}', b"[" * 100 + b"]" * 100])
def test_what_is_no_backup_is_refused(client: FlaskClient, raw: bytes) -> None:
    response = restore(client, raw)
    assert response.status_code == 422
    assert "Nichts wurde wiederhergestellt" in page_text(response)


def test_a_file_too_large_for_the_page_says_where_to_restore_it(app: Flask) -> None:
    app.config["UPLOAD_LIMITS"] = {**app.config["UPLOAD_LIMITS"], "st_backup.restore": 1000}
    response = restore(app.test_client(), b"{" + b" " * 5000 + b"}")
    assert response.status_code == 413
    assert "stammtisch restore" in page_text(response)


def test_the_command_line_exports_and_restores(app: Flask, tmp_path: Path) -> None:
    token = a_year_with_everything(app)
    runner = app.test_cli_runner()
    exported = runner.invoke(args=["stammtisch", "export", token])
    assert exported.exit_code == 0
    path = tmp_path / "krone.json"
    path.write_text(exported.output)
    (tmp_path / "cli").mkdir()
    with fresh_app(tmp_path / "cli") as other:
        done = other.test_cli_runner().invoke(args=["stammtisch", "restore", str(path)])
        assert done.exit_code == 0, done.output
        assert f"/st/{token}" in done.output and "its links kept" in done.output
        assert year_numbers(other, token, 2) == year_numbers(app, token, 2)
    missing = runner.invoke(args=["stammtisch", "export", "no-such-token-here-at-all"])
    assert missing.exit_code == 1
    broken = tmp_path / "broken.json"
    broken.write_bytes(io.BytesIO(b"{}").read())
    refused = runner.invoke(args=["stammtisch", "restore", str(broken)])
    assert refused.exit_code == 1 and "Nothing was restored" in refused.output
