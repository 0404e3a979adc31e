"""The installable app in Chromium: manifest and icons, the service worker, the last
sheet without a connection, the "keep the screen on" switch, the share button, and
every main page in light and dark mode (screenshots for a human to look at)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer import services
from scorer.extensions import db
from scorer.models import Match
from tests.builders import service_match
from tests.e2e.conftest import LiveServer, fits_width
from tests.e2e.test_offline import fill_hand, save

pytestmark = pytest.mark.e2e

# the other browser tests keep the service worker out (tests/e2e/conftest.py)
WITH_WORKER = {"service_workers": "allow"}

ROWS = "#sheet tbody tr[id^=hand-]"


def played_match(live: LiveServer, hands: int = 12, **rules: Any) -> tuple[str, str]:
    """A match of three with ``hands`` hands (fewer if it ends); its edit and session tokens."""
    names = ["Anna", "Berta", "Carl"]
    token = service_match(live.app, names, hands, title="Stammtisch", **rules)
    with live.app.app_context():
        match: Match = services.get_match(token)
        session_token = match.session.token
        db.session.remove()
    return token, session_token


def back_online(page: Page, live: LiveServer) -> None:
    """The phone showing an offline copy gets its connection back: wait until the copy
    has loaded the live page in its place (static/app.js).

    The test must see the reload to its end in any case: Chromium can hang for good
    when a context is closed while a navigation runs through the service worker (it
    did, in 3 of 30 tries, when a test ended right after going online).
    """
    page.evaluate("() => { window.stillTheCopy = true; }")
    live.offline(page, False)
    # at once on the "online" event; should that reload still meet no connection, the
    # copy asks again within 15 s (static/app.js)
    live_page_again(page, timeout=20_000)


def live_page_again(page: Page, timeout: float | None = None) -> None:
    """Wait until the copy marked with ``window.stillTheCopy`` has reloaded into the
    live page and that page has loaded."""
    expect(page.locator("#offline-note")).to_be_hidden(timeout=timeout)
    page.wait_for_function("() => window.stillTheCopy === undefined")
    page.wait_for_load_state("load")


def worker_ready(page: Page) -> None:
    """Wait until the service worker controls the page and has kept it (static/app.js)."""
    # (not ``navigator.serviceWorker.ready``: a promise that never settles has no timeout)
    page.wait_for_function(
        """async () => {
            const registration = await navigator.serviceWorker.getRegistration();
            // active *and* activated, and this page under its control: a navigation
            // before that may pass the worker by (offline: ERR_INTERNET_DISCONNECTED)
            if (registration?.active?.state !== "activated") return false;
            if (!navigator.serviceWorker.controller) return false;
            const cache = await caches.open("scorer-pages");
            return !!(await cache.match(location.href));
        }"""
    )


def test_the_app_is_installable(make_page: Callable[..., Any], live_server: LiveServer) -> None:
    page = make_page(**WITH_WORKER)
    page.goto("/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    assert href
    manifest = page.evaluate(f"() => fetch({href!r}).then(r => r.json())")
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["name"] and manifest["short_name"] == "scorer"
    sizes = {(i["sizes"], i.get("purpose", "any")) for i in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in manifest["icons"]:
        kind = page.evaluate(
            f"() => fetch({icon['src']!r}).then(r => r.ok && r.headers.get('Content-Type'))"
        )
        assert kind.split(";")[0] == icon["type"], icon
    touch = page.locator("link[rel=apple-touch-icon]").get_attribute("href")
    assert page.evaluate(f"() => fetch({touch!r}).then(r => r.status)") == 200
    # the service worker is registered for the whole app and active
    page.wait_for_function(
        "async () => !!(await navigator.serviceWorker.getRegistration())?.active"
    )
    scope = page.evaluate("() => navigator.serviceWorker.getRegistration().then(r => r.scope)")
    assert scope == live_server.url + "/"


def test_the_last_sheet_opens_without_a_connection(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Callable[[Any, str], Path]
) -> None:
    token, _session = played_match(live_server, 12, target=100_000)
    page = make_page(**WITH_WORKER)
    # the very first visit: the page came before the worker, which keeps it all the same
    page.goto(f"/m/{token}")
    worker_ready(page)
    rows = page.locator(ROWS).count()
    assert rows == 12
    page.goto("/")
    worker_ready(page)
    live_server.offline(page)
    page.goto(f"/m/{token}")
    # the copy this phone loaded, marked and read-only
    expect(page.locator("#offline-note")).to_be_visible()
    expect(page.locator(ROWS)).to_have_count(rows)
    expect(page.locator("link[rel=stylesheet]")).to_have_count(1)
    assert page.evaluate("() => getComputedStyle(document.querySelector('.topbar')).position") == (
        "sticky"
    )  # the stylesheet came from the worker's cache
    assert page.locator("#entry form").get_attribute("inert") is not None
    # said again where the save button is: a reload comes back down there (issue 30)
    at_save = page.locator("#hand-form .offline-at-save")
    expect(at_save).to_be_visible()
    expect(at_save).to_have_text(page.locator("#offline-note").inner_text())
    assert at_save.evaluate("el => el.nextElementSibling.classList.contains('actions')")
    shot(page, "app-offline-match")
    # Chromium may tell a page being left that it is "online" (it did, now and then, in
    # this very test): the copy must not reload itself over the page the user went to
    page.evaluate(
        "() => window.addEventListener('beforeunload', () => "
        "setTimeout(() => window.dispatchEvent(new Event('online'))))"
    )
    # the app's start page (the shell) too, with the way back to the match
    page.goto("/")
    expect(page.locator(f"a[href='/m/{token}']")).to_be_visible()
    expect(page.locator("h1")).to_be_visible()
    expect(page.locator("#offline-note")).to_be_visible()
    back_online(page, live_server)


@pytest.mark.parametrize("address", ["/t/new", "/new", "/m/never-opened-here"])
def test_a_page_never_opened_says_so_offline_whatever_is_kept(
    make_page: Callable[..., Any],
    live_server: LiveServer,
    shot: Callable[[Any, str], Path],
    address: str,
) -> None:
    """The phone kept the start page and a match; offline, an address it never opened
    gets the "not opened on this phone yet" card, not the start page dressed as its copy."""
    token, _session = played_match(live_server, 3, target=100_000)
    page = make_page(**WITH_WORKER)
    page.goto("/")
    worker_ready(page)
    page.goto(f"/m/{token}")
    worker_ready(page)
    live_server.offline(page)
    page.goto(address)
    card = page.locator("#offline-page")
    expect(card).to_be_visible()
    expect(card).to_contain_text("noch nicht geöffnet")
    expect(page.locator("#offline-note")).to_be_hidden()  # no "last loaded copy" here
    expect(page.locator("a.button.primary[href='/new']")).to_have_count(0)  # not the home page
    box = card.bounding_box()
    assert box is not None and 0 <= box["y"] < 844 and box["x"] + box["width"] <= 390
    assert fits_width(page)
    if address == "/t/new":
        shot(page, "app-offline-never-opened")
    # what it did keep is still its copy
    page.goto(f"/m/{token}")
    expect(page.locator("#offline-note")).to_be_visible()
    expect(page.locator(ROWS)).to_have_count(3)
    page.goto("/")
    expect(page.locator("#offline-note")).to_be_visible()
    expect(page.locator("#offline-page")).to_have_count(0)
    back_online(page, live_server)


def test_an_offline_copy_reloads_only_when_its_page_answers(
    make_page: Callable[..., Any], live_server: LiveServer
) -> None:
    token, _session = played_match(live_server, 3, target=100_000)
    page = make_page(**WITH_WORKER)
    page.goto(f"/m/{token}")
    worker_ready(page)
    live_server.offline(page)
    page.goto(f"/m/{token}")
    expect(page.locator("#offline-note")).to_be_visible()
    page.evaluate("() => { window.stillTheCopy = true; }")
    # a flicker: the event comes, the connection does not; the page asks and stays
    with page.expect_event("requestfailed", lambda r: r.method == "HEAD"):
        page.evaluate("() => window.dispatchEvent(new Event('online'))")
    assert page.evaluate("() => window.stillTheCopy === true")
    expect(page.locator("#offline-note")).to_be_visible()
    # really back: the live page again, open for entries
    back_online(page, live_server)
    assert page.locator("#entry form").get_attribute("inert") is None


def test_an_offline_copy_asks_again_when_online_never_comes(
    make_page: Callable[..., Any], live_server: LiveServer
) -> None:
    """Poor reception: the phone says it is online all along, but the server did not
    answer.  No "online" event will come; the copy asks again every 15 s by itself."""
    token, _session = played_match(live_server, 3, target=100_000)
    page = make_page(**WITH_WORKER)
    page.goto(f"/m/{token}")
    worker_ready(page)
    # the timers of the pages loaded from here on (the copy's), run forward by the test;
    # installed once the worker is ready (installed before the first page, about one run
    # in fifteen on a loaded machine went on before the worker's activation was done, and
    # the copy's navigation missed the worker)
    page.clock.install()
    live_server.line.cut.set()  # no answer, while the phone still says "online"
    page.goto(f"/m/{token}")
    expect(page.locator("#offline-note")).to_be_visible()
    assert page.evaluate("() => navigator.onLine")
    page.evaluate("() => { window.stillTheCopy = true; }")
    with page.expect_event("requestfailed", lambda r: r.method == "HEAD"):
        page.clock.run_for(15_000)  # asked, no answer yet: the copy stays
    expect(page.locator("#offline-note")).to_be_visible()
    assert page.evaluate("() => window.stillTheCopy === true")
    live_server.line.cut.clear()  # the server answers again; no event tells the page
    with page.expect_navigation():
        page.clock.run_for(15_000)
    live_page_again(page)
    assert page.locator("#entry form").get_attribute("inert") is None


def test_the_chart_unfolds_and_follows_a_saved_hand(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Callable[[Any, str], Path]
) -> None:
    token, _session = played_match(live_server, 3, target=100_000)
    page = make_page(**WITH_WORKER)
    page.goto(f"/m/{token}")
    card = page.locator("#chart-card")
    expect(card.locator("polyline")).to_have_count(0)  # folded: not drawn yet
    card.locator("summary").click()
    lines = card.locator("svg.chart polyline")
    expect(lines).to_have_count(3)
    assert len((lines.first.get_attribute("points") or "").split()) == 4  # the start and 3 hands
    fill_hand(page)
    save(page)
    expect(page.locator(ROWS)).to_have_count(4)
    # the saved hand's answer leaves the chart behind: it is drawn again, one point longer
    version = page.locator("#match-top").get_attribute("data-version")
    expect(page.locator("#chart-card")).to_have_attribute("data-version", version or "")
    points = page.locator("#chart-card svg.chart polyline").first.get_attribute("points") or ""
    assert len(points.split()) == 5
    expect(page.locator("#chart-card")).to_have_attribute("open", "")
    shot(page, "app-chart-after-a-hand")


def test_the_keep_awake_switch_is_there_only_where_it_works(
    make_page: Callable[..., Any],
) -> None:
    page = make_page(**WITH_WORKER)
    page.goto("/")
    supported = page.evaluate("() => 'wakeLock' in navigator")
    switch = page.locator("#wake")
    if not supported:
        expect(switch).to_be_hidden()
        return
    expect(switch).to_be_visible()
    box = page.locator("#wake-lock")
    box.check()
    # the lock is held, or the browser refused it and the switch says so
    page.wait_for_function(
        "() => !document.getElementById('wake-lock').checked || "
        "localStorage.getItem('scorer.keepAwake') === '1'"
    )
    box_after = page.evaluate("() => document.getElementById('wake-lock').checked")
    assert page.evaluate("() => localStorage.getItem('scorer.keepAwake')") == "1"
    if box_after:
        page.reload()
        expect(page.locator("#wake-lock")).to_be_checked()


def test_the_share_button_copies_the_read_only_link(
    make_page: Callable[..., Any], live_server: LiveServer
) -> None:
    token, _session = played_match(live_server, 3)
    page = make_page(permissions=["clipboard-read", "clipboard-write"], **WITH_WORKER)
    page.goto(f"/m/{token}")
    # no Web Share in headless Chromium: the clipboard
    page.evaluate("() => { delete Navigator.prototype.share; }")
    page.locator("#share summary").click()
    button = page.locator("#share-button")
    expect(button).to_be_visible()
    button.click()
    expect(page.locator("#share-button-note")).to_be_visible()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == page.locator("#share-url").input_value()
    assert "/v/" in copied


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_main_pages_in_light_and_dark(
    make_page: Callable[..., Any],
    live_server: LiveServer,
    shot: Callable[[Any, str], Path],
    scheme: str,
) -> None:
    token, session_token = played_match(live_server, 14)
    page = make_page(color_scheme=scheme, **WITH_WORKER)
    page.goto(f"/m/{token}")
    # a finished match shows its chart unfolded
    expect(page.locator("#chart-card svg.chart")).to_be_visible()
    expect(page.locator("#chart-card svg.chart polyline")).to_have_count(3)
    assert fits_width(page)
    shot(page, f"app-{scheme}-match")
    # tap targets of 44 px: the language link in the top bar, the links under the sheet
    for link in page.locator(".topnav a, p.links a").all():
        box = link.bounding_box()
        assert box and box["height"] >= 44, link.inner_text()
    for link in page.locator(".topnav a").all():
        box = link.bounding_box()
        assert box and box["width"] >= 44, link.inner_text()
    page.goto("/")
    shot(page, f"app-{scheme}-home")
    page.goto(f"/s/{session_token}")
    shot(page, f"app-{scheme}-session")
    page.locator("#stats-link").click()
    expect(page.locator("#stats-session thead th[data-player]")).to_have_count(3)
    assert fits_width(page)
    shot(page, f"app-{scheme}-stats")
    background = page.evaluate("() => getComputedStyle(document.documentElement).backgroundColor")
    assert (background == "rgb(17, 22, 20)") == (scheme == "dark")
