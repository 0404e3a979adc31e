"""No input gives a 500: random form data posted to the hand form and the setup form,
and then to every POST route of the app with a valid CSRF token, backups included.

The app is built once per test function (not per example); every example
posts to the same match, and whatever the answer, a refused hand saves nothing.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask, url_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from scorer.extensions import db
from tests.builders import (
    HX,
    csrf_token_from,
    form_data,
    fresh_app,
    hand_count,
    hand_data,
    multipart,
    service_match,
    session_token_of,
    setup_data,
    start_match,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# values a phone, a bot or a typo could send
junk = st.one_of(
    st.sampled_from(["", " ", "0", "-1", "1", "2", "7", "150", "205", "250", "260", "1e3"]),
    st.sampled_from(["H", "E", "x", "None", "null", "played", "durch", "open_play", "y", "1.5"]),
    st.integers(-(10**12), 10**12).map(str),
    st.text(max_size=12),
)


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
    with fresh_app() as app:
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
    with fresh_app() as app:
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
    with fresh_app() as app:
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
    with fresh_app() as app:
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
    with fresh_app() as app:
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


# -- every POST route, as a browser sends it: with a valid CSRF token ---------------
#
# The routes come from the app's URL map, so a new one is fuzzed (with the fields of
# ``FIELDS``) the day it is added; ``<token>`` and ``<int:...>`` get a real match's
# values, now and then a wrong one.

ROUTE_SETTINGS = settings(
    max_examples=35, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
CURRENT = "\x00current-version"  # replaced by the match's version when posted
NAMES = ["Anna", "Bert", "Carl"]


@dataclass
class World:
    """An app with CSRF on, a phone (test client with its CSRF token) and real rows."""

    app: Flask
    client: Any
    csrf: str
    matches: list[str]  # a running three-party match, a two-player one, a finished one
    session: str
    hands: dict[str, list[int]]  # per match
    entries: list[int]
    backup: dict[str, Any]
    setup: dict[str, str]  # a valid setup form (so that the fuzzed fields are what is wrong)
    # a valid form per (endpoint, match): the fuzzed fields go on top of it
    bases: dict[tuple[str, str], dict[str, str]]


@contextmanager
def world() -> Iterator[World]:
    from scorer import services
    from scorer.models import HandMeld
    from scorer.rules import PRESETS

    with fresh_app(WTF_CSRF_ENABLED=True) as app:
        running = service_match(app, NAMES, 4, target=10_000, title="Krone")
        session = session_token_of(app, running)
        finished = service_match(app, NAMES, 40, target=300, session_token=session)
        with app.app_context():
            two = services.start_match(
                names=["Anna", "Bert"],
                ruleset=PRESETS["zweier"],
                session=services.get_session(session),
            )
            services.write_meld(two, 0, "pair H", 40)
            services.write_meld(two, 1, "four A", 100)
            two_token = two.token
            hands = {
                token: [h.id for h in services.get_match(token).hands if h.status == "closed"]
                for token in (running, two_token, finished)
            }
            entries = list(db.session.execute(select(HandMeld.id)).scalars())
            data = services.export_sessions([services.get_session(session)])
            db.session.remove()
        client = app.test_client()
        page = client.get("/new").get_data(as_text=True)
        setup = form_data(page, "setup-form") | {"action": "start"}
        setup.update({f"players-{i}": name for i, name in enumerate(NAMES)})
        hand = hand_data(client, running, declarer=0, bid=180, trump="H", melds=[60],
                         tricks=[130, 60])  # fmt: skip
        hand.update(version=CURRENT, idempotency_key="")
        bases = {(e, running): hand for e in ("hands.create", "hands.update", "hands.preview")}
        bases[("melds.in_hand", running)] = hand
        bases[("two_player.write_meld", two_token)] = {"party": "1", "meld": "pair E"}
        bases[("two_player.set_trump", two_token)] = {"party": "0", "trump": "G"}
        bases[("two_player.finish", two_token)] = {"parties-0-tricks": "130"}
        yield World(
            app,
            client,
            csrf_token_from(page),
            [running, two_token, finished],
            session,
            hands,
            entries,
            json.loads(json.dumps(data)),
            setup,
            bases,
        )


def _keys(*names: str) -> st.SearchStrategy[str]:
    return st.sampled_from(names)


def _form(keys: list[str], values: st.SearchStrategy[str]) -> st.SearchStrategy[dict[str, str]]:
    return st.dictionaries(st.sampled_from(keys), values, max_size=min(len(keys), 12))


# what a hostile or broken client sends besides ``junk``: NUL, huge numbers, inf
nasty = st.one_of(
    junk,
    st.sampled_from(["\x00", "1\x00", "inf", "-inf", "nan", "1e400", "9" * 40, "-" + "9" * 30]),
    st.sampled_from(["٣", "²", "１２", "0x10", "1_000", " 150 ", "1,5", "€", "<script>"]),
)
versions = st.one_of(st.just(CURRENT), nasty)
HAND_KEYS = ["declarer", "bid", "trump", "outcome", "won", "idempotency_key"]
for _i in range(4):
    HAND_KEYS += [f"parties-{_i}-{f}" for f in ("melds", "tricks", "no_trick", "meld_names")]
HAND_KEYS += ["parties-99999999999-melds", "parties--1-tricks", "parties-x-tricks"]
CALC_KEYS = [
    f"calc{p}-{f}"
    for p in (0, 1, 2)
    for f in (
        "mode", "melds", "cards", "go", "add", "back", "upgrade", "implied", "card",
        "clear", "take", "addto", "close", "trump", "players", "preset", "declarer",
    )
]  # fmt: skip
CALC_VALUES = st.one_of(
    nasty,
    st.sampled_from(["cards", "declare", "pair H", "family E", "binokel", "four A", "1"]),
    st.sampled_from(["AH,AH,10H", "AE KE OE UE", "pair H,pair H", "diss,diss,diss"]),
)
TWO_KEYS = ["party", "meld", "trump", "points", *[f"parties-{i}-tricks" for i in range(3)]]
MELDS = st.sampled_from(["pair H", "four A", "family H", "binokel", "diss", "x", ""])
SETUP_VALUES = st.one_of(nasty, st.sampled_from(["Anna", "Bert", "Carl", "Dora", "", "y"]))


def _setup_keys() -> list[str]:
    from scorer.forms import RULE_OPTIONS

    return [*SETUP_KEYS, "idempotency_key", *(f"rule-{o.name}" for o in RULE_OPTIONS)]


# the fields of every POST route (a route missing here fails test_every_post_route_is_fuzzed)
FIELDS: dict[str, st.SearchStrategy[dict[str, str]]] = {
    "matches.new": _form(_setup_keys(), SETUP_VALUES),
    "matches.next_match": _form(["version"], versions),
    # a tournament table's confirm tap (on a match outside a tournament: 404)
    "t_table.confirm": _form(["entrant", "version"], st.one_of(nasty, versions)),
    "hands.preview": _form(HAND_KEYS, nasty),
    "hands.create": _form([*HAND_KEYS, "version"], st.one_of(nasty, versions)),
    "hands.update": _form([*HAND_KEYS, "version"], st.one_of(nasty, versions)),
    "hands.delete": _form(["version"], versions),
    "hands.restore": _form(["version"], versions),
    "two_player.write_meld": _form([*TWO_KEYS, "version"], st.one_of(nasty, MELDS, versions)),
    "two_player.set_trump": _form([*TWO_KEYS, "version"], st.one_of(nasty, MELDS, versions)),
    "two_player.remove_meld": _form(["version"], versions),
    "two_player.finish": _form([*TWO_KEYS, "version"], st.one_of(nasty, versions)),
    "melds.in_hand": _form([*HAND_KEYS, *CALC_KEYS], CALC_VALUES),
    "sessions.stake": _form(["stake", "stake_basis"], st.one_of(nasty, _keys("full", "hundreds"))),
    "sessions.import_page": st.just({}),
    # a tournament's restore: sent the same fuzzed files (test_tournament_backup.py has its own)
    "t_backup.restore": st.just({}),
}
QUERIES: dict[str, st.SearchStrategy[dict[str, str]]] = {
    "hands.preview": _form(["hand"], nasty),
    "melds.in_hand": st.fixed_dictionaries(
        {"party": st.sampled_from(["0", "0", "1", "2", "3", "-1", "x", "9" * 30])},
        optional={"hand": st.one_of(st.sampled_from(["1", "2"]), nasty)},
    ),
}


def post_rules(app: Flask) -> list[Any]:
    return [r for r in app.url_map.iter_rules() if "POST" in (r.methods or ())]


# the organiser's routes of a tournament need a world of their own (a tournament, its
# players, rounds and tables): tests/web/test_tournament_rounds.py fuzzes the rounds' and
# corrections' routes, test_tournament_money.py the money's, test_tournament_organiser.py
# and test_tournament_players.py send their forms hostile input, test_tournament_series.py
# fuzzes the series' routes; tests/web/test_online.py sends the hosted copy's routes and the
# hall's link to it forged, replayed, stale and junk pushes (hypothesis) and wrong lines;
# tests/web/test_stammtisch_fuzz.py fuzzes every route of the Stammtisch ("st_");
# tests/web/test_phone_witness.py sends the phones' resends and reports, and the organiser's
# answers to them, forged, oversized, malformed and for another table;
# tests/web/test_spare_fuzz.py sends the laptop's own pages of the spare and the backup
# folder ("hall.") hostile forms, tests/web/test_spare_pushes.py what laptops send each other
ORGANISER_ROUTES = (
    "hall.",
    "st_",
    "t_phones.",
    "t_phone_reports.",
    "online.",
    "t_online.",
    "t_organiser.",
    "t_players.",
    "t_rounds.",
    "t_corrections.",
    "t_money.",
    "t_series.",
)


def test_every_post_route_is_fuzzed() -> None:
    with fresh_app() as app:
        endpoints = {r.endpoint for r in post_rules(app)}
        assert {e for e in endpoints if not e.startswith(ORGANISER_ROUTES)} == set(FIELDS)


def _url(w: World, rule: Any, draw: Any) -> tuple[str, str | None]:
    """A URL of ``rule`` with real values (now and then a wrong one); the match's token."""
    values: dict[str, Any] = {}
    match: str | None = None
    for name in rule.arguments:
        if name == "token" and rule.rule.startswith("/s/"):
            values[name] = draw(st.sampled_from([w.session] * 5 + ["x" * 22]))
        elif name == "token":
            # mostly the match the route is for (a two-player route: the two-player match)
            fits = [m for m in w.matches if (rule.endpoint, m) in w.bases]
            match = draw(st.sampled_from(fits * 6 + w.matches if fits else w.matches))
            values[name] = match
        else:
            real = w.entries if name == "entry_id" else w.hands.get(match or "", [])
            every = [i for ids in w.hands.values() for i in ids]
            huge = st.sampled_from([0, 2**31, 2**63, 2**64, 10**30])
            wrong = st.one_of(st.integers(0, 2**70), huge, st.sampled_from(every))
            mine = st.sampled_from(real) if real else wrong
            values[name] = draw(st.one_of(mine, mine, mine, wrong))
    with w.app.test_request_context():
        return url_for(rule.endpoint, **values), match


