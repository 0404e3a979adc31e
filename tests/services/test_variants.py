"""The variants of docs/rules.md section 12 through the services: the stored standing and the
full sheet agree on the hands won and the next dealer; the next match's first dealer."""

from __future__ import annotations

import json

import pytest
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


def test_a_forfeit_before_play_and_one_at_fault_come_back_from_a_backup(in_app: Flask) -> None:
    """A forfeit called before the first trick keeps its trick fields empty, so its
    backup restores it; an opposing party at fault comes back at fault."""
    match = services.start_match(names=NAMES, ruleset=PRESETS["standard"])
    services.save_hand(
        match, HandInput(declarer=0, bid=200, trump="E", outcome="forfeit", melds=[0, 20, 40])
    )
    services.save_hand(
        match,
        HandInput(
            declarer=1,
            bid=180,
            trump="G",
            outcome="forfeit",
            at_fault=2,
            melds=[0, 60, 40],
            tricks=[60, 130, 60],
        ),
    )
    before = [list(h.points) for h in services.sheet(match).rows]
    with in_app.test_request_context("/"):
        data = services.export_all()
        hands = data["sessions"][0]["matches"][0]["hands"]
        assert [p["tricks"] for p in hands[0]["parties"]] == [None, None, None]
        assert hands[1]["at_fault"] == 2
        (restored,) = services.import_backup(json.dumps(data))
    again = services.sheet(restored.matches[0])
    assert [list(h.points) for h in again.rows] == before
    # −2 × 200; before play the others keep their melds, plus the Swabian sheet's 40
    assert before[0] == [-400, 60, 80]


def test_a_backup_restores_trick_points_saved_before_the_counting_check(
    in_app: Flask,
) -> None:
    """Trick points 1 (no card is worth 1) were accepted before the counting schemes:
    a backup with such a hand still restores; the form refuses it for a new hand."""
    from scorer.rules import RulesError, settle_at_table

    match = services.start_match(names=NAMES, ruleset=PRESETS["standard"])
    services.save_hand(match, HANDS[0])
    with in_app.test_request_context("/"):
        data = services.export_all()
    hand = data["sessions"][0]["matches"][0]["hands"][0]
    old = settle_at_table(
        PRESETS["standard"],
        3,
        0,
        declarer=0,
        bid=200,
        melds=[100, 20, 0],
        tricks=[189, 1, 60],
        scheme_checked=False,
    )
    for line, tricks, points in zip(hand["parties"], old.tricks, old.points, strict=True):
        line["tricks"], line["points"] = tricks, points
    with in_app.test_request_context("/"):
        (restored,) = services.import_backup(json.dumps(data))
    assert list(services.sheet(restored.matches[0]).rows[0].points) == [289, 21, 60]
    new = services.start_match(names=NAMES, ruleset=PRESETS["standard"])
    with pytest.raises(RulesError, match="cannot be taken"):
        services.save_hand(
            new, HandInput(declarer=0, bid=200, trump="E", melds=[100, 20, 0], tricks=[189, 1, 60])
        )
