"""The hand form and the sheet of issue 14 ("The table, faster than paper"), as the
test client meets them: a bid in tens, a trick worth nothing, a forfeit charged to
the party at fault, the player who declared at a table of teams, struck hands on
the sheet, the note after saving, and the words (one minus sign, "Durch")."""

from __future__ import annotations

import json
import re

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from scorer import services
from scorer.extensions import db
from scorer.models import Hand
from scorer.rules import RulesError
from scorer.words import money, rules_message
from tests.builders import (
    enter_hand,
    form_data,
    hand_data,
    hand_ids,
    page_text,
    session_token_of,
    sheet_of,
    start_match,
)
from tests.web.test_backup import upload

ABC = ["Anna", "Bert", "Carl"]
ANNA_200 = {"declarer": 0, "bid": 200, "trump": "H"}  # Anna declares 200 in Herz
HX = {"HX-Request": "true", "HX-Target": "hand-form"}


def hands_of(app: Flask, token: str) -> list[Hand]:
    with app.app_context():
        match = services.get_match(token)
        hands = list(
            db.session.execute(select(Hand).where(Hand.match_id == match.id).order_by(Hand.seq))
            .scalars()
            .all()
        )
        for hand in hands:
            db.session.expunge(hand)
        return hands


def test_a_bid_typed_in_tens_is_read_as_its_tenfold(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=0, bid=25, trump="H", melds=[100], tricks=[180, 60])
    assert hands_of(app, token)[0].bid == 250
    assert sheet_of(app, token).totals == [280, 60, 10]


def test_melds_below_the_smallest_meld_are_read_in_tens(app: Flask, client: FlaskClient) -> None:
    """No meld is worth less than 20 without sevens: "10" is 100, "2" is 20; 40 is 40."""
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=0, bid=25, trump="H", melds=[10, 2, 40], tricks=[180, 60])
    assert sheet_of(app, token).totals == [280, 80, 50]
    assert 'data-smallest-meld="20"' in client.get(f"/m/{token}").get_data(as_text=True)


def test_with_sevens_a_meld_of_10_is_the_diss(app: Flask, client: FlaskClient) -> None:
    """With sevens the Diss is worth 10: "10" stays 10, only "1" to "9" are read in tens."""
    token = start_match(client, ABC, sevens="y")
    enter_hand(client, token, declarer=0, bid=18, trump="H", melds=[10, 4, 0], tricks=[180, 60])
    assert sheet_of(app, token).totals == [190, 100, 10]


def test_a_bid_that_is_no_bid_gets_the_apps_message_at_the_field(client: FlaskClient) -> None:
    token = start_match(client, ABC)
    response = enter_hand(client, token, status=422, declarer=0, bid=205, trump="H")
    html = response.get_data(as_text=True)
    # in German, at the bid; the form asks the browser for no checks of its own
    assert "nicht durch 10 teilbar" in page_text(html) or "205" in page_text(html)
    assert "novalidate" in html
    bid_input = html[html.index('id="bid"') - 200 : html.index('id="bid"') + 200]
    assert "step=" not in bid_input and "placeholder=" not in bid_input
    assert 'class="field bid-field needs-bid invalid"' in html


