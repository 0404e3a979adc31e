"""No input gives a 500: random form data posted to the hand form and the setup form.

The app is built once per test function (not per example); every example
posts to the same match, and whatever the answer, a refused hand saves nothing.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.extensions import db
from tests.builders import HX, hand_count, hand_data, make_app, setup_data, start_match

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# values a phone, a bot or a typo could send
junk = st.one_of(
    st.sampled_from(["", " ", "0", "-1", "1", "2", "7", "150", "205", "250", "260", "1e3"]),
    st.sampled_from(["H", "E", "x", "None", "null", "played", "durch", "open_play", "y", "1.5"]),
    st.integers(-(10**12), 10**12).map(str),
    st.text(max_size=12),
)


@contextmanager
def built_app() -> Iterator[Flask]:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp))
        try:
            yield app
        finally:
            with app.app_context():
                db.session.remove()
                db.engine.dispose()


def hand_fields(parties: int) -> st.SearchStrategy[dict[str, str]]:
    keys = ["declarer", "bid", "trump", "outcome", "won", "version", "idempotency_key"]
    for i in range(parties + 1):
        keys += [f"parties-{i}-melds", f"parties-{i}-tricks", f"parties-{i}-no_trick"]
        keys += [f"parties-{i}-meld_names"]
    keys += ["parties-99999999999-melds", "parties-x-tricks"]
    return st.dictionaries(st.sampled_from(keys), junk, max_size=len(keys))


def _check_hand_post(
    app: Flask, client: Any, token: str, base: dict[str, str], data: Any, how: tuple[str, bool]
) -> None:
    posted = {**base, **data}
    path, htmx = how
    before = hand_count(app, token)
    response = client.post(f"/m/{token}/hands{path}", data=posted, headers=HX if htmx else {})
    assert response.status_code < 500, (path, posted)
    if response.status_code >= 400:
        assert hand_count(app, token) == before, posted


# where a hand form goes: the live preview or the save, by htmx or by a plain POST
HOW = st.tuples(st.sampled_from(["/preview", ""]), st.booleans())


def test_random_hand_forms_never_fail() -> None:
    with built_app() as app:
        client = app.test_client()
        token = start_match(client, ["Anna", "Bert", "Carl"], target=10_000)
        # a valid hand without version and key: whatever is not overridden gets saved
        base = hand_data(client, token, declarer=0, bid=180, trump="H", melds=[60], tricks=[130])
        base.update(version="", idempotency_key="")

        @SETTINGS
        @given(hand_fields(3), HOW)
        def check(data: dict[str, str], how: tuple[str, bool]) -> None:
            _check_hand_post(app, client, token, base, data, how)

        check()


def test_random_hand_forms_at_a_dealer_sits_out_table_never_fail() -> None:
    with built_app() as app:
        client = app.test_client()
        token = start_match(client, ["Anna", "Bert", "Carl", "Dora"], "vier_mit_aussetzer")
        base = hand_data(client, token, declarer=1, bid=180, trump="H", tricks=[0, 130, 60])
        base.update(version="", idempotency_key="")

        @SETTINGS
        @given(hand_fields(4), HOW)
        def check(data: dict[str, str], how: tuple[str, bool]) -> None:
            _check_hand_post(app, client, token, base, data, how)

        check()


def test_random_corrections_never_fail() -> None:
    with built_app() as app:
        client = app.test_client()
        token = start_match(client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel")
        data = hand_data(client, token, declarer=0, bid=180, trump="H", melds=[60], tricks=[130])
        client.post(f"/m/{token}/hands", data=data)
        assert hand_count(app, token) == 1

        @SETTINGS
        @given(hand_fields(2), st.sampled_from(["/1", "/preview?hand=1"]))
        def check(fields: dict[str, str], path: str) -> None:
            response = client.post(f"/m/{token}/hands{path}", data=fields, headers=HX)
            assert response.status_code < 500, (path, fields)
            assert hand_count(app, token) == 1

        check()


SETUP_KEYS = [
    "title",
    "preset",
    "teams",
    "first_dealer",
    "stake",
    "stake_basis",
    "action",
    *[f"players-{i}" for i in range(10)],
    *[f"team_of-{i}" for i in range(8)],
    "rule-sevens",
    "rule-min_bid",
    "rule-bid_step",
    "rule-target",
    "rule-deals",
    "rule-end",
    "rule-dealer_sits_out",
    "rule-going_off_bonus",
    "rule-failed_bonus",
    "rule-special_tally",
    "rule-durch",
    "rule-last_trick",
    "rule-family",
    "rule-double_family",
]


def test_random_setup_forms_never_fail() -> None:
    with built_app() as app:
        client = app.test_client()
        bases = [
            setup_data(client, ["Anna", "Bert", "Carl"]),
            setup_data(client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel"),
            setup_data(client, ["Anna", "Bert"], "schweizer"),
        ]
        names = st.sampled_from(["Anna", "Bert", "Carl", "Dora", "Emil", "Fritz", "", " "])
        values = st.one_of(junk, names)

        @SETTINGS
        @given(
            st.dictionaries(st.sampled_from(SETUP_KEYS), values, max_size=20),
            st.sampled_from(
                [
                    "standard",
                    "kreuzbinokel",
                    "sechser",
                    "vier_mit_aussetzer",
                    "zweier",
                    "schweizer",
                    "turnier",
                    "nope",
                ]
            ),
            st.booleans(),
            st.integers(0, 2),
        )
        def check(data: dict[str, str], preset: str, htmx: bool, base: int) -> None:
            posted = {**bases[base], "preset": preset, **data}
            response = client.post("/new", data=posted, headers=HX if htmx else {})
            assert response.status_code < 500, posted
            target = response.headers.get("HX-Redirect") or response.headers.get("Location")
            if target:
                # a match that could be started can be played: its pages work
                assert client.get(target).status_code == 200, posted
                assert client.get(target + "/rules").status_code == 200, posted

        check()


def test_random_two_player_forms_never_fail() -> None:
    with built_app() as app:
        client = app.test_client()
        token = start_match(client, ["Anna", "Bert"], "schweizer", target=10_000)
        keys = ["party", "meld", "trump", "points", "version"]
        keys += [f"parties-{i}-tricks" for i in range(3)]
        melds = st.sampled_from(["pair H", "four A", "family H", "gross_binokel", "diss", "x"])

        @SETTINGS
        @given(
            st.dictionaries(st.sampled_from(keys), st.one_of(junk, melds), max_size=len(keys)),
            st.sampled_from(["/melds", "/finish"]),
            st.booleans(),
        )
        def check(data: dict[str, str], path: str, htmx: bool) -> None:
            response = client.post(f"/m/{token}{path}", data=data, headers=HX if htmx else {})
            assert response.status_code < 500, (path, data)
            assert client.get(f"/m/{token}").status_code == 200

        check()
