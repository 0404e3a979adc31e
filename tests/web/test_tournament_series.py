"""The series' pages: made from a tournament, its organiser page, a new evening, the public
ranking, its PDF, the choice of the same person on the players page.

Flask test client, a fresh database per test; hostile input answered with a
message and nothing changed.
"""

from __future__ import annotations

import re

import pytest
from flask import Flask, url_for
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st

from scorer.extensions import db
from scorer.services.tournaments import rounds, series, setup
from scorer.tournament_models import Series, Tournament
from tests.builders import form_data, fresh_app, page_text
from tests.tournament_builders import drawn, play_round, tournament_with
from tests.web.test_fuzz import SETTINGS, nasty


def a_series(app: Flask, played: bool = True) -> tuple[str, str, str]:
    """A series of one evening (9 players, one round played and closed): its token, its
    public token and the evening's token."""
    with app.app_context():
        first = tournament_with(9, rounds_=1)
        made = series.create_series(first)
        if played:
            row = drawn(first, 1)
            play_round(row)
            rounds.close_round(first, row)
        return made.token, made.view_token, first.token


def the_series(app: Flask, token: str) -> tuple[str, str, int, bool, int]:
    with app.app_context():
        found = series.get_series(token)
        return found.name, found.counting, found.best, found.met_across, len(found.tournaments)


def test_a_tournament_becomes_a_series_from_its_home(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        token = tournament_with(4).token
    home = client.get(f"/t/{token}?lang=en").get_data(as_text=True)
    assert "Make a series (Binokel-Cup) of it" in home
    form = form_data(home, "make-series")
    assert form["name"] == "Herbstturnier"
    response = client.post(f"/t/{token}/series", data=form)
    assert response.status_code == 303
    again = client.post(f"/t/{token}/series", data=form)  # a double tap: the same series
    assert again.headers["Location"] == response.headers["Location"]
    with app.app_context():
        assert db.session.query(Series).count() == 1
    page = client.get(response.headers["Location"] + "?lang=en")
    assert page.status_code == 200
    text = page_text(page)
    assert "Herbstturnier" in text and "New evening" in text
    assert "The series: evenings and ranking" in page_text(client.get(f"/t/{token}?lang=en"))
    # the device's home page leads to the series too
    home_page = client.get("/?lang=en").get_data(as_text=True)
    assert re.search(r'href="/cup/[^"]+">Series: Herbstturnier</a>', home_page)


@pytest.mark.parametrize(("lang", "words"), [("de", ["Rang", "Summe"]), ("en", ["Place", "Total"])])
def test_series_pages_in_both_languages(
    app: Flask, client: FlaskClient, lang: str, words: list[str]
) -> None:
    token, view_token, evening = a_series(app)
    for path in (f"/cup/{token}", f"/p/cup/{view_token}"):
        response = client.get(f"{path}?lang={lang}")
        assert response.status_code == 200
        text = page_text(response)
        for word in words:
            assert word in text, (path, word)
        assert "Anna" in text
    # the evening's public ranking links to the series ranking
    with app.app_context():
        view = setup.get_tournament(evening).view_token
    assert f"/p/cup/{view_token}" in client.get(f"/p/{view}").get_data(as_text=True)
    rules = client.get(f"/p/{view}/rules?lang={lang}")
    assert rules.status_code == 200 and f"/p/cup/{view_token}" in rules.get_data(as_text=True)


def test_settings_change_and_hostile_values_are_refused(app: Flask, client: FlaskClient) -> None:
    token, _, _ = a_series(app, played=False)
    ok = client.post(
        f"/cup/{token}/settings",
        data={"name": "Cup 2025", "counting": "best", "best": "2", "met_across": ""},
    )
    assert ok.status_code == 303
    assert the_series(app, token)[:4] == ("Cup 2025", "best", 2, False)
    for data in (
        {"name": "Cup", "counting": "best", "best": "0"},
        {"name": "Cup", "counting": "best", "best": "1" + "0" * 309},
        {"name": "Cup", "counting": "best", "best": ""},
        {"name": "Cup", "counting": "most", "best": "2"},
        {"name": "Cup\x00", "counting": "all", "best": ""},
        {"name": "", "counting": "all", "best": ""},
    ):
        response = client.post(f"/cup/{token}/settings?lang=en", data=data)
        assert response.status_code == 422, data
        assert "Please correct the marked fields." in page_text(response)
        assert the_series(app, token)[:4] == ("Cup 2025", "best", 2, False)


def test_new_evening_double_tap_makes_one(app: Flask, client: FlaskClient) -> None:
    token, _, _ = a_series(app)
    html = client.get(f"/cup/{token}").get_data(as_text=True)
    data = form_data(html, "new-evening")
    assert data["idempotency_key"]
    first = client.post(f"/cup/{token}/evenings", data=data)
    second = client.post(f"/cup/{token}/evenings", data=data)
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]
    assert the_series(app, token)[4] == 2
    # the new evening's organiser link is shown once, as a new tournament's
    home = client.get(first.headers["Location"] + "?lang=en")
    assert "Your organiser link" in page_text(home)
    assert "Herbstturnier · 2. Abend" in page_text(home)  # named in the language it was made in
    # without a key nothing is made
    assert client.post(f"/cup/{token}/evenings", data={}).status_code == 422
    assert the_series(app, token)[4] == 2