def _version(w: World, token: str | None) -> str:
    from scorer import services

    if token is None:
        return "1"
    with w.app.app_context():
        version = str(services.get_match(token).version)
        db.session.remove()
    return version


def _post_one(w: World, endpoint: str, data: st.DataObject) -> None:
    rule = next(r for r in post_rules(w.app) if r.endpoint == endpoint)
    path, match = _url(w, rule, data.draw)
    fields = data.draw(FIELDS[endpoint])
    query = data.draw(QUERIES.get(endpoint, st.just({})))
    htmx = data.draw(st.booleans())
    fields = {"version": CURRENT, **w.bases.get((endpoint, match or ""), {}), **fields}
    if endpoint == "matches.new":
        fields = {**w.setup, **fields}
    form: dict[str, Any] = {k: v for k, v in fields.items() if v != CURRENT}
    if CURRENT in fields.values():
        version = _version(w, match)
        form.update({k: version for k, v in fields.items() if v == CURRENT})
    if endpoint in ("sessions.import_page", "t_backup.restore"):
        form["file"] = (data.draw(backup_files(w.backup)), "backup.json")
    form["csrf_token"] = w.csrf
    response = w.client.post(
        path, query_string=query, headers=HX if htmx else {}, **multipart(form)
    )
    assert response.status_code < 500, (path, query, fields)
    assert response.status_code != 400 or endpoint not in ("hands.create", "matches.new"), (
        "the CSRF token was refused",
        response.get_data(as_text=True)[:500],
    )
    if match is not None:
        assert w.client.get(f"/m/{match}").status_code == 200, (path, fields)


