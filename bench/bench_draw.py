"""How long the tournament draw takes, and how many pairs meet again (docs/rules.md section 13.6).

Run: ``.venv/bin/python bench/bench_draw.py``.  The spec's case: 200 players
with 9 earlier rounds (drawn round by round), then the tenth round's draw,
timed several times.  Also a case where no round can be free of repeats
(25 players after 10 rounds), so the search spends its whole budget, and the
same round by the old way: the best of 10,000 random shuffles; and small
fields late in a series, where the search cannot reach its bound and the best
of all seatings is found as well (14 and 15 players after 11 rounds).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence

from scorer.rules.tournament import draw, repeats, table_sizes

TIMES = 5


def series(players: int, rounds: int, seed: str) -> list[tuple[tuple[int, ...], ...]]:
    met: list[tuple[tuple[int, ...], ...]] = []
    for number in range(rounds):
        met.append(draw(range(1, players + 1), met, seed=f"{seed} {number}"))
    return met


def best_of_shuffles(players: int, met: Sequence[Sequence[Sequence[int]]], shuffles: int) -> int:
    rng = random.Random(0)
    order = list(range(1, players + 1))
    sizes = table_sizes(players)
    best = -1
    for _ in range(shuffles):
        rng.shuffle(order)
        tables, start = [], 0
        for size in sizes:
            tables.append(order[start : start + size])
            start += size
        count = repeats(tables, met)
        if best < 0 or count < best:
            best = count
    return best


def measure(players: int, rounds: int, shuffles: int = 0) -> None:
    met = series(players, rounds, "bench")
    times = []
    for attempt in range(TIMES):
        start = time.perf_counter()
        tables = draw(range(1, players + 1), met, seed=f"round {rounds + 1} #{attempt}")
        times.append((time.perf_counter() - start) * 1000)
    median = statistics.median(times)
    line = (
        f"draw of {players} players after {rounds} rounds: median {median:.1f} ms, "
        f"max {max(times):.1f} ms; repeats {repeats(tables, met)}"
    )
    if shuffles:
        line += f" (best of {shuffles:,} shuffles: {best_of_shuffles(players, met, shuffles)})"
    print(line, flush=True)


if __name__ == "__main__":
    measure(200, 9)
    measure(600, 3)
    measure(27, 8)
    measure(25, 10, shuffles=10_000)
    measure(14, 11)
    measure(15, 11)