def test_a_name_typed_differently_is_a_choice_on_the_players_page(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        first = tournament_with(["Hans Schäfer", "Eva", "Otto"], rounds_=1)
        made = series.create_series(first)
        second = series.new_evening(made, idempotency_key="k")
        token, series_token, first_token = second.token, made.token, first.token
    client.post(
        f"/t/{token}/players",
        data={
            "name": "Hans Schaefer",
            "club": "",
            "household": "",
            "number": "",
            "action": "register",
        },
    )
    page = client.get(f"/t/{token}/players?lang=en")
    text = page_text(page)
    assert "Hans Schaefer — the same as “Hans Schäfer” (evening 1)" in text
    # the series page shows the choice too, and the ranking counts him apart meanwhile
    assert "Same person?" in page_text(client.get(f"/cup/{series_token}?lang=en"))
    html = page.get_data(as_text=True)
    action = re.search(r'action="(/t/[^"]+/series/people/\d+)"', html)
    assert action is not None
    person = re.search(r'name="person" value="(\d+)"', html)
    assert person is not None
    done = client.post(action.group(1), data={"action": "same", "person": person.group(1)})
    assert done.status_code == 303
    with app.app_context():
        evening = setup.get_tournament(token)
        hans = next(e for e in evening.entrants if e.name == "Hans Schaefer")
        assert (
            hans.series_player_id == setup.get_tournament(first_token).entrants[0].series_player_id
        )
    assert "the same as" not in page_text(client.get(f"/t/{token}/players?lang=en"))
    # a wrong choice is undone
    client.post(action.group(1), data={"action": "unlink"})
    assert "the same as “Hans Schäfer”" in page_text(client.get(f"/t/{token}/players?lang=en"))
    # a person of the series that does not exist: 404, nothing changed
    assert (
        client.post(action.group(1), data={"action": "same", "person": "999999"}).status_code == 404
    )


def test_foreign_and_hostile_tokens_are_404(app: Flask, client: FlaskClient) -> None:
    token, view_token, _ = a_series(app, played=False)
    for path in (
        f"/cup/{view_token}",  # the public token is no organiser link
        f"/p/cup/{token}",
        "/cup/" + "A" * 22,
        "/p/cup/" + "A" * 22,
        "/cup/%00abc",
        f"/cup/{view_token}/ranking.pdf",
    ):
        assert client.get(path).status_code == 404, path
    assert client.post(f"/cup/{view_token}/settings", data={"counting": "all"}).status_code == 404
    assert client.post(f"/cup/{view_token}/evenings", data={}).status_code == 404
    with app.app_context():
        other = tournament_with(3).token
    # an entrant of another tournament, or a tournament outside a series
    assert client.post(f"/t/{other}/series/people/1", data={"action": "new"}).status_code == 404


def test_the_series_ranking_pdf(app: Flask, client: FlaskClient) -> None:
    token, _, _ = a_series(app)
    for lang in ("de", "en"):
        response = client.get(f"/cup/{token}/ranking.pdf?lang={lang}")
        assert response.status_code == 200
        assert response.mimetype == "application/pdf"
        assert response.data.startswith(b"%PDF")


def test_the_draw_of_a_second_evening_counts_the_first(app: Flask, client: FlaskClient) -> None:
    token, _, evening = a_series(app)
    with app.app_context():
        made = series.get_series(token)
        first = setup.get_tournament(evening)
        second = series.new_evening(made, idempotency_key="k")
        for entrant in first.entrants:
            from scorer.services.tournaments import entrants

            entrants.register(second, entrant.name, present=True)
        row = drawn(second, 1)
        assert rounds.repeated_pairs(second, row) == 0
        second_token = second.token
    page = client.get(f"/t/{second_token}/rounds/1?lang=en")
    # it says what it counted: the evening before (round 1 has no earlier round tonight)
    assert "Nobody meets a table-mate of the evening before again" in page_text(page)
    with app.app_context():
        made = series.get_series(token)
        series.update_settings(made, counting="all", best=None, met_across=False)
    # the series does not count them: the page claims nothing of earlier evenings
    assert "evening before" not in page_text(client.get(f"/t/{second_token}/rounds/1?lang=en"))
    # a tournament alone: its second round counts this evening's first
    with app.app_context():
        alone = tournament_with(9, deals=3, rounds_=2)
        play_round(drawn(alone, 1))
        rounds.close_round(alone, alone.round_rows[0])
        drawn(alone, 2)
        alone_token = alone.token
    text = page_text(client.get(f"/t/{alone_token}/rounds/2?lang=en"))
    assert (
        "Nobody meets a table-mate of this evening again" in text
        or "(counted: this evening)" in text
    )


def test_every_form_of_the_series_has_its_csrf_field(csrf_app: Flask) -> None:
    with csrf_app.app_context():
        first = tournament_with(["Hans Schäfer", "Eva", "Otto"], rounds_=1)
        made = series.create_series(first)
        second: Tournament = series.new_evening(made, idempotency_key="k")
        from scorer.services.tournaments import entrants

        entrants.register(second, "Hans Schaefer")
        paths = (f"/cup/{made.token}", f"/t/{second.token}/players", f"/t/{first.token}")
    client = csrf_app.test_client()
    for path in paths:
        html = client.get(path).get_data(as_text=True)
        for form in re.findall(r"<form[^>]*method=\"post\".*?</form>", html, re.S):
            assert 'name="csrf_token"' in form, (path, form[:200])


def test_the_next_evening_registers_the_series_players_with_one_tap(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        first = tournament_with(["Hans Schäfer", "Eva Roth", "Otto Bauer", "Ida Kern"], rounds_=1)
        made = series.create_series(first)
        second = series.new_evening(made, idempotency_key="k")
        token = second.token
    # Eva came to the door first and was typed in already
    client.post(
        f"/t/{token}/players",
        data={"name": "Eva Roth", "club": "", "household": "", "number": "", "action": "register"},
    )
    page = client.get(f"/t/{token}/players?lang=en")
    assert "Register the series' 3 other players" in page_text(page)
    data = form_data(page.get_data(as_text=True), "series-register")
    done = client.post(f"/t/{token}/series/people?lang=en", data=data, follow_redirects=True)
    assert "3 players of the series registered" in page_text(done)
    again = client.post(f"/t/{token}/series/people?lang=en", data=data, follow_redirects=True)
    assert "Every player of the series is registered already." in page_text(again)
    with app.app_context():
        evening = setup.get_tournament(token)
        people = {p.name: p.id for p in evening.series.players}
        assert sorted(e.name for e in evening.entrants) == sorted(people)
        assert all(e.series_player_id == people[e.name] for e in evening.entrants)
        assert all(e.number is None for e in evening.entrants)  # not checked in
    assert "Register the series'" not in page_text(client.get(f"/t/{token}/players?lang=en"))
    # without the form's token nothing is registered
    assert client.post(f"/t/{token}/series/people", data={}).status_code == 303
    # a tournament outside a series: 404
    with app.app_context():
        alone = tournament_with(3).token
    assert client.post(f"/t/{alone}/series/people", data=data).status_code == 404


# -- random posts to every series route ----------------------------------------------------

# the series' POST routes and their fields (tests/web/test_fuzz.py fuzzes the match's)
SERIES_FIELDS = {
    "t_series.create": ["name"],
    "t_series.settings": ["name", "counting", "best", "met_across"],
    "t_series.new_evening": ["idempotency_key"],
    "t_series.choose": ["action", "person", "back"],
    "t_series.register_people": [],
}


def test_every_series_post_route_is_fuzzed(app: Flask) -> None:
    posts = {r.endpoint for r in app.url_map.iter_rules() if "POST" in (r.methods or ())}
    assert {e for e in posts if e.startswith("t_series.")} == set(SERIES_FIELDS)


@pytest.mark.parametrize("endpoint", sorted(SERIES_FIELDS))
def test_random_posts_to_the_series_routes_never_fail(endpoint: str) -> None:
    with fresh_app() as app:
        client = app.test_client()
        cup_token, _, first_token = a_series(app, played=False)
        with app.app_context():
            evening = setup.get_tournament(first_token)
            ids = [e.id for e in evening.entrants]
            people = [p.id for p in evening.series.players]
        rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
        keys = SERIES_FIELDS[endpoint] or ["x"]
        values = st.one_of(
            nasty,
            st.sampled_from(["same", "new", "unlink", "all", "best", "every", "series", "y"]),
            st.sampled_from([str(p) for p in people]),
        )

        @SETTINGS
        @given(
            st.dictionaries(st.sampled_from(keys), values, max_size=len(keys)),
            st.sampled_from([*ids, 0, 2**31, 2**63, 10**30]),
            st.booleans(),
        )
        def check(fields: dict[str, str], who: int, htmx: bool) -> None:
            given_values = {"token": first_token, "entrant_id": who}
            if rule.rule.startswith("/cup/"):
                given_values["token"] = cup_token
            with app.test_request_context():
                path = url_for(endpoint, **{k: given_values[k] for k in rule.arguments})
            response = client.post(
                path, data=fields, headers={"HX-Request": "true"} if htmx else {}
            )
            assert response.status_code < 500, (path, fields)
            assert client.get(f"/cup/{cup_token}").status_code == 200
            assert client.get(f"/t/{first_token}/players").status_code == 200

        check()


def test_a_person_of_an_open_choice_is_not_registered_again(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        first = tournament_with(["Hans Schäfer", "Eva Roth", "Otto Bauer"], rounds_=1)
        second = series.new_evening(series.create_series(first), idempotency_key="k")
        token = second.token
    client.post(
        f"/t/{token}/players",
        data={
            "name": "Hans Schaefer",
            "club": "",
            "household": "",
            "number": "",
            "action": "register",
        },
    )
    page = client.get(f"/t/{token}/players?lang=en")
    text = page_text(page)
    assert "Register the series' 2 other players" in text  # Eva and Otto, not Hans Schäfer
    data = form_data(page.get_data(as_text=True), "series-register")
    client.post(f"/t/{token}/series/people", data=data)
    with app.app_context():
        names = sorted(e.name for e in setup.get_tournament(token).entrants)
    assert names == ["Eva Roth", "Hans Schaefer", "Otto Bauer"]
    # the choice is still there to make
    assert "Hans Schaefer — the same as “Hans Schäfer”" in page_text(
        client.get(f"/t/{token}/players?lang=en")
    )
