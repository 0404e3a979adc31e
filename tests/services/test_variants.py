"""The variants of RULES.md section 12 through the services: the stored standing and the
full sheet agree on the hands won and the next dealer; the next match's first dealer."""

from __future__ import annotations

from flask import Flask

from scorer import services
from scorer.rules import PRESETS
from scorer.services import HandInput

NAMES = ["Anna", "Bert", "Carl"]

# hands of a three-player table: (declarer, bid, melds, tricks); the winner is the
# party that scores the most in the hand
HANDS = [
    HandInput(declarer=0, bid=200, trump="E", melds=[100, 20, 0], tricks=[130, 60, 60]),  # Anna
    HandInput(declarer=1, bid=180, trump="G", melds=[0, 60, 40], tricks=[60, 130, 60]),  # Bert
    HandInput(declarer=1, bid=200, trump="H", melds=[0, 100, 0], tricks=[50, 150, 50]),  # Bert
]


def test_best_of_three_with_the_winner_dealing(in_app: Flask) -> None:
    ruleset = PRESETS["standard"].replace(end="games", games=3, dealer="winner")
    match = services.start_match(names=NAMES, ruleset=ruleset)
    dealers = []
    for data in HANDS:
        before = services.standing(match)
        dealers.append(before.next_dealer)
        services.save_hand(match, data)
        now = services.standing(match)
        full = services.sheet(match)
        assert now.games_won == full.games_won
        assert now.next_dealer == full.next_dealer
        assert now.finished == full.finished
    # Anna deals first; Anna won hand 1 and deals hand 2; Bert won it and deals hand 3
    assert dealers == [0, 0, 1]
    full = services.sheet(match)
    assert full.games_won == [1, 2, 0]
    assert full.finished and full.winners == [1]


def test_games_won_are_none_without_best_of(in_app: Flask) -> None:
    match = services.start_match(names=NAMES, ruleset=PRESETS["standard"])
    services.save_hand(match, HANDS[0])
    assert services.standing(match).games_won is None
    assert services.sheet(match).next_dealer == 1


def test_next_match_after_a_won_match_the_winner_deals(in_app: Flask) -> None:
    ruleset = PRESETS["standard"].replace(first_dealer="after_winner", target=300)
    match = services.start_match(names=NAMES, ruleset=ruleset, first_dealer=2)
    services.save_hand(match, HANDS[1])  # Bert makes his game: 190
    services.save_hand(match, HANDS[2])  # Bert made again: 190 + 250 = 440, the end
    sheet = services.sheet(match)
    assert sheet.finished and sheet.winners == [1]
    later = services.next_match(match)
    assert later.first_dealer == 1  # the winner deals, Carl (a loser) leads
    rotating = services.start_match(
        names=NAMES, ruleset=PRESETS["standard"].replace(target=300), first_dealer=2
    )
    services.save_hand(rotating, HANDS[1])
    services.save_hand(rotating, HANDS[2])
    assert services.next_match(rotating).first_dealer == 0
