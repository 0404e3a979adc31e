"""The meld totals a party can reach (scorer.rules.reach): brute force, real hands, properties."""

from __future__ import annotations

import random
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import PRESETS, Meld, MeldError, Ruleset, available_melds, best_meld, check_meld
from scorer.rules.calculator import deck_cards
from scorer.rules.reach import (
    MeldTotals,
    check_meld_total,
    meld_totals,
    party_meld_totals,
)

RULESETS = {
    "standard": Ruleset(),
    "sevens": Ruleset(sevens=True),
    "sevens, Diss kept": Ruleset(sevens=True, diss_pressable=False),
    "flat 250": Ruleset(rundgang="flat 250"),
    "no Achterle": Ruleset(eight_of_a_kind=None),
    "Groß-Binokel, four tens": Ruleset(gross_binokel=80, four_tens=200),
    "cheap Doppelfamilie": Ruleset(double_family=180),
}


def brute_force(ruleset: Ruleset, trump: str, size: int) -> set[int]:
    """Every total check_meld accepts for some list of declared melds, tried one by one.

    The melds are chosen group by group (every count of every meld of the group);
    a list check_meld refuses once a group is complete stays refused with more.
    """
    groups: dict[str, list[str]] = {}
    for name in available_melds(ruleset, trump):
        groups.setdefault(Meld(name, 0).group, []).append(name)
    choices = [
        [
            [n for n, k in zip(names, counts, strict=True) for _ in range(k)]
            for counts in product(range(ruleset.copies + 1), repeat=len(names))
        ]
        for names in groups.values()
    ]
    totals = set()

    def grow(i: int, declared: list[str]) -> None:
        if i == len(choices):
            totals.add(check_meld(declared, trump, ruleset, size).total if declared else 0)
            return
        for more in choices[i]:
            try:
                if more:
                    check_meld([*declared, *more], trump, ruleset, size)
            except MeldError:
                continue
            grow(i + 1, [*declared, *more])

    grow(0, [])
    return totals


@pytest.mark.parametrize("name", sorted(RULESETS))
@pytest.mark.parametrize(("trump", "size"), [("H", 4), ("G", 5), ("S", 6), ("E", 6)])
def test_the_totals_are_exactly_those_of_every_declaration(
    name: str, trump: str, size: int
) -> None:
    ruleset = RULESETS[name]
    assert set(meld_totals(ruleset, trump, size)) == brute_force(ruleset, trump, size)


@pytest.mark.parametrize(
    ("ruleset", "trump", "total", "message"),
    [
        (Ruleset(), "H", 30, "no melds add up to 30 here: the nearest totals are 20 and 40"),
        (Ruleset(), "H", 5000, "a hand of 12 cards melds at most 1800, not 5000"),
        (
            Ruleset(),
            "H",
            1510,
            "no melds add up to 1510 here: the nearest totals are 1500 and 1520",
        ),
        (PRESETS["kreuzbinokel"], "H", 9000, "two hands of 9 cards meld at most 2080, not 9000"),
        (Ruleset(), "H", -10, "melds cannot add up to -10: the least is 0"),
        (Ruleset(), "H", 15, "no melds add up to 15 here: the nearest totals are 0 and 20"),
        (
            PRESETS["kreuzbinokel"],
            "E",
            3,
            "no melds add up to 3 here: the nearest totals are 0 and 20",
        ),
    ],
)
def test_impossible_totals_are_refused_with_the_nearest(
    ruleset: Ruleset, trump: str, total: int, message: str
) -> None:
    with pytest.raises(MeldError) as caught:
        check_meld_total(ruleset, total, trump)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("ruleset", "trump", "total"),
    [
        (Ruleset(), "H", 0),
        (Ruleset(), "H", 190),  # family in trump and the spare trump pair
        (Ruleset(), "E", 240),  # a Rundgang
        (Ruleset(), "E", 350),  # a Rundgang with the trump family
        (Ruleset(), "G", 1800),  # Doppelfamilie in Schellen and a Doppelbinokel
        (Ruleset(sevens=True), "H", 30),  # pair and Diss
        (Ruleset(rundgang="flat 250"), "E", 250),
        (PRESETS["kreuzbinokel"], "H", 2000),  # two partners: an Achterle each
    ],
)
def test_possible_totals_pass(ruleset: Ruleset, trump: str, total: int) -> None:
    check_meld_total(ruleset, total, trump)


