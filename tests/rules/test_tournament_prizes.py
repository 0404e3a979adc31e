"""The prize fund and the prizes (docs/rules.md sections 13 and 13.6): shares as typed,
the fund, who picks an item when, the joke prize, and :func:`prizes` checked by hand and by
hypothesis (nothing lost or created; shares of 100 % hand out the whole fund, ties or not;
tied players differ by a cent at most)."""

from __future__ import annotations

from collections import Counter
from decimal import ROUND_DOWN, Decimal
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import RulesError
from scorer.rules.tournament import (
    MAX_SHARES,
    check_shares,
    item_prizes,
    last_place,
    lost_game_fee,
    pick_order,
    place_prizes,
    prize_fund,
    prize_shares,
    prizes,
    rank,
    round_fees,
)

D = Decimal

# -- the schedule, by hand (the brief's example) ---------------------------------------------


@pytest.mark.parametrize(("lost", "fee"), [(0, "0.00"), (4, "2.00"), (5, "3.00"), (6, "4.00")])
def test_the_lost_game_schedule_by_hand(lost: int, fee: str) -> None:
    assert lost_game_fee(lost, "0.50; 1.00 from 5") == D(fee)


def test_a_round_adds_what_its_lost_games_cost_on_top_of_the_rounds_before() -> None:
    # 2 + 2 = 4 lost games: 1.00 + 1.00; 3 + 3 = 6: 1.50, then 0.50 + 1.00 + 1.00
    assert round_fees([2, 2], "0.50; 1.00 from 5") == (D("1.00"), D("1.00"))
    assert round_fees([3, 3], "0.50; 1.00 from 5") == (D("1.50"), D("2.50"))
    assert round_fees([None, 5], "0.50; 1.00 from 5") == (None, D("3.00"))
    assert round_fees([], "1.00") == ()
    with pytest.raises(RulesError):
        round_fees("3", "1.00")  # type: ignore[arg-type]


@given(
    lost=st.lists(st.one_of(st.none(), st.integers(0, 16)), max_size=6),
    schedule=st.sampled_from(["0.50; 1.00 from 5", "1.00", "0; 0.20 from 3; 2,00 ab 10", "0"]),
)
def test_the_rounds_fees_add_up_to_the_evenings(lost: list[int | None], schedule: str) -> None:
    fees = round_fees(lost, schedule)
    assert [f is None for f in fees] == [n is None for n in lost]
    total = sum(n for n in lost if n is not None)
    assert sum((f for f in fees if f is not None), D(0)) == lost_game_fee(total, schedule)
    assert all(f >= 0 for f in fees if f is not None)


# -- shares as the organiser types them ------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "shares"),
    [
        ("30, 20, 15, 10", ("0.3", "0.2", "0.15", "0.1")),
        ("30; 20; 15; 10", ("0.3", "0.2", "0.15", "0.1")),
        ("30 20 15 10", ("0.3", "0.2", "0.15", "0.1")),
        ("30,20,15,10", ("0.3", "0.2", "0.15", "0.1")),
        ("30 %, 20 %, 12,5 %", ("0.3", "0.2", "0.125")),
        ("33.34; 33,33; 33.33", ("0.3334", "0.3333", "0.3333")),
        ("100", ("1",)),
        ("12,5", ("0.125",)),
        ("  ", ()),
        ("", ()),
        ("0, 0", ("0", "0")),
    ],
)
def test_shares_are_read_as_typed(typed: str, shares: tuple[str, ...]) -> None:
    assert prize_shares(typed) == tuple(D(s) for s in shares)


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("60, 50", "add up to 110 %"),
        ("50, 30, 20.01", "add up to 100.01 %"),
        ("-10, 20", "cannot be negative"),
        ("30, −5", "cannot be negative"),
        ("abc", "'abc' is not a share"),
        ("30, 20x", "'20x' is not a share"),
        ("12.345", "is not a share"),
        ("1e3", "is not a share"),
        ("nan", "is not a share"),
        ("10" + "0" * 309, "at most 100 %, not 100000000000… %"),
        ("150", "at most 100 %, not 150 %"),
        (", ".join(["1"] * (MAX_SHARES + 1)), f"at most {MAX_SHARES} places"),
        ("٣٠", "is not a share"),
    ],
)
def test_bad_shares_are_refused_saying_why(typed: str, says: str) -> None:
    with pytest.raises(RulesError) as refused:
        prize_shares(typed)
    assert says in str(refused.value)


