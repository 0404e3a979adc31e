"""The Stammtisch's pages through the test client: forms, the twin, the taps, the files.

Bad input gets a clear message in German, the form keeps what was typed and
nothing is written; the read-only twin shows the year and nothing that edits;
every record links to its hand; the money page says each number in words.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from openpyxl import load_workbook
from pypdf import PdfReader
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.services.stammtisch import groups, payments
from scorer.services.stammtisch.people import find_person
from scorer.services.stammtisch.reading import year_view
from scorer.stammtisch_models import Evening, Payment, Stammtisch
from tests.builders import HX, form_data, page_text, shows
from tests.stammtisch_builders import a_group, play_evening, played_year

TAP = re.compile(r'<form method="post" action="([^"]+)" class="st-tap">(.*?)</form>', re.S)
HIDDEN = re.compile(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">')


def built(app: Flask, *, money: str = "pay", evenings: int = 3, **rules: Any) -> tuple[str, str]:
    """A group with a few evenings played (a guest among them); its two tokens."""
    with app.app_context():
        group = a_group(money=money, **rules)
        played_year(group, evenings=evenings, matches=2)
        play_evening(group, ["Anna", "Bert"], guests=["Gustav"], day=date(2025, 3, 6), seed=5)
        found = (group.token, group.view_token)
        db.session.remove()
    return found


def count(app: Flask, model: Any) -> int:
    with app.app_context():
        return int(db.session.execute(select(func.count()).select_from(model)).scalar_one())


def group_form(client: FlaskClient, **values: str) -> dict[str, str]:
    data = form_data(client.get("/st/new").get_data(as_text=True), "group-form")
    data.update(name="Krone", members="Anna\nBert\nCarla", stake="0,10", action="start")
    data.update(values)
    return data


# -- making a group ----------------------------------------------------------------------


def test_a_group_is_made_and_its_link_shown_once(app: Flask, client: FlaskClient) -> None:
    response = client.post("/st/new", data=group_form(client))
    assert response.status_code == 303
    home = response.headers["Location"]
    first = shows(client, home, "Der Link des Stammtischs", "Rangliste 2", "Anna", "Bert")
    assert "Heutigen Abend beginnen" in first
    again = page_text(client.get(home))
    assert "Der Link des Stammtischs" not in again  # once
    # the phone's list of sessions has it
    assert "Stammtisch Krone" in page_text(client.get("/"))


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"name": ""}, "Dieses Feld wird benötigt"),
        ({"members": "Anna"}, "2 bis 30 Mitglieder"),
        ({"members": "Anna\nanna\nBert"}, "zweimal"),
        ({"members": "Anna\nBe\x00rt"}, "Steuerzeichen"),
        ({"stake": "1e9"}, "Betrag"),
        ({"season_start": "30.2."}, "nicht in jedem Jahr"),
        ({"rule-target": "9" * 40}, "ganze Zahl"),
    ],
)
def test_a_group_that_cannot_be_keeps_what_was_typed(
    app: Flask, client: FlaskClient, values: dict[str, str], message: str
) -> None:
    data = group_form(client, **values)
    response = client.post("/st/new", data=data)
    assert response.status_code == 422
    text = page_text(response)
    assert message in text, text[:3000]
    kept = form_data(response.get_data(as_text=True), "group-form")
    assert kept["name"] == data["name"].strip() or kept["name"] == data["name"]
    assert count(app, Stammtisch) == 0


def test_the_preset_comes_back_as_the_forms_fragment(client: FlaskClient) -> None:
    data = group_form(client, preset="kreuzbinokel", action="preset")
    response = client.post("/st/new", data=data, headers=HX)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert html.lstrip().startswith("<form") and "HX-Request" in response.headers["Vary"]
    assert 'name="teams" type="checkbox" value="y" checked' in html or "checked" in html


# -- tonight's evening ------------------------------------------------------------------


def evening_form(client: FlaskClient, token: str) -> tuple[dict[str, str], dict[str, str]]:
    html = client.get(f"/st/{token}/evening/new").get_data(as_text=True)
    people = dict(
        re.findall(r'value="(\d+)"[^>]*>\s*<label class="check"[^>]*>.*?<span>([^<]+)', html, re.S)
    )
    return form_data(html, "evening-form"), {name: pid for pid, name in people.items()}


def test_an_evening_is_started_and_the_match_page_leads_back(
    app: Flask, client: FlaskClient
) -> None:
    token, _ = built(app, evenings=0)
    data, _people = evening_form(client, token)
    data["guests-0-name"] = "Gustav"
    data["guests-0-seat"] = "1"
    response = client.post(f"/st/{token}/evening/new", data=data)
    assert response.status_code == 303
    match = response.headers["Location"]
    page = page_text(client.get(match))
    assert "Stammtisch: Krone" in page
    # Gustav sits in seat 1, the members after him in the list's order
    assert re.search(r"Gustav.*Anna.*Bert.*Carla", page)
    session = client.get(match).get_data(as_text=True)
    link = re.search(r'href="(/s/[^"]+)" id="session-link"', session)
    assert link is not None
    assert "Ein Abend des Stammtischs Krone" in page_text(client.get(link.group(1)))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"members-0-seat": "2", "members-1-seat": "2"}, "Platz 2 bekommen"),
        ({"guests-0-name": "bert"}, "ist Mitglied"),
        ({"guests-0-name": "Gu\x00stav"}, "Steuerzeichen"),
        ({"teams": "y"}, ""),
        ({"members-0-person": "999999", "guests-0-name": ""}, ""),
    ],
)
def test_a_table_that_cannot_be_keeps_the_form(
    app: Flask, client: FlaskClient, change: dict[str, str], message: str
) -> None:
    token, _ = built(app, evenings=0)
    data, _people = evening_form(client, token)
    data.pop("members-3-here", None)  # three members tonight
    data.update(change)
    before = count(app, Evening)
    response = client.post(f"/st/{token}/evening/new", data=data)
    assert response.status_code in (404, 422), page_text(response)[:2000]
    assert message in page_text(response)
    assert count(app, Evening) == before


# -- the year and its twin -----------------------------------------------------------------


def test_every_record_links_to_its_hand(app: Flask, client: FlaskClient) -> None:
    token, view = built(app, evenings=4)
    html = client.get(f"/st/{token}").get_data(as_text=True)
    records = re.search(r'<section class="card" id="records">(.*?)</section>', html, re.S)
    assert records is not None
    links = re.findall(r'href="(/m/[^"]+/hands/\d+)"', records.group(1))
    assert links
    for link in links:
        assert client.get(link).status_code == 200
    twin = client.get(f"/sv/{view}").get_data(as_text=True)
    twin_links = re.findall(r'href="(/v/[^"#]+)#hand-(\d+)"', twin)
    assert len(twin_links) == len(links)
    for link, number in twin_links:
        assert f'id="hand-{number}"' in client.get(link).get_data(as_text=True)


def test_the_twin_shows_the_year_and_nothing_that_edits(app: Flask, client: FlaskClient) -> None:
    token, view = built(app, evenings=3)
    for path in (
        f"/sv/{view}",
        f"/sv/{view}/year/1",
        f"/sv/{view}/year/1/money",
        f"/sv/{view}/evening/1",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        html = response.get_data(as_text=True)
        assert token not in html, path
        assert 'href="/m/' not in html and 'href="/s/' not in html, path
        assert 'method="post"' not in html, path
        assert "Nur zum Ansehen" in page_text(response)
    assert client.get(f"/sv/{token}").status_code == 404
    assert client.get(f"/st/{view}").status_code == 404
    # the twin's files, and the backup only through the members' link
    assert client.get(f"/sv/{view}/year/1/year.csv").status_code == 200
    assert client.get(f"/sv/{view}/backup.json").status_code == 404
    home = page_text(client.get("/"))
    assert "Stammtisch Krone" in home and "nur zum Ansehen" in home


def test_the_money_page_says_each_number_in_words(app: Flask, client: FlaskClient) -> None:
    token, _ = built(app, evenings=2, stake_cents=10)
    text = shows(client, f"/st/{token}/money", "Offene Posten", "Das Geld jedes Einzelnen")
    assert re.search(r"\d+ × 0,10 € für \d+ Punkte Rückstand auf \w+", text), text[:3000]
    assert re.search(r"\d+,\d\d € als Sieger", text)
    assert re.search(r"\d+\. \w+", text)  # the day: "2. Januar"
    evening = shows(client, f"/st/{token}/evening/1", "Wer zahlt wem", "heute bezahlt")
    assert "Partie 1" in evening


def test_a_tap_pays_once_and_a_second_phone_is_told(app: Flask, client: FlaskClient) -> None:
    token, _ = built(app, evenings=1)
    html = client.get(f"/st/{token}/evening/1").get_data(as_text=True)
    action, body = TAP.findall(html)[0]
    fields = dict(HIDDEN.findall(body))
    assert client.post(action, data=fields).status_code == 303
    assert client.post(action, data=fields).status_code == 303  # the same tap again
    assert count(app, Payment) == 1
    other = {**fields, "key": "another-phone"}
    told = client.post(action, data=other, follow_redirects=True)
    assert "schon bezahlt" in page_text(told)
    assert count(app, Payment) == 1
    assert "am Abend bezahlt" in page_text(client.get(f"/st/{token}/evening/1"))


@pytest.mark.parametrize(
    "change",
    [
        {"cents": "9" * 40},
        {"cents": "-5"},
        {"payer": "abc"},
        {"key": "bad\x00key", "cents": "0"},
        {"payee": "999999"},
        {"evening": "99"},
    ],
)
def test_a_hostile_tap_records_nothing(
    app: Flask, client: FlaskClient, change: dict[str, str]
) -> None:
    token, _ = built(app, evenings=1)
    html = client.get(f"/st/{token}/evening/1").get_data(as_text=True)
    action, body = TAP.findall(html)[0]
    fields = {**dict(HIDDEN.findall(body)), **change}
    response = client.post(action, data=fields)
    assert response.status_code in (303, 404), response.status_code
    assert count(app, Payment) == 0


def test_the_kitty_takes_its_dues_and_pays_out_what_it_holds(
    app: Flask, client: FlaskClient
) -> None:
    token, _ = built(app, money="kitty", evenings=2, stake_cents=20)
    html = client.get(f"/st/{token}/money").get_data(as_text=True)
    owed = re.search(r'id="kitty-owed">(.*?)</ul>', html, re.S)
    assert owed is not None
    for action, body in TAP.findall(owed.group(1)):
        assert client.post(action, data=dict(HIDDEN.findall(body))).status_code == 303
    with app.app_context():
        held = year_view(groups.get_group(token), hands=False).ledger.kitty.balance
    assert held > 0
    page = client.get(f"/st/{token}/money").get_data(as_text=True)
    payout = form_data(page, "payout-form")
    too_much = {**payout, "amount": f"{held // 100 + 1},00", "note": "Ausflug"}
    refused = client.post(f"/st/{token}/payout", data=too_much)
    assert refused.status_code == 422
    assert "in der Kasse" in page_text(refused)
    assert form_data(refused.get_data(as_text=True), "payout-form")["note"] == "Ausflug"
    bad = client.post(f"/st/{token}/payout", data={**payout, "amount": "zwölf", "note": "x"})
    assert bad.status_code == 422 and "Betrag wie 12,50" in page_text(bad)
    fine = {**payout, "amount": f"{held // 100},{held % 100:02d}", "note": "Ausflug"}
    assert client.post(f"/st/{token}/payout", data=fine).status_code == 303
    text = page_text(client.get(f"/st/{token}/money"))
    assert "aus der Kasse ausgezahlt: Ausflug" in text
    assert re.search(r"In der Kasse 0,00 €", text)


def test_members_settings_and_neues_jahr(app: Flask, client: FlaskClient) -> None:
    token, _ = built(app, evenings=1)
    empty = client.post(f"/st/{token}/members", data={"name": ""})
    assert empty.status_code == 422
    twice = client.post(f"/st/{token}/members", data={"name": "anna"})
    assert twice.status_code == 422 and "schon Mitglied" in page_text(twice)
    assert client.post(f"/st/{token}/members", data={"name": "Erna"}).status_code == 303
    with app.app_context():
        group = groups.get_group(token)
        dieter = find_person(group, "Dieter")
        assert dieter is not None
        dieter_id = dieter.id
    assert client.post(f"/st/{token}/members/{dieter_id}/leave").status_code == 303
    assert "ausgetreten am" in page_text(client.get(f"/st/{token}/members"))
    html = client.get(f"/st/{token}/settings").get_data(as_text=True)
    settings = form_data(html, "settings-form")
    bad = client.post(f"/st/{token}/settings", data={**settings, "season_start": "31.4."})
    assert bad.status_code == 422
    saved = client.post(
        f"/st/{token}/settings",
        data={**settings, "money_mode": "kitty", "season_start": "1.9.", "action": "save"},
    )
    assert saved.status_code == 303
    data, _people = evening_form(client, token)
    assert client.post(f"/st/{token}/evening/new", data=data).status_code == 303
    with app.app_context():
        group = groups.get_group(token)
        last = db.session.execute(select(Evening).order_by(Evening.number.desc())).scalars().first()
        assert last is not None and last.money_mode == "kitty"
        assert group.season_start == "09-01"
    new_year = client.post(f"/st/{token}/new-year", data={"after": "1"}, follow_redirects=True)
    assert "hat begonnen" in page_text(new_year)
    again = client.post(f"/st/{token}/new-year", data={"after": "1"})
    assert again.status_code == 303
    with app.app_context():
        group = groups.get_group(token)
        assert [y.number for y in group.years] == [1, 2]
        assert [m.person.name for m in group.years[1].members] == ["Anna", "Bert", "Carla", "Erna"]
    assert "früheres Jahr" in page_text(client.get(f"/st/{token}/year/1"))


def test_the_files_of_the_year(app: Flask, client: FlaskClient) -> None:
    token, view = built(app, evenings=3)
    raw = client.get(f"/st/{token}/year/1/year.csv")
    assert raw.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(raw.get_data().decode("utf-8-sig")), delimiter=";"))
    assert rows[0][:3] == ["Rang", "Name", "Punkte"]
    assert {row[1] for row in rows[1:]} >= {"Anna", "Bert", "Carla", "Gustav"}
    book = load_workbook(io.BytesIO(client.get(f"/st/{token}/year/1/year.xlsx").data))
    assert book.sheetnames == ["Rangliste", "Abende", "Geld", "Rekorde"]
    pdf = client.get(f"/sv/{view}/year/1/year.pdf")
    assert pdf.data.startswith(b"%PDF")
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.data)).pages)
    for word in ("Krone", "Rangliste", "Abende", "Geld", "Rekorde", "Anna", "Gustav"):
        assert word in text, word


def test_a_formula_for_a_name_stays_text(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        group = a_group(names=["=HYPERLINK(1)", "Bert", "Carla"])
        play_evening(group, ["=HYPERLINK(1)", "Bert", "Carla"])
        token = group.token
    rows = client.get(f"/st/{token}/year/1/year.csv").get_data().decode("utf-8-sig")
    assert "'=HYPERLINK(1)" in rows
    book = load_workbook(io.BytesIO(client.get(f"/st/{token}/year/1/year.xlsx").data))
    names = [c.value for c in book.worksheets[0]["B"]]
    assert "=HYPERLINK(1)" in names and book.worksheets[0]["B4"].data_type == "s"


def test_unknown_links_and_json_bodies(app: Flask, client: FlaskClient) -> None:
    token, _ = built(app, evenings=1)
    for path in ("/st/nothing-here-at-all", "/st/" + "a" * 22 + "/money", f"/st/{token}/year/9"):
        assert client.get(path).status_code == 404, path
    assert client.get(f"/st/{token}/evening/999").status_code == 404
    response = client.post(f"/st/{token}/paid", json={"payer": 1})
    assert response.status_code == 415


def test_a_strike_takes_a_payment_back(app: Flask, client: FlaskClient) -> None:
    token, _ = built(app, evenings=1)
    with app.app_context():
        group = groups.get_group(token)
        payer, payee, cents = year_view(group, hands=False).ledger.transfers[0]
        payment = payments.pay(
            group, payer_id=int(payer), payee_id=int(payee), cents=cents, day=date(2025, 3, 1)
        )
        number = payment.id
    response = client.post(f"/st/{token}/payments/{number}/strike", data={"next": "/evil"})
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/evil")  # a path of this site only
    response = client.post(f"/st/{token}/payments/{number}/strike", data={"next": "//evil.com"})
    assert "evil.com" not in response.headers["Location"]
    with app.app_context():
        struck = db.session.get(Payment, number)
        assert struck is not None and struck.struck_at is not None
        assert year_view(groups.get_group(token), hands=False).ledger.transfers[0][2] == cents
