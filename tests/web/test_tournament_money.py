"""The money pages through the Flask test client: who owes what, the paid tap, the prizes.

Rounds are typed in from paper slips (exact points and lost games).  Without
JavaScript a tap posts and the page comes back at the player's line; with htmx
it answers the line and the totals.  Bad input to the prize form is refused
with a message in the user's language, what was typed kept, status 422 and
nothing changed in the database.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import pytest
from flask import Flask, url_for
from flask.testing import FlaskClient
from flask_babel import gettext
from hypothesis import given
from hypothesis import strategies as st

from scorer.extensions import db
from scorer.services.tournaments import board, entrants, money, rounds, setup
from scorer.tournament_models import Tournament
from tests.builders import HX, form_data, fresh_app, page_text
from tests.tournament_builders import drawn, tournament_with
from tests.web.test_fuzz import SETTINGS, nasty

POST_FORM_RE = re.compile(r"<form\b[^>]*method=\"post\"[^>]*>.*?</form>", re.S | re.I)


def evening(
    app: Flask,
    results: list[Mapping[int, tuple[int, int]]],
    *,
    players: int = 9,
    rounds_: int | None = None,
    close: bool = True,
) -> tuple[str, str]:
    """A tournament (entry fee 10 €) whose rounds are typed in from paper: start number →
    (points, lost games).  Returns the organiser's and the public token."""
    with app.app_context():
        tournament = tournament_with(players, deals=9, rounds_=rounds_ or len(results))
        tournament.entry_fee_cents = 1000
        db.session.commit()
        numbers = {e.id: e.number for e in tournament.entrants}
        for number, slip in enumerate(results, start=1):
            row = drawn(tournament, number)
            for table in row.tables:
                board.set_paper(
                    tournament, table, {e: slip.get(numbers[e] or 0, (0, 0)) for e in table.players}
                )
            if close:
                rounds.close_round(tournament, row)
        return tournament.token, tournament.view_token


def the(token: str) -> Tournament:
    return setup.get_tournament(token)


def entrant_id(app: Flask, token: str, number: int) -> int:
    with app.app_context():
        return next(e.id for e in the(token).entrants if e.number == number)


def paid(app: Flask, token: str, number: int) -> tuple[int | None, Any]:
    with app.app_context():
        found = next(e for e in the(token).entrants if e.number == number)
        return found.paid_cents, found.paid_at


def stored(app: Flask, token: str) -> tuple[money.PrizeSettings, int]:
    with app.app_context():
        tournament = the(token)
        return money.settings_of(tournament), tournament.version


def words(app: Flask, lang: str, *msgids: str) -> list[str]:
    """The msgids as the app says them in ``lang`` (German once the catalogue has them)."""
    with app.test_request_context(f"/?lang={lang}"):
        return [gettext(m) for m in msgids]


def tap(client: FlaskClient, token: str, who: int, action: str = "paid", **data: Any) -> Any:
    return client.post(
        f"/t/{token}/money/{who}", data={"action": action, **{k: str(v) for k, v in data.items()}}
    )


SHARES = "30, 20, 15"


def prize_form(client: FlaskClient, token: str, **fields: str) -> dict[str, str]:
    data = form_data(client.get(f"/t/{token}/prizes").get_data(as_text=True), "prize-form")
    data.update(fields)
    return data


# -- the pages ---------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_money_pages_speak_the_users_language(
    app: Flask, client: FlaskClient, lang: str
) -> None:
    # 3 + 6 lost games: together no more than the 9 deals, should the draw seat them together
    token, view = evening(app, [{1: (300, 3), 2: (200, 6)}])
    client.set_cookie("lang", lang)
    money_page = page_text(client.get(f"/t/{token}/money"))
    prizes_page = page_text(client.get(f"/t/{token}/prizes"))
    public = page_text(client.get(f"/p/{view}/prizes"))
    fixed = {"de": ["Startgeld", "Verlustgeld", "Spieler"], "en": ["Entry fee", "Lost-game money"]}
    for word in fixed[lang]:
        assert word in money_page
    for word in words(app, lang, "Prize fund", "Outstanding", "Collected", "Owes"):
        assert word in money_page
    for word in words(app, lang, "Prize fund and prizes", "The organiser keeps", "Prize list"):
        assert word in prizes_page
    assert words(app, lang, "Prize list")[0] in public
    # 3 lost games → 1,50 € / €1.50; 6 → 4,00 € / €4.00 (the schedule "0.50; 1.00 from 5")
    three, six = ("1,50 €", "4,00 €") if lang == "de" else ("€1.50", "€4.00")
    assert f"{three} (3 " in money_page and f"{six} (6 " in money_page


