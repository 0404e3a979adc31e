"""A saved hand of every outcome and table, and the match it moves on: the sheet's totals,
stars and end, as ``services.save_hand`` leaves them (docs/rules.md sections 5 and 6).

These were checked through the match page (tests/web/test_hands.py); the page's tests
keep what the page shows of them, the numbers are the use case's.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from scorer import services
from scorer.models import Match
from scorer.rules import PRESETS
from scorer.services import HandInput, MatchOverError

ABC = ["Anna", "Bert", "Carl"]
FOUR = ["Anna", "Bert", "Carl", "Dora"]
SIX = ["Anna", "Bert", "Carl", "Dora", "Emil", "Fritz"]


def match_of(names: list[str], preset: str = "standard", **changes: Any) -> Match:
    ruleset = PRESETS[preset].replace(players=len(names), **changes)
    return services.start_match(names=names, ruleset=ruleset)


def totals_after(match: Match, *hands: HandInput) -> list[int]:
    for hand in hands:
        services.save_hand(match, hand)
    return services.sheet(match).totals


def test_a_made_game_with_the_last_trick_value_filled_in(in_app: Flask) -> None:
    match = match_of(ABC)
    hand = HandInput(declarer=1, bid=180, trump="E", melds=[0, 60, 20], tricks=[60, 130, None])
    assert totals_after(match, hand) == [60, 190, 80]  # Carl's 60 follows from 250
    assert services.sheet(match).rows[0].hand.made is True


def test_a_failed_game(in_app: Flask) -> None:
    """docs/rules.md example 9: bid 220, melds 80, tricks 130: failed, −440; the Swabian
    sheet gives each opponent 40 more."""
    match = match_of(ABC)
    hand = HandInput(declarer=0, bid=220, trump="H", melds=[80, 0, 0], tricks=[130, 60, None])
    assert totals_after(match, hand) == [-440, 100, 100]
    assert services.sheet(match).progress.next_dealer == 1


def test_going_off(in_app: Flask) -> None:
    """docs/rules.md example 10: going off at 250; an opponent with 40 melds gets 70."""
    hand = HandInput(declarer=0, bid=250, outcome="gone_off", melds=[100, 40, 0])
    assert totals_after(match_of(ABC), hand) == [-250, 70, 30]


def test_durch_won_and_bettel_lost(in_app: Flask) -> None:
    match = match_of(ABC, target=5000)
    won = HandInput(declarer=1, outcome="durch", won=True)
    lost = HandInput(declarer=2, outcome="bettel", won=False)
    assert totals_after(match, won, lost) == [0, 1000, -2000]


def test_a_party_that_took_no_trick_loses_its_melds(in_app: Flask) -> None:
    hand = HandInput(
        declarer=0,
        bid=200,
        trump="H",
        melds=[100, 60, 20],
        tricks=[150, 100, 0],
        took_trick=[None, None, False],
    )
    assert totals_after(match_of(ABC), hand) == [250, 160, 0]


def test_with_a_game_the_match_ends_only_after_a_game_made(in_app: Flask) -> None:
    """Over the target by a failed game or a going off: play goes on; the next game made
    ends it, and the highest total wins (docs/rules.md section 6)."""
    match = match_of(ABC, target=500)
    failed = HandInput(declarer=1, bid=180, trump="H", melds=[400, 0, 0], tricks=[100, 80, None])
    totals_after(match, failed)
    sheet = services.sheet(match)
    assert sheet.totals[0] >= 500 and not sheet.finished
    totals_after(match, HandInput(declarer=2, bid=200, outcome="gone_off"))
    assert not services.sheet(match).finished
    made = HandInput(declarer=1, bid=150, trump="E", melds=[0, 40, 0], tricks=[50, 150, None])
    totals_after(match, made)
    sheet = services.sheet(match)
    assert sheet.finished and sheet.winners == [0]
    with pytest.raises(MatchOverError):
        services.save_hand(match, HandInput(declarer=0, bid=150, trump="E", tricks=[250, 0, None]))
    assert services.sheet(match).hand_count == 3


def test_a_fixed_number_of_deals_ends_the_match(in_app: Flask) -> None:
    match = match_of(ABC, "turnier", deals=3)
    for declarer in range(3):
        hand = HandInput(declarer=declarer, bid=150, trump="H", tricks=[250, 0, None])
        services.save_hand(match, hand)
    assert services.sheet(match).finished


@pytest.mark.parametrize(
    ("names", "preset", "changes", "hand", "totals"),
    [
        # Kreuzbinokel: two teams of partners; the declaring team melds 120
        (FOUR, "kreuzbinokel", {}, {"declarer": 1, "bid": 200, "trump": "S",
         "melds": [40, 120], "tricks": [100, None]}, [140, 270]),
        # Sechser: three teams
        (SIX, "sechser", {}, {"declarer": 2, "bid": 200, "trump": "E",
         "melds": [20, 40, 100], "tricks": [80, 70, None]}, [100, 110, 200]),
        # six alone with sevens; the failed declarer's opponents get 40 each on top
        (SIX, "standard", {"sevens": True}, {"declarer": 0, "bid": 250, "trump": "E",
         "melds": [100, 0, 20, 0, 0, 40], "tricks": [100, 30, 30, 30, 30, None]},
         [-500, 70, 90, 70, 70, 110]),
    ],
)  # fmt: skip
def test_tables_of_teams_and_of_six(
    in_app: Flask,
    names: list[str],
    preset: str,
    changes: dict[str, Any],
    hand: dict[str, Any],
    totals: list[int],
) -> None:
    ruleset = PRESETS[preset].replace(players=len(names), **changes)
    match = services.start_match(names=names, ruleset=ruleset)
    assert totals_after(match, HandInput(**hand)) == totals


def test_the_dealer_who_sits_out_scores_nothing_whatever_is_typed(in_app: Flask) -> None:
    """Four with the dealer sitting out: Anna deals and sits out; the melds and tricks
    typed for her do not count, the tricks of the three who play fill up to 250."""
    match = services.start_match(names=FOUR, ruleset=PRESETS["vier_mit_aussetzer"])
    hand = HandInput(
        declarer=1, bid=180, trump="H", melds=[500, 80, 20, 0], tricks=[90, 110, 100, None]
    )
    totals = totals_after(match, hand)
    row = services.sheet(match).rows[0]
    assert totals[0] == 0 and row.sits_out == [True, False, False, False]
    assert totals == [0, 190, 120, 40]


def test_a_special_game_at_a_table_of_stars_is_a_star(in_app: Flask) -> None:
    match = services.start_match(names=FOUR, ruleset=PRESETS["vier_mit_aussetzer"])
    services.save_hand(match, HandInput(declarer=2, outcome="durch", won=True))
    sheet = services.sheet(match)
    assert sheet.stars == [0, 0, 1, 0] and sheet.totals == [0, 0, 0, 0]
