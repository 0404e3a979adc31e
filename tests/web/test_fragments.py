"""The cached parts of the match page (``scorer.cache``) read exactly as rendered afresh."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer import cache, services
from tests.builders import HX, fill_hand, form_data, hand_input, service_match

NAMES = ["Anna", "Bernd", "Carl"]
A_HAND = {"declarer": 0, "bid": 150, "trump": "H", "melds": [40, 20, 0], "tricks": [150, 60, 40]}
# the values that differ on every render: a fresh idempotency key each time, and the
# CSRF token is signed with the time (to the second)
KEY = re.compile(r'(name="idempotency_key" type="hidden" value=")[^"]*"')
CSRF = re.compile(r"[\w-]{20,}\.[\w-]{6}\.[\w-]{20,}")


def _page(client: FlaskClient, url: str, **kwargs: object) -> str:
    html = client.get(url, **kwargs).get_data(as_text=True)  # type: ignore[arg-type]
    return CSRF.sub("CSRF", KEY.sub(r'\1"', html))


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_cached_page_reads_as_a_fresh_render(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    tokens = [
        service_match(app, NAMES, 12, target=100_000),
        service_match(app, [*NAMES, "Dora"], 8, target=100_000, dealer_sits_out=True),
        service_match(app, ["A", "B", "C", "D"], 5, preset="standard", target=100_000),
        service_match(app, NAMES, 40, target=1000),  # over: no form
    ]
    for token in tokens:
        url = f"/m/{token}?lang={lang}"
        cache.clear(app)
        first = _page(client, url)  # renders and keeps the table and the form
        again = _page(client, url)  # both from the cache
        fragment = _page(client, url, headers=HX)
        monkeypatch.setitem(app.config, "PAGE_CACHE", False)
        fresh = _page(client, url)
        fresh_fragment = _page(client, url, headers=HX)
        monkeypatch.setitem(app.config, "PAGE_CACHE", True)
        assert first == again == fresh, token
        assert fragment == fresh_fragment, token
        assert 'id="sheet"' in fresh


def test_the_cached_form_carries_this_request_s_csrf_token_and_a_new_key(
    csrf_app: Flask,
) -> None:
    token = service_match(csrf_app, NAMES, 3, target=100_000)
    keys = set()
    for _ in range(2):
        client = csrf_app.test_client()  # another phone: another session, another token
        pages = [client.get(f"/m/{token}").get_data(as_text=True) for _ in range(2)]
        for html in pages:
            assert "MARK" not in html
            keys.add(re.search(r'name="idempotency_key" type="hidden" value="([^"]+)"', html)[1])  # type: ignore[index]
        csrf = [re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', h)[1] for h in pages]  # type: ignore[index]
        # the token the session holds: a hand posted with it is accepted
        response = client.post(
            f"/m/{token}/hands/preview", data={"csrf_token": csrf[1]}, headers=HX
        )
        assert response.status_code == 200
    assert len(keys) == 4


def test_an_unchanged_page_is_kept_and_a_change_shows_at_once(
    app: Flask, client: FlaskClient
) -> None:
    token = service_match(app, NAMES, 3, target=100_000)
    cache.clear(app)
    client.get(f"/m/{token}")
    assert len(cache.caches_of(app).pages) == 1
    html = client.get(f"/m/{token}").get_data(as_text=True)
    assert html.count('<tr id="hand-') == 3
    with app.app_context():
        services.save_hand(services.get_match(token), hand_input(3, 7))
    html = client.get(f"/m/{token}").get_data(as_text=True)
    assert html.count('<tr id="hand-') == 4
    assert len(cache.caches_of(app).pages) == 2  # the old version is simply not asked for again


def test_a_two_player_page_is_always_rendered(app: Flask, client: FlaskClient) -> None:
    # its forms change with every meld written (and carry their own keys): not kept
    token = service_match(app, ["Anna", "Bernd"], preset="schweizer")
    cache.clear(app)
    for _ in range(2):
        assert client.get(f"/m/{token}").status_code == 200
    assert not len(cache.caches_of(app).pages)


def test_a_flashed_message_is_shown_once_on_a_kept_page(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, NAMES, 2, target=100_000)
    client.get(f"/m/{token}")  # kept
    with client.session_transaction() as session:
        session["_flashes"] = [("ok", "Imported 1 sessions with 1 matches.")]
    assert "Imported 1 sessions" in client.get(f"/m/{token}").get_data(as_text=True)
    assert "Imported 1 sessions" not in client.get(f"/m/{token}").get_data(as_text=True)


def test_the_form_the_page_rendered_answers_the_save_after_it(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The empty hand form is kept per match, language and site, not per address: the
    page's form is the one a save over htmx answers with (rendered once, its version
    and key put in), and it reads as the form rendered afresh."""
    token = service_match(app, NAMES, 3, target=100_000)
    cache.clear(app)
    rendered: list[object] = []
    real = cache._render_form

    def counted(*args: Any, **kwargs: Any) -> str:
        rendered.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(cache, "_render_form", counted)
    page = client.get(f"/m/{token}").get_data(as_text=True)
    assert len(rendered) == 1
    data = fill_hand(form_data(page, "hand-form"), **A_HAND)
    saved = client.post(f"/m/{token}/hands", data=data, headers=HX)
    assert saved.status_code == 200 and "Spiel 5" in saved.get_data(as_text=True)
    assert len(rendered) == 1  # the page's form, with the new version and a new key
    kept = form_data(saved.get_data(as_text=True), "hand-form")
    assert kept["version"] == str(int(data["version"]) + 1)
    assert kept["idempotency_key"] != data["idempotency_key"]
    form = re.compile(r'<form id="hand-form".*?</form>', re.S)
    answer = form.search(CSRF.sub("CSRF", KEY.sub(r'\1"', saved.get_data(as_text=True))))
    monkeypatch.setitem(app.config, "PAGE_CACHE", False)
    fresh = form.search(_page(client, f"/m/{token}", headers=HX))
    assert answer is not None and fresh is not None
    assert answer.group(0) == fresh.group(0)
