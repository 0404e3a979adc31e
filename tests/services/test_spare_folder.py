"""The continuous backup: every tournament and series in a folder, each file complete.

The hall's follower writes a tournament's file a round after it changed (a series:
one file with every evening); each file is the backup "Download backup" gives, and
restores on another laptop to exactly the hall's state.  A write dying halfway
leaves the file before, never half of one; a laptop that is not the hall writes
nothing (its state is not the evening's).
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from scorer.extensions import db
from scorer.rules import RulesError
from scorer.services.spare import folder as folders
from scorer.services.spare import role as roles
from scorer.services.tournaments import backup, entrants, rounds, series
from scorer.tournament_models import Tournament
from tests.spare_builders import laptop
from tests.tournament_builders import drawn, play_round, play_table, tournament_with


@pytest.fixture(autouse=True)
def no_gap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folders, "MIN_GAP", 0.0)  # every round writes what changed
    monkeypatch.setattr(folders, "SLOW", 0.0)


def files(where: Path) -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text()) for p in sorted(where.glob("*.json"))}


def without_time(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "exported_at"}


def test_the_folder_is_checked_where_the_organiser_types_it(in_app: Flask, tmp_path: Path) -> None:
    for typed, says in [
        ("stick", "whole path"),
        (str(tmp_path / "none"), "no folder"),
        (str(tmp_path / "file.txt"), "no folder"),
        ("/proc", "cannot write"),
        ("/x" * 300, "at most"),
    ]:
        (tmp_path / "file.txt").write_text("x")
        with pytest.raises(RulesError) as refused:
            folders.set_folder(typed)
        assert says in str(refused.value), typed
    assert folders.set_folder(f"  {tmp_path}  ") == str(tmp_path)
    assert folders.chosen_folder("/elsewhere") == str(tmp_path)
    assert folders.set_folder("") == ""
    assert folders.chosen_folder("/elsewhere") == "/elsewhere"  # the setting, then
    assert not list(tmp_path.glob(".scorer-probe*"))


def test_every_tournament_and_series_is_written_and_restores(in_app: Flask, tmp_path: Path) -> None:
    stick = tmp_path / "stick"
    stick.mkdir()
    folders.set_folder(str(stick))
    alone = tournament_with(9, deals=3, name="Herbstturnier")
    play_round(drawn(alone, 1), hands=2)
    one = tournament_with(9, deals=3, rounds_=1, name="Cup 1")
    play_round(drawn(one, 1))
    rounds.close_round(one, one.round_rows[0])
    cup = series.create_series(one)
    two = series.new_evening(cup, idempotency_key=secrets.token_hex(8))
    alone_id, cup_id = alone.id, cup.id
    db.session.remove()
    keeper = folders.Folder()
    assert keeper.round() == 2
    written = files(stick)
    assert sorted(written) == [
        folders.file_name("serie", "Cup", "", cup.view_token),
        folders.file_name("turnier", "Herbstturnier", alone.held_on, alone.view_token),
    ]
    assert not [p for p in stick.iterdir() if p.name.startswith(".")]  # no temporary left
    state = roles.state_row()
    assert state.folder_files == 2 and state.folder_written_at and not state.folder_error
    # nothing changed: nothing written
    assert keeper.round() == 0
    # a deal saved: only its tournament's file
    play_table(db.session.get(Tournament, alone_id).round_rows[0].tables[0], 1)
    db.session.remove()
    assert keeper.round() == 1
    again = files(stick)
    hall = {
        "turnier": without_time(backup.export_tournament(db.session.get(Tournament, alone_id))),
        "serie": without_time(backup.export_series(db.session.get(series.Series, cup_id))),
    }
    for name, data in again.items():
        assert without_time(data) == hall[name.split("-")[0]]
    assert len(again[next(n for n in again if n.startswith("serie"))]["series"]["evenings"]) == 2
    # each file restores on another laptop exactly
    del two
    for index, data in enumerate(again.values()):
        other = laptop(tmp_path / f"other{index}", f"other{index}", "http://127.0.0.3:5000")
        with other.test_request_context("/?lang=en"):
            result = backup.restore(json.dumps(data))
            assert not result.copy
            if result.series is not None:
                made = without_time(backup.export_series(result.series))
            else:
                assert result.tournament is not None
                made = without_time(backup.export_tournament(result.tournament))
            kind = "series" if result.series is not None else "tournament"
            assert made[kind] == without_time(data)[kind]
            db.session.remove()
        with other.app_context():
            db.engine.dispose()


def test_a_write_dying_halfway_leaves_the_file_before(
    in_app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders.set_folder(str(tmp_path))
    tournament = tournament_with(9, deals=3)
    play_round(drawn(tournament, 1), hands=1)
    tournament_id = tournament.id
    db.session.remove()
    keeper = folders.Folder()
    assert keeper.round() == 1
    (before,) = files(tmp_path).values()

    def dies(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", dies)
    entrants.register(db.session.get(Tournament, tournament_id), "Spät", "")
    db.session.remove()
    assert keeper.round() == 0
    (after,) = files(tmp_path).values()
    assert after == before  # the whole file of before, not half of the new one
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert "No space left" in roles.state_row().folder_error
    monkeypatch.setattr(os, "replace", os.rename)
    assert keeper.round() == 1  # the next round writes it
    (fixed,) = files(tmp_path).values()
    assert any(e["name"] == "Spät" for e in fixed["tournament"]["entrants"])


def test_a_laptop_that_is_not_the_hall_writes_nothing(in_app: Flask, tmp_path: Path) -> None:
    folders.set_folder(str(tmp_path))
    tournament_with(9)
    state = roles.state_row()
    state.role = roles.REPLACED
    db.session.commit()
    assert folders.Folder().round() == 0
    assert not list(tmp_path.glob("*.json"))


def test_a_folder_gone_says_so(in_app: Flask, tmp_path: Path) -> None:
    stick = tmp_path / "stick"
    stick.mkdir()
    folders.set_folder(str(stick))
    tournament_with(9)
    db.session.remove()
    stick.rmdir()  # the stick pulled out
    assert folders.Folder().round() == 0
    assert "no folder" in roles.state_row().folder_error


def test_a_tournament_s_file_is_read_in_a_few_statements(in_app: Flask) -> None:
    """Every table's match with its hands in a few statements (not one per hand), and a
    writer that keeps the exported matches reads only what changed."""
    from sqlalchemy import event

    from scorer.services.tournaments.backup_loading import Kept

    sent: list[str] = []

    def count(*args: Any) -> None:
        sent.append(str(args[2]))

    statements = []
    for players in (9, 18):
        tournament = tournament_with(players, deals=3, name=f"T{players}")
        play_round(drawn(tournament, 1))
        tournament_id = tournament.id
        db.session.remove()
        event.listen(db.engine, "before_cursor_execute", count)
        sent.clear()
        backup.export_tournament(db.session.get(Tournament, tournament_id))
        statements.append(len(sent))
        event.remove(db.engine, "before_cursor_execute", count)
        db.session.remove()
    assert statements[0] == statements[1] <= 20, statements
    kept = Kept()
    first = backup.export_tournament(db.session.get(Tournament, tournament_id), kept)
    table = db.session.get(Tournament, tournament_id).round_rows[0].tables[0]
    from scorer import services

    services.delete_hand(table.match, table.match.hands[-1])
    db.session.remove()
    again = backup.export_tournament(db.session.get(Tournament, tournament_id), kept)
    fresh = backup.export_tournament(db.session.get(Tournament, tournament_id))
    assert without_time(again) == without_time(fresh) != without_time(first)
