"""The Stammtisch's use cases, called directly on a real database (docs/rules.md section 14).

The group made once for the same form, members joining, leaving and coming back,
an evening with a guest, the "bezahlt" taps (a double tap, two phones on the same
transfer, forced into the bad order), the kitty's payouts, "Neues Jahr" (two taps,
one year) and the books carried into it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

import pytest
from flask import Flask
from sqlalchemy import func, select

from scorer import services
from scorer.extensions import db
from scorer.rules import PRESETS, RulesError
from scorer.services import ConflictError, KeyReusedError, NotFound
from scorer.services.stammtisch import evenings, groups, new_year, payments, people
from scorer.services.stammtisch.evenings import Seat
from scorer.services.stammtisch.reading import evening_view, unpaid_on_night, year_view
from scorer.stammtisch_models import Evening, Payment, Stammtisch, Year
from tests.races import in_context, interleave
from tests.stammtisch_builders import THURSDAY, a_group, play_evening, played_year


def person_id(group: Stammtisch, name: str) -> int:
    found = people.find_person(group, name)
    assert found is not None
    return found.id


def test_the_same_form_twice_makes_one_group(in_app: Flask) -> None:
    made = [
        groups.create_group(
            name="Krone",
            members=["Anna", "Bert", "Carla"],
            ruleset=PRESETS["standard"],
            stake_cents=10,
            stake_basis="full",
            money_mode="pay",
            ranking_by="points",
            season_start="01-01",
            day=THURSDAY,
            idempotency_key="same-form",
        )
        for _ in range(2)
    ]
    assert made[0].id == made[1].id
    assert db.session.execute(select(func.count()).select_from(Stammtisch)).scalar_one() == 1
    year = groups.current_year(made[0])
    assert (year.number, year.label, year.season) == (1, "2025", date(2025, 1, 1))
    assert [m.person.name for m in year.members] == ["Anna", "Bert", "Carla"]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"name": "  "}, "name"),
        ({"members": ["Anna"]}, "members"),
        ({"members": ["Anna", "anna ", "Bert"]}, "members"),
        ({"members": ["Anna", "B\x00ert"]}, "members"),
        ({"members": ["Anna", "x" * 41]}, "members"),
        ({"stake_cents": 100_001}, "stake"),
        ({"stake_basis": "hourly"}, "stake_basis"),
        ({"money_mode": "cash"}, "money_mode"),
        ({"ranking_by": "stars"}, "ranking_by"),
        ({"season_start": "02-29"}, "season_start"),
    ],
)
def test_a_group_that_cannot_be_is_refused_naming_its_field(
    in_app: Flask, changes: dict[str, object], field: str
) -> None:
    values: dict[str, object] = {
        "name": "Krone",
        "members": ["Anna", "Bert", "Carla"],
        "ruleset": PRESETS["standard"],
        "stake_cents": 10,
        "stake_basis": "full",
        "money_mode": "pay",
        "ranking_by": "points",
        "season_start": "01-01",
        "day": THURSDAY,
    }
    values.update(changes)
    with pytest.raises(RulesError) as refused:
        groups.create_group(**values)  # type: ignore[arg-type]
    assert refused.value.params.get("field") == field
    assert db.session.execute(select(func.count()).select_from(Stammtisch)).scalar_one() == 0


def test_members_join_leave_and_come_back(in_app: Flask) -> None:
    group = a_group()
    erna = people.add_member(group, " Erna  ", THURSDAY + timedelta(days=30))
    assert (erna.person.name, erna.joined_on) == ("Erna", date(2025, 2, 1))
    with pytest.raises(RulesError, match="member already"):
        people.add_member(group, "erna", THURSDAY)
    gone = people.leave(group, person_id(group, "Dieter"), date(2025, 6, 1))
    assert gone.left_on == date(2025, 6, 1)
    offered = [p.name for p in evenings.offered(groups.current_year(group))]
    assert offered == ["Anna", "Bert", "Carla", "Erna"]
    back = people.come_back(group, person_id(group, "Dieter"))
    assert back.left_on is None
    renamed = people.rename(group, person_id(group, "Erna"), "Erna M.")
    assert renamed.name == "Erna M."
    with pytest.raises(RulesError, match="somebody else"):
        people.rename(group, person_id(group, "Anna"), "bert")
    with pytest.raises(NotFound):
        people.leave(group, 2**40, THURSDAY)


def test_an_evening_with_a_guest_takes_the_groups_rules_and_stakes(in_app: Flask) -> None:
    group = a_group(stake_cents=20, basis="started", target=500)
    evening = play_evening(group, ["Anna", "Bert"], guests=["Gustav"])
    session = evening.session
    match = session.matches[0]
    assert [s.name for s in match.seats] == ["Anna", "Bert", "Gustav"]
    assert (session.stake_cents, session.stake_basis, session.title) == (20, "started", "Krone")
    assert services.ruleset_of(match).target == 500
    assert [(s.name, s.guest) for s in evening.sitters] == [
        ("Anna", False),
        ("Bert", False),
        ("Gustav", True),
    ]
    # the guest is a person of the group now, not a member
    year = groups.current_year(group)
    assert people.find_person(group, "gustav") is not None
    assert "Gustav" not in [m.person.name for m in year.members]


def test_a_member_cannot_sit_as_a_guest_nor_someone_twice(in_app: Flask) -> None:
    group = a_group()
    anna = Seat(person_id=person_id(group, "Anna"))
    with pytest.raises(RulesError, match="is a member"):
        evenings.start_evening(group, seats=[anna, Seat(guest="bert")], day=THURSDAY)
    with pytest.raises(RulesError, match="twice"):
        evenings.start_evening(group, seats=[anna, anna, Seat(guest="Gustav")], day=THURSDAY)
    with pytest.raises(RulesError, match="2 to 8"):
        evenings.start_evening(group, seats=[anna], day=THURSDAY)
    people.leave(group, person_id(group, "Dieter"), THURSDAY)
    dieter = Seat(person_id=person_id(group, "Dieter"))
    with pytest.raises(RulesError, match="no member this year"):
        evenings.start_evening(group, seats=[anna, dieter], day=THURSDAY)
    # a member who left sits in as a guest
    evening = evenings.start_evening(
        group,
        seats=[anna, Seat(person_id=person_id(group, "Bert")), Seat(guest="Dieter")],
        day=THURSDAY,
    )
    assert [s.guest for s in evening.sitters] == [False, False, True]
    assert db.session.execute(select(func.count()).select_from(Evening)).scalar_one() == 1


def test_rules_that_cannot_be_played_tonight_are_refused(in_app: Flask) -> None:
    group = a_group()
    three = [Seat(person_id=person_id(group, n)) for n in ("Anna", "Bert", "Carla")]
    with pytest.raises(RulesError) as refused:
        evenings.start_evening(group, seats=three, day=THURSDAY, teams=True)
    assert refused.value.params["field"] == "seats"
    with pytest.raises(RulesError):
        evenings.start_evening(group, seats=three, day=THURSDAY, dealer_sits_out=True)
    four = [*three, Seat(person_id=person_id(group, "Dieter"))]
    teams = evenings.start_evening(group, seats=four, day=THURSDAY, teams=True)
    assert services.ruleset_of(teams.session.matches[0]).team_size == 2


def test_the_same_evening_form_twice_is_one_evening(in_app: Flask) -> None:
    group = a_group()
    seats = [Seat(person_id=person_id(group, n)) for n in ("Anna", "Bert", "Carla")]
    first = evenings.start_evening(group, seats=seats, day=THURSDAY, idempotency_key="k1")
    again = evenings.start_evening(group, seats=seats, day=THURSDAY, idempotency_key="k1")
    assert first.id == again.id and first.number == 1
    with pytest.raises(KeyReusedError):
        evenings.start_evening(group, seats=seats[::-1], day=THURSDAY, idempotency_key="k1")
    second = evenings.start_evening(group, seats=seats, day=THURSDAY, idempotency_key="k2")
    assert second.number == 2


def _night(group: Stammtisch, number: int = 1):  # type: ignore[no-untyped-def]
    view, night = evening_view(group, evenings.get_evening(group, number))
    return view, night


def test_a_tap_on_the_night_counts_once(in_app: Flask) -> None:
    group = a_group()
    play_evening(group, ["Anna", "Bert", "Carla"], matches=2)
    view, night = _night(group)
    payer, payee, cents = night.money.transfers[0]
    tap = {"payer_id": int(payer), "payee_id": int(payee), "cents": cents, "day": THURSDAY}
    first = payments.pay(group, evening=1, key="tap-1", **tap)
    twin = payments.pay(group, evening=1, key="tap-1", **tap)  # the same tap sent twice
    assert first.id == twin.id
    with pytest.raises(payments.AlreadyPaid):  # another phone, its own key: paid already
        payments.pay(group, evening=1, key="tap-2", **tap)
    view, night = _night(group)
    assert unpaid_on_night(view, night).transfers[(payer, payee)] == 0
    assert db.session.execute(select(func.count()).select_from(Payment)).scalar_one() == 1


def test_two_phones_paying_the_same_years_transfer_forced_into_the_bad_order(
    in_app: Flask,
) -> None:
    """Both phones read the list; the first one's payment commits between the second one's
    check and its write: the second runs again on the books as they are, and is told."""
    group = a_group()
    play_evening(group, ["Anna", "Bert", "Carla"], matches=2)
    payer, payee, cents = year_view(group, hands=False).ledger.transfers[0]
    token = group.token
    db.session.remove()

    def phone(key: str) -> Callable[[], Payment]:
        def tap() -> Payment:
            found = groups.get_group(token)
            return payments.pay(
                found, payer_id=int(payer), payee_id=int(payee), cents=cents, day=THURSDAY, key=key
            )

        return tap

    late, early = interleave(in_context(in_app, phone("late")), in_context(in_app, phone("early")))
    assert isinstance(early, Payment)
    assert isinstance(late, payments.AlreadyPaid)
    assert db.session.execute(select(func.count()).select_from(Payment)).scalar_one() == 1


def test_the_kitty_pays_out_only_what_it_holds(in_app: Flask) -> None:
    group = a_group(money="kitty", stake_cents=50)
    play_evening(group, ["Anna", "Bert", "Carla"], matches=2)
    books = year_view(group, hands=False).ledger
    owing = [(a.person, a.kitty_open) for a in books.accounts if a.kitty_open]
    assert owing
    for person, cents in owing:
        payments.pay_kitty(group, payer_id=int(person), cents=cents, day=THURSDAY)
    with pytest.raises(payments.AlreadyPaid):  # nothing left to pay in
        payments.pay_kitty(group, payer_id=int(owing[0][0]), cents=1, day=THURSDAY)
    held = year_view(group, hands=False).ledger.kitty.balance
    assert held == sum(c for _, c in owing)
    today = date(2025, 12, 1)
    with pytest.raises(RulesError, match="more than the kitty held"):
        payments.payout(group, cents=held + 1, day=THURSDAY, note="Ausflug", today=today)
    with pytest.raises(RulesError, match="dated in this year"):
        payments.payout(group, cents=1, day=date(2024, 12, 1), note="x", today=today)
    payout = payments.payout(
        group, cents=held, day=date(2025, 6, 14), note=" Ausflug  nach Ulm ", today=today
    )
    assert payout.note == "Ausflug nach Ulm"
    assert year_view(group, hands=False).ledger.kitty.balance == 0
    # a payment-in the payout needed cannot be struck; the payout itself can
    paid_in = db.session.execute(select(Payment).where(Payment.kind == "kitty")).scalars().first()
    assert paid_in is not None
    with pytest.raises(RulesError, match="more than the kitty held"):
        payments.strike(group, paid_in.id)
    payments.strike(group, payout.id)
    payments.strike(group, paid_in.id)
    assert year_view(group, hands=False).ledger.kitty.balance == held - paid_in.cents


def test_a_payout_recorded_on_a_page_another_phone_changed_is_refused(in_app: Flask) -> None:
    group = a_group(money="kitty", stake_cents=50)
    play_evening(group, ["Anna", "Bert", "Carla"])
    account = next(a for a in year_view(group, hands=False).ledger.accounts if a.kitty_open)
    shown = group.version
    payments.pay_kitty(group, payer_id=int(account.person), cents=account.kitty_open, day=THURSDAY)
    with pytest.raises(ConflictError):
        payments.payout(group, cents=1, day=THURSDAY, note="x", today=THURSDAY, version=shown)


def test_neues_jahr_carries_members_rules_stakes_and_the_books(in_app: Flask) -> None:
    group = a_group(stake_cents=20, basis="started", ranking="money", target=500)
    play_evening(group, ["Anna", "Bert", "Carla"], matches=2)
    people.leave(group, person_id(group, "Dieter"), date(2025, 5, 1))
    before = {a.person: a.open for a in year_view(group, hands=False).ledger.accounts}
    assert any(before.values())
    first = groups.current_year(group)
    made = new_year.new_year(group, day=date(2025, 12, 28), after=first.number)
    again = new_year.new_year(group, day=date(2025, 12, 28), after=first.number)
    assert made.id == again.id
    assert db.session.execute(select(func.count()).select_from(Year)).scalar_one() == 2
    assert (made.number, made.label, made.season) == (2, "2026", date(2026, 1, 1))
    assert [m.person.name for m in made.members] == ["Anna", "Bert", "Carla"]
    assert (made.stake_cents, made.stake_basis, made.ranking_by) == (20, "started", "money")
    assert made.ruleset == first.ruleset
    view = year_view(group)
    assert view.nights == [] and view.current
    assert {a.person: a.carried for a in view.ledger.accounts} == before
    assert {a.person: a.open for a in view.ledger.accounts} == before
    # the old year keeps its evening and closes with what was open
    old = year_view(group, 1)
    assert len(old.nights) == 1 and not old.current


def test_a_year_with_members_coming_and_going_is_read_whole(in_app: Flask) -> None:
    group = a_group()
    played_year(group, evenings=6, matches=2)
    view = year_view(group)
    assert len(view.nights) == 6
    assert {line.person for line in view.ranking.lines} <= set(view.members)
    points = sum(line.points for line in view.ranking.lines) + sum(
        line.points for line in view.ranking.guests
    )
    sheets = 0
    for night in view.nights:
        for match in night.session.matches:
            sheet = services.standing(match)
            sheets += sum(sheet.totals[s.party] for s in match.seats)
    assert points == sheets
    assert sum(a.open for a in view.ledger.accounts) == 0
