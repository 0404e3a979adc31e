"""The players page: registration at the door, check-in taps, search, lists, files.

Flask test client, a fresh database per test.  Without JavaScript every form
is POST, redirect, GET; with htmx a tap answers its row and the count.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from openpyxl import Workbook

from scorer.extensions import db
from scorer.services.tournaments import entrants, setup
from scorer.tournament_models import Entrant, Tournament
from tests.builders import HX, browser_form, form_data, page_text
from tests.tournament_builders import drawn, play_round, tournament_with


def new(app: Flask, players: int = 0, *, present: int = 0, rounds_: int = 3) -> str:
    """A tournament with ``players`` registered, the first ``present`` checked in."""
    with app.app_context():
        tournament = setup.create_tournament(name="Herbstturnier", rounds=rounds_)
        for i in range(players):
            entrants.register(tournament, f"Spieler {i + 1:02d}", present=i < present)
        return tournament.token


def people(app: Flask, token: str) -> dict[str, tuple[int | None, int | None, int | None]]:
    """name → (start number, from round, withdrawn before)."""
    with app.app_context():
        tournament = setup.get_tournament(token)
        return {e.name: (e.number, e.from_round, e.withdrawn_before) for e in tournament.entrants}


def entrant_id(app: Flask, token: str, name: str) -> int:
    with app.app_context():
        tournament = setup.get_tournament(token)
        return next(e.id for e in tournament.entrants if e.name == name)


def register(client: FlaskClient, token: str, **fields: Any) -> Any:
    data = {"name": "", "club": "", "household": "", "number": "", "action": "present"}
    data.update({k: str(v) for k, v in fields.items()})
    return client.post(f"/t/{token}/players", data=data)


def tap(client: FlaskClient, token: str, who: int, action: str, number: str = "", **kw: Any) -> Any:
    return client.post(f"/t/{token}/players/{who}", data={"action": action, "number": number}, **kw)


# -- the page ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "de",
            [
                "Anmeldung und Anwesenheit",
                "Spieler anmelden",
                "Anmelden, anwesend",
                "Haushalt",
                "Liste übernehmen",
            ],
        ),
        (
            "en",
            [
                "Registration and check-in",
                "Register a player",
                "Register, present",
                "Household",
                "Import a list",
            ],
        ),
    ],
)
def test_players_page_in_both_languages(
    app: Flask, client: FlaskClient, lang: str, words: list[str]
) -> None:
    token = new(app, 4, present=3)
    response = client.get(f"/t/{token}/players?lang={lang}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    for word in words:
        assert word in html, word
    assert html.count('class="t-player ') == 4


def test_every_form_has_its_csrf_field(csrf_app: Flask) -> None:
    token = new(csrf_app, 3, present=2)
    client = csrf_app.test_client()
    for path in (f"/t/{token}/players", "/t/new", f"/t/{token}", f"/t/{token}/settings"):
        html = client.get(path).get_data(as_text=True)
        forms = re.findall(r"<form[^>]*method=\"post\".*?</form>", html, re.S)
        assert forms, path
        for form in forms:
            assert 'name="csrf_token"' in form, (path, form[:200])
    anna = entrant_id(csrf_app, token, "Spieler 01")
    html = client.get(f"/t/{token}/players/{anna}/edit").get_data(as_text=True)
    assert html.count('name="csrf_token"') == html.count('method="post"')
    # a tap without its token changes nothing
    assert (
        client.post(f"/t/{token}/players/{anna}", data={"action": "check_out"}).status_code == 400
    )


def test_the_tables_the_players_make(app: Flask, client: FlaskClient) -> None:
    token = new(app, 18, present=17)
    text = page_text(client.get(f"/t/{token}/players").get_data(as_text=True))
    assert "Runde 1: 17 Spieler → 2 Tische zu 4, 3 Tische zu 3" in text
    english = page_text(client.get(f"/t/{token}/players?lang=en").get_data(as_text=True))
    assert "Round 1: 17 players → 2 tables of 4, 3 tables of 3" in english


@pytest.mark.parametrize(
    ("present", "words"),
    [
        (0, "mindestens 3 Spieler, nicht 0"),
        (2, "mindestens 3 Spieler, nicht 2"),
        (5, "5 Spieler passen nicht an Dreier- und Vierertische"),
    ],
)
def test_a_clear_hint_when_the_players_make_no_round(
    app: Flask, client: FlaskClient, present: int, words: str
) -> None:
    token = new(app, present + 1, present=present)
    html = client.get(f"/t/{token}/players").get_data(as_text=True)
    assert words in page_text(html)
    assert "t-problem" in html


def hint_of(html: str) -> str:
    """The count's hint about the next round (its problem and what to do), as text."""
    return page_text(html.split('id="tables-hint"', 1)[1].split("</p>", 1)[0])


