"""Findings of an outside attack: each test is one finding, on SQLite and on PostgreSQL.

Redirects stay on the site; malformed tokens and ids are simply not found; text
that a database cannot store is refused with a message; no input gives a 500; the
cached match page is keyed by the host it shows; names are offered only to the
device that typed them; private pages are not kept by caches.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event, func, insert, select
from sqlalchemy.orm import Session

from scorer import create_app
from scorer.extensions import db
from scorer.models import GameSession, Hand, HandMeld, Match
from tests.builders import (
    HX,
    enter_hand,
    form_data,
    fresh_app,
    hand_data,
    hand_ids,
    page_text,
    setup_data,
    start_match,
)

NAMES = ["Anna", "Berta", "Carl"]
HAND = {"declarer": 0, "bid": 300, "trump": "H", "melds": [100, 40, 20], "tricks": [180, 60, None]}


def _count(app: Flask, model: type) -> int:
    with app.app_context():
        return int(db.session.execute(select(func.count()).select_from(model)).scalar_one())


def _view_token(app: Flask, token: str) -> str:
    with app.app_context():
        return str(
            db.session.execute(select(Match.view_token).where(Match.token == token)).scalar()
        )


# -- 2. the language switch redirects only within the site ------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "/%09/evil.example",
        "/%0A",
        "/%0D%0A/evil.example",
        "/%00",
        "//evil.example",
        "/\\evil.example",
        "/%5Cevil.example",
        "\\\\evil.example",
        "https://evil.example/",
        "https:evil.example",
        "javascript:alert(1)",
        "evil.example",
    ],
)
def test_language_switch_never_leaves_the_site(client: FlaskClient, target: str) -> None:
    response = client.get(f"/language/en?next={target}")
    assert response.status_code == 302
    assert response.headers["Location"] == "/"
    assert response.headers["Set-Cookie"].startswith("lang=en")


def test_language_switch_goes_back_to_the_page(client: FlaskClient) -> None:
    response = client.get("/language/de?next=/m/abc/hands/3%3Flang%3Den%26x%3D1")
    assert response.status_code == 302
    location = urlsplit(response.headers["Location"])
    assert (location.scheme, location.netloc) == ("", "")
    assert location.path == "/m/abc/hands/3" and location.query == "lang=en&x=1"


# -- 4. unstorable characters: tokens not found, text fields refused ------------------------


def test_malformed_tokens_are_not_found(app: Flask, client: FlaskClient) -> None:
    start_match(client, NAMES)
    bad = ["%00", "a%00b", "x" * 65, "%C3%A4", "a.b"]
    checked = 0
    for rule in app.url_map.iter_rules():
        names = {"token", "view_token"} & set(rule.arguments)
        if not names:
            continue
        for value in bad:
            path = rule.rule
            for name in names:
                path = re.sub(rf"<(?:[^:<>]+:)?{name}>", value, path)
            path = re.sub(r"<(?:[^:<>]+:)?[^<>]+>", "1", path)
            method = "POST" if "POST" in (rule.methods or ()) else "GET"
            response = client.open(path, method=method, data={"version": "1"})
            assert response.status_code == 404, (method, path)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("query", ["%00", "a%00", "%01", "%7F", "%ED%A0%80"])
def test_player_search_with_unstorable_characters(client: FlaskClient, query: str) -> None:
    start_match(client, NAMES)
    response = client.get(f"/players?q={query}", headers=HX)
    assert response.status_code == 200
    assert "Anna" not in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "field",
    ["players-0", "players-2", "title", "stake"],
)
@pytest.mark.parametrize("bad", ["An\x00na", "An\x01na", "Anna\x1b[31m", "An\x7fna", "An\tna"])
def test_text_fields_refuse_unstorable_characters(
    app: Flask, client: FlaskClient, field: str, bad: str
) -> None:
    data = setup_data(client, NAMES, stake="0,10", title="Kegelabend")
    data[field] = bad
    response = client.post("/new?lang=en", data=data)
    assert response.status_code == 422
    assert "control characters" in page_text(response)
    assert _count(app, Match) == 0


def test_stake_page_refuses_unstorable_characters(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    with app.app_context():
        session_token = db.session.execute(select(GameSession.token)).scalar_one()
    response = client.post(
        f"/s/{session_token}/stake?lang=en", data={"stake": "0,1\x00", "stake_basis": "full"}
    )
    assert response.status_code == 422
    assert "control characters" in page_text(response)
    assert token


@pytest.mark.parametrize("key", ["k\x00y", "\x00", "a b", "k" * 65, "ä"])
def test_a_malformed_idempotency_key_is_no_key(app: Flask, client: FlaskClient, key: str) -> None:
    token = start_match(client, NAMES)
    for _ in range(2):
        data = hand_data(client, token, **HAND)
        data["idempotency_key"] = key
        assert client.post(f"/m/{token}/hands", data=data).status_code == 303
    with app.app_context():
        keys = db.session.execute(select(Hand.idempotency_key)).scalars().all()
    assert keys == [None, None]


def test_meld_names_with_unstorable_characters_are_dropped(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    data = hand_data(client, token, **HAND)
    data["parties-0-meld_names"] = "pair H,fo\x00ur A, binokel\x01"
    assert client.post(f"/m/{token}/hands", data=data).status_code == 303
    (hand,) = hand_ids(client, token)
    assert client.get(f"/m/{token}/hands/{hand}").status_code == 200
    with app.app_context():
        row = db.session.execute(select(Hand).where(Hand.seq == hand)).scalar_one()
        stored = row.parties[0].meld_names
    assert stored == ["pair H"]


# -- 7. other 500s --------------------------------------------------------------------------

HUGE_IDS = ["2147483648", "9223372036854775808", "9" * 400]


@pytest.mark.parametrize("hand_id", HUGE_IDS)
def test_ids_beyond_the_database_range_are_not_found(client: FlaskClient, hand_id: str) -> None:
    token = start_match(client, NAMES)
    enter_hand(client, token, **HAND)
    two = start_match(client, ["Anna", "Bert"], "schweizer")
    form = hand_data(client, token, **HAND)
    requests = [
        ("GET", f"/m/{token}/hands/{hand_id}", {}),
        ("GET", f"/m/{token}/hands/{hand_id}/edit", {}),
        ("POST", f"/m/{token}/hands/{hand_id}", form),
        ("POST", f"/m/{token}/hands/{hand_id}/delete", {}),
        ("POST", f"/m/{token}/hands/{hand_id}/restore", {}),
        ("POST", f"/m/{token}/hands/preview?hand={hand_id}", form),
        ("POST", f"/m/{token}/calculator?party=0&hand={hand_id}", form),
        ("POST", f"/m/{two}/melds/{hand_id}/delete", {}),
    ]
    for method, path, data in requests:
        assert client.open(path, method=method, data=data).status_code == 404, path


HUGE = "9" * 300


@pytest.mark.parametrize(
    "fields",
    [
        {"bid": HUGE},
        {"bid": "9" * 5000},
        {"melds": [HUGE, 0, 0]},
        {"tricks": [HUGE, 0, None]},
        {"outcome": "gone_off", "bid": HUGE},
        {"declarer": "9" * 5000},
        {"declarer": "\u0663"},
    ],
)
def test_huge_numbers_in_the_hand_form(
    app: Flask, client: FlaskClient, fields: dict[str, Any]
) -> None:
    token = start_match(client, NAMES, going_off_bonus="half_bid", failed_bonus="half_bid")
    data = hand_data(client, token, **{**HAND, **fields})
    assert client.post(f"/m/{token}/hands/preview", data=data, headers=HX).status_code == 200
    assert client.post(f"/m/{token}/hands", data=data).status_code == 422
    assert _count(app, Hand) == 0


def test_huge_team_numbers(app: Flask, client: FlaskClient) -> None:
    data = setup_data(client, ["A", "B", "C", "D"], "kreuzbinokel", teams=[0, 1, 0, 1])
    for value in ("9" * 5000, HUGE, "\u0661"):
        response = client.post("/new", data={**data, "team_of-1": value})
        assert response.status_code == 422
    assert _count(app, Match) == 0


@pytest.mark.parametrize("rule", ["target", "min_bid", "pair", "family", "deals", "durch"])
def test_huge_numbers_in_the_house_rules(app: Flask, client: FlaskClient, rule: str) -> None:
    data = setup_data(client, NAMES)
    data[f"rule-{rule}"] = HUGE
    assert client.post("/new", data=data).status_code == 422
    for action in ("preset", "add_player"):
        assert client.post("/new", data={**data, "action": action}).status_code == 200
    assert _count(app, Match) == 0


def test_huge_numbers_in_a_two_player_hand(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    page = client.get(f"/m/{token}").get_data(as_text=True)
    meld = {**form_data(page, "meld-form"), "party": "0", "meld": "pair H", "points": HUGE}
    assert client.post(f"/m/{token}/melds", data=meld).status_code in (303, 422)
    tricks = {**form_data(page, "tricks-form"), "parties-0-tricks": HUGE}
    assert client.post(f"/m/{token}/finish", data=tricks).status_code == 422
    meld["party"] = HUGE
    assert client.post(f"/m/{token}/melds", data=meld).status_code == 422


@pytest.mark.parametrize(
    "stake",
    [
        "inf",
        "-inf",
        "Infinity",
        "1e308",
        "-1e308",
        "nan",
        "NaN",
        "1e-400",
        "0x10",
        "1_0",
        "-1",
        "1000,01",
        HUGE,
        HUGE + ",5",
        "\u0661",
    ],
)
def test_stakes_that_are_no_amounts(app: Flask, client: FlaskClient, stake: str) -> None:
    data = setup_data(client, NAMES, stake=stake)
    response = client.post("/new?lang=en", data=data)
    assert response.status_code == 422
    assert "Enter an amount" in page_text(response)
    token = start_match(client, NAMES, stake="0,10")
    with app.app_context():
        session_token = db.session.execute(select(GameSession.token)).scalar_one()
    response = client.post(
        f"/s/{session_token}/stake?lang=en", data={"stake": stake, "stake_basis": "full"}
    )
    assert response.status_code == 422
    assert "Enter an amount" in page_text(response)
    with app.app_context():
        assert db.session.execute(select(GameSession.stake_cents)).scalar_one() == 10
    assert token


@pytest.mark.parametrize(("stake", "cents"), [("0,10", 10), ("1.20 €", 120), ("1000", 100_000)])
def test_stakes_that_are_amounts(app: Flask, client: FlaskClient, stake: str, cents: int) -> None:
    start_match(client, NAMES, stake=stake)
    with app.app_context():
        assert db.session.execute(select(GameSession.stake_cents)).scalar_one() == cents


def test_one_parser_of_amounts() -> None:
    from scorer import forms
    from scorer.views import sessions

    assert sessions.euros_to_cents is forms.euros_to_cents
    assert not hasattr(forms, "_euros_to_cents")


@pytest.mark.parametrize("path", ["melds", "trump", "finish", "melds/1/delete"])
def test_two_player_routes_refuse_other_matches(csrf_app: Flask, path: str) -> None:
    client = csrf_app.test_client()
    token = start_match(client, NAMES)
    csrf = re.search(
        r'name="csrf_token"[^>]*value="([^"]+)"', client.get(f"/m/{token}").get_data(as_text=True)
    )
    assert csrf
    response = client.post(f"/m/{token}/{path}", data={"csrf_token": csrf.group(1)})
    assert response.status_code == 404
    assert _count(csrf_app, Hand) == 0


def test_two_first_melds_racing_get_a_conflict(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    page = client.get(f"/m/{token}").get_data(as_text=True)
    data = {**form_data(page, "meld-form"), "party": "0", "meld": "pair H", "trump": "H"}
    data.pop("version", None)  # no version: the twin is only seen by the database

    def twin(session: Session, *_: Any) -> None:
        # the other phone's first meld: its open hand lands just before this one
        new = [h for h in session.new if isinstance(h, Hand)]
        if new:
            session.connection().execute(
                insert(Hand).values(
                    match_id=new[0].match_id or new[0].match.id,
                    seq=new[0].seq,
                    dealer_seat=0,
                    outcome="open_play",
                    status="open",
                )
            )

    event.listen(Session, "before_flush", twin)
    try:
        response = client.post(f"/m/{token}/melds?lang=en", data=data)
    finally:
        event.remove(Session, "before_flush", twin)
    assert response.status_code == 409
    assert "Someone else changed this match" in page_text(response)
    assert _count(app, HandMeld) == 0
    assert client.post(f"/m/{token}/melds", data=data).status_code == 303
    assert _count(app, HandMeld) == 1


# -- 8. the cached match page and the host ---------------------------------------------------


def test_the_cached_match_page_is_kept_per_host(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    view = _view_token(app, token)
    for _ in range(6):
        html = client.get(f"/m/{token}", base_url="http://evil.example").get_data(as_text=True)
        assert f"http://evil.example/v/{view}" in html
    for _ in range(3):
        html = client.get(f"/m/{token}").get_data(as_text=True)
        assert "evil.example" not in html
        assert f"http://localhost/v/{view}" in html
    html = client.get(f"/m/{token}", base_url="https://localhost").get_data(as_text=True)
    assert f"https://localhost/v/{view}" in html


def test_every_cache_key_has_the_host(app: Flask) -> None:
    from scorer import cache

    keys = []
    for base in ("http://a.example/", "https://a.example/", "http://b.example/x/"):
        with app.test_request_context("/m/abc", base_url=base):
            keys.append(cache.page_key("abc", 1, None))
    assert len(set(keys)) == 3


def test_trusted_hosts_from_the_environment(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUSTED_HOSTS", " scorer.example.org, localhost ,")
    with fresh_app(tmp_path) as app:
        assert app.config["TRUSTED_HOSTS"] == ["scorer.example.org", "localhost"]
        client = app.test_client()
        assert client.get("/").status_code == 200
        assert client.get("/", base_url="https://scorer.example.org").status_code == 200
        response = client.get("/", base_url="http://evil.example")
        assert response.status_code == 400
        assert "evil.example" not in response.get_data(as_text=True)
        assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
    monkeypatch.delenv("TRUSTED_HOSTS")
    open_app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": "sqlite://"})
    assert open_app.config["TRUSTED_HOSTS"] is None


# -- 10. names are offered only to the device that typed them --------------------------------


def test_names_are_suggested_only_from_this_devices_sessions(app: Flask) -> None:
    mine, other = app.test_client(), app.test_client()
    start_match(mine, ["Anna", "Berta", "Carl"])
    start_match(other, ["Xaver", "Yvonne", "Zenzi"])
    stranger = app.test_client()
    for client, seen, unseen in (
        (mine, {"Anna", "Berta", "Carl"}, {"Xaver"}),
        (other, {"Xaver", "Yvonne", "Zenzi"}, {"Anna"}),
        (stranger, set(), {"Anna", "Xaver"}),
    ):
        listed = client.get("/players?q=", headers=HX).get_data(as_text=True)
        setup = client.get("/new").get_data(as_text=True)
        for name in seen:
            assert f'value="{name}"' in listed and f'<option value="{name}">' in setup
        for name in unseen:
            assert name not in listed and name not in setup
    assert "Anna" in mine.get("/players?q=an", headers=HX).get_data(as_text=True)
    assert "Berta" not in mine.get("/players?q=an", headers=HX).get_data(as_text=True)


def test_names_are_suggested_once_newest_first(app: Flask, client: FlaskClient) -> None:
    start_match(client, ["Anna", "Berta", "Carl"])
    start_match(client, ["Dora", "Anna", "Emil"])
    listed = re.findall(
        r'value="([^"]+)"', client.get("/players", headers=HX).get_data(as_text=True)
    )
    assert sorted(listed) == ["Anna", "Berta", "Carl", "Dora", "Emil"]
    assert set(listed[:3]) == {"Dora", "Anna", "Emil"}


# -- 11. caching headers -----------------------------------------------------------------------


def test_private_pages_are_not_stored(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, NAMES)
    enter_hand(client, token, **HAND)
    (hand,) = hand_ids(client, token)
    with app.app_context():
        session_token = db.session.execute(select(GameSession.token)).scalar_one()
    pages = [
        "/",
        "/new",
        "/import",
        "/melds",
        f"/m/{token}",
        f"/m/{token}/rules",
        f"/m/{token}/hands/{hand}",
        f"/m/{token}/hands/{hand}/edit",
        f"/s/{session_token}",
        "/nowhere",
    ]
    for path in pages:
        for headers in ({}, HX):
            response = client.get(path, headers=headers)
            assert response.mimetype == "text/html", path
            cache = response.cache_control
            assert cache.private and cache.no_store, (path, response.headers.get("Cache-Control"))
    response = client.post(f"/m/{token}/hands/preview", data=hand_data(client, token, **HAND))
    assert response.cache_control.no_store


def test_live_static_and_downloads_keep_their_caching(app: Flask, client: FlaskClient) -> None:
    from scorer.assets import static_url

    token = start_match(client, NAMES)
    view = _view_token(app, token)
    for path in (f"/v/{view}", f"/v/{view}/sheet"):
        cache = client.get(path).cache_control
        assert cache.private and cache.no_cache and not cache.no_store
    assert client.get(f"/m/{token}/sheet.csv").headers["Cache-Control"] == "no-store"
    with app.test_request_context():
        url = static_url("scorer.css")
    response = client.get(url)
    response.close()
    assert response.cache_control.immutable and not response.cache_control.no_store


# -- what the app holds is what it can serve (finding 1) ---------------------------------


def test_a_match_takes_no_more_hands_than_the_limit(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scorer.services import writes

    monkeypatch.setattr(writes, "MAX_MATCH_HANDS", 2)
    token = start_match(client, NAMES, target=10_000)
    enter_hand(client, token, **HAND)
    enter_hand(client, token, **HAND)
    response = enter_hand(client, token, status=422, **HAND)
    assert "Eine Partie hat höchstens 2 Spiele" in page_text(response)
    assert len(hand_ids(client, token)) == 2


def test_a_full_session_starts_no_further_match(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scorer.services import starting

    monkeypatch.setattr(starting, "NEW_MATCH_BELOW", 1)
    token = start_match(client, NAMES, target=100)
    enter_hand(client, token, **{**HAND, "bid": 250})  # made: the match is over
    page = client.get(f"/m/{token}").get_data(as_text=True)
    response = client.post(f"/m/{token}/next", data=form_data(page, "next-match"))
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/m/{token}")  # no second match
    assert "neue Sitzung" in page_text(client.get(f"/m/{token}"))
    with app.app_context():
        assert _count(app, Match) == 1
