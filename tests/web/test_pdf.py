"""The PDF score sheet: real PDFs, read back with poppler (pdftotext, pdffonts, pdftoppm)."""

from __future__ import annotations

import copy
import fcntl
import json
import logging
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer import pdf, services, slots
from scorer.pdf import layout
from scorer.services import HandInput, backup_format
from scorer.words import signed
from tests.builders import fresh_app, hand_input, service_match, session_token_of

NAMES = ["Anna", "Bernd", "Jürgen"]
A4 = (595.28, 841.89)
MARGIN_PT = 12 / 25.4 * 72  # the @page side margin


@pytest.fixture
def app_config(tmp_path: Path) -> dict[str, Any]:
    """The app's PDF cache and render slots in the test's own folder."""
    return {
        "PDF_CACHE_DIR": str(tmp_path / "pdf-cache"),
        "WORK_SLOT_DIR": str(tmp_path / "work-slots"),
        "WORK_SLOT_WAIT": 0.2,
    }


def pdf_text(data: bytes, tmp_path: Path, *, first: int | None = None, layout: bool = True) -> str:
    path = tmp_path / "sheet.pdf"
    path.write_bytes(data)
    args = ["pdftotext", "-enc", "UTF-8"]
    if layout:
        args.append("-layout")
    if first is not None:
        args += ["-f", str(first), "-l", str(first)]
    return subprocess.run(
        [*args, str(path), "-"], capture_output=True, check=True, text=True
    ).stdout


def pdf_pages(data: bytes, tmp_path: Path) -> int:
    path = tmp_path / "pages.pdf"
    path.write_bytes(data)
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, check=True, text=True)
    found = re.search(r"Pages:\s+(\d+)", info.stdout)
    assert found
    size = re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info.stdout)
    assert size and abs(float(size[1]) - A4[0]) < 1 and abs(float(size[2]) - A4[1]) < 1
    return int(found[1])


def words_right_edge(data: bytes, tmp_path: Path) -> float:
    """The rightmost x of any word on any page (from pdftotext -bbox)."""
    path = tmp_path / "bbox.pdf"
    path.write_bytes(data)
    html = subprocess.run(
        ["pdftotext", "-bbox", str(path), "-"], capture_output=True, check=True, text=True
    ).stdout
    return max(float(x) for x in re.findall(r'xMax="([\d.]+)"', html))


def expected(app: Flask, token: str, lang: str) -> tuple[list[list[str]], list[str]]:
    """Per hand, the sheet's numbers as the PDF writes them; and the totals."""
    with app.test_request_context(f"/?lang={lang}"):
        current = services.sheet(services.get_match(token))
        rows = []
        for row in current.rows:
            cells = [str(row.number)]
            for i, points in enumerate(row.points):
                cells += ["–" if row.sits_out[i] else signed(points), signed(row.totals[i])]
            rows.append(cells)
        return rows, [signed(t) for t in current.totals]


@pytest.fixture
def long_match(app: Flask) -> str:
    """60 hands that do not end the match (target 100,000), umlauts in names and title."""
    return service_match(app, NAMES, 60, target=100_000, title="Stammtisch Öhringen")


def test_sixty_hands_make_two_a4_pages_with_every_hand_and_the_head_repeated(
    app: Flask, client: FlaskClient, long_match: str, tmp_path: Path
) -> None:
    response = client.get(f"/m/{long_match}/sheet.pdf?lang=en")
    assert response.status_code == 200
    assert response.mimetype == "application/pdf"
    assert response.data.startswith(b"%PDF")
    assert pdf_pages(response.data, tmp_path) == 2
    text = pdf_text(response.data, tmp_path)
    rows, totals = expected(app, long_match, "en")
    lines = text.splitlines()
    for cells in rows:
        # the hand's line: its number first, then every party's result and running total
        line = next((li for li in lines if li.split()[:1] == [cells[0]]), None)
        assert line is not None, f"hand {cells[0]} is missing"
        numbers = [w for w in line.split() if re.fullmatch(r"\(?−?[\d,]+\)?|–", w)]
        assert numbers[-len(cells) + 1 :] == cells[1:], line
    total_line = next(li for li in lines if li.strip().startswith("Total"))
    assert total_line.split()[1:] == totals
    for page in (1, 2):
        head = pdf_text(response.data, tmp_path, first=page)
        assert "Dealer" in head and "Declarer" in head and "Outcome" in head
        assert all(name in head for name in NAMES)
        assert f"Page {page} of 2" in head
    first_page = pdf_text(response.data, tmp_path, first=1)
    # about 40 hands on a page
    assert sum(1 for cells in rows if re.search(rf"^\s*{cells[0]}\s", first_page, re.M)) >= 35
    assert "Stammtisch Öhringen" in text
    assert "still being played" in text
    assert words_right_edge(response.data, tmp_path) <= A4[0] - MARGIN_PT + 1