@pytest.mark.parametrize("endpoint", sorted(FIELDS))
def test_random_posts_to_every_route_never_fail(endpoint: str) -> None:
    with world() as w:

        @ROUTE_SETTINGS
        @given(st.data())
        def check(data: st.DataObject) -> None:
            _post_one(w, endpoint, data)

        check()


# -- backups turned bad --------------------------------------------------------------

BAD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["NaN", "Infinity", "-1", "", "\x00", "a\x00b", "9" * 400, "2026-13-45"]),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    # deeper nesting comes as raw text (json.dumps would hit the recursion limit here)
    st.integers(1, 300).map(lambda depth: _nested(depth)),
)


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


@st.composite
def mutated(draw: Any, original: dict[str, Any]) -> Any:
    """``original`` with a few values replaced, deleted or added somewhere inside."""
    data = copy.deepcopy(original)
    for _ in range(draw(st.integers(1, 4))):
        node: Any = data
        path: list[Any] = []
        while isinstance(node, dict | list) and node and draw(st.integers(0, 4)):
            key = draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
            path.append(key)
            node = node[key]
        if not path:
            continue
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "delete":
            del parent[path[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = draw(BAD_VALUES)
        else:
            parent[path[-1]] = draw(BAD_VALUES)
    return data


def backup_files(original: dict[str, Any]) -> st.SearchStrategy[bytes]:
    def dump(value: Any) -> bytes:
        # Python writes NaN and Infinity (not JSON, but json.loads reads them back)
        return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")

    raw = st.one_of(
        st.binary(max_size=40),
        st.sampled_from([b"", b"{", b"null", b"[]", b'{"format": "scorer-backup"}', b"\xff\xfe"]),
        st.integers(1, 100_000).map(lambda n: b"[" * n + b"]" * n),
        st.integers(1, 100_000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
    )
    return st.one_of(mutated(original).map(dump), mutated(original).map(dump), raw)


# -- the hostile values of issue 20, every field, every POST route --------------------
#
# Deterministic, beside the random posts above: every POST route of the URL map (a new
# one too, without editing this test) gets each hostile value in every field name any
# form of the app has, and two bodies that are not forms.  Never a 5xx; nothing changes.

HOSTILE = ["9" * 309, "-" + "9" * 309, "1e309", "-inf", "nan", "9" * 40, "\x00", "٣"]
NOT_FORMS = ['{"bid": 1e309, "version": 1}', "[1, 2, 3]", '{"parties-0-melds": -1e309}']


def _every_field() -> list[str]:
    return sorted({*_setup_keys(), *HAND_KEYS, *TWO_KEYS, *CALC_KEYS, "stake", "version"})


def _plain_url(w: World, rule: Any) -> tuple[str, str | None]:
    """A URL of ``rule`` with real values: the match the route is for, its first hand."""
    values: dict[str, Any] = {}
    match: str | None = None
    for name in rule.arguments:
        if name == "token" and rule.rule.startswith("/s/"):
            values[name] = w.session
        elif name == "token":
            fits = [m for m in w.matches if (rule.endpoint, m) in w.bases]
            match = (fits or w.matches)[0]
            values[name] = match
        else:
            real = w.entries if name == "entry_id" else w.hands.get(match or "", [])
            values[name] = (real or [1])[0]
    with w.app.test_request_context():
        return url_for(rule.endpoint, **values), match


def _rows(w: World) -> tuple[Any, ...]:
    from scorer.models import GameSession, Hand, HandMeld, Match

    with w.app.app_context():
        counts = tuple(
            db.session.execute(select(db.func.count()).select_from(model)).scalar_one()
            for model in (GameSession, Match, Hand, HandMeld)
        )
        versions = tuple(db.session.execute(select(Match.version).order_by(Match.id)).scalars())
        db.session.remove()
    return (*counts, versions)


@pytest.mark.parametrize("value", HOSTILE, ids=["309", "-309", "1e309", "-inf", "nan", "40",
                                                "nul", "arabic"])  # fmt: skip
def test_hostile_values_in_every_field_of_every_route(value: str) -> None:
    with world() as w:
        before = _rows(w)
        for rule in post_rules(w.app):
            path, _match = _plain_url(w, rule)
            form = dict.fromkeys(_every_field(), value) | {"csrf_token": w.csrf}
            for htmx in (False, True):
                response = w.client.post(path, data=form, headers=HX if htmx else {})
                assert response.status_code < 500, (rule.endpoint, value)
                assert "The form has expired" not in response.get_data(as_text=True), (
                    "the CSRF token was refused",
                    rule.endpoint,
                )
        assert _rows(w) == before


@pytest.mark.parametrize("body", NOT_FORMS)
def test_bodies_that_are_not_forms_are_refused_on_every_route(body: str) -> None:
    with world() as w:
        before = _rows(w)
        for rule in post_rules(w.app):
            path, _match = _plain_url(w, rule)
            response = w.client.post(
                path, data=body, content_type="application/json", headers={"X-CSRFToken": w.csrf}
            )
            assert response.status_code == 415, (rule.endpoint, response.status_code)
        assert _rows(w) == before


def test_a_huge_number_is_refused_in_the_users_language(client: Any) -> None:
    token = start_match(client, NAMES)
    data = hand_data(client, token, declarer=0, bid=180, trump="H", melds=[60], tricks=[130])
    data["bid"] = "9" * 309
    response = client.post(f"/m/{token}/hands", data=data, headers={"Accept-Language": "de"})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "ist kein Reizwert: Reizwerte gehen von 150 bis 10000." in page
    assert "9" * 309 in page  # what was typed stays in the field
    assert hand_count(client.application, token) == 0
