"""The hand form when the connection goes: nothing typed is lost, no hand is saved twice.

static/scorer.js keeps the form, says so in the page's language, stores the
fields in localStorage and sends the hand again — with the same idempotency key
— once the phone is online.  These tests cut the connection in Chromium and
count the hands in the database afterwards.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import func, select

from scorer import services
from scorer.extensions import db
from scorer.models import Hand
from scorer.rules import PRESETS
from tests.e2e.conftest import (
    PHONE,
    SCREENS,
    LiveServer,
    enlarge_text,
    fits_width,
    no_axe_violations,
)

pytestmark = pytest.mark.e2e

ROWS = "#sheet tbody tr[id^=hand-]"
SAVE = "#hand-form .actions button[type=submit]"


def new_match(live: LiveServer) -> str:
    with live.app.app_context():
        match = services.start_match(names=["Anna", "Berta", "Carl"], ruleset=PRESETS["standard"])
        token = match.token
        db.session.remove()
    return token


def hands_saved(live: LiveServer) -> int:
    with live.app.app_context():
        count = db.session.execute(select(func.count()).select_from(Hand)).scalar_one()
        db.session.remove()
    return int(count)


def choose(page: Page, fieldset: str, value: str) -> None:
    page.locator(f"#{fieldset} label:has(input[value='{value}'])").click()


def fill_hand(page: Page) -> None:
    """Anna plays 300 in Herz and fails (the same hand in every test)."""
    choose(page, "declarer-set", "0")
    page.locator("#bid").fill("300")
    choose(page, "trump-set", "H")
    page.locator("#parties-0-melds").fill("100")
    page.locator("#parties-0-tricks").fill("180")
    page.locator("#parties-1-tricks").fill("60")
    expect(page.locator("#live-result")).to_be_visible()
    # the live result asks 350 ms after the last keystroke: let that request finish,
    # or going offline next would cut it off (htmx logs that as a console error)
    page.wait_for_timeout(450)
    expect(page.locator(".htmx-request")).to_have_count(0)


def stored(page: Page, token: str) -> Any:
    return page.evaluate(f"() => JSON.parse(localStorage.getItem('scorer.hand.{token}'))")


def snapshot(page: Page, name: str) -> None:
    """A screenshot that leaves the page alone: Playwright's default hides the caret with a
    style attribute on every input, which htmx copies on its next swap (a CSP error)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => window.scrollTo(0, 0)")  # the sticky top bar stays on top
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True, caret="initial")


def save(page: Page) -> None:
    page.locator(SAVE).click()


def saved_offline(page: Page, live_server: LiveServer) -> tuple[str, str]:
    """A hand filled in and saved with the phone offline: the match and the form's key."""
    token = open_filled_hand(page, live_server)
    key = page.locator("#hand-form input[name=idempotency_key]").input_value()
    page.context.set_offline(True)
    save(page)
    expect(page.locator("#hand-form .offline-note")).to_be_visible()
    return token, key


def test_a_hand_sent_offline_is_kept_and_saved_once_when_back_online(
    page: Page, live_server: LiveServer
) -> None:
    token, key = saved_offline(page, live_server)
    note = page.locator("#hand-form .offline-note")
    expect(note).to_have_text(page.locator("#entry").get_attribute("data-offline-text") or "-")
    # the form is as it was, and its fields are on the phone
    expect(page.locator("#bid")).to_have_value("300")
    expect(page.locator("#parties-0-melds")).to_have_value("100")
    saved = stored(page, token)
    assert saved["pending"] is True
    assert ["idempotency_key", key] in saved["fields"]
    assert ["bid", "300"] in saved["fields"]
    snapshot(page, "offline-kept")
    assert hands_saved(live_server) == 0

    page.context.set_offline(False)
    expect(page.locator(ROWS)).to_have_count(1, timeout=10_000)
    assert hands_saved(live_server) == 1
    assert stored(page, token) is None
    expect(page.locator("#bid")).to_have_value("")  # a fresh form for the next hand
    page.wait_for_timeout(4_000)  # no late second attempt
    assert hands_saved(live_server) == 1


def open_filled_hand(page: Page, live_server: LiveServer) -> str:
    """A new match's page with a hand typed in, not yet sent; the match's token."""
    token = new_match(live_server)
    page.goto(f"/m/{token}")
    fill_hand(page)
    return token


