"""A null where every release writes a value is a malformed field: the match backup's import
and the tournament's restore refuse it, naming the place, and change nothing.

No release writes null for a hand's history (its bid, outcome, melds, stars), for an
``updated_at`` or for ``ended_mid_hand``: those columns were never empty.  A key an
older release did not write is still read with its default; a null is not.  Uploaded
through the pages' own forms (``/import``, ``/t/restore``).
"""

from __future__ import annotations

import copy
import io
import json
import re
from html import unescape
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.models import GameSession, Hand, HandEvent, Match
from scorer.tournament_models import Tournament
from tests.builders import page_text
from tests.web.test_backup import build_session
from tests.web.test_backup import upload as import_file
from tests.web.test_tournament_backup import evening, tokens

H = "sessions.0.matches.0.hands"


def at(data: dict[str, Any], path: str) -> tuple[Any, str | int]:
    """The container of ``path`` in ``data`` and its last key."""
    target: Any = data
    keys = path.split(".")
    for key in keys[:-1]:
        target = target[int(key)] if key.isdigit() else target[key]
    last = keys[-1]
    return target, int(last) if last.isdigit() else last


def changed(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    target, key = at(out, path)
    if value is KeyError:
        del target[key]
    else:
        target[key] = value
    return out


def rows(app: Flask) -> tuple[int, ...]:
    with app.app_context():
        return tuple(
            int(db.session.execute(select(func.count()).select_from(model)).scalar_one())
            for model in (GameSession, Match, Hand, HandEvent, Tournament)
        )


@pytest.fixture
def session_file(app: Flask, client: FlaskClient) -> dict[str, Any]:
    session = build_session(app)
    data: dict[str, Any] = json.loads(client.get(f"/s/{session}/backup.json").get_data())
    return data


@pytest.mark.parametrize(
    ("path", "field"),
    [
        (f"{H}.0.updated_at", "updated_at"),
        ("sessions.0.matches.0.updated_at", "updated_at"),
        ("sessions.0.updated_at", "updated_at"),
        (f"{H}.0.ended_mid_hand", "ended_mid_hand"),
        (f"{H}.0.events.0.snapshot.bid", "bid"),
        (f"{H}.0.events.0.snapshot.outcome", "outcome"),
        (f"{H}.0.events.0.snapshot.parties.0.melds", "melds"),
        (f"{H}.0.events.0.snapshot.parties.0.stars", "stars"),
        (f"{H}.0.events.0.snapshot.parties.0.points", "points"),
        (f"{H}.0.events.0.snapshot.parties", "parties"),
        (f"{H}.0.events.0.snapshot", "expected an object"),
        (f"{H}.0.events.0", "expected an object"),
        (f"{H}.0.events", "events"),
    ],
)
def test_a_null_in_a_match_backup_is_refused_and_nothing_is_imported(
    app: Flask, client: FlaskClient, session_file: dict[str, Any], path: str, field: str
) -> None:
    before = rows(app)
    response = import_file(client, json.dumps(changed(session_file, path, None)))
    assert response.status_code == 422
    text = page_text(response)
    assert "Nothing was imported" in text and field in text, text[:1500]
    assert rows(app) == before
    german = page_text(
        import_file(client, json.dumps(changed(session_file, path, None)), lang="de")
    )
    assert "Nichts eingelesen: Sitzung 1" in german  # the place, in the user's language


@pytest.mark.parametrize(
    "path",
    [
        f"{H}.0.updated_at",
        "sessions.0.matches.0.updated_at",
        f"{H}.0.ended_mid_hand",
        f"{H}.0.events.0.snapshot.bid",
        f"{H}.0.events.0.snapshot.parties.0.stars",
    ],
)
def test_a_key_an_older_release_did_not_write_is_still_read(
    app: Flask, client: FlaskClient, session_file: dict[str, Any], path: str
) -> None:
    before = rows(app)
    response = import_file(client, json.dumps(changed(session_file, path, KeyError)))
    assert response.status_code in (302, 303), page_text(response)[:1500]
    assert rows(app)[0] == before[0] + 1


# -- the tournament's restore ------------------------------------------------------------

TABLE = "tournament.rounds.0.tables.0"


@pytest.fixture
def tournament_file(app: Flask, client: FlaskClient) -> dict[str, Any]:
    evening(app, close=False)
    token, _ = tokens(app)
    data: dict[str, Any] = json.loads(client.get(f"/t/{token}/backup.json").get_data())
    return data


def restore(client: FlaskClient, data: dict[str, Any], lang: str = "en") -> Any:
    return client.post(
        f"/t/restore?lang={lang}",
        data={"file": (io.BytesIO(json.dumps(data).encode()), "turnier.json")},
        content_type="multipart/form-data",
    )


@pytest.mark.parametrize(
    ("path", "field"),
    [
        (f"{TABLE}.match.hands.0.updated_at", "updated_at"),
        (f"{TABLE}.match.hands.0.events.0.snapshot.bid", "bid"),
        (f"{TABLE}.match.hands.0.events.0.snapshot.parties.1.melds", "melds"),
        (f"{TABLE}.match.updated_at", "updated_at"),
        ("tournament.updated_at", "updated_at"),
    ],
)
def test_a_null_in_a_tournament_backup_is_refused_and_nothing_is_restored(
    app: Flask, client: FlaskClient, tournament_file: dict[str, Any], path: str, field: str
) -> None:
    before = rows(app)
    response = restore(client, changed(tournament_file, path, None))
    assert response.status_code == 422
    found = re.search(r'id="restore-error">([^<]*)<', response.get_data(as_text=True))
    assert found is not None
    said = unescape(found[1])
    assert said.startswith("Nothing was restored") and field in said, said
    assert rows(app) == before
    german = restore(client, changed(tournament_file, path, None), "de")
    assert german.status_code == 422
    assert "Nichts wurde wiederhergestellt" in page_text(german)