def test_the_money_page_shows_each_players_account_and_the_totals(
    app: Flask, client: FlaskClient
) -> None:
    client.set_cookie("lang", "en")
    token, _ = evening(app, [{1: (300, 2), 2: (200, 3)}, {1: (300, 2), 2: (200, 3)}])
    text = page_text(client.get(f"/t/{token}/money"))
    # Anna: 2 + 2 lost games = 2.00 €; Bertl: 3 + 3 = 1.50 + 2.50 = 4.00 €
    assert "Anna Owes €12.00 Entry fee €10.00 Lost-game money €2.00 (4 games)" in text
    assert "R1: 2 lost · €1.00" in text and "R2: 2 lost · €1.00" in text
    assert "R1: 3 lost · €1.50" in text and "R2: 3 lost · €2.50" in text
    # 9 × 10 € + 6 € = 96 €, nothing paid yet, all of it to the fund
    assert "Due in all €96.00" in text and "Outstanding €96.00" in text
    assert "Prize fund €96.00" in text
    assert "applies to a player's lost games of the whole evening, not round by round" in text


def test_the_organisers_home_and_the_board_lead_to_the_money(
    app: Flask, client: FlaskClient
) -> None:
    token, _ = evening(app, [{}])
    for page in (f"/t/{token}", f"/t/{token}/board"):
        assert f'href="/t/{token}/money"' in client.get(page).get_data(as_text=True)
    assert f'href="/t/{token}/prizes"' in client.get(f"/t/{token}").get_data(as_text=True)


def test_search_and_still_to_pay(app: Flask, client: FlaskClient) -> None:
    client.set_cookie("lang", "en")
    token, _ = evening(app, [{}])
    tap(client, token, entrant_id(app, token, 1), cents=1000)
    only = client.get(f"/t/{token}/money?show=open", headers=HX)
    assert only.status_code == 200 and "<html" not in only.get_data(as_text=True)
    text = page_text(only)
    assert "Anna" not in text and "Bertl" in text
    assert page_text(client.get(f"/t/{token}/money?q=2")).count("Owes €") == 1
    assert "Nobody matches." in page_text(client.get(f"/t/{token}/money?q=Zenzi"))


# -- paid --------------------------------------------------------------------------------------


def test_a_tap_without_javascript_comes_back_at_the_line_and_twice_is_one_change(
    app: Flask, client: FlaskClient
) -> None:
    token, _ = evening(app, [{1: (300, 1)}])
    anna = entrant_id(app, token, 1)
    first = tap(client, token, anna, cents=1050)
    assert first.status_code == 303
    assert first.headers["Location"].endswith(f"/t/{token}/money#a-{anna}")
    cents, at = paid(app, token, 1)
    assert cents == 1050 and at is not None
    again = tap(client, token, anna, cents=1050)
    assert again.status_code == 303
    assert paid(app, token, 1) == (1050, at)
    client.set_cookie("lang", "en")
    text = page_text(client.get(first.headers["Location"]))
    assert "Collected €10.50 (1 of 9 paid)" in text
    undo = tap(client, token, anna, "unpaid")
    assert undo.status_code == 303 and paid(app, token, 1) == (None, None)


def test_a_tap_with_htmx_answers_the_line_and_the_totals(app: Flask, client: FlaskClient) -> None:
    client.set_cookie("lang", "en")
    token, _ = evening(app, [{}])
    anna = entrant_id(app, token, 1)
    answer = client.post(
        f"/t/{token}/money/{anna}", data={"action": "paid", "cents": "1000"}, headers=HX
    )
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "<html" not in html
    assert html.lstrip().startswith(f'<li class="m-row is-paid" id="a-{anna}"')
    assert 'id="money-totals" hx-swap-oob="true"' in html
    assert "Collected €10.00 (1 of 9 paid)" in page_text(html)
    assert "HX-Request" in answer.headers.get("Vary", "")


