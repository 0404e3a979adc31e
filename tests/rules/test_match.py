"""The match as a replay of its hands: docs/rules.md section 6."""

from __future__ import annotations

from typing import Any

import pytest

from scorer.rules import (
    PRESETS,
    PlayedHand,
    RulesError,
    Ruleset,
    active_parties,
    active_seats,
    dealer_of,
    expand_active,
    leader_of,
    party_of_seat,
    played_hand,
    reached_target,
    replay,
    seats_of_party,
    settle,
    winners_of,
)
from tests.rules.presets import AUSSETZER, KREUZ, SCHWEIZER, SECHSER, STANDARD, TURNIER


def made(declarer: int, *points: int) -> PlayedHand:
    return PlayedHand(declarer, "played", True, points)


def failed(declarer: int, *points: int) -> PlayedHand:
    return PlayedHand(declarer, "played", False, points)


def gone_off(declarer: int, *points: int) -> PlayedHand:
    return PlayedHand(declarer, "gone_off", False, points)


def open_hand(*points: int) -> PlayedHand:
    return PlayedHand(None, "open_play", None, points)


# -- seats, dealer, leader, parties ---------------------------------------------


@pytest.mark.parametrize(
    ("seats", "first", "dealers"),
    [
        (3, 0, [0, 1, 2, 0, 1, 2, 0]),
        (4, 2, [2, 3, 0, 1, 2]),
        (6, 5, [5, 0, 1]),
        (2, 0, [0, 1, 0]),
    ],
)
def test_dealer_rotates_one_seat_per_hand(seats: int, first: int, dealers: list[int]) -> None:
    assert [dealer_of(h, seats, first) for h in range(len(dealers))] == dealers
    assert [leader_of(d, seats) for d in dealers] == [(d + 1) % seats for d in dealers]


@pytest.mark.parametrize(
    ("rules", "parties"),
    [
        (STANDARD, [0, 1, 2]),
        (KREUZ, [0, 1, 0, 1]),
        (SECHSER, [0, 1, 2, 0, 1, 2]),
        (AUSSETZER, [0, 1, 2, 3]),
    ],
)
def test_party_of_seat(rules: Ruleset, parties: list[int]) -> None:
    assert [party_of_seat(rules, s) for s in range(rules.players)] == parties
    for party in range(rules.parties):
        assert all(party_of_seat(rules, s) == party for s in seats_of_party(rules, party))


def test_partners_sit_opposite() -> None:
    assert [seats_of_party(KREUZ, p) for p in range(2)] == [(0, 2), (1, 3)]
    assert [seats_of_party(SECHSER, p) for p in range(3)] == [(0, 3), (1, 4), (2, 5)]
    assert seats_of_party(STANDARD, 2) == (2,)


@pytest.mark.parametrize(
    ("call", "text"),
    [
        (lambda: party_of_seat(KREUZ, 4), "seat 4"),
        (lambda: seats_of_party(KREUZ, 2), "party 2"),
        (lambda: dealer_of(-1, 3), "-1"),
        (lambda: dealer_of(0, 9), "2 to 8 seats"),
        (lambda: leader_of(3, 3), "dealer 3"),
        (lambda: active_seats(AUSSETZER, 3, 0), "4 players"),
        (lambda: active_seats(KREUZ.replace(dealer_sits_out=True), 4, 0), "alone"),
        (lambda: expand_active(AUSSETZER, 4, 0, [1, 2]), "2 values"),
    ],
)
def test_seat_errors(call: Any, text: str) -> None:
    with pytest.raises(RulesError) as info:
        call()
    assert text in str(info.value)


@pytest.mark.parametrize(
    ("dealer", "active"), [(0, (1, 2, 3)), (1, (0, 2, 3)), (2, (0, 1, 3)), (3, (0, 1, 2))]
)
def test_dealer_sits_out(dealer: int, active: tuple[int, ...]) -> None:
    assert active_seats(AUSSETZER, 4, dealer) == active
    assert active_parties(AUSSETZER, 4, dealer) == active
    assert leader_of(dealer, 4) in active


def test_everybody_plays_without_sitting_out() -> None:
    assert active_seats(KREUZ, 4, 1) == (0, 1, 2, 3)
    assert active_parties(KREUZ, 4, 1) == (0, 1)


def test_played_hand_maps_active_parties_to_the_table() -> None:
    # dealer seat 2 sits out; active parties are seats 0, 1, 3; seat 3 bid 250 and went off
    result = settle(AUSSETZER, players=3, bidder=2, bid=250, outcome="gone_off", melds=[40, 0, 0])
    hand = played_hand(AUSSETZER, 4, 2, result)
    assert hand.declarer == 3
    assert hand.points == (70, 30, 0, -250)
    assert hand.declarer_won is False
    stars = settle(AUSSETZER, players=3, bidder=0, outcome="bettel", won=False)
    assert played_hand(AUSSETZER, 4, 2, stars).stars == (0, 1, 0, 1)


