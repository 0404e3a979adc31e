"""Stakes and the session: docs/rules.md section 7."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import RulesError, minimal_transfers, stake_payments

THREE = {"Anna": 1040, "Berta": 780, "Carl": 310}

STAKES: list[Any] = [
    pytest.param(
        THREE, ["Anna"], 50, "full", {"Anna": 450, "Berta": -100, "Carl": -350}, id="full-hundreds"
    ),
    pytest.param(
        THREE,
        ["Anna"],
        50,
        "started",
        {"Anna": 550, "Berta": -150, "Carl": -400},
        id="started-hundreds",
    ),
    # 260 and 730 points: 130 and 365 cents
    pytest.param(
        THREE, ["Anna"], 50, "exact", {"Anna": 495, "Berta": -130, "Carl": -365}, id="exact"
    ),
    # 730 × 25 / 100 = 182.5 -> 183; 260 × 25 / 100 = 65
    pytest.param(
        THREE,
        ["Anna"],
        25,
        "exact",
        {"Anna": 248, "Berta": -65, "Carl": -183},
        id="exact-rounds-half-up",
    ),
    pytest.param(
        THREE, ["Anna"], 200, "per_game", {"Anna": 400, "Berta": -200, "Carl": -200}, id="per-game"
    ),
    pytest.param(
        {"Anna": 1000, "Berta": 1000, "Carl": 650},
        ["Berta", "Anna"],
        50,
        "full",
        {"Anna": 75, "Berta": 75, "Carl": -150},
        id="two-winners",
    ),
    pytest.param(
        {"Anna": 1000, "Berta": 1000, "Carl": 650},
        ["Anna", "Berta"],
        25,
        "full",
        {"Anna": 38, "Berta": 37, "Carl": -75},
        id="two-winners-odd-cent-by-name",
    ),
    pytest.param(
        {"Anna": 1000, "Berta": 1000, "Carl": 1000},
        ["Anna", "Berta", "Carl"],
        50,
        "per_game",
        {"Anna": 0, "Berta": 0, "Carl": 0},
        id="everybody-wins",
    ),
    pytest.param(
        {"Anna": 1010, "Berta": 1010, "Carl": 400},
        ["Berta"],
        50,
        "full",
        {"Anna": 0, "Berta": 300, "Carl": -300},
        id="tie-lost-to-the-declarer-pays-0",
    ),
    pytest.param(
        {"Anna": 1000, "Berta": 99},
        ["Anna"],
        100,
        "full",
        {"Anna": 900, "Berta": -900},
        id="two-players",
    ),
    pytest.param(
        {"Anna": 1000, "Berta": -250},
        ["Anna"],
        10,
        "started",
        {"Anna": 130, "Berta": -130},
        id="negative-total",
    ),
    # Kreuzbinokel, teams by the caller: Anna + Carl 1100, Berta + Dora 640
    pytest.param(
        {"Anna": 1100, "Berta": 640, "Carl": 1100, "Dora": 640},
        ["Anna", "Carl"],
        50,
        "full",
        {"Anna": 200, "Berta": -200, "Carl": 200, "Dora": -200},
        id="teams-each-partner-the-teams-amount",
    ),
    # Sechser: the winning team receives what both losing teams pay
    pytest.param(
        {"A": 1050, "B": 850, "C": 400, "D": 1050, "E": 850, "F": 400},
        ["A", "D"],
        100,
        "full",
        {"A": 800, "B": -200, "C": -600, "D": 800, "E": -200, "F": -600},
        id="sechser-teams",
    ),
]


@pytest.mark.parametrize(("totals", "winners", "stake", "basis", "expected"), STAKES)
def test_stake_payments(
    totals: dict[str, int], winners: list[str], stake: int, basis: str, expected: dict[str, int]
) -> None:
    payments = stake_payments(totals, winners, stake, basis)
    assert payments == expected
    assert sum(payments.values()) == 0


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ((THREE, ["Anna"], 50, "halbe"), "'halbe'"),
        ((THREE, [], 50), "needs a winner"),
        ((THREE, ["Dora"], 50), "'Dora'"),
        ((THREE, ["Anna"], -5), "-5"),
        ((THREE, ["Berta"], 50), "more than the winner's 780"),
        ((THREE, "Anna", 50), "list of names"),
        (({"Anna": 1000, "Berta": "viel"}, ["Anna"], 50), "'viel'"),
    ],
)
def test_stake_payments_refuses(args: tuple[Any, ...], text: str) -> None:
    with pytest.raises(RulesError) as info:
        stake_payments(*args)
    assert text in str(info.value)


@given(
    st.lists(st.integers(-2000, 3000), min_size=2, max_size=8),
    st.integers(1, 3),
    st.integers(0, 500),
    st.sampled_from(["full", "started", "exact", "per_game"]),
)
def test_stake_payments_sum_to_zero(
    points: list[int], winner_count: int, stake: int, basis: str
) -> None:
    totals = {f"P{i}": total for i, total in enumerate(points)}
    top = max(points)
    ranked = sorted(totals, key=lambda name: -totals[name])
    winners = [name for name in ranked[:winner_count] if totals[name] == top] or ranked[:1]
    payments = stake_payments(totals, winners, stake, basis)
    assert sum(payments.values()) == 0
    assert all(payments[name] <= 0 for name in totals if name not in winners)
    shares = [payments[name] for name in winners]
    assert max(shares) - min(shares) <= 1


# -- minimal transfers ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("balances", "expected"),
    [
        ({}, []),
        ({"Anna": 0, "Berta": 0}, []),
        (
            {"Anna": 450, "Berta": -100, "Carl": -350},
            [("Berta", "Anna", 100), ("Carl", "Anna", 350)],
        ),
        # two separate pairs: 2 transfers, not 3
        ({"A": 500, "B": -500, "C": 300, "D": -300}, [("B", "A", 500), ("D", "C", 300)]),
        # a greedy largest-first pairing needs 4 here; the minimum is 3 (two groups)
        (
            {"A": 700, "B": 300, "C": -600, "D": -100, "E": -300},
            [("C", "A", 600), ("D", "A", 100), ("E", "B", 300)],
        ),
        ({"Zora": -250, "Anna": 250, "Max": 0}, [("Zora", "Anna", 250)]),
    ],
)
def test_minimal_transfers(balances: dict[str, int], expected: list[tuple[str, str, int]]) -> None:
    assert minimal_transfers(balances) == expected


@pytest.mark.parametrize(
    ("balances", "text"),
    [
        ({"Anna": 100, "Berta": -90}, "add up to 10 cents"),
        ({f"P{i:02}": (1 if i % 2 else -1) for i in range(18)}, "18 people"),
        ({"Anna": 1.5, "Berta": -1.5}, "1.5"),
    ],
)
def test_minimal_transfers_refuses(balances: dict[str, Any], text: str) -> None:
    with pytest.raises(RulesError) as info:
        minimal_transfers(balances)
    assert text in str(info.value)


def test_twelve_people() -> None:
    amounts = [1200, -350, 75, -925, 410, -60, 300, -300, 1, -1, 890, -1240]
    balances = {f"Player {i:02}": cents for i, cents in enumerate(amounts)}
    transfers = minimal_transfers(balances)
    _assert_settles(balances, transfers)
    # zero-sum groups: {300, -300}, {1, -1}, {410, -350, -60}, the rest: 12 - 4 = 8 transfers
    assert len(transfers) == 8 == 12 - _most_zero_sum_groups(tuple(amounts))


def _assert_settles(balances: dict[str, int], transfers: list[tuple[str, str, int]]) -> None:
    left = dict(balances)
    for payer, payee, cents in transfers:
        assert cents > 0
        assert payer != payee
        left[payer] += cents
        left[payee] -= cents
    assert all(cents == 0 for cents in left.values())
    assert transfers == sorted(transfers)


def _most_zero_sum_groups(amounts: tuple[int, ...]) -> int:
    """Brute force: the most disjoint groups, together covering everybody, summing to 0."""
    if not amounts:
        return 0
    first, rest = amounts[0], amounts[1:]
    best = 0
    for size in range(len(rest) + 1):
        for chosen in itertools.combinations(range(len(rest)), size):
            if first + sum(rest[i] for i in chosen) == 0:
                remaining = tuple(v for i, v in enumerate(rest) if i not in chosen)
                best = max(best, 1 + _most_zero_sum_groups(remaining))
    return best


balance_lists = st.lists(
    st.one_of(st.sampled_from([-300, -200, -100, 100, 200, 300]), st.integers(-5000, 5000)),
    min_size=1,
    max_size=7,
).map(lambda values: [*values, -sum(values)])


@given(balance_lists)
def test_transfers_settle_and_are_minimal(values: list[int]) -> None:
    balances = {f"P{i}": cents for i, cents in enumerate(values)}
    transfers = minimal_transfers(balances)
    _assert_settles(balances, transfers)
    open_balances = tuple(v for v in values if v)
    assert len(transfers) <= max(len(open_balances) - 1, 0)
    assert len(transfers) == len(open_balances) - _most_zero_sum_groups(open_balances)


@given(st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=12), st.randoms())
def test_transfers_are_deterministic(values: list[int], random: Any) -> None:
    values = [*values, -sum(values)]
    names = [f"P{i:02}" for i in range(len(values))]
    balances = dict(zip(names, values, strict=True))
    shuffled = list(balances.items())
    random.shuffle(shuffled)
    transfers = minimal_transfers(balances)
    assert minimal_transfers(dict(shuffled)) == transfers
    _assert_settles(balances, transfers)
    assert len(transfers) <= max(sum(1 for v in values if v) - 1, 0)
