"""Every table page usable by every player (issue 30): axe-core finds nothing on any page
the Schreiber or a spectator reaches, in German and English; text at 200 % keeps every
page at 390 px without sideways scrolling; the message of a refused form is in sight.

Screenshots go to test-artifacts/screens/every-player-*.png for a human to look at.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scorer import services
from scorer.extensions import db
from tests.builders import service_match
from tests.e2e.conftest import (
    SCREENS,
    LiveServer,
    enlarge_text,
    fits_width,
    no_axe_violations,
)
from tests.e2e.test_flows import (
    choose,
    fill_hand,
    press_start,
    save_hand,
    start_match,
)

pytestmark = pytest.mark.e2e

Shot = Callable[[Any, str], Path]
LOCALES = {"de": "de-DE", "en": "en-GB"}


def settled(page: Page) -> None:
    """Nothing on its way: htmx's answers are in (the page as a player sees it)."""
    page.wait_for_load_state("networkidle")
    expect(page.locator(".htmx-request")).to_have_count(0)


def check(page: Page, what: str) -> None:
    settled(page)
    no_axe_violations(page, what)


# the element's top below the sticky bars at the top, its bottom on the screen
IN_SIGHT = """(selector) => {
    const el = document.querySelector(selector);
    if (!el) return false;
    let covered = 0;
    for (const bar of document.querySelectorAll('.topbar, .totals-bar')) {
        const style = getComputedStyle(bar), box = bar.getBoundingClientRect();
        if (style.position === 'sticky' && box.top <= covered + 1)
            covered = Math.max(covered, box.bottom);
    }
    const box = el.getBoundingClientRect();
    return box.height > 0 && box.top >= covered && box.bottom <= innerHeight;
}"""


