"""A players' list in another encoding: read as what it is, shown before it is stored, or refused.

UTF-8 (with or without its mark) and UTF-16 come in at once.  A file read as
Windows-1252 (older Excel's CSV) shows its names first, saying how it was read:
the organiser registers them with the page's own button — or not, when they look
garbled, as a Shift-JIS file read that way does (its names are marked).  A file that
is UTF-8 but for a stray byte, or that Windows-1252 cannot read, is refused with what
to do.  Nothing is registered before the organiser has seen the names.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.services.tournaments import setup
from tests.builders import browser_form, page_text

JAPANESE = ["山田太郎", "鈴木花子", "伊藤一郎"]


def new(app: Flask) -> str:
    with app.app_context():
        return setup.create_tournament(name="Herbstturnier", rounds=3).token


def names(app: Flask, token: str) -> list[str]:
    with app.app_context():
        return sorted(e.name for e in setup.get_tournament(token).entrants)


def upload(client: FlaskClient, token: str, data: bytes, name: str = "Mitglieder.csv") -> Any:
    page = client.get(f"/t/{token}/players").get_data(as_text=True)
    form = dict(browser_form(page, "import-form"))
    form["file"] = (io.BytesIO(data), name)  # type: ignore[assignment]
    return client.post(f"/t/{token}/players/import", data=form, content_type="multipart/form-data")


def confirm(client: FlaskClient, token: str, check: Any) -> str:
    """The organiser taps "Ja, … anmelden": the flashed words on the players page."""
    html = check.get_data(as_text=True)
    data = browser_form(html, "import-check-form")
    done = client.post(f"/t/{token}/players/import", data=dict(data))
    assert done.status_code == 303
    return page_text(client.get(done.headers["Location"]))


def test_a_windows_1252_list_shows_its_names_then_registers_them(
    app: Flask, client: FlaskClient
) -> None:
    token = new(app)
    data = "Name;Verein\r\nJürgen Weiß;SV Öhringen\r\nBärbel Šimek;\r\n=1+1\r\n".encode("cp1252")
    check = upload(client, token, data)
    assert check.status_code == 200
    text = page_text(check)
    assert "Die Datei wurde als Windows-1252 (westeuropäisch) gelesen, nicht als UTF-8" in text
    assert "Jürgen Weiß · SV Öhringen" in text and "Bärbel Šimek" in text
    assert "verstümmelt?" not in text  # real names, nothing marked
    assert "Zeile 4: „=1+1“ sieht nach einer Formel aus" in text
    assert "Ja, diese 2 Spieler anmelden" in text
    assert names(app, token) == []  # nothing stored before the organiser says so
    shown = confirm(client, token, check)
    assert "2 Spieler angemeldet." in shown
    assert names(app, token) == ["Bärbel Šimek", "Jürgen Weiß"]


def test_a_shift_jis_list_read_as_windows_1252_is_shown_garbled_and_stored_only_if_wanted(
    app: Flask, client: FlaskClient
) -> None:
    token = new(app)
    data = "\r\n".join(JAPANESE).encode("shift_jis")
    check = upload(client, token, data)
    assert check.status_code == 200
    html = check.get_data(as_text=True)
    text = page_text(html)
    assert "als Windows-1252 (westeuropäisch) gelesen" in text
    assert "3 Namen enthalten Zeichen, die kein Name hat" in text
    assert html.count('class="t-garbled"') == 3
    assert not any(name in text for name in JAPANESE)
    assert names(app, token) == []
    # "Nein": back to the players page, nobody registered
    assert 'href="/t/' + token + '/players#import">Nein, niemanden anmelden' in html
    assert names(app, token) == []


@pytest.mark.parametrize(
    ("data", "words"),
    [
        # the ideographic space of Shift-JIS has a byte Windows-1252 does not have
        (
            "山田\u3000太郎\r\n鈴木\u3000花子\r\n".encode("shift_jis"),
            "Die Zeichen der Datei sind weder UTF-8 noch Windows-1252",
        ),
        # UTF-8 with a stray byte on line 3
        (
            "Jörg Müller\nAnna Maier\n".encode() + b"Jos\xe9 Ruiz\n",
            "Zeile 3 der Datei ist kein UTF-8",
        ),
        ("Jörg Müller\nAnna\n".encode() + b"\xff\xfe\n", "Zeile 3 der Datei ist kein UTF-8"),
    ],
)
def test_a_list_no_encoding_reads_is_refused_naming_what_to_do(
    app: Flask, client: FlaskClient, data: bytes, words: str
) -> None:
    token = new(app)
    refused = upload(client, token, data)
    assert refused.status_code == 422
    text = page_text(refused)
    assert words in text and "CSV UTF-8" in text
    assert names(app, token) == []


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16"])
def test_a_utf_list_is_registered_at_once(app: Flask, client: FlaskClient, encoding: str) -> None:
    token = new(app)
    data = "\r\n".join([*JAPANESE, "Jürgen Weiß"]).encode(encoding)
    done = upload(client, token, data)
    assert done.status_code == 303
    assert names(app, token) == sorted([*JAPANESE, "Jürgen Weiß"])


def test_the_confirmed_list_is_the_names_as_shown_not_the_file(
    app: Flask, client: FlaskClient
) -> None:
    """Names with semicolons, commas and quotes come back as they were read."""
    token = new(app)
    data = 'Maier, Anna;"TSV; Abt. Binokel"\r\nO\'Brien;\r\n"Hüber ""Hansi"" Karl";SV\r\n'.encode(
        "cp1252"
    )
    check = upload(client, token, data)
    assert check.status_code == 200
    confirm(client, token, check)
    assert names(app, token) == ['Hüber "Hansi" Karl', "Maier, Anna", "O'Brien"]
    with app.app_context():
        clubs = {e.name: e.club for e in setup.get_tournament(token).entrants}
    assert clubs["Maier, Anna"] == "TSV; Abt. Binokel"