def test_players_registered_but_not_here_are_to_be_marked_present(
    app: Flask, client: FlaskClient
) -> None:
    """Nine registered, none present: the remedy is to mark them present, not to
    register more (issue 34 §7: "weitere Spieler anmelden")."""
    token = new(app, 9, present=0)
    hint = hint_of(client.get(f"/t/{token}/players").get_data(as_text=True))
    assert "anmelden" not in hint
    assert "weitere Spieler als anwesend eintragen" in hint
    assert "9 angemeldete Spieler sind noch nicht als da markiert" in hint
    assert "„Alle anwesend“" in hint
    english = hint_of(client.get(f"/t/{token}/players?lang=en").get_data(as_text=True))
    assert "9 registered players are not marked present yet" in english
    # the organiser's page, beside the draw that cannot be made yet: the way there
    home = client.get(f"/t/{token}?lang=de").get_data(as_text=True)
    problem = home.split('id="draw-problem"', 1)[1].split("</p>", 1)[0]
    assert "9 angemeldete Spieler sind noch nicht als da markiert" in page_text(problem)
    assert f'href="/t/{token}/players" id="draw-remedy"' in problem
    # one of three checked in by a tap (htmx): the count that comes with the row says
    # two are still to be marked
    token = new(app, 3, present=0)
    first = entrant_id(app, token, "Spieler 01")
    html = tap(client, token, first, "check_in", headers=HX).get_data(as_text=True)
    assert "2 angemeldete Spieler sind noch nicht als da markiert" in hint_of(html)
    # everyone there: the tables, and nothing left to do
    for name in ("Spieler 02", "Spieler 03"):
        tap(client, token, entrant_id(app, token, name), "check_in")
    html = client.get(f"/t/{token}/players").get_data(as_text=True)
    assert "3 Spieler → 1 Tisch zu 3" in hint_of(html)
    assert "tables-remedy" not in html


