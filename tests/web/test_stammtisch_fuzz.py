"""No input to the Stammtisch's forms gives a 500, and a refused one writes nothing.

Random form data (hypothesis) posted to every POST route of the Stammtisch, on a
group with a played evening: the group's form, tonight's table, the members, the
settings, "Neues Jahr", the "bezahlt" taps, the payout, striking, the restore.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.stammtisch_models import Evening, Member, Payment, Person, Stammtisch, Year
from tests.builders import HX, fresh_app, multipart
from tests.stammtisch_builders import a_group, play_evening

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

junk = st.one_of(
    st.sampled_from(["", " ", "0", "-1", "1", "2", "3", "y", "pay", "kitty", "none", "points"]),
    st.sampled_from(["9" * 40, "1e9", "0,10", "12,50", "14.03.2025", "2025-02-30", "\x00", "٣"]),
    st.integers(-(10**12), 10**12).map(str),
    st.text(max_size=16),
)

ROUTES: dict[str, tuple[str, list[str]]] = {
    "new": (
        "/st/new",
        [
            "name",
            "members",
            "preset",
            "teams",
            "stake",
            "stake_basis",
            "money_mode",
            "ranking_by",
            "season_start",
            "action",
            "idempotency_key",
            "rule-target",
            "rule-min_bid",
            "rule-failed_bonus",
        ],
    ),
    "new_year": ("/st/{token}/new-year", ["after"]),
    "members": ("/st/{token}/members", ["name"]),
    "leave": ("/st/{token}/members/{person}/leave", []),
    "back": ("/st/{token}/members/{person}/back", []),
    "rename": ("/st/{token}/members/{person}/name", ["name"]),
    "settings": (
        "/st/{token}/settings",
        [
            "name",
            "season_start",
            "preset",
            "teams",
            "stake",
            "stake_basis",
            "money_mode",
            "ranking_by",
            "action",
            "rule-target",
        ],
    ),
    "evening": (
        "/st/{token}/evening/new",
        [
            "members-0-person",
            "members-0-here",
            "members-0-seat",
            "members-1-person",
            "members-1-here",
            "members-1-seat",
            "guests-0-name",
            "guests-0-seat",
            "teams",
            "dealer_sits_out",
            "first_dealer",
            "idempotency_key",
        ],
    ),
    "paid": ("/st/{token}/paid", ["payer", "payee", "cents", "evening", "key", "next"]),
    "kitty": ("/st/{token}/kitty", ["payer", "cents", "evening", "key", "next"]),
    "payout": ("/st/{token}/payout", ["amount", "day", "note", "version", "key"]),
    "strike": ("/st/{token}/payments/{payment}/strike", ["next"]),
}


def _counts() -> tuple[int, ...]:
    return tuple(
        db.session.execute(select(func.count()).select_from(model)).scalar_one()
        for model in (Stammtisch, Person, Year, Member, Evening, Payment)
    )


def test_random_forms_never_fail() -> None:
    with fresh_app() as app:
        with app.app_context():
            group = a_group()
            play_evening(group, ["Anna", "Bert", "Carla"], day=date(2025, 1, 2))
            token = group.token
            person = str(group.people[0].id)
        client = app.test_client()

        @given(st.sampled_from(sorted(ROUTES)), st.data(), st.booleans())
        @SETTINGS
        def post(route: str, data: Any, htmx: bool) -> None:
            path, keys = ROUTES[route]
            some = data.draw(st.sampled_from([person, "0", "999999", str(2**40)]))
            url = path.format(token=token, person=some, payment=some)
            fields = data.draw(st.dictionaries(st.sampled_from(keys), junk)) if keys else {}
            with app.app_context():
                before = _counts()
            response = client.post(url, data=fields, headers=HX if htmx else {})
            assert response.status_code < 500, (url, fields, response.status_code)
            if response.status_code >= 400:
                with app.app_context():
                    assert _counts() == before, (url, fields)

        post()


def test_random_files_are_refused_cleanly() -> None:
    with fresh_app() as app:
        client = app.test_client()

        @given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
        @SETTINGS
        def upload(raw: bytes) -> None:
            response = client.post("/st/restore", **multipart({"file": (raw, "x.json")}))
            assert response.status_code in (413, 422), response.status_code

        upload()
        with app.app_context():
            assert (
                db.session.execute(select(func.count()).select_from(Stammtisch)).scalar_one() == 0
            )
