"""The laptop's own pages of the spare and the backup folder, sent hostile forms.

The hall's page (``/hall/code``, ``/hall/unpair``, ``/hall/folder``) and the spare's
(``/spare/follow``, ``/spare/takeover``) take any text — NUL bytes, lone surrogates,
megabytes, paths that are files or do not exist — and answer with a page that says why
(422) or a refusal (400, 409), never a 500; a refused form leaves the laptop's state as
it was.  What laptops send each other (``/hall/pair``, ``/spare/hello``, ``/spare/push``)
is fuzzed in test_spare_pushes.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.extensions import db
from scorer.services.spare import role as roles
from tests.spare_builders import HALL_ADDRESS, laptop

WEIRD = st.one_of(
    st.text(max_size=400),
    st.sampled_from(
        ["\x00", "/tmp/\x00x", "\ud800", "9" * 5000, "../../etc", "/dev/null", " ", "/", "#"]
    ),
)


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    app = laptop(tmp_path_factory.mktemp("fuzz") / "hall", "fuzz", HALL_ADDRESS)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def _state(app: Flask) -> tuple[object, ...]:
    with app.app_context():
        row = roles.state_row()
        found = (row.role, row.folder, row.generation)
        db.session.remove()
    return found


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(folder=WEIRD)
def test_a_hostile_folder_is_refused_in_words(hall: Flask, folder: str) -> None:
    before = _state(hall)
    try:
        answer = hall.test_client().post("/hall/folder", data={"folder": folder})
    except UnicodeEncodeError:  # a lone surrogate cannot even be sent as a form
        return
    assert answer.status_code in (303, 400, 413, 422), answer.status_code
    if answer.status_code != 303:
        assert _state(hall) == before
    if answer.status_code == 422:
        assert 'name="folder"' in answer.get_data(as_text=True)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(line=WEIRD, sure=WEIRD)
def test_a_hostile_pairing_line_or_takeover_changes_nothing(
    hall: Flask, line: str, sure: str
) -> None:
    before = _state(hall)
    client = hall.test_client()
    try:
        follow = client.post("/spare/follow", data={"line": line})
        code = client.post("/hall/code", data={"sure": sure})
        unpair = client.post("/hall/unpair", data={"sure": sure})
    except UnicodeEncodeError:
        return
    assert follow.status_code in (400, 413, 422), follow.status_code  # no hall answers here
    assert code.status_code in (303, 400, 413) and unpair.status_code in (303, 400, 413)
    assert _state(hall)[0] == before[0]  # still the hall


def test_the_folder_form_keeps_what_was_typed(hall: Flask, tmp_path: Path) -> None:
    typed = str(tmp_path / "no-such-stick")
    answer = hall.test_client().post("/hall/folder", data={"folder": typed})
    assert answer.status_code == 422
    assert f'value="{typed}"' in answer.get_data(as_text=True)