def test_a_tap_on_an_amount_that_changed_is_told(app: Flask, client: FlaskClient) -> None:
    client.set_cookie("lang", "en")
    token, _ = evening(app, [{1: (300, 1)}])
    anna = entrant_id(app, token, 1)
    stale = client.post(
        f"/t/{token}/money/{anna}", data={"action": "paid", "cents": "1000"}, headers=HX
    )
    assert stale.status_code == 409
    assert "Anna owes €10.50 now, not €10.00" in page_text(stale)
    assert paid(app, token, 1) == (None, None)
    # without JavaScript: the page again, saying so
    back = tap(client, token, anna, cents=1000)
    assert back.status_code == 303
    assert "Anna owes €10.50 now, not €10.00" in page_text(client.get(back.headers["Location"]))
    assert paid(app, token, 1) == (None, None)


@pytest.mark.parametrize(
    "data",
    [
        {"action": "paid", "cents": "abc"},
        {"action": "paid", "cents": "1" + "0" * 309},
        {"action": "paid", "cents": "10\x00"},
        {"action": "paid", "cents": "-1000"},
        {"action": "paid"},
        {"action": "steal", "cents": "1000"},
        {"action": "\x00", "cents": "1000"},
    ],
)
def test_a_tap_that_cannot_be_read_changes_nothing(
    app: Flask, client: FlaskClient, data: dict[str, str]
) -> None:
    client.set_cookie("lang", "en")
    token, _ = evening(app, [{}])
    anna = entrant_id(app, token, 1)
    answer = client.post(f"/t/{token}/money/{anna}", data=data, headers=HX)
    assert answer.status_code == 422
    assert "This tap could not be read. Reload the page and try again." in page_text(answer)
    assert paid(app, token, 1) == (None, None)


def test_a_tap_on_nobody_or_another_tournaments_player_is_404(
    app: Flask, client: FlaskClient
) -> None:
    token, _ = evening(app, [{}])
    other, _ = evening(app, [{}])
    stranger = entrant_id(app, other, 1)
    for who in (stranger, 10**9):
        assert tap(client, token, who, cents=1000).status_code == 404
    assert client.post("/t/nobody/money/1", data={"action": "paid"}).status_code == 404
    assert paid(app, other, 1) == (None, None)


def test_a_player_not_checked_in_cannot_pay(app: Flask, client: FlaskClient) -> None:
    client.set_cookie("lang", "en")
    token, _ = evening(app, [{}], rounds_=2)
    with app.app_context():
        zenzi = entrants.register(the(token), "Zenzi").id
    answer = client.post(
        f"/t/{token}/money/{zenzi}", data={"action": "paid", "cents": "1000"}, headers=HX
    )
    assert answer.status_code == 404  # no line of hers to answer with
    back = tap(client, token, zenzi, cents=1000)
    assert "Zenzi is not checked in: nothing to pay" in page_text(
        client.get(back.headers["Location"])
    )


# -- the prizes --------------------------------------------------------------------------------


def test_prize_settings_are_saved_and_make_the_prize_list(app: Flask, client: FlaskClient) -> None:
    client.set_cookie("lang", "en")
    # 10 players × 10 € = 100 €, no lost games; a three-way tie for second
    slip = {1: (500, 0), 2: (300, 0), 3: (300, 0), 4: (300, 0)}
    slip.update({n: (100 - 10 * n, 0) for n in range(5, 11)})
    token, view = evening(app, [slip], players=10)
    with app.app_context():
        the(token).tie_break = False
        db.session.commit()
    saved = client.post(
        f"/t/{token}/prizes", data=prize_form(client, token, shares=SHARES, joke="Zwiebeln")
    )
    assert saved.status_code == 303
    assert saved.headers["Location"].endswith(f"/t/{token}/prizes#prize-list")
    text = page_text(client.get(f"/t/{token}/prizes"))
    assert "The prize settings are saved." in text
    for line in (
        "1. 1 Anna 500 €30.00",
        "2.–4. 2 Bertl 300 €11.67",
        "2.–4. 3 Christa 300 €11.67",
        "2.–4. 4 Done 300 €11.66",
        "Place 1: 30 % = €30.00; place 2: 20 % = €20.00; place 3: 15 % = €15.00.",
        "Handed out: €65.00. €35.00 stays in the till",
        "Joke prize (last place): Zwiebeln → Jockel (10.)",
    ):
        assert line in text, line
    public = client.get(f"/p/{view}/prizes")
    assert public.status_code == 200 and "2.–4. 2 Bertl 300 €11.67" in page_text(public)
    assert "provisional" not in page_text(public)
    assert "form" not in public.get_data(as_text=True).split("<main", 1)[1]
    with app.app_context():
        assert money.settings_of(the(token)).shares == (
            Decimal("0.3"),
            Decimal("0.2"),
            Decimal("0.15"),
        )