def test_played_hand_keeps_exact_points_when_rounded() -> None:
    result = settle(TURNIER, players=3, bidder=0, bid=150, melds=[60, 0, 0], tricks=[95, 104, 51])
    hand = played_hand(TURNIER, 3, 0, result)
    assert hand.points == (160, 100, 50)
    assert hand.exact_points == (155, 104, 51)


# -- the end of the match --------------------------------------------------------

END_CASES: list[Any] = [
    pytest.param(
        STANDARD,
        [made(0, 600, 100, 80), failed(2, 420, 100, -600)],
        None,
        (),
        id="with-game-not-by-the-declarers-loss",
    ),
    pytest.param(
        STANDARD,
        [made(0, 600, 100, 80), failed(2, 420, 100, -600), made(1, 20, 300, 50)],
        2,
        (0,),
        id="with-game-ends-after-a-made-game",
    ),
    pytest.param(
        STANDARD,
        [made(0, 960, 100, 80), gone_off(1, 70, -300, 30)],
        None,
        (),
        id="with-game-not-after-going-off",
    ),
    pytest.param(
        STANDARD.replace(end="after_any_hand_but_going_off"),
        [made(0, 960, 100, 80), gone_off(1, 70, -300, 30)],
        None,
        (),
        id="after-any-hand-but-going-off",
    ),
    pytest.param(
        STANDARD.replace(end="after_any_hand_but_going_off"),
        [made(0, 960, 100, 80), failed(1, 70, -400, 30)],
        1,
        (0,),
        id="after-any-hand-but-going-off-ends-on-failure",
    ),
    pytest.param(
        STANDARD.replace(end="after_any_hand"),
        [made(0, 960, 100, 80), gone_off(1, 70, -300, 30)],
        1,
        (0,),
        id="after-any-hand-ends-after-going-off",
    ),
    pytest.param(
        STANDARD,
        [made(0, 600, 100, 80), PlayedHand(2, "durch", True, (0, 0, 1000))],
        1,
        (2,),
        id="with-game-won-special",
    ),
    pytest.param(
        STANDARD,
        [made(0, 800, 290, 100), made(1, 250, 760, 40)],
        1,
        (1,),
        id="tie-goes-to-the-declarer",
    ),
    pytest.param(
        STANDARD,
        [made(0, 800, 290, 100), made(2, 250, 760, 150)],
        1,
        (0, 1),
        id="tie-without-the-declarer-all-win",
    ),
    pytest.param(
        STANDARD.replace(round_tricks=True),
        [
            PlayedHand(0, "played", True, (800, 290, 100), exact_points=(798, 292, 100)),
            made(2, 250, 760, 150),
        ],
        1,
        (1,),
        id="round-tricks-exact-decides-the-tie",
    ),
    pytest.param(
        STANDARD.replace(round_tricks=True),
        [
            PlayedHand(0, "played", True, (800, 290, 100), exact_points=(799, 291, 100)),
            PlayedHand(0, "played", True, (250, 760, 150), exact_points=(251, 759, 150)),
        ],
        1,
        (0,),
        id="round-tricks-exact-tie-then-declarer",
    ),
    pytest.param(
        SCHWEIZER,
        [open_hand(640, 390), open_hand(370, 250)],
        1,
        (0,),
        id="at-once",
    ),
    pytest.param(
        PRESETS["zweier"].replace(end="with_game"),
        [open_hand(640, 390), open_hand(370, 250)],
        1,
        (0,),
        id="open-play-with-game-ends-on-reaching",
    ),
    pytest.param(
        KREUZ,
        [made(0, 540, 200), made(1, 100, 400), made(0, 400, 170)],
        2,
        (0,),
        id="kreuzbinokel-teams",
    ),
]


@pytest.mark.parametrize(("rules", "hands", "finished_after", "winners"), END_CASES)
def test_end_and_winners(
    rules: Ruleset, hands: list[PlayedHand], finished_after: int | None, winners: tuple[int, ...]
) -> None:
    progress = replay(rules, rules.players, hands)
    assert progress.finished_after == finished_after
    assert progress.winners == winners
    assert progress.finished is (finished_after is not None)


def test_running_totals_and_next_seats() -> None:
    hands = [made(0, 600, 100, 80), failed(2, 120, 60, -440), made(1, 40, 300, 30)]
    progress = replay(STANDARD, 3, hands, first_dealer=1)
    assert progress.running == ((600, 100, 80), (720, 160, -360), (760, 460, -330))
    assert progress.totals == (760, 460, -330)
    assert progress.exact_totals == progress.totals
    assert (progress.next_dealer, progress.next_leader) == (1, 2)


