"""A hand saved over htmx swaps only the top of the match page and adds the sheet's new
row out of band: the page must end up as a fresh load of it would show it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_flows import ROWS, fill_hand, press_start, start_match

pytestmark = pytest.mark.e2e

# the shape of #match-content: every element with its attributes and its own text,
# whitespace folded, htmx's passing classes and the note of the hand just saved left out;
# the fresh form's idempotency key
# and the CSRF token (signed with the time) differ on every render
SHAPE = """() => {
  const out = [];
  const walk = (el, depth) => {
    const attrs = [...el.attributes]
      .filter((a) => !(['idempotency_key', 'csrf_token'].includes(el.name) && a.name === 'value'))
      .map((a) => a.name !== 'class' ? `${a.name}=${a.value}`
        // htmx marks what it has just swapped for a moment (htmx-added, htmx-settling)
        // and the answer to a save lights up the new row (new-row, just-saved)
        : `class=${a.value.split(' ').filter((c) => !c.startsWith('htmx-')
          && !['new-row', 'just-saved'].includes(c)).join(' ')}`)
      .filter((a) => a !== 'class=').sort().join(' ');
    const text = [...el.childNodes].filter((n) => n.nodeType === 3)
      .map((n) => n.textContent).join(' ').replace(/\\s+/g, ' ').trim();
    out.push(`${depth} ${el.tagName} ${attrs} ${text}`);
    // the answer to a save says what was saved (a fresh load has nothing to say)
    for (const child of el.children) if (child.id !== 'saved-note') walk(child, depth + 1);
  };
  walk(document.querySelector('#match-content'), 0);
  return out;
}"""


def test_the_page_after_saving_equals_a_fresh_load(page: Page) -> None:
    start_match(page, ["Anna", "Bert", "Carl"])
    press_start(page)
    hands = [
        dict(declarer=0, bid=180, trump="H", melds={0: 40, 1: 20}, tricks={0: 150, 1: 60}),
        dict(declarer=1, bid=220, trump="E", melds={0: 20, 1: 60}, tricks={0: 70, 1: 130}),
        dict(declarer=2, outcome="gone_off", bid=200, melds={0: 40, 1: 20}),
        dict(declarer=0, bid=300, trump="G", melds={0: 150}, tricks={0: 200, 1: 40}),
    ]
    for number, hand in enumerate(hands, start=1):
        fill_hand(page, **hand)  # type: ignore[arg-type]
        page.locator("#live-result").wait_for()
        page.locator("#hand-form button[type=submit]").click()
        expect(page.locator(ROWS)).to_have_count(number)
        expect(page.locator("#entry h2")).to_contain_text(str(number + 1))
        # settled: scorer.js has looked for a draft of the fresh form
        expect(page.locator("#hand-form")).to_have_attribute("data-restored", "1")
        swapped = page.evaluate(SHAPE)
        page.reload()
        expect(page.locator(ROWS)).to_have_count(number)
        expect(page.locator("#hand-form")).to_have_attribute("data-restored", "1")
        assert page.evaluate(SHAPE) == swapped, number
    expect(page.locator("#sheet tfoot td.total")).to_have_count(3)