def test_shares_that_are_not_text_are_refused() -> None:
    with pytest.raises(RulesError):
        prize_shares(30)  # type: ignore[arg-type]


# -- the fund -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("takings", "keep", "share", "fund"),
    [
        ("423.50", "0.10", True, "381.15"),
        ("423.50", "0", True, "423.50"),
        ("423.50", "1", True, "0.00"),
        ("9.99", "0.10", True, "8.99"),  # 8.991 down to the cent
        ("300", "50", False, "250.00"),
        ("30", "50", False, "0.00"),
        ("0", "0", False, "0.00"),
    ],
)
def test_the_fund_is_the_takings_less_what_is_kept(
    takings: str, keep: str, share: bool, fund: str
) -> None:
    assert prize_fund(D(takings), D(keep), share=share) == D(fund)


@pytest.mark.parametrize(
    ("takings", "keep", "share"),
    [("-1", "0", False), ("10", "-1", False), ("10", "1.5", True), ("NaN", "0", False)],
)
def test_an_impossible_fund_is_refused(takings: str, keep: str, share: bool) -> None:
    with pytest.raises(RulesError):
        prize_fund(D(takings), D(keep), share=share)


# -- the prizes, by hand --------------------------------------------------------------------------


def test_a_three_way_tie_for_second_shares_places_2_to_4() -> None:
    shares = prize_shares("30, 20, 15, 10")
    places = rank({"a": 500, "b": 300, "c": 300, "d": 300, "e": 100})
    assert places == {"a": 1, "b": 2, "c": 2, "d": 2, "e": 5}
    # 100 €: place 1 30.00; places 2-4: 20.00 + 15.00 + 10.00 = 45.00 → 15.00 each
    assert prizes(D("100"), shares, places) == {
        "a": D("30.00"),
        "b": D("15.00"),
        "c": D("15.00"),
        "d": D("15.00"),
    }
    # 233.33 €, 75 % handed out: 174.9975 → 174.99; each place rounded down: 69.99 (69.999),
    # 46.66 (46.666), 34.99 (34.9995), 23.33 (23.333) = 174.97; the two cents left go to the
    # better places that were rounded down: 70.00, 46.67.  Places 2-4: 46.67 + 34.99 + 23.33
    # = 104.99 → 34.99 each and two cents over, for the first of them (b, c)
    assert place_prizes(D("233.33"), shares) == [D("70.00"), D("46.67"), D("34.99"), D("23.33")]
    got = prizes(D("233.33"), shares, places)
    assert got == {"a": D("70.00"), "b": D("35.00"), "c": D("35.00"), "d": D("34.99")}
    assert sum(got.values()) == sum(place_prizes(D("233.33"), shares)) == D("174.99")


def test_shares_of_100_percent_hand_out_the_whole_fund() -> None:
    # the organiser's evening (issue 30): 275.85 € at 50/30/20 paid out 275.84 €, a cent in
    # the till; 137.925 and 82.755 both lose half a cent, and the cent goes to place 1
    shares = prize_shares("50, 30, 20")
    assert place_prizes(D("275.85"), shares) == [D("137.93"), D("82.75"), D("55.17")]
    got = prizes(D("275.85"), shares, {"a": 1, "b": 2, "c": 3, "d": 4})
    assert got == {"a": D("137.93"), "b": D("82.75"), "c": D("55.17")}
    assert sum(got.values()) == D("275.85")
    # two tied first share places 1 and 2: 220.68 → 110.34 each
    tied = prizes(D("275.85"), shares, {"a": 1, "b": 1, "c": 3})
    assert tied == {"a": D("110.34"), "b": D("110.34"), "c": D("55.17")}
    assert sum(tied.values()) == D("275.85")


