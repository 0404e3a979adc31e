"""The Stammtisch's year: docs/rules.md section 14, its hand-worked examples and its money.

Examples 1 to 4 of section 14 are written out here as the book has them; the
properties say that no cent is lost or created over any year of evenings, in
both ways of keeping the money, and carried from one year into the next.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import BASES, RulesError, stake_payments
from scorer.rules.year import (
    Evening,
    HandPlayed,
    HandRef,
    Kitty,
    MatchPlayed,
    Payment,
    SeasonStart,
    check_evening,
    check_payout,
    evening_money,
    next_season,
    season_label,
    season_of,
    season_over,
    season_started,
    settle_open,
    shares_of,
    year_ledger,
    year_ranking,
    year_records,
)

PEOPLE = {"Anna": "A", "Bert": "B", "Carla": "C", "Dieter": "D", "Gustav": "G"}
THREE = ("Anna", "Bert", "Carla")
MEMBERS = ["A", "B", "C", "D"]


def example_evenings(money: str = "pay") -> list[Evening]:
    """Example 1 of section 14.2: three evenings, a guest on the second."""

    def night(number: int, day: int, guests: frozenset[str], *matches: MatchPlayed) -> Evening:
        return Evening(number, date(2025, 3, day), money, 10, "full", PEOPLE, guests, matches)

    return [
        night(
            1,
            6,
            frozenset(),
            MatchPlayed(1, THREE, (0, 1, 2), (1030, 640, 410), True, (0,)),
            MatchPlayed(2, THREE, (0, 1, 2), (720, 1010, 980), True, (1,)),
        ),
        night(
            2,
            13,
            frozenset({"G"}),
            MatchPlayed(1, ("Bert", "Dieter", "Gustav"), (0, 1, 2), (760, 700, 1050), True, (2,)),
        ),
        night(
            3,
            20,
            frozenset(),
            MatchPlayed(1, ("Carla", "Anna", "Bert"), (0, 1, 2), (1000, 880, 470), True, (0,)),
        ),
    ]


# -- example 1: the ranking ------------------------------------------------------------


def test_example_1_ranked_by_points() -> None:
    year = year_ranking(example_evenings(), MEMBERS)
    lines = [
        (y.place, y.person, y.points, y.matches, y.matches_won, y.evenings, y.average, y.money)
        for y in year.lines
    ]
    assert lines == [
        (1, "B", 2880, 4, 1, 3, 960, -80),
        (2, "A", 2630, 3, 1, 2, 1315, 60),
        (3, "C", 2390, 3, 1, 2, 1195, 0),
        (4, "D", 700, 1, 0, 1, 700, -30),
    ]
    (guest,) = year.guests
    assert (guest.person, guest.place, guest.points, guest.matches_won, guest.money) == (
        "G",
        None,
        1050,
        1,
        50,
    )
    assert year.running == (
        (0, 0, 0, 0),
        (1650, 1750, 1390, 0),
        (2410, 1750, 1390, 700),
        (2880, 2630, 2390, 700),
    )


@pytest.mark.parametrize(
    ("by", "expected"),
    [
        ("matches", [(1, "B"), (1, "A"), (1, "C"), (4, "D")]),
        ("money", [(1, "A"), (2, "C"), (3, "D"), (4, "B")]),
    ],
)
def test_example_1_ranked_by_what_the_group_picks(by: str, expected: list[Any]) -> None:
    year = year_ranking(example_evenings(), MEMBERS, by)
    assert [(line.place, line.person) for line in year.lines] == expected


def test_a_member_without_an_evening_is_listed_last_and_a_pick_unknown_is_refused() -> None:
    year = year_ranking(example_evenings(), [*MEMBERS, "E"])
    assert (year.lines[-1].person, year.lines[-1].place, year.lines[-1].average) == ("E", 5, None)
    with pytest.raises(RulesError, match="ranked by"):
        year_ranking(example_evenings(), MEMBERS, "stars")


# -- example 2: paying each other ----------------------------------------------------


def test_example_2_each_evening_settled_with_the_fewest_transfers() -> None:
    nights = [evening_money(e) for e in example_evenings()]
    assert [(n.results, n.transfers) for n in nights] == [
        ({"A": 70, "B": -10, "C": -60}, (("B", "A", 10), ("C", "A", 60))),
        ({"B": -20, "D": -30, "G": 50}, (("B", "G", 20), ("D", "G", 30))),
        ({"C": 60, "A": -10, "B": -50}, (("A", "C", 10), ("B", "C", 50))),
    ]
    lines = {
        (line.person, line.cents, line.behind, line.hundreds) for line in nights[0].matches[0].lines
    }
    assert ("B", -30, 390, 3) in lines  # 3 × 0,10 € for 390 points behind


def test_example_2_the_year_carries_what_was_not_paid_and_needs_one_transfer() -> None:
    paid = [
        Payment(1, "transfer", date(2025, 3, 6), 60, "C", "A", evening=1),
        Payment(2, "transfer", date(2025, 3, 13), 20, "B", "G", evening=2),
        Payment(3, "transfer", date(2025, 3, 13), 30, "D", "G", evening=2),
    ]
    nights = [evening_money(e) for e in example_evenings()]
    books = year_ledger([], nights, paid, date(2025, 1, 1))
    assert {a.person: a.open for a in books.accounts} == {"A": 0, "B": -60, "C": 60, "D": 0, "G": 0}
    assert books.transfers == (("B", "C", 60),) and books.fewest
    bert = books.account("B")
    assert (bert.evenings, bert.paid, bert.received, bert.open) == (-80, 20, 0, -60)
    # the tap on the year's transfer settles everything
    settled = year_ledger(
        [],
        nights,
        [*paid, Payment(4, "transfer", date(2025, 3, 27), 60, "B", "C")],
        date(2025, 1, 1),
    )
    assert all(a.open == 0 for a in settled.accounts) and settled.transfers == ()


def test_example_2_open_balances_are_carried_into_the_next_year() -> None:
    nights = [evening_money(e) for e in example_evenings()]
    paid = [Payment(1, "transfer", date(2025, 3, 6), 60, "C", "A", evening=1)]
    next_year = year_ledger(nights, [], paid, date(2026, 1, 1))
    assert {a.person: a.carried for a in next_year.accounts} == {
        "A": 0,
        "B": -80,
        "C": 60,
        "D": -30,
        "G": 50,
    }
    # paid in the new year: counted there, the old balances carried
    later = year_ledger(
        nights,
        [],
        [*paid, Payment(2, "transfer", date(2026, 1, 8), 50, "D", "G")],
        date(2026, 1, 1),
    )
    assert (later.account("D").carried, later.account("D").paid, later.account("D").open) == (
        -30,
        50,
        20,
    )


# -- example 3: into the kitty ---------------------------------------------------------


def kitty_year() -> tuple[list[Any], list[Payment]]:
    nights = [evening_money(e) for e in example_evenings("kitty")]
    paid = [
        Payment(1, "kitty", date(2025, 3, 6), 20, "A", evening=1),
        Payment(2, "kitty", date(2025, 3, 6), 30, "B", evening=1),
        Payment(3, "kitty", date(2025, 3, 6), 60, "C", evening=1),
        Payment(4, "kitty", date(2025, 3, 13), 20, "B", evening=2),
        Payment(5, "kitty", date(2025, 3, 13), 30, "D", evening=2),
        Payment(6, "kitty", date(2025, 3, 20), 10, "A", evening=3),
        Payment(7, "payout", date(2025, 6, 14), 150, note="Ausflug"),
    ]
    return nights, paid


def test_example_3_the_losers_pay_the_kitty_match_by_match() -> None:
    nights, _ = kitty_year()
    assert [n.dues for n in nights] == [
        {"A": 20, "B": 30, "C": 60},
        {"B": 20, "D": 30, "G": 0},
        {"C": 0, "A": 10, "B": 50},
    ]
    assert all(n.transfers == () for n in nights)


def test_example_3_the_kitty_its_payout_and_the_parts() -> None:
    nights, paid = kitty_year()
    books = year_ledger([], nights, paid, date(2025, 1, 1))
    assert (books.kitty.paid_in, books.kitty.paid_out, books.kitty.balance) == (170, 150, 20)
    assert books.outstanding == 50 and books.account("B").kitty_open == 50
    assert books.kitty.parts == (("C", 60), ("B", 50), ("A", 30), ("D", 30))
    assert books.kitty.shares == (("C", 353), ("B", 294), ("A", 177), ("D", 176))
    with pytest.raises(RulesError, match="kitty holds"):
        check_payout(books.kitty, 30)
    too_much = [*paid, Payment(8, "payout", date(2025, 7, 1), 30, note="Nachschlag")]
    with pytest.raises(RulesError, match="more than the kitty held"):
        year_ledger([], nights, too_much, date(2025, 1, 1))


# -- example 4: the records --------------------------------------------------------------


def example_records_evenings() -> list[Evening]:
    hands = (
        HandPlayed(
            1,
            0,
            None,
            "played",
            300,
            True,
            None,
            (310, 80, 40),
            melds=(("binokel", "pair E", "four O"), ("pair G", "pair S"), ("pair H",)),
        ),
        HandPlayed(2, 1, None, "gone_off", 250, None, None, (50, -250, 30)),
        HandPlayed(
            3,
            2,
            None,
            "played",
            350,
            True,
            None,
            (100, 110, 360),
            melds=((), ("pair G",), ("double_binokel",)),
        ),
        HandPlayed(4, 0, None, "durch", 0, None, True, (1000, 0, 0)),
    )
    night = Evening(
        4,
        date(2025, 3, 27),
        "none",
        0,
        "full",
        PEOPLE,
        frozenset(),
        (MatchPlayed(1, THREE, (0, 1, 2), (1460, -60, 430), True, (0,), hands),),
    )
    four = ("Anna", "Bert", "Carla", "Dieter")
    kreuz = Evening(
        5,
        date(2025, 4, 3),
        "none",
        0,
        "full",
        PEOPLE,
        frozenset(),
        (
            MatchPlayed(
                1,
                four,
                (0, 1, 0, 1),
                (1020, 870),
                True,
                (0,),
                (HandPlayed(9, 0, 0, "played", 300, True, None, (500, 100)),),
            ),
            MatchPlayed(
                2,
                four,
                (0, 1, 0, 1),
                (1010, 640),
                True,
                (0,),
                (HandPlayed(7, 0, 2, "played", 250, True, None, (400, 80)),),
            ),
        ),
    )
    return [night, kreuz]


def test_example_4_hands_won_and_lost() -> None:
    night = example_records_evenings()[0]
    year = year_ranking([night], ["A", "B", "C"])
    lines = {line.person: (line.hands_won, line.hands_lost, line.lost_games) for line in year.lines}
    assert lines == {"A": (3, 1, 0), "B": (0, 4, 1), "C": (1, 3, 0)}


def test_example_4_the_records_and_their_hands() -> None:
    records = {r.kind: r for r in year_records(example_records_evenings()[:1])}
    found = {
        kind: (r.value, [(h.people, h.hand) for h in r.holders]) for kind, r in records.items()
    }
    assert found == {
        "highest_bid": (350, [(("C",), HandRef(4, 1, 3))]),
        "binokel": (1, [(("A",), HandRef(4, 1, 1))]),
        "double_binokel": (1, [(("C",), HandRef(4, 1, 3))]),
        "durch": (1, [(("A",), HandRef(4, 1, 4))]),
        "run": (2, [(("A",), HandRef(4, 1, 4))]),
        "lost_games": (1, [(("B",), HandRef(4, 1, 2))]),
    }


def test_example_4_the_partners_of_a_week_later() -> None:
    records = {r.kind: r for r in year_records(example_records_evenings())}
    partners = records["partners"]
    assert partners.value == 2
    assert [(h.people, h.hand) for h in partners.holders] == [(("A", "C"), HandRef(5, 2, 7))]
    assert records["run"].value == 3 and records["run"].holders[0].hand == HandRef(5, 1, 9)


def test_a_guests_hands_make_no_record() -> None:
    night = example_records_evenings()[0]
    as_guest = Evening(
        night.number, night.day, "none", 0, "full", PEOPLE, frozenset({"A"}), night.matches
    )
    kinds = {r.kind: r for r in year_records([as_guest])}
    assert "binokel" not in kinds and "durch" not in kinds
    assert kinds["highest_bid"].holders[0].people == ("C",)


# -- 14.1: the season -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "day", "season", "label"),
    [
        ("01-01", SeasonStart(1, 1), date(2025, 3, 14), date(2025, 1, 1), "2025"),
        ("09-01", SeasonStart(9, 1), date(2025, 3, 14), date(2024, 9, 1), "2024/25"),
        ("1.9.", SeasonStart(9, 1), date(2025, 9, 1), date(2025, 9, 1), "2025/26"),
        ("12-31", SeasonStart(12, 31), date(2025, 12, 30), date(2024, 12, 31), "2024/25"),
    ],
)
def test_the_season_a_day_falls_in(
    text: str, start: SeasonStart, day: date, season: date, label: str
) -> None:
    assert SeasonStart.parse(text) == start
    assert season_of(day, start)[0] == season
    assert season_label(season, start) == label


@pytest.mark.parametrize("text", ["02-29", "13-01", "04-31", "0-1", "Ostern", "09-01-2025"])
def test_a_day_not_every_year_has_is_refused(text: str) -> None:
    with pytest.raises(RulesError):
        SeasonStart.parse(text)


def test_neues_jahr_in_the_last_week_of_december_is_the_next_years() -> None:
    calendar = SeasonStart()
    assert season_started(date(2025, 12, 18), calendar) == date(2026, 1, 1)
    assert next_season(date(2025, 1, 1), date(2025, 7, 1), calendar) == date(2026, 1, 1)
    assert season_over(date(2025, 1, 1), date(2026, 1, 1), calendar)
    assert not season_over(date(2025, 1, 1), date(2025, 12, 31), calendar)


# -- properties: every cent accounted for --------------------------------------------------

NAMES = ("Anna", "Bert", "Carla", "Dieter", "Erna", "Fritz")


@st.composite
def a_match(draw: Any, number: int) -> MatchPlayed:
    seats = tuple(draw(st.permutations(NAMES))[: draw(st.integers(2, 5))])
    totals = tuple(draw(st.integers(-1500, 2500)) for _ in seats)
    top = max(totals)
    finished = draw(st.booleans())
    winners = tuple(p for p, t in enumerate(totals) if t == top) if finished else ()
    return MatchPlayed(number, seats, tuple(range(len(seats))), totals, finished, winners)


@st.composite
def an_evening(draw: Any, number: int, day: date, modes: tuple[str, ...]) -> Evening:
    matches = tuple(draw(a_match(m)) for m in range(1, draw(st.integers(1, 4)) + 1))
    people = {name: name[0] for name in NAMES}
    sat = {people[n] for m in matches for n in m.seats}
    guests = frozenset(p for p in sat if draw(st.booleans()) and p in "EF")
    return Evening(
        number,
        day,
        draw(st.sampled_from(modes)),
        draw(st.integers(0, 200)),
        draw(st.sampled_from(BASES)),
        people,
        guests,
        matches,
    )


@st.composite
def a_year(draw: Any, modes: tuple[str, ...]) -> tuple[list[Evening], list[Payment]]:
    evenings = [
        draw(an_evening(n, date(2025, 1, 2) + timedelta(days=7 * n), modes))
        for n in range(1, draw(st.integers(1, 8)) + 1)
    ]
    payments: list[Payment] = []
    number = 0
    for evening in evenings:
        money = evening_money(evening)
        # some of the night's transfers, some of the dues, paid on the night
        for payer, payee, cents in money.transfers:
            if draw(st.booleans()):
                number += 1
                payments.append(
                    Payment(number, "transfer", evening.day, cents, payer, payee, evening.number)
                )
        for person, cents in money.dues.items():
            if cents and draw(st.booleans()):
                number += 1
                payments.append(
                    Payment(number, "kitty", evening.day, cents, person, None, evening.number)
                )
    # later: part of the year's transfers, a payout the kitty can make
    books = year_ledger([], [evening_money(e) for e in evenings], payments, date(2025, 1, 1))
    end = evenings[-1].day + timedelta(days=1)
    for payer, payee, cents in books.transfers:
        if draw(st.booleans()):
            number += 1
            payments.append(Payment(number, "transfer", end, cents, payer, payee))
    if books.kitty.balance and draw(st.booleans()):
        number += 1
        cents = draw(st.integers(1, books.kitty.balance))
        payments.append(Payment(number, "payout", end, cents, note="Ausflug"))
    return evenings, payments


@given(a_year(("pay", "kitty", "none")))
def test_no_cent_is_lost_or_created_in_an_evening(
    year: tuple[list[Evening], list[Payment]],
) -> None:
    for evening in year[0]:
        check_evening(evening)
        money = evening_money(evening)
        if money.money == "pay":
            assert sum(money.results.values()) == 0
            after = dict(money.results)
            for payer, payee, cents in money.transfers:
                after[payer] += cents
                after[payee] -= cents
            assert not any(after.values())
        for match in money.matches:
            assert sum(line.cents for line in match.lines) == 0
            for line in match.lines:
                if evening.basis in ("full", "started", "per_game") and not line.winner:
                    assert -line.cents == (line.hundreds or 0) * evening.stake_cents
                if evening.basis == "exact" and not line.winner:
                    assert -line.cents == (line.behind * evening.stake_cents + 50) // 100
        if money.money == "kitty":
            losses = sum(-line.cents for m in money.matches for line in m.lines if line.cents < 0)
            assert sum(money.dues.values()) == losses


@pytest.mark.parametrize("modes", [("pay",), ("kitty",), ("pay", "kitty", "none")])
def test_no_cent_is_lost_or_created_over_a_year(modes: tuple[str, ...]) -> None:
    @given(a_year(modes))
    def check(year: tuple[list[Evening], list[Payment]]) -> None:
        evenings, payments = year
        nights = [evening_money(e) for e in evenings]
        books = year_ledger([], nights, payments, date(2025, 1, 1))
        # between people: every open balance explained, all of them adding up to 0
        assert sum(a.open for a in books.accounts) == 0
        for account in books.accounts:
            won = sum(n.results.get(account.person, 0) for n in nights if n.money == "pay")
            out = sum(
                p.cents for p in payments if p.kind == "transfer" and p.payer == account.person
            )
            came = sum(
                p.cents for p in payments if p.kind == "transfer" and p.payee == account.person
            )
            assert account.open == won + out - came
        after = {a.person: a.open for a in books.accounts}
        for payer, payee, cents in books.transfers:
            after[payer] += cents
            after[payee] -= cents
        assert not any(after.values())
        # the kitty: what the evenings cost = what was paid in + what is still owed
        dues = sum(sum(n.dues.values()) for n in nights)
        assert dues == books.kitty.paid_in + books.outstanding
        assert books.kitty.balance == books.kitty.paid_in - books.kitty.paid_out >= 0
        assert sum(cents for _, cents in books.kitty.parts) == books.kitty.paid_in
        if books.kitty.paid_in:
            assert sum(share for _, share in books.kitty.shares) == 1000
        # the ranking's money is the evenings' worth, person by person
        year_money = {line.person: line.money for line in year_ranking(evenings).lines}
        for person, cents in year_money.items():
            assert cents == sum(
                n.won.get(person, 0) for n in nights if not _guest(evenings, n, person)
            )

    check()


def _guest(evenings: list[Evening], night: Any, person: str) -> bool:
    return next(e for e in evenings if e.number == night.number).is_guest(person)


@given(a_year(("pay", "kitty")), st.integers(0, 8))
def test_what_a_year_ends_with_the_next_begins_with(
    year: tuple[list[Evening], list[Payment]], cut: int
) -> None:
    """Split the evenings into two years: the second carries exactly what the first left."""
    evenings, payments = year
    cut = min(cut, len(evenings))
    nights = [evening_money(e) for e in evenings]
    start = evenings[cut].day if cut < len(evenings) else evenings[-1].day + timedelta(days=2)
    first = year_ledger([], nights[:cut], payments, date(2025, 1, 1), start)
    second = year_ledger(nights[:cut], nights[cut:], payments, start)
    whole = year_ledger([], nights, payments, date(2025, 1, 1))
    for account in whole.accounts:
        assert second.account(account.person).open == account.open
        assert second.account(account.person).kitty_open == account.kitty_open
    assert second.kitty.carried == first.kitty.balance
    assert second.kitty.balance == whole.kitty.balance
    for account in first.accounts:
        assert second.account(account.person).carried == account.open


@given(st.lists(st.integers(-5000, 5000), min_size=1, max_size=40))
def test_the_transfers_settle_any_open_balances(amounts: list[int]) -> None:
    balances = {f"P{i:02d}": cents for i, cents in enumerate(amounts)}
    balances["Z"] = -sum(amounts)
    transfers, fewest = settle_open(balances)
    after = dict(balances)
    for payer, payee, cents in transfers:
        assert cents > 0 and after[payer] < 0 < after[payee]
        after[payer] += cents
        after[payee] -= cents
    assert not any(after.values())
    people = sum(1 for c in balances.values() if c)
    assert len(transfers) <= max(0, people - 1)
    assert fewest == (people <= 16)


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=12))
def test_the_parts_add_up_to_the_whole(parts: list[int]) -> None:
    shares = shares_of([(str(i), cents) for i, cents in enumerate(parts)])
    assert sum(s for _, s in shares) == (1000 if sum(parts) else 0)
    whole = sum(parts)
    for (_, share), cents in zip(shares, parts, strict=True):
        assert whole == 0 or abs(share * whole - cents * 1000) < whole


@given(a_year(("pay", "kitty", "none")))
def test_the_evenings_money_is_section_7s(year: tuple[list[Evening], list[Payment]]) -> None:
    for evening in year[0]:
        money = evening_money(evening)
        for match, kept in zip(
            [m for m in evening.matches if m.finished] if money.money != "none" else [],
            money.matches,
            strict=True,
        ):
            totals = {n: match.totals[p] for n, p in zip(match.seats, match.parties, strict=True)}
            winners = [
                n for n, p in zip(match.seats, match.parties, strict=True) if p in match.winners
            ]
            paid = stake_payments(totals, winners, evening.stake_cents, evening.basis)
            assert {evening.person(n): c for n, c in paid.items()} == {
                line.person: line.cents for line in kept.lines
            }


def test_an_evening_that_does_not_fit_together_is_refused() -> None:
    good = example_evenings()[0]
    with pytest.raises(RulesError, match="nobody of this evening"):
        check_evening(
            Evening(1, good.day, "pay", 10, "full", {"Anna": "A"}, frozenset(), good.matches)
        )
    with pytest.raises(RulesError, match="winners"):
        check_evening(
            Evening(
                1,
                good.day,
                "pay",
                10,
                "full",
                PEOPLE,
                frozenset(),
                (MatchPlayed(1, THREE, (0, 1, 2), (1, 2, 3), True, ()),),
            )
        )
    with pytest.raises(RulesError, match="not a kind of payment"):
        year_ledger([], [], [Payment(1, "gift", good.day, 10, "A", "B")], good.day)
    assert check_payout(Kitty(0, 500, 0, (), ()), 500) is None
