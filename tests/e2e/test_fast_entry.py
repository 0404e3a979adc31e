"""The table, faster than paper (issue 14): a hand in few inputs, saving in sight.

The reference hand is an ordinary played hand at three: Anna declares 250 in
Herz, the melds are 100, 20 and 40, the trick values 180 and 60 (Carl's 10 are
filled in from 250).  Every tap (click) and every key (each typed character,
Enter included) is counted: 16.  Two taps choose the declarer and the trump
(each moves the focus on); numbers below anything the rules allow are read in
tens — the bid "25" (no bid is below 150) and the melds "10", "2", "4" (no meld
is worth less than 20 without sevens; with sevens the Diss is worth 10 and only
"1" to "9" are read so) — and the field shows what it means; a trick value that
cannot take another digit (ten times 180 is more than 250) moves on by itself; a
meld field cannot tell when it is complete, so each meld ends with Enter, the
last one saving.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import SCREENS
from tests.e2e.test_flows import ROWS, choose, declare, new_table, press_start, start_match

pytestmark = pytest.mark.e2e

# the count of the reference hand (the issue asks for 18 at most)
REFERENCE_INPUTS = 16


@dataclass
class Inputs:
    """Taps and keys as the Schreiber makes them, counted."""

    page: Page
    taps: int = 0
    keys: int = 0

    def tap(self, target: Locator) -> None:
        self.taps += 1
        target.click()

    def type(self, text: str) -> None:
        self.keys += len(text)
        self.page.keyboard.type(text)

    def enter(self) -> None:
        self.keys += 1
        self.page.keyboard.press("Enter")

    @property
    def total(self) -> int:
        return self.taps + self.keys


def pill(page: Page, fieldset: str, value: str) -> Locator:
    return page.locator(f"#{fieldset} label:has(input[value='{value}'])")


def focused(page: Page, selector: str) -> None:
    expect(page.locator(selector)).to_be_focused()


def enter_reference_hand(page: Page) -> Inputs:
    """Anna 250 in Herz; melds 100, 20, 40; tricks 180, 60 (the focus moves itself)."""
    count = Inputs(page)
    count.tap(pill(page, "declarer-set", "0"))
    focused(page, "#bid")  # the number keyboard is up at the bid
    count.type("25")
    # typed in tens: read as 250, and said so at once
    expect(page.locator("#bid-reading")).to_have_text(re.compile(r"250"))
    count.tap(pill(page, "trump-set", "H"))
    focused(page, "#parties-0-melds")  # the trump tap moved on to the first empty field
    count.type("10")  # no meld is worth 10 here: read as 100
    count.enter()
    focused(page, "#parties-0-tricks")
    expect(page.locator("#parties-0-melds")).to_have_value("100")
    count.type("180")
    focused(page, "#parties-1-melds")  # 180 cannot take another digit: moved on
    count.type("2")
    count.enter()
    expect(page.locator("#parties-1-melds")).to_have_value("20")
    focused(page, "#parties-1-tricks")
    count.type("60")
    # Carl's tricks are filled in from 250: the next field is his melds
    focused(page, "#parties-2-melds")
    count.type("4")
    count.enter()  # nothing left to enter: Enter saves
    return count


def test_reference_hand_in_16_inputs(page: Page, shot: Any) -> None:
    start_match(page, ["Anna", "Bert", "Carl"])
    press_start(page)
    page.locator("#entry").scroll_into_view_if_needed()
    started = time.monotonic()
    count = enter_reference_hand(page)
    expect(page.locator(ROWS)).to_have_count(1)
    elapsed = time.monotonic() - started
    assert count.total == REFERENCE_INPUTS, (count.taps, count.keys)
    assert count.total <= 18
    # the time is measured, not asserted (tests never assert on timings): bench/RESULTS.md
    SCREENS.mkdir(parents=True, exist_ok=True)
    (SCREENS.parent / "reference-hand.txt").write_text(
        f"{count.total} inputs ({count.taps} taps, {count.keys} keys), {elapsed:.2f} s\n"
    )
    # the saved result: 100 + 180 = 280 of 250, made; Bert 20 + 60; Carl 40 + 10
    row = page.locator(ROWS).first
    expect(row).to_contain_text("Anna")
    expect(row).to_contain_text("250")
    expect(page.locator("#sheet tfoot td.total")).to_have_text(["280", "80", "50"])
    # without scrolling: the totals, the hand just saved and who deals next
    for part in ("#totals-bar", "#saved-note", "#next-deal"):
        expect(page.locator(part)).to_be_in_viewport()
    expect(page.locator("#totals-bar")).to_contain_text(re.compile(r"Anna\s+280"))
    expect(page.locator("#saved-note")).to_contain_text("Spiel 1 eingetragen")
    expect(page.locator("#saved-note")).to_contain_text(re.compile(r"Anna\s+280"))
    expect(page.locator("#next-deal")).to_contain_text("Geber: Bert")
    # the keyboard went down: nothing in the new form has the focus
    assert page.evaluate("() => !document.activeElement.closest('#hand-form')")
    # the new row lights up (a CSS animation, no inline style)
    assert page.locator("#sheet-card.just-saved").count() == 1
    shot(page, "14-fast-entry-saved")
    # the second hand answers with the top and the row alone: lit up too
    enter_reference_hand(page)
    expect(page.locator(ROWS)).to_have_count(2)
    expect(page.locator(f"{ROWS}.new-row")).to_have_count(1)
    expect(page.locator("#saved-note")).to_contain_text("Spiel 2 eingetragen")
    expect(page.locator("#saved-note")).to_be_in_viewport()
    expect(page.locator("#totals-bar")).to_contain_text(re.compile(r"Anna\s+560"))


def test_the_form_fits_the_phone(page: Page, shot: Any) -> None:
    """From the first choice to the save button, the form fits one screen of 844."""
    start_match(page, ["Anna", "Bert", "Carl"])
    press_start(page)
    top = page.locator("#declarer-set").bounding_box()
    bottom = page.locator("#hand-form .actions button[type=submit]").bounding_box()
    assert top and bottom
    height = bottom["y"] + bottom["height"] - top["y"]
    topbar = page.locator(".topbar").bounding_box()
    assert topbar
    assert height <= 844 - topbar["height"], height
    # an empty bid looks empty (no grey number in it)
    assert page.locator("#bid").get_attribute("placeholder") is None
    assert page.locator("#bid").get_attribute("enterkeyhint") == "next"
    assert page.locator("#parties-0-melds").get_attribute("inputmode") == "numeric"
    shot(page, "14-fast-entry-form")


def test_honest_messages(page: Page) -> None:
    """A refused bid speaks at its field; "restored" only when something was restored."""
    new_table(page)
    declare(page, "205")
    page.locator("#parties-0-tricks").fill("200")
    page.locator("#hand-form .actions button[type=submit]").click()
    # the app's own message, in German, at the field
    expect(page.locator(".bid-field .errors")).to_contain_text(re.compile(r"205.*10"))
    expect(page.locator("#bid")).to_have_value("205")
    # a refusal restores nothing: no such message, neither after a tap on a pill
    restored = page.locator(".offline-note:visible")
    expect(restored).to_have_count(0)
    choose(page, "declarer-set", "1")
    page.wait_for_load_state("networkidle")
    expect(restored).to_have_count(0)
    # a reload offers the unsent entry kept on the phone; restored, it is back
    page.reload()
    expect(page.locator("#bid")).to_have_value("")
    page.get_by_role("button", name="Wiederherstellen").click()
    expect(page.locator("#bid")).to_have_value("205")


def test_undo_and_strike_and_restore(page: Page) -> None:
    start_match(page, ["Anna", "Bert", "Carl"])
    press_start(page)
    enter_reference_hand(page)
    expect(page.locator(ROWS)).to_have_count(1)
    # undo right after saving: one tap; the hand stays on the sheet, struck
    page.locator("#undo").click()
    expect(page.locator(ROWS)).to_have_count(0)
    struck = page.locator("#sheet tbody tr.deleted")
    expect(struck).to_have_count(1)
    expect(struck).to_contain_text("gestrichen")
    expect(page.locator("#totals-bar")).to_contain_text(re.compile(r"Anna\s+0"))
    # restore from the sheet: one tap brings it back
    struck.locator("a.restore-link").click()
    expect(page.locator(ROWS)).to_have_count(1)
    expect(page.locator("#sheet tbody tr.deleted")).to_have_count(0)
    expect(page.locator("#totals-bar")).to_contain_text(re.compile(r"Anna\s+280"))
    # striking from the hand's page asks first
    page.locator(f"{ROWS} td.no a").first.click()
    page.locator("#strike-ask").click()
    expect(page.locator("#strike")).to_be_visible()
    page.locator("#strike-yes").click()
    expect(page.locator("#sheet tbody tr.deleted")).to_have_count(1)
    # the hand number is a full tap target
    page.locator("#sheet tbody tr.deleted a").first.wait_for()
    box = page.locator("#sheet tbody tr.deleted td.no a").bounding_box()
    assert box and box["width"] >= 44 and box["height"] >= 44


def test_took_a_trick_worth_nothing_and_no_trick(page: Page) -> None:
    """0 trick points offer "took a trick worth 0"; "no trick" counts as 0 for the fill-in."""
    new_table(page)
    declare(page, "200")
    page.locator("#parties-0-tricks").fill("250")
    page.locator("#parties-1-melds").fill("20")
    page.locator("#parties-1-tricks").fill("0")
    line = page.locator(".party-line[data-party='1']")
    expect(line.locator(".took-zero")).to_be_visible()
    expect(line.locator(".no-trick")).to_be_hidden()
    line.locator(".took-zero").click()
    # Carl took no trick: the fill-in has nothing left for anybody, Bert's melds count
    page.locator(".party-line[data-party='2'] .no-trick").click()
    expect(page.locator("#live-result")).to_contain_text(re.compile(r"Bert\s+20"))
    page.locator("#hand-form .actions button[type=submit]").click()
    expect(page.locator(ROWS)).to_have_count(1)
    expect(page.locator("#sheet tfoot td.total")).to_have_text(["250", "20", "0"])


def test_forfeit_names_the_party_at_fault(page: Page) -> None:
    start_match(page, ["Anna", "Bert", "Carl"])
    press_start(page)
    expect(page.locator("#fault-set")).to_be_hidden()
    choose(page, "declarer-set", "0")
    choose(page, "outcome-set", "forfeit")
    expect(page.locator("#fault-set")).to_be_visible()
    expect(page.locator("#fault-set input[value='']")).to_be_checked()
    page.locator("#bid").fill("200")
    choose(page, "trump-set", "H")
    choose(page, "fault-set", "2")
    page.locator("#hand-form .actions button[type=submit]").click()
    expect(page.locator(ROWS)).to_have_count(1)
    page.locator(f"{ROWS} td.no a").first.click()
    expect(page.locator("#at-fault")).to_contain_text("Carl")


def test_kreuzbinokel_names_the_player_who_declared(page: Page) -> None:
    start_match(page, ["Anna", "Bert", "Carl", "Dora"], preset="kreuzbinokel")
    press_start(page)
    # the players, not the teams
    expect(page.locator("#declarer-set label")).to_have_count(4)
    choose(page, "declarer-set", "s2")
    page.locator("#bid").fill("200")
    choose(page, "trump-set", "E")
    page.locator("#parties-0-tricks").fill("200")
    page.locator("#hand-form .actions button[type=submit]").click()
    expect(page.locator(ROWS)).to_have_count(1)
    expect(page.locator(ROWS).first.locator("td.game")).to_contain_text("Carl")
    page.locator(f"{ROWS} td.no a").first.click()
    expect(page.locator("#hand-detail")).to_contain_text("Carl")
    expect(page.locator("#hand-detail")).to_contain_text("Anna & Carl")
