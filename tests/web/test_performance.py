"""Performance guards that do not depend on the machine: SQL statements per request,
fingerprinted static files with long cache headers, compressed responses.

The timings themselves are in ``bench/run.py`` (``bench/RESULTS.md``).  Here every
main page must cost the same number of statements for a short match as for a
long one: no query per hand (N+1), and a bound on the total.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import brotli
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event

from scorer import cache, services
from scorer.extensions import db
from tests.builders import (
    HX,
    form_data,
    hand_input,
    service_match,
    session_token_of,
)

NAMES = ["Anna", "Bernd", "Carl"]


@contextmanager
def statements(app: Flask) -> Iterator[list[str]]:
    """The SQL statements sent to the database inside the block."""
    sent: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)


def count(app: Flask, call: Any) -> int:
    with statements(app) as sent:
        response = call()
    assert response.status_code < 400, response.status_code
    return len(sent)


def two_matches(app: Flask, short: int = 3, long: int = 30) -> tuple[str, str]:
    return (
        service_match(app, NAMES, short, target=100_000),
        service_match(app, NAMES, long, target=100_000),
    )


def test_the_match_page_costs_the_same_queries_for_3_and_30_hands(
    app: Flask, client: FlaskClient
) -> None:
    short, long = two_matches(app)
    client.get(f"/m/{short}")  # the session cookie is set once
    queries = []
    for token in (short, long):
        cache.clear(app)  # the rendered sheet is cached per version: count the first load
        queries.append(count(app, lambda t=token: client.get(f"/m/{t}")))
    assert queries[0] == queries[1]
    # the state check, the match, its session, seats, hands and their lines, the names, and
    # this laptop's role (the banner of a spare, or of a hall its spare replaced)
    assert queries[1] <= 9, queries


def test_the_match_page_reads_no_hands_while_its_sheet_is_cached(
    app: Flask, client: FlaskClient
) -> None:
    short, long = two_matches(app)
    queries = []
    for token in (short, long):
        client.get(f"/m/{token}")  # renders the sheet of this version once
        queries.append(count(app, lambda t=token: client.get(f"/m/{t}")))
    assert queries[0] == queries[1]
    # the version of the match and its session's token: the page comes from the cache
    assert queries[1] == 1, queries
    # a new hand is a new version: the page shows it at once
    before = client.get(f"/m/{long}").get_data(as_text=True).count('id="hand-')
    _submit(client, long, 0, htmx=False)()
    assert client.get(f"/m/{long}").get_data(as_text=True).count('id="hand-') == before + 1


def test_the_match_page_fragment_costs_the_same_as_the_page(
    app: Flask, client: FlaskClient
) -> None:
    _, long = two_matches(app)
    client.get(f"/m/{long}")
    client.get(f"/m/{long}", headers=HX)  # each is kept once rendered
    page = count(app, lambda: client.get(f"/m/{long}"))
    fragment = count(app, lambda: client.get(f"/m/{long}", headers=HX))
    assert fragment == page == 1


def _submit(client: FlaskClient, token: str, number: int, *, htmx: bool) -> Any:
    page = client.get(f"/m/{token}").get_data(as_text=True)
    data = form_data(page, "hand-form")
    hand = hand_input(3, number)
    data.update(
        {
            "declarer": str(hand.declarer),
            "bid": str(hand.bid),
            "trump": hand.trump or "",
            "outcome": hand.outcome,
        }
    )
    for i in range(3):
        data[f"parties-{i}-melds"] = str(hand.melds[i]) if hand.melds else ""
        tricks = hand.tricks[i] if hand.tricks else None
        data[f"parties-{i}-tricks"] = "" if tricks is None else str(tricks)
    return lambda: client.post(f"/m/{token}/hands", data=data, headers=HX if htmx else {})


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "no-js"])
def test_a_hand_submission_costs_the_same_queries_for_3_and_30_hands(
    app: Flask, client: FlaskClient, htmx: bool
) -> None:
    short, long = two_matches(app)
    queries = [count(app, _submit(client, t, 0, htmx=htmx)) for t in (short, long)]
    assert queries[0] == queries[1]
    # read the match, save (hand, lines, history, match, session), read it back for htmx
    assert queries[1] <= (22 if htmx else 18), queries


def test_a_preview_does_not_read_the_hands(app: Flask, client: FlaskClient) -> None:
    short, long = two_matches(app)
    queries = []
    for token in (short, long):
        page = client.get(f"/m/{token}").get_data(as_text=True)
        data = form_data(page, "hand-form")
        data.update({"declarer": "0", "bid": "200", "trump": "H"})
        queries.append(
            count(
                app,
                lambda t=token, d=data: client.post(f"/m/{t}/hands/preview", data=d, headers=HX),
            )
        )
    assert queries[0] == queries[1]
    assert queries[1] <= 4, queries


def test_the_live_poll_answers_304_with_a_handful_of_queries(
    app: Flask, client: FlaskClient
) -> None:
    queries = []
    for hands in (3, 30):
        token = service_match(app, NAMES, hands, target=100_000)
        with app.app_context():
            view = services.get_match(token).view_token
        url = f"/v/{view}/sheet"
        etag = client.get(url, headers=HX).headers["ETag"]
        with statements(app) as sent:
            response = client.get(url, headers={**HX, "If-None-Match": etag})
        assert response.status_code == 304
        queries.append(len(sent))
    assert queries[0] == queries[1]
    # one statement: the match's version and last change and its session's number of matches
    assert queries[1] <= 1, queries


def test_the_session_page_does_not_read_the_hands(app: Flask, client: FlaskClient) -> None:
    queries = []
    for hands in (3, 30):
        first = service_match(app, NAMES, hands, target=100_000)
        session = session_token_of(app, first)
        for _ in range(2):
            service_match(app, NAMES, hands, target=100_000, session_token=session)
        queries.append(count(app, lambda s=session: client.get(f"/s/{s}")))
    assert queries[0] == queries[1]
    # the session, its matches and their seats (the totals come from the standings)
    assert queries[1] <= 5, queries


def test_the_standing_agrees_with_the_sheet(app: Flask) -> None:
    """The cached standing (top of the page, session page) says what the replay says."""
    tokens = [
        service_match(app, NAMES, 12, target=100_000),
        service_match(app, NAMES, 40, target=1000),  # ends on the way
        service_match(app, ["A", "B", "C", "D"], 9, preset="standard", target=100_000),
        service_match(app, [*NAMES, "Dora"], 8, target=100_000, dealer_sits_out=True),
    ]
    with app.app_context():
        # a struck hand and a restored one, too
        match = services.get_match(tokens[0])
        services.delete_hand(match, services.live_hands(match)[3])
        services.delete_hand(match, services.live_hands(match)[5])
        services.restore_hand(match, match.hands[3])
        for token in tokens:
            match = services.get_match(token)
            full = services.sheet(match)
            db.session.expire_all()
            top = services.standing(services.get_match(token))
            assert top.rows == [] and top.hand_count == len(full.rows)
            for name in (
                "totals",
                "stars",
                "finished",
                "winners",
                "next_dealer",
                "next_leader",
                "next_sits_out",
                "parties",
                "seat_names",
                "hands_left",
            ):
                assert getattr(top, name) == getattr(full, name), (token, name)
            assert top.progress.exact_totals == full.progress.exact_totals


def _every_kind_of_hand(parties: int, number: int, sits_out: int | None) -> Any:
    """Made, failed, gone off, Durch won and lost, a lost Bettel, odd trick points."""
    from scorer.services import HandInput

    active = [p for p in range(parties) if p != sits_out]
    declarer = active[number % len(active)]
    kind = number % 8
    if kind == 3:
        return HandInput(declarer=declarer, outcome="durch", won=True)
    if kind == 5:
        return HandInput(declarer=declarer, outcome="durch", won=False)
    if kind == 7:
        # odd trick points: rounded to 10 with round_tricks, exact totals differ
        others = [p for p in active if p != declarer]
        tricks: list[int | None] = [None] * parties
        tricks[declarer] = 133
        left = 250 - 133
        for p in others[:-1]:
            tricks[p] = left // len(others) + 3
            left -= tricks[p] or 0
        tricks[others[-1]] = left
        melds = [0 if p == sits_out else 20 for p in range(parties)]
        melds[declarer] = 60
        return HandInput(declarer=declarer, bid=150, trump="H", melds=melds, tricks=tricks)
    return hand_input(parties, number, made=number % 4 != 1, sits_out=sits_out)


@pytest.mark.parametrize(
    ("names", "preset", "changes"),
    [
        (NAMES, "standard", {"target": 100_000}),
        (NAMES, "standard", {"target": 1000}),  # ends on the way (with a game)
        (NAMES, "standard", {"target": 1000, "end": "after_any_hand"}),
        (NAMES, "standard", {"target": 1000, "end": "after_any_hand_but_going_off"}),
        (NAMES, "standard", {"target": 100_000, "round_tricks": True}),
        (NAMES, "turnier", {}),  # round_tricks, 12 deals: ties decided by exact points
        (["A", "B", "C", "D"], "kreuzbinokel", {"target": 100_000}),
        ([*NAMES, "Dora"], "standard", {"target": 100_000, "dealer_sits_out": True}),
        (["A", "B", "C", "D"], "vier_mit_aussetzer", {}),  # dealer out, stars, 12 deals
    ],
)
def test_the_standing_after_every_new_hand_is_the_replay(
    app: Flask,
    monkeypatch: pytest.MonkeyPatch,
    names: list[str],
    preset: str,
    changes: dict[str, Any],
) -> None:
    """A new hand moves the stored standing on without a replay: it must equal the replay."""
    from scorer.rules import PRESETS
    from scorer.services import hands, sheets

    moved: list[bool] = []
    append = sheets.append_standing

    def spy(*args: Any) -> bool:
        moved.append(append(*args))
        return moved[-1]

    monkeypatch.setattr(hands, "append_standing", spy)

    token = service_match(app, names, 0, preset=preset, **changes)
    ruleset = PRESETS[preset].replace(players=len(names), **changes)
    seats = len(names)
    saved = 0
    kinds: list[str] = []  # what was saved (a fallback when the rules refused the kind)
    with app.app_context():
        for number in range(30):
            match = services.get_match(token)
            top = services.standing(match)
            if top.finished:
                break
            dealer = top.progress.next_dealer
            sits_out = dealer % ruleset.parties if ruleset.dealer_sits_out else None
            data = _every_kind_of_hand(ruleset.parties, number, sits_out)
            try:
                services.save_hand(match, data)
                kinds.append(data.outcome)
            except services.RulesError:
                kinds.append("fallback")
                db.session.rollback()
                data = hand_input(ruleset.parties, number, sits_out=sits_out)
                services.save_hand(match, data)
            saved += 1
            stored = dict(services.get_match(token).standing or {})
            winners = services.get_match(token).winners
            db.session.expire_all()
            fresh = services.get_match(token)
            full = services.sheet(fresh)
            assert stored == sheets.standing_of(fresh, full), (number, stored)
            assert winners == (full.winners if full.finished else None), number
            assert len(full.rows) == saved
            db.session.expire_all()
        assert saved >= min(seats, 2)
        moved_on = [m is not None for m in moved]
        assert moved_on.count(True) >= saved - 2, moved  # the replay only for the end


def test_a_match_without_a_standing_falls_back_to_the_sheet(app: Flask) -> None:
    token = service_match(app, NAMES, 5, target=100_000)
    with app.app_context():
        match = services.get_match(token)
        match.standing = None  # as after the migration, before the next change
        db.session.commit()
        top = services.standing(services.get_match(token))
        assert len(top.rows) == top.hand_count == 5


# -- static files and compression ----------------------------------------------------

STATIC_RE = re.compile(r'(?:href|src)="(/static/[^"?]+)\?v=([0-9a-f]{12})"')


def test_static_urls_are_fingerprinted_and_cached_for_a_year(
    app: Flask, client: FlaskClient
) -> None:
    html = client.get("/").get_data(as_text=True)
    found = dict(STATIC_RE.findall(html))
    assert {"/static/scorer.css", "/static/htmx-2.0.8.min.js", "/static/scorer.js"} <= set(found)
    for path, digest in found.items():
        response = client.get(f"{path}?v={digest}")
        assert response.status_code == 200
        cache = response.cache_control
        assert cache.public and cache.immutable and cache.max_age == 31_536_000, path
        response.close()
    # an old or missing fingerprint is not cached for a year
    for url in ("/static/scorer.css", "/static/scorer.css?v=000000000000"):
        response = client.get(url)
        assert not response.cache_control.immutable
        response.close()


def test_a_new_file_gets_a_new_fingerprint(app: Flask) -> None:
    from scorer.assets import static_url

    assert app.static_folder
    with app.test_request_context("/"):
        first = static_url("scorer.css")
        assert static_url("scorer.css") == first
        assert static_url("no-such-file.css") == "/static/no-such-file.css"


def test_pages_are_compressed_when_the_client_accepts_gzip(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, NAMES, 10, target=100_000)
    plain = client.get(f"/m/{token}")
    assert "Content-Encoding" not in plain.headers
    packed = client.get(f"/m/{token}", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert "HX-Request" in packed.headers["Vary"]
    html = gzip.decompress(packed.get_data()).decode()
    assert 'id="sheet"' in html
    assert len(packed.get_data()) < len(plain.get_data()) / 3
    css = client.get("/static/scorer.css", headers={"Accept-Encoding": "gzip, br"})
    assert css.headers.get("Content-Encoding") in ("br", "gzip")
    css.close()


def test_the_poll_still_answers_304_to_a_compressing_client(
    app: Flask, client: FlaskClient
) -> None:
    token = service_match(app, NAMES, 10, target=100_000)
    with app.app_context():
        view = services.get_match(token).view_token
    url = f"/v/{view}/sheet"
    headers = {**HX, "Accept-Encoding": "gzip, deflate, br, zstd"}
    first = client.get(url, headers=headers)
    assert first.status_code == 200 and first.headers["Content-Encoding"]
    again = client.get(url, headers={**headers, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    assert again.get_data() == b""


def test_scripts_and_style_sheets_are_served_minified(app: Flask, client: FlaskClient) -> None:
    """The comments stay in the repository: a phone gets the files without them."""
    assert app.static_folder
    for name in ("scorer.js", "taps.js", "app.js", "scorer.css"):
        source = Path(app.static_folder, name).read_text(encoding="utf-8")
        response = client.get(f"/static/{name}")
        served = response.get_data(as_text=True)
        response.close()
        assert response.status_code == 200
        assert len(served) < len(source) * 0.85, name
        assert "// " not in served.split("\n", 1)[0] or name.endswith(".css"), name
        assert response.headers["Content-Length"] == str(len(served.encode()))
    # to a browser that takes brotli: compressed at brotli's best, the same text inside
    plain = client.get("/static/scorer.css")
    packed = client.get("/static/scorer.css", headers={"Accept-Encoding": "gzip, br, zstd"})
    assert packed.headers["Content-Encoding"] == "br"
    assert brotli.decompress(packed.get_data()) == plain.get_data()
    assert len(packed.get_data()) < len(plain.get_data()) / 4
    assert "Content-Security-Policy" not in packed.headers  # a page's header, not a file's
    assert packed.headers["X-Content-Type-Options"] == "nosniff"
    plain.close()
    packed.close()
    # a range request for a script still gets what it asked of the file (no minifying)
    response = client.get("/static/scorer.js", headers={"Range": "bytes=0-9"})
    assert response.status_code == 206
    response.close()


def test_taps_js_comes_with_the_pages_that_queue_taps(app: Flask, client: FlaskClient) -> None:
    """A three-player match page loads static/taps.js only when its calculator opens
    (static/scorer.js); the calculator page and a two-player match load it at once."""
    three = service_match(app, NAMES, 1)
    page = client.get(f"/m/{three}").get_data(as_text=True)
    assert re.search(r'<script src="/static/scorer\.js\?v=\w+" data-taps="/static/taps\.js', page)
    assert "data-taps-page" not in page
    assert "data-taps-page" in client.get("/melds").get_data(as_text=True)
    from scorer.rules import PRESETS

    with app.app_context():
        two = services.start_match(names=["Anna", "Berta"], ruleset=PRESETS["zweier"]).token
    assert "data-taps-page" in client.get(f"/m/{two}").get_data(as_text=True)