@pytest.mark.parametrize(
    ("fund", "typed", "each"),
    [
        # thirds: 33.333… each, the cent left to place 1
        ("100", "33.34, 33.33, 33.33", ("33.34", "33.33", "33.33")),
        ("0.01", "50, 50", ("0.01", "0.00")),
        ("0.03", "50, 50", ("0.02", "0.01")),
        ("10.01", "25, 25, 25, 25", ("2.51", "2.50", "2.50", "2.50")),
        ("10.03", "25, 25, 25, 25", ("2.51", "2.51", "2.51", "2.50")),
        # a place with a share of 0 never gets a cent of the rounding
        ("0.05", "0, 50, 50", ("0.00", "0.03", "0.02")),
        # under 100 %: the fund times the shares, rounded down, is handed out
        ("100.03", "50, 30, 20", ("50.02", "30.01", "20.00")),
        ("99.99", "30, 20", ("30.00", "19.99")),
        ("0", "50, 30, 20", ("0.00", "0.00", "0.00")),
    ],
)
def test_the_cents_of_the_rounding_go_to_the_better_places(
    fund: str, typed: str, each: tuple[str, ...]
) -> None:
    assert place_prizes(D(fund), prize_shares(typed)) == [D(p) for p in each]


def test_a_fund_splits_into_cents_without_losing_one() -> None:
    # 100.03 €, 50/30/20: 50.015, 30.009, 20.006 down to 50.01, 30.00, 20.00 = 100.01; the two
    # cents left go to places 1 and 2; three tied first: 100.03 → 33.35, 33.34, 33.34
    shares = prize_shares("50, 30, 20")
    assert place_prizes(D("100.03"), shares) == [D("50.02"), D("30.01"), D("20.00")]
    got = prizes(D("100.03"), shares, {"a": 1, "b": 1, "c": 1})
    assert list(got.values()) == [D("33.35"), D("33.34"), D("33.34")]
    assert sum(got.values()) == D("100.03")


# -- the items and the joke prize ------------------------------------------------------------------


def test_items_are_picked_in_ranking_order_ties_in_the_given_order() -> None:
    places = {"Bertl": 2, "Anna": 1, "Christa": 2, "Done": 4, "Egon": 5}
    assert pick_order(places) == ["Anna", "Bertl", "Christa", "Done", "Egon"]
    assert item_prizes(["Schinken", "Wein"], places) == {"Anna": "Schinken", "Bertl": "Wein"}
    assert item_prizes([], places) == {}
    many = item_prizes([f"Preis {n}" for n in range(1, 9)], places)
    assert list(many.values()) == ["Preis 1", "Preis 2", "Preis 3", "Preis 4", "Preis 5"]


@pytest.mark.parametrize("places", [{"a": 0}, {"a": True}, {"a": "1"}])
def test_a_bad_place_is_refused(places: dict[str, object]) -> None:
    with pytest.raises(RulesError):
        pick_order(places)  # type: ignore[arg-type]


def test_item_prizes_want_a_list() -> None:
    with pytest.raises(RulesError):
        item_prizes("Schinken", {"a": 1})


def test_the_last_place_may_be_shared() -> None:
    assert last_place({"a": 1, "b": 2, "c": 2}) == ["b", "c"]
    assert last_place({"a": 1}) == ["a"]
    assert last_place({}) == []


# -- hypothesis: nothing lost or created, tied players a cent apart at most ------------------------

cents = st.integers(min_value=0, max_value=10**9).map(lambda c: D(c) / 100)
percents = st.lists(st.integers(min_value=0, max_value=10_000), max_size=12).filter(
    lambda bps: sum(bps) <= 10_000
)
points = st.lists(st.integers(min_value=-500, max_value=2000), min_size=1, max_size=40)


@given(fund=cents, bps=percents, scores=points)
def test_the_prizes_add_up_to_the_prizes_of_the_places_reached(
    fund: Decimal, bps: list[int], scores: list[int]
) -> None:
    shares = [D(bp) / 10_000 for bp in bps]
    places = rank(dict(enumerate(scores)))
    got = prizes(fund, shares, places)
    each = place_prizes(fund, shares)
    occupied = Counter(places.values())
    reached = [
        each[p - 1]
        for place, count in occupied.items()
        for p in range(place, place + count)
        if p <= len(each)
    ]
    assert sum(got.values(), D(0)) == sum(reached, D(0))
    assert all(v == v.quantize(D("0.01")) and v >= 0 for v in got.values())
    assert sum(got.values(), D(0)) <= fund


# shares adding up to 100 %: the gaps between cuts of 0 … 10,000 hundredths of a per cent
whole = (
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=11)
    .map(lambda cuts: [0, *sorted(cuts), 10_000])
    .map(lambda marks: [b - a for a, b in pairwise(marks)])
)


