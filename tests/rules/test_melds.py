"""Melds: best_meld and check_meld against docs/rules.md sections 3, 8, 9 and 11."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.rules import (
    PRESETS,
    Card,
    CardError,
    Meld,
    MeldError,
    Rank,
    Ruleset,
    Suit,
    available_melds,
    best_kept,
    best_meld,
    check_meld,
    check_shown_meld,
    deck,
    hand_size,
    meld_points,
    offered_points,
    parse_meld_name,
)

SWISS = PRESETS["schweizer"]
SEVENS = Ruleset(sevens=True)
RUNDGANG = "EK EO GK GO HK HO SK SO"
UNKNOWN = "is not a meld in these house rules"
NO_DISS = "there is no Diss without sevens: 'diss' is not a meld in this game"
ONLY_TRUMP = "only the trump family counts in this game:"
DOUBLE_BINOKEL = "two Binokel are a Doppelbinokel: declare double_binokel"
HK3 = "needs Herz-König three times; the deck has two"
ALL_ACES = "EA EA GA GA HA HA SA SA"


def family(suit: str) -> str:
    return " ".join(f"{suit}{rank}" for rank in ("A", "10", "K", "O", "U"))


# -- docs/rules.md section 11, items 1-6 ---------------------------------------------


def test_example_1_family_and_spare_trump_pair() -> None:
    result = best_meld("HA H10 HK HO HU HK HO", "H")
    assert result.total == 190
    assert result.names == ("family H", "pair H")
    assert [m.points for m in result.melds] == [150, 40]


def test_example_2_double_binokel_not_two_binokel() -> None:
    result = best_meld("GO GO SU SU", "H")
    assert result.total == 300
    assert result.names == ("double_binokel",)


def test_example_3_one_card_in_three_kinds() -> None:
    result = best_meld("GO SU GK EO HO SO", "G")
    assert result.total == 140
    assert sorted(result.names) == ["binokel", "four O", "pair G"]
    assert result.cards_needed == 6


def test_example_4_rundgang() -> None:
    result = best_meld(RUNDGANG, "E")
    assert (result.total, result.rundgang) == (240, True)
    assert Counter(result.names) == Counter(
        ["pair E", "pair G", "pair H", "pair S", "four K", "four O"]
    )
    with_family = best_meld(RUNDGANG + " EA E10 EU", "E")
    assert (with_family.total, with_family.rundgang) == (350, True)
    assert "family E" in with_family.names and "pair E" not in with_family.names


def test_example_5_eight_aces() -> None:
    assert best_meld(ALL_ACES, "H").names == ("eight A",)
    assert best_meld(ALL_ACES, "H").total == 1000
    two_fours = best_meld(ALL_ACES, "H", Ruleset(eight_of_a_kind=None))
    assert (two_fours.total, two_fours.names) == (200, ("four A", "four A"))


def test_example_6_three_pairs_of_a_suit() -> None:
    with pytest.raises(MeldError, match="Herz-König") as caught:
        check_meld(["pair H", "pair H", "pair H"], "H")
    assert str(caught.value) == "needs Herz-König three times; the deck has two"
    assert caught.value.params == {"card": "Herz-König"}


# -- best_meld: every meld and option ------------------------------------------

BEST = [
    # cards, trump, ruleset, total, names (order-free)
    ("", "H", Ruleset(), 0, []),
    ("EA G10 HU S7", "S", SEVENS, 10, ["diss"]),
    ("HK HO", "H", Ruleset(), 40, ["pair H"]),
    ("HK HO", "E", Ruleset(), 20, ["pair H"]),
    ("HK HO", None, Ruleset(), 20, ["pair H"]),
    ("HK HK HO HO", "H", Ruleset(), 80, ["pair H", "pair H"]),
    ("HK HK HO", "H", Ruleset(), 40, ["pair H"]),
    (family("E"), "E", Ruleset(), 150, ["family E"]),
    (family("E"), "G", Ruleset(), 100, ["family E"]),
    (family("E"), None, Ruleset(), 100, ["family E"]),
    (family("E") + " EK EO", "G", Ruleset(), 120, ["family E", "pair E"]),
    (family("S") + " " + family("S"), "S", Ruleset(), 1500, ["double_family S"]),
    (family("S") + " " + family("S"), "E", Ruleset(), 1500, ["double_family S"]),
    # a Doppelfamilie switched off: two families
    (family("S") + " " + family("S"), "S", Ruleset(double_family=None), 300, ["family S"] * 2),
    # a Doppelfamilie worth less than two families: two families (in trump only)
    (family("S") + " " + family("S"), "S", Ruleset(double_family=250), 300, ["family S"] * 2),
    (family("S") + " " + family("S"), "H", Ruleset(double_family=250), 250, ["double_family S"]),
    # ... and worth less than a family and a pair
    (family("S") + " " + family("S"), "H", Ruleset(double_family=110), 200, ["family S"] * 2),
    ("GO SU", "H", Ruleset(), 40, ["binokel"]),
    ("GO GO SU", "H", Ruleset(), 40, ["binokel"]),
    ("GO GO SU SU", "H", Ruleset(double_binokel=None), 80, ["binokel", "binokel"]),
    ("GO GO SU SU", "H", Ruleset(double_binokel=60), 80, ["binokel", "binokel"]),
    # gross_binokel on the double deck (GK GO is also the Grün pair)
    ("GO GO SU SU GK", "H", Ruleset(gross_binokel=80), 320, ["double_binokel", "pair G"]),
    ("GO GO SU SU GK GK", "H", Ruleset(gross_binokel=200), 440, ["gross_binokel", "pair G"] * 2),
    (
        "GO GO SU SU GK",
        "H",
        Ruleset(gross_binokel=80, double_binokel=None),
        140,
        ["gross_binokel", "binokel", "pair G"],
    ),
    ("EA GA HA SA", "H", Ruleset(), 100, ["four A"]),
    ("EK GK HK SK", "H", Ruleset(), 80, ["four K"]),
    ("EO GO HO SO", "H", Ruleset(), 60, ["four O"]),
    ("EO GO HO SO SU", "H", Ruleset(), 100, ["four O", "binokel"]),
    ("EU GU HU SU", "H", Ruleset(), 40, ["four U"]),
    ("E10 G10 H10 S10", "H", Ruleset(), 0, []),
    ("E10 G10 H10 S10", "H", Ruleset(four_tens=50), 50, ["four 10"]),
    ("E10 E10 G10 G10 H10 H10 S10 S10", "H", Ruleset(), 1000, ["eight 10"]),
    ("E10 E10 G10 G10 H10 H10 S10 S10", "H", Ruleset(four_tens=50), 1000, ["eight 10"]),
    ("EU EU GU GU HU HU SU SU", "H", Ruleset(), 1000, ["eight U"]),
    # an Achterle of a rank outside eight_ranks: two fours
    ("EU EU GU GU HU HU SU SU", "H", Ruleset(eight_ranks=(Rank.A,)), 80, ["four U"] * 2),
    (ALL_ACES, "H", Ruleset(eight_ranks=(Rank.A,)), 1000, ["eight A"]),
    (
        "E10 E10 G10 G10 H10 H10 S10 S10",
        "H",
        Ruleset(eight_ranks=(Rank.A,), four_tens=50),
        100,
        ["four 10"] * 2,
    ),
    ("E10 E10 G10 G10 H10 H10 S10 S10", "H", Ruleset(eight_ranks=(Rank.A,)), 0, []),
    (ALL_ACES, "H", Ruleset(eight_of_a_kind=150), 200, ["four A"] * 2),
    ("EA GA HA SA EA", "H", Ruleset(), 100, ["four A"]),
    # sevens: the Diss per trump seven, and eight sevens
    ("H7 H7", "H", SEVENS, 20, ["diss", "diss"]),
    ("H7 H7", "E", SEVENS, 0, []),
    ("H7 H7", None, SEVENS, 0, []),
    ("E7 E7 G7 G7 H7 H7 S7 S7", "G", SEVENS, 1020, ["eight 7", "diss", "diss"]),
    ("E7 G7 H7 S7", "G", SEVENS, 10, ["diss"]),
    ("E7 E7 G7 G7 H7 H7 S7 S7", "G", Ruleset(sevens=True, eight_ranks=(Rank.A,)), 20, ["diss"] * 2),
    # the Swiss game
    ("HK HO", "H", SWISS, 40, ["pair H"]),
    ("EK EO", "H", SWISS, 20, ["pair E"]),
    (family("H"), "H", SWISS, 150, ["family H"]),
    (family("E"), "H", SWISS, 20, ["pair E"]),
    ("GO SU", "H", SWISS, 40, ["binokel"]),
    ("GO SU GK", "E", SWISS, 100, ["gross_binokel", "pair G"]),
    ("GO SU GK", "G", SWISS, 120, ["gross_binokel", "pair G"]),
    ("EA GA HA SA", "H", SWISS, 100, ["four A"]),
    ("EU GU HU SU", "H", SWISS, 40, ["four U"]),
    ("EO GO HO SO SU", "H", SWISS, 100, ["four O", "binokel"]),
    ("E10 G10 H10 S10", "H", SWISS, 0, []),
    ("H7 E9 E8", "H", SWISS, 10, ["diss"]),
    ("H7", "E", SWISS, 0, []),
    # a full hand of the Swiss game
    ("HA H10 HK HO HU H7 GO SU", "H", SWISS, 200, ["family H", "binokel", "diss"]),
]


@pytest.mark.parametrize(("cards", "trump", "ruleset", "total", "names"), BEST)
def test_best_meld_table(
    cards: str, trump: str | None, ruleset: Ruleset, total: int, names: list[str]
) -> None:
    result = best_meld(cards, trump, ruleset)
    assert result.total == total
    assert Counter(result.names) == Counter(names)
    assert result.total == sum(m.points for m in result.melds)


def test_cards_may_be_card_objects_and_trump_a_suit() -> None:
    cards = [Card(Suit.H, Rank.K), Card(Suit.H, Rank.O)]
    assert best_meld(cards, Suit.H).total == 40
    assert best_meld(iter(["hk", "ho"]), "h").total == 40


def test_melds_carry_their_cards_and_group() -> None:
    result = best_meld(family("H") + " " + family("H"), "H")
    (double,) = result.melds
    assert Counter(str(c) for c in double.cards) == Counter(family("H").split() * 2)
    assert (double.kind, double.target, double.group) == ("double_family", Suit.H, "suit H")
    assert result.cards_needed == 10


def test_cards_needed_shares_cards_across_kinds() -> None:
    # GO serves in the Binokel, the Grün pair and the four Ober
    assert best_meld("GO SU GK EO HO SO", "G").cards_needed == 6
    # two Ober of Grün in the Doppelbinokel, one in the four Ober
    assert best_meld("GO GO SU SU EO HO SO", "G").cards_needed == 7


def test_full_rundgang_hand_with_double_binokel() -> None:
    # docs/rules.md example 8: Doppelbinokel 300 + Rundgang 240 = 540
    result = best_meld(RUNDGANG + " GO SU SU", "E")
    assert (result.total, result.rundgang) == (540, True)


@pytest.mark.parametrize(
    ("cards", "ruleset", "message"),
    [
        ("SU SU SU", Ruleset(), "SU (Schellen-Unter) is given 3 times; the deck has it twice"),
        ("E7", Ruleset(), "E7 (Eichel-Sieben): this game is played without sevens"),
        ("H9", Ruleset(), "H9 (Herz-Neun) is not in the 40-card deck"),
        ("H9", SEVENS, "H9 (Herz-Neun) is not in the 48-card deck"),
        ("GO GO", SWISS, "GO (Grün-Ober) is given 2 times; the deck has it once"),
    ],
)
def test_best_meld_refuses_cards_the_deck_cannot_hold(
    cards: str, ruleset: Ruleset, message: str
) -> None:
    with pytest.raises(CardError) as caught:
        best_meld(cards, "H", ruleset)
    assert str(caught.value) == message


def test_best_meld_refuses_a_bad_card_or_trump() -> None:
    with pytest.raises(CardError, match="'HX' is not a card"):
        best_meld("HK HX", "H")
    with pytest.raises(CardError, match="'X' is not a suit"):
        best_meld("HK HO", "X")


# -- names, points, available melds ------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pair H", ("pair", Suit.H)),
        ("Pair h", ("pair", Suit.H)),
        ("  PAIR   H ", ("pair", Suit.H)),
        ("family Herz", ("family", Suit.H)),
        ("Familie in Grün", ("family", Suit.G)),
        ("double_family S", ("double_family", Suit.S)),
        ("double family s", ("double_family", Suit.S)),
        ("Doppelfamilie E", ("double_family", Suit.E)),
        ("binokel", ("binokel", None)),
        ("Double-Binokel", ("double_binokel", None)),
        ("gross_binokel", ("gross_binokel", None)),
        ("four a", ("four", Rank.A)),
        ("four 10", ("four", Rank.TEN)),
        ("eight 7", ("eight", Rank.SEVEN)),
        ("Achterle U", ("eight", Rank.U)),
        ("DISS", ("diss", None)),
    ],
)
def test_parse_meld_name(text: str, expected: tuple[str, Suit | Rank | None]) -> None:
    assert parse_meld_name(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("xyz", "'xyz' is not a meld"),
        ("", "'' is not a meld"),
        ("pair", "'pair' is not a meld: a pair needs a suit (E, G, H or S)"),
        ("family X", "'family X' is not a meld: a family needs a suit (E, G, H or S)"),
        ("four 7", "'four 7' is not a meld: 'four' needs a rank (A, 10, K, O, U)"),
        ("eight 9", "'eight 9' is not a meld: 'eight' needs a rank (A, 10, K, O, U, 7)"),
        ("binokel H", "'binokel H' is not a meld"),
    ],
)
def test_parse_meld_name_refuses(text: str, message: str) -> None:
    with pytest.raises(MeldError) as caught:
        parse_meld_name(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("name", "trump", "ruleset", "points"),
    [
        ("pair H", "H", Ruleset(), 40),
        ("pair H", "E", Ruleset(), 20),
        ("family H", "H", Ruleset(), 150),
        ("family H", "E", Ruleset(), 100),
        ("double_family H", "H", Ruleset(), 1500),
        ("binokel", None, Ruleset(), 40),
        ("double_binokel", None, Ruleset(), 300),
        ("four A", None, Ruleset(), 100),
        ("four K", None, Ruleset(), 80),
        ("four O", None, Ruleset(), 60),
        ("four U", None, Ruleset(), 40),
        ("four 10", None, Ruleset(four_tens=50), 50),
        ("eight K", None, Ruleset(), 1000),
        ("eight 7", None, SEVENS, 1000),
        ("diss", "H", SEVENS, 10),
        ("diss", "H", Ruleset(sevens=True, diss=20), 20),
        ("gross_binokel", "H", SWISS, 80),
        ("family H", "H", SWISS, 150),
        ("diss", "H", SWISS, 10),
    ],
)
def test_meld_points(name: str, trump: str | None, ruleset: Ruleset, points: int) -> None:
    assert meld_points(name, trump, ruleset) == points


@pytest.mark.parametrize(
    ("name", "ruleset", "message"),
    [
        ("diss", Ruleset(), NO_DISS),
        ("four 10", Ruleset(), "'four 10' is not a meld in these house rules"),
        ("eight 7", Ruleset(), "'eight 7' is not a meld in these house rules"),
        ("eight A", Ruleset(eight_of_a_kind=None), "'eight A' is not a meld in these house rules"),
        ("eight U", Ruleset(eight_ranks=(Rank.A,)), "'eight U' is not a meld in these house rules"),
        ("double_family H", Ruleset(double_family=None), f"'double_family H' {UNKNOWN}"),
        ("gross_binokel", Ruleset(), "'gross_binokel' is not a meld in these house rules"),
        ("double_binokel", SWISS, "'double_binokel' is not a meld in these house rules"),
        ("eight A", SWISS, "'eight A' is not a meld in these house rules"),
        ("family E", SWISS, f"{ONLY_TRUMP} 'family E' is not a meld"),
    ],
)  # fmt: skip
def test_meld_points_refuses_melds_the_ruleset_does_not_know(
    name: str, ruleset: Ruleset, message: str
) -> None:
    with pytest.raises(MeldError) as caught:
        meld_points(name, "H", ruleset)
    assert str(caught.value) == message


def test_available_melds() -> None:
    standard = available_melds()
    assert standard[:4] == ("pair E", "pair G", "pair H", "pair S")
    assert "four 10" not in standard and "diss" not in standard and "eight 7" not in standard
    assert "eight 10" in standard and "gross_binokel" not in standard
    assert len(standard) == 4 * 3 + 2 + 4 + 5
    sevens = available_melds(SEVENS)
    assert sevens[-2:] == ("eight 7", "diss")
    assert "four 10" in available_melds(Ruleset(four_tens=50))
    assert "double_family H" not in available_melds(Ruleset(double_family=None))
    assert [m for m in available_melds(Ruleset(eight_ranks=(Rank.A, Rank.K))) if "eight" in m] == [
        "eight A",
        "eight K",
    ]
    assert available_melds(SWISS) == (
        "pair E", "pair G", "pair H", "pair S",
        "family E", "family G", "family H", "family S",
        "binokel", "gross_binokel",
        "four A", "four K", "four O", "four U",
        "diss",
    )  # fmt: skip
    assert [m for m in available_melds(SWISS, "G") if "family" in m] == ["family G"]
    for ruleset in (Ruleset(), SEVENS, SWISS, Ruleset(four_tens=50, gross_binokel=80)):
        for name in available_melds(ruleset, "H"):
            assert meld_points(name, "H", ruleset) > 0


# -- check_meld ------------------------------------------------------------------


def test_check_meld_accepts_and_normalises() -> None:
    result = check_meld(["Family h", "FOUR a"], "H")
    assert result.names == ("family H", "four A")
    assert (result.total, result.cards_needed, result.rundgang, result.implied) == (
        250,
        8,
        False,
        (),
    )
    assert check_meld("family H, four A", "H") == result
    assert check_meld([Meld("family H", 0), "four A"], "H") == result


def test_check_meld_of_nothing() -> None:
    assert check_meld([], "H").total == 0
    assert check_meld("", "H").cards_needed == 0


def test_check_meld_shares_cards_across_kinds_but_adds_them_within() -> None:
    # family H + pair H: within the Herz kind K and O twice
    assert check_meld(["family H", "pair H"], "H").cards_needed == 7
    # binokel, pair G, four O: GO shared by three kinds
    assert check_meld(["binokel", "pair G", "four O"], "G").cards_needed == 6
    assert check_meld(["binokel", "pair G", "four O"], "G").total == 140


def test_check_meld_trump_values() -> None:
    assert check_meld(["pair H", "family E"], "H").total == 140
    assert check_meld(["pair H", "family E"], "E").total == 170
    assert check_meld(["pair H", "family E"], None).total == 120


@pytest.mark.parametrize(
    ("declared", "ruleset", "message"),
    [
        (["pair H"] * 3, Ruleset(), "needs Herz-König three times; the deck has two"),
        (["family H", "pair H", "pair H"], Ruleset(), HK3),
        (["pair H"] * 4, Ruleset(), "needs Herz-König 4 times; the deck has two"),
        (["binokel", "double_binokel"], Ruleset(), "needs Grün-Ober three times; the deck has two"),
        (["eight A", "four A"], Ruleset(), "needs Eichel-Daus three times; the deck has two"),
        (["diss"] * 3, SEVENS, "needs Herz-Sieben three times; the deck has two"),
        (["pair H", "pair H"], SWISS, "needs Herz-König twice; the deck has it once"),
        (["binokel", "gross_binokel"], SWISS, "needs Grün-Ober twice; the deck has it once"),
        (["pair H"] * 3, SWISS, "needs Herz-König 3 times; the deck has it once"),
    ],
)  # fmt: skip
def test_check_meld_deck_limit(declared: list[str], ruleset: Ruleset, message: str) -> None:
    with pytest.raises(MeldError) as caught:
        check_meld(declared, "H", ruleset)
    assert str(caught.value) == message


def test_check_meld_hand_size() -> None:
    three = hand_size(Ruleset(), 3)  # 12
    declared = ["family H", "family E", "four A"]  # 10 cards, and GA SA for the four aces
    assert check_meld(declared, "H", hand_size=three).cards_needed == 12
    with pytest.raises(MeldError) as caught:
        check_meld(declared, "H", hand_size=hand_size(Ruleset(), 4))
    assert str(caught.value) == "these melds need 12 cards; a hand holds 9"
    assert caught.value.params == {"needed": 12, "size": 9}
    with pytest.raises(MeldError, match="these melds need 16 cards; a hand holds 12"):
        check_meld(["eight A", "family H", "pair E", "pair G"], "H", hand_size=three)
    with pytest.raises(MeldError, match="these melds need 11 cards; a hand holds 8"):
        check_meld(["family H", "four A", "four K"], "H", SWISS, hand_size=hand_size(SWISS, 2))
    # no hand size: only the deck is checked
    assert check_meld(["eight A", "eight K", "eight O"], "H").cards_needed == 24


@pytest.mark.parametrize(
    ("declared", "ruleset", "message"),
    [
        (["binokel", "binokel"], Ruleset(), DOUBLE_BINOKEL),
        (["binokel", "gross_binokel"], Ruleset(gross_binokel=80), DOUBLE_BINOKEL),
        (["family H", "family H"], Ruleset(), (
            "two families in Herz are a Doppelfamilie: declare 'double_family H'"
        )),
        (["four A", "four A"], Ruleset(), "two 'four A' are an Achterle: declare 'eight A'"),
        (["four U", "four U"], SEVENS, "two 'four U' are an Achterle: declare 'eight U'"),
        (
            ["double_family H"],
            Ruleset(double_family=250),
            "the same cards are worth 300 as 'family H, family H', "
            "not 250 as 'double_family H': declare that",
        ),
        (
            ["eight A"],
            Ruleset(eight_of_a_kind=150),
            "the same cards are worth 200 as 'four A, four A', not 150 as 'eight A': declare that",
        ),
    ],
)  # fmt: skip
def test_check_meld_refuses_double_declarations(
    declared: list[str], ruleset: Ruleset, message: str
) -> None:
    with pytest.raises(MeldError) as caught:
        check_meld(declared, "H", ruleset)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("declared", "ruleset", "total"),
    [
        (["binokel", "binokel"], Ruleset(double_binokel=None), 80),
        (["binokel", "binokel"], Ruleset(double_binokel=60), 80),
        (["family H", "family H"], Ruleset(double_family=None), 300),
        (["family H", "family H"], Ruleset(double_family=250), 300),
        (["double_family E"], Ruleset(double_family=250), 250),
        (["four A", "four A"], Ruleset(eight_of_a_kind=None), 200),
        (["four U", "four U"], Ruleset(eight_ranks=(Rank.A,)), 80),
        (["four A", "four A"], Ruleset(eight_of_a_kind=200), 200),
        (["eight A"], Ruleset(eight_of_a_kind=200), 200),
        (["pair H", "pair H"], Ruleset(), 80),
        (["binokel", "gross_binokel"], Ruleset(gross_binokel=80, double_binokel=None), 120),
    ],
)
def test_check_meld_accepts_doubles_where_the_bigger_meld_is_off_or_no_better(
    declared: list[str], ruleset: Ruleset, total: int
) -> None:
    assert check_meld(declared, "H", ruleset).total == total


@pytest.mark.parametrize(
    ("declared", "trump", "ruleset", "message"),
    [
        (["xyz"], "H", Ruleset(), "'xyz' is not a meld"),
        (["pair H", "Familie"], "H", Ruleset(), (
            "'Familie' is not a meld: a family needs a suit (E, G, H or S)"
        )),
        (["diss"], "H", Ruleset(), NO_DISS),
        (["diss"], None, SEVENS, (
            "the Diss is the seven of trump: name the trump before declaring 'diss'"
        )),
        (["four 10"], "H", Ruleset(), "'four 10' is not a meld in these house rules"),
        (["double_family H"], "H", Ruleset(double_family=None), f"'double_family H' {UNKNOWN}"),
        (["eight K"], "H", Ruleset(eight_of_a_kind=None), f"'eight K' {UNKNOWN}"),
        (["family E"], "H", SWISS, f"{ONLY_TRUMP} 'family E' is not a meld"),
        (["family H"], None, SWISS, f"{ONLY_TRUMP} 'family H' is not a meld"),
        (["eight A"], "H", SWISS, "'eight A' is not a meld in these house rules"),
        (["double_binokel"], "H", SWISS, "'double_binokel' is not a meld in these house rules"),
    ],
)  # fmt: skip
def test_check_meld_refuses_unknown_melds(
    declared: list[str], trump: str | None, ruleset: Ruleset, message: str
) -> None:
    with pytest.raises(MeldError) as caught:
        check_meld(declared, trump, ruleset)
    assert str(caught.value) == message


def test_check_meld_implied_rundgang() -> None:
    result = check_meld(["pair E", "pair G", "pair H", "pair S"], "E")
    assert result.total == 100
    assert result.rundgang
    assert [m.name for m in result.implied] == ["four K", "four O"]
    assert result.total + sum(m.points for m in result.implied) == 240
    # declaring the whole Rundgang implies nothing more
    whole = check_meld(["pair E", "pair G", "pair H", "pair S", "four K", "four O"], "E")
    assert (whole.total, whole.rundgang, whole.implied) == (240, True, ())
    # the fours imply the pairs
    fours = check_meld(["four K", "four O"], "E")
    assert fours.rundgang
    assert Counter(m.name for m in fours.implied) == Counter(
        ["pair E", "pair G", "pair H", "pair S"]
    )
    assert sum(m.points for m in fours.implied) == 100


@pytest.mark.parametrize(
    ("declared", "trump", "ruleset", "implied"),
    [
        (["family E", "pair G", "pair H", "pair S"], "E", Ruleset(), ["four K", "four O"]),
        (["binokel", "four O"], "G", Ruleset(), []),
        (["binokel", "pair G", "four O"], "G", Ruleset(), []),
        (["eight 7"], "H", SEVENS, ["diss", "diss"]),
        (["eight K", "eight O"], "H", Ruleset(), ["pair E", "pair E", "pair G", "pair G",
                                                   "pair H", "pair H", "pair S", "pair S"]),
        (["eight O", "eight U"], "H", Ruleset(), ["double_binokel"]),
        (["four O", "four U"], "H", Ruleset(), ["binokel"]),
        (["four K", "four O", "four U"], "H", SWISS,
         ["gross_binokel", "pair E", "pair G", "pair H", "pair S"]),
        (["pair G", "four O", "four U"], "H", SWISS, ["gross_binokel"]),
        # a family and five Achterle hold a Doppelfamilie: it would replace, not add
        (["family H", "eight A", "eight 10", "eight K", "eight O", "eight U"], "H", Ruleset(),
         ["double_family E", "double_family G", "double_family S", "double_binokel"]),
    ],
)  # fmt: skip
def test_check_meld_implied(
    declared: list[str], trump: str, ruleset: Ruleset, implied: list[str]
) -> None:
    result = check_meld(declared, trump, ruleset)
    assert Counter(m.name for m in result.implied) == Counter(implied)


# -- properties --------------------------------------------------------------------

RULESETS = [
    Ruleset(),
    SEVENS,
    SWISS,
    PRESETS["sechser"],
    Ruleset(double_family=None, double_binokel=None, eight_of_a_kind=None),
    Ruleset(double_family=250, eight_of_a_kind=150, four_tens=50),
    Ruleset(eight_ranks=(Rank.A, Rank.U), four_tens=30, gross_binokel=80),
    Ruleset(sevens=True, eight_ranks=(Rank.SEVEN, Rank.K), diss=20, double_binokel=70),
    Ruleset(family=None, double_family=110),
]
TRUMPS = [None, *Suit]


@st.composite
def hands(draw: st.DrawFn) -> tuple[list[Card], Suit | None, Ruleset]:
    ruleset = draw(st.sampled_from(RULESETS))
    trump = draw(st.sampled_from(TRUMPS))
    cards = sorted(deck(ruleset).elements())
    size = max(16, hand_size(ruleset, 3)) if ruleset.deck == "binokel" else 8
    picks = draw(st.lists(st.sampled_from(range(len(cards))), unique=True, max_size=size))
    return [cards[i] for i in picks], trump, ruleset


@st.composite
def rich_hands(draw: st.DrawFn) -> tuple[list[Card], Suit | None, Ruleset]:
    """Hands drawn from a few suits and ranks only, so that big melds turn up."""
    ruleset = draw(st.sampled_from(RULESETS))
    trump = draw(st.sampled_from(TRUMPS))
    suits = draw(st.lists(st.sampled_from(list(Suit)), min_size=1, max_size=4, unique=True))
    ranks = draw(st.lists(st.sampled_from(ruleset.ranks), min_size=1, max_size=4, unique=True))
    pool = [c for c in sorted(deck(ruleset).elements()) if c.suit in suits or c.rank in ranks]
    picks = draw(st.lists(st.sampled_from(range(len(pool))), unique=True, max_size=16))
    return [pool[i] for i in picks], trump, ruleset


def reference_total(cards: list[Card], trump: Suit | None, ruleset: Ruleset) -> int:
    """Section 3 written out by hand, independently of the search in melds.py."""
    r = ruleset
    held = Counter(cards)
    total = 0
    for suit in Suit:
        a, t, k, o, u = (held[Card(suit, x)] for x in (Rank.A, Rank.TEN, Rank.K, Rank.O, Rank.U))
        pair = r.trump_pair if suit == trump else r.pair
        fam = r.trump_family if suit == trump else r.family
        best = 0
        for f in range(min(a, t, k, o, u) + 1):
            pairs = pair * min(k - f, o - f)
            if fam is not None or f == 0:
                best = max(best, pairs + f * (fam or 0))
            if f == 2 and r.double_family is not None:
                best = max(best, pairs + r.double_family)
        total += best
    fours = {Rank.A: r.four_aces, Rank.TEN: r.four_tens, Rank.K: r.four_kings}
    fours |= {Rank.O: r.four_obers, Rank.U: r.four_unters}
    for rank in r.ranks:
        m = min(held[Card(s, rank)] for s in Suit)
        four = fours.get(rank) or 0
        eight = r.eight_of_a_kind if rank in r.effective_eight_ranks else None
        total += max(m * four, eight if m == 2 and eight is not None else 0)
    go, su, gk = held[Card(Suit.G, Rank.O)], held[Card(Suit.S, Rank.U)], held[Card(Suit.G, Rank.K)]
    b = min(go, su)
    gross = r.gross_binokel or 0
    binokel_best = 0
    for g in range(min(b, gk) + 1):
        binokel_best = max(binokel_best, g * gross + (b - g) * r.binokel)
    if b == 2 and r.double_binokel is not None:
        binokel_best = max(binokel_best, r.double_binokel)
    total += binokel_best
    if trump is not None and r.has_sevens:
        total += r.diss * held[Card(trump, Rank.SEVEN)]
    return total


@settings(deadline=None)
@given(st.one_of(hands(), rich_hands()))
def test_best_meld_passes_check_meld(hand: tuple[list[Card], Suit | None, Ruleset]) -> None:
    cards, trump, ruleset = hand
    best = best_meld(cards, trump, ruleset)
    assert best.total == sum(m.points for m in best.melds)
    assert best.cards_needed <= len(cards)
    checked = check_meld(best.names, trump, ruleset)
    assert checked.total == best.total
    assert checked.names == best.names
    assert checked.cards_needed == best.cards_needed
    assert checked.implied == ()  # every kind was already counted at its best
    assert checked.rundgang == best.rundgang
    # the needed cards are part of the hand
    needed: Counter[Card] = Counter()
    for group in {m.group for m in best.melds}:
        in_group = Counter(c for m in best.melds if m.group == group for c in m.cards)
        needed |= in_group
    assert not needed - Counter(cards)
    assert sum(needed.values()) == best.cards_needed


@settings(deadline=None)
@given(st.one_of(hands(), rich_hands()))
def test_best_meld_matches_a_reference(hand: tuple[list[Card], Suit | None, Ruleset]) -> None:
    cards, trump, ruleset = hand
    assert best_meld(cards, trump, ruleset).total == reference_total(cards, trump, ruleset)


@settings(deadline=None)
@given(st.one_of(hands(), rich_hands()), st.data())
def test_more_cards_never_meld_less(
    hand: tuple[list[Card], Suit | None, Ruleset], data: st.DataObject
) -> None:
    cards, trump, ruleset = hand
    picks = data.draw(st.lists(st.sampled_from(range(len(cards))), unique=True)) if cards else []
    subset = [cards[i] for i in picks]
    assert best_meld(subset, trump, ruleset).total <= best_meld(cards, trump, ruleset).total


@settings(deadline=None)
@given(
    st.sampled_from(RULESETS),
    st.sampled_from(TRUMPS),
    st.data(),
)
def test_check_meld_of_any_declaration(
    ruleset: Ruleset, trump: Suit | None, data: st.DataObject
) -> None:
    """Declarations check out exactly when best_meld of the needed cards agrees."""
    names = [n for n in available_melds(ruleset, trump) if not (n == "diss" and trump is None)]
    names = [n for n in names if trump is not None or not n.startswith("family")
             or ruleset.family is not None]  # fmt: skip
    declared = data.draw(st.lists(st.sampled_from(names), max_size=5))
    try:
        result = check_meld(declared, trump, ruleset)
    except MeldError:
        return
    assert result.total == sum(meld_points(n, trump, ruleset) for n in declared)
    needed: Counter[Card] = Counter()
    for group in {m.group for m in result.melds}:
        needed |= Counter(c for m in result.melds if m.group == group for c in m.cards)
    assert result.cards_needed == sum(needed.values())
    best = best_meld(needed.elements(), trump, ruleset)
    offered = result.total + sum(m.points for m in result.implied)
    # the declared melds are part of the best on their cards, unless a best meld
    # replaces a declared one (a family beside five Achterle: a Doppelfamilie)
    if not Counter(result.names) - Counter(best.names):
        assert best.total == offered
        assert Counter(best.names) == Counter(result.names) + Counter(
            m.name for m in result.implied
        )
    else:
        assert best.total > offered


# -- best_kept: the declarer's melds after pressing --------------------------------

PRESSING = "HA H10 HK HO HU EA E10 EK EO EU GO SU GA SA GK SK"


@pytest.mark.parametrize(
    ("cards", "trump", "keep", "ruleset", "total"),
    [
        # every card melds: four to press, the family E and the Binokel give way
        (PRESSING, "H", 12, Ruleset(), 350),
        # fits already: the same as best_meld
        (RUNDGANG, "E", 12, Ruleset(), 240),
        # one card: nothing melds
        (family("H"), "H", 1, Ruleset(), 0),
        # a Doppelfamilie needs ten cards; with nine kept, a family and a trump pair remain
        (family("H") + " " + family("H"), "H", 9, Ruleset(), 190),
        (PRESSING, "H", 0, Ruleset(), 0),
        (PRESSING, "H", -3, Ruleset(), 0),
        (PRESSING, "H", 40, Ruleset(), 490),
        # the Swiss deck (sevens): the Diss is one card
        ("H7 HA H10 HK HO HU", "H", 1, SWISS, 10),
    ],
)
def test_best_kept_table(cards: str, trump: str, keep: int, ruleset: Ruleset, total: int) -> None:
    result = best_kept(cards, trump, keep, ruleset)
    assert result.total == total
    assert result.cards_needed <= max(keep, 0)


def test_best_kept_refuses_cards_like_best_meld() -> None:
    with pytest.raises(CardError, match="the deck has it twice"):
        best_kept("SU SU SU", "H", 2)


def _brute_force(cards: list[Card], trump: str, keep: int, ruleset: Ruleset) -> int:
    """Every way to keep ``keep`` of the cards (duplicates tried once)."""
    if keep >= len(cards):
        return best_meld(cards, trump, ruleset).total
    kept = {tuple(sorted(c, key=str)) for c in combinations(cards, keep)}
    return max(best_meld(list(k), trump, ruleset).total for k in kept)


MELD_CARDS = [f"{s}{r}" for s in "EGHS" for r in ("A", "10", "K", "O", "U")]


@settings(max_examples=120, deadline=None)
@given(
    picked=st.lists(st.sampled_from(MELD_CARDS), min_size=1, max_size=9),
    trump=st.sampled_from(list("EGHS")),
    drop=st.integers(min_value=0, max_value=4),
    preset=st.sampled_from(["standard", "schweizer", "kreuzbinokel"]),
)
def test_best_kept_is_the_best_of_every_way_to_press(
    picked: list[str], trump: str, drop: int, preset: str
) -> None:
    ruleset = PRESETS[preset]
    counts = Counter(picked)
    cards = [Card.parse(c) for c, n in counts.items() for _ in range(min(n, ruleset.copies))]
    keep = max(len(cards) - drop, 0)
    result = best_kept(cards, trump, keep, ruleset)
    assert result.total == _brute_force(cards, trump, keep, ruleset)
    assert result.cards_needed <= keep
    # what it names is possible on the cards it had
    assert result.total <= best_meld(cards, trump, ruleset).total


# -- a meld shown on its own during play (the two-player games, section 9) ------------

ZWEIER = PRESETS["zweier"]


@pytest.mark.parametrize(
    ("ruleset", "name", "points", "trump"),
    [
        (ZWEIER, "pair H", 40, "H"),
        (ZWEIER, "pair H", 20, "E"),
        (ZWEIER, "pair H", 20, None),  # the button before the trump is turned
        (ZWEIER, "pair H", 40, None),  # written before the trump, which became Herz
        (ZWEIER, "double_binokel", 300, "G"),
        (SWISS, "family S", 150, None),  # only in trump: the value it has there
        (SWISS, "gross_binokel", 80, "E"),
        (SWISS, "diss", 10, "H"),  # the Dix
    ],
)
def test_a_shown_meld_at_its_value(
    ruleset: Ruleset, name: str, points: int, trump: str | None
) -> None:
    assert check_shown_meld(name, points, trump, ruleset) == points


@pytest.mark.parametrize(
    ("ruleset", "name", "points", "trump", "message"),
    [
        (ZWEIER, "pair H", 40, "E", "'pair H' is worth 20 here, not 40"),
        (ZWEIER, "pair H", 30, None, "'pair H' is worth 20 or 40 here, not 30"),
        (ZWEIER, "four A", 5000, None, "'four A' is worth 100 here, not 5000"),
        (SWISS, "family S", 150, "H", ONLY_TRUMP),
        (ZWEIER, "diss", 10, None, NO_DISS),
        (ZWEIER, "four 10", 100, "H", UNKNOWN),
    ],
)
def test_a_shown_meld_at_another_value_is_refused(
    ruleset: Ruleset, name: str, points: int, trump: str | None, message: str
) -> None:
    with pytest.raises(MeldError, match=message.replace("(", r"\(")):
        check_shown_meld(name, points, trump, ruleset)


@given(
    st.sampled_from([ZWEIER, SWISS, SEVENS]),
    st.sampled_from([None, *Suit]),
    st.integers(-10, 3000),
)
def test_every_offered_meld_passes_and_nothing_else(
    ruleset: Ruleset, trump: Suit | None, other: int
) -> None:
    for name in available_melds(ruleset, trump):
        value = offered_points(name, trump, ruleset)
        assert check_shown_meld(name, value, trump, ruleset) == value
        # and whatever it is shown under, a trump named later keeps it
        assert check_shown_meld(name, value, None, ruleset) == value
        if other != value and trump is not None:
            with pytest.raises(MeldError):
                check_shown_meld(name, other, trump, ruleset)
