"""Settlement of one hand: docs/rules.md sections 4, 5 and 8, with section 11's worked examples."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules import (
    OUTCOMES,
    PRESETS,
    BidError,
    RulesError,
    Ruleset,
    TrickError,
    complete_tricks,
    deck,
    settle,
    settle_hand,
)
from tests.rules.presets import AUSSETZER, KREUZ, SCHWEIZER, SECHSER, STANDARD, TURNIER, ZWEIER

# -- the worked examples of docs/rules.md section 11 ----------------------------


def test_example_7_failed_with_250_melds() -> None:
    result = settle(
        STANDARD, players=3, bidder=0, bid=390, melds=[250, 20, 40], tricks=[90, 100, 60]
    )
    assert result.declarer_count == 340
    assert result.made is False
    assert result.reason == "failed"
    assert result.points == (-780, 20 + 100, 40 + 60)


def test_example_8_made_with_double_binokel_and_rundgang() -> None:
    points = settle_hand(
        STANDARD, players=3, bidder=0, bid=380, melds=[300 + 240, 0, 0], tricks=[90, 100, 60]
    )
    assert points[0] == 630


@pytest.mark.parametrize(
    ("bid", "melds", "expected", "made"),
    [(180, 60, 190, True), (220, 80, -440, False)],
)
def test_example_9(bid: int, melds: int, expected: int, made: bool) -> None:
    result = settle(
        STANDARD, players=3, bidder=0, bid=bid, melds=[melds, 0, 0], tricks=[130, 70, 50]
    )
    assert result.points[0] == expected
    assert result.made is made


def test_example_10_going_off() -> None:
    result = settle(STANDARD, players=3, bidder=0, bid=250, outcome="gone_off", melds=[0, 40, 0])
    assert result.points == (-250, 70, 30)
    assert result.reason == "gone_off"


def test_example_11_complete_tricks() -> None:
    assert complete_tricks(STANDARD, [90, 100, None]) == [90, 100, 60]
    with pytest.raises(TrickError) as info:
        complete_tricks(STANDARD, [90, 100, 70])
    assert "260" in str(info.value)
    assert "10 too many" in str(info.value)
    assert info.value.params == {"sum": 260, "difference": 10, "total": 250}


@pytest.mark.parametrize(("bid", "bonus"), [(300, 150), (310, 160)])
def test_example_12_half_bid(bid: int, bonus: int) -> None:
    rules = Ruleset(going_off_bonus="half_bid")
    points = settle_hand(rules, players=3, bidder=0, bid=bid, outcome="gone_off", melds=[0, 40, 0])
    assert points == [-bid, 40 + bonus, bonus]


@pytest.mark.parametrize(("won", "expected"), [(True, 1000), (False, -2000)])
def test_example_13_durch(won: bool, expected: int) -> None:
    points = settle_hand(STANDARD, players=3, bidder=2, outcome="durch", won=won)
    assert points == [0, 0, expected]


# -- tables of real hands ---------------------------------------------------

HANDS: list[Any] = [
    # (ruleset, players, kwargs, points, reason)
    pytest.param(
        STANDARD,
        3,
        dict(bidder=0, bid=390, melds=[250, 20, 40], tricks=[90, 160, 0]),
        (-780, 180, 0),
        "failed",
        id="opponent-without-trick-loses-melds",
    ),
    pytest.param(
        STANDARD,
        3,
        dict(bidder=1, bid=200, melds=[0, 100, 0], tricks=[80, 100, 70]),
        (80, 200, 70),
        "made",
        id="made-exactly",
    ),
    pytest.param(
        STANDARD,
        3,
        dict(bidder=0, bid=150, melds=[150, 0, 0], tricks=[10, 140, 100]),
        (160, 140, 100),
        "made",
        id="pressed-cards-count-as-a-trick-by-default",
    ),
    pytest.param(
        STANDARD,
        3,
        dict(
            bidder=0,
            bid=150,
            melds=[150, 0, 0],
            tricks=[10, 140, 100],
            took_trick=[False, True, True],
        ),
        (-300, 140, 100),
        "failed",
        id="took-trick-explicit-no-trick",
    ),
    pytest.param(
        STANDARD,
        3,
        dict(
            bidder=2,
            bid=160,
            melds=[20, 40, 0],
            tricks=[0, 130, 120],
            took_trick=[True, True, True],
        ),
        (20, 170, -320),
        "failed",
        id="took-trick-explicit-zero-point-trick",
    ),
    pytest.param(
        STANDARD,
        3,
        dict(bidder=0, bid=200, outcome="forfeit", melds=[100, 20, 40], tricks=[100, 100, 50]),
        (-400, 120, 90),
        "forfeit",
        id="forfeit-with-tricks",
    ),
    pytest.param(
        STANDARD,
        3,
        dict(bidder=0, bid=200, outcome="forfeit", melds=[100, 20, 40]),
        (-400, 20, 40),
        "forfeit",
        id="forfeit-before-play",
    ),
    pytest.param(
        STANDARD,
        3,
        dict(bidder=0, bid=400, outcome="gone_off", melds=[100, 0, 60], tricks=[0, 0, 0]),
        (-400, 30, 90),
        "gone_off",
        id="gone-off-zero-tricks-accepted",
    ),
    pytest.param(
        STANDARD.replace(failed_multiplier=1, failed_extra=100),
        3,
        dict(bidder=0, bid=300, melds=[60, 20, 0], tricks=[120, 80, 50]),
        (-400, 100, 50),
        "failed",
        id="failed-extra",
    ),
    pytest.param(
        STANDARD.replace(failed_bonus="per_player 10"),
        3,
        dict(bidder=0, bid=300, melds=[60, 20, 0], tricks=[120, 80, 50]),
        (-600, 130, 80),
        "failed",
        id="failed-bonus-per-player",
    ),
    pytest.param(
        STANDARD.replace(going_off_bonus="none"),
        3,
        dict(bidder=1, bid=250, outcome="gone_off", melds=[40, 100, 0]),
        (40, -250, 0),
        "gone_off",
        id="going-off-bonus-none",
    ),
    pytest.param(
        STANDARD.replace(unreachable_bid_doubles=True),
        3,
        dict(bidder=0, bid=420, outcome="gone_off", melds=[100, 0, 0]),
        (-840, 30, 30),
        "gone_off_doubled",
        id="unreachable-bid-doubles",
    ),
    pytest.param(
        STANDARD.replace(unreachable_bid_doubles=True),
        3,
        dict(bidder=0, bid=350, outcome="gone_off", melds=[100, 0, 0]),
        (-350, 30, 30),
        "gone_off",
        id="reachable-bid-single",
    ),
    pytest.param(
        STANDARD.replace(round_tricks=True),
        3,
        dict(bidder=0, bid=150, melds=[60, 0, 0], tricks=[85, 84, 81]),
        (-300, 80, 80),
        "failed",
        id="round-tricks-exact-decides-failed",
    ),
    pytest.param(
        STANDARD.replace(round_tricks=True),
        3,
        dict(bidder=0, bid=150, melds=[60, 0, 0], tricks=[95, 104, 51]),
        (160, 100, 50),
        "made",
        id="round-tricks-made",
    ),
    pytest.param(
        STANDARD.replace(special_failed_multiplier=1),
        3,
        dict(bidder=0, outcome="bettel", won=False),
        (-1000, 0, 0),
        "lost",
        id="special-failed-multiplier",
    ),
    pytest.param(
        STANDARD,
        3,
        dict(bidder=1, outcome="bettel_hand", won=True),
        (0, 2000, 0),
        "won",
        id="bettel-hand-won",
    ),
    pytest.param(
        STANDARD,
        3,
        dict(bidder=1, outcome="durch_open", won=False, melds=[100, 100, 100]),
        (0, -3000, 0),
        "lost",
        id="durch-open-lost-nobody-else-scores",
    ),
    # turnier: half the bid to each opponent on failure and going off, rounded tricks
    pytest.param(
        TURNIER,
        3,
        dict(bidder=0, bid=300, melds=[100, 20, 40], tricks=[145, 55, 50]),
        (-600, 230, 240),
        "failed",
        id="turnier-failed",
    ),
    pytest.param(
        TURNIER,
        3,
        dict(bidder=0, bid=310, outcome="gone_off", melds=[40, 20, 0]),
        (-620, 180, 160),
        "gone_off_doubled",
        id="turnier-gone-off-unreachable",
    ),
    pytest.param(
        TURNIER,
        3,
        dict(bidder=2, bid=250, melds=[0, 20, 150], tricks=[55, 94, 101]),
        (60, 110, 250),
        "made",
        id="turnier-made-rounded",
    ),
    # four at the table, the dealer sits out: three active parties, 30 flat
    pytest.param(
        AUSSETZER,
        3,
        dict(bidder=0, bid=200, outcome="gone_off", melds=[0, 40, 20]),
        (-200, 70, 50),
        "gone_off",
        id="aussetzer-gone-off",
    ),
    pytest.param(
        AUSSETZER,
        3,
        dict(bidder=0, bid=250, melds=[80, 20, 0], tricks=[120, 90, 40]),
        (-500, 140, 70),
        "failed",
        id="aussetzer-failed",
    ),
    # Kreuzbinokel: two teams, four players dealt in
    pytest.param(
        KREUZ,
        4,
        dict(bidder=0, bid=300, melds=[200, 80], tricks=[140, 110]),
        (340, 190),
        "made",
        id="kreuz-made",
    ),
    pytest.param(
        KREUZ,
        4,
        dict(bidder=0, bid=300, outcome="gone_off", melds=[120, 60]),
        (-300, 100),
        "gone_off",
        id="kreuz-gone-off-40",
    ),
    pytest.param(
        KREUZ,
        4,
        dict(bidder=1, bid=400, melds=[80, 200], tricks=[100, 150]),
        (180, -800),
        "failed",
        id="kreuz-failed",
    ),
    # Sechser: three teams of two, six players dealt in, 48 cards
    pytest.param(
        SECHSER,
        6,
        dict(bidder=0, bid=350, outcome="gone_off", melds=[0, 60, 30]),
        (-350, 120, 90),
        "gone_off",
        id="sechser-gone-off-60",
    ),
    pytest.param(
        SECHSER,
        6,
        dict(bidder=0, bid=250, melds=[150, 40, 20], tricks=[120, 80, 50]),
        (270, 120, 70),
        "made",
        id="sechser-made",
    ),
    # two players, open play
    pytest.param(
        ZWEIER,
        2,
        dict(bidder=None, melds=[120, 40], tricks=[150, 100]),
        (270, 140),
        "open",
        id="zweier-open",
    ),
    pytest.param(
        ZWEIER,
        2,
        dict(bidder=None, outcome="open_play", melds=[0, 40], tricks=[250, 0]),
        (250, 40),
        "open",
        id="zweier-melds-without-trick-count",
    ),
    pytest.param(
        SCHWEIZER,
        2,
        dict(bidder=None, melds=[80, 20], tricks=[70, 60]),
        (150, 80),
        "open",
        id="schweizer-130",
    ),
    pytest.param(
        SCHWEIZER,
        2,
        dict(bidder=None, melds=[140, 20]),
        (140, 20),
        "open",
        id="schweizer-interrupted-melds-only",
    ),
]


@pytest.mark.parametrize(("rules", "players", "kwargs", "points", "reason"), HANDS)
def test_real_hands(
    rules: Ruleset, players: int, kwargs: dict[str, Any], points: tuple[int, ...], reason: str
) -> None:
    result = settle(rules, players=players, **kwargs)
    assert result.points == points
    assert result.reason == reason
    assert settle_hand(rules, players=players, **kwargs) == list(points)


def test_round_tricks_keeps_exact_points() -> None:
    rules = STANDARD.replace(round_tricks=True)
    result = settle(rules, players=3, bidder=0, bid=150, melds=[60, 0, 0], tricks=[95, 104, 51])
    assert result.tricks == (100, 100, 50)
    assert result.exact_points == (155, 104, 51)
    assert result.declarer_count == 155


def test_result_explains_a_failed_game() -> None:
    result = settle(
        STANDARD, players=3, bidder=1, bid=300, melds=[20, 100, 40], tricks=[60, 150, 40]
    )
    assert result.melds == (20, 0, 40)
    assert result.tricks == (60, 150, 40)
    assert result.bonus == (0, 0, 0)
    assert result.declarer_won is False
    assert result.stars == (0, 0, 0)


@pytest.mark.parametrize(
    ("outcome", "won", "bidder", "stars"),
    [
        ("durch", True, 2, (0, 0, 1)),
        ("bettel", False, 2, (1, 1, 0)),
        ("durch_hand", False, 0, (0, 1, 1)),
    ],
)
def test_specials_as_stars(outcome: str, won: bool, bidder: int, stars: tuple[int, ...]) -> None:
    result = settle(AUSSETZER, players=3, bidder=bidder, outcome=outcome, won=won)
    assert result.points == (0, 0, 0)
    assert result.stars == stars
    assert result.declarer_won is won


def test_special_party_count_from_players() -> None:
    assert settle(KREUZ, players=4, bidder=1, outcome="bettel", won=True).points == (0, 1000)


# -- bad input: always a RulesError subclass that says what is wrong ----------

BAD: list[Any] = [
    pytest.param(dict(bid=395), BidError, "395", id="bid-off-step"),
    pytest.param(dict(bid=140), BidError, "minimum", id="bid-below-minimum"),
    pytest.param(dict(bid=10_010), BidError, "maximum", id="bid-above-maximum"),
    pytest.param(dict(bid="300"), BidError, "300", id="bid-not-a-number"),
    pytest.param(dict(bidder=3), RulesError, "declarer 3", id="bidder-out-of-range"),
    pytest.param(dict(bidder=-1), RulesError, "declarer -1", id="bidder-negative"),
    pytest.param(dict(bidder=None), RulesError, "declarer", id="bidder-missing"),
    pytest.param(dict(outcome="abgehen"), RulesError, "abgehen", id="unknown-outcome"),
    pytest.param(
        dict(outcome="open_play"), RulesError, "open play", id="open-play-at-bidding-table"
    ),
    pytest.param(dict(outcome="durch"), RulesError, "won or lost", id="won-missing"),
    pytest.param(dict(melds=[-20, 0, 0]), RulesError, "-20", id="melds-negative"),
    pytest.param(dict(melds=[0, 0]), RulesError, "melds for 2 parties", id="melds-length"),
    pytest.param(dict(tricks=[90, 100, 70]), TrickError, "260", id="tricks-too-many"),
    pytest.param(dict(tricks=[90, 100, 50]), TrickError, "10 too few", id="tricks-too-few"),
    pytest.param(dict(tricks=[300, -50, 0]), TrickError, "300", id="tricks-out-of-range"),
    pytest.param(dict(tricks=[]), TrickError, "enter the trick points", id="tricks-missing"),
    pytest.param(dict(tricks=[90, None, 60]), RulesError, "None", id="tricks-none"),
    pytest.param(dict(players=4), RulesError, "not 4", id="players-mismatch"),
    pytest.param(dict(players=9, melds=[], tricks=[]), RulesError, "not 9", id="players-too-many"),
    pytest.param(dict(took_trick=[True, True]), RulesError, "took_trick", id="took-length"),
    pytest.param(dict(took_trick=[1, 1, 0]), RulesError, "took_trick", id="took-not-bool"),
    pytest.param(dict(outcome="gone_off"), TrickError, "goes off", id="gone-off-with-tricks"),
    pytest.param(dict(melds="100"), RulesError, "melds", id="melds-a-string"),
]


@pytest.mark.parametrize(("changes", "error", "text"), BAD)
def test_bad_input(changes: dict[str, Any], error: type[RulesError], text: str) -> None:
    kwargs: dict[str, Any] = dict(
        players=3, bidder=0, bid=300, melds=[100, 20, 0], tricks=[130, 70, 50]
    )
    kwargs.update(changes)
    with pytest.raises(error) as info:
        settle(STANDARD, **kwargs)
    assert text in str(info.value)
    assert info.value.template  # the web layer translates the template


@pytest.mark.parametrize(
    ("rules", "kwargs", "text"),
    [
        (TURNIER, dict(players=3, bidder=0, outcome="durch", won=True), "does not play durch"),
        (
            Ruleset(special_values=(("bettel_open", None),)),
            dict(players=3, bidder=0, outcome="bettel_open", won=True),
            "bettel_open",
        ),
        (ZWEIER, dict(players=2, bidder=0, melds=[0, 0], tricks=[100, 150]), "no declarer"),
        (ZWEIER, dict(players=2, bidder=0, bid=200, outcome="gone_off"), "needs a bid"),
        (SCHWEIZER, dict(players=2, bidder=None, tricks=[100, 100]), "200"),
    ],
)
def test_bad_input_for_the_table(rules: Ruleset, kwargs: dict[str, Any], text: str) -> None:
    with pytest.raises(RulesError) as info:
        settle(rules, **kwargs)
    assert text in str(info.value)


# -- complete_tricks ------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "entered", "expected"),
    [
        (STANDARD, [None, 100, 60], [90, 100, 60]),
        (STANDARD, [0, None, 0], [0, 250, 0]),
        (STANDARD, [120, 80, 50], [120, 80, 50]),
        (KREUZ, [140, None], [140, 110]),
        (SCHWEIZER, [70, None], [70, 60]),
        (SECHSER, [100, 100, None], [100, 100, 50]),
    ],
)
def test_complete_tricks(rules: Ruleset, entered: list[int | None], expected: list[int]) -> None:
    assert complete_tricks(rules, entered) == expected


@pytest.mark.parametrize(
    ("entered", "text"),
    [
        ([90, 100, 50], "add up to 240, 10 too few; a hand has 250"),
        ([200, 100, None], "add up to 300, 50 too many"),
        ([None, None, 100], "1 more to enter"),  # the third follows from 250
        ([None, None, None], "2 more to enter"),
        ([300, None, 0], "300 are out of range"),
        ([-5, None, 0], "-5 are out of range"),
        ([250], "at least two parties"),
        ([90, "x", None], "'x' is not a whole number"),
    ],
)
def test_complete_tricks_refuses(entered: list[Any], text: str) -> None:
    with pytest.raises(TrickError if "whole" not in text else RulesError) as info:
        complete_tricks(STANDARD, entered)
    assert text in str(info.value)


# -- properties -------------------------------------------------------------------


@st.composite
def played_hands(draw: st.DrawFn) -> dict[str, Any]:
    # a real deal: the 40 cards shared out into three piles, one party takes the last trick
    cards = draw(st.permutations(sorted(deck(STANDARD).elements())))
    cuts = sorted(draw(st.lists(st.integers(0, len(cards)), min_size=2, max_size=2)))
    piles = [cards[: cuts[0]], cards[cuts[0] : cuts[1]], cards[cuts[1] :]]
    tricks = [sum(c.points for c in pile) for pile in piles]
    tricks[draw(st.integers(0, 2))] += 10
    melds = draw(st.lists(st.integers(0, 150).map(lambda m: m * 10), min_size=3, max_size=3))
    return dict(
        bidder=draw(st.integers(0, 2)),
        bid=draw(st.integers(15, 100)) * 10,
        melds=melds,
        tricks=tricks,
    )


@given(played_hands(), st.sampled_from(["standard", "turnier"]))
def test_a_valid_played_hand_settles(hand: dict[str, Any], preset: str) -> None:
    rules = PRESETS[preset]
    result = settle(rules, players=3, **hand)
    exact = result.exact_points
    d = hand["bidder"]
    assert sum(hand["tricks"]) == rules.trick_total
    if not rules.round_tricks:
        assert sum(result.tricks) == rules.trick_total
    count = (hand["melds"][d] if hand["tricks"][d] > 0 else 0) + hand["tricks"][d]
    assert result.declarer_count == count
    assert result.made is (count >= hand["bid"])
    for party in range(3):
        if party == d:
            continue
        took = hand["tricks"][party] > 0
        expected = (hand["melds"][party] if took else 0) + hand["tricks"][party]
        if not result.made:
            expected += result.bonus[party]
        assert exact[party] == expected
    if result.made:
        assert result.points[d] > 0
    else:
        assert result.points[d] == -2 * hand["bid"]


numbers = st.integers(min_value=-(10**6), max_value=10**6)
anything = st.one_of(numbers, st.none(), st.booleans(), st.text(max_size=3))


@given(
    preset=st.sampled_from(sorted(PRESETS)),
    players=numbers,
    bidder=st.one_of(numbers, st.none()),
    bid=numbers,
    outcome=st.one_of(st.sampled_from(OUTCOMES), st.text(max_size=8)),
    won=st.one_of(st.none(), st.booleans(), numbers),
    melds=st.lists(anything, max_size=7),
    tricks=st.lists(st.one_of(numbers, st.sampled_from([0, 50, 100, 130, 250])), max_size=7),
    took_trick=st.one_of(st.none(), st.lists(st.one_of(st.booleans(), numbers), max_size=7)),
)
def test_settle_raises_only_rules_errors(
    preset: str,
    players: int,
    bidder: int | None,
    bid: int,
    outcome: str,
    won: Any,
    melds: list[Any],
    tricks: list[int],
    took_trick: Any,
) -> None:
    try:
        result = settle(
            PRESETS[preset],
            players=players,
            bidder=bidder,
            bid=bid,
            outcome=outcome,
            won=won,
            melds=melds,
            tricks=tricks,
            took_trick=took_trick,
        )
    except RulesError:
        return
    assert len(result.points) == len(result.stars) >= 2