@given(fund=cents, bps=whole, scores=points)
def test_shares_of_100_percent_hand_out_the_whole_fund_whatever_the_ties(
    fund: Decimal, bps: list[int], scores: list[int]
) -> None:
    shares = [D(bp) / 10_000 for bp in bps]
    assert sum(shares) == 1
    # at least as many players as shares: every place is reached (ties or not)
    players = scores + [min(scores) - 1 - k for k in range(max(0, len(shares) - len(scores)))]
    got = prizes(fund, shares, rank(dict(enumerate(players))))
    assert sum(got.values(), D(0)) == fund
    assert sum(place_prizes(fund, shares), D(0)) == fund


@given(fund=cents, bps=percents)
def test_each_place_gets_its_share_rounded_down_or_up_the_better_places_up_first(
    fund: Decimal, bps: list[int]
) -> None:
    shares = [D(bp) / 10_000 for bp in bps]
    each = place_prizes(fund, shares)
    exact = [fund * share for share in shares]
    down = [value.quantize(D("0.01"), rounding=ROUND_DOWN) for value in exact]
    # the whole handed out: the fund times the shares, rounded down to the cent
    assert sum(each, D(0)) == (fund * sum(shares, D(0))).quantize(D("0.01"), rounding=ROUND_DOWN)
    assert all(p - d in (0, D("0.01")) for p, d in zip(each, down, strict=True))
    # a place that had nothing to round gets no extra cent
    assert all(p == d for p, d, e in zip(each, down, exact, strict=True) if d == e)
    # of the places rounded down, those that got the extra cent come first
    rounded = [p - d for p, d, e in zip(each, down, exact, strict=True) if d != e]
    assert rounded == sorted(rounded, reverse=True)


@given(fund=cents, bps=percents, scores=points)
def test_tied_players_differ_by_a_cent_at_most(
    fund: Decimal, bps: list[int], scores: list[int]
) -> None:
    shares = [D(bp) / 10_000 for bp in bps]
    places = rank(dict(enumerate(scores)))
    got = prizes(fund, shares, places)
    by_place: dict[int, list[Decimal]] = {}
    for player, prize in got.items():
        by_place.setdefault(places[player], []).append(prize)
    for prizes_of_place in by_place.values():
        assert max(prizes_of_place) - min(prizes_of_place) <= D("0.01")
    # a place within the shares: every player of it has a prize (maybe 0.00)
    for player, place in places.items():
        assert (player in got) == (place <= len(shares))


@given(text=st.text(max_size=60))
def test_any_typed_shares_are_read_or_refused(text: str) -> None:
    try:
        shares = prize_shares(text)
    except RulesError:
        return
    assert sum(shares, D(0)) <= 1
    assert all(0 <= s <= 1 for s in shares)
    # what was read is what the tournament keeps, and prizes a fund without complaint
    assert check_shares(shares) == shares
    prizes(D("100"), shares, {"a": 1})


@pytest.mark.parametrize(
    ("shares", "says"),
    [
        ([D("0.30"), D("0.20"), D("0.15")], None),
        ([D("0.125"), D("0.0001")], None),  # 12.5 % and 0.01 %: two decimals of a per cent
        ([D("0.12345")], "a share is a per cent with at most two decimals"),
        ([D("-0.1")], "a share cannot be negative"),
        ([D("1.5")], "a share is at most 100 %, not 150 %"),
        ([D("NaN")], "'NaN' is not a share"),
        ([D("0.6"), D("0.41")], "the shares add up to 101 %, more than the whole fund"),
        ([D("0.01")] * (MAX_SHARES + 1), "at most 100 places share the prize fund"),
        ("30, 20", "the shares must be a list of fractions of the fund"),
    ],
)
def test_shares_as_the_organiser_may_set_them(shares: object, says: str | None) -> None:
    if says is None:
        assert check_shares(shares) == tuple(shares)  # type: ignore[arg-type]
        return
    with pytest.raises(RulesError) as refused:
        check_shares(shares)  # type: ignore[arg-type]
    assert says in str(refused.value)


@given(bps=percents)
def test_shares_kept_in_hundredths_of_a_per_cent_pass_as_they_are(bps: list[int]) -> None:
    shares = tuple(D(bp) / 10_000 for bp in bps)
    assert check_shares(shares) == shares
    assert [int(share * 10_000) for share in check_shares(shares)] == bps
