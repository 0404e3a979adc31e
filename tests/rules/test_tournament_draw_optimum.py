"""The draw against every seating (docs/rules.md sections 13, 13.6; issue 27): fair to all.

For fields of up to 15 players a reference here goes through every seating
(branch and bound on the priorities' key, written apart from the draw's own
search and checked against plain brute force) and finds the best key a round
can have; the draw must reach it, round after round, with players arriving
and leaving in between.

The key of a seating, smaller is better, compared part by part:

1. apart pairs at one table;
2. repeated meetings (each earlier meeting of a pair at one table counted);
3. everybody's count of rounds at a table of four after this round, highest
   first: the most times anyone has sat at a table of four, then how many
   have that many, and so on;
4. everybody's count of times written (seat 1) after this round, likewise.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Sequence
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.rules.tournament import draw, table_sizes

Round = Sequence[Sequence[int]]
Key = tuple[int, int, tuple[int, ...], tuple[int, ...]]


class History:
    """What the earlier rounds say about each pair and player."""

    def __init__(self, met: Sequence[Round]) -> None:
        self.meetings: Counter[frozenset[int]] = Counter()
        self.fours: Counter[int] = Counter()
        self.written: Counter[int] = Counter()
        for earlier in met:
            for table in earlier:
                for pair in combinations(table, 2):
                    self.meetings[frozenset(pair)] += 1
                if len(table) == 4:
                    self.fours.update(table)
                self.written[table[0]] += 1


def key_of(
    tables: Sequence[Sequence[int]],
    history: History,
    apart: Collection[frozenset[int]],
    writers: Sequence[int] | None = None,
) -> Key:
    """A whole seating's key; ``writers`` the seat 1 of each table (else whoever wrote least)."""
    together = [frozenset(pair) for table in tables for pair in combinations(table, 2)]
    if writers is None:
        writers = [min(table, key=lambda p: history.written[p]) for table in tables]
    players = [p for table in tables for p in table]
    at_four = {p for table in tables if len(table) == 4 for p in table}
    fours = sorted((history.fours[p] + (p in at_four) for p in players), reverse=True)
    written = sorted((history.written[p] + (p in writers) for p in players), reverse=True)
    return (
        sum(pair in apart for pair in together),
        sum(history.meetings[pair] for pair in together),
        tuple(fours),
        tuple(written),
    )


def best_key(
    players: Sequence[int],
    met: Sequence[Round],
    apart: Collection[tuple[int, int]] = (),
    beat: Key | None = None,
) -> Key:
    """The best key of any seating of ``players``: every seating, less those that cannot win.

    Tables are filled in :func:`table_sizes`' order (fours first), each a
    combination of the players left; tables of one size in the order of their
    lowest player, so that each seating comes once.  A partial seating is
    dropped when no way to seat the rest can beat the best found: its key
    with the players left sent to the tables of four and given the pens
    lowest counts first, and no pair among them (the best the rest could do).
    With ``beat`` (a key some seating has) it looks only for better ones,
    which drops far more from the start: the result is ``beat`` when there is
    none.
    """
    history = History(met)
    apart_pairs = {frozenset(pair) for pair in apart}
    sizes = table_sizes(len(players))
    best: list[Key] = [] if beat is None else [beat]

    def bound(tables: list[tuple[int, ...]], left: list[int], kept: int, meetings: int) -> Key:
        # of the players left, those with the lowest counts at the tables of four and
        # with the pens: no choice of them makes the sorted counts after the round lower
        at_four = {p for table in tables if len(table) == 4 for p in table}
        writers = {min(table, key=lambda p: history.written[p]) for table in tables}
        rest = sizes[len(tables) :]
        at_four.update(sorted(left, key=lambda p: history.fours[p])[: 4 * rest.count(4)])
        writers.update(sorted(left, key=lambda p: history.written[p])[: len(rest)])
        return (
            kept,
            meetings,
            tuple(sorted((history.fours[p] + (p in at_four) for p in players), reverse=True)),
            tuple(sorted((history.written[p] + (p in writers) for p in players), reverse=True)),
        )

    def seat(tables: list[tuple[int, ...]], left: list[int], kept: int, meetings: int) -> None:
        if best and (kept, meetings) > best[0][:2]:
            return  # the pairs alone lose already
        key = bound(tables, left, kept, meetings)
        if best and key >= best[0]:
            return
        if not left:
            best[:] = [key]
            return
        size = sizes[len(tables)]
        same_before = bool(tables) and len(tables[-1]) == size
        last_size = all(other == size for other in sizes[len(tables) :])
        for table in combinations(left, size):
            if last_size and table[0] != left[0]:
                break  # the rest all of one size: the lowest left opens the next table
            if same_before and table[0] < tables[-1][0]:
                continue
            pairs = [frozenset(pair) for pair in combinations(table, 2)]
            seat(
                [*tables, table],
                [p for p in left if p not in table],
                kept + sum(pair in apart_pairs for pair in pairs),
                meetings + sum(history.meetings[pair] for pair in pairs),
            )

    seat([], sorted(players), 0, 0)
    return best[0]


