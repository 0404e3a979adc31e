"""Backups across releases: a file of this release restores on the release before.

A backup records the release that wrote it and writes each ruleset as its
preset and what differs (``Ruleset.to_dict(compact=True)``): a house rule added
later keeps the old play at its default and is left out while it is, so a file
that does not use it reads the same on an earlier release.  A file of a later
release that uses a house rule this one lacks is refused, naming the release to
install.

The release before is taken from git (the commit that landed before this one's
change, unpacked with ``git archive``) and run with this environment's packages.
Without that commit in the clone (a shallow one), those tests are skipped.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer import services
from scorer.extensions import db
from scorer.resources import RELEASE
from scorer.services.tournaments import backup as tournament_backups
from tests.builders import HX, page_text, service_match
from tests.tournament_builders import drawn, play_round, tournament_with

ROOT = Path(__file__).resolve().parents[2]
PREVIOUS = "d979cfd74a53b9867524be6dbe3b1e90e014aa56"
"""The last commit of release 0.1.0 (before backups recorded their release)."""


@pytest.fixture(scope="module")
def previous(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The release before, unpacked from git."""
    known = subprocess.run(
        ["git", "cat-file", "-e", f"{PREVIOUS}^{{commit}}"], cwd=ROOT, capture_output=True
    )
    if known.returncode != 0:
        pytest.skip("the release before is not in this clone (a shallow clone)")
    folder = tmp_path_factory.mktemp("previous")
    archive = subprocess.run(
        ["git", "archive", "--format=tar", PREVIOUS], cwd=ROOT, capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    yield folder


RESTORE = textwrap.dedent(
    """
    import json, sys
    from scorer import create_app, services
    from scorer.extensions import db
    from scorer.services.tournaments import backup
    kind, path, database = sys.argv[1:4]
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database})
    with app.app_context():
        db.create_all()
    with app.test_request_context("/"):
        raw = open(path, "rb").read()
        if kind == "sessions":
            rows = services.import_backup(raw)
            print(json.dumps({"sessions": len(rows), "hands": sum(
                len(m.hands) for r in rows for m in r.matches)}))
        else:
            result = backup.restore(raw)
            if result.series is not None:
                print(json.dumps({"series": result.series.name,
                                  "evenings": len(result.series.tournaments)}))
            else:
                print(json.dumps({"tournament": result.tournament.name}))
    """
)

EXPORT = textwrap.dedent(
    """
    import json, sys
    from scorer import create_app
    from scorer.extensions import db
    from scorer.services.tournaments import backup, rounds, series
    from tests.tournament_builders import drawn, play_round, tournament_with
    database = sys.argv[1]
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database})
    with app.app_context():
        db.create_all()
    with app.test_request_context("/"):
        alone = tournament_with(9, deals=3, name="Alt")
        play_round(drawn(alone, 1), hands=2)
        one = tournament_with(9, deals=3, rounds_=1, name="Cup")
        play_round(drawn(one, 1))
        rounds.close_round(one, one.round_rows[0])
        cup = series.create_series(one)
        print(json.dumps({"tournament": backup.export_tournament(alone),
                          "series": backup.export_series(cup)}))
    """
)


def on_previous(previous: Path, script: str, *args: str) -> Any:
    """Run ``script`` with the release before; the JSON of its last line."""
    env = {**os.environ, "PYTHONPATH": str(previous)}
    env.pop("TEST_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=previous,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def restore_on(previous: Path, tmp_path: Path, kind: str, data: dict[str, object]) -> dict:
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(data))
    found: dict = on_previous(
        previous, RESTORE, kind, str(path), f"sqlite:///{tmp_path / 'old.sqlite'}"
    )
    return found


def test_a_session_backup_of_this_release_restores_on_the_one_before(
    app: Flask, previous: Path, tmp_path: Path
) -> None:
    token = service_match(app, ["Anna", "Berta", "Carl"], 6)
    with app.app_context():
        data = services.export_sessions([services.get_match(token).session])
    assert data["release"] == RELEASE
    assert restore_on(previous, tmp_path, "sessions", data) == {"sessions": 1, "hands": 6}


def test_a_tournament_backup_of_this_release_restores_on_the_one_before(
    app: Flask, previous: Path, tmp_path: Path
) -> None:
    with app.app_context():
        tournament = tournament_with(10, deals=3)
        play_round(drawn(tournament), hands=2)
        data = tournament_backups.export_tournament(tournament)
        db.session.remove()
    assert restore_on(previous, tmp_path, "tournament", data) == {"tournament": "Herbstturnier"}


def later_file(app: Flask, **rules: object) -> dict:
    """This release's backup as a later release would write it, with ``rules`` added."""
    token = service_match(app, ["Anna", "Berta", "Carl"], 3)
    with app.app_context():
        data = services.export_sessions([services.get_match(token).session])
        db.session.remove()
    data["release"] = "9.1.0"
    data["sessions"][0]["matches"][0]["ruleset"].update(rules)
    return data


def test_a_later_release_file_using_a_house_rule_unknown_here_names_the_release(
    app: Flask, client: FlaskClient
) -> None:
    data = later_file(app, bock_rounds=2)
    body = {"file": (io.BytesIO(json.dumps(data).encode()), "later.json")}
    response = client.post("/import?lang=en", data=body, content_type="multipart/form-data")
    assert response.status_code == 422
    text = page_text(response)
    assert "written by scorer 9.1.0" in text and "bock_rounds" in text
    assert "install scorer 9.1.0 or newer" in text


def test_a_later_release_file_that_uses_nothing_new_restores_here(
    app: Flask, client: FlaskClient
) -> None:
    data = later_file(app)
    body = {"file": (io.BytesIO(json.dumps(data).encode()), "later.json")}
    response = client.post("/import", data=body, content_type="multipart/form-data", headers=HX)
    assert response.status_code in (200, 302, 303), page_text(response)[:500]


def test_an_evening_s_backup_of_this_release_restores_on_the_one_before(
    app: Flask, previous: Path, tmp_path: Path
) -> None:
    """An evening's file is its series' (and carries its online connection): the release
    before restores it as the series it reads."""
    from scorer.services.online import hall
    from scorer.services.tournaments import rounds, series

    with app.app_context():
        one = tournament_with(9, deals=3, rounds_=1, name="Cup")
        play_round(drawn(one, 1))
        rounds.close_round(one, one.round_rows[0])
        cup = series.create_series(one)
        hall.link(one, "https://results.example.org/online/7#" + "ab" * 32)
        data = tournament_backups.export_tournament(one)
        db.session.remove()
    assert data["format"] == "scorer-series" and data["evening"] == 1
    assert data["series"]["evenings"][0]["online"]["key"] == "ab" * 32
    assert cup is not None
    assert restore_on(previous, tmp_path, "series", data) == {"series": "Cup", "evenings": 1}


def test_backups_of_the_release_before_restore_here(
    client: FlaskClient, previous: Path, tmp_path: Path
) -> None:
    """Files the release before wrote (no online connection, no evening named) restore here,
    and the restore says what it restored."""
    files = on_previous(previous, EXPORT, f"sqlite:///{tmp_path / 'before.sqlite'}")
    client.get("/?lang=en")
    for kind, data in files.items():
        assert "online" not in json.dumps(data)
        body = {"file": (io.BytesIO(json.dumps(data).encode()), f"{kind}.json")}
        answer = client.post("/t/restore", data=body, content_type="multipart/form-data")
        assert answer.status_code == 303, page_text(answer)[:1000]
        text = page_text(client.get(answer.headers["Location"]))
        assert "Restored: the state of the file" in text
        assert ("6 deals" in text) if kind == "tournament" else ("9 deals" in text)
