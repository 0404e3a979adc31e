"""How long minimal_transfers takes for a session of 12 people (the spec's upper case).

Run: ``.venv/bin/python bench/bench_transfers.py``.  Two balance sets: random
cents (almost never a zero-sum subgroup: the DP's worst case, 11 transfers)
and an evening of 50-cent stakes (many small equal balances, many groups).
"""

from __future__ import annotations

import random
import statistics
import timeit
from collections.abc import Callable

from scorer.rules import minimal_transfers

PEOPLE = 12
ROUNDS = 20


def balances_random(seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    cents = [rng.randint(-20_000, 20_000) for _ in range(PEOPLE - 1)]
    cents.append(-sum(cents))
    return {f"Player {i:02}": c for i, c in enumerate(cents)}


def balances_stakes(seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    cents = [50 * rng.randint(-12, 12) for _ in range(PEOPLE - 1)]
    cents.append(-sum(cents))
    return {f"Player {i:02}": c for i, c in enumerate(cents)}


def measure(name: str, make: Callable[[int], dict[str, int]]) -> None:
    cases = [make(seed) for seed in range(ROUNDS)]
    times = [
        timeit.timeit(lambda case=case: minimal_transfers(case), number=1) * 1000 for case in cases
    ]
    counts = [len(minimal_transfers(case)) for case in cases]
    print(
        f"{name:8} {PEOPLE} people: median {statistics.median(times):6.1f} ms, "
        f"max {max(times):6.1f} ms, transfers {min(counts)}..{max(counts)}"
    )


if __name__ == "__main__":
    measure("random", balances_random)
    measure("stakes", balances_stakes)
