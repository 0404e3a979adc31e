"""The tournament's pure part (docs/rules.md section 13.6): tables, draw, ranks, fees, prizes."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from decimal import ROUND_DOWN, Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.rules import RulesError
from scorer.rules.tournament import (
    draw,
    households_apart,
    lost_game_fee,
    met_again,
    plays_round,
    prizes,
    rank,
    repeats,
    table_sizes,
)
from scorer.rules.tournament import place_prizes as rules_place_prizes

Round = Sequence[Sequence[int]]

# -- table_sizes ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "sizes"),
    [
        (3, (3,)),
        (4, (4,)),
        (6, (3, 3)),
        (7, (4, 3)),
        (8, (4, 4)),
        (10, (4, 3, 3)),
        (11, (4, 4, 3)),
        (12, (3, 3, 3, 3)),
    ],
)
def test_table_sizes_examples(players: int, sizes: tuple[int, ...]) -> None:
    assert table_sizes(players) == sizes


@pytest.mark.parametrize("players", [0, 1, 2, 5, -3])
def test_table_sizes_refuses_what_cannot_sit(players: int) -> None:
    with pytest.raises(RulesError) as raised:
        table_sizes(players)
    message = str(raised.value)
    assert str(players) in message
    assert "check in" in message  # says what to do
    if players == 5:
        assert "withdraw one" in message


@pytest.mark.parametrize("players", [True, 3.0, "9", None])
def test_table_sizes_wants_a_number(players: Any) -> None:
    with pytest.raises(RulesError):
        table_sizes(players)


@given(st.integers(min_value=3, max_value=3000).filter(lambda n: n != 5))
def test_table_sizes_seat_everybody_at_fours_then_threes(players: int) -> None:
    sizes = table_sizes(players)
    assert sum(sizes) == players
    assert set(sizes) <= {3, 4}
    assert list(sizes) == sorted(sizes, reverse=True)
    assert sizes.count(4) == players % 3  # as many threes as can be


# -- repeats -------------------------------------------------------------------


def test_repeats_example() -> None:
    assert repeats([(1, 2, 5)], [[(1, 2, 3)], [(1, 2, 4)]]) == 2


def test_repeats_counts_every_pair_and_every_meeting() -> None:
    met = [[(1, 2, 3, 4)], [(1, 2, 5), (3, 4, 6)]]
    assert repeats([(1, 2, 3), (4, 5, 6)], met) == 2 + 1 + 1 + 1
    assert repeats([(7, 8, 9)], met) == 0
    assert repeats([(1, 2, 3)], []) == 0


@pytest.mark.parametrize("met", ["abc", [[("1", 2, 3)]], [[(1, 2, True)]], [5], [[5]]])
def test_repeats_refuses_malformed_rounds(met: Any) -> None:
    with pytest.raises(RulesError):
        repeats([(1, 2, 3)], met)


# -- draw: helpers ---------------------------------------------------------------


def meetings(met: Sequence[Round]) -> Counter[tuple[int, int]]:
    count: Counter[tuple[int, int]] = Counter()
    for earlier in met:
        for table in earlier:
            seated = sorted(table)
            for i, a in enumerate(seated):
                for b in seated[i + 1 :]:
                    count[a, b] += 1
    return count


def best_of_shuffles(players: Sequence[int], met: Sequence[Round], shuffles: int, seed: int) -> int:
    """The old way: shuffle, cut into tables, keep the fewest repeats."""
    count = meetings(met)
    sizes = table_sizes(len(players))
    order = list(players)
    rng = random.Random(seed)
    best = -1
    for _ in range(shuffles):
        rng.shuffle(order)
        total = start = 0
        for size in sizes:
            seated = sorted(order[start : start + size])
            start += size
            for i, a in enumerate(seated):
                for b in seated[i + 1 :]:
                    total += count[a, b]
        if best < 0 or total < best:
            best = total
            if best == 0:
                break
    return best


def series(players: int, rounds: int, seed: str) -> list[tuple[tuple[int, ...], ...]]:
    """Round after round, each draw fed the rounds before it."""
    met: list[tuple[tuple[int, ...], ...]] = []
    for number in range(rounds):
        met.append(draw(range(1, players + 1), met, seed=f"{seed} {number}"))
    return met


def check_seating(tables: Sequence[Sequence[int]], players: Sequence[int]) -> None:
    assert tuple(len(table) for table in tables) == table_sizes(len(players))
    seated = [p for table in tables for p in table]
    assert sorted(seated) == sorted(players)


def random_rounds(players: Sequence[int], rounds: int, rng: random.Random) -> list[Round]:
    met: list[Round] = []
    for _ in range(rounds):
        order = list(players)
        rng.shuffle(order)
        tables = []
        start = 0
        for size in table_sizes(len(order)):
            tables.append(tuple(order[start : start + size]))
            start += size
        met.append(tables)
    return met


# -- draw: the contract ------------------------------------------------------------


def test_draw_is_a_tuple_of_tuples_in_table_sizes_order() -> None:
    tables = draw(range(1, 11), seed="x")
    assert isinstance(tables, tuple)
    assert all(isinstance(table, tuple) for table in tables)
    check_seating(tables, range(1, 11))


@settings(max_examples=40, deadline=None)
@given(
    players=st.lists(st.integers(1, 500), min_size=3, max_size=70, unique=True).filter(
        lambda ps: len(ps) != 5
    ),
    rounds=st.integers(0, 4),
    seed=st.text(max_size=12),
    shuffle_seed=st.integers(0, 1000),
)
def test_draw_seats_everybody_once_and_is_deterministic(
    players: list[int], rounds: int, seed: str, shuffle_seed: int
) -> None:
    met = random_rounds(players, rounds, random.Random(shuffle_seed))
    tables = draw(players, met, seed=seed)
    check_seating(tables, players)
    assert draw(players, met, seed=seed) == tables
    # the order in which the players are passed does not matter
    assert draw(sorted(players, reverse=True), met, seed=seed) == tables


def test_draw_depends_on_the_seed() -> None:
    outcomes = {draw(range(1, 31), seed=f"Runde {n}") for n in range(5)}
    assert len(outcomes) > 1


def test_draw_passes_over_players_who_left_and_seats_late_arrivals() -> None:
    met = series(12, 2, "left")
    players = [*range(2, 12), 20, 21]  # 1 and 12 left, 20 and 21 came
    tables = draw(players, met, seed="third")
    check_seating(tables, players)
    assert repeats(tables, met) == 0


@settings(max_examples=30, deadline=None)
@given(
    players=st.integers(6, 45).filter(lambda n: n != 5),
    pairs=st.integers(1, 20),
    rounds=st.integers(0, 3),
    seed=st.text(max_size=8),
)
def test_draw_never_seats_an_apart_pair_together(
    players: int, pairs: int, rounds: int, seed: str
) -> None:
    rng = random.Random(f"{players} {pairs} {seed}")
    numbers = list(range(1, players + 1))
    rng.shuffle(numbers)
    # a household is a pair; disjoint pairs can always sit apart at two or more tables
    apart = [(numbers[2 * k], numbers[2 * k + 1]) for k in range(min(pairs, players // 2))]
    met = random_rounds(range(1, players + 1), rounds, rng)
    tables = draw(range(1, players + 1), met, seed=seed, apart=apart)
    for a, b in apart:
        assert not any(a in table and b in table for table in tables)


def test_apart_goes_before_repeats() -> None:
    met = [[(1, 2, 3), (4, 5, 6)]]
    # 1 and 2 apart from 4, 5 and 6: only the first round's tables keep them apart
    apart = [(a, b) for a in (1, 2) for b in (4, 5, 6)]
    tables = draw(range(1, 7), met, seed="a", apart=apart)
    assert sorted(sorted(table) for table in tables) == [[1, 2, 3], [4, 5, 6]]


def test_draw_seats_an_apart_pair_that_cannot_be_kept_apart() -> None:
    tables = draw([1, 2, 3, 4], seed="a", apart=[(1, 2)])
    check_seating(tables, [1, 2, 3, 4])


@pytest.mark.parametrize("players", [9, *range(12, 41)])
def test_three_rounds_without_a_repeated_pair(players: int) -> None:
    for seed in ("Turnier", "Cup"):
        met = series(players, 3, f"{seed} {players}")
        for number, tables in enumerate(met):
            check_seating(tables, range(1, players + 1))
            assert repeats(tables, met[:number]) == 0


@pytest.mark.parametrize("players", [27, 28, 30])
def test_a_series_of_nine_rounds_without_a_repeated_pair(players: int) -> None:
    for seed in range(4):
        met = series(players, 9, f"Cup {seed}")
        for number, tables in enumerate(met):
            assert repeats(tables, met[:number]) == 0


@pytest.mark.parametrize(
    ("players", "rounds"),
    [(11, 5), (13, 4), (16, 6), (25, 10)],
)
def test_no_more_repeats_than_the_best_of_ten_thousand_shuffles(players: int, rounds: int) -> None:
    numbers = range(1, players + 1)
    met: list[Round] = list(random_rounds(numbers, rounds, random.Random(players)))
    tables = draw(numbers, met, seed="shuffles")
    assert repeats(tables, met) <= best_of_shuffles(numbers, met, 10_000, seed=players)


@settings(max_examples=25, deadline=None)
@given(
    players=st.integers(6, 40).filter(lambda n: n != 5),
    rounds=st.integers(1, 8),
    seed=st.integers(0, 10_000),
)
def test_no_more_repeats_than_the_best_of_some_shuffles(
    players: int, rounds: int, seed: int
) -> None:
    numbers = range(1, players + 1)
    met = random_rounds(numbers, rounds, random.Random(seed))
    tables = draw(numbers, met, seed=str(seed))
    assert repeats(tables, met) <= best_of_shuffles(numbers, met, 300, seed=seed)


def four_counts(met: Sequence[Round]) -> Counter[int]:
    counts: Counter[int] = Counter()
    for earlier in met:
        for table in earlier:
            if len(table) == 4:
                counts.update(table)
    return counts


def check_four_fairness(tables: Sequence[Sequence[int]], before: Counter[int]) -> None:
    at_four = [p for table in tables if len(table) == 4 for p in table]
    at_three = [p for table in tables if len(table) == 3 for p in table]
    if at_four and at_three:
        assert max(before[p] for p in at_four) <= min(before[p] for p in at_three)


# With 13, 14 or 19 players a table of four without a repeated pair cannot always
# be found among those who had none (13, round 2: the nine at tables of three sat
# at three tables, and four of them always include two who met); repeats go first.
# 23 players: in round 6 of the draws of "fours 23 …" the six who sat at a table of
# four once cannot all sit at the two tables of four without two who met (tried one
# by one).  Fields up to 15 players: test_tournament_draw_optimum.py, against every
# seating.
@pytest.mark.parametrize("players", [31, 40, 61])
def test_nobody_sits_at_a_table_of_four_again_while_another_has_not(players: int) -> None:
    met = series(players, 6, f"fours {players}")
    for number, tables in enumerate(met):
        assert repeats(tables, met[:number]) == 0
        check_four_fairness(tables, four_counts(met[:number]))


@settings(max_examples=25, deadline=None)
@given(
    counts=st.lists(st.integers(0, 3), min_size=6, max_size=50).filter(lambda c: len(c) != 5),
    seed=st.text(max_size=8),
)
def test_four_fairness_when_no_pair_stands_in_the_way(counts: list[int], seed: str) -> None:
    # earlier evenings at tables of four with players who are gone: no pair met
    gone = iter(range(1000, 100_000))
    met = [
        [(player, next(gone), next(gone), next(gone))]
        for player, count in enumerate(counts, start=1)
        for _ in range(count)
    ]
    players = range(1, len(counts) + 1)
    tables = draw(players, met, seed=seed)
    assert repeats(tables, met) == 0
    check_four_fairness(tables, four_counts(met))


def test_tables_of_four_go_to_those_who_had_none() -> None:
    # 1-8 sat at tables of four on an earlier evening, with players who are gone;
    # of 14 players, 8 sit at two tables of four
    met = [[(p, 100 * p, 100 * p + 1, 100 * p + 2) for p in range(1, 9)]]
    tables = draw(range(1, 15), met, seed="fours")
    assert repeats(tables, met) == 0
    at_four = {p for table in tables if len(table) == 4 for p in table}
    assert at_four >= set(range(9, 15))
    met = [[(1, 2, 3, 4), (5, 6, 7), (8, 9, 10)]]
    for seed in ("a", "b", "c"):
        tables = draw(range(1, 14), met, seed=seed)
        assert repeats(tables, met) == 0
        # the table of four needs four who have not met: one from each earlier table
        assert len({p for p in tables[0] if p <= 4}) == 1


@settings(max_examples=15, deadline=None)
@given(players=st.integers(6, 40).filter(lambda n: n != 5), seed=st.text(max_size=8))
def test_the_schreiber_is_who_has_written_least_at_the_table(players: int, seed: str) -> None:
    met = series(players, 4, seed)
    for number, tables in enumerate(met):
        written = Counter(table[0] for earlier in met[:number] for table in earlier)
        for table in tables:
            assert written[table[0]] == min(written[p] for p in table)


def test_the_schreiber_goes_round_a_table_of_three() -> None:
    met: list[Round] = []
    for number in range(3):
        met.append(draw([1, 2, 3], met, seed=str(number)))
    assert sorted(tables[0][0] for tables in met) == [1, 2, 3]


def test_draw_of_200_players_after_nine_rounds() -> None:
    met = series(200, 9, "Landesmeisterschaft")
    tables = draw(range(1, 201), met, seed="Runde 10")
    check_seating(tables, range(1, 201))
    assert repeats(tables, met) == 0


@pytest.mark.parametrize(
    ("players", "kwargs", "needle"),
    [
        ([1, 2, 3, 4, 5], {}, "5 players"),
        ([1, 2], {}, "at least 3"),
        ([], {}, "at least 3"),
        ([1, 2, 2, 3], {}, "start number 2"),
        ([1, 2, True], {}, "'True'"),
        ("123", {}, "list of start numbers"),
        ([1, 2, 3], {"seed": 7}, "seed"),
        ([1, 2, 3], {"apart": [(1, 2, 3)]}, "pair"),
        ([1, 2, 3], {"met": [[(1, "2")]]}, "earlier round 1"),
    ],
)
def test_draw_refuses(players: Any, kwargs: dict[str, Any], needle: str) -> None:
    arguments: dict[str, Any] = {"seed": "s", **kwargs}
    met = arguments.pop("met", ())
    with pytest.raises(RulesError) as raised:
        draw(players, met, **arguments)
    assert needle in str(raised.value)


# -- rank ------------------------------------------------------------------------


def test_rank_example() -> None:
    assert rank({"a": 300, "b": 300, "c": 200}) == {"a": 1, "b": 1, "c": 3}


def test_rank_of_nobody() -> None:
    assert rank({}) == {}


@given(st.dictionaries(st.integers(1, 600), st.integers(-500, 3000), max_size=60))
def test_rank_ties_share_a_place_and_the_next_place_skips(points: dict[int, int]) -> None:
    places = rank(points)
    assert places.keys() == points.keys()
    for player, place in places.items():
        assert place == 1 + sum(1 for other in points.values() if other > points[player])


@pytest.mark.parametrize("points", [{"a": 1.5}, {"a": "300"}, {"a": True}, [("a", 3)]])
def test_rank_refuses_what_is_not_points(points: Any) -> None:
    with pytest.raises(RulesError):
        rank(points)


# -- lost_game_fee ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("lost", "schedule", "fee"),
    [
        (4, "0.50; 1.00 from 5", "2.00"),
        (6, "0.50; 1.00 from 5", "4.00"),
        (3, "1.00", "3.00"),
        (0, "0.50; 1.00 from 5", "0.00"),
        (5, "0.50; 1.00 from 5", "3.00"),
        (10, "0.50; 1.00 from 5; 2 from 8", "2.00 + 3.00 + 6.00"),
        (7, "0,50; 1,00 ab 5", "2.00 + 3.00"),
        (4, "€0.50", "2.00"),
        (4, "1 from 3", "2.00"),
        (2, "0", "0.00"),
    ],
)
def test_lost_game_fee_examples(lost: int, schedule: str, fee: str) -> None:
    expected = sum((Decimal(part) for part in fee.split(" + ")), Decimal(0))
    result = lost_game_fee(lost, schedule)
    assert result == expected
    assert result.as_tuple().exponent == -2  # to the cent


@pytest.mark.parametrize(
    "schedule",
    [
        "",
        "fifty cents",
        "0.50;",
        "1.00 from 5; 0.50",
        "0.50; 1.00 from 5; 2.00 from 3",
        "-1",
        "0.505",
        "0.50; 1.00 from 0",
        "0.50, 1.00 from 5",
    ],
)
def test_lost_game_fee_names_a_malformed_schedule(schedule: str) -> None:
    with pytest.raises(RulesError) as raised:
        lost_game_fee(3, schedule)
    assert f"'{schedule}'" in str(raised.value)
    assert "e.g." in str(raised.value)  # says how to write one


@pytest.mark.parametrize("lost", [-1, 1.5, True])
def test_lost_game_fee_wants_a_count(lost: Any) -> None:
    with pytest.raises(RulesError):
        lost_game_fee(lost, "0.50")


@given(st.integers(0, 60), st.integers(0, 60))
def test_lost_game_fee_grows_with_the_games(fewer: int, more: int) -> None:
    fewer, more = sorted((fewer, more))
    schedule = "0.50; 1.00 from 5; 2.50 from 9"
    assert lost_game_fee(fewer, schedule) <= lost_game_fee(more, schedule)


# -- prizes ------------------------------------------------------------------------

SHARES = [Decimal("0.30"), Decimal("0.20"), Decimal("0.15")]


def test_prizes_example() -> None:
    assert prizes(Decimal("100"), SHARES, {"a": 1, "b": 2, "c": 2, "d": 2}) == {
        "a": Decimal("30.00"),
        "b": Decimal("11.67"),
        "c": Decimal("11.67"),
        "d": Decimal("11.66"),
    }


def test_prizes_hand_out_the_shares_to_the_cent_and_skip_those_beyond_them() -> None:
    """65 % of 99.99 € is 64.99 € (64.9935 rounded down): 29.99 + 19.99 + 14.99 = 64.97,
    the two cents left go to the places that lost the most of a cent, the better first."""
    result = prizes(Decimal("99.99"), SHARES, {"a": 1, "b": 2, "c": 3, "d": 4})
    assert result == {"a": Decimal("30.00"), "b": Decimal("20.00"), "c": Decimal("14.99")}


@pytest.mark.parametrize(
    ("shares", "needle"),
    [
        ([Decimal("0.60"), Decimal("0.41")], "more than the whole fund"),
        ([Decimal("0.30"), Decimal("-0.10")], "negative"),
        ([0.3], "Decimal"),
        ("0.3", "list"),
    ],
)
def test_prizes_refuse_impossible_shares(shares: Any, needle: str) -> None:
    with pytest.raises(RulesError) as raised:
        prizes(Decimal("100"), shares, {"a": 1})
    assert needle in str(raised.value)


@pytest.mark.parametrize(
    ("fund", "places"),
    [
        (Decimal("-1"), {"a": 1}),
        (Decimal("NaN"), {"a": 1}),
        (Decimal("100"), {"a": 0}),
        (Decimal("100"), {"a": 1, "b": 1, "c": 2}),  # c's place is taken
    ],
)
def test_prizes_refuse_bad_funds_and_places(fund: Decimal, places: dict[str, int]) -> None:
    with pytest.raises(RulesError):
        prizes(fund, SHARES, places)


@st.composite
def shares_strategy(draw_: st.DrawFn) -> list[Decimal]:
    percents = draw_(st.lists(st.integers(0, 40), max_size=8))
    while sum(percents) > 100:
        percents.pop()
    return [Decimal(p) / 100 for p in percents]


@settings(max_examples=200)
@given(
    fund=st.integers(0, 500_000).map(lambda cents: Decimal(cents) / 100),
    shares=shares_strategy(),
    points=st.lists(st.integers(0, 6), max_size=15),
)
def test_prizes_neither_lose_nor_create_money(
    fund: Decimal, shares: list[Decimal], points: list[int]
) -> None:
    places = rank({f"p{i}": p for i, p in enumerate(points)})
    result = prizes(fund, shares, places)
    # each place its exact share rounded down or up, together the fund times the shares
    # rounded down (the whole fund when the shares make 100 %)
    place_prizes = rules_place_prizes(fund, shares)
    for prize, share in zip(place_prizes, shares, strict=True):
        assert abs(prize - fund * share) < Decimal("0.01")
    assert sum(place_prizes, Decimal(0)) == (fund * sum(shares, Decimal(0))).quantize(
        Decimal("0.01"), rounding=ROUND_DOWN
    )
    groups: dict[int, list[str]] = {}
    for player, place in places.items():
        groups.setdefault(place, []).append(player)
    reached = set()
    for place, tied in groups.items():
        occupied = range(place, place + len(tied))
        reached.update(p for p in occupied if p <= len(shares))
        if place > len(shares):
            assert not set(tied) & result.keys()  # beyond the last share: no entry
        else:
            assert set(tied) <= result.keys()
            amounts = [result[player] for player in tied]
            assert max(amounts) - min(amounts) <= Decimal("0.01")
            assert amounts == sorted(amounts, reverse=True)  # the extra cents go first
    assert sum(result.values(), Decimal(0)) == sum(
        (place_prizes[p - 1] for p in reached), Decimal(0)
    )
    assert sum(result.values(), Decimal(0)) <= fund
    assert all(amount.as_tuple().exponent == -2 for amount in result.values())


# -- who plays a round, who sits apart, what the draw achieved (section 13) ------------


@pytest.mark.parametrize(
    ("start", "first", "withdrawn", "plays"),
    [
        (1, 1, None, (True, True, True)),  # here from the start
        (8, 2, None, (False, True, True)),  # late: checked in before round 2
        (3, 1, 3, (True, True, False)),  # left after round 2
        (None, None, None, (False, False, False)),  # registered, never came
    ],
)
def test_who_plays_which_round(
    start: int | None, first: int | None, withdrawn: int | None, plays: tuple[bool, ...]
) -> None:
    got = tuple(
        plays_round(n, start_number=start, from_round=first, withdrawn_before=withdrawn)
        for n in (1, 2, 3)
    )
    assert got == plays


def test_one_household_is_one_word_case_aside() -> None:
    households = {1: "Maier, Hauptstr. 3", 2: "maier, hauptstr. 3", 3: "", 4: "Huber", 5: None}
    assert households_apart(households) == [(1, 2)]
    # and the draw keeps them apart over a night of three rounds
    met: list[Round] = []
    for number in (1, 2, 3):
        tables = draw(range(1, 10), met, seed=f"house-{number}", apart=households_apart(
            {n: "Familie Berger" if n in (4, 7, 9) else "" for n in range(1, 10)}
        ))  # fmt: skip
        assert all(len({4, 7, 9} & set(table)) <= 1 for table in tables)
        met.append(tables)


@given(st.dictionaries(st.integers(1, 60), st.sampled_from(["", "A", "a", "B", None])))
def test_households_apart_are_exactly_the_pairs_of_one_household(
    households: dict[int, str | None],
) -> None:
    def key(number: int) -> str:
        return (households[number] or "").casefold()

    pairs = households_apart(households)
    assert all(a != b and key(a) and key(a) == key(b) for a, b in pairs)
    unordered = {frozenset(pair) for pair in pairs}
    assert len(unordered) == len(pairs)  # each pair once
    for a in households:
        for b in households:
            if a < b and key(a) and key(a) == key(b):
                assert frozenset((a, b)) in unordered


def test_pairs_meet_again_only_after_a_table_came_before() -> None:
    first = draw(range(1, 10), [], seed="s")
    assert met_again(first, []) is None
    second = draw(range(1, 10), [first], seed="s-2")
    assert met_again(second, [first]) == repeats(second, [first]) == 0
    assert met_again(first, [first]) == 9  # three tables of three: three pairs each
