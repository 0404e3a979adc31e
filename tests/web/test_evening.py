"""The evening at a glance and the installable app, through the test client.

The score chart (match page, read-only view, PDF), the statistics (a session and the
device's sessions), the settlement in words, the share buttons, the web-app manifest,
its icons and the service worker.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer import services
from scorer.chart import MAX_POINTS, chart
from scorer.extensions import db
from scorer.services import HandInput
from scorer.web import CSP
from tests.builders import service_match
from tests.web.test_pdf import pdf_pages, pdf_text

NAMES = ["Anna", "Bernd", "Jürgen"]
# Bernd makes 150 (230 points), Jürgen fails 400 (−800), Anna wins a Durch (1000): the end
EVENING = [
    HandInput(declarer=1, bid=150, trump="G", melds=[0, 100, 20], tricks=[60, 130, 60]),
    HandInput(declarer=2, bid=400, trump="H", melds=[0, 0, 20], tricks=[60, 60, 130]),
    HandInput(declarer=0, outcome="durch", won=True),
]


def tokens_of(app: Flask, token: str) -> tuple[str, str, str]:
    """The match's view token, its session's token and view token."""
    with app.app_context():
        match = services.get_match(token)
        found = (match.view_token, match.session.token, match.session.view_token)
        db.session.remove()
    return found


def polylines(html: str) -> dict[int, list[tuple[int, int]]]:
    """The chart's lines by party: their points as (x, y)."""
    lines = {}
    for party, points in re.findall(r'<polyline[^>]*data-party="(\d+)" points="([^"]*)"', html):
        lines[int(party)] = [tuple(int(v) for v in p.split(",")) for p in points.split()]
    return lines  # type: ignore[return-value]


# -- the chart -----------------------------------------------------------------------------


def test_the_chart_draws_the_sheets_running_totals(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, NAMES, EVENING)
    page = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    assert 'id="chart-card"' in page and "<svg" in page
    lines = polylines(page)
    assert sorted(lines) == [0, 1, 2]  # one line per party
    # the sheet's running totals: Anna 60, 160, 1160; Bernd 230, 330, 330; Jürgen 80, −720, −720
    # (Jürgen fails 400: 40 each to Anna and Bernd, the Swabian sheet)
    expected = chart(NAMES, [[0, 0, 0], [60, 230, 80], [160, 330, -720], [1160, 330, -720]], 1000)
    for line in expected.lines:
        assert lines[line.party] == [tuple(map(int, p.split(","))) for p in line.points.split()]
    # the scale from −720 to 1160: zero between, hands 0..3 from left to right
    xs = [x for x, _ in lines[0]]
    assert xs == sorted(xs) and len(set(xs)) == 4
    ys = {y for _, y in lines[2]}
    assert max(ys) > expected.zero_y  # Jürgen below zero
    # the labels at the lines' ends and the target line
    for name, total in (("Anna", "1,160"), ("Bernd", "330"), ("Jürgen", "(−720)")):
        assert f"{name} {total}</text>" in page
    assert 'class="chart-target"' in page and "Target 1000" in page
    # a finished match shows its chart unfolded; no style attribute (CSP)
    assert re.search(r'<details class="card chart-card no-print" id="chart-card" open', page)
    chart_html = page[
        page.index('id="chart-card"') : page.index("</details>", page.index("chart-card"))
    ]
    assert "style=" not in chart_html


def test_struck_hands_are_not_on_the_chart(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, NAMES, EVENING[:2])
    with app.app_context():
        match = services.get_match(token)
        services.delete_hand(match, services.live_hands(match)[0])
        db.session.remove()
    page = client.get(f"/m/{token}/chart?lang=en").get_data(as_text=True)
    lines = polylines(page)
    assert [len(points) for points in lines.values()] == [2, 2, 2]  # the start and one hand
    expected = chart(NAMES, [[0, 0, 0], [60, 60, -800]], 1000)
    assert lines[2] == [tuple(map(int, p.split(","))) for p in expected.lines[2].points.split()]


def test_an_empty_match_has_no_lines_yet(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, NAMES)
    page = client.get(f"/m/{token}/chart?lang=en").get_data(as_text=True)
    assert "The chart starts with the first hand." in page
    assert "<polyline" not in page