def test_search_by_name_or_number_for_htmx(app: Flask, client: FlaskClient) -> None:
    token = new(app, 12, present=12)
    response = client.get(f"/t/{token}/players?q=spieler+1", headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<html" not in html and 'id="player-list"' in html
    assert html.count('class="t-player ') == 3  # 10, 11, 12
    by_number = client.get(f"/t/{token}/players?q=7", headers=HX).get_data(as_text=True)
    assert "Spieler 07" in by_number and by_number.count('class="t-player ') == 1
    for hostile in ("\x00", "9" * 5000, "%", "_"):
        assert client.get(f"/t/{token}/players", query_string={"q": hostile}).status_code == 200
    nothing = client.get(f"/t/{token}/players?q=zzz").get_data(as_text=True)
    assert "Kein Spieler passt zu „zzz“." in nothing
    ordered = client.get(f"/t/{token}/players?sort=number&q=").get_data(as_text=True)
    assert ordered.index("Spieler 01") < ordered.index("Spieler 02")


# -- registering at the door ---------------------------------------------------------------------


def test_register_present_gives_the_next_number(app: Flask, client: FlaskClient) -> None:
    token = new(app, 2, present=2)
    response = register(client, token, name="Anna Maier", club="TSV", household="Maier")
    assert response.status_code == 303 and response.headers["Location"].endswith("added=1#register")
    assert people(app, token)["Anna Maier"] == (3, 1, None)
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Anna Maier ist angemeldet und anwesend: Startnummer 3." in html
    assert re.search(r'<input[^>]*autofocus[^>]*id="name"|<input[^>]*id="name"[^>]*autofocus', html)


def test_register_only_and_a_typed_number(app: Flask, client: FlaskClient) -> None:
    token = new(app)
    assert register(client, token, name="Bert", action="register").status_code == 303
    assert register(client, token, name="Carl", number=12).status_code == 303
    assert people(app, token) == {"Bert": (None, None, None), "Carl": (12, 1, None)}


def test_a_number_typed_twice(app: Flask, client: FlaskClient) -> None:
    token = new(app)
    register(client, token, name="Anna Maier", number=12)
    response = register(client, token, name="Bert Huber", club="SV", number=12)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Startnummer 12 hat schon Anna Maier" in html
    kept = form_data(html, "register-form")
    assert (kept["name"], kept["club"], kept["number"]) == ("Bert Huber", "SV", "12")
    assert "Bert Huber" not in people(app, token)


def test_the_same_name_twice(app: Flask, client: FlaskClient) -> None:
    token = new(app)
    register(client, token, name="Anna Maier", club="TSV")
    refused = register(client, token, name="anna maier", club="TSV")
    assert refused.status_code == 422
    assert "Anna Maier (TSV) ist schon angemeldet" in refused.get_data(as_text=True)
    allowed = register(client, token, name="Anna Maier", club="SV Oberdorf")
    assert allowed.status_code == 303
    html = client.get(allowed.headers["Location"]).get_data(as_text=True)
    assert "Es gibt schon Anna Maier (TSV)" in html


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "An\x00na"}, "name"),
        ({"name": "A" * 5000}, "name"),
        ({"name": "Anna", "club": "\x1b[31m"}, "club"),
        ({"name": "Anna", "number": str(10**309)}, "number"),
        ({"name": "Anna", "number": "1e309"}, "number"),
        ({"name": "Anna", "number": "0"}, "number"),
        ({"name": "Anna", "household": "H" * 500}, "household"),
    ],
)
def test_hostile_registrations_are_refused_with_the_values_kept(
    app: Flask, client: FlaskClient, fields: dict[str, str], field: str
) -> None:
    token = new(app)
    response = register(client, token, **fields)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert f'id="{field}-err"' in html and "Bitte die markierten Felder korrigieren." in html
    assert people(app, token) == {}


# -- taps on a row ---------------------------------------------------------------------------------


def test_check_in_tap_without_javascript(app: Flask, client: FlaskClient) -> None:
    token = new(app, 3)
    who = entrant_id(app, token, "Spieler 02")
    response = tap(client, token, who, "check_in")
    assert response.status_code == 303 and response.headers["Location"].endswith(f"#p-{who}")
    assert people(app, token)["Spieler 02"] == (1, 1, None)
    assert tap(client, token, who, "check_out").status_code == 303
    assert people(app, token)["Spieler 02"] == (None, None, None)


