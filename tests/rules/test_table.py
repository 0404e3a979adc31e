"""Strict house rules (docs/rules.md §8) and the check of a table before its first hand."""

from __future__ import annotations

import contextlib
import json
import math
from dataclasses import fields
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import PRESETS, RulesError, Ruleset, check_table, hand_size, replay
from scorer.rules.ruleset import BOOL_FIELDS, CHOICES, INT_RANGES, OPTIONAL_INT_FIELDS

SPECIALS = ("durch", "durch_open", "durch_hand", "bettel", "bettel_open", "bettel_hand")


def test_every_field_has_a_type_check() -> None:
    checked = (
        set(INT_RANGES)
        | set(OPTIONAL_INT_FIELDS)
        | set(BOOL_FIELDS)
        | set(CHOICES)
        | {"preset", "eight_ranks", "special_values", "failed_bonus", "going_off_bonus", "dabb"}
    )
    assert checked == {f.name for f in fields(Ruleset)}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"target": math.nan}, "'target'"),
        ({"target": math.inf}, "'target'"),
        ({"pair": "x"}, "'pair'"),
        ({"team_size": True}, "'team_size'"),
        ({"players": 3.0}, "'players'"),
        ({"min_bid": 150.0}, "'min_bid'"),
        ({"failed_extra": "x"}, "'failed_extra'"),
        ({"failed_extra": -100}, "'failed_extra'"),
        ({"pair": 10_001}, "'pair'"),
        ({"target": 10**4000}, "'target'"),
        ({"family": False}, "'family'"),
        ({"four_tens": 2.5}, "'four_tens'"),
        ({"sevens": 1}, "'sevens'"),
        ({"round_tricks": "yes"}, "'round_tricks'"),
        ({"deck": ["binokel"]}, "'deck'"),
        ({"end": None}, "'end'"),
        ({"special_values": {"durch": 1.5}}, "'durch'"),
        ({"special_values": {"bettel": True}}, "'bettel'"),
        ({"special_values": "durch"}, "'special_values'"),
        ({"special_values": [["durch"]]}, "'special_values'"),
        ({"going_off_bonus": "flat 99999999999999999999"}, "'going_off_bonus'"),
        ({"failed_bonus": "none\n"}, "'failed_bonus'"),
        ({"failed_bonus": "flat ٣"}, "'failed_bonus'"),  # an Arabic-Indic three
        ({"eight_ranks": "A"}, "'eight_ranks'"),
        ({"eight_ranks": ["A", "A"]}, "'eight_ranks'"),
        ({"eight_ranks": [1]}, "'eight_ranks'"),
        ({"preset": ["standard"]}, "'preset'"),
    ],
)
def test_wrongly_typed_house_rules_name_the_field(data: dict[str, Any], field: str) -> None:
    with pytest.raises(RulesError, match=field):
        Ruleset.from_dict(data)


def test_the_limits_themselves_are_allowed() -> None:
    r = Ruleset.from_dict(
        {
            "pair": 0,
            "trump_pair": 10_000,
            "target": 100_000,
            "failed_bonus": "flat 10000",
            "special_values": {"durch": None, "bettel": 0},
            "eight_ranks": ["A", "u"],
        }
    )
    assert (r.pair, r.trump_pair, r.target, r.special_value("bettel")) == (0, 10_000, 100_000, 0)
    assert Ruleset.from_dict(json.loads(json.dumps(r.to_dict()))) == r


def test_a_message_quotes_a_hostile_value_short_and_printable() -> None:
    with pytest.raises(RulesError) as caught:
        Ruleset.from_dict({"pair": "\ud800" + "x" * 500})
    text = str(caught.value)
    assert len(text) < 200 and "\\ud800" in text
    text.encode("utf-8")  # no lone surrogate in the message


def test_not_an_object() -> None:
    with pytest.raises(RulesError, match="object"):
        Ruleset.from_dict([1, 2])  # type: ignore[arg-type]


# -- check_table ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "players", "message"),
    [
        (PRESETS["zweier"].replace(players=3), 3, "two players"),
        (Ruleset(players=6), 6, "40-card deck"),
        (Ruleset(players=5, dealer_sits_out=True, sevens=True), 5, None),
        (Ruleset(players=7, dealer_sits_out=True), 7, "40-card deck"),
        (PRESETS["turnier"].replace(deals=10), 3, "multiple of the players"),
        (PRESETS["kreuzbinokel"].replace(dealer_sits_out=True), 4, "sit out"),
        (Ruleset(), 4, "3 players"),
        (PRESETS["schweizer"], 2, None),
        (PRESETS["zweier"], 2, None),
        (PRESETS["sechser"], 6, None),
        (PRESETS["vier_mit_aussetzer"], 4, None),
    ],
)
def test_check_table(ruleset: Ruleset, players: int, message: str | None) -> None:
    if message is None:
        check_table(ruleset, players)
        replay(ruleset, players, [])
    else:
        with pytest.raises(RulesError, match=message):
            check_table(ruleset, players)


