"""How fast is best_meld?  100,000 random 16-card hands, timed.

Run from the repository root::

    .venv/bin/python bench/bench_melds.py            # 100,000 hands
    .venv/bin/python bench/bench_melds.py 20000      # fewer

The hands are dealt beforehand (a fixed seed), so only best_meld is timed:
as Card objects, as notation strings, and 15-card hands of the 48-card game.
The first call for a ruleset and trump builds the per-group tables; that is
part of the timing.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence

from scorer.rules import Card, Ruleset, Suit, best_meld, deck


def deal(ruleset: Ruleset, size: int, count: int, seed: int) -> list[tuple[list[Card], Suit]]:
    """``count`` random hands of ``size`` cards from the ruleset's deck, each with a trump."""
    rng = random.Random(seed)
    cards = sorted(deck(ruleset).elements())
    suits = list(Suit)
    return [(rng.sample(cards, size), rng.choice(suits)) for _ in range(count)]


def timed(label: str, hands: Sequence[tuple[Sequence[Card | str], Suit]], ruleset: Ruleset) -> None:
    start = time.perf_counter()
    total = 0
    for cards, trump in hands:
        total += best_meld(cards, trump, ruleset).total
    seconds = time.perf_counter() - start
    print(
        f"{label:<34} {len(hands):>7} hands  {seconds:6.2f} s  "
        f"{seconds / len(hands) * 1e6:6.1f} µs/hand  (mean meld {total / len(hands):.0f})"
    )


def main(count: int) -> None:
    standard = Ruleset()
    hands = deal(standard, 16, count, seed=2024)
    timed("16 cards, Card objects", hands, standard)
    as_text = [([str(c) for c in cards], trump) for cards, trump in hands]
    timed("16 cards, notation strings", as_text, standard)
    sevens = Ruleset(sevens=True)
    timed("15 cards of 48 (sevens)", deal(sevens, 15, count, seed=7), sevens)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