def test_check_in_tap_with_htmx_answers_the_row_and_the_count(
    app: Flask, client: FlaskClient
) -> None:
    token = new(app, 3, present=2)
    who = entrant_id(app, token, "Spieler 03")
    response = tap(client, token, who, "check_in", "7", headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<html" not in html
    assert f'id="p-{who}"' in html and '<span class="t-number"' in html and ">7<" in html
    assert 'id="player-count" hx-swap-oob="true"' in html
    assert "Runde 1: 3 Spieler → 1 Tisch zu 3" in page_text(html)


def test_a_number_typed_twice_on_a_row(app: Flask, client: FlaskClient) -> None:
    token = new(app, 2, present=1)
    who = entrant_id(app, token, "Spieler 02")
    response = tap(client, token, who, "check_in", "1", headers=HX)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Startnummer 1 hat schon Spieler 01" in html
    assert re.search(r'name="number"[^>]*value="1"', html)  # what was typed stays
    plain = tap(client, token, who, "check_in", "1")
    assert plain.status_code == 303
    page = client.get(plain.headers["Location"]).get_data(as_text=True)
    assert "Spieler 02: Startnummer 1 hat schon Spieler 01" in page
    assert people(app, token)["Spieler 02"] == (None, None, None)


@pytest.mark.parametrize(
    ("action", "number"),
    [("dance", ""), ("check_in", "\x00"), ("check_in", "9" * 400), ("", ""), ("check_in", "-1")],
)
def test_hostile_taps(app: Flask, client: FlaskClient, action: str, number: str) -> None:
    token = new(app, 1)
    who = entrant_id(app, token, "Spieler 01")
    response = tap(client, token, who, action, number, headers=HX)
    assert response.status_code == 422
    assert people(app, token)["Spieler 01"] == (None, None, None)


def test_rows_of_other_tournaments_and_huge_ids_are_not_found(
    app: Flask, client: FlaskClient
) -> None:
    token = new(app, 1)
    other = new(app, 1)
    theirs = entrant_id(app, other, "Spieler 01")
    assert tap(client, token, theirs, "check_in").status_code == 404
    for huge in ("2147483648", "9" * 400):
        assert (
            client.post(f"/t/{token}/players/{huge}", data={"action": "check_in"}).status_code
            == 404
        )
        assert client.get(f"/t/{token}/players/{huge}/edit").status_code == 404


def test_late_arrival_and_withdrawal_between_rounds(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(6, rounds_=3)
        token = tournament.token
        row = drawn(tournament)
    register(client, token, name="Zenzi")
    assert people(app, token)["Zenzi"] == (7, 2, None)
    html = client.get(f"/t/{token}/players").get_data(as_text=True)
    assert "ab Runde 2" in html
    anna = entrant_id(app, token, "Anna")
    assert tap(client, token, anna, "check_out", headers=HX).status_code == 422
    asked = tap(client, token, anna, "withdraw")  # asked once: a mis-tap signs nobody off
    assert asked.status_code == 303 and people(app, token)["Anna"] == (1, 1, None)
    question = client.get(asked.headers["Location"]).get_data(as_text=True)
    assert "Anna wirklich abmelden?" in page_text(question)
    row = question.split(f'id="p-{anna}"', 1)[1].split("</li>", 1)[0]
    assert re.search(r'<button type="submit" class="danger" name="action" value="withdraw"', row)
    sure = form_data(row) | {"action": "withdraw"}  # the button "Ja, abmelden"
    assert sure["sure"] == "1" and sure["csrf_token"]
    assert client.post(f"/t/{token}/players/{anna}", data=sure).status_code == 303
    assert people(app, token)["Anna"] == (1, 1, 2)
    html = client.get(f"/t/{token}/players").get_data(as_text=True)
    assert "abgemeldet vor Runde 2" in html and 'value="rejoin"' in html
    assert tap(client, token, anna, "rejoin").status_code == 303
    assert people(app, token)["Anna"] == (1, 1, None)
    client.post(f"/t/{token}/players/{anna}", data={"action": "withdraw", "sure": "1"})
    with app.app_context():
        tournament = setup.get_tournament(token)
        from scorer.services.tournaments import rounds

        play_round(tournament.round_rows[0])
        rounds.close_round(tournament, tournament.round_rows[0])
        drawn(tournament, 2)
    response = tap(client, token, anna, "rejoin", headers=HX)
    assert response.status_code == 422
    assert "Runde 2 ist ohne Anna ausgelost" in response.get_data(as_text=True)
    assert row is not None


# -- editing -------------------------------------------------------------------------------------


def test_edit_and_remove_a_player(app: Flask, client: FlaskClient) -> None:
    token = new(app, 2)
    who = entrant_id(app, token, "Spieler 01")
    page = client.get(f"/t/{token}/players/{who}/edit?lang=en")
    assert page.status_code == 200 and "Remove Spieler 01" in page.get_data(as_text=True)
    data = form_data(page.get_data(as_text=True), "edit-form")
    data.update({"name": "Anna Maier", "club": "TSV"})
    assert client.post(f"/t/{token}/players/{who}/edit", data=data).status_code == 303
    data["name"] = "Spieler 02"
    data["club"] = ""
    refused = client.post(f"/t/{token}/players/{who}/edit", data=data)
    assert refused.status_code == 422
    assert "Spieler 02 is registered already" in refused.get_data(as_text=True)
    data["name"] = "\x00"
    assert client.post(f"/t/{token}/players/{who}/edit", data=data).status_code == 422
    assert client.post(f"/t/{token}/players/{who}/remove").status_code == 303
    assert set(people(app, token)) == {"Spieler 02"}


def test_a_drawn_player_is_not_removed(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(3)
        token = tournament.token
        drawn(tournament)
    anna = entrant_id(app, token, "Anna")
    assert "Anna löschen" not in client.get(f"/t/{token}/players/{anna}/edit").get_data(
        as_text=True
    )
    response = client.post(f"/t/{token}/players/{anna}/remove")
    assert response.status_code == 422 and "Anna ist schon ausgelost" in response.get_data(
        as_text=True
    )
    assert "Anna" in people(app, token)


# -- lists -------------------------------------------------------------------------------------


def upload(client: FlaskClient, token: str, name: str, data: bytes, **kw: Any) -> Any:
    return client.post(
        f"/t/{token}/players/import",
        data={"text": "", "file": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
        **kw,
    )


def flashes(client: FlaskClient, response: Any) -> str:
    assert response.status_code == 303, page_text(response.get_data(as_text=True))[:500]
    return page_text(client.get(response.headers["Location"]).get_data(as_text=True))


def test_paste_a_list_with_junk_lines(app: Flask, client: FlaskClient) -> None:
    token = new(app)
    text = "Name; Verein\nAnna Maier; TSV\n=1+1\nBert Huber\n\n12\nAnna Maier;TSV\nCarl\x00\n"
    shown = flashes(client, client.post(f"/t/{token}/players/import", data={"text": text}))
    assert "2 Spieler angemeldet." in shown
    assert "4 Zeilen wurden übersprungen:" in shown
    assert "Zeile 3: „=1+1“ sieht nach einer Formel aus" in shown
    assert "Zeile 6: „12“ ist eine Zahl, kein Name" in shown
    assert "Zeile 7: Anna Maier steht zweimal in der Liste (Zeile 2)" in shown
    assert "Zeile 8: der Name enthält Steuerzeichen" in shown
    assert set(people(app, token)) == {"Anna Maier", "Bert Huber"}
    again = flashes(
        client, client.post(f"/t/{token}/players/import", data={"text": "Anna Maier; TSV"})
    )
    assert "0 Spieler angemeldet." in again and "Anna Maier (TSV) ist schon angemeldet" in again


def test_upload_a_csv_from_excel(app: Flask, client: FlaskClient) -> None:
    token = new(app)
    data = "Name;Verein\r\nJürgen Weiß;SV Öhringen\r\nBärbel;\r\n".encode("cp1252")
    # read as Windows-1252: the names are shown first (tests/web/test_tournament_list_encodings)
    check = upload(client, token, "Mitglieder.csv", data)
    assert check.status_code == 200 and people(app, token) == {}
    confirm = dict(browser_form(check.get_data(as_text=True), "import-check-form"))
    shown = flashes(client, client.post(f"/t/{token}/players/import", data=confirm))
    assert "2 Spieler angemeldet." in shown and "wurden übersprungen" not in shown
    assert set(people(app, token)) == {"Jürgen Weiß", "Bärbel"}


def test_upload_an_excel_sheet(app: Flask, client: FlaskClient) -> None:
    book = Workbook()
    for line in (["Name", "Verein"], ["Anna Maier", "TSV"], ["Bert Huber", None], [42, "x"]):
        book.active.append(line)
    out = io.BytesIO()
    book.save(out)
    shown = flashes(client, upload(client, token := new(app), "Liste.xlsx", out.getvalue()))
    assert "2 Spieler angemeldet." in shown and "Zeile 4: „42“ ist kein Name" in shown
    assert set(people(app, token)) == {"Anna Maier", "Bert Huber"}


@pytest.mark.parametrize(
    ("name", "data", "words"),
    [
        ("Liste.xlsx", b"PK\x03\x04" + b"\x00" * 300, "Die Mappe ist nicht lesbar"),
        ("Liste.xlsx", b"Anna;TSV\n", "keine Excel-Mappe"),
        ("Liste.pdf", b"%PDF-1.4", "lassen sich nicht übernehmen"),
        ("Liste.csv", b"\x00" * 400, "keine Textdatei"),
        ("Liste.csv", b"", "Die Datei ist leer"),
    ],
)
def test_files_that_cannot_be_read_import_nothing(
    app: Flask, client: FlaskClient, name: str, data: bytes, words: str
) -> None:
    token = new(app)
    response = upload(client, token, name, data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert words in page_text(html)
    assert 'id="import"' in html and re.search(
        r'<details class="card t-import" id="import"\s+open', html
    )
    assert people(app, token) == {}


def test_an_empty_import_says_what_to_do(app: Flask, client: FlaskClient) -> None:
    token = new(app)
    response = client.post(f"/t/{token}/players/import", data={"text": "  \n "})
    assert response.status_code == 422
    assert "Namen einfügen oder eine Datei wählen." in page_text(response.get_data(as_text=True))


def test_a_file_over_the_upload_limit(app: Flask, client: FlaskClient) -> None:
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024
    token = new(app)
    response = upload(client, token, "Liste.csv", b"Anna\n" * 20_000)
    assert response.status_code == 413
    assert "Nichts wurde übernommen: die Datei ist größer als" in page_text(
        response.get_data(as_text=True)
    )


def test_a_thousand_and_one_lines_import_nothing(app: Flask, client: FlaskClient) -> None:
    token = new(app)
    text = "\n".join(f"Spieler {i}" for i in range(1001))
    response = client.post(f"/t/{token}/players/import", data={"text": text})
    assert response.status_code == 422
    assert "mehr als 1000 Zeilen" in page_text(response.get_data(as_text=True))
    kept = re.search(r"<textarea[^>]*>(.*?)</textarea>", response.get_data(as_text=True), re.S)
    assert kept and "Spieler 1000" in kept.group(1)
    assert people(app, token) == {}


def test_names_of_earlier_tournaments_are_suggested(app: Flask, client: FlaskClient) -> None:
    last_year = new(app, 2)
    client.get(f"/t/{last_year}")  # this device organised it
    this_year = new(app, 1)
    html = client.get(f"/t/{this_year}/players").get_data(as_text=True)
    datalist = re.search(r'<datalist id="known-names">(.*?)</datalist>', html, re.S)
    assert datalist and 'value="Spieler 02"' in datalist.group(1)
    assert 'value="Spieler 01"' not in datalist.group(1)  # registered here already
    stranger = app.test_client()
    html = stranger.get(f"/t/{this_year}/players").get_data(as_text=True)
    assert 'value="Spieler 02"' not in html  # never a name from another device


def test_withdrawn_and_late_marks_in_english(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(6, rounds_=3)
        token = tournament.token
        drawn(tournament)
        entrants.withdraw(tournament, tournament.entrants[0])
        entrants.register(tournament, "Zenzi", present=True)
    text = page_text(client.get(f"/t/{token}/players?lang=en").get_data(as_text=True))
    assert "withdrawn before round 2" in text and "from round 2" in text
    assert "Round 2: 6 players → 2 tables of 3" in text


def test_tournament_rows_are_untouched_by_a_bad_request(app: Flask, client: FlaskClient) -> None:
    token = new(app, 2, present=2)
    with app.app_context():
        version = setup.get_tournament(token).version
    client.post(f"/t/{token}/players", json={"name": "x"})
    register(client, token, name="\x00")
    tap(client, token, 999, "check_in")
    with app.app_context():
        assert setup.get_tournament(token).version == version
        assert db.session.query(Entrant).count() == 2
        assert db.session.query(Tournament).count() == 1


# -- issue 30: a list first, everyone present at once, rows that read as the state -------------


def test_the_list_import_is_first_and_open_until_players_are_in(
    app: Flask, client: FlaskClient
) -> None:
    token = new(app)
    html = client.get(f"/t/{token}/players").get_data(as_text=True)
    assert html.index('id="import"') < html.index('id="register"') < html.index('id="list"')
    assert re.search(r'<details class="card t-import" id="import"\s+open', html)
    assert "Noch keine Spieler: oben eine Liste übernehmen oder Namen eintippen." in page_text(html)
    client.post(f"/t/{token}/players/import", data={"text": "Anna Maier\nBert Huber"})
    html = client.get(f"/t/{token}/players").get_data(as_text=True)
    assert html.index('id="import"') < html.index('id="register"')
    assert re.search(r'<details class="card t-import" id="import">', html)  # folded, on top


def test_everyone_present_asks_once_and_numbers_in_the_files_order(
    app: Flask, client: FlaskClient
) -> None:
    token = new(app)
    register(client, token, name="Zora")  # at the door first: number 1
    text = "Name; Verein\nXaver Ott; TSV\nBerta Alt\nMartin Kern\nAnna Zeh; SV\n"
    client.post(f"/t/{token}/players/import", data={"text": text})
    page = client.get(f"/t/{token}/players").get_data(as_text=True)
    assert "Alle anwesend (4)" in page_text(page)
    asked = client.post(f"/t/{token}/players/present", data={})
    assert asked.status_code == 303
    assert asked.headers["Location"].endswith("?ask=all#everyone")
    assert all(
        number is None for name, (number, *_) in people(app, token).items() if name != "Zora"
    )
    question = client.get(asked.headers["Location"]).get_data(as_text=True)
    text_ = page_text(question)
    assert "Alle 4 Spieler als da markieren?" in text_ and "Reihenfolge der Liste" in text_
    sure = form_data(question, "everyone-form")
    assert sure["sure"] == "1"
    done = client.post(f"/t/{token}/players/present", data=sure)
    shown = page_text(client.get(done.headers["Location"]).get_data(as_text=True))
    assert "4 Spieler sind jetzt da, nummeriert in der Reihenfolge der Liste ab 2." in shown
    numbers = {name: number for name, (number, _r, _w) in people(app, token).items()}
    assert numbers == {"Zora": 1, "Xaver Ott": 2, "Berta Alt": 3, "Martin Kern": 4, "Anna Zeh": 5}
    assert "Alle anwesend" not in shown  # nobody left to mark
    again = client.post(f"/t/{token}/players/present", data=sure)
    assert "Alle Angemeldeten sind schon da." in page_text(
        client.get(again.headers["Location"]).get_data(as_text=True)
    )


def test_everyone_present_needs_the_form_token(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    token = new(csrf_app, 3)
    assert client.post(f"/t/{token}/players/present", data={"sure": "1"}).status_code == 400
    assert all(number is None for number, *_ in people(csrf_app, token).values())
    page = client.get(f"/t/{token}/players?ask=all").get_data(as_text=True)
    response = client.post(f"/t/{token}/players/present", data=form_data(page, "everyone-form"))
    assert response.status_code == 303
    assert sorted(number for number, *_ in people(csrf_app, token).values()) == [1, 2, 3]


def test_everyone_present_in_english(app: Flask, client: FlaskClient) -> None:
    token = new(app, 1)
    client.set_cookie("lang", "en")
    text = page_text(client.get(f"/t/{token}/players?ask=all"))
    assert "Mark 1 player as present?" in text and "Yes, all present" in text


def row_of(html: str, who: int) -> str:
    return html.split(f'id="p-{who}"', 1)[1].split("</li>", 1)[0]


def test_the_rows_show_the_state_and_their_buttons_name_the_action(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        tournament = tournament_with(6, rounds_=3)
        token = tournament.token
        drawn(tournament)
        entrants.register(tournament, "Zenzi")  # registered, not here
        entrants.register(tournament, "Ulla", present=True)  # a late arrival, not drawn
    anna, zenzi, ulla = (entrant_id(app, token, n) for n in ("Anna", "Zenzi", "Ulla"))
    client.post(
        f"/t/{token}/players/{entrant_id(app, token, 'Bertl')}",
        data={"action": "withdraw", "sure": "1"},
    )
    html = client.get(f"/t/{token}/players").get_data(as_text=True)
    drawn_row, absent_row, late_row = row_of(html, anna), row_of(html, zenzi), row_of(html, ulla)
    gone_row = row_of(html, entrant_id(app, token, "Bertl"))
    # the visible words are the state; the accessible name is what a tap does
    assert re.search(
        r'aria-label="da – Anna abmelden"><span aria-hidden="true">✓</span> da<', drawn_row
    )
    assert re.search(r'aria-label="nicht da – Zenzi als da markieren">nicht da<', absent_row)
    assert re.search(
        r'aria-label="da – Ulla als nicht da markieren"><span[^>]*>✓</span> da<', late_row
    )
    assert re.search(r'aria-label="abgemeldet – Bertl wieder anmelden[^"]*">abgemeldet<', gone_row)
    client.set_cookie("lang", "en")
    html = client.get(f"/t/{token}/players").get_data(as_text=True)
    assert 'aria-label="not here – mark Zenzi as present">not here<' in row_of(html, zenzi)
    assert 'aria-label="here – sign Anna off (withdraw)"' in row_of(html, anna)


def test_a_withdrawal_tap_with_htmx_asks_in_the_row(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        tournament = tournament_with(6, rounds_=3)
        token = tournament.token
        drawn(tournament)
    anna = entrant_id(app, token, "Anna")
    asked = tap(client, token, anna, "withdraw", headers=HX)
    html = asked.get_data(as_text=True)
    assert asked.status_code == 200 and "<html" not in html
    assert "Anna wirklich abmelden?" in page_text(html)
    assert "Ab Runde 2 nicht mehr ausgelost; die Punkte bisher bleiben." in page_text(html)
    assert 'name="sure" value="1"' in html and "Ja, abmelden" in html
    assert people(app, token)["Anna"] == (1, 1, None)
    sure = form_data(html) | {"action": "withdraw"}
    done = client.post(f"/t/{token}/players/{anna}", data=sure, headers=HX)
    assert done.status_code == 200 and ">abgemeldet<" in done.get_data(as_text=True)
    assert people(app, token)["Anna"] == (1, 1, 2)
    # a check-out (not drawn yet) is one tap: nothing is lost, a tap brings it back
    zenzi = None
    with app.app_context():
        zenzi = entrants.register(setup.get_tournament(token), "Zenzi", present=True).id
    assert tap(client, token, zenzi, "check_out").status_code == 303
    assert people(app, token)["Zenzi"] == (None, None, None)


@pytest.mark.parametrize("sure", ["", "0", "\x00", "1" * 400, "ja"])
def test_everyone_present_without_the_answer_only_asks(
    app: Flask, client: FlaskClient, sure: str
) -> None:
    token = new(app, 3)
    response = client.post(f"/t/{token}/players/present", data={"sure": sure})
    assert response.status_code == 303 and "ask=all" in response.headers["Location"]
    assert all(number is None for number, *_ in people(app, token).values())


@pytest.mark.parametrize("ask", ["\x00", "9" * 400, "-1", "alle", "²", "2147483648"])
def test_a_junk_question_in_the_address_shows_the_page(
    app: Flask, client: FlaskClient, ask: str
) -> None:
    token = new(app, 2, present=1)
    response = client.get(f"/t/{token}/players", query_string={"ask": ask})
    assert response.status_code == 200
    assert "wirklich abmelden" not in page_text(response)
