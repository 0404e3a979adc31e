"""Two-player games: no bidding, melds written one at a time; the Swiss game ends at once."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from tests.builders import HX, form_data, hand_ids, page_text, sheet_of, start_match


def write(client: FlaskClient, token: str, party: int, meld: str, *, trump: str = "H", **kw):  # type: ignore[no-untyped-def]
    """Press a meld button for ``party``, as the page would send it."""
    data = form_data(client.get(f"/m/{token}").get_data(as_text=True), "meld-form")
    data.update(party=str(party), meld=meld, trump=trump)
    data.update({k: str(v) for k, v in kw.items()})
    return client.post(f"/m/{token}/melds", data=data, headers=kw.pop("headers", {}))


def close_hand(client: FlaskClient, token: str, tricks: list[int | None], **headers: str):  # type: ignore[no-untyped-def]
    data = form_data(client.get(f"/m/{token}").get_data(as_text=True), "tricks-form")
    for i, value in enumerate(tricks):
        data[f"parties-{i}-tricks"] = "" if value is None else str(value)
    return client.post(f"/m/{token}/finish", data=data, headers=headers)


def test_zweier_page_has_no_bidding(client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "zweier")
    html = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    assert 'id="hand-form"' not in html and 'name="bid"' not in html
    assert 'id="meld-form"' in html and 'id="tricks-form"' in html
    assert "Write every meld the moment it is shown." in page_text(html)
    assert 'value="pair H"' in html


def test_zweier_melds_then_tricks(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "zweier")
    assert write(client, token, 0, "pair H").status_code == 303  # trump H: 40
    assert write(client, token, 1, "binokel").status_code == 303
    assert write(client, token, 0, "four A").status_code == 303
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "Shown this hand" in text
    # the live totals on the player buttons include the melds shown
    assert "Anna · 140" in text and "Bert · 40" in text
    response = close_hand(client, token, [150, None])
    assert response.status_code == 303
    sheet = sheet_of(app, token)
    assert sheet.totals == [290, 140]
    assert len(sheet.rows) == 1
    (hand,) = hand_ids(client, token)
    detail = page_text(client.get(f"/m/{token}/hands/{hand}?lang=en"))
    assert "Melds as shown" in detail
    # the next hand starts empty, the deal moved on
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "Shown this hand" not in text
    assert "Dealer (Geber): Bert" in text


def shown_meld(client: FlaskClient) -> tuple[str, str, str]:
    """A zweier match with Anna's four kings written: its token, the meld's id, the page."""
    token = start_match(client, ["Anna", "Bert"], "zweier")
    write(client, token, 0, "four K")
    html = client.get(f"/m/{token}").get_data(as_text=True)
    entry = re.search(r"/m/[^/]+/melds/(\d+)/delete", html)
    assert entry
    return token, entry.group(1), html[entry.start() - 400 :]


def test_meld_taken_back(app: Flask, client: FlaskClient) -> None:
    token, entry_id, around = shown_meld(client)
    data = form_data(around, None)
    response = client.post(f"/m/{token}/melds/{entry_id}/delete", data=data, headers=HX)
    assert response.status_code == 200
    assert "<html" not in response.get_data(as_text=True)
    assert "Shown this hand" not in page_text(response)
    assert client.post(f"/m/{token}/melds/99999/delete", data=data).status_code == 404
    assert client.post(f"/m/{token}/melds/99999/delete", data={}).status_code == 404


def test_a_stale_page_still_takes_its_meld_back(app: Flask, client: FlaskClient) -> None:
    token, entry_id, _ = shown_meld(client)
    write(client, token, 1, "four O")  # the version moves on
    data = {"version": "1"}
    assert client.post(f"/m/{token}/melds/{entry_id}/delete", data=data).status_code == 303
    sheet = sheet_of(app, token)
    assert sheet.open_hand is not None
    assert sheet.open_melds == ["four O"]


def test_unknown_meld_refused(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    response = write(client, token, 0, "double_binokel")
    assert response.status_code == 422
    assert "Choose the player and the meld." in page_text(client.get(f"/m/{token}?lang=en")) or (
        response.status_code == 422
    )
    response = write(client, token, 5, "pair H")
    assert response.status_code == 422
    assert sheet_of(app, token).open_hand is None


def test_tricks_must_add_up(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    write(client, token, 0, "pair H")
    response = close_hand(client, token, [100, 100])
    assert response.status_code == 422
    assert "200" in page_text(response)
    assert sheet_of(app, token).rows == []
    assert close_hand(client, token, [100, None], **HX).status_code == 200
    assert sheet_of(app, token).totals == [140, 30]


def test_schweizer_won_mid_hand_by_a_meld(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer", target=300)
    write(client, token, 0, "four A")  # 100
    close_hand(client, token, [100, None])  # Anna 200, Bert 30
    assert sheet_of(app, token).totals == [200, 30]
    write(client, token, 1, "four K")  # Bert 110: goes on
    assert not sheet_of(app, token).finished
    response = write(client, token, 0, "four A", headers=HX)  # Anna 300: wins at once
    assert response.status_code == 200
    assert "<html" not in response.get_data(as_text=True)
    sheet = sheet_of(app, token)
    assert sheet.finished and sheet.winners == [0]
    assert sheet.totals == [300, 110]
    assert sheet.rows[-1].hand.ended_mid_hand
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "Anna wins the match!" in text
    assert "ended mid-hand" in text
    assert 'id="meld-form"' not in client.get(f"/m/{token}").get_data(as_text=True)
    # nothing more can be written
    data = {"party": "1", "meld": "pair H", "trump": "H"}
    assert client.post(f"/m/{token}/melds", data=data).status_code == 422
    assert sheet_of(app, token).totals == [300, 110]
    # a hand ended by a meld is not corrected through the bidding form
    hand = sheet.rows[-1].hand.id
    assert client.get(f"/m/{token}/hands/{hand}/edit").status_code == 404


def test_schweizer_next_match(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer", target=100)
    write(client, token, 1, "four A")
    assert sheet_of(app, token).winners == [1]
    response = client.post(f"/m/{token}/next", data={})
    assert response.status_code == 303
    new = response.headers["Location"].rsplit("/", 1)[-1]
    assert sheet_of(app, new).ruleset.preset == "schweizer"
    assert 'id="meld-form"' in client.get(f"/m/{new}").get_data(as_text=True)


def test_two_player_rules_page(client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    text = page_text(client.get(f"/m/{token}/rules?lang=en"))
    assert "One 32-card deck" in text
    assert "wins at once" in text
    assert "Every hand has 130 trick points" in text


def test_trump_named_before_the_first_meld_sets_the_button_values(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    data = form_data(client.get(f"/m/{token}").get_data(as_text=True), "meld-form")
    data["trump"] = "G"
    response = client.post(f"/m/{token}/trump", data=data, headers=HX)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<html" not in html and 'id="match-content"' in html
    # Grün is trump now: the Grün pair is worth 40, the Herz pair 20
    assert re.search(r'value="pair G"[^>]*>[^<]*<span class="muted">40', html)
    assert re.search(r'value="pair H"[^>]*>[^<]*<span class="muted">20', html)
    assert (
        'value="G" checked' in html
        or 'checked value="G"' in html
        or re.search(r'<input[^>]*checked[^>]*value="G"|<input[^>]*value="G"[^>]*checked', html)
    )
    # a suit that does not exist is refused, nothing changes
    data = form_data(html, "meld-form")
    data["trump"] = "X"
    assert client.post(f"/m/{token}/trump", data=data).status_code == 422


def test_a_meld_tapped_right_after_the_trump_is_written(app: Flask, client: FlaskClient) -> None:
    """Trump, then a meld, from the same page: the meld carries the page's old version.

    Writing to the hand in play does not depend on the version (the tap that came
    first moved it on); it is written, not refused.
    """
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    page = form_data(client.get(f"/m/{token}").get_data(as_text=True), "meld-form")
    trump = client.post(f"/m/{token}/trump", data={**page, "trump": "H"}, headers=HX)
    assert trump.status_code == 200
    meld = client.post(
        f"/m/{token}/melds", data={**page, "trump": "H", "party": "0", "meld": "family H"}
    )
    assert meld.status_code == 303
    sheet = sheet_of(app, token)
    assert sheet.open_melds == ["family H"]
    assert sheet.open_hand is not None and sheet.open_hand.trump == "H"
    # the page answers with the newest version (the browser keeps the newest answer)
    html = client.get(f"/m/{token}").get_data(as_text=True)
    assert f'id="match-top" data-version="{sheet.match.version}"' in html


def test_a_meld_for_a_hand_closed_meanwhile_is_refused(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "zweier")
    write(client, token, 0, "pair H")
    stale = form_data(client.get(f"/m/{token}").get_data(as_text=True), "meld-form")
    assert close_hand(client, token, [150, None]).status_code == 303  # another phone closes it
    response = client.post(
        f"/m/{token}/melds?lang=en", data={**stale, "party": "1", "meld": "four A"}, headers=HX
    )
    assert response.status_code == 409
    assert "This hand was closed in the meantime" in page_text(response)
    sheet = sheet_of(app, token)
    assert sheet.open_hand is None and len(sheet.rows) == 1