def test_a_hand_whose_answer_was_lost_is_sent_again_but_saved_once(
    lossy_page: Page, live_server: LiveServer
) -> None:
    page = lossy_page
    token = open_filled_hand(page, live_server)
    posts: list[str] = []

    def lose_the_answer(route: Any) -> None:
        posts.append(route.request.post_data or "")
        route.fetch()  # the server saves the hand ...
        route.abort("connectionreset")  # ... and the phone never hears of it

    page.route("**/hands", lose_the_answer)
    save(page)
    expect(page.locator("#hand-form .offline-note")).to_be_visible()
    assert hands_saved(live_server) == 1
    page.unroute("**/hands")

    # the retry (same idempotency key) gets the saved hand back instead of a second one
    expect(page.locator(ROWS)).to_have_count(1, timeout=10_000)
    assert hands_saved(live_server) == 1
    assert stored(page, token) is None
    assert len(posts) == 1


def test_typed_fields_come_back_after_a_reload(page: Page, live_server: LiveServer) -> None:
    open_filled_hand(page, live_server)
    version = page.locator("#hand-form input[name=version]").input_value()
    page.reload()
    # offered, not imposed: the Schreiber restores it with a tap
    expect(page.locator("#bid")).to_have_value("")
    page.locator("#hand-form .restore-offer button[data-offer=restore]").click()
    expect(page.locator("#hand-form .restore-offer")).to_have_count(0)
    expect(page.locator("#bid")).to_have_value("300")
    expect(page.locator("#parties-0-melds")).to_have_value("100")
    expect(page.locator("#trump-set input[value=H]")).to_be_checked()
    expect(page.locator("#declarer-set input[value='0']")).to_be_checked()
    expect(page.locator("#live-result")).to_contain_text("280 von 300")  # asked anew
    assert page.locator("#hand-form input[name=version]").input_value() == version
    save(page)
    expect(page.locator(ROWS)).to_have_count(1)
    assert hands_saved(live_server) == 1


def test_a_hand_still_unsent_at_a_reload_is_sent_once(page: Page, live_server: LiveServer) -> None:
    token = open_filled_hand(page, live_server)
    page.context.set_offline(True)
    save(page)
    expect(page.locator("#hand-form .offline-note")).to_be_visible()
    page.context.set_offline(False)
    page.reload()  # the retry may or may not have gone out before the reload: one hand either way
    expect(page.locator(ROWS)).to_have_count(1, timeout=10_000)
    page.wait_for_timeout(4_000)
    assert hands_saved(live_server) == 1
    assert stored(page, token) is None


def test_a_page_rendered_before_the_save_it_reloaded_over_catches_up(
    page: Page, live_server: LiveServer
) -> None:
    """The race of a reload with a save on its way, made to happen every time: the
    old page hears "saved" while it is being left, and the new page was rendered
    before the save.  The new page sees it is older than the save and loads again."""
    token = new_match(live_server)
    page.goto(f"/m/{token}")
    before = page.request.get(f"{live_server.url}/m/{token}").text()  # the match, no hand
    fill_hand(page)
    page.evaluate("() => window.dispatchEvent(new Event('beforeunload'))")  # being left
    save(page)
    expect(page.locator(ROWS)).to_have_count(1)
    assert stored(page, token)["savedVersion"] > 0
    served: list[str] = []

    def the_page_from_before(route: Any) -> None:
        served.append(route.request.url)
        route.fulfill(status=200, content_type="text/html; charset=utf-8", body=before)

    page.route(f"**/m/{token}", the_page_from_before, times=1)
    page.reload()
    expect(page.locator(ROWS)).to_have_count(1)  # loaded once more, now with the hand
    assert len(served) == 1
    assert stored(page, token) is None
    assert hands_saved(live_server) == 1


def test_a_waiting_hand_changed_goes_out_under_a_new_key(
    page: Page, live_server: LiveServer
) -> None:
    token, key = saved_offline(page, live_server)
    # the Schreiber corrects the waiting hand: the key it was sent with no longer fits it
    page.locator("#bid").fill("350")
    changed = page.locator("#hand-form input[name=idempotency_key]").input_value()
    assert changed not in ("", key)
    saved = stored(page, token)
    assert saved["pending"] is True
    assert ["idempotency_key", changed] in saved["fields"]
    assert ["bid", "350"] in saved["fields"]

    page.context.set_offline(False)
    expect(page.locator(ROWS)).to_have_count(1, timeout=10_000)
    with live_server.app.app_context():
        hand = db.session.execute(select(Hand)).scalar_one()
        assert (hand.bid, hand.idempotency_key) == (350, changed)
        db.session.remove()


