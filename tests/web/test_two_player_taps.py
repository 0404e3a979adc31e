"""The two-player page, server side of what the browser sends in quick succession.

A meld sent again after its answer was lost is written once; the progress bars show
the live totals; the Swiss game closes a hand in the middle when a trick takes a
player to the target; the Swiss game at three and four players, each alone.
"""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from tests.builders import HX, form_data, page_text, sheet_of, start_match
from tests.web.test_two_player import close_hand, write


def meld_form(client: FlaskClient, token: str) -> dict[str, str]:
    return form_data(client.get(f"/m/{token}").get_data(as_text=True), "meld-form")


def bar_values(html: str) -> list[int]:
    """What the progress bars show (aria-valuenow), party by party."""
    progress = html[html.index('id="progress"') :]
    progress = progress[: progress.index("</ul>")]
    return [int(v) for v in re.findall(r'aria-valuenow="(-?\d+)"', progress)]


def test_the_page_tells_how_many_melds_it_has_seen(client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    assert meld_form(client, token)["logged"] == "0"
    write(client, token, 0, "four A")
    html = client.get(f"/m/{token}").get_data(as_text=True)
    assert form_data(html, "meld-form")["logged"] == "1"
    # taps.js sends the taps of the page in turn and refreshes these from each answer
    assert 'data-taps="two-player"' in html
    assert re.search(r'name="logged"[^>]*data-taps-fresh', html)


def test_a_meld_sent_again_after_a_lost_answer_is_written_once(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    page = {**meld_form(client, token), "trump": "H", "party": "1", "meld": "four A"}
    assert client.post(f"/m/{token}/melds", data=page, headers=HX).status_code == 200
    # the answer never arrived: the phone sends the same tap again, from the same page
    again = client.post(f"/m/{token}/melds", data=page, headers=HX)
    assert again.status_code == 200
    assert sheet_of(app, token).open_melds == ["four A"]
    assert "Bert · 100" in page_text(again)
    # the same meld shown again later (the page has seen the first one) is a second meld
    later = {**meld_form(client, token), "trump": "H", "party": "1", "meld": "four A"}
    assert later["logged"] == "1"
    assert client.post(f"/m/{token}/melds", data=later, headers=HX).status_code == 200
    assert sheet_of(app, token).open_melds == ["four A", "four A"]
    # another player's meld after the one seen is not mistaken for it
    other = {**page, "party": "0"}
    client.post(f"/m/{token}/melds", data=other, headers=HX)
    assert sheet_of(app, token).open_melds == ["four A", "four A", "four A"]


def test_the_progress_bars_follow_the_melds_written_so_far(client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    write(client, token, 0, "four A")  # 100
    close_hand(client, token, [100, None])  # Anna 200, Bert 30 on the sheet
    write(client, token, 1, "four K")  # Bert 80 in the hand in play
    response = write(client, token, 0, "pair H", headers=HX)  # Anna 40 (trump H)
    assert bar_values(response.get_data(as_text=True)) == [240, 110]
    html = client.get(f"/m/{token}").get_data(as_text=True)
    assert bar_values(html) == [240, 110]
    assert re.search(r'class="num total-1"><strong>\+?110<', html)


def test_the_swiss_game_closes_a_hand_when_a_trick_reaches_the_target(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer", target=300)
    write(client, token, 0, "four A")
    close_hand(client, token, [100, None])  # Anna 200, Bert 30
    write(client, token, 0, "pair H")  # Anna 240 with the hand's melds
    html = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    assert "Someone reached the target: close the hand now" in page_text(html)
    data = form_data(html, "tricks-form")
    data.update({"parties-0-tricks": "70", "parties-1-tricks": "10"})
    # tricks that do not add up to the hand's 130 are refused for a hand played out
    refused = client.post(f"/m/{token}/finish?lang=en", data=data, headers=HX)
    assert refused.status_code == 422
    assert sheet_of(app, token).open_hand is not None
    # closed in the middle: the trick points taken so far count
    closed = client.post(
        f"/m/{token}/finish?lang=en", data={**data, "ended_early": "y"}, headers=HX
    )
    assert closed.status_code == 200
    sheet = sheet_of(app, token)
    assert sheet.finished and sheet.winners == [0]
    assert sheet.totals[0] == 200 + 40 + 70
    assert sheet.rows[-1].hand.ended_mid_hand
    assert "Anna wins the match!" in page_text(closed)


def test_closing_early_when_nobody_reaches_the_target_is_refused(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer", target=1000)
    write(client, token, 0, "four A")
    data = form_data(client.get(f"/m/{token}").get_data(as_text=True), "tricks-form")
    data.update({"parties-0-tricks": "70", "parties-1-tricks": "10", "ended_early": "y"})
    response = client.post(f"/m/{token}/finish?lang=en", data=data, headers=HX)
    assert response.status_code == 422
    assert "nobody reaches 1000 with these points" in page_text(response)
    assert 'value="70"' in response.get_data(as_text=True)  # what was typed is kept
    sheet = sheet_of(app, token)
    assert sheet.rows == [] and sheet.open_melds == ["four A"]


def test_the_zweier_game_has_no_early_close(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "zweier")
    write(client, token, 0, "four A")
    html = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    assert "close the hand now" not in page_text(html)
    data = form_data(html, "tricks-form")
    data.update({"parties-0-tricks": "70", "parties-1-tricks": "10", "ended_early": "y"})
    assert client.post(f"/m/{token}/finish", data=data, headers=HX).status_code == 422
    assert sheet_of(app, token).rows == []


def test_the_swiss_game_at_three_and_four_players(app: Flask, client: FlaskClient) -> None:
    for names in (["Anna", "Bert", "Cleo"], ["Anna", "Bert", "Cleo", "Dora"]):
        token = start_match(client, names, "schweizer")
        html = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
        parties = len(names)
        assert len(re.findall(r'name="party" value="\d"', html)) == parties
        assert len(re.findall(r'name="parties-\d-tricks"', html)) == parties
        # the last player shows a meld; the last trick value is filled in from 130
        write(client, token, parties - 1, "four A")
        assert f"{names[-1]} · 100" in page_text(client.get(f"/m/{token}?lang=en"))
        tricks: list[int | None] = [30] * (parties - 1) + [None]
        assert close_hand(client, token, tricks, **HX).status_code == 200
        sheet = sheet_of(app, token)
        assert len(sheet.rows) == 1
        filled = 130 - 30 * (parties - 1)
        assert sheet.rows[0].points[-1] == 100 + filled
        assert sheet.rows[0].points[0] == 30


def test_a_second_close_never_closes_the_next_hand(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    write(client, token, 0, "four A")
    data = form_data(client.get(f"/m/{token}").get_data(as_text=True), "tricks-form")
    assert data["hand"] == "1"
    data.update({"parties-0-tricks": "100", "parties-1-tricks": ""})
    assert client.post(f"/m/{token}/finish", data=data, headers=HX).status_code == 200
    # sent again with the newest version (the queue refreshes it): the hand is closed already
    data["version"] = str(sheet_of(app, token).match.version)
    other = {**data, "parties-0-tricks": "110"}
    again = client.post(f"/m/{token}/finish?lang=en", data=other, headers=HX)
    assert again.status_code == 409
    assert "This hand was closed in the meantime" in page_text(again)
    sheet = sheet_of(app, token)
    assert len(sheet.rows) == 1 and sheet.open_hand is None


def test_a_close_sent_again_after_a_lost_answer_is_saved_once(
    app: Flask, client: FlaskClient
) -> None:
    token = start_match(client, ["Anna", "Bert"], "schweizer")
    write(client, token, 0, "four A")
    data = form_data(client.get(f"/m/{token}").get_data(as_text=True), "tricks-form")
    data.update({"parties-0-tricks": "100", "parties-1-tricks": ""})
    first = client.post(f"/m/{token}/finish", data=data, headers=HX)
    assert first.status_code == 200
    version = sheet_of(app, token).match.version
    # the answer never came: the same close again, from the same page (its old version)
    for sent in (data, {**data, "parties-1-tricks": "30"}):
        again = client.post(f"/m/{token}/finish?lang=en", data=sent, headers=HX)
        assert again.status_code == 200
        assert "changed" not in page_text(again) and "closed" not in page_text(again)
    sheet = sheet_of(app, token)
    assert len(sheet.rows) == 1 and sheet.open_hand is None
    assert sheet.match.version == version  # nothing written again
    assert sheet.rows[0].points == [200, 30]