def test_without_trump_any_trump_counts() -> None:
    any_trump = meld_totals(Ruleset(), None, 12)
    for suit in "EGHS":
        assert set(meld_totals(Ruleset(), suit, 12)) <= set(any_trump)


def test_two_player_games_are_not_limited_by_one_hand() -> None:
    assert party_meld_totals(PRESETS["zweier"], "H") is None
    assert party_meld_totals(PRESETS["schweizer"], "H") is None
    check_meld_total(PRESETS["schweizer"], 5000, "H")


def test_a_team_melds_what_two_hands_meld() -> None:
    ruleset = PRESETS["kreuzbinokel"]
    deal = ruleset.deal()
    assert deal is not None
    one = list(meld_totals(ruleset, "H", deal[0]))
    team = party_meld_totals(ruleset, "H")
    assert team is not None
    rng = random.Random(7)
    for _ in range(200):
        assert rng.choice(one) + rng.choice(one) in team
    assert team.max == 2 * max(one)


def test_nearest_at_the_edges() -> None:
    totals = MeldTotals(10, 0b1001)  # 0 and 30
    assert totals.nearest(-5) == (None, 0)
    assert totals.nearest(0) == (None, 30)
    assert totals.nearest(10) == (0, 30)
    assert totals.nearest(30) == (0, None)
    assert totals.nearest(31) == (30, None)
    assert totals.nearest(10**300) == (30, None)
    assert 30 in totals and 31 not in totals and -10 not in totals and True not in totals


PRESET_NAMES = [n for n in sorted(PRESETS) if party_meld_totals(PRESETS[n], "H") is not None]


@given(
    name=st.sampled_from(PRESET_NAMES),
    trump=st.sampled_from("EGHS"),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_hand_dealt_melds_a_reachable_total(name: str, trump: str, seed: int) -> None:
    ruleset = PRESETS[name]
    deal = ruleset.deal()
    assert deal is not None
    cards = random.Random(seed).sample(deck_cards(ruleset), deal[0])
    totals = meld_totals(ruleset, trump, deal[0])
    assert best_meld(cards, trump, ruleset).total in totals


@given(
    name=st.sampled_from(PRESET_NAMES),
    trump=st.sampled_from("EGHS"),
    picks=st.lists(st.integers(0, 200), max_size=6),
)
def test_every_total_the_calculator_accepts_passes(name: str, trump: str, picks: list[int]) -> None:
    ruleset = PRESETS[name]
    names = available_melds(ruleset, trump)
    declared = [names[i % len(names)] for i in picks]
    totals = party_meld_totals(ruleset, trump)
    assert totals is not None
    try:
        deal = ruleset.deal()
        assert deal is not None
        result = check_meld(declared, trump, ruleset, deal[0])
    except MeldError:
        return
    assert result.total in totals
    check_meld_total(ruleset, result.total, trump, totals)


@given(
    name=st.sampled_from(PRESET_NAMES), trump=st.sampled_from("EGHS"), total=st.integers(0, 9000)
)
def test_a_refused_total_lies_between_its_nearest(name: str, trump: str, total: int) -> None:
    ruleset = PRESETS[name]
    totals = party_meld_totals(ruleset, trump)
    assert totals is not None
    with pytest.raises(MeldError):
        check_meld_total(ruleset, totals.max + totals.unit, trump, totals)
    if total in totals:
        check_meld_total(ruleset, total, trump, totals)
        return
    below, above = totals.nearest(total)
    assert below is None or (below < total and below in totals)
    assert above is None or (above > total and above in totals)
    assert not any(
        t in totals for t in range((below or 0) + 1, above or totals.max + 1) if t != total
    )
    with pytest.raises(MeldError):
        check_meld_total(ruleset, total, trump, totals)
