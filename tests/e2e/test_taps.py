"""No tap is ever lost, none counts twice: quick taps on a slow connection.

A pub at the edge of the village: 400 ms each way, 50 kB/s (CDP network
throttling).  The taps come 150 ms apart, faster than any answer; static/taps.js
shows them as on their way at once, sends them one after another, and each one
acts on the state the answer to the one before it left.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import HeldAnswers, LiveServer, tap_as_answers_arrive
from tests.e2e.test_calculator import start
from tests.e2e.test_flows import (
    ROWS,
    fill_hand,
    live_result,
    new_table,
    press_start,
    start_match,
    totals,
)
from tests.e2e.test_quick_taps import slow_connection

pytestmark = pytest.mark.e2e

TAP_GAP_MS = 150  # a quick thumb: the rhythm of the taps, not a wait for the page


def meld_button(page: Page, name: str) -> str:
    return f"#meld-form button[name=meld][value='{name}']"


def settled(page: Page, box: str) -> None:
    """Every tap of ``box`` answered (taps.js counts the ones on their way)."""
    expect(page.locator(f"{box}[data-taps-waiting='0']")).to_have_count(1)


def test_four_card_taps_150_ms_apart_on_a_slow_connection(page: Page) -> None:
    page.goto("/melds")
    page.locator("#calc label.trump-H").click()
    expect(page.locator("#calc .meld-row.is-trump")).to_be_visible()
    page.locator("#calc button[name=go][value=cards]").click()
    expect(page.locator("#calc .deck")).to_be_visible()
    slow_connection(page)
    # Herz-König and Herz-Ober (the pair in trump, 40), Grün-Ober and Schellen-Unter (Binokel, 40)
    cards = ["HK:1", "HO:1", "GO:1", "SU:1"]
    for i, card in enumerate(cards):
        if i:
            page.wait_for_timeout(TAP_GAP_MS)
        page.locator(f"#calc button[name=card][value='{card}']").click()
    # nothing is silent: the taps on their way are shown at once
    expect(page.locator("#calc .taps-status")).to_be_visible()
    expect(page.locator("#calc button.tap-pending")).not_to_have_count(0)
    settled(page, "#calc")
    expect(page.locator("#calc .pcard[aria-pressed=true]")).to_have_count(4)
    for card in cards:
        expect(page.locator(f"#calc button[name=card][value='{card}']")).to_have_attribute(
            "aria-pressed", "true"
        )
    expect(page.locator("#calc .calc-sum")).to_have_text("80")
    expect(page.locator("#calc .calc-count strong")).to_contain_text("4")
    expect(page.locator("#calc .taps-status")).to_be_hidden()
    expect(page.locator("#calc button.tap-pending")).to_have_count(0)


def test_four_quick_taps_in_the_hand_calculator_then_take_over(
    page: Page, live_server: LiveServer
) -> None:
    page.goto(f"/m/{start(live_server)}")
    page.locator("#trump-set label.trump-E").click()
    page.locator('button[name="calc0-go"]').click()
    panel = page.locator("#calc-panel-0")
    expect(panel.locator(".calc-panel")).to_be_visible()
    slow_connection(page)
    # the Eichel family in trump 150, four aces 100, the Herz pair 20, the Binokel 40
    for i, name in enumerate(["family E", "four A", "pair H", "binokel"]):
        if i:
            page.wait_for_timeout(TAP_GAP_MS)
        panel.locator(f'button[name="calc0-add"][value="{name}"]').click()
    expect(panel.locator(".taps-status")).to_be_visible()
    settled(page, "#calc-panel-0 .calc-panel")
    expect(panel.locator(".calc-sum")).to_have_text("310")
    expect(panel.locator(".calc-lines li")).to_have_count(4)
    # a change of the hand's trump (Herz now) reaches the open calculator too, and the
    # take-over tapped right after it goes after it: family 100, aces 100, pair 40, Binokel 40
    page.locator("#trump-set label.trump-H").click()
    panel.locator('button[name="calc0-take"]').click()
    expect(page.locator("#parties-0-melds")).to_have_value("280")
    expect(panel.locator(".calc-taken")).to_contain_text("280")


def test_declared_melds_and_a_trump_change_in_quick_succession(page: Page) -> None:
    page.goto("/melds")
    expect(page.locator("#calc")).to_be_visible()
    slow_connection(page)
    page.locator("#calc label.trump-H").click()
    for name in ("family H", "four A", "pair E"):
        page.wait_for_timeout(TAP_GAP_MS)
        page.locator(f"#calc button[name=add][value='{name}']").click()
    settled(page, "#calc")
    # in trump the family is 150: the trump went first, as it was tapped
    expect(page.locator("#calc input[name=trump][value=H]")).to_be_checked()
    expect(page.locator("#calc .calc-sum")).to_have_text("270")
    expect(page.locator("#calc .calc-lines li")).to_have_count(3)


def test_a_meld_tapped_right_after_the_trump_both_register(page: Page) -> None:
    start_match(page, ["Anna", "Bert"], preset="schweizer")
    press_start(page)
    slow_connection(page)
    page.locator("#trump-set label:has(input[value='H'])").click()
    page.locator(meld_button(page, "pair H")).click()
    # Bert shows the next two, then Anna one more: each meld goes to whom it was tapped for
    page.locator("#party-set label:has(input[value='1'])").click()
    page.wait_for_timeout(TAP_GAP_MS)
    page.locator(meld_button(page, "four A")).click()
    page.wait_for_timeout(TAP_GAP_MS)
    page.locator(meld_button(page, "four K")).click()
    expect(page.locator("#entry .taps-status")).to_be_visible()
    settled(page, "#entry")
    log = page.locator(".meld-log li")
    expect(log).to_have_count(3)
    expect(log.nth(0)).to_contain_text("Anna")
    expect(log.nth(0)).to_contain_text("40")
    expect(log.nth(1)).to_contain_text("Bert")
    expect(log.nth(2)).to_contain_text("Bert")
    expect(page.locator("#trump-set input[value='H']")).to_be_checked()
    # the choice of who shows stays over the answers
    expect(page.locator("#party-set input[value='1']")).to_be_checked()
    # the progress bars follow the live totals: 40 for Anna, 100 + 80 for Bert
    expect(page.locator("#progress .total-0")).to_contain_text("40")
    expect(page.locator("#progress .total-1")).to_contain_text("180")


def test_a_double_tap_on_one_meld_button_is_one_meld(page: Page) -> None:
    start_match(page, ["Anna", "Bert"], preset="schweizer")
    press_start(page)
    slow_connection(page)
    page.locator(meld_button(page, "four A")).dblclick()
    settled(page, "#entry")
    expect(page.locator(".meld-log li")).to_have_count(1)
    expect(page.locator("#party-set")).to_contain_text("100")
    # the same meld shown again later is a second meld, not a double tap
    page.wait_for_timeout(600)
    page.locator(meld_button(page, "four A")).click()
    settled(page, "#entry")
    expect(page.locator(".meld-log li")).to_have_count(2)
    expect(page.locator("#party-set")).to_contain_text("200")


def test_a_tap_whose_finger_is_down_when_an_answer_arrives(page: Page) -> None:
    """The answer to the trump would replace the meld button under the finger: the
    browser would send no click.  It waits until the tap is over."""
    start_match(page, ["Anna", "Bert"], preset="schweizer")
    press_start(page)
    trump = HeldAnswers(page, "**/trump")
    page.locator("#trump-set label:has(input[value='H'])").click()
    # the trump is on its way (its answer held back until the finger is down)
    expect(page.locator("#entry[data-taps-waiting='1']")).to_have_count(1)
    tap_as_answers_arrive(page, page.locator(meld_button(page, "four A")), trump)
    settled(page, "#entry")
    expect(page.locator(".meld-log li")).to_have_count(1)
    expect(page.locator(".meld-log li")).to_contain_text("100")
    expect(page.locator("#trump-set input[value='H']")).to_be_checked()


def test_trick_points_typed_while_a_meld_is_on_its_way_are_kept(page: Page) -> None:
    start_match(page, ["Anna", "Bert"], preset="schweizer")
    press_start(page)
    slow_connection(page)
    page.locator(meld_button(page, "four A")).click()
    page.locator("#parties-0-tricks").fill("80")
    settled(page, "#entry")
    expect(page.locator(".meld-log li")).to_have_count(1)
    # the meld's answer redrew the form: what was typed is still there, and is sent
    expect(page.locator("#parties-0-tricks")).to_have_value("80")
    page.locator("#tricks-form button[type=submit]").click()
    expect(page.locator("#sheet tbody tr")).to_have_count(1)
    expect(page.locator("#sheet tfoot td.total").first).to_contain_text("180")


def test_a_meld_taken_back_on_a_slow_connection(page: Page) -> None:
    start_match(page, ["Anna", "Bert"], preset="schweizer")
    press_start(page)
    slow_connection(page)
    page.locator(meld_button(page, "four A")).click()
    page.locator(meld_button(page, "four K")).click()
    settled(page, "#entry")
    expect(page.locator(".meld-log li")).to_have_count(2)
    page.locator(".meld-log li").first.locator("button").click()
    settled(page, "#entry")
    expect(page.locator(".meld-log li")).to_have_count(1)
    expect(page.locator(".meld-log li")).to_contain_text("80")
    expect(page.locator("#party-set")).to_contain_text("80")


def test_save_tapped_as_the_live_result_grows(page: Page) -> None:
    """The last trick value typed, Save tapped at once: the live result above the
    button grows from a one-line hint to the whole result while the finger is down.
    Swapped in then, it would push Save away from under the finger (no click, the
    hand not saved); it waits until the tap is over."""
    new_table(page)
    fill_hand(page, declarer=0, bid=180, trump="H", melds={0: 40, 1: 20}, tricks={0: 150})
    # the hint that the trick points of all parties but one are wanted: one more to enter
    # (the third follows from 250)
    live_result(page, "(noch 1 einzutragen|1 more to enter)")
    hint = page.locator("#live-result").bounding_box()
    preview = HeldAnswers(page, "**/hands/preview")
    page.locator("#parties-1-tricks").fill("60")
    tap_as_answers_arrive(page, page.locator("#hand-form .actions button[type=submit]"), preview)
    expect(page.locator(ROWS)).to_have_count(1)
    assert totals(page) == ["190", "80", "40"]
    # the answer held back was taller than the hint: the button would have moved
    fill_hand(page, declarer=0, bid=180, trump="H", melds={0: 40, 1: 20}, tricks={0: 150, 1: 60})
    live_result(page, "150 \\+ 60 \\+ 40 = 250")
    result = page.locator("#live-result").bounding_box()
    assert hint is not None and result is not None and result["height"] > hint["height"]