def test_empty_match() -> None:
    progress = replay(STANDARD, 3, [], first_dealer=2)
    assert progress.totals == (0, 0, 0)
    assert progress.running == ()
    assert progress.finished_after is None
    assert (progress.next_dealer, progress.next_leader) == (2, 0)


def test_hands_after_the_end_are_totalled_but_the_end_stays() -> None:
    hands = [made(0, 1000, 100, 80), made(1, 100, 1200, 40)]
    progress = replay(STANDARD, 3, hands)
    assert progress.finished_after == 0
    assert progress.winners == (0,)
    assert progress.totals == (1100, 1300, 120)


@pytest.mark.parametrize(("count", "finished_after"), [(11, None), (12, 11), (14, 11)])
def test_fixed_number_of_deals(count: int, finished_after: int | None) -> None:
    hands = [made(h % 3, 100 * (h % 3 == 0), 50, 20) for h in range(count)]
    progress = replay(TURNIER, 3, hands)
    assert progress.finished_after == finished_after
    if finished_after is not None:
        assert progress.winners == (1,)  # 50 every hand beats 100 every third


def test_deals_must_be_a_multiple_of_the_seats() -> None:
    with pytest.raises(RulesError) as info:
        replay(TURNIER.replace(deals=10), 3, [])
    assert "10 deals" in str(info.value)
    replay(AUSSETZER, 4, [])  # 12 deals, four seats


def test_dealer_sits_out_match_with_stars() -> None:
    # four seats, twelve deals; every hand the dealer scores nothing
    hands = []
    for h in range(12):
        dealer = dealer_of(h, 4)
        if h % 4 == 3:
            result = settle(AUSSETZER, players=3, bidder=0, outcome="durch", won=True)
        else:
            result = settle(
                AUSSETZER, players=3, bidder=0, bid=200, melds=[100, 20, 0], tricks=[120, 80, 50]
            )
        hands.append(played_hand(AUSSETZER, 4, dealer, result))
    progress = replay(AUSSETZER, 4, hands)
    assert progress.finished_after == 11
    assert sum(progress.stars) == 3
    # per round: dealer 0 -> seats 1/2/3 score 220/100/50; dealer 1 -> seats 0/2/3;
    # dealer 2 -> seats 0/1/3; dealer 3 -> seat 0 wins a Durch: a star, no points
    assert progress.totals == (3 * 440, 3 * 320, 3 * 200, 3 * 150)
    assert progress.stars == (3, 0, 0, 0)
    assert progress.winners == (0,)


@pytest.mark.parametrize(
    ("rules", "hand", "text"),
    [
        (STANDARD, made(0, 100, 100), "each of the 3 parties"),
        (STANDARD, made(3, 100, 100, 50), "declarer 3"),
        (STANDARD, PlayedHand(0, "weg", True, (0, 0, 0)), "'weg'"),
        (STANDARD, PlayedHand(0, "played", "ja", (0, 0, 0)), "declarer_won"),  # type: ignore[arg-type]
        (STANDARD, PlayedHand(0, "played", True, (0, 0, 0), (1, 1)), "stars"),
        (AUSSETZER, made(0, 100, 50, 50, 20), "dealer (seat 1) sits out"),
        (AUSSETZER, made(0, 0, 100, 50, 20), "dealer"),
    ],
)
def test_bad_hands(rules: Ruleset, hand: PlayedHand, text: str) -> None:
    with pytest.raises(RulesError) as info:
        replay(rules, rules.players, [hand])
    assert text in str(info.value)


def test_seats_must_match_the_ruleset() -> None:
    with pytest.raises(RulesError, match="4 seats"):
        replay(STANDARD, 4, [])


# -- the Swiss game: first to the target wins at once --------------------------------


@pytest.mark.parametrize(
    ("totals", "party"),
    [
        ([960, 880], None),
        ([960, 1000], 1),
        ([1020, 990], 0),
        ([1010, 1030], 1),
        ([1000, 1000], 0),
    ],
)
def test_reached_target(totals: list[int], party: int | None) -> None:
    assert reached_target(SCHWEIZER, totals) == party


def test_mid_hand_melds_one_at_a_time() -> None:
    before = replay(SCHWEIZER, 2, [open_hand(640, 390), open_hand(310, 250)]).totals
    assert before == (950, 640)
    written = [20, 40]  # melds written during the third hand, one at a time
    totals = list(before)
    winner = None
    for meld in written:
        totals[0] += meld
        winner = reached_target(SCHWEIZER, totals)
        if winner is not None:
            break
    assert winner == 0
    assert totals == [1010, 640]


def test_winners_of() -> None:
    assert winners_of([500, 900, 900], last_declarer=0) == (1, 2)
    assert winners_of([500, 900, 900], exact_totals=[500, 897, 903]) == (2,)
    assert winners_of([-100, -50]) == (1,)