def every_key(
    players: Sequence[int], met: Sequence[Round], apart: Collection[tuple[int, int]] = ()
) -> Key:
    """The best key by brute force alone: every seating, nothing dropped (small fields only)."""
    history = History(met)
    apart_pairs = {frozenset(pair) for pair in apart}
    sizes = table_sizes(len(players))

    def seatings(left: list[int], at: int) -> list[list[tuple[int, ...]]]:
        if not left:
            return [[]]
        found = []
        for table in combinations(left, sizes[at]):
            rest = [p for p in left if p not in table]
            found += [[table, *others] for others in seatings(rest, at + 1)]
        return found

    return min(key_of(tables, history, apart_pairs) for tables in seatings(list(players), 0))


# -- the reference itself ----------------------------------------------------------


def random_history(pool: Sequence[int], rounds: int, rng: random.Random) -> list[Round]:
    """Earlier rounds of fields that change (some of ``pool`` each time), seated by lot."""
    met: list[Round] = []
    for _ in range(rounds):
        size = rng.choice([n for n in range(3, len(pool) + 1) if n != 5])
        field = rng.sample(list(pool), size)
        tables, start = [], 0
        for table_size in table_sizes(size):
            tables.append(tuple(field[start : start + table_size]))
            start += table_size
        met.append(tables)
    return met


@settings(max_examples=30)
@given(
    players=st.sampled_from([3, 4, 6, 7, 8, 9, 10]),
    rounds=st.integers(0, 4),
    pairs=st.integers(0, 3),
    lot=st.integers(0, 10_000),
)
def test_the_reference_drops_no_better_seating(
    players: int, rounds: int, pairs: int, lot: int
) -> None:
    rng = random.Random(lot)
    pool = list(range(1, players + 3))
    field = rng.sample(pool, players)
    met = random_history(pool, rounds, rng)
    apart = [(a, b) for a, b in (rng.sample(field, 2) for _ in range(pairs))]
    assert best_key(field, met, apart) == every_key(field, met, apart)
    some = draw(field, met, seed=str(lot), apart=apart)
    beaten = key_of(some, History(met), {frozenset(pair) for pair in apart})
    assert best_key(field, met, apart, beat=beaten) == every_key(field, met, apart)


# -- the draw against the reference ------------------------------------------------