def test_a_running_match_draws_its_chart_when_it_is_unfolded(
    app: Flask, client: FlaskClient
) -> None:
    token = service_match(app, NAMES, EVENING[:2])
    page = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    card = re.search(r'<details class="card chart-card no-print" id="chart-card"[^>]*>', page)
    assert card is not None
    # folded, nothing drawn yet, and behind every version: static/app.js asks when unfolded
    assert " open" not in card.group(0) and 'data-version=""' in card.group(0)
    assert f'hx-get="/m/{token}/chart"' in card.group(0)
    assert "<polyline" not in page
    assert len(polylines(client.get(f"/m/{token}/chart").get_data(as_text=True))) == 3


def test_the_chart_fragment_carries_the_matchs_version(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, NAMES, EVENING[:1])
    with app.app_context():
        version = services.get_match(token).version
        db.session.remove()
    response = client.get(f"/m/{token}/chart", headers={"HX-Request": "true"})
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html.lstrip().startswith("<details")
    assert f'data-version="{version}"' in html and " open" in html
    assert 'hx-trigger="scorer:chart"' in html
    assert client.get("/m/nosuchmatch/chart").status_code == 404


def test_the_read_only_view_and_the_pdf_show_the_chart(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    token = service_match(app, NAMES, EVENING)
    view, _session, _session_view = tokens_of(app, token)
    live = client.get(f"/v/{view}?lang=en").get_data(as_text=True)
    assert sorted(polylines(live)) == [0, 1, 2]
    pdf = client.get(f"/m/{token}/sheet.pdf?lang=en")
    assert pdf.status_code == 200
    text = pdf_text(pdf.data, tmp_path)
    assert "Score chart" in text
    assert "Target 1000" in text and "Anna 1,160" in text


def test_chart_scales_long_and_negative_matches() -> None:
    running = [[0, 0]] + [[n * 10, -n * 5] for n in range(1, 501)]
    drawn = chart(["A", "B"], running, 1000)
    for line in drawn.lines:
        points = line.points.split()
        assert len(points) <= MAX_POINTS + 1
        assert points[0].startswith(f"{drawn.left},") and points[-1].startswith(f"{drawn.right},")
    assert drawn.hands == 500
    assert drawn.x_ticks[-1].value == 500
    # −2500 at the bottom, 5000 at the top; the labels do not overlap
    ys = [int(p.split(",")[1]) for p in drawn.lines[1].points.split()]
    assert max(ys) == drawn.bottom and drawn.zero_y < drawn.bottom
    assert abs(drawn.lines[0].label_y - drawn.lines[1].label_y) >= 13
    # equal totals: the labels are spread apart all the same
    tied = chart(["A", "B", "C"], [[0, 0, 0], [100, 100, 100]], 1000)
    label_ys = sorted(line.label_y for line in tied.lines)
    assert all(b - a >= 13 for a, b in itertools.pairwise(label_ys))


# -- the statistics --------------------------------------------------------------------------


def test_the_statistics_of_a_session_and_of_the_device(app: Flask, client: FlaskClient) -> None:
    first = service_match(app, NAMES, EVENING)
    _view, session_token, _ = tokens_of(app, first)
    # a second match of the same session: Jürgen goes off, a struck hand does not count
    second = service_match(
        app,
        NAMES,
        [
            HandInput(declarer=2, bid=200, trump="E", outcome="gone_off", melds=[0, 0, 0]),
            HandInput(declarer=1, bid=300, trump="S", melds=[0, 150, 0], tricks=[60, 130, 60]),
        ],
        session_token=session_token,
    )
    with app.app_context():
        match = services.get_match(second)
        services.delete_hand(match, services.live_hands(match)[1])
        db.session.remove()
    # another session on this device: Bernd declares and makes 160
    other = service_match(
        app,
        ["Bernd", "Carla", "Dora"],
        [HandInput(declarer=0, bid=160, trump="H", melds=[40, 0, 0], tricks=[130, 60, 60])],
    )
    _view2, other_session, _ = tokens_of(app, other)
    client.get(f"/s/{other_session}")
    session_page = client.get(f"/s/{session_token}?lang=en").get_data(as_text=True)
    assert f'href="/s/{session_token}/stats"' in session_page

    page = client.get(f"/s/{session_token}/stats?lang=en").get_data(as_text=True)
    session_part = page[page.index('id="session-stats"') : page.index('id="device-stats"')]
    rows = stats_rows(session_part)
    # won/played, declared, made, failed, gone off, special won/declared, average bid, meld
    assert rows["Anna"] == ["1/2", "1", "0", "0", "0", "1/1", "–", "0"]
    assert rows["Bernd"] == ["0/2", "1", "1", "0", "0", "0/0", "150", "100"]
    assert rows["Jürgen"] == ["0/2", "2", "0", "1", "1", "0/0", "300", "20"]
    assert list(rows) == ["Anna", "Bernd", "Jürgen"]  # the match winner first
    assert "Matches: 2 · 4 hands" in session_part

    device = client.get("/stats?lang=en").get_data(as_text=True)
    rows = stats_rows(device[device.index('id="device-stats"') :])
    assert rows["Bernd"] == ["0/3", "2", "2", "0", "0", "0/0", "155", "100"]
    assert rows["Dora"] == ["0/1", "0", "0", "0", "0", "0/0", "–", "0"]
    assert "Sessions: 2 · Matches: 3 · 5 hands" in device
    home = client.get("/?lang=en").get_data(as_text=True)
    assert 'href="/stats"' in home


def test_in_a_team_game_the_partner_who_declared_counts(app: Flask, client: FlaskClient) -> None:
    hand = HandInput(
        declarer=0, declarer_seat=2, bid=200, trump="G", melds=[100, 20], tricks=[160, 90]
    )
    token = service_match(app, ["Anna", "Bernd", "Carla", "Dieter"], [hand], preset="kreuzbinokel")
    _view, session_token, _ = tokens_of(app, token)
    page = client.get(f"/s/{session_token}/stats?lang=en").get_data(as_text=True)
    rows = stats_rows(page[page.index('id="session-stats"') :])
    # Carla declared for her team and made it; Anna, her partner, shares the team's meld
    assert rows["Carla"][1:3] == ["1", "1"] and rows["Carla"][6:] == ["200", "100"]
    assert rows["Anna"][1:3] == ["0", "0"] and rows["Anna"][7] == "100"
    assert rows["Bernd"][7] == "20"


def test_statistics_count_only_this_devices_sessions(app: Flask, client: FlaskClient) -> None:
    service_match(app, ["Xaver", "Yvonne", "Zora"], EVENING)  # another device's session
    page = client.get("/stats?lang=en").get_data(as_text=True)
    assert "Xaver" not in page
    assert "Sessions: 0" in page


def stats_rows(html: str) -> dict[str, list[str]]:
    """The first statistics table of ``html``: per player, the figures in the rows' order."""
    table = html[html.index("<table") : html.index("</table>")]
    names = re.findall(r'<th data-player="([^"]+)">', table)
    rows: dict[str, list[str]] = {name: [] for name in names}
    for cells in re.findall(r"<tr data-stat=\"[^\"]+\">(.*?)</tr>", table, re.S):
        values = re.findall(r"<td[^>]*>(.*?)</td>", cells, re.S)
        for name, value in zip(names, values, strict=True):
            rows[name].append(re.sub(r"<[^>]+>|\s", "", value))
    return rows


# -- the session page: the settlement in words, the share button ---------------------------


@pytest.mark.parametrize(
    ("basis", "words"),
    [
        ("full", "for every full 100 points"),
        ("started", "for every started 100 points"),
        ("exact", "exactly, to the cent"),
        ("per_game", "who loses a match pays"),
    ],
)
def test_the_session_page_says_how_the_settlement_is_computed(
    app: Flask, client: FlaskClient, basis: str, words: str
) -> None:
    token = service_match(app, NAMES, EVENING, stake_cents=50, stake_basis=basis)
    _view, session_token, session_view = tokens_of(app, token)
    page = client.get(f"/s/{session_token}?lang=en").get_data(as_text=True)
    how = page[page.index('id="settlement-how"') :]
    assert words in how and "€0.50" in how
    assert "split equally among the winners" in how
    assert "as few transfers as possible" in how
    # the read-only link of the session, with its share button
    assert f"/v/s/{session_view}" in page
    assert 'id="share-button"' in page and "data-share-url=" in page


def test_the_match_page_has_a_share_button(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, NAMES, EVENING[:1])
    view, _session, _ = tokens_of(app, token)
    page = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    button = re.search(r'<button[^>]*id="share-button"[^>]*>', page, re.S)
    assert button is not None
    assert f'data-share-url="http://localhost/v/{view}"' in button.group(0)
    assert " hidden" in button.group(0)  # until static/app.js knows it can share or copy
    assert "Link copied" in button.group(0)


# -- installable: manifest, icons, service worker --------------------------------------------


def test_the_manifest_and_its_icons(client: FlaskClient) -> None:
    page = client.get("/?lang=en").get_data(as_text=True)
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert '<meta name="color-scheme" content="light dark">' in page
    touch = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', page)
    assert touch is not None
    response = client.get("/manifest.webmanifest?lang=en")
    assert response.status_code == 200
    assert response.mimetype == "application/manifest+json"
    data = response.get_json(force=True)
    assert data["name"] == "Binokel score sheet" and data["short_name"] == "scorer"
    assert data["start_url"] == "/" and data["scope"] == "/" and data["display"] == "standalone"
    assert data["theme_color"] == "#1f4d3a" and data["background_color"]
    purposes = {(icon["sizes"], icon.get("purpose", "any")) for icon in data["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= purposes
    for icon in [*data["icons"], {"src": touch.group(1), "type": "image/png"}]:
        with client.get(icon["src"]) as got:
            got.get_data()
        assert got.status_code == 200, icon
        assert got.mimetype == icon["type"], icon
        if icon["type"] == "image/png":
            assert got.data.startswith(b"\x89PNG")
            if "x" in icon.get("sizes", ""):
                width = int.from_bytes(got.data[16:20], "big")
                assert f"{width}x{width}" == icon["sizes"]
    german = client.get("/manifest.webmanifest?lang=de").get_json(force=True)
    assert german["lang"] == "de"


def test_the_service_worker_is_served_from_the_root(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    script = re.search(r'<script src="(/static/app\.js\?v=\w+)" data-sw="/sw\.js" defer>', page)
    assert script is not None
    with client.get(script.group(1)) as app_js:
        assert app_js.status_code == 200
        assert "wakeLock" in app_js.get_data(as_text=True)
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert response.headers["Service-Worker-Allowed"] == "/"
    assert "no-cache" in response.headers["Cache-Control"]
    assert response.headers["Content-Security-Policy"] == CSP
    body = re.sub(r"\s", "", response.get_data(as_text=True))  # served minified
    # the file's own hash names its cache; POSTs never reach the cache
    assert re.search(r'constVERSION="[0-9a-f]{12}";', body)
    assert 'request.method!=="GET"' in body
    # no inline script and no inline handler anywhere on the pages
    assert not re.search(r"<script(?![^>]*\bsrc=)", page)
    assert not re.search(r"\son[a-z]+=", page)


def test_pages_stay_private_for_every_cache_but_the_phones_own(
    app: Flask, client: FlaskClient
) -> None:
    token = service_match(app, NAMES, EVENING[:1])
    response = client.get(f"/m/{token}")
    assert "no-store" in response.headers["Cache-Control"]
    assert "private" in response.headers["Cache-Control"]


def test_the_offline_note_and_the_keep_awake_switch_wait_for_the_script(
    client: FlaskClient,
) -> None:
    page = client.get("/?lang=en").get_data(as_text=True)
    assert '<p class="flash flash-offline" id="offline-note" role="status" hidden>' in page
    # in the top bar, hidden until the script finds the browser can keep the screen on
    assert '<label class="wake" id="wake" title="Keep the screen on" hidden>' in page
    assert '<input type="checkbox" id="wake-lock" aria-label="Keep the screen on">' in page


def test_the_trophy_is_drawn_not_an_emoji(app: Flask, client: FlaskClient) -> None:
    token = service_match(app, NAMES, EVENING)
    page = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    assert "🏆" not in page
    assert page.count('<svg class="trophy"') == 1


def test_the_signature_lines_never_stand_alone_on_a_page(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    # 37 hands: the sheet fills the first page, the signatures used to be alone on the second
    token = service_match(app, ["Anna", "Bernd", "Carla"], 37, target=100_000)
    data = client.get(f"/m/{token}/sheet.pdf?lang=en").data
    pages = pdf_pages(data, tmp_path)
    signed = [p for p in range(1, pages + 1) if "Schreiber" in pdf_text(data, tmp_path, first=p)]
    assert len(signed) == 1
    page = pdf_text(data, tmp_path, first=signed[0])
    # with the totals and the result, and the chart after them
    assert "Total" in page and "still being played (37 hands so far)" in page
    assert "Score chart" in pdf_text(data, tmp_path)