def test_took_a_trick_worth_nothing_counts_the_melds(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    # Bert: 20 melds, a trick worth 0 points; Carl: no trick (0 for the fill-in)
    took_zero = {"parties-1-took_zero": "y"}
    enter_hand(client, token, **ANNA_200, melds=[None, 20, 40], tricks=[250, 0, None],
               no_trick=[2], **took_zero)  # fmt: skip
    hand = hands_of(app, token)[0]
    with app.app_context():
        lines = sorted(db.session.merge(hand).parties, key=lambda p: p.party)
        assert [p.took_trick for p in lines] == [None, True, False]
    assert sheet_of(app, token).totals == [250, 20, 0]
    # the correction form shows the three states as they were saved
    data = form_data(client.get(f"/m/{token}/hands/{hand.seq}/edit").get_data(as_text=True))
    assert data.get("parties-1-took_zero") == "y" and data.get("parties-2-no_trick") == "y"


def test_a_forfeit_is_charged_to_the_party_at_fault(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    enter_hand(
        client,
        token,
        declarer=0,
        outcome="forfeit",
        bid=200,
        trump="H",
        melds=[40],
        tricks=[150, 50],
        at_fault=2,
    )
    hand = hands_of(app, token)[0]
    assert hand.at_fault == 2
    totals = sheet_of(app, token).totals
    assert totals[2] == -400 and totals[0] > 0  # Carl pays as a failed declarer
    text = page_text(client.get(f"/m/{token}/hands/{hand.seq}?lang=en"))
    assert "At fault: Carl" in text
    # the declarer at fault is stored as before: None
    enter_hand(client, token, declarer=1, outcome="forfeit", bid=200, trump="G", at_fault=1)
    assert hands_of(app, token)[1].at_fault is None


def test_kreuzbinokel_keeps_the_player_who_declared(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel")
    page = client.get(f"/m/{token}").get_data(as_text=True)
    assert page.count('name="declarer"') == 4  # the players, not the two teams
    enter_hand(client, token, declarer="s2", bid=200, trump="E", tricks=[200])
    hand = hands_of(app, token)[0]
    assert (hand.declarer_party, hand.declarer_seat) == (0, 2)
    sheet_html = client.get(f"/m/{token}").get_data(as_text=True)
    row = sheet_html[sheet_html.index(f'<tr id="hand-{hand.id}"') :]
    assert "Carl" in row[: row.index("</tr>")]
    assert "Carl" in page_text(client.get(f"/m/{token}/hands/{hand.seq}"))
    # the correction form starts from the player
    data = form_data(client.get(f"/m/{token}/hands/{hand.seq}/edit").get_data(as_text=True))
    assert data["declarer"] == "s2"


def test_backups_carry_at_fault_and_the_declaring_seat(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel")
    enter_hand(client, token, declarer="s3", bid=200, trump="E", tricks=[100])
    enter_hand(
        client,
        token,
        declarer="s0",
        outcome="forfeit",
        bid=200,
        trump="G",
        tricks=[120],
        at_fault=1,
    )
    session = session_token_of(app, token)
    data = json.loads(client.get(f"/s/{session}/backup.json").data)
    hands = data["sessions"][0]["matches"][0]["hands"]
    assert [(h["declarer_seat"], h["at_fault"]) for h in hands] == [(3, None), (0, 1)]
    assert upload(client, json.dumps(data)).status_code == 302
    # an older backup without the fields: no player named (and every forfeit of
    # those days was the declarer's: the field is left out only where it is None)
    for h in hands:
        h.pop("declarer_seat")
    hands[0].pop("at_fault")
    assert upload(client, json.dumps(data)).status_code == 302
    with app.app_context():
        rows = db.session.execute(select(Hand.declarer_seat, Hand.at_fault).order_by(Hand.id)).all()
    assert [tuple(r) for r in rows] == [(3, None), (0, 1)] * 2 + [(None, None), (None, 1)]


def test_struck_hands_stay_on_the_sheet_and_do_not_count(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=0, bid=250, trump="H", melds=[100], tricks=[180, 60])
    enter_hand(client, token, declarer=1, bid=200, trump="E", tricks=[40, 210])
    first, second = hand_ids(client, token)
    # striking asks first: the hand's page offers the question, not the deed
    detail = client.get(f"/m/{token}/hands/{first}?lang=en").get_data(as_text=True)
    assert "Strike hand …" in detail and "/delete" not in detail
    ask = client.get(f"/m/{token}/hands/{first}?strike=1&lang=en").get_data(as_text=True)
    assert "Strike this hand?" in ask
    response = client.post(f"/m/{token}/hands/{first}/delete", data=form_data(ask))
    assert response.status_code == 303
    html = client.get(f"/m/{token}?lang=en").get_data(as_text=True)
    assert f'<tr id="struck-{first}" class="deleted">' in html
    assert html.index(f"struck-{first}") < html.index(f"hand-{second}")  # in its place
    assert f"/hands/{first}#restore" in html
    assert sheet_of(app, token).totals == [40, 210, 0]
    assert "Hand 1 struck" in page_text(html) or "struck" in page_text(html)


def test_a_struck_hand_comes_back_in_one_tap_from_the_sheet(csrf_app: Flask) -> None:
    """The struck row's "restore" posts at once over htmx (the CSRF token in the header,
    the version the sheet showed); without JavaScript it opens the hand's page."""
    app, client = csrf_app, csrf_app.test_client()
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=0, bid=250, trump="H", melds=[100], tricks=[180, 60])
    (first,) = hand_ids(client, token)
    ask = client.get(f"/m/{token}/hands/{first}?strike=1").get_data(as_text=True)
    client.post(f"/m/{token}/hands/{first}/delete", data=form_data(ask))
    html = client.get(f"/m/{token}").get_data(as_text=True)
    link = re.search(
        r'<a class="restore-link" href="([^"]+)"\s+hx-post="([^"]+)" hx-vals=\'(\{[^\']+\})\'', html
    )
    assert link is not None
    assert link.group(1) == f"/m/{token}/hands/{first}#restore"
    csrf = json.loads(re.search(r"hx-headers='([^']+)'", html).group(1))  # type: ignore[union-attr]
    # a version the sheet no longer shows is refused (someone else changed the match)
    stale = {**json.loads(link.group(3)), "version": "1"}
    refused = client.post(link.group(2), data=stale, headers={**HX, **csrf})
    assert refused.status_code == 409
    assert sheet_of(app, token).totals == [0, 0, 0]
    answer = client.post(link.group(2), data=json.loads(link.group(3)), headers={**HX, **csrf})
    assert answer.status_code == 200
    assert answer.headers["HX-Redirect"] == f"/m/{token}"
    assert sheet_of(app, token).totals == [280, 60, 10]
    # without the CSRF header it is no request of this page
    assert client.post(link.group(2), data=json.loads(link.group(3)), headers=HX).status_code == 400


def test_the_answer_to_a_save_shows_it_with_undo(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=0, bid=250, trump="H", melds=[100], tricks=[180, 60])
    data = hand_data(client, token, declarer=1, bid=200, trump="E", tricks=[40, 210])
    response = client.post(f"/m/{token}/hands?lang=en", data=data, headers=HX)
    html = response.get_data(as_text=True)
    assert 'id="saved-note"' in html and "Hand 2 saved" in page_text(html)
    assert 'class="new-row"' in html
    assert response.headers["HX-Reswap"] == "outerHTML show:#entry:top"
    undo = form_data(html[html.index('id="saved-note"') :])
    second = hand_ids(client, token)[1]
    assert client.post(f"/m/{token}/hands/{second}/delete", data=undo).status_code == 303
    assert sheet_of(app, token).totals == [280, 60, 10]
    # a fresh load says nothing about a save
    assert 'id="saved-note"' not in client.get(f"/m/{token}").get_data(as_text=True)


def test_the_match_goes_on_past_the_target_and_says_why(client: FlaskClient) -> None:
    token = start_match(client, ABC, target=300)
    # Bert passes 300 as a defender: only a won game ends the match
    enter_hand(client, token, declarer=0, bid=300, trump="H", melds=[None, 200], tricks=[100, 140])
    text = page_text(client.get(f"/m/{token}?lang=en"))
    assert "Bert has reached 300, but the match goes on: only a won game ends it." in text


def test_trump_is_shown_as_its_suit(client: FlaskClient) -> None:
    token = start_match(client, ABC)
    enter_hand(client, token, declarer=0, bid=250, trump="H", melds=[100], tricks=[180, 60])
    first = hand_ids(client, token)[0]
    html = client.get(f"/m/{token}/hands/{first}").get_data(as_text=True)
    assert "#suit-H" in html and "Herz" in page_text(html)
    assert "Trumpf: H " not in page_text(html)


def test_one_minus_sign(app: Flask) -> None:
    with app.test_request_context("/?lang=de"):
        assert money(-750) == "−7,50\xa0€"
        assert "-" not in money(-750)


def test_a_special_game_is_named_in_messages(app: Flask) -> None:
    error = RulesError("say whether the {outcome} was won or lost", outcome="durch")
    with app.test_request_context("/?lang=de"):
        text = rules_message(error)
    assert "Durch gewonnen" in text, text


def test_the_declaring_player_counts_for_the_team_chosen_at_setup(
    app: Flask, client: FlaskClient
) -> None:
    # partners side by side (Anna & Bert, Carl & Dora): Bert declares for party 0
    token = start_match(
        client, ["Anna", "Bert", "Carl", "Dora"], "kreuzbinokel", teams=[0, 0, 1, 1]
    )
    enter_hand(client, token, declarer="s1", bid=200, trump="E", tricks=[200])
    hand = hands_of(app, token)[0]
    assert (hand.declarer_party, hand.declarer_seat) == (0, 1)
    assert sheet_of(app, token).parties == ["Anna & Bert", "Carl & Dora"]


def test_the_hand_says_when_a_forfeit_counts_the_game_as_made(
    app: Flask, client: FlaskClient
) -> None:
    """The rules' verdict, shown: an opponent's forfeit counts the declarer's game as
    made (the preview and the hand's page say so); the declarer's own does not."""
    token = start_match(client, ABC)
    note = "the declarer's game counts as made"
    enter_hand(client, token, declarer=0, outcome="forfeit", bid=200, trump="H", at_fault=2)
    enter_hand(client, token, declarer=1, outcome="forfeit", bid=200, trump="G")
    caught, own = hands_of(app, token)
    assert note in page_text(client.get(f"/m/{token}/hands/{caught.seq}?lang=en"))
    assert note not in page_text(client.get(f"/m/{token}/hands/{own.seq}?lang=en"))
