"""German by default, English switchable; the choice is remembered by a cookie."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.builders import page_text, setup_data, start_match


def lang_of(html: str) -> str:
    return html.split('<html lang="', 1)[1].split('"', 1)[0]


def test_german_by_default(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    assert lang_of(html) == "de"
    assert 'hreflang="en"' in html


def test_query_switches_and_is_remembered(client: FlaskClient) -> None:
    response = client.get("/?lang=en")
    assert lang_of(response.get_data(as_text=True)) == "en"
    cookie = client.get_cookie("lang")
    assert cookie is not None and cookie.value == "en"
    # the next request without ?lang= stays English
    assert lang_of(client.get("/new").get_data(as_text=True)) == "en"
    client.get("/?lang=de")
    assert lang_of(client.get("/new").get_data(as_text=True)) == "de"


def test_language_link_sets_the_cookie_and_goes_back(client: FlaskClient) -> None:
    response = client.get("/language/en?next=/new")
    assert response.status_code == 302
    assert response.headers["Location"] == "/new"
    assert client.get_cookie("lang").value == "en"  # type: ignore[union-attr]
    assert lang_of(client.get("/new").get_data(as_text=True)) == "en"


def test_language_link_never_leaves_the_site(client: FlaskClient) -> None:
    for target in ("https://evil.example/", "//evil.example/", "javascript:alert(1)"):
        response = client.get("/language/de", query_string={"next": target})
        assert response.status_code == 302
        assert response.headers["Location"] == "/"


def test_unknown_language_is_ignored(client: FlaskClient) -> None:
    client.get("/?lang=xx")
    assert client.get_cookie("lang") is None
    assert lang_of(client.get("/").get_data(as_text=True)) == "de"
    response = client.get("/language/xx")
    assert response.status_code == 302
    assert client.get_cookie("lang") is None
    client.set_cookie("lang", "fr")
    assert lang_of(client.get("/").get_data(as_text=True)) == "de"


def test_error_message_in_the_chosen_language(client: FlaskClient) -> None:
    data = setup_data(client, [])
    english = client.post("/new?lang=en", data=data)
    assert "Enter at least two players." in page_text(english)
    german = client.post("/new?lang=de", data=data)
    assert lang_of(german.get_data(as_text=True)) == "de"
    assert german.status_code == 422


def test_match_pages_follow_the_language(client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert", "Carl"])
    client.get("/language/en")
    for url in (f"/m/{token}", f"/m/{token}/rules"):
        assert lang_of(client.get(url).get_data(as_text=True)) == "en"


def test_every_kind_of_form_message_is_german_in_the_german_ui(client: FlaskClient) -> None:
    """WTForms' own messages too (required, choice, length) and the number fields'."""
    data = setup_data(client, ["Anna", "Bert", "Carl"])
    data.update({"rule-target": "", "title": "x" * 500, "stake_basis": "zzz"})
    data["rule-min_bid"] = "9" * 309
    text = page_text(client.post("/new", data=data))
    for german in (
        "Dieses Feld wird benötigt.",
        "Keine gültige Auswahl.",
        "Feld kann nicht länger als 80 Zeichen sein.",
        "Bitte eine ganze Zahl von 0 bis",
    ):
        assert german in text
    for english in ("This field is required", "Not a valid", "Number must be", "Field cannot"):
        assert english not in text


def test_a_language_forced_in_a_request_is_the_one_its_page_speaks(client: FlaskClient) -> None:
    """The templates' words are looked up once per request and language
    (``words.translations``): a language forced for a page (the offline page is asked
    for in each language) is followed, and so is the request's own language after it."""
    german = {"Accept-Language": "de"}
    english = client.get("/offline/en", headers=german).get_data(as_text=True)
    assert "No connection" in english and "Keine Verbindung" not in english
    also = client.get("/offline/de", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Keine Verbindung" in also and "No connection" not in also
    home = client.get("/", headers=german).get_data(as_text=True)
    assert '<html lang="de">' in home


def test_the_kept_translations_follow_a_forced_language_both_ways(app: Flask) -> None:
    from flask_babel import force_locale

    from scorer.words import translations

    with app.test_request_context("/?lang=de"):
        app.preprocess_request()
        assert translations().ugettext("No connection") == "Keine Verbindung"
        with force_locale("en"):
            assert translations().ugettext("No connection") == "No connection"
        assert translations().ugettext("No connection") == "Keine Verbindung"
