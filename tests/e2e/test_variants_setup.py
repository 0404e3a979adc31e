"""Setting up a table with the variants of docs/rules.md section 12, in Chromium at phone size."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import fits_width

pytestmark = pytest.mark.e2e


def test_kreuzbinokel_pickers_name_the_typed_players_and_more_rules(page: Page, shot: Any) -> None:
    page.goto("/new")
    page.locator("#preset").select_option("kreuzbinokel")
    expect(page.locator("#team_of-3")).to_be_visible()
    # before any name is typed the rows say "Spieler 1 …"; typing a name renames them
    for i, name in enumerate(["Anna", "Bert", "Carl", "Dora"]):
        page.locator(f"#players-{i}").fill(name)
    page.locator("#title").click()  # leaves the last name: its change refreshes the rows
    rows = page.locator("#seat-choices .team-row span")
    expect(rows).to_have_text(["Anna", "Bert", "Carl", "Dora"])
    expect(page.locator("#first_dealer option")).to_have_text(["Anna", "Bert", "Carl", "Dora"])
    # the names typed stay, and the focus is not taken away by the refresh
    expect(page.locator("#players-3")).to_have_value("Dora")
    expect(page.locator("#title")).to_be_focused()
    page.locator("#first_dealer").select_option("2")
    # the house rules: a failed game gives each opposing party a flat 40
    page.locator("details.house-rules > summary").click()
    page.locator("#rule-failed_bonus").select_option("flat")
    page.locator("#rule-failed_bonus_n").fill("40")
    page.locator("details.more-rules > summary").click()
    page.locator("#rule-card_points").select_option("10-10-10-0-0")
    page.locator("label:has(#rule-eight_ranks_10)").click()
    expect(page.locator("#rule-eight_ranks_10")).not_to_be_checked()
    assert fits_width(page), page.evaluate("() => document.documentElement.scrollWidth")
    shot(page, "variants-setup-more-rules")
    page.locator("button[name=action][value=start]").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    expect(page.locator("#progress")).to_contain_text("Carl")
    page.goto(page.url + "/rules")
    main = page.locator("main")
    expect(main).to_contain_text("10-10-10-0-0")
    expect(main).to_contain_text(re.compile(r"40 für jede Partei|40 each"))
    expect(main).to_contain_text(re.compile(r"(Achterle von|eight of a kind\) of): A, K, O, U\."))
    assert fits_width(page)


def test_a_team_chosen_while_the_names_are_refreshed_stays_chosen(page: Page) -> None:
    page.goto("/new")
    page.locator("#preset").select_option("kreuzbinokel")
    expect(page.locator("#team_of-3")).to_be_visible()
    # the refresh after a name is held back until the Schreiber has picked a team
    held: list[Any] = []
    page.route("**/new", lambda route: held.append(route))
    page.locator("#players-0").fill("Anna")
    page.locator("#title").click()  # the name's change asks for the pickers again
    page.wait_for_function("() => document.querySelector('#seat-choices.htmx-request')")
    assert page.locator("#team_of-1").input_value() == "1"
    page.locator("#team_of-1").select_option("0")  # Bert plays with Anna
    page.locator("#first_dealer").select_option("2")
    assert len(held) == 1
    held[0].continue_()
    page.unroute("**/new")
    expect(page.locator("#seat-choices .team-row span").first).to_have_text("Anna")
    # the answer named Anna and kept both choices made while it was on its way
    expect(page.locator("#team_of-1")).to_have_value("0")
    expect(page.locator("#first_dealer")).to_have_value("2")
