"""The preset named after the Swabian game gives the Swabian source's numbers.

Seed 002 (*Binokel – Die Spielregeln II*) works two hands through. The preset
``standard`` ("Standard (schwäbisch, 3 Spieler)") must give exactly its numbers with no
house rule touched: the declarer's score, and on a lost game 40 to each other player on
top of his own melds and tricks ("Gleichzeitig erhält jeder andere Spieler 40 Augen
zusätzlich gutgeschrieben"). The source names only the declarer's cards; the other two
players' melds and tricks here are one way the rest of a real hand can go (the tricks add
up to 250).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from scorer.rules import PRESETS, best_meld, check_meld, settle

SWABIAN = PRESETS["standard"]


@dataclass(frozen=True)
class WorkedHand:
    """One of seed 002's examples as the Schreiber enters it (Anna is the declarer)."""

    cards: str  # the declarer's meld cards, as the source lists them
    declared: tuple[str, ...]  # the same melds as the Schreiber says them
    trump: str
    bid: int
    melds: tuple[int, int, int]  # Anna (from the cards), Bert, Carl
    tricks: tuple[int, int, int]
    points: tuple[int, int, int]  # what the sheet gets
    reason: str


EXAMPLES = {
    # "Spieler A steigert auf 390 … 1 Familie = 150 Augen (Trumpf!), 4 Asse = 100 …
    # durch Stiche 90 … Gesamtpunktzahl von 340 … mit 780 Punkten … in den Keller …
    # jeder andere Spieler 40 Augen zusätzlich"
    "example 1: 390 bid, 340 reached": WorkedHand(
        cards="HA H10 HK HO HU EA GA SA",
        declared=("family H", "four A"),
        trump="H",
        bid=390,
        melds=(250, 20, 60),
        tricks=(90, 100, 60),
        points=(-780, 20 + 100 + 40, 60 + 60 + 40),
        reason="failed",
    ),
    # "Spieler A steigert auf 380 … den 300er = 300 Augen und den Rundgang = 240 Punkte.
    # Im Stich erzielt er 90 Punkte. Seine Gesamtpunktzahl ist somit 630 Punkte."
    "example 2: 380 bid, 630 reached": WorkedHand(
        cards="GO GO SU SU EK EO GK HK HO SK SO",
        declared=("double_binokel", "pair E", "pair G", "pair H", "pair S", "four K", "four O"),
        trump="E",
        bid=380,
        melds=(540, 40, 0),
        tricks=(90, 100, 60),
        points=(630, 40 + 100, 60),
        reason="made",
    ),
}


@pytest.mark.parametrize("hand", EXAMPLES.values(), ids=EXAMPLES.keys())
def test_the_preset_scores_seed_002s_worked_examples(hand: WorkedHand) -> None:
    assert SWABIAN.overrides() == {}  # the preset as it comes, nothing touched
    assert best_meld(hand.cards, hand.trump, SWABIAN).total == hand.melds[0]
    assert check_meld(list(hand.declared), hand.trump, SWABIAN).total == hand.melds[0]
    result = settle(
        SWABIAN, players=3, bidder=0, bid=hand.bid, melds=hand.melds, tricks=hand.tricks
    )
    assert result.reason == hand.reason
    assert result.declarer_count == hand.melds[0] + hand.tricks[0]
    assert result.points == hand.points


def test_the_40_goes_to_each_other_player_at_any_number_of_players() -> None:
    # Kreuzbinokel keeps its own rules: the 40 is the Swabian sheet's, not every preset's
    assert SWABIAN.failed_bonus == "flat 40"
    assert PRESETS["kreuzbinokel"].failed_bonus == "none"
    four = SWABIAN.replace(players=4)
    result = settle(four, players=4, bidder=0, bid=390, melds=[250, 0, 0, 0],
                    tricks=[90, 60, 60, 40])  # fmt: skip
    assert result.points == (-780, 100, 100, 80)
