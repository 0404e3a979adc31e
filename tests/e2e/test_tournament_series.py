"""The series, the backup and the exports in Chromium at phone size (issue 22, 5 and 6).

The series: evening 1 (nine players, one round of three deals) is played and
closed through the services.  The organiser makes a series of it on the
tournament's home page, counts the best evening only, taps "Neuer Abend" twice
(one evening), registers a player at the door whose name is spelled another way
than on evening 1 ("Hans Schaefer" for "Hans Schäfer") and chooses "derselbe",
registers the series' other players with one tap, checks everybody in and
draws round 1 from the pages; the round is typed from paper slips through the
services and closed.  The public series ranking (phone and beamer) then shows
both evenings and the ranking the services compute, Hans once with both.

The backup: the organiser downloads it; a second, empty installation restores
it from /t/restore with its links, and its public ranking reads as the
original's; a hostile file is refused with a message and adds nothing.

The exports: the public ranking's CSV and Excel file hold the page's ranking.

Waits are for states (``expect``, ``expect_download``), never for time.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook
from playwright.sync_api import Page, expect
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.services.tournaments import board, rounds, series, setup
from scorer.tournament_models import Series, Tournament
from scorer.words import signed
from tests.builders import make_app
from tests.e2e.conftest import LiveServer, fits_width, start_server, stop_server
from tests.e2e.test_tournament import BEAMER, shots
from tests.e2e.test_tournament_paper import an_evening
from tests.tournament_builders import NAMES, drawn, play_round, tournament_with

pytestmark = pytest.mark.e2e

Shot = Callable[[Any, str], Path]
HANS = "Hans Schäfer"
AT_THE_DOOR = "Hans Schaefer"
EVENING_1 = [*NAMES[:8], HANS]
SERIES_ROWS = "table.s-ranking tbody tr"
RANKING_ROWS = "table.pub-ranking tbody tr"


# -- what the database holds (read only) ------------------------------------------------


def first_evening(live: LiveServer) -> str:
    """Evening 1: nine players, one round of three deals played and closed; its token."""
    with live.app.app_context():
        tournament = tournament_with(EVENING_1, rounds_=1)
        row = drawn(tournament, 1)
        play_round(row)
        rounds.close_round(tournament, row)
        token = str(tournament.token)
        db.session.remove()
    return token


def second_evening_played(live: LiveServer, token: str) -> None:
    """Round 1 of the evening typed from paper slips (each player's points by their
    name, so the best evening differs from player to player) and closed."""
    with live.app.app_context():
        tournament = setup.get_tournament(token)
        row = setup.current_round(tournament)
        assert row is not None and row.number == 1
        points = {e.id: 100 + 40 * (hash_of(e.name) % 8) for e in tournament.entrants}
        for table in row.tables:
            board.set_paper(tournament, table, {p: (points[p], 0) for p in table.players})
        rounds.close_round(tournament, row)
        db.session.remove()


def hash_of(name: str) -> int:
    """A stable small number of a name (Python's ``hash`` of a str changes per run)."""
    return sum(ord(c) for c in name)


def series_of(live: LiveServer, token: str) -> tuple[int, list[re.Pattern[str]], list[str]]:
    """The series of the tournament ``token``: its evenings, the public ranking's rows
    as the services compute them (regexes, German numbers), the lines' names."""
    with live.app.test_request_context("/?lang=de"):
        found = setup.get_tournament(token).series
        assert found is not None
        standing = series.series_standings(found)
        rows = []
        for line in standing.lines:
            cells = [
                f"{line.place}." if line.place else "–",
                line.name,
                *("–" if p is None else signed(p) for p in line.evenings),
                signed(line.total),
            ]
            rows.append(re.compile(r"^\s*" + r"\s*".join(map(re.escape, cells)) + r"\s*$"))
        names = [line.name for line in standing.lines]
        evenings = len(standing.evenings)
        assert all(not line.undecided for line in standing.lines)
        db.session.remove()
    return evenings, rows, names


def count_of(live: LiveServer, model: type) -> int:
    with live.app.app_context():
        count = db.session.execute(select(func.count()).select_from(model)).scalar_one()
        db.session.remove()
    return int(count)


def number(text: str) -> int:
    """A number as the pages write it: ``1.230``, a loss ``(−60)``."""
    digits = re.sub(r"[^0-9]", "", text)
    value = int(digits or "0")
    return -value if "(" in text or "−" in text else value


def page_ranking(page: Page) -> list[tuple[int, int, str, list[int | None], int, int]]:
    """The public ranking's rows: place, start number, name, points per round, total, lost."""
    rows = []
    for tr in page.locator(RANKING_ROWS).all():
        cells = [c.strip() for c in tr.locator("td").all_inner_texts()]
        place, no, _name, *middle, total, lost = cells
        rows.append(
            (
                number(place),
                int(no),
                tr.locator(".name-text").inner_text().strip(),
                # a round from a paper slip: "120✎ (from paper)", the mark and its words cut
                [None if c == "–" else number(c.split("✎")[0]) for c in middle],
                number(total),
                int(lost),
            )
        )
    return rows


# -- 1. the series ------------------------------------------------------------------------


def test_a_series_of_two_evenings(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot
) -> None:
    first = first_evening(live_server)
    organiser = make_page()
    organiser.goto(f"/t/{first}")
    organiser.locator("#make-series button[type=submit]").click()
    organiser.wait_for_url(re.compile(r"/cup/[\w-]+$"))
    expect(organiser.locator(".flash-ok")).to_contain_text("Serie")
    series_url = organiser.url
    expect(organiser.locator("#evenings li")).to_have_count(1)

    # the best evening counts
    settings = organiser.locator("#series-settings")
    settings.locator("#counting").select_option("best")
    settings.locator("#best").fill("1")
    settings.locator("button[type=submit]").click()
    expect(organiser.locator(".flash-ok")).to_have_text(
        "Die Einstellungen der Serie sind gespeichert."
    )
    expect(organiser.locator("#ranking .pub-status")).to_contain_text("Der beste Abend zählt.")
    assert fits_width(organiser)
    shots(shot, organiser, "s-series-home")

    # "Neuer Abend", tapped twice: one evening, its organiser link shown once.  The
    # browser sends a double tap's form once; a tap whose answer got lost (sent again
    # by the phone) reaches the server twice: the first send here goes by fetch
    sent = organiser.evaluate(
        """() => {
          const form = document.querySelector("#new-evening");
          return fetch(form.action, {method: "POST", body: new FormData(form)})
            .then((r) => r.status);
        }"""
    )
    assert sent == 200  # the redirect followed to the new evening's page
    assert count_of(live_server, Tournament) == 2
    # a double tap may send the form twice: the first page load is then cut short by the
    # second, so wait for where the taps end, not for the first navigation
    organiser.locator("#new-evening button[type=submit]").dblclick()
    organiser.wait_for_url(re.compile(r"/t/[\w-]+$"))
    expect(organiser.locator("section#organiser-link")).to_be_visible()
    link = organiser.locator("#organiser-url").input_value()
    second = link.rsplit("/", 1)[1]
    assert second != first and organiser.url.endswith(f"/t/{second}")
    assert count_of(live_server, Tournament) == 2
    organiser.reload()
    expect(organiser.locator("details#organiser-link")).to_be_attached()  # shown once
    expect(organiser.locator("section#organiser-link")).to_have_count(0)

    # the players page: Hans, spelled otherwise than on evening 1, is the same person
    organiser.locator("#players a.button.primary").click()
    organiser.wait_for_url(f"**/t/{second}/players")
    people = organiser.locator("#series-people")
    expect(people.locator("#series-register button")).to_have_text(
        "Die 9 weiteren Spieler der Serie anmelden"
    )
    organiser.locator("#name").fill(AT_THE_DOOR)
    organiser.locator("#register-form button[value=register]").click()
    choice = people.locator(".s-choices > li")
    expect(choice).to_have_count(1)
    expect(choice).to_contain_text(f"{AT_THE_DOOR} — derselbe wie „{HANS}“")
    shot(organiser, "s-players-choice")
    choice.locator("button[value=same]").click()
    expect(organiser.locator(".flash-ok")).to_have_text("Gespeichert.")
    expect(people.locator(".s-choices")).to_have_count(0)
    expect(people.locator(".s-linked summary")).to_have_text("1 Spieler zugeordnet")
    expect(people.locator(".s-linked li")).to_contain_text(f"{AT_THE_DOOR} = {HANS}")

    # the series' other eight with one tap, then everybody checked in at the door
    register = people.locator("#series-register button")
    expect(register).to_have_text("Die 8 weiteren Spieler der Serie anmelden")
    register.click()
    expect(organiser.locator(".flash-ok")).to_contain_text("8 Spieler der Serie angemeldet")
    expect(people.locator("#series-register")).to_have_count(0)
    waiting = organiser.locator("li.t-player.t-registered")
    expect(waiting).to_have_count(9)
    for left in range(9, 0, -1):
        waiting.first.locator("button[value=check_in]").click()
        expect(waiting).to_have_count(left - 1)
    expect(organiser.locator("#player-count")).to_contain_text("9 anwesend")
    # the start number field's hint follows the check-ins: the next free number
    expect(organiser.locator("#number")).to_have_attribute("placeholder", "10")
    names = organiser.locator("li.t-player .t-name").all_inner_texts()
    assert sorted(names) == sorted([*NAMES[:8], AT_THE_DOOR])
    assert fits_width(organiser)
    shots(shot, organiser, "s-players")

    # the draw from the organiser's home; the round typed from paper and closed
    organiser.locator(".t-back a").click()
    organiser.locator("form.t-draw button[type=submit]").click()
    organiser.wait_for_url(f"**/t/{second}/rounds/1")
    expect(organiser.locator("li.t-table")).to_have_count(3)
    second_evening_played(live_server, second)

    # the series page and the public series ranking: both evenings, Hans once
    evenings, expected, names = series_of(live_server, second)
    assert evenings == 2 and len(expected) == 9
    assert names.count(HANS) == 1 and AT_THE_DOOR not in names
    organiser.goto(series_url)
    expect(organiser.locator("#evenings li")).to_have_count(2)
    expect(organiser.locator(SERIES_ROWS)).to_have_text(expected)
    assert fits_width(organiser)
    shots(shot, organiser, "s-series-home-two")
    view = organiser.locator("#public-link a").get_attribute("href") or ""
    assert re.search(r"/p/cup/[\w-]+$", view)

    phone = make_page()
    beamer = make_page(viewport=BEAMER, is_mobile=False, has_touch=False)
    for screen, name in ((phone, "s-public-phone"), (beamer, "s-public-beamer")):
        screen.goto(view)
        heads = screen.locator("table.s-ranking thead th.round")
        expect(heads).to_have_text(["A1", "A2"])
        expect(screen.locator(SERIES_ROWS)).to_have_text(expected)
        hans = screen.locator(SERIES_ROWS).filter(has_text=HANS)
        expect(hans).to_have_count(1)
        for cell in hans.locator("td.round").all_inner_texts():
            assert cell.strip() != "–"  # played both evenings
        expect(screen.locator(".s-evenings-public li")).to_have_count(2)
        expect(screen.locator(".pub-status")).to_contain_text("Der beste Abend zählt.")
        # a player's worse evening does not count: struck through
        assert screen.locator(f"{SERIES_ROWS} td.s-struck").count() > 0
        assert fits_width(screen)
        shots(shot, screen, name)


# -- 2. backup and restore -----------------------------------------------------------------


def test_a_backup_restored_on_another_installation(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot, tmp_path: Path
) -> None:
    token = an_evening(live_server)
    with live_server.app.app_context():
        view_token = setup.get_tournament(token).view_token
        db.session.remove()
    organiser = make_page(accept_downloads=True)
    organiser.goto(f"/p/{view_token}")
    original = page_ranking(organiser)
    assert len(original) == 12
    organiser.goto(f"/t/{token}")
    link = organiser.locator("#backup-download")
    assert link.get_attribute("download") is not None
    with organiser.expect_download() as info:
        link.click()
    backup = tmp_path / "backup.json"
    info.value.save_as(backup)
    data = json.loads(backup.read_text(encoding="utf-8"))

    # a second installation with an empty database (the laptop died; another one)
    (tmp_path / "other").mkdir()
    other = start_server(make_app(tmp_path / "other", WTF_CSRF_ENABLED=True))
    try:
        assert count_of(other, Tournament) == 0
        laptop = make_page(base_url=other.url)
        laptop.goto("/t/restore")
        laptop.locator("#file").set_input_files(str(backup))
        laptop.locator("#restore-form button[type=submit]").click()
        laptop.wait_for_url(f"**/t/{token}")
        expect(laptop.locator(".flash-ok")).to_contain_text("Mit seinen Links wiederhergestellt")
        expect(laptop.locator("section#organiser-link")).to_be_visible()
        # the address the phones reach (the laptop's in the hall), the same token
        assert laptop.locator("#organiser-url").input_value().endswith(f"/t/{token}")
        shot(laptop, "s-restored-home")
        laptop.goto(f"/p/{view_token}")
        assert page_ranking(laptop) == original
        assert count_of(other, Tournament) == 1

        # hostile files: a clear message, nothing added
        bad = data | {"tournament": dict(data["tournament"])}
        entrants = [dict(e) for e in bad["tournament"]["entrants"]]
        entrants[0]["name"] = "Ann\x00a"
        bad["tournament"]["entrants"] = entrants
        hostile = {  # the file, and what the message names
            "nul.json": (json.dumps(bad), "NUL"),
            "empty.json": (json.dumps({"format": "scorer-tournament", "version": 1}), "Turnier"),
            "junk.json": ("{not json", "kein JSON"),
        }
        for name, (text, reason) in hostile.items():
            path = tmp_path / name
            path.write_text(text, encoding="utf-8")
            laptop.goto("/t/restore")
            laptop.locator("#file").set_input_files(str(path))
            laptop.locator("#restore-form button[type=submit]").click()
            error = laptop.locator("#restore-error")
            expect(error).to_contain_text("Nichts wurde wiederhergestellt:")
            expect(error).to_contain_text(reason)
            assert "Traceback" not in error.inner_text()
            assert count_of(other, Tournament) == 1, name
        shot(laptop, "s-restore-refused")
    finally:
        stop_server(other)


# -- 3. the exports ------------------------------------------------------------------------


def test_the_ranking_as_csv_and_excel(
    make_page: Callable[..., Any], live_server: LiveServer, tmp_path: Path
) -> None:
    token = an_evening(live_server)
    with live_server.app.app_context():
        view_token = setup.get_tournament(token).view_token
        db.session.remove()
    page = make_page(accept_downloads=True)
    page.goto(f"/p/{view_token}")
    shown = page_ranking(page)
    assert len(shown) == 12

    def fetch(selector: str) -> Path:
        link = page.locator(selector)
        assert link.get_attribute("download") is not None
        with page.expect_download() as info:
            link.click()
        path = tmp_path / info.value.suggested_filename
        info.value.save_as(path)
        return path

    csv_path = fetch("#ranking-csv")
    assert csv_path.suffix == ".csv"
    assert csv_path.name.startswith("rangliste-")  # in the phone's language
    with csv_path.open(encoding="utf-8-sig", newline="") as f:
        head, *lines = list(csv.reader(f, delimiter=";"))
    assert head[:4] == ["Rang", "Startnummer", "Name", "Verein"]
    from_csv = [
        (
            int(r[0]),
            int(r[1]),
            r[2],
            [int(c) if c else None for c in r[4:-3]],
            int(r[-3]),
            int(r[-2]),
        )
        for r in lines
    ]
    assert from_csv == shown

    xlsx_path = fetch("#ranking-xlsx")
    assert xlsx_path.suffix == ".xlsx"
    sheet = load_workbook(io.BytesIO(xlsx_path.read_bytes())).active
    assert sheet is not None
    values = [list(r) for r in sheet.iter_rows(min_row=3, values_only=True)]
    assert values[0][:4] == ["Rang", "Startnummer", "Name", "Verein"]
    from_xlsx = [(r[0], r[1], r[2], [c for c in r[4:-3]], r[-3], r[-2]) for r in values[1:] if r[0]]
    assert from_xlsx == shown


def test_the_series_backup_link_is_on_the_series_page(
    make_page: Callable[..., Any], live_server: LiveServer
) -> None:
    """The series' own backup (every evening in one file) downloads from its page."""
    first = first_evening(live_server)
    page = make_page(accept_downloads=True)
    page.goto(f"/t/{first}")
    page.locator("#make-series button[type=submit]").click()
    page.wait_for_url(re.compile(r"/cup/[\w-]+$"))
    with page.expect_download() as info:
        page.locator("#series-backup").click()
    data = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    assert isinstance(data, dict) and count_of(live_server, Series) == 1
