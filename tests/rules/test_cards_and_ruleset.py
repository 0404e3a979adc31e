"""Cards and their notation (docs/rules.md §2), the ruleset and its presets (§8)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import (
    PRESET_DESCRIPTIONS,
    PRESETS,
    Card,
    CardError,
    Rank,
    RulesError,
    Ruleset,
    Suit,
    dabb_size,
    deck,
    format_cards,
    hand_size,
    parse_cards,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GO", "GO"),
        ("go", "GO"),
        ("sU", "SU"),
        ("h10", "H10"),
        ("EA", "EA"),
        ("e7", "E7"),
        ("S9", "S9"),
        ("g8", "G8"),
    ],
)
def test_a_card_parses_case_insensitively_and_prints_canonically(text: str, expected: str) -> None:
    card = Card.parse(text)
    assert str(card) == expected
    assert eval(repr(card)) == card  # repr round-trips


def test_parse_cards_accepts_commas_spaces_and_semicolons() -> None:
    cards = parse_cards("EA e10 GO,SU;hk")
    assert format_cards(cards) == "EA E10 GO SU HK"
    assert parse_cards(["GO", Card.parse("SU")]) == parse_cards("GO SU")
    assert parse_cards("") == []


@pytest.mark.parametrize("token", ["HX", "G11", "XO", "10H", "GOO", "H1", "ü"])
def test_a_bad_token_is_named_in_the_error(token: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(f"GO {token} SU")
    assert f"'{token}' is not a card" in str(info.value)
    assert info.value.params == {"token": token}


@pytest.mark.parametrize(
    ("card", "german", "points"),
    [
        ("GO", "Grün-Ober", 3),
        ("SU", "Schellen-Unter", 2),
        ("HK", "Herz-König", 4),
        ("E10", "Eichel-Zehn", 10),
        ("EA", "Eichel-Daus", 11),
        ("H7", "Herz-Sieben", 0),
    ],
)
def test_german_names_and_card_points(card: str, german: str, points: int) -> None:
    assert Card.parse(card).german == german
    assert Card.parse(card).points == points


def test_suits_and_ranks_are_their_notation() -> None:
    assert Suit.H == "H" and Rank.TEN == "10"
    assert Suit.parse("schellen") is Suit.S
    with pytest.raises(CardError):
        Suit.parse("Kreuz")
    with pytest.raises(CardError):
        Rank.parse("B")


@given(st.lists(st.sampled_from(sorted(deck(Ruleset(sevens=True)))), max_size=20))
def test_printing_and_parsing_mirror_each_other(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == cards


@pytest.mark.parametrize(
    ("ruleset", "cards", "trick_total"),
    [
        (Ruleset(), 40, 250),
        (Ruleset(sevens=True), 48, 250),
        (PRESETS["schweizer"], 32, 130),
        (Ruleset(last_trick=20), 40, 260),
    ],
)
def test_decks_and_the_cross_check_total(ruleset: Ruleset, cards: int, trick_total: int) -> None:
    assert sum(deck(ruleset).values()) == cards
    assert ruleset.trick_total == trick_total


@pytest.mark.parametrize(
    ("players", "sevens", "hand", "dabb"),
    [
        (3, False, 12, 4),
        (4, False, 9, 4),
        (5, False, 7, 5),
        (3, True, 15, 3),
        (4, True, 11, 4),
        (5, True, 9, 3),
        (6, True, 7, 6),
        (8, True, 6, 0),
    ],
)
def test_hand_sizes_of_section_2(players: int, sevens: bool, hand: int, dabb: int) -> None:
    ruleset = Ruleset(sevens=sevens)
    assert hand_size(ruleset, players) == hand
    assert dabb_size(ruleset, players) == dabb
    # every card is dealt: hands plus Dabb make the deck
    assert players * hand + dabb == sum(deck(ruleset).values())


@pytest.mark.parametrize(("players", "sevens"), [(6, False), (8, False), (7, True), (2, False)])
def test_unsupported_tables_are_refused(players: int, sevens: bool) -> None:
    with pytest.raises(RulesError):
        hand_size(Ruleset(sevens=sevens), players)


def test_the_swiss_game_holds_eight_and_zweier_has_no_fixed_hand() -> None:
    assert hand_size(PRESETS["schweizer"], 2) == 8
    with pytest.raises(RulesError, match="no fixed hand size"):
        hand_size(PRESETS["zweier"], 2)


def test_the_default_column_of_section_8() -> None:
    r = Ruleset()
    assert (r.min_bid, r.bid_step, r.pair, r.trump_pair, r.family, r.trump_family) == (
        150,
        10,
        20,
        40,
        100,
        150,
    )
    assert (r.double_family, r.binokel, r.double_binokel, r.eight_of_a_kind) == (
        1500,
        40,
        300,
        1000,
    )
    assert (r.four_aces, r.four_kings, r.four_obers, r.four_unters, r.four_tens) == (
        100,
        80,
        60,
        40,
        None,
    )
    assert (r.failed_multiplier, r.failed_extra, r.failed_bonus) == (2, 0, "none")
    assert r.going_off_bonus == "per_player 10"
    assert (r.end, r.target, r.deals) == ("with_game", 1000, 12)
    assert r.special_value("durch_hand") == 2000 and r.special_value("bettel_open") == 1500
    assert r.effective_eight_ranks == (Rank.A, Rank.TEN, Rank.K, Rank.O, Rank.U)
    assert Ruleset(sevens=True).effective_eight_ranks[-1] == Rank.SEVEN


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_round_trips_through_json_and_is_described(name: str) -> None:
    preset = PRESETS[name]
    assert preset.preset == name
    assert name in PRESET_DESCRIPTIONS
    data = json.loads(json.dumps(preset.to_dict()))
    assert Ruleset.from_dict(data) == preset
    assert preset.overrides() == {}


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        ("kreuzbinokel", {"players": 4, "team_size": 2, "parties": 2}),
        ("sechser", {"players": 6, "team_size": 2, "sevens": True, "parties": 3}),
        (
            "turnier",
            {
                "going_off_bonus": "half_bid",
                "failed_bonus": "half_bid",
                "unreachable_bid_doubles": True,
                "round_tricks": True,
                "end": "deals",
                "specials": (),
            },
        ),
        (
            "vier_mit_aussetzer",
            {
                "players": 4,
                "dealer_sits_out": True,
                "special_tally": "stars",
                "going_off_bonus": "flat 30",
                "end": "deals",
                "deals": 12,
            },
        ),
        ("zweier", {"players": 2, "open_play": True, "deck": "binokel"}),
        (
            "schweizer",
            {"players": 2, "deck": "piquet", "gross_binokel": 80, "end": "at_once", "family": None},
        ),
    ],
)
def test_presets_bundle_their_house_rules(name: str, fields: dict[str, object]) -> None:
    preset = PRESETS[name]
    for field, value in fields.items():
        assert getattr(preset, field) == value, field


def test_a_preset_plus_overrides() -> None:
    r = Ruleset.from_dict(
        {"preset": "kreuzbinokel", "target": 1500, "special_values": {"durch": None}}
    )
    assert (r.players, r.team_size, r.target) == (4, 2, 1500)
    assert r.special_value("durch") is None and r.special_value("bettel") == 1000
    assert r.overrides() == {"target": 1500, "special_values": {**dict(r.special_values)}}
    assert Ruleset.from_dict(r.to_dict()) == r


@pytest.mark.parametrize(
    "data",
    [
        {"preset": "doppelkopf"},
        {"targett": 1000},
        {"end": "never"},
        {"going_off_bonus": "per_player ten"},
        {"players": 9},
        {"players": 5, "team_size": 2},
        {"min_bid": 155},
        {"bid_step": 0},
        {"target": 0},
        {"special_values": {"ramsch": 100}},
        {"special_tally": "beans"},
        {"deck": "skat"},
    ],
)
def test_bad_house_rules_are_refused_with_a_rules_error(data: dict[str, object]) -> None:
    with pytest.raises(RulesError):
        Ruleset.from_dict(data)


def test_a_ruleset_is_an_immutable_value() -> None:
    r = Ruleset()
    with pytest.raises(AttributeError):
        r.target = 500  # type: ignore[misc]
    assert hash(r) == hash(Ruleset())
    assert r.replace(target=500).target == 500 and r.target == 1000