def check_rounds(
    fields: Sequence[Sequence[int]], seed: str, apart: Collection[tuple[int, int]] = ()
) -> list[Round]:
    """Draw round after round; each must be as good as any seating of its round can be."""
    apart_pairs = {frozenset(pair) for pair in apart}
    met: list[Round] = []
    for number, players in enumerate(fields, start=1):
        tables = draw(players, met, seed=f"{seed}-{number}", apart=apart)
        history = History(met)
        for table in tables:  # seat 1: who has written least at the table
            assert history.written[table[0]] == min(history.written[p] for p in table)
        drawn = key_of(tables, history, apart_pairs, [table[0] for table in tables])
        assert drawn == best_key(players, met, apart, beat=drawn), f"round {number}"
        met.append(tables)
    return met


def without(players: range, *gone: int) -> list[int]:
    return [p for p in players if p not in gone]


@pytest.mark.parametrize("seed", ["Turnier", "Dorf", "Cup"])
def test_thirteen_then_fourteen_then_thirteen(seed: str) -> None:
    # the evening: 14 comes for round 2, 5 leaves before round 3
    met = check_rounds([range(1, 14), range(1, 15), without(range(1, 15), 5)], seed)
    fours = Counter(p for tables in met for table in tables if len(table) == 4 for p in table)
    assert max(fours.values()) < 3  # nobody at the table of four in every round


@pytest.mark.parametrize("seed", ["Turnier", "Dorf", "Cup", "Kirchweih"])
def test_twelve_players_each_write_once_in_three_rounds(seed: str) -> None:
    met = check_rounds([range(1, 13)] * 3, seed)
    written = Counter(table[0] for tables in met for table in tables)
    assert sorted(written.values()) == [1] * 12


@pytest.mark.parametrize(
    ("fields", "apart"),
    [
        ([range(1, 11)] * 6, ()),
        ([range(1, 11), range(1, 12), range(1, 12), without(range(1, 12), 3), range(1, 12)], ()),
        ([range(1, 14)] * 4, [(1, 2), (3, 4)]),
        ([range(1, 15)] * 4, [(1, 2), (2, 3), (7, 9)]),
        ([range(1, 14), range(1, 15), range(1, 15), without(range(1, 15), 1, 2)], ()),
        ([range(1, 16)] * 5, ()),
    ],
    ids=["10x6", "10-11-11-10-11", "13x4 apart", "14x4 apart", "13-14-14-12", "15x5"],
)
def test_every_round_is_the_best_seating_of_its_round(
    fields: list[Sequence[int]], apart: list[tuple[int, int]]
) -> None:
    check_rounds(fields, "Runde", apart)


def check_random_round(players: int, rounds: int, pairs: int, lot: int) -> None:
    rng = random.Random(lot)
    pool = list(range(1, players + 4))  # some come and go between rounds
    field = rng.sample(pool, players)
    met = random_history(pool, rounds, rng)
    apart = [(a, b) for a, b in (rng.sample(field, 2) for _ in range(pairs))]
    tables = draw(field, met, seed=str(lot), apart=apart)
    assert draw(list(reversed(field)), met, seed=str(lot), apart=apart) == tables
    history = History(met)
    drawn = key_of(tables, history, {frozenset(p) for p in apart}, [t[0] for t in tables])
    assert drawn == best_key(field, met, apart, beat=drawn)


@settings(max_examples=40)
@given(
    players=st.sampled_from([3, 4, 6, 7, 8, 9, 10, 11, 12]),
    rounds=st.integers(0, 6),
    pairs=st.integers(0, 3),
    lot=st.integers(0, 10**6),
)
def test_the_draw_is_the_best_seating_of_a_small_field(
    players: int, rounds: int, pairs: int, lot: int
) -> None:
    check_random_round(players, rounds, pairs, lot)


@settings(max_examples=8)
@given(
    players=st.sampled_from([13, 14, 15]),
    rounds=st.integers(1, 5),
    pairs=st.integers(0, 2),
    lot=st.integers(0, 10**6),
)
def test_the_draw_is_the_best_seating_up_to_fifteen_players(
    players: int, rounds: int, pairs: int, lot: int
) -> None:
    check_random_round(players, rounds, pairs, lot)
