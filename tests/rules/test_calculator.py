"""The meld calculator's state machine (scorer.rules.calculator): real taps, and properties."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.rules import PRESETS, Ruleset, available_melds, best_kept, best_meld, check_meld
from scorer.rules.calculator import (
    Calculator,
    Tap,
    cards_text,
    deck_cards,
    picked_cards,
    player_choices,
    tap,
)


def declare(calc: Calculator, *names: str) -> Calculator:
    for name in names:
        tap(calc, Tap(add=name))
    return calc


@pytest.mark.parametrize(
    ("trump", "taps", "declared", "total"),
    [
        # docs/rules.md section 11, example 1: family in trump and a spare trump pair
        ("H", ["family H", "pair H"], ["family H", "pair H"], 190),
        # example 3
        ("G", ["binokel", "pair G", "four O"], ["binokel", "pair G", "four O"], 140),
        # a second Binokel is refused; the calculator offers the Doppelbinokel instead
        ("E", ["binokel", "binokel"], ["binokel"], 40),
        # unknown names are refused and leave the state as it was
        ("E", ["pair E", "nonsense"], ["pair E"], 40),
    ],
)
def test_declared_melds(trump: str, taps: list[str], declared: list[str], total: int) -> None:
    calc = declare(Calculator.start(Ruleset(), trump=trump, players=3), *taps)
    assert calc.declared == declared
    assert calc.total == total


def test_a_second_binokel_is_offered_as_the_double_binokel() -> None:
    calc = declare(Calculator.start(Ruleset(), trump="E", players=3), "binokel", "binokel")
    assert calc.error is not None and calc.error.template.startswith("two Binokel")
    assert calc.refused == "binokel"
    assert calc.upgrade_to == "double_binokel"
    tap(calc, Tap(upgrade="binokel"))
    assert (calc.declared, calc.total, calc.error) == (["double_binokel"], 300, None)


def test_four_pairs_offer_the_rundgang() -> None:
    calc = declare(
        Calculator.start(Ruleset(), trump="E", players=3), "pair E", "pair G", "pair H", "pair S"
    )
    assert calc.result is not None
    assert [m.name for m in calc.result.implied] == ["four K", "four O"]
    assert not calc.rundgang  # something is still left to add
    tap(calc, Tap(implied=True))
    assert (calc.total, calc.rundgang) == (240, True)


def test_take_back_and_clear() -> None:
    calc = declare(Calculator.start(Ruleset(), trump="H", players=3), "pair H", "pair E", "pair H")
    tap(calc, Tap(back="pair H"))
    assert calc.declared == ["pair H", "pair E"]
    tap(calc, Tap(clear=True))
    assert (calc.declared, calc.total, calc.result) == ([], 0, None)


def test_card_mode_counts_the_best_melds_and_keeps_to_the_hand() -> None:
    calc = Calculator.start(Ruleset(), trump="E", players=3, mode="cards")
    for card in ("GO:1", "SU:1", "GO:2", "SU:2"):
        tap(calc, Tap(card=card))
    assert calc.total == 300  # the Doppelbinokel, not two Binokel
    tap(calc, Tap(card="GO:2"))  # a picked copy is put back
    assert (calc.card_count, calc.total) == (3, 40)


def test_card_mode_refuses_more_cards_than_a_hand_holds() -> None:
    calc = Calculator.start(Ruleset(), players=3, mode="cards")
    for card in deck_cards(calc.ruleset)[:12]:
        tap(calc, Tap(card=f"{card}:1"))
    assert (calc.card_count, calc.error) == (12, None)
    tap(calc, Tap(card="HU:2"))
    assert calc.card_count == 12
    assert calc.error is not None and calc.error.params == {"card": "Herz-Unter", "size": 12}


def test_the_declarer_presses_to_his_hand() -> None:
    # 16 cards (12 + the Dabb of 4): the best melds of all 16 need more than 12 cards
    cards = "EA E10 EK EO EU EA E10 EK EO EU GO SU GO SU HK HO"
    calc = Calculator.start(
        Ruleset(), trump="E", players=3, mode="cards", declarer=True, cards=cards
    )
    tap(calc, Tap())
    assert calc.result is not None and calc.result.cards_needed > 12
    assert calc.pressed_result == best_kept(calc.picked, "E", 12, calc.ruleset)
    assert calc.total == calc.pressed_result.total


def test_player_choices_follow_the_deck() -> None:
    assert player_choices(PRESETS["standard"]) == [3, 4, 5]
    assert player_choices(PRESETS["sechser"]) == [3, 4, 5, 6, 8]


# -- properties ------------------------------------------------------------------------

RULESETS = st.sampled_from([PRESETS["standard"], PRESETS["sechser"], PRESETS["kreuzbinokel"]])


@st.composite
def tap_sequences(draw: st.DrawFn) -> tuple[Calculator, list[Tap]]:
    ruleset = draw(RULESETS)
    players = draw(st.sampled_from(player_choices(ruleset)))
    trump = draw(st.sampled_from([None, "E", "G", "H", "S"]))
    calc = Calculator.start(
        ruleset,
        trump=trump,
        players=players,
        mode=draw(st.sampled_from(["declare", "cards"])),
        declarer=draw(st.booleans()),
    )
    melds = list(available_melds(ruleset, trump))
    cards = [f"{c}:{n}" for c in deck_cards(ruleset) for n in (1, 2)]
    one_tap = st.one_of(
        st.builds(Tap, add=st.sampled_from([*melds, "junk", "pair X"])),
        st.builds(Tap, back=st.sampled_from(melds)),
        st.builds(Tap, upgrade=st.sampled_from(melds)),
        st.builds(Tap, card=st.sampled_from([*cards, "ZZ:1", "GO:9"])),
        st.builds(Tap, implied=st.just(True)),
        st.builds(Tap, clear=st.just(True)),
        st.builds(Tap, go=st.sampled_from(["declare", "cards", "bogus"])),
    )
    return calc, draw(st.lists(one_tap, max_size=14))


@settings(max_examples=150, deadline=None)
@given(tap_sequences())
def test_any_taps_leave_a_state_the_rules_accept(case: tuple[Calculator, list[Tap]]) -> None:
    calc, taps = case
    for pressed in taps:
        tap(calc, pressed)
        limit = calc.card_limit
        assert limit is None or calc.card_count <= limit
        assert all(n <= calc.ruleset.copies for n in calc.cards.values())
        if calc.mode == "declare":
            if calc.declared:
                # whatever was accepted can be shown together from one hand of this table
                again = check_meld(calc.declared, calc.trump, calc.ruleset, calc.hand_size)
                assert calc.result is not None and calc.total == again.total
            else:
                assert calc.total == 0
        elif calc.cards:
            best = best_meld(calc.picked, calc.trump, calc.ruleset)
            assert calc.result == best
            if calc.pressed_result is not None:
                assert calc.declarer and calc.hand_size is not None
                assert calc.pressed_result.cards_needed <= calc.hand_size
                assert calc.total == calc.pressed_result.total <= best.total
            else:
                assert calc.total == best.total
        else:
            assert calc.total == 0


@settings(max_examples=100, deadline=None)
@given(RULESETS, st.lists(st.sampled_from(["GO", "SU", "HA", "e10", "x", "SU", "GO", "E7"])))
def test_the_card_text_reads_back(ruleset: Ruleset, tokens: list[str]) -> None:
    cards = picked_cards(" ".join(tokens), ruleset)
    assert picked_cards(cards_text(cards, ruleset), ruleset) == cards
    assert all(n <= ruleset.copies for n in cards.values())
    assert Counter(cards) == cards