def test_a_hand_whose_send_hangs_counts_as_lost_and_is_sent_again_once(
    lossy_page: Page, live_server: LiveServer
) -> None:
    page = lossy_page
    token = open_filled_hand(page, live_server)
    # the form's own timeout (hx-request) is 15 s; a second is enough to see it work
    page.evaluate(
        """() => document.getElementById('hand-form')
                 .setAttribute('hx-request', JSON.stringify({timeout: 1000}))"""
    )
    hanging: list[Any] = []
    page.route("**/hands", lambda route: hanging.append(route))  # no answer, ever
    save(page)
    expect(page.locator("#hand-form .offline-note")).to_be_visible()
    assert stored(page, token)["pending"] is True
    assert len(hanging) == 1  # given up by the page (the browser cancelled it)
    page.unroute("**/hands")

    expect(page.locator(ROWS)).to_have_count(1, timeout=10_000)
    assert hands_saved(live_server) == 1
    assert stored(page, token) is None


def test_a_double_tap_on_save_sends_the_hand_once(page: Page, live_server: LiveServer) -> None:
    open_filled_hand(page, live_server)
    posts: list[str] = []
    page.on(
        "request",
        lambda r: posts.append(r.url) if r.method == "POST" and r.url.endswith("/hands") else None,
    )

    # a slow answer: held until the second tap has come while the first is on its way
    held: list[Any] = []
    page.route("**/hands", lambda route: held.append(route))
    page.evaluate(
        """() => { window.submits = 0;
                   document.addEventListener('submit', () => { window.submits += 1; }, true); }"""
    )
    # Enter in the last field still to fill saves (static/scorer.js: Enter moves on to
    # the next empty field, and saves when none is left); pressed twice while sending
    page.locator("#parties-2-melds").press("Enter")
    page.locator("#parties-2-melds").press("Enter")
    page.wait_for_function("() => window.submits === 2")
    assert len(held) == 1
    held[0].continue_()
    page.unroute("**/hands")
    expect(page.locator(ROWS)).to_have_count(1)
    page.wait_for_timeout(1_000)  # no late second send
    assert page.evaluate("() => window.submits") == 2  # two taps ...
    assert len(posts) == 1, posts  # ... one hand sent
    assert hands_saved(live_server) == 1


def covered_top(page: Page) -> float:
    """The bottom of the bars that stay on top of the screen (the top bar, the totals)."""
    return float(
        page.evaluate(
            """() => Math.max(0, ...[...document.querySelectorAll('.topbar, .totals-bar')]
                .filter(bar => ['sticky', 'fixed'].includes(getComputedStyle(bar).position))
                .map(bar => bar.getBoundingClientRect())
                .filter(box => box.top <= 1)
                .map(box => box.bottom))"""
        )
    )


def in_sight(page: Page, selector: str) -> dict[str, float]:
    """The box of ``selector`` in the viewport, asserted to lie between the bars on top
    and the screen's bottom (844)."""
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    top = covered_top(page)
    assert box["y"] >= top - 1, (selector, box, top)
    assert box["y"] + box["height"] <= PHONE["height"], (selector, box)
    return box


@pytest.mark.parametrize("gesture", ["enter", "tap"])
def test_an_offline_save_is_said_where_the_thumb_is(
    page: Page, live_server: LiveServer, gesture: str
) -> None:
    """Offline, the Enter on the last field (the save button then a screen below) or a
    tap on "Spiel eintragen" (the form's top a screen above): the note is on the screen,
    right above the button, and the button with it."""
    open_filled_hand(page, live_server)
    last = page.locator("#parties-2-melds")  # the last field still to fill: Enter saves
    last.focus()
    page.evaluate("() => window.scrollTo(0, 0)")
    page.context.set_offline(True)
    if gesture == "enter":
        assert page.locator(SAVE).bounding_box()["y"] > PHONE["height"]  # below the screen
        last.press("Enter")
    else:
        page.locator(SAVE).scroll_into_view_if_needed()
        form_top = page.locator("#hand-form").bounding_box()
        assert form_top is not None and form_top["y"] < 0  # the form's top is above it
        save(page)
    note = page.locator("#hand-form .offline-note")
    expect(note).to_have_text(page.locator("#entry").get_attribute("data-offline-text") or "-")
    note_box = in_sight(page, "#hand-form .offline-note")
    button = in_sight(page, SAVE)
    gap = button["y"] - (note_box["y"] + note_box["height"])
    assert 0 <= gap <= 24, (note_box, button)  # right above the button
    # the live result of these very values stays above the note
    expect(page.locator("#live-result")).to_contain_text("280 von 300")
    page.screenshot(path=str(SCREENS / f"offline-note-after-{gesture}.png"))
    no_axe_violations(page, "the offline note")
    enlarge_text(page)  # 200 %: the note wraps within the phone's width
    assert fits_width(page)
    assert hands_saved(live_server) == 0
    page.context.set_offline(False)
    expect(page.locator(ROWS)).to_have_count(1)
    assert hands_saved(live_server) == 1