def test_items_and_the_pick_order(app: Flask, client: FlaskClient) -> None:
    client.set_cookie("lang", "en")
    token, view = evening(app, [{1: (500, 0), 2: (300, 0), 3: (300, 0), 4: (200, 1)}])
    with app.app_context():
        the(token).tie_break = False
        db.session.commit()
    data = prize_form(client, token, mode="items", items="Schinken\r\n\r\n  Wein  \r\nKalender")
    assert client.post(f"/t/{token}/prizes", data=data).status_code == 303
    text = page_text(client.get(f"/p/{view}/prizes"))
    assert "1. 1. Anna Schinken 2. 2. Bertl Wein 3. 2. Christa Kalender" in text
    assert "There are 3 prizes for 9 players: from pick 4 on there is no item." in text
    again = form_data(client.get(f"/t/{token}/prizes").get_data(as_text=True), "prize-form")
    assert again["mode"] == "items"
    page = client.get(f"/t/{token}/prizes").get_data(as_text=True)
    assert "Schinken\nWein\nKalender</textarea>" in page


def test_the_public_prize_list_is_provisional_until_the_last_round_is_closed(
    app: Flask, client: FlaskClient
) -> None:
    client.set_cookie("lang", "en")
    _, view = evening(app, [{1: (500, 0)}], rounds_=2)
    text = page_text(client.get(f"/p/{view}/prizes"))
    assert "Prize list provisional" in text
    assert "Provisional: the ranking may still change until the last round is closed." in text
    first = client.get(f"/p/{view}/prizes")
    etag = first.headers["ETag"]
    assert client.get(f"/p/{view}/prizes", headers={"If-None-Match": etag}).status_code == 304
    assert client.get("/p/nobody/prizes").status_code == 404


def test_before_the_first_round_the_prize_list_waits(app: Flask, client: FlaskClient) -> None:
    client.set_cookie("lang", "en")
    with app.app_context():
        view = tournament_with(9).view_token
    text = page_text(client.get(f"/p/{view}/prizes"))
    assert "No round has been played yet: the prize list follows the ranking." in text


@pytest.mark.parametrize(
    ("field", "typed", "says"),
    [
        ("shares", "60, 50", "the shares add up to 110 %, more than the whole fund"),
        ("shares", "-10, 20", "a share cannot be negative: '-10'"),
        ("shares", "abc", "'abc' is not a share"),
        ("shares", "30\x00", "This field may not contain control characters."),
        ("shares", "1" + "0" * 309, "a share is at most 100 %"),
        ("keep", "abc", "Enter an amount in euros like 50, or a percentage like 10 %."),
        ("keep", "150 %", "A percentage is at most 100 %."),
        ("keep", "1" + "0" * 309, "Enter an amount up to 100000 €."),
        ("keep", "-5", "Enter an amount in euros like 50, or a percentage like 10 %."),
        ("items", "\n".join(f"Preis {n}" for n in range(5000)), "At most 300 prizes"),
        ("items", "Schinken\nWein\x00", "Prize 2 holds control characters."),
        ("items", "x" * 101, "Prize 1 is longer than 100 characters."),
        ("joke", "Zwie\x00beln", "This field may not contain control characters."),
        ("joke", "x" * 101, "Field cannot be longer than 100 characters."),
    ],
)
def test_bad_prize_input_is_refused_keeping_what_was_typed(
    app: Flask, client: FlaskClient, field: str, typed: str, says: str
) -> None:
    client.set_cookie("lang", "en")
    token, _ = evening(app, [{}])
    client.post(f"/t/{token}/prizes", data=prize_form(client, token, shares="50", joke="Wein"))
    before = stored(app, token)
    answer = client.post(f"/t/{token}/prizes", data=prize_form(client, token, **{field: typed}))
    assert answer.status_code == 422
    text = page_text(answer)
    assert "Please correct the marked fields." in text
    assert says in text
    html = answer.get_data(as_text=True)
    if field == "items":
        textarea = html.split('name="items"', 1)[1].split("</textarea>", 1)[0]
        assert all(line in textarea for line in typed.split("\n"))
    else:
        assert form_data(html, "prize-form")[field] == typed
    assert stored(app, token) == before


