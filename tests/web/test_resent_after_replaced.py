"""A save resent after the organiser replaced the table's link is answered as saved.

A phone saves a hand; its answer is lost (the phone looks dead); the organiser gives
the table a new link; the phone's queue sends the same form again, with the same
idempotency key.  The hand is on the sheet once, and the phone is told so — a 303
without JavaScript (to its old link's page, which names the hand), over htmx a 200
with the link's notice and the hand named, so that ``static/scorer.js`` forgets it
(tests/e2e/test_resent_after_replaced.py) — and never shown the new link.  Anything
new sent through the old link is refused with the notice, as before.  CSRF is on:
every form is the page's own, as the phone and the organiser's laptop load them.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from scorer.extensions import db
from scorer.models import Hand
from scorer.tournament_models import TournamentTable
from tests.builders import HX, fill_hand, form_data, page_text
from tests.web.test_night_races import HAND, a_round


@pytest.fixture
def night(csrf_app: Flask) -> dict[str, Any]:
    """Round 1 drawn (tables of three, 3 deals); table 1's phone link."""
    return a_round(csrf_app)


def keys_saved(app: Flask, match_id: int) -> list[str | None]:
    with app.app_context():
        rows = db.session.execute(
            select(Hand.idempotency_key).where(Hand.match_id == match_id).order_by(Hand.seq)
        ).scalars()
        return list(rows)


def phone_form(phone: FlaskClient, token: str, **typed: str) -> dict[str, str]:
    page = phone.get(f"/m/{token}")
    assert page.status_code == 200
    return fill_hand(form_data(page.get_data(as_text=True), "hand-form"), **{**HAND, **typed})


def replace_link(organiser: FlaskClient, night: dict[str, Any]) -> str:
    """The organiser's "new link" for table 1, through its page's form; the new token."""
    url = f"/t/{night['tournament']}/tables/{night['table']}/link"
    page = organiser.get(url)
    assert page.status_code == 200
    answer = organiser.post(url, data=form_data(page.get_data(as_text=True), "link-form"))
    assert answer.status_code == 303, page_text(answer)[:800]
    with organiser.application.app_context():
        table = db.session.get_one(TournamentTable, night["table"])
        assert table.link_number == 2
        return table.match.token


def saved_then_replaced(
    app: Flask, night: dict[str, Any]
) -> tuple[FlaskClient, dict[str, str], str]:
    """The old phone saves a hand (its answer lost), then the organiser replaces the link:
    the old phone, the form it will send again, the new link."""
    phone, organiser = app.test_client(), app.test_client()
    old = night["phone"]
    form = phone_form(phone, old)
    assert phone.post(f"/m/{old}/hands", data=form).status_code == 303
    new = replace_link(organiser, night)
    assert new != old
    return phone, form, new


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_a_resend_after_the_link_was_replaced_is_answered_as_saved(
    csrf_app: Flask, night: dict[str, Any], htmx: bool
) -> None:
    phone, form, new = saved_then_replaced(csrf_app, night)  # the phone never heard "saved"
    old = night["phone"]

    resent = phone.post(f"/m/{old}/hands", data=form, headers=HX if htmx else {})
    html = resent.get_data(as_text=True)
    if htmx:
        assert resent.status_code == 200, page_text(html)[:800]
        assert resent.headers["HX-Retarget"] == "#main"
        assert "<html" not in html
        text = page_text(html)
    else:
        assert resent.status_code == 303
        assert resent.headers["Location"] == f"/m/{old}"
        shown = phone.get(resent.headers["Location"])
        assert shown.status_code == 410  # the old link's page: it writes nothing any more
        html = shown.get_data(as_text=True)
        text = page_text(html)
    assert "Spiel 1 wurde gespeichert, bevor dieser Link ersetzt wurde" in text
    assert "Dieser Link wurde ersetzt" in text
    assert new not in html  # the new link is the organiser's to hand out
    assert keys_saved(csrf_app, night["match"]) == [form["idempotency_key"]]


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_anything_new_through_the_replaced_link_is_refused_with_the_notice(
    csrf_app: Flask, night: dict[str, Any], htmx: bool
) -> None:
    phone, form, _ = saved_then_replaced(csrf_app, night)
    old = night["phone"]
    headers = HX if htmx else {}
    refused = 409 if htmx else 410
    # the same key with another hand (the Schreiber changed it while it waited)
    changed = fill_hand(form, bid="160")
    answer = phone.post(f"/m/{old}/hands", data=changed, headers=headers)
    assert answer.status_code == refused
    assert "Dieser Link wurde ersetzt" in page_text(answer)
    assert "gespeichert, bevor" not in page_text(answer)
    # the next hand, with its own key
    second = fill_hand(form, idempotency_key="a-new-key-for-the-next-hand", declarer="1")
    answer = phone.post(f"/m/{old}/hands", data=second, headers=headers)
    assert answer.status_code == refused
    # a form without a key at all
    answer = phone.post(f"/m/{old}/hands", data=fill_hand(form, idempotency_key=""))
    assert answer.status_code == 410
    assert keys_saved(csrf_app, night["match"]) == [form["idempotency_key"]]


def test_a_resend_without_a_valid_csrf_token_is_not_answered_as_saved(
    csrf_app: Flask, night: dict[str, Any]
) -> None:
    """A stranger who learnt an old link and a key gets no answer about the hand."""
    _, form, _ = saved_then_replaced(csrf_app, night)
    old = night["phone"]
    stranger = csrf_app.test_client()
    answer = stranger.post(f"/m/{old}/hands", data=form, headers=HX)
    assert answer.status_code in (400, 409, 410)
    assert "gespeichert, bevor" not in page_text(answer)


def test_the_new_phone_shows_the_hand_once_and_goes_on_at_the_next_deal(
    csrf_app: Flask, night: dict[str, Any]
) -> None:
    phone, form, new = saved_then_replaced(csrf_app, night)
    new_phone = csrf_app.test_client()
    old = night["phone"]
    assert phone.post(f"/m/{old}/hands", data=form, headers=HX).status_code == 200
    sheet = new_phone.get(f"/m/{new}").get_data(as_text=True)
    assert sheet.count('<tr id="hand-') == 1
    second = phone_form(new_phone, new, declarer="1")
    assert new_phone.post(f"/m/{new}/hands", data=second).status_code == 303
    assert len(keys_saved(csrf_app, night["match"])) == 2
