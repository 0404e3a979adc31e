"""A generated Stammtisch year played through the forms, checked against a computation of its own.

Forty Thursdays through the pages as the phones would send them (Flask's test
client): the group made on ``/st/new``, every evening started on its form, every
hand entered on the match's hand form, the next match with its button; a
member joining, one leaving, a guest now and then; the first half paying each
other, the second into the kitty (the group's settings changed in between),
"bezahlt" tapped on some nights and later, a payout from the kitty.

The test keeps its own books from what the sheets say (each match's totals and
winners) and what it tapped: the money of section 7 per match written out here
(full hundreds, the winners sharing, the odd cents by name), each person's
points, matches, wins, evenings and money, the open balances and the kitty.  It
compares them with the year the app computes — its ranking file (CSV), its
Excel money sheet and the year's books — person by person, cent by cent.
"""

from __future__ import annotations

import csv
import io
import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from html import unescape
from itertools import combinations
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from openpyxl import load_workbook

from scorer import services
from scorer.services.stammtisch import groups
from scorer.services.stammtisch.reading import year_view
from tests.builders import form_data, hand_data, page_text

STAKE = 10  # cents per full hundred
MEMBERS = ["Anna", "Bert", "Carla", "Dieter"]
EVENINGS = 40
TAP = re.compile(r'<form method="post" action="([^"]+)" class="st-tap"[^>]*>(.*?)</form>', re.S)
SEAT = re.compile(r'value="(\d+)"[^>]*>\s*<label class="check"[^>]*>.*?<span>([^<]+)</span>', re.S)
HIDDEN = re.compile(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">')


@dataclass
class Books:
    """The test's own books: numbers per person, money per person, the kitty."""

    points: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    matches: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    won: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    evenings: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    money: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    guest_points: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    open: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    owed_to_kitty: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    kitty: int = 0


def stake_of(totals: dict[str, int], winners: list[str]) -> dict[str, int]:
    """Section 7 written out: every loser pays STAKE per full hundred behind the top
    winner; the winners share, the odd cents one each to the winners by name."""
    top = max(totals[w] for w in winners)
    paid = {n: STAKE * ((top - t) // 100) for n, t in totals.items() if n not in winners}
    pot = sum(paid.values())
    result = {n: -c for n, c in paid.items()}
    share, rest = divmod(pot, len(winners))
    for i, name in enumerate(sorted(winners)):
        result[name] = share + (1 if i < rest else 0)
    return result


def fewest(balances: dict[str, int]) -> int:
    """The fewest transfers that settle these balances, by trying every split into groups
    that add up to 0 (few people: brute force)."""
    people = [p for p, c in balances.items() if c]

    def groups_of(left: list[str]) -> int:
        if not left:
            return 0
        first, rest = left[0], left[1:]
        most = 0
        for size in range(len(rest) + 1):
            for others in combinations(rest, size):
                if balances[first] + sum(balances[o] for o in others) == 0:
                    remaining = [p for p in rest if p not in others]
                    most = max(most, 1 + groups_of(remaining))
        return most

    best = groups_of(people)
    return len(people) - best


def post_form(client: FlaskClient, page: str, form_id: str, **changes: Any) -> Any:
    html = client.get(page).get_data(as_text=True)
    data = form_data(html, form_id)
    data.update({k: str(v) for k, v in changes.items()})
    return client.post(page, data=data)


def taps(html: str) -> list[tuple[str, dict[str, str]]]:
    """Every "bezahlt" form of a page: its address and its fields."""
    return [(unescape(action), dict(HIDDEN.findall(body))) for action, body in TAP.findall(html)]


def play_match(client: FlaskClient, token: str, rng: random.Random) -> None:
    """Hands through the hand form until the match ends (target 500: a few hands)."""
    for _ in range(40):
        page = client.get(f"/m/{token}").get_data(as_text=True)
        if 'id="hand-form"' not in page:
            return
        seats = len(re.findall(r'name="parties-\d+-melds"', page))
        declarer = rng.randrange(seats)
        made = rng.random() < 0.8
        melds = [20] * seats
        melds[declarer] = 100 if made else 0
        tricks: list[int | None] = [40] * seats
        tricks[declarer] = 250 - 40 * (seats - 1)
        tricks[(declarer + 1) % seats] = None
        data = hand_data(
            client,
            token,
            declarer=declarer,
            bid=200 if made else 300,
            trump="EGHS"[rng.randrange(4)],
            melds=melds,
            tricks=tricks,
        )
        response = client.post(f"/m/{token}/hands", data=data)
        assert response.status_code == 303, page_text(response)[:2000]
    raise AssertionError("the match did not end")


def sheet_of(app: Flask, token: str) -> tuple[dict[str, int], list[str], bool]:
    """A match's totals per player, its winners and whether it ended, as its sheet says."""
    with app.app_context():
        sheet = services.sheet(services.get_match(token))
        match = sheet.match
        totals = {s.name: sheet.totals[s.party] for s in match.seats}
        winners = [s.name for s in match.seats if sheet.finished and s.party in sheet.winners]
        return totals, winners, sheet.finished


def test_a_year_of_forty_evenings_through_the_forms(app: Flask, client: FlaskClient) -> None:
    rng = random.Random(37)
    page = client.get("/st/new").get_data(as_text=True)
    data = form_data(page, "group-form")
    data.update(
        name="Krone",
        members="\n".join(MEMBERS),
        stake="0,10",
        stake_basis="full",
        money_mode="pay",
        action="start",
    )
    data["rule-target"] = "500"
    created = client.post("/st/new", data=data)
    assert created.status_code == 303, page_text(created)[:2000]
    token = created.headers["Location"].rsplit("/", 1)[1]
    books = Books()
    members = list(MEMBERS)
    mode = "pay"
    for week in range(EVENINGS):
        if week == 10:  # Erna joins
            added = post_form(client, f"/st/{token}/members", "member-form", name="Erna")
            assert added.status_code == 303
            members.append("Erna")
        if week == 25:  # Dieter leaves (his balances stay)
            html = client.get(f"/st/{token}/members").get_data(as_text=True)
            leave = re.search(r'action="(/st/[^"]+/members/\d+/leave)"[^>]*>.*?Dieter', html, re.S)
            person = re.search(r'id="member-(\d+)">\s*<p><strong>Dieter<', html)
            assert person is not None and leave is not None
            assert client.post(f"/st/{token}/members/{person.group(1)}/leave").status_code == 303
            members.remove("Dieter")
        if week == 20:  # from now on into the kitty
            html = client.get(f"/st/{token}/settings").get_data(as_text=True)
            settings = form_data(html, "settings-form")
            settings.update(money_mode="kitty", action="save")
            saved = client.post(f"/st/{token}/settings", data=settings)
            assert saved.status_code == 303, page_text(saved)[:2000]
            mode = "kitty"
        here = rng.sample(members, 3)
        guest = "Gustav" if week in (5, 15, 30) else None
        html = client.get(f"/st/{token}/evening/new").get_data(as_text=True)
        form = form_data(html, "evening-form")
        names = dict(SEAT.findall(html))
        for key in [k for k in form if k.endswith("-here")]:
            form.pop(key)
        for key, value in list(form.items()):
            if key.endswith("-person") and names.get(value) in here:
                form[key.replace("-person", "-here")] = "y"
        if guest:
            form["guests-0-name"] = guest
        started = client.post(f"/st/{token}/evening/new", data=form)
        assert started.status_code == 303, page_text(started)[:2000]
        match = started.headers["Location"].rsplit("/", 1)[1]
        seated = here + ([guest] if guest else [])
        for person in seated:
            if person == guest:
                continue
            books.evenings[person] += 1
        matches = rng.choice((1, 2))
        for number in range(matches):
            play_match(client, match, rng)
            totals, winners, finished = sheet_of(app, match)
            assert finished
            money = stake_of(totals, winners)
            for name, points in totals.items():
                if name == guest:
                    books.guest_points[name] += points
                else:
                    books.points[name] += points
                    books.matches[name] += 1
                    books.won[name] += name in winners
            for name, cents in money.items():
                if mode == "pay":
                    books.open[name] += cents
                    if name != guest:
                        books.money[name] += cents
                elif cents < 0:
                    books.owed_to_kitty[name] -= cents
                    if name != guest:
                        books.money[name] += cents
            if number + 1 < matches:
                nxt = client.post(f"/m/{match}/next", data={})
                assert nxt.status_code in (302, 303), page_text(nxt)[:1000]
                match = nxt.headers["Location"].rsplit("/", 1)[1]
        # some of the night's money is paid on the night
        evening_page = f"/st/{token}/evening/{week + 1}"
        html = client.get(evening_page).get_data(as_text=True)
        for action, fields in taps(html):
            if rng.random() < 0.5:
                continue
            response = client.post(action, data=fields)
            assert response.status_code == 303
            _book_tap(app, token, books, action, fields)
    # later: one of the year's transfers, and a payout from the kitty
    html = client.get(f"/st/{token}/money").get_data(as_text=True)
    for action, fields in taps(html)[:1]:
        assert client.post(action, data=fields).status_code == 303
        _book_tap(app, token, books, action, fields)
    if books.kitty:
        html = client.get(f"/st/{token}/money").get_data(as_text=True)
        payout = form_data(html, "payout-form")
        amount = books.kitty // 2 or books.kitty
        payout.update(amount=f"{amount // 100},{amount % 100:02d}", note="Ausflug")
        response = client.post(f"/st/{token}/payout", data=payout)
        assert response.status_code == 303, page_text(response)[:2000]
        books.kitty -= amount
    _compare(app, client, token, books)


def _name(app: Flask, token: str, person: str) -> str:
    with app.app_context():
        group = groups.get_group(token)
        return next(p.name for p in group.people if str(p.id) == person)


def _book_tap(app: Flask, token: str, books: Books, action: str, fields: dict[str, str]) -> None:
    cents = int(fields["cents"])
    payer = _name(app, token, fields["payer"])
    if action.endswith("/paid"):
        payee = _name(app, token, fields["payee"])
        books.open[payer] += cents
        books.open[payee] -= cents
    else:
        books.owed_to_kitty[payer] -= cents
        books.kitty += cents


def _compare(app: Flask, client: FlaskClient, token: str, books: Books) -> None:
    # the ranking as the app writes it (CSV), person by person
    raw = client.get(f"/st/{token}/year/1/year.csv").get_data().decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(raw), delimiter=";"))
    lines = {row[1]: row for row in rows[1:]}
    for name in books.points:
        row = lines[name]
        assert int(row[2]) == books.points[name], name
        assert int(row[3]) == books.matches[name], name
        assert int(row[4]) == books.won[name], name
        assert int(row[9]) == books.evenings[name], name
        assert Decimal(row[11].replace(",", ".")) * 100 == books.money[name], name
    assert row is not None
    places = [int(rows[i][0]) for i in range(1, len(books.points) + 1)]
    ranked = sorted(books.points.values(), reverse=True)
    assert [int(rows[i][2]) for i in range(1, len(books.points) + 1)] == ranked
    assert places[0] == 1 and places == sorted(places)
    assert lines["Gustav"][0] == "" and int(lines["Gustav"][2]) == books.guest_points["Gustav"]
    assert "Dieter" in lines and lines["Dieter"][12]  # left, still listed with his numbers
    # every balance: the Excel money sheet and the year's books
    book = load_workbook(io.BytesIO(client.get(f"/st/{token}/year/1/year.xlsx").data))
    sheet = book.worksheets[2]
    shown = {}
    for row in sheet.iter_rows(min_row=4, values_only=True):
        if row[0] and isinstance(row[1], int | float) and isinstance(row[2], int | float):
            shown[row[0]] = (round(row[1] * 100), round(row[2] * 100))
    for name in set(books.open) | set(books.owed_to_kitty):
        assert shown.get(name, (0, 0)) == (books.open[name], books.owed_to_kitty[name]), name
    with app.app_context():
        view = year_view(groups.get_group(token), hands=False)
        accounts = {view.name(a.person): a for a in view.ledger.accounts}
        for name, cents in books.open.items():
            assert accounts[name].open == cents, name
        assert view.ledger.kitty.balance == books.kitty
        # the year's transfers settle every open balance, and are the fewest
        after = {view.name(a.person): a.open for a in view.ledger.accounts}
        for payer, payee, cents in view.ledger.transfers:
            after[view.name(payer)] += cents
            after[view.name(payee)] -= cents
        assert not any(after.values())
        assert len(view.ledger.transfers) == fewest(dict(books.open))