def seen(page: Page, name: str) -> None:
    """The screen as the player sees it now (not scrolled to the top, unlike ``shot``)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), caret="initial")


def tokens(live: LiveServer, token: str) -> tuple[str, str]:
    """The match's read-only token and its session's token."""
    with live.app.app_context():
        match = services.get_match(token)
        found = (match.view_token, match.session.token)
        db.session.remove()
    return found


# -- axe-core on every table page ---------------------------------------------------------


@pytest.mark.parametrize("lang", ["de", "en"])
def test_no_axe_violation_on_any_table_page(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot, lang: str
) -> None:
    page = make_page(locale=LOCALES[lang])
    page.goto(f"/?lang={lang}")
    check(page, "home")
    page.goto("/new")
    check(page, "setup")
    page.locator("button[name=action][value=start]").click()
    expect(page.locator("#setup-form .form-error")).to_be_visible()
    check(page, "setup refused")
    page.locator("details.house-rules > summary").click()
    page.evaluate("() => window.scrollTo(0, 0)")
    check(page, "setup with the house rules open")
    page.goto("/melds")
    check(page, "calculator")
    page.locator("button[value='pair E']").click()
    expect(page.locator(".calc-sum")).to_have_text("20")
    check(page, "calculator with a meld")
    page.locator("button[name=go][value=cards]").click()
    expect(page.locator(".deck")).to_be_visible()
    check(page, "calculator, cards")
    page.goto("/import")
    check(page, "import")
    page.goto("/stats")
    check(page, "stats")
    page.goto("/offline/" + lang)
    check(page, "offline page")

    start_match(page, ["Anna", "Bert", "Carl"])
    press_start(page)
    check(page, "match page")
    fill_hand(page, declarer=0, bid=300, trump="H", melds={0: 100}, tricks={0: 180, 1: 60})
    expect(page.locator("#live-result")).to_contain_text("280")
    check(page, "hand form with a live result")
    page.locator('button[name="calc1-go"]').click()
    expect(page.locator("#calc-panel-1 .calc-panel")).to_be_visible()
    check(page, "calculator in the hand form")
    save_hand(page, 1)
    check(page, "match page with a saved hand")
    fill_hand(page, declarer=1, bid=39250, trump="E", melds={0: 30, 1: 20}, tricks={0: 60})
    page.locator("#hand-form .actions button[type=submit]").click()
    expect(page.locator("#hand-form .form-error")).to_be_visible()
    check(page, "hand form refused")
    page.locator("#share summary").click()
    check(page, "share")
    match_url = page.url
    page.goto(match_url + "/hands/1")
    check(page, "hand detail")
    page.goto(match_url + "/hands/1/edit")
    check(page, "correction")
    page.goto(match_url + "/rules")
    check(page, "rules")

    # a long evening, over: failed and gone-off hands, the winner, the chart open
    token = service_match(live_server.app, ["Anna", "Bert", "Carl"], 12, title="Krone")
    view, session = tokens(live_server, token)
    page.goto(f"/m/{token}")
    page.locator("#chart-card summary").click()
    check(page, "a finished match")
    shot(page, f"every-player-finished-{lang}")
    page.goto(f"/v/{view}")
    check(page, "read-only view")
    page.goto(f"/v/s/{view}")
    page.goto(f"/s/{session}")
    check(page, "session")
    page.goto(f"/s/{session}/stats")
    check(page, "session stats")


def test_no_axe_violation_in_dark_mode(
    make_page: Callable[..., Any], live_server: LiveServer
) -> None:
    page = make_page(color_scheme="dark")
    token = service_match(live_server.app, ["Anna", "Bert", "Carl"], 12)
    for path in ("/", "/new", "/melds", f"/m/{token}"):
        page.goto(path)
        check(page, f"{path} in dark mode")


# -- text at 200 % -------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["de", "en"])
def test_text_at_200_percent_keeps_every_page_in_the_width(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot, lang: str
) -> None:
    page = make_page(locale=LOCALES[lang])
    token = service_match(live_server.app, ["Anna-Lena", "Bernhard", "Carl"], 4, title="Krone")
    pages = {
        "setup": ("/new", ["#players-0", "button[name=action][value=start]"]),
        "match": (f"/m/{token}", [".sheet-wrap", "#bid", "#hand-form .actions button"]),
        "calculator": ("/melds", [".calc-sum", "button[value='pair E']"]),
        "rules": (f"/m/{token}/rules", ["main h1"]),
    }
    for name, (path, key) in pages.items():
        page.goto(f"{path}?lang={lang}" if "?" not in path else path)
        settled(page)
        enlarge_text(page)
        size = page.evaluate("() => parseFloat(getComputedStyle(document.body).fontSize)")
        assert size >= 31, size  # 16 px × 2
        assert fits_width(page), (name, page.evaluate("() => document.documentElement.scrollWidth"))
        for selector in key:
            target = page.locator(selector).first
            target.scroll_into_view_if_needed()
            expect(target).to_be_visible()
            box = target.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (
                name,
                selector,
                box,
            )
        shot(page, f"every-player-200-{name}-{lang}")


# -- a refused form's first message in sight ------------------------------------------------


@pytest.mark.parametrize("lang", ["de", "en"])
def test_starting_without_names_shows_the_message_in_sight(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot, lang: str
) -> None:
    page = make_page(locale=LOCALES[lang])
    page.goto(f"/new?lang={lang}")
    start = page.locator("button[name=action][value=start]")
    start.scroll_into_view_if_needed()
    start.click()
    expect(page.locator("#setup-form .form-error")).to_be_visible()
    page.wait_for_function(IN_SIGHT, arg="#setup-form .form-error")
    seen(page, f"every-player-no-names-{lang}")


def test_a_refused_hand_shows_its_first_message_below_the_bars(page: Page, shot: Shot) -> None:
    start_match(page, ["Anna", "Bert", "Carl"])
    press_start(page)
    fill_hand(page, declarer=0, bid=300, trump="H", melds={0: 30, 2: 5000}, tricks={0: 180, 1: 60})
    save = page.locator("#hand-form .actions button[type=submit]")
    save.scroll_into_view_if_needed()
    save.click()
    # both wrong meld totals marked, each with its party's name; the first one in sight
    marked = page.locator("#hand-form li[data-for$='-melds']")
    expect(marked).to_have_count(2)
    page.wait_for_function(IN_SIGHT, arg="#hand-form .errors")
    seen(page, "every-player-meld-totals")
    expect(marked.nth(0)).to_contain_text("Anna:")
    expect(marked.nth(1)).to_contain_text("Carl:")
    # corrected, Anna's message goes at once; Carl's stays until his is corrected too
    page.locator("#parties-0-melds").fill("40")
    expect(page.locator("li[data-for='parties-0-melds']")).to_have_count(0)
    expect(page.locator("#parties-0-melds")).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator("li[data-for='parties-2-melds']")).to_have_count(1)
    page.locator("#parties-2-melds").fill("60")
    expect(page.locator("li[data-for='parties-2-melds']")).to_have_count(0)
    expect(page.locator("#live-result")).to_contain_text(re.compile(r"(von|of) 300"))
    save_hand(page, 1)


def test_two_bids_run_together_are_doubted_beside_the_bid(page: Page, shot: Shot) -> None:
    start_match(page, ["Anna", "Bert", "Carl"])
    press_start(page)
    choose(page, "declarer-set", "0")
    bid = page.locator("#bid")
    bid.type("39")
    bid.type("250")  # no tap in between: 39250
    doubt = page.locator("#bid-doubt")
    expect(doubt).to_be_visible()
    expect(doubt).to_contain_text("39250")
    box, field = doubt.bounding_box(), bid.bounding_box()
    assert box and field and box["y"] - (field["y"] + field["height"]) < 80  # beside the bid
    bid.evaluate("el => el.scrollIntoView({block: 'center'})")
    shot(page, "every-player-bid-doubt")
    bid.fill("390")
    expect(doubt).to_be_hidden()


# -- the offline page of a page never loaded ------------------------------------------------


WORKER_READY = """async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    if (registration?.active?.state !== "activated") return false;
    if (!navigator.serviceWorker.controller) return false;
    // this page kept too: the worker is done with it (as test_app_shell.worker_ready)
    if (!(await (await caches.open("scorer-pages")).match(location.href))) return false;
    for (const name of await caches.keys()) {
        if (!name.startsWith("scorer-static-")) continue;
        const cache = await caches.open(name);
        if (await cache.match(location.origin + "/offline/de")
            && await cache.match(location.origin + "/offline/en")) return true;
    }
    return false;
}"""


def worker_with_offline_pages(page: Page) -> None:
    """Wait until the worker controls the page and keeps both offline pages."""
    page.wait_for_function(WORKER_READY)


@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_page_never_loaded_offline_is_the_apps_page_in_the_phones_language(
    make_page: Callable[..., Any], live_server: LiveServer, shot: Shot, lang: str
) -> None:
    page = make_page(locale=LOCALES[lang], service_workers="allow")
    page.goto("/melds")
    worker_with_offline_pages(page)
    # then a page under the worker's control from its start (as in test_app_shell.py: a
    # navigation before that may pass the worker by)
    page.goto("/stats")
    worker_with_offline_pages(page)
    # the line to the server goes (the phone's Wi-Fi still up, the laptop out of reach):
    # Chromium's own offline switch now and then fails a navigation before the worker
    # sees it under load, which is not what a phone does
    live_server.line.cut.set()
    # the worker is awake and answers (the stylesheet from its cache, the line cut): a
    # worker still starting when the navigation comes may be passed by
    assert page.evaluate(
        "() => fetch(document.querySelector('link[rel=stylesheet]').href).then(r => r.ok)"
    )
    page.goto("/import")  # never loaded on this phone (and the start page neither)
    expect(page.locator("#offline-page")).to_be_visible()
    assert page.evaluate("() => document.documentElement.lang") == lang
    heading = "Keine Verbindung" if lang == "de" else "No connection"
    expect(page.locator("#offline-page h1")).to_have_text(heading)
    # the app's look: its stylesheet, its top bar
    assert page.evaluate("() => getComputedStyle(document.querySelector('.topbar')).position") == (
        "sticky"
    )
    expect(page.locator("#offline-note")).to_be_hidden()
    shot(page, f"every-player-offline-{lang}")
    no_axe_violations(page, "offline page from the worker")
    # back online, it turns into the page asked for
    live_server.line.cut.clear()
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    expect(page.locator("#offline-page")).to_have_count(0, timeout=20_000)
    expect(page.locator("main h1")).to_be_visible()