def test_offline_the_live_result_says_it_waits_for_the_connection(
    page: Page, live_server: LiveServer
) -> None:
    """The hand's result is the server's to work out: typed offline, its box says that it
    comes with the connection (not the result of the values before), and it comes."""
    open_filled_hand(page, live_server)
    expect(page.locator("#live-result")).to_contain_text("280 von 300")
    page.context.set_offline(True)
    page.locator("#parties-0-tricks").fill("170")
    offline = page.locator("#preview .live-offline")
    expect(offline).to_have_text(
        page.locator("#entry").get_attribute("data-no-preview-text") or "-"
    )
    expect(page.locator("#live-result")).to_have_count(0)
    page.screenshot(path=str(SCREENS / "offline-live-result.png"))
    page.context.set_offline(False)  # back: the result of what is typed now
    expect(page.locator("#live-result")).to_contain_text("270 von 300")
    expect(offline).to_have_count(0)
    assert hands_saved(live_server) == 0  # nothing was sent: only typed


def test_an_entry_never_sent_is_offered_after_a_reload_not_imposed(
    page: Page, live_server: LiveServer
) -> None:
    """A hand typed wrong and left (the page reloaded to start again) does not come back
    into the form by itself, where the next digits would be appended to it ("500040"): a
    calm notice offers it, "Wiederherstellen" or "Verwerfen", in sight at the form's top."""
    token = new_match(live_server)
    page.goto(f"/m/{token}")
    choose(page, "declarer-set", "0")
    page.locator("#bid").fill("5000")
    choose(page, "trump-set", "H")
    page.reload()
    offer = page.locator("#hand-form .restore-offer")
    expect(offer).to_contain_text("nicht gesendete Eingabe")
    expect(offer.locator(".restore-gist")).to_have_text("Anna · Reizwert 5000 · Herz")
    box = in_sight(page, "#hand-form .restore-offer")
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    # a notice, not an error: not the error's red style, not an alert
    assert "flash-error" not in (offer.get_attribute("class") or "")
    assert offer.get_attribute("role") == "status"
    expect(offer.get_by_role("button", name="Wiederherstellen")).to_be_visible()
    expect(offer.get_by_role("button", name="Verwerfen")).to_be_visible()
    # the form is as the page brought it until the Schreiber chooses
    expect(page.locator("#bid")).to_have_value("")
    expect(page.locator("#declarer-set input:checked")).to_have_count(0)
    page.screenshot(path=str(SCREENS / "restore-offer.png"))
    no_axe_violations(page, "the offer of an entry never sent")
    # typing starts a new entry: nothing is appended to the one offered
    page.locator("#bid").press_sequentially("400")
    expect(page.locator("#bid")).to_have_value("400")
    expect(offer).to_be_visible()
    offer.get_by_role("button", name="Verwerfen").click()
    expect(offer).to_have_count(0)
    expect(page.locator("#bid")).to_have_value("400")  # what he typed stays
    assert page.evaluate(f"() => localStorage.getItem('scorer.hand.{token}.offered')") is None
    # the next reload offers what was typed last; restored, it is in the form
    page.reload()
    expect(offer.locator(".restore-gist")).to_have_text("Reizwert 400")
    enlarge_text(page)  # 200 %: the notice and its buttons wrap within the phone
    assert fits_width(page)
    enlarge_text(page, 100)
    offer.get_by_role("button", name="Wiederherstellen").click()
    expect(page.locator("#bid")).to_have_value("400")
    expect(offer).to_have_count(0)
    assert hands_saved(live_server) == 0