@pytest.mark.parametrize("hands", [33, 36, 40])
def test_the_totals_never_start_a_page_without_the_last_hands(
    app: Flask, client: FlaskClient, tmp_path: Path, hands: int
) -> None:
    # these lengths fill page 1 up to the totals line (found by rendering 28 to 45 hands)
    token = service_match(app, NAMES, hands, target=100_000)
    data = client.get(f"/m/{token}/sheet.pdf?lang=en").data
    assert pdf_pages(data, tmp_path) == 2
    second = pdf_text(data, tmp_path, first=2).splitlines()
    total = next(i for i, line in enumerate(second) if line.strip().startswith("Total"))
    numbers = [line.split()[0] for line in second[:total] if line.split()[:1] != []]
    # the last three hands came along with the totals
    assert [str(n) for n in range(hands - 2, hands + 1)] == [n for n in numbers if n.isdigit()][-3:]


def test_german_sheet_has_umlauts_and_embedded_dejavu_fonts(
    client: FlaskClient, long_match: str, tmp_path: Path
) -> None:
    response = client.get(f"/m/{long_match}/sheet.pdf?lang=de")
    text = pdf_text(response.data, tmp_path)
    assert "Jürgen" in text and "Öhringen" in text and "Grün" in text
    assert "1.000" in text or "1.0" in text  # German thousands separator
    path = tmp_path / "fonts.pdf"
    path.write_bytes(response.data)
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, check=True, text=True)
    rows = fonts.stdout.splitlines()[2:]
    # our @font-face families (DejaVu Sans and its condensed cut, read by our fetcher)
    assert rows and all("Sheet-" in r for r in rows), fonts.stdout
    assert all(r.split()[-5] == "yes" for r in rows), fonts.stdout  # every font embedded


def test_pages_render_inside_the_paper(
    client: FlaskClient, long_match: str, tmp_path: Path
) -> None:
    data = client.get(f"/m/{long_match}/sheet.pdf").data
    path = tmp_path / "look.pdf"
    path.write_bytes(data)
    subprocess.run(["pdftoppm", "-r", "60", "-png", str(path), str(tmp_path / "page")], check=True)
    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) == 2