def test_check_table_agrees_with_hand_size() -> None:
    for players in range(3, 9):
        for sevens in (False, True):
            ruleset = Ruleset(players=players, sevens=sevens)
            try:
                hand_size(ruleset, players)
            except RulesError:
                with pytest.raises(RulesError):
                    check_table(ruleset, players)
            else:
                check_table(ruleset, players)


# -- a mutated ruleset is refused or valid, never anything else ---------------------

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([-1, 0, 1, 2, 3, 4, 6, 8, 9, 10_000, 10_001, 100_000, 100_001]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["points", "stars", "piquet", "deals", "at_once", "flat 30", "half_bid"]),
)
ODD_VALUES = st.one_of(
    SCALARS,
    st.lists(st.one_of(st.sampled_from(["A", "10", "K", "7", "x"]), SCALARS), max_size=4),
    st.dictionaries(st.sampled_from([*SPECIALS, "ramsch"]), SCALARS),
    st.lists(st.tuples(st.sampled_from(SPECIALS), SCALARS), max_size=3),
)

# what a valid ruleset holds, written out here independently of the implementation
POINTS = (0, 10_000)
EXPECTED_INTS = {
    "players": (2, 8),
    "team_size": (1, 2),
    "target": (1, 100_000),
    "deals": (1, 10_000),
    "bid_step": (1, 10_000),
    **{
        name: POINTS
        for name in (
            "last_trick",
            "min_bid",
            "pair",
            "trump_pair",
            "trump_family",
            "binokel",
            "four_aces",
            "four_kings",
            "four_obers",
            "four_unters",
            "diss",
            "failed_multiplier",
            "failed_extra",
            "special_failed_multiplier",
        )
    },
}
# the melds that can be switched off (left empty in the setup form)
EXPECTED_OPTIONAL = ("family", "double_family", "double_binokel", "gross_binokel")
EXPECTED_OPTIONAL += ("four_tens", "eight_of_a_kind")
# every option the class declares ``bool`` (one list, read off the class: no copy to drift)
EXPECTED_BOOLS = BOOL_FIELDS


def assert_valid(ruleset: Ruleset) -> None:
    for name, (low, high) in EXPECTED_INTS.items():
        value = getattr(ruleset, name)
        assert type(value) is int and low <= value <= high, (name, value)
    for name in EXPECTED_OPTIONAL:
        value = getattr(ruleset, name)
        assert value is None or (type(value) is int and 0 <= value <= 10_000), (name, value)
    for name in EXPECTED_BOOLS:
        assert type(getattr(ruleset, name)) is bool, name
    assert [name for name, _ in ruleset.special_values] == list(SPECIALS)
    for name, value in ruleset.special_values:
        assert value is None or (type(value) is int and 0 <= value <= 10_000), (name, value)
    assert ruleset.deck in ("binokel", "piquet") and ruleset.special_tally in ("points", "stars")
    assert ruleset.end in (
        "with_game",
        "after_any_hand_but_going_off",
        "after_any_hand",
        "deals",
        "at_once",
    )
    for name in ("failed_bonus", "going_off_bonus"):
        kind, _, amount = getattr(ruleset, name).partition(" ")
        assert kind in ("none", "half_bid") or (amount.isascii() and 0 <= int(amount) <= 10_000)
    assert ruleset.eight_ranks is None or len(set(ruleset.eight_ranks)) == len(ruleset.eight_ranks)


@given(
    preset=st.sampled_from(sorted(PRESETS)),
    changes=st.dictionaries(
        st.sampled_from([f.name for f in fields(Ruleset)]),
        ODD_VALUES,
        max_size=3,
    ),
)
def test_a_mutated_ruleset_is_refused_or_valid(preset: str, changes: dict[str, Any]) -> None:
    data = {**PRESETS[preset].to_dict(), **changes}
    try:
        ruleset = Ruleset.from_dict(data)
    except RulesError:
        return
    assert_valid(ruleset)
    assert Ruleset.from_dict(json.loads(json.dumps(ruleset.to_dict()))) == ruleset
    with contextlib.suppress(RulesError):  # a table the rules refuse is fine; a crash is not
        check_table(ruleset, ruleset.players)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_is_valid(name: str) -> None:
    assert_valid(PRESETS[name])
