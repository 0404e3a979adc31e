"""The variants of docs/rules.md section 12, with the sources' own numbers."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import (
    CARD_POINTS,
    EIGHT_RANKS,
    PRESETS,
    MeldError,
    PlayedHand,
    Rank,
    RulesError,
    Ruleset,
    TrickError,
    best_kept,
    best_meld,
    check_meld,
    check_table,
    chosen_eight_ranks,
    complete_tricks,
    deck,
    first_dealer_of_next,
    hand_size,
    possible_trick_points,
    replay,
    settle,
    settle_at_table,
)
from scorer.rules.ruleset import dabb_size

STANDARD = PRESETS["standard"]
KREUZ = PRESETS["kreuzbinokel"]
SCHWEIZER = PRESETS["schweizer"]

# -- seed 002's two worked examples: tests/rules/test_swabian_preset.py -----------------

# the default column of docs/rules.md section 8 (no failed bonus): the forfeit examples of
# section 12 are worked out with it; the "standard" preset adds seed 002's 40
DEFAULTS = Ruleset()


@pytest.mark.parametrize(
    ("spec", "bid", "players", "each"),
    [("none", 390, 3, 0), ("flat 40", 390, 3, 40), ("per_player 10", 390, 4, 40),
     ("half_bid", 390, 3, 200)],
)  # fmt: skip
def test_failed_bonus_every_form(spec: str, bid: int, players: int, each: int) -> None:
    rules = Ruleset(failed_bonus=spec, players=players)
    parties = players
    melds = [250] + [0] * (parties - 1)
    tricks = [90] + [160 // (parties - 1)] * (parties - 1)
    tricks[-1] += 250 - sum(tricks)
    result = settle(rules, players=players, bidder=0, bid=bid, melds=melds, tricks=tricks)
    assert result.bonus[1:] == (each,) * (parties - 1)


# -- caught signalling: the party at fault ----------------------------------------


def test_forfeit_by_an_opponent_counts_as_made_for_the_declarer() -> None:
    result = settle(DEFAULTS, players=3, bidder=0, bid=390, outcome="forfeit",
                    melds=[250, 20, 40], tricks=[90, 100, 60], at_fault=1)  # fmt: skip
    assert result.points == (390, -780, 100)
    assert result.made is True and result.declarer_won is True and result.at_fault == 1


def test_forfeit_without_at_fault_is_the_declarers() -> None:
    result = settle(DEFAULTS, players=3, bidder=0, bid=390, outcome="forfeit",
                    melds=[250, 20, 40], tricks=[90, 100, 60])  # fmt: skip
    assert result.points == (-780, 120, 100) and result.at_fault == 0


def test_forfeit_by_an_opponent_declarer_keeps_more_than_the_bid() -> None:
    result = settle(DEFAULTS, players=3, bidder=0, bid=300, outcome="forfeit",
                    melds=[250, 20, 40], tricks=[150, 40, 60], at_fault=2)  # fmt: skip
    assert result.points == (400, 60, -600)


def test_kreuzbinokel_team_caught_signalling_before_play() -> None:
    hand = settle_at_table(KREUZ, 4, 0, declarer=0, bid=300, outcome="forfeit",
                           melds=[100, 40], tricks=[None, None], at_fault=1)  # fmt: skip
    assert hand.points == (300, -600)


def test_kreuzbinokel_team_caught_with_a_failed_bonus() -> None:
    rules = KREUZ.replace(failed_bonus="flat 40", failed_multiplier=1, failed_extra=100)
    hand = settle_at_table(rules, 4, 0, declarer=1, bid=300, outcome="forfeit",
                           melds=[100, 40], tricks=[200, None], at_fault=0)  # fmt: skip
    assert hand.points == (-400, 340)


@pytest.mark.parametrize("at_fault", [3, -1, True, "1"])
def test_at_fault_must_be_a_party(at_fault: Any) -> None:
    with pytest.raises(RulesError, match="at fault"):
        settle(STANDARD, players=3, bidder=0, bid=300, outcome="forfeit", at_fault=at_fault)


def test_at_fault_is_ignored_for_other_outcomes() -> None:
    result = settle(STANDARD, players=3, bidder=0, bid=180, melds=[60, 0, 0],
                    tricks=[130, 60, 60], at_fault=1)  # fmt: skip
    assert result.points == (190, 60, 60) and result.at_fault is None


# -- deal sizes: seed 000's table and the dabb option --------------------------------


@pytest.mark.parametrize(
    ("players", "sevens", "hand", "dabb"),
    [(3, False, 12, 4), (4, False, 9, 4), (5, False, 7, 5), (3, True, 15, 3), (4, True, 11, 4),
     (5, True, 9, 3), (6, True, 7, 6), (8, True, 6, 0)],
)  # fmt: skip
def test_seed_000_deal_table(players: int, sevens: bool, hand: int, dabb: int) -> None:
    rules = Ruleset(sevens=sevens)
    assert (hand_size(rules, players), dabb_size(rules, players)) == (hand, dabb)
    assert hand * players + dabb == (48 if sevens else 40)


@pytest.mark.parametrize(("dabb", "hand"), [(6, 14), (3, 15), (0, 16)])
def test_three_with_sevens_every_deal(dabb: int, hand: int) -> None:
    rules = Ruleset(sevens=True, dabb=dabb)
    assert hand_size(rules, 3) == hand and dabb_size(rules, 3) == dabb
    check_table(rules, 3)


def test_a_dabb_that_does_not_deal_is_refused() -> None:
    with pytest.raises(RulesError, match="with a Dabb of 5"):
        check_table(Ruleset(sevens=True, dabb=5), 3)
    with pytest.raises(RulesError, match="'dabb'"):
        Ruleset(dabb=17)
    with pytest.raises(RulesError, match="'dabb'"):
        Ruleset.from_dict({"dabb": "3"})


def test_open_play_has_no_dabb() -> None:
    with pytest.raises(RulesError, match="no Dabb"):
        check_table(SCHWEIZER.replace(dabb=0), 2)


def test_melds_follow_the_deal() -> None:
    melds = ["double_family E", "four A", "four K"]  # 10 + 3 + 3 = 16 cards
    with pytest.raises(MeldError, match="need 16 cards; a hand holds 15"):
        check_meld(melds, "E", Ruleset(sevens=True), hand_size=hand_size(Ruleset(sevens=True), 3))
    sixteen = Ruleset(sevens=True, dabb=0)
    assert check_meld(melds, "E", sixteen, hand_size=hand_size(sixteen, 3)).total == 1680


# -- the Diss may be pressed ----------------------------------------------------------


def test_diss_melded_and_pressed_needs_no_kept_place() -> None:
    rules = Ruleset(sevens=True)
    result = check_meld(["double_family E", "four A", "diss"], "E", rules, hand_size=13)
    assert result.total == 1610 and result.cards_needed == 14
    with pytest.raises(MeldError, match="need 14 cards; a hand holds 13"):
        check_meld(["double_family E", "four A", "diss"], "E",
                   rules.replace(diss_pressable=False), hand_size=13)  # fmt: skip


def test_best_kept_keeps_the_diss_when_it_may_be_pressed() -> None:
    rules = Ruleset(sevens=True)
    cards = "EA E10 EK EO EU EA E10 EK EO EU HA SA GA E7 E7 HK"
    assert best_kept(cards, "E", 13, rules).total == 1620
    assert best_kept(cards, "E", 13, rules.replace(diss_pressable=False)).total == 1600


def test_a_seven_in_an_achterle_is_not_pressed() -> None:
    rules = Ruleset(sevens=True)
    sevens = ["eight 7", "diss", "diss"]
    assert check_meld(sevens, "E", rules, hand_size=8).cards_needed == 8
    with pytest.raises(MeldError, match="need 8 cards; a hand holds 7"):
        check_meld(sevens, "E", rules, hand_size=7)


# -- Rundgang --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "sum_total", "flat_total"),
    [
        ("EK EO GK GO HK HO SK SO", 240, 250),
        ("EA E10 EK EO EU GK GO HK HO SK SO", 350, 400),
        ("EA E10 EK EO EU GK GO HK HO SK SO GO SU", 390, 440),
        ("EK EO GK GO HK HO SK", 160, 160),  # no Rundgang
    ],
)
def test_rundgang_sum_or_flat(cards: str, sum_total: int, flat_total: int) -> None:
    assert best_meld(cards, "E").total == sum_total
    assert best_meld(cards, "E", Ruleset(rundgang="flat 250")).total == flat_total


def test_rundgang_flat_in_check_meld() -> None:
    declared = "pair E, pair G, pair H, pair S, four K, four O"
    assert check_meld(declared, "E").total == 240
    result = check_meld(declared, "E", Ruleset(rundgang="flat 250"))
    assert result.total == 250 and result.rundgang_extra == 10


# -- Achterle ranks --------------------------------------------------------------------


def test_eight_ranks_without_tens() -> None:
    cards = "EA EA GA GA HA HA SA SA E10 E10 G10 G10 H10 H10 S10 S10"
    assert best_meld(cards, "E").total == 2000
    assert best_meld(cards, "E", Ruleset(eight_ranks=("A",))).total == 1000


# -- counting schemes --------------------------------------------------------------------


@pytest.mark.parametrize("scheme", CARD_POINTS)
def test_every_scheme_totals_250(scheme: str) -> None:
    assert Ruleset(card_points=scheme).trick_total == 250
    assert SCHWEIZER.replace(card_points=scheme).trick_total == 130


@pytest.mark.parametrize(
    ("scheme", "refused", "accepted"),
    [
        ("11-10-4-3-2", [1, 249], [2, 5, 248, 250]),
        ("10-10-10-0-0", [5, 95, 247], [0, 10, 90, 250]),
        ("10-10-5-5-0", [3, 92, 248], [5, 95, 245]),
        ("15-15-0-0-0", [5, 20, 35, 245], [10, 15, 25, 30, 240, 250]),
    ],
)
def test_scheme_refuses_what_it_cannot_produce(
    scheme: str, refused: list[int], accepted: list[int]
) -> None:
    rules = Ruleset(card_points=scheme)
    possible = possible_trick_points(rules)
    for value in refused:
        assert value not in possible
        with pytest.raises(TrickError, match=f"trick points {value} cannot be taken"):
            complete_tricks(rules, [value, None])
    for value in accepted:
        assert value in possible
        assert complete_tricks(rules, [value, None]) == [value, 250 - value]


def test_ten_scheme_is_every_multiple_of_ten() -> None:
    possible = possible_trick_points(Ruleset(card_points="10-10-10-0-0"))
    assert possible == frozenset(range(0, 251, 10))


@st.composite
def dealt_tricks(draw: st.DrawFn, rules: Ruleset, parties: int) -> list[int]:
    cards = draw(st.permutations(sorted(deck(rules).elements())))
    cuts = sorted(draw(st.lists(st.integers(0, len(cards)), min_size=parties - 1,
                                max_size=parties - 1)))  # fmt: skip
    bounds = [0, *cuts, len(cards)]
    tricks = [sum(rules.card_value(c) for c in cards[a:b]) for a, b in itertools.pairwise(bounds)]
    tricks[draw(st.integers(0, parties - 1))] += rules.last_trick
    return tricks


@pytest.mark.parametrize("scheme", CARD_POINTS)
@given(data=st.data())
def test_any_deal_into_tricks_is_accepted(scheme: str, data: st.DataObject) -> None:
    rules = Ruleset(card_points=scheme)
    tricks = data.draw(dealt_tricks(rules, 3))
    assert complete_tricks(rules, tricks) == tricks
    assert complete_tricks(rules, [*tricks[:2], None]) == tricks


@pytest.mark.parametrize("scheme", CARD_POINTS)
@given(value=st.integers(0, 250))
def test_values_outside_the_scheme_are_refused(scheme: str, value: int) -> None:
    rules = Ruleset(card_points=scheme)
    if value in possible_trick_points(rules):
        assert complete_tricks(rules, [value, None])[0] == value
    else:
        with pytest.raises(TrickError):
            complete_tricks(rules, [value, None])


# -- took a trick worth nothing ------------------------------------------------------------


def test_took_no_trick_is_zero_when_the_last_party_is_filled_in() -> None:
    hand = settle_at_table(STANDARD, 3, 0, declarer=0, bid=200, melds=[100, 40, 20],
                           tricks=[180, None, None], took_trick=[None, None, False])  # fmt: skip
    assert hand.tricks == (180, 70, 0)
    assert hand.points == (280, 110, 0)


def test_a_trick_worth_nothing_lets_melds_count() -> None:
    rules = Ruleset(sevens=True)
    hand = settle_at_table(rules, 3, 0, declarer=0, bid=200, melds=[100, 40, 20],
                           tricks=[180, 70, 0], took_trick=[None, None, True])  # fmt: skip
    assert hand.points == (280, 110, 20)


# -- who deals -----------------------------------------------------------------------------


def test_dealer_winner_deals_the_next_hand() -> None:
    rules = SCHWEIZER.replace(dealer="winner")
    hands = [
        PlayedHand(None, "open_play", None, (80, 50)),  # seat 0 dealt, 0 won
        PlayedHand(None, "open_play", None, (30, 100)),  # 0 dealt again, 1 won
        PlayedHand(None, "open_play", None, (65, 65)),  # 1 dealt, a tie: rotate
    ]
    assert replay(rules, 2, hands[:1]).next_dealer == 0
    assert replay(rules, 2, hands[:2]).next_dealer == 1
    assert replay(rules, 2, hands).next_dealer == 0
    assert replay(SCHWEIZER, 2, hands).next_dealer == 1  # rotate: three hands on from 0


@pytest.mark.parametrize(
    ("rules", "seats", "first", "winners", "expected"),
    [
        (STANDARD, 3, 0, [2], 1),
        (STANDARD.replace(first_dealer="after_winner"), 3, 0, [2], 2),
        (STANDARD.replace(first_dealer="after_winner"), 3, 2, [], 0),
        (KREUZ.replace(first_dealer="after_winner"), 4, 0, [1], 1),
        (KREUZ.replace(first_dealer="after_winner"), 4, 1, [1], 3),
        (KREUZ.replace(first_dealer="after_winner"), 4, 3, [0], 0),
    ],
)
def test_first_dealer_of_the_next_match(
    rules: Ruleset, seats: int, first: int, winners: list[int], expected: int
) -> None:
    assert first_dealer_of_next(rules, seats, first, winners) == expected


# -- best of N and the Swiss game -----------------------------------------------------------


def test_best_of_three_ends_when_one_has_won_two() -> None:
    rules = SCHWEIZER.replace(end="games", games=3)
    hands = [
        PlayedHand(None, "open_play", None, (80, 50)),
        PlayedHand(None, "open_play", None, (30, 100)),
        PlayedHand(None, "open_play", None, (20, 110)),
    ]
    progress = replay(rules, 2, hands[:2])
    assert progress.games_won == (1, 1) and not progress.finished
    progress = replay(rules, 2, hands)
    assert progress.games_won == (1, 2) and progress.finished_after == 2
    assert progress.winners == (1,)


def test_best_of_three_with_a_drawn_hand_ends_after_three_on_points() -> None:
    rules = SCHWEIZER.replace(end="games", games=3)
    hands = [
        PlayedHand(None, "open_play", None, (80, 50)),
        PlayedHand(None, "open_play", None, (30, 100)),
        PlayedHand(None, "open_play", None, (65, 65)),
    ]
    progress = replay(rules, 2, hands)
    assert progress.games_won == (1, 1) and progress.finished_after == 2
    assert progress.winners == (1,)  # 175 to 215 points


def test_best_of_five_after_all_hands_at_three() -> None:
    rules = SCHWEIZER.replace(players=3, end="games", games=5)
    hands = [PlayedHand(None, "open_play", None, p) for p in
             [(50, 40, 40), (40, 50, 40), (40, 40, 50), (60, 40, 30), (30, 40, 60)]]  # fmt: skip
    progress = replay(rules, 3, hands)
    assert progress.games_won == (2, 1, 2) and progress.finished_after == 4
    assert progress.winners == (0, 2) or progress.winners == (2,)
    assert progress.winners == tuple(
        p for p in (0, 2) if progress.totals[p] == max(progress.totals[0], progress.totals[2])
    )


@pytest.mark.parametrize("games", [0, 2, 4, 100, True, "3"])
def test_games_must_be_an_odd_number(games: Any) -> None:
    with pytest.raises(RulesError, match="'games'"):
        Ruleset(end="games", games=games)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_schweizer_for_two_to_four(players: int) -> None:
    rules = SCHWEIZER.replace(players=players)
    check_table(rules, players)
    assert hand_size(rules, players) == 8


def test_schweizer_not_for_five() -> None:
    with pytest.raises(RulesError):
        check_table(SCHWEIZER.replace(players=5), 5)


def test_swiss_hand_closed_by_a_trick() -> None:
    hand = settle_at_table(SCHWEIZER, 2, 0, declarer=None, outcome="open_play",
                           melds=[980, 240], tricks=[21, 0], ended_early=True)  # fmt: skip
    assert hand.points == (1001, 240)
    with pytest.raises(TrickError, match="109 too few"):
        settle_at_table(SCHWEIZER, 2, 0, declarer=None, outcome="open_play",
                        melds=[980, 240], tricks=[21, 0])  # fmt: skip
    with pytest.raises(TrickError, match="too many"):
        settle_at_table(SCHWEIZER, 2, 0, declarer=None, outcome="open_play",
                        melds=[980, 240], tricks=[100, 40], ended_early=True)  # fmt: skip


# -- strict options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"card_points": "11-10-4-3-1"}, "'card_points'"),
        ({"rundgang": "flat 240"}, "'rundgang'"),
        ({"diss_pressable": "yes"}, "'diss_pressable'"),
        ({"first_dealer": "winner"}, "'first_dealer'"),
        ({"dealer": "after_winner"}, "'dealer'"),
        ({"end": "best_of"}, "'end'"),
        ({"failed_bonus": "flat -40"}, "'failed_bonus'"),
    ],
)
def test_new_options_are_strict(data: dict[str, Any], field: str) -> None:
    with pytest.raises(RulesError, match=field):
        Ruleset.from_dict(data)


def test_defaults_keep_every_table() -> None:
    for preset in PRESETS.values():
        assert preset.dabb is None and preset.card_points == "11-10-4-3-2"
        assert preset.rundgang == "sum" and preset.diss_pressable is True
        assert preset.first_dealer == "rotate" and preset.dealer == "rotate"
    rules = Ruleset.from_dict({"preset": "standard", "card_points": "15-15-0-0-0"})
    assert Ruleset.from_dict(rules.to_dict()) == rules


# -- the Achterle's ranks as a table chooses them (section 12, eight_ranks) -----------------


@pytest.mark.parametrize(
    ("chosen", "sevens", "given", "setting"),
    [
        (["A", "10", "K", "O", "U"], False, None, None),  # all of them: the default
        (["A", "10", "K", "O", "U", "7"], False, None, None),  # a seven without sevens: no matter
        (["A", "10", "K", "O", "U"], True, None, ("A", "10", "K", "O", "U")),  # not the seven
        (["U", "A"], False, None, ("A", "U")),  # highest first, as the deck orders them
        ([], False, None, ()),  # no Achterle of any rank
        (["A", "10", "K", "O", "U"], False, ("A", "K"), ("A", "10", "K", "O", "U")),
    ],
)
def test_the_achterle_ranks_a_table_chooses(
    chosen: list[str], sevens: bool, given: Any, setting: tuple[str, ...] | None
) -> None:
    preset = None if given is None else tuple(Rank.parse(r) for r in given)
    got = chosen_eight_ranks(chosen, sevens=sevens, given=preset)
    assert (None if got is None else tuple(r.value for r in got)) == setting


@given(st.sets(st.sampled_from(EIGHT_RANKS)), st.booleans())
def test_chosen_ranks_are_the_ranks_that_make_an_achterle(chosen: set[Rank], sevens: bool) -> None:
    rules = Ruleset(sevens=sevens, eight_ranks=chosen_eight_ranks(chosen, sevens=sevens))
    playable = {r for r in chosen if sevens or r is not Rank.SEVEN}
    assert set(rules.effective_eight_ranks) == playable