def test_finished_match_names_the_winner_house_rules_and_signature_lines(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    hands = [
        HandInput(declarer=1, bid=150, trump="G", melds=[0, 100, 20], tricks=[60, 130, 60]),
        HandInput(declarer=0, outcome="durch", won=True),
    ]
    token = service_match(app, NAMES, hands, failed_extra=100)
    text = pdf_text(client.get(f"/m/{token}/sheet.pdf?lang=en").data, tmp_path)
    assert "Winner: Anna with 1,060" in text
    assert "Durch won" in text and "made" in text
    assert "House rules:" in text and "100" in text
    assert "Schreiber" in text
    assert "Standard" in text


def test_losses_in_brackets_and_team_sheet(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    hands = [
        HandInput(declarer=1, bid=400, trump="H", melds=[20, 20], tricks=[120, 130]),
        HandInput(declarer=0, outcome="durch", won=True),
    ]
    token = service_match(app, ["Anna", "Bernd", "Carla", "Dieter"], hands, preset="kreuzbinokel")
    text = pdf_text(client.get(f"/m/{token}/sheet.pdf?lang=en").data, tmp_path)
    assert "(−800)" in text
    assert "Anna & Carla" in text and "Bernd & Dieter" in text
    assert "Teams:" in text
    assert "failed" in text


@pytest.mark.parametrize(
    ("preset", "names", "changes"),
    [
        ("vier_mit_aussetzer", ["Anna", "Bernd", "Carla", "Dieter"], {}),
        (
            "sechser",
            ["Anna-Lena", "Bernhard", "Carla", "Dieter", "Eberhard", "Friederike"],
            {"team_size": 1, "target": 100_000},
        ),
    ],
)
def test_wide_tables_stay_on_the_page(
    app: Flask,
    client: FlaskClient,
    tmp_path: Path,
    preset: str,
    names: list[str],
    changes: dict[str, Any],
) -> None:
    token = service_match(app, names, 24, preset=preset, **changes)
    data = client.get(f"/m/{token}/sheet.pdf?lang=de").data
    assert words_right_edge(data, tmp_path) <= A4[0] - MARGIN_PT + 1
    text = pdf_text(data, tmp_path)
    rows, totals = expected(app, token, "de")
    for cells in rows:
        assert re.search(rf"^\s*{cells[0]}\s", text, re.M)
        for cell in cells[1:]:
            assert cell in text  # no number clipped
    assert all(t in text for t in totals)


def test_session_pdf_has_every_match_and_the_settlement(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    first = service_match(
        app, NAMES, [HandInput(declarer=0, outcome="durch", won=True)], stake_cents=10
    )
    session = session_token_of(app, first)
    service_match(
        app, NAMES, [HandInput(declarer=2, outcome="durch", won=True)], session_token=session
    )
    response = client.get(f"/s/{session}/sheets.pdf?lang=en")
    assert response.status_code == 200
    text = pdf_text(response.data, tmp_path)
    assert "Match 1" in text and "Match 2" in text and "Settlement" in text
    assert "Bernd pays" in text
    assert pdf_pages(response.data, tmp_path) == 3


def test_match_page_links_to_pdf_csv_and_session(client: FlaskClient, app: Flask) -> None:
    token = service_match(app, NAMES, 1)
    page = client.get(f"/m/{token}").get_data(as_text=True)
    assert f'href="/m/{token}/sheet.pdf"' in page
    assert f'href="/m/{token}/sheet.csv"' in page
    assert f'href="/s/{session_token_of(app, token)}"' in page


def test_unknown_match_is_404(client: FlaskClient) -> None:
    assert client.get("/m/nope/sheet.pdf").status_code == 404


def test_url_fetcher_reads_only_our_static_files_and_fonts(app: Flask) -> None:
    with app.app_context():
        css = Path(app.static_folder or "") / "scorer.css"
        assert pdf.fetch_file(css.as_uri())[0].startswith(b"/*")
        assert pdf.fetch_file(pdf.font_urls()["regular"])[1] == "font/ttf"
        for url in ("http://example.com/x.png", "file:///etc/passwd", css.as_uri() + "/../../x"):
            with pytest.raises(pdf.FetchRefused):
                pdf.fetch_file(url)
        fetcher = pdf.url_fetcher()
        response = fetcher(pdf.font_urls()["bold"])
        assert response.read(4) == b"\x00\x01\x00\x00"  # a TrueType file
        with pytest.raises(pdf.FetchRefused):
            fetcher("https://example.com/font.ttf")


def test_fonts_load_through_our_fetcher(
    client: FlaskClient, long_match: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="weasyprint"):
        assert client.get(f"/m/{long_match}/sheet.pdf").status_code == 200
    assert not [r for r in caplog.records if r.name.startswith("weasyprint")], caplog.text


def test_hostile_names_do_not_break_the_sheet(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    token = service_match(
        app,
        ['"</style><img src=http://x>', "B\\ernd", "Carl"],
        2,
        title='x"}; @page { content: url(http://evil) }',
    )
    response = client.get(f"/m/{token}/sheet.pdf")
    assert response.status_code == 200
    text = pdf_text(response.data, tmp_path)
    assert '"</style><img src=http://x>' in text
    assert 'x"}; @page' in text


def test_css_string_escapes_quotes_and_markup() -> None:
    assert pdf.css_string('a"b<c') == '"a\\22 b\\3c c"'


# -- cost: long matches, the cache, the render slots -----------------------------------


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts WeasyPrint renders (one entry per PDF made)."""
    made: list[int] = []
    real = pdf.render_pdf

    def counting(html: str) -> bytes:
        made.append(1)
        return real(html)

    monkeypatch.setattr(layout, "render_pdf", counting)
    return made


def add_hand(app: Flask, token: str) -> None:
    with app.test_request_context("/"):
        match = services.get_match(token)
        services.save_hand(match, hand_input(3, services.sheet(match).hand_count))


def test_an_unchanged_match_is_rendered_once_and_a_change_renders_again(
    app: Flask, client: FlaskClient, renders: list[int], tmp_path: Path
) -> None:
    token = service_match(app, NAMES, 3, target=100_000)
    first = client.get(f"/m/{token}/sheet.pdf?lang=en")
    again = client.get(f"/m/{token}/sheet.pdf?lang=en")
    assert first.status_code == again.status_code == 200
    assert again.data == first.data
    assert again.headers["Cache-Control"] == "no-store"
    assert len(renders) == 1
    assert len(list((tmp_path / "pdf-cache").glob("*.pdf"))) == 1

    german = client.get(f"/m/{token}/sheet.pdf?lang=de")
    assert len(renders) == 2  # another language, another PDF
    assert "Spielmacher" in pdf_text(german.data, tmp_path)

    add_hand(app, token)
    fresh = client.get(f"/m/{token}/sheet.pdf?lang=en")
    assert len(renders) == 3
    assert "4 hands so far" in pdf_text(fresh.data, tmp_path)
    client.get(f"/m/{token}/sheet.pdf?lang=en")
    assert len(renders) == 3


def test_the_session_pdf_is_cached_until_a_match_or_the_stake_changes(
    app: Flask, client: FlaskClient, renders: list[int]
) -> None:
    first = service_match(app, NAMES, 2, target=100_000)
    session = session_token_of(app, first)
    second = service_match(app, NAMES, 1, target=100_000, session_token=session)
    url = f"/s/{session}/sheets.pdf?lang=en"
    assert client.get(url).status_code == 200
    assert client.get(url).status_code == 200
    assert len(renders) == 1
    add_hand(app, second)
    client.get(url)
    assert len(renders) == 2
    with app.test_request_context("/"):
        services.set_stake(services.get_session(session), 20, "full")
    client.get(url)
    client.get(url)
    assert len(renders) == 3
    # the match's own PDF is another file
    client.get(f"/m/{first}/sheet.pdf?lang=en")
    assert len(renders) == 4


def test_without_the_cache_every_request_renders(tmp_path: Path, renders: list[int]) -> None:
    with fresh_app(tmp_path, PDF_CACHE=False, WORK_SLOT_DIR=str(tmp_path / "slots")) as app:
        token = service_match(app, NAMES, 1)
        client = app.test_client()
        for _ in range(2):
            assert client.get(f"/m/{token}/sheet.pdf").status_code == 200
        assert len(renders) == 2
        assert not (Path(app.instance_path) / "pdf-cache" / "x").exists()


def test_the_cache_keeps_the_newest_files_only(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    app.config["PDF_CACHE_FILES"] = 2
    token = service_match(app, NAMES, 1, target=100_000)
    for _ in range(3):
        assert client.get(f"/m/{token}/sheet.pdf?lang=en").status_code == 200
        add_hand(app, token)
    left = list((tmp_path / "pdf-cache").glob("*"))
    assert len(left) == 2 and all(p.suffix == ".pdf" for p in left)


@pytest.fixture
def busy(tmp_path: Path) -> Iterator[None]:
    """Every render slot taken, as by another worker in the middle of a long render."""
    folder = tmp_path / "work-slots"
    folder.mkdir(exist_ok=True)
    with (folder / "slot-0.lock").open("ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
        fcntl.flock(handle, fcntl.LOCK_UN)


def test_a_busy_slot_answers_503_with_retry_after_and_other_pages_still_answer(
    app: Flask, client: FlaskClient, renders: list[int], busy: None
) -> None:
    token = service_match(app, NAMES, 2)
    response = client.get(f"/m/{token}/sheet.pdf?lang=en")
    assert response.status_code == 503
    assert response.headers["Retry-After"] == str(app.config["WORK_RETRY_AFTER"])
    assert response.mimetype == "text/html"
    assert "Other score sheets are being printed right now" in response.get_data(as_text=True)
    assert "Please try again in 10 seconds" in response.get_data(as_text=True)
    session = client.get(f"/s/{session_token_of(app, token)}/sheets.pdf?lang=de")
    assert session.status_code == 503 and "Retry-After" in session.headers
    assert '<html lang="de"' in session.get_data(as_text=True)
    assert renders == []
    # the match page and its poll are answered meanwhile
    assert client.get(f"/m/{token}").status_code == 200


def test_a_cached_pdf_needs_no_slot(
    app: Flask, client: FlaskClient, renders: list[int], tmp_path: Path
) -> None:
    token = service_match(app, NAMES, 2)
    made = client.get(f"/m/{token}/sheet.pdf").data
    folder = tmp_path / "work-slots"
    with (folder / "slot-0.lock").open("ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        response = client.get(f"/m/{token}/sheet.pdf")
    assert response.status_code == 200 and response.data == made
    assert len(renders) == 1


def test_a_slot_comes_free_again_after_a_render(app: Flask) -> None:
    with app.app_context():
        for _ in range(3):
            with slots.work_slot():
                pass
        app.config["WORK_SLOTS"] = 2
        # two slots held: a third request waits WORK_SLOT_WAIT, then gives up
        with slots.work_slot(), slots.work_slot(), pytest.raises(pdf.PdfBusy), slots.work_slot():
            pass


def import_long_match(app: Flask, hands: int) -> str:
    """A match of ``hands`` hands, imported from a backup (much faster than playing them)."""
    token = service_match(app, NAMES, 30, target=100_000, title="Lange Nacht")
    with app.test_request_context("/"):
        data = services.export_sessions([services.get_match(token).session])
        match = data["sessions"][0]["matches"][0]
        played = match["hands"]
        match["hands"] = []
        for number in range(hands):
            hand = copy.deepcopy(played[number % len(played)])  # 30 hands: the dealers go round
            hand["seq"] = number + 1
            match["hands"].append(hand)
        rows = services.import_backup(json.dumps(data))
        return str(rows[0].matches[0].token)


def test_a_match_of_the_most_hands_a_backup_may_hold_renders(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    token = import_long_match(app, backup_format.MAX_HANDS)
    response = client.get(f"/m/{token}/sheet.pdf?lang=en")
    assert response.status_code == 200
    pages = pdf_pages(response.data, tmp_path)
    assert 11 <= pages <= 14  # about 40 hands a page
    text = pdf_text(response.data, tmp_path)
    numbers = {int(li.split()[0]) for li in text.splitlines() if re.match(r"^\s*\d+\s+\D", li)}
    assert set(range(1, backup_format.MAX_HANDS + 1)) <= numbers  # three digits are not clipped
    _rows, totals = expected(app, token, "en")
    total_line = next(li for li in text.splitlines() if li.strip().startswith("Total"))
    assert total_line.split()[1:] == totals
    last = pdf_text(response.data, tmp_path, first=pages)
    assert "Dealer" in last and f"Page {pages} of {pages}" in last
    assert "Schreiber" in last
    assert words_right_edge(response.data, tmp_path) <= A4[0] - MARGIN_PT + 1


def test_the_charts_labels_name_whole_teams_in_the_sheets_type(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    names = ["Anna-Lena Müller", "Bernhard", "Carl-Friedrich", "Dorothea"]
    token = service_match(app, names, 6, preset="kreuzbinokel")
    data = client.get(f"/m/{token}/sheet.pdf?lang=de").data
    text = pdf_text(data, tmp_path)
    chart_part = text[text.index("Verlauf") :]
    # the label at each line's end: the whole team and its total, not "Anna-Len…"
    assert re.search(r"Anna-Lena Müller & Carl-Friedrich [\d.]+", chart_part)
    assert re.search(r"Bernhard & Dorothea [\d.]+", chart_part)
    assert "…" not in chart_part
    path = tmp_path / "sheet.pdf"
    path.write_bytes(data)
    boxes = subprocess.run(
        ["pdftotext", "-bbox", str(path), "-"], capture_output=True, check=True, text=True
    ).stdout
    words = re.findall(
        r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<', boxes
    )
    chart_top = next(float(w[1]) for w in words if w[4] == "Verlauf")
    label = [w for w in words if w[4] == "Carl-Friedrich" and float(w[1]) > chart_top]
    assert label, "the label of Anna-Lena's team is in the chart"
    x_max, height = float(label[0][2]), float(label[0][3]) - float(label[0][1])
    assert x_max <= A4[0] - MARGIN_PT  # inside the page's text, not cut at its edge
    assert height <= 10  # the sheet's type (8.5 pt), not a headline's