def test_a_mode_nobody_offers_is_refused(app: Flask, client: FlaskClient) -> None:
    token, _ = evening(app, [{}])
    before = stored(app, token)
    answer = client.post(f"/t/{token}/prizes", data=prize_form(client, token, mode="lottery"))
    assert answer.status_code == 422
    assert stored(app, token) == before


# -- CSRF --------------------------------------------------------------------------------------


def test_every_form_carries_its_csrf_token_and_a_post_without_is_refused(
    csrf_app: Flask,
) -> None:
    client = csrf_app.test_client()
    client.set_cookie("lang", "en")
    token, view = evening(csrf_app, [{}])
    for url in (f"/t/{token}/money", f"/t/{token}/prizes"):
        html = client.get(url).get_data(as_text=True)
        forms = POST_FORM_RE.findall(html)
        assert forms, url
        for form in forms:
            assert 'name="csrf_token"' in form, form[:120]
    anna = entrant_id(csrf_app, token, 1)
    assert tap(client, token, anna, cents=1000).status_code == 400
    assert paid(csrf_app, token, 1) == (None, None)
    before = stored(csrf_app, token)
    data = prize_form(client, token, shares="50")
    data.pop("csrf_token")
    assert client.post(f"/t/{token}/prizes", data=data).status_code == 400
    assert stored(csrf_app, token) == before
    # with the token the page gave, it works
    good = prize_form(client, token, shares="50")
    assert client.post(f"/t/{token}/prizes", data=good).status_code == 303
    html = client.get(f"/t/{token}/money").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert csrf is not None
    ok = tap(client, token, anna, cents=1000, csrf_token=csrf.group(1))
    assert ok.status_code == 303 and paid(csrf_app, token, 1)[0] == 1000
    assert client.get(f"/p/{view}/prizes").status_code == 200


# -- random posts to every money route ----------------------------------------------------------

# the money's POST routes and their fields (tests/web/test_fuzz.py fuzzes the match's)
MONEY_FIELDS = {
    "t_money.pay": ["action", "cents"],
    "t_money.prizes": ["keep", "lost_to_fund", "mode", "shares", "items", "joke"],
}


def test_every_money_post_route_is_fuzzed(app: Flask) -> None:
    posts = {r.endpoint for r in app.url_map.iter_rules() if "POST" in (r.methods or ())}
    assert {e for e in posts if e.startswith("t_money.")} == set(MONEY_FIELDS)


@pytest.mark.parametrize("endpoint", sorted(MONEY_FIELDS))
def test_random_posts_to_the_money_routes_never_fail(endpoint: str) -> None:
    with fresh_app() as app:
        client = app.test_client()
        token, _ = evening(app, [{1: (300, 2)}])
        ids = [entrant_id(app, token, n) for n in (1, 2, 3)]
        rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
        keys = MONEY_FIELDS[endpoint]
        values = st.one_of(
            nasty, st.sampled_from(["paid", "unpaid", "money", "items", "1200", "1000", "y"])
        )

        @SETTINGS
        @given(
            st.dictionaries(st.sampled_from(keys), values, max_size=len(keys)),
            st.sampled_from([*ids, 0, 2**31, 2**63, 10**30]),
            st.booleans(),
        )
        def check(fields: dict[str, str], who: int, htmx: bool) -> None:
            given_values = {"token": token, "entrant_id": who}
            with app.test_request_context():
                path = url_for(endpoint, **{k: given_values[k] for k in rule.arguments})
            response = client.post(path, data=fields, headers=HX if htmx else {})
            assert response.status_code < 500, (path, fields)
            assert client.get(f"/t/{token}/money").status_code == 200
            assert client.get(f"/t/{token}/prizes").status_code == 200

        check()
