"""The tournament's pure part: docs (TOURNAMENT.md) section 5.  Players are start numbers.

:func:`table_sizes` splits a round into tables of four and three; :func:`draw`
seats the next round so that as few pairs as possible meet again;
:func:`repeats` counts such pairs; :func:`rank` gives shared places (1, 1, 3);
:func:`lost_game_fee` prices a player's lost games on the organiser's
schedule; :func:`prizes` shares the prize fund among the places.

>>> table_sizes(10)
(4, 3, 3)
>>> rank({"a": 300, "b": 300, "c": 200})
{'a': 1, 'b': 1, 'c': 3}
"""

from __future__ import annotations

import hashlib
import itertools
import random
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Collection, Hashable, Mapping, Sequence
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from difflib import SequenceMatcher
from functools import lru_cache
from typing import TypeVar

from .errors import RulesError
from .match import check_table
from .ruleset import SPECIAL_GAMES, Ruleset

K = TypeVar("K", bound=Hashable)

CENT = Decimal("0.01")

EXACT_DRAW_PLAYERS = 15
"""Up to this many players :func:`draw` finds the best of all seatings (1,401,400 for 15)."""

SEARCH_BUDGET = 150_000
"""Swap evaluations :func:`draw`'s search may spend: a count, not a time, so it is deterministic."""

EXACT_SEARCH_BUDGET = 5_000
"""The search's budget up to :data:`EXACT_DRAW_PLAYERS` players, where the best of all follows."""

SEARCH_ATTEMPTS = 3
"""Fresh starts the search splits its budget over when it has not reached the bound."""

CANDIDATES = 12
"""The most conflicting players one step of the search tries to move."""


def table_sizes(players: int) -> tuple[int, ...]:
    """The tables of one round for ``players``: tables of four first, then of three.

    As many tables of three as can be, and one or two of four when the count
    is not a multiple of three.

    >>> [table_sizes(n) for n in (3, 4, 6, 7, 8)]
    [(3,), (4,), (3, 3), (4, 3), (4, 4)]
    >>> [table_sizes(n) for n in (10, 11, 12)]
    [(4, 3, 3), (4, 4, 3), (3, 3, 3, 3)]
    >>> table_sizes(5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: 5 players ...: check in one more player ... or withdraw one ...
    """
    if not isinstance(players, int) or isinstance(players, bool):
        raise RulesError("'{players}' is not a number of players", players=players)
    if players < 3:
        raise RulesError(
            "a round needs at least 3 players, not {players}: check in more players",
            players=players,
        )
    if players == 5:
        raise RulesError(
            "5 players do not fit at tables of three and four: check in one more player "
            "(two tables of three) or withdraw one (one table of four)"
        )
    fours = players % 3
    threes = (players - 4 * fours) // 3
    return (4,) * fours + (3,) * threes


def _start_number(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError("'{value}' in {where} is not a start number", value=value, where=where)
    return value


def _pair_meetings(met: Sequence[Sequence[Sequence[int]]]) -> Counter[tuple[int, int]]:
    """How often each pair ``(low, high)`` shared a table in ``met``."""
    if isinstance(met, str | bytes) or not isinstance(met, Sequence):
        raise RulesError("the earlier rounds must be a list of rounds, each a list of tables")
    meetings: Counter[tuple[int, int]] = Counter()
    for number, earlier in enumerate(met, start=1):
        if isinstance(earlier, str | bytes) or not isinstance(earlier, Sequence):
            raise RulesError("earlier round {round} is not a list of tables", round=number)
        for table in earlier:
            if isinstance(table, str | bytes) or not isinstance(table, Sequence):
                raise RulesError(
                    "earlier round {round} has a table that is not a list of players", round=number
                )
            seated = sorted({_start_number(p, f"earlier round {number}") for p in table})
            for i, low in enumerate(seated):
                for high in seated[i + 1 :]:
                    meetings[low, high] += 1
    return meetings


def repeats(tables: Sequence[Sequence[int]], met: Sequence[Sequence[Sequence[int]]]) -> int:
    """How many pairs at ``tables`` already shared a table in ``met``, each meeting counted.

    >>> repeats([(1, 2, 5)], [[(1, 2, 3)], [(1, 2, 4)]])
    2
    >>> repeats([(1, 2, 5), (3, 4, 6)], [[(1, 2, 3), (4, 5, 6)], [(1, 5, 4)]])
    3
    """
    meetings = _pair_meetings(met)
    count = 0
    for table in tables:
        seated = sorted({_start_number(p, "the tables") for p in table})
        for i, low in enumerate(seated):
            for high in seated[i + 1 :]:
                count += meetings[low, high]
    return count


def _rng(seed: str) -> random.Random:
    if not isinstance(seed, str):
        raise RulesError("the seed of a draw must be text, not '{seed}'", seed=seed)
    return random.Random(int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest(), "big"))


def _ranks(values: Sequence[int]) -> list[int]:
    """Each value's place among the distinct values, 0 for the lowest: only their order counts."""
    place = {value: rank for rank, value in enumerate(sorted(set(values)))}
    return [place[value] for value in values]


class _Problem:
    """One draw as numbers: players ``0 … n-1`` and one integer cost for each seating.

    The cost orders seatings by the priorities, one after the other: each
    part's unit is larger than the most that all lower parts can add.

    1. Apart pairs at one table.
    2. Repeated meetings, each earlier meeting counted.
    3. The tables of four: a player there costs ``F ** level - 1``, ``level``
       being the place of their count of rounds at a table of four among the
       counts present (0 for the lowest: only the counts' order matters, and
       the numbers stay small) and ``F`` one more than the seats at tables of
       four.  The sum is a number in base ``F`` whose digits count the
       players of each level at a table of four; comparing two sums compares
       those digits from the highest level down, which orders everybody's
       counts after the round the same way: the most times anyone has sat at
       a table of four is as low as it can be, then the fewest have that
       many, then the same one count lower, and so on.
    4. The Schreibers, in the same way: a table costs ``W ** level - 1`` for
       whoever at it has written least (they take seat 1), ``W`` one more
       than the tables: the most times anyone has written is as low as it
       can be, then the fewest have written that often, and so on.

    :attr:`bound` is what no seating goes below: nobody meets again, the
    tables of four and the pens go to the lowest counts.
    """

    def __init__(
        self,
        players: list[int],
        meetings: Counter[tuple[int, int]],
        fours: Mapping[int, int],
        written: Mapping[int, int],
        apart: set[tuple[int, int]],
        sizes: tuple[int, ...],
    ) -> None:
        n = len(players)
        index = {p: i for i, p in enumerate(players)}
        self.n = n
        self.sizes = sizes
        self.four = [size == 4 for size in sizes]
        tables = len(sizes)
        seats_at_four = 4 * sizes.count(4)
        # (4) the Schreibers: a table's cost by the level of whoever wrote least
        self.level = _ranks([written.get(p, 0) for p in players])
        self.pen: list[int] = [(tables + 1) ** level - 1 for level in range(max(self.level) + 1)]
        pens_most = tables * self.pen[-1]
        # (3) the tables of four, in units above everything (4) can add
        four_levels = _ranks([fours.get(p, 0) for p in players])
        self.fours: list[int] = [
            ((seats_at_four + 1) ** level - 1) * (pens_most + 1) for level in four_levels
        ]
        fours_most = sum(sorted(self.fours)[n - seats_at_four :]) if seats_at_four else 0
        # (2) and (1): pairs, in units above everything below can add
        repeat_weight = fours_most + pens_most + 1
        cost = [[0] * n for _ in range(n)]
        total = 0
        for (a, b), times in meetings.items():
            if a in index and b in index:
                i, j = index[a], index[b]
                cost[i][j] = cost[j][i] = times * repeat_weight
                total += times * repeat_weight
        apart_weight = total + repeat_weight
        for a, b in apart:
            i, j = index[a], index[b]
            cost[i][j] += apart_weight
            cost[j][i] += apart_weight
        self.cost = cost
        # the highest level at a table of four, and of a pen, in a seating at the bound
        self.four_cut = sorted(self.fours)[seats_at_four - 1] if seats_at_four else 0
        self.pen_cut = sorted(self.level)[tables - 1]
        self.bound = sum(sorted(self.fours)[:seats_at_four]) + sum(
            self.pen[level] for level in sorted(self.level)[:tables]
        )

    def seating_cost(self, tables: list[list[int]]) -> int:
        return sum(self.table_cost(members) for members in tables)

    def greedy(self, rng: random.Random) -> list[list[int]]:
        """Each player in a random order to the table where they add the least cost."""
        order = list(range(self.n))
        rng.shuffle(order)
        tables: list[list[int]] = [[] for _ in self.sizes]
        for i in order:
            row = self.cost[i]
            best = -1
            best_cost = 0
            for t, members in enumerate(tables):
                if len(members) == self.sizes[t]:
                    continue
                added = sum(row[j] for j in members)
                if self.four[t]:
                    added += self.fours[i]
                if best < 0 or added < best_cost:
                    best, best_cost = t, added
            tables[best].append(i)
        return tables

    def table_cost(self, members: Sequence[int]) -> int:
        """One table's part of a seating's cost: its pairs, its fours (at four) and its pen."""
        cost = self.cost
        total = self.pen[min(self.level[i] for i in members)]
        for k, i in enumerate(members):
            row = cost[i]
            total += sum(row[j] for j in members[k + 1 :])
        if len(members) == 4:
            total += sum(self.fours[i] for i in members)
        return total

    def exact(self, rng: random.Random) -> tuple[int, list[list[int]]]:
        """The cheapest seating of all, and its cost: dynamic programming over who is left.

        A seating's cost is the sum of its tables' costs, so the cheapest
        seating of the players left is, over every table that the first of
        them (in the lot's order) can sit at, that table's cost and the
        cheapest seating of the rest; each set of players left is solved once.
        The tables of four left are as many as the players left are above a
        multiple of three.  14 players leave 3,072 such sets (102,334 tables
        tried), 15 players 1,897 (34,521).  Of equal seatings the first found.
        """
        n = self.n
        order = list(range(n))
        rng.shuffle(order)
        bit = [1 << k for k in range(n)]
        costs: dict[int, int] = {}
        cheapest: dict[int, tuple[int, int]] = {0: (0, 0)}  # left -> (cost, first table)

        def solve(left: int) -> int:
            known = cheapest.get(left)
            if known is not None:
                return known[0]
            positions = [k for k in range(n) if left & bit[k]]
            first, rest = positions[0], positions[1:]
            fours = len(positions) % 3
            sizes = ([4] if fours else []) + ([3] if len(positions) - 4 * fours >= 3 else [])
            found, found_table = -1, 0
            for size in sizes:
                for others in itertools.combinations(rest, size - 1):
                    table = bit[first]
                    for k in others:
                        table |= bit[k]
                    here = costs.get(table)
                    if here is None:
                        here = costs[table] = self.table_cost(
                            [order[first], *(order[k] for k in others)]
                        )
                    total = here + solve(left & ~table)
                    if found < 0 or total < found:
                        found, found_table = total, table
            cheapest[left] = (found, found_table)
            return found

        total = solve((1 << n) - 1)
        tables: list[list[int]] = []
        left = (1 << n) - 1
        while left:
            table = cheapest[left][1]
            tables.append([order[k] for k in range(n) if table & bit[k]])
            left &= ~table
        tables.sort(key=len, reverse=True)
        return total, tables

    def search(self, tables: list[list[int]], rng: random.Random, budget: int) -> list[list[int]]:
        """Tabu search over swaps of two players of different tables; the best seating seen.

        Each step tries to move the players who cost most: those who meet
        someone again (or sit with someone to keep apart); when they are
        fewer than :data:`CANDIDATES`, also those whose table of four or
        three, or whose pen, goes to the wrong one (the fours and the pens
        not to the lowest counts).
        """
        n = self.n
        cost = self.cost
        four = self.four
        fours = self.fours
        level = self.level
        pen = self.pen
        four_cut = self.four_cut
        pen_cut = self.pen_cut
        table_of = [0] * n
        for t, members in enumerate(tables):
            for i in members:
                table_of[i] = t
        pair = [0] * n  # each player's pair cost at their table
        others_low = [0] * n  # the lowest writer level at their table without them
        low = [0] * len(tables)  # the lowest writer level at each table

        def refresh(t: int) -> None:
            members = tables[t]
            for i in members:
                row = cost[i]
                pair[i] = sum(row[j] for j in members) - row[i]
                others_low[i] = min(level[j] for j in members if j != i)
            low[t] = min(level[j] for j in members)

        def unfair(i: int) -> bool:
            t = table_of[i]
            if four[t]:
                if fours[i] > four_cut:
                    return True  # at a table of four while one with a lower count is not
            elif fours[i] < four_cut:
                return True  # not at a table of four while one with a higher count is
            if low[t] > pen_cut:
                return True  # at a table whose pen goes to a higher count than it could
            return level[i] < pen_cut and others_low[i] <= level[i]  # a low count not writing

        for t in range(len(tables)):
            refresh(t)
        current = self.seating_cost(tables)
        best_cost = current
        best = [list(members) for members in tables]
        tabu = [[0] * len(tables) for _ in range(n)]
        step = 0
        while budget > 0 and best_cost > self.bound:
            step += 1
            candidates = [i for i in range(n) if pair[i]]
            if len(candidates) > CANDIDATES:
                candidates = rng.sample(candidates, CANDIDATES)
            elif len(candidates) < CANDIDATES:
                others = [i for i in range(n) if not pair[i] and unfair(i)]
                if len(others) > CANDIDATES - len(candidates):
                    others = rng.sample(others, CANDIDATES - len(candidates))
                candidates += others
            move_delta = 0
            moves: list[tuple[int, int]] = []
            for i in candidates:
                a = table_of[i]
                row_i = cost[i]
                others_a = [j for j in tables[a] if j != i]
                low_i = level[i]
                low_a = others_low[i]
                for b, members in enumerate(tables):
                    if b == a:
                        continue
                    budget -= len(members) + 1
                    base = sum(row_i[j] for j in members) - pair[i] - pen[low[a]] - pen[low[b]]
                    four_change = four[a] != four[b]
                    for j in members:
                        row_j = cost[j]
                        delta = base - row_i[j] + sum(row_j[x] for x in others_a) - pair[j]
                        if four_change:
                            delta += fours[j] - fours[i] if four[a] else fours[i] - fours[j]
                        low_j = level[j]
                        low_b = others_low[j]
                        delta += pen[low_a if low_a < low_j else low_j]
                        delta += pen[low_b if low_b < low_i else low_i]
                        if (
                            tabu[i][b] > step or tabu[j][a] > step
                        ) and current + delta >= best_cost:
                            continue  # tabu, and no new best (aspiration)
                        if not moves or delta < move_delta:
                            move_delta = delta
                            moves = [(i, j)]
                        elif delta == move_delta:
                            moves.append((i, j))
            if not moves:
                break
            i, j = moves[rng.randrange(len(moves))] if len(moves) > 1 else moves[0]
            a, b = table_of[i], table_of[j]
            tables[a][tables[a].index(i)] = j
            tables[b][tables[b].index(j)] = i
            table_of[i], table_of[j] = b, a
            tabu[i][a] = step + 3 + rng.randrange(4)
            tabu[j][b] = step + 3 + rng.randrange(4)
            refresh(a)
            refresh(b)
            current += move_delta
            if current < best_cost:
                best_cost = current
                best = [list(members) for members in tables]
        return best

    def solve(self, rng: random.Random) -> list[list[int]]:
        """The search from fresh starts; in a small field then the best of all if it is better."""
        small = self.n <= EXACT_DRAW_PLAYERS
        attempts = 1 if small else SEARCH_ATTEMPTS
        budget = (EXACT_SEARCH_BUDGET if small else SEARCH_BUDGET) // attempts
        best: list[list[int]] = []
        best_cost = -1
        for _ in range(attempts):
            tables = self.search(self.greedy(rng), rng, budget)
            found = self.seating_cost(tables)
            if best_cost < 0 or found < best_cost:
                best, best_cost = tables, found
            if best_cost == self.bound:
                return best
        if small:
            found, tables = self.exact(rng)
            if found < best_cost:
                return tables
        return best


def draw(
    players: Sequence[int],
    met: Sequence[Sequence[Sequence[int]]] = (),
    *,
    seed: str,
    apart: Collection[tuple[int, int]] = (),
) -> tuple[tuple[int, ...], ...]:
    """Seats ``players`` at tables of :func:`table_sizes` for the next round.

    ``met`` holds the earlier rounds, each a sequence of tables in seat order
    (players no longer in ``players`` are passed over).  Of all seatings it
    takes the best by these priorities, each one deciding only between
    seatings that the ones before it find equal:

    1. no ``apart`` pair at one table;
    2. the fewest pairs that have already shared a table, each earlier
       meeting counted;
    3. the tables of four: the most times anyone will have sat at a table of
       four after this round is as low as it can be, then as few players as
       can be have that many, then the same one count lower, and so on; so
       nobody sits at a table of four again while another has not sat at
       one, unless a pair of (1) or (2) stands in the way;
    4. the Schreiber's seat: seat 1 (who writes and deals first) goes to
       whoever at the table has written least, so nobody at a table writes
       again while another at it has not; and between seatings (3) finds
       equal, counted as in (3) over everyone who has written: the most
       times anyone will have written is as low as it can be, then the
       fewest have written that often, and so on.  So the tables mix those
       who have written least with the others, and nobody writes a second
       time while another player has not written yet, unless (1) to (3)
       stand in the way.

    The counts come from ``met``: a table of four or more, and seat 1 of
    every table.  What is left equal is decided by lot.

    The same arguments give the same tables: the lot comes from ``seed``.  A
    greedy seating is improved by a tabu search that swaps two players of
    different tables, for a fixed number of steps (no clock), from a few
    fresh starts, until no seating can be better (nobody meets again, the
    tables of four and the pens go to the lowest counts).  Up to
    :data:`EXACT_DRAW_PLAYERS` players the best of all seatings is then
    found as well and taken where it is better than the search's.

    >>> first = draw(range(1, 10), seed="Runde 1")
    >>> first
    ((2, 6, 8), (7, 4, 9), (5, 3, 1))
    >>> second = draw(range(1, 10), [first], seed="Runde 2")
    >>> second
    ((1, 9, 2), (8, 5, 7), (3, 6, 4))
    >>> repeats(second, [first])
    0
    >>> [len(table) for table in draw(range(1, 11), seed="x")]
    [4, 3, 3]
    """
    if isinstance(players, str | bytes) or not isinstance(players, Sequence | range):
        raise RulesError("the players of a draw must be a list of start numbers")
    numbers = sorted(_start_number(p, "the players") for p in players)
    for low, high in itertools.pairwise(numbers):
        if low == high:
            raise RulesError("start number {number} is twice in the draw", number=low)
    sizes = table_sizes(len(numbers))
    rng = _rng(seed)
    meetings = _pair_meetings(met)
    present = set(numbers)
    fours: Counter[int] = Counter()
    written: Counter[int] = Counter()
    for earlier in met:
        for table in earlier:
            if len(table) >= 4:
                fours.update(table)
            if table:
                written[table[0]] += 1
    apart_pairs: set[tuple[int, int]] = set()
    if isinstance(apart, str | bytes):
        raise RulesError("the players to keep apart must be pairs of start numbers")
    for entry in apart:
        if isinstance(entry, str | bytes) or not isinstance(entry, Sequence) or len(entry) != 2:
            raise RulesError("'{entry}' is not a pair of start numbers to keep apart", entry=entry)
        a, b = (_start_number(p, "the players to keep apart") for p in entry)
        if a != b and a in present and b in present:
            apart_pairs.add((min(a, b), max(a, b)))
    problem = _Problem(numbers, meetings, fours, written, apart_pairs, sizes)
    seating = problem.solve(rng)
    tables = [[numbers[i] for i in members] for members in seating]
    # tables of four first, as table_sizes gives them; within a size in the lot's order
    tables.sort(key=len, reverse=True)
    result = []
    for members in tables:
        lots = {p: rng.random() for p in members}
        result.append(tuple(sorted(members, key=lambda p: (written[p], lots[p]))))
    return tuple(result)


def rank(points: Mapping[K, int]) -> dict[K, int]:
    """Places by points, highest first; equal points share a place and the next one skips.

    The result lists the players by place, ties in the order of ``points``.

    >>> rank({"a": 300, "b": 300, "c": 200})
    {'a': 1, 'b': 1, 'c': 3}
    >>> rank({"c": 200, "b": 300})
    {'b': 1, 'c': 2}
    """
    if not isinstance(points, Mapping):
        raise RulesError("the points must map players to points")
    for player, value in points.items():
        if not isinstance(value, int) or isinstance(value, bool):
            raise RulesError(
                "'{player}': '{value}' is not a number of points", player=player, value=value
            )
    ordered = sorted(points, key=lambda player: -points[player])
    places: dict[K, int] = {}
    for position, player in enumerate(ordered, start=1):
        if position > 1 and points[player] == points[ordered[position - 2]]:
            places[player] = places[ordered[position - 2]]
        else:
            places[player] = position
    return places


_SCHEDULE_PART = re.compile(
    r"\s*€?\s*(?P<amount>\d+(?:[.,]\d{1,2})?)\s*€?\s*(?:(?:from|ab)\s+(?P<start>\d+))?\s*",
    re.IGNORECASE,
)


@lru_cache(maxsize=64)
def _schedule(schedule: str) -> tuple[tuple[int, Decimal], ...]:
    """``"0.50; 1.00 from 5"`` as ``((1, 0.50), (5, 1.00))``: from which lost game each price."""
    malformed = RulesError(
        "'{schedule}' is not a lost-game schedule: write the price of a lost game, then "
        "'; price from N' for the price from the N-th lost game on, e.g. '0.50; 1.00 from 5'",
        schedule=schedule,
    )
    steps: list[tuple[int, Decimal]] = []
    for position, part in enumerate(schedule.split(";")):
        match = _SCHEDULE_PART.fullmatch(part)
        if match is None:
            raise malformed
        amount = Decimal(match["amount"].replace(",", "."))
        if match["start"] is None:
            if position:
                raise malformed
            start = 1
        else:
            start = int(match["start"])
            if start < 1 or (steps and start <= steps[-1][0]):
                raise malformed
        steps.append((start, amount))
    return tuple(steps)


def lost_game_fee(lost: int, schedule: str) -> Decimal:
    """What ``lost`` lost games cost on ``schedule``, to the cent.

    A schedule is the price of a lost game, then ``; price from N`` for the
    price from the N-th lost game on (``ab`` for ``from`` and a decimal comma
    work too).  A first price with ``from N`` makes the games before free.

    >>> lost_game_fee(4, "0.50; 1.00 from 5"), lost_game_fee(6, "0.50; 1.00 from 5")
    (Decimal('2.00'), Decimal('4.00'))
    >>> lost_game_fee(3, "1.00")
    Decimal('3.00')
    >>> lost_game_fee(3, "50 cents")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: '50 cents' is not a lost-game schedule: write the price ...
    """
    if not isinstance(schedule, str):
        raise RulesError("'{schedule}' is not a lost-game schedule", schedule=schedule)
    if not isinstance(lost, int) or isinstance(lost, bool) or lost < 0:
        raise RulesError("'{lost}' is not a number of lost games", lost=lost)
    steps = _schedule(schedule)
    total = Decimal(0)
    for k, (start, amount) in enumerate(steps):
        end = steps[k + 1][0] - 1 if k + 1 < len(steps) else lost
        games = min(lost, end) - start + 1
        if games > 0:
            total += games * amount
    return total.quantize(CENT)


def _money(value: object, what: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, Decimal | int):
        raise RulesError("{what} must be a Decimal, not '{value}'", what=what, value=value)
    try:
        amount = Decimal(value)
    except InvalidOperation as error:  # pragma: no cover - Decimal(int) cannot fail
        raise RulesError("{what} is not a number", what=what) from error
    if not amount.is_finite() or amount < 0:
        raise RulesError("{what} must not be negative, not {value}", what=what, value=value)
    return amount


def prizes(fund: Decimal, shares: Sequence[Decimal], places: Mapping[K, int]) -> dict[K, Decimal]:
    """The money prizes: ``shares[i]`` of the ``fund`` for place ``i + 1``, rounded down.

    Players who share a place (as :func:`rank` gives it) share equally the
    prizes of the places they occupy; the cents that do not divide go one each
    to the first of them in ``places``' order.  The prizes add up to the sum of
    the reached places' prizes; the rest of the fund stays in the till.
    Players whose places all lie beyond the last share get no entry.

    >>> prizes(Decimal("100"), [Decimal("0.30"), Decimal("0.20"), Decimal("0.15")],
    ...        {"a": 1, "b": 2, "c": 2, "d": 2})
    {'a': Decimal('30.00'), 'b': Decimal('11.67'), 'c': Decimal('11.67'), 'd': Decimal('11.66')}
    """
    amount = _money(fund, "the prize fund")
    if isinstance(shares, str | bytes) or not isinstance(shares, Sequence):
        raise RulesError("the shares must be a list of fractions of the fund")
    fractions = [_money(share, f"the share of place {i}") for i, share in enumerate(shares, 1)]
    if sum(fractions, Decimal(0)) > 1:
        raise RulesError(
            "the shares add up to {total}, more than the whole fund: lower them to 1 at most",
            total=sum(fractions, Decimal(0)),
        )
    if not isinstance(places, Mapping):
        raise RulesError("the places must map players to places")
    groups: defaultdict[int, list[K]] = defaultdict(list)
    for player, place in places.items():
        if not isinstance(place, int) or isinstance(place, bool) or place < 1:
            raise RulesError("'{player}': '{place}' is not a place", player=player, place=place)
        groups[place].append(player)
    cents = [
        int((amount * share).quantize(CENT, rounding=ROUND_DOWN) / CENT) for share in fractions
    ]
    result: dict[K, Decimal] = {}
    taken = 0
    for place in sorted(groups):
        tied = groups[place]
        if place <= taken:
            raise RulesError(
                "place {place} is taken by the {count} players before: give the places as "
                "rank gives them (1, 1, 3)",
                place=place,
                count=taken,
            )
        taken = place + len(tied) - 1
        if place > len(cents):
            continue
        pool = sum(cents[place - 1 : taken])
        share, rest = divmod(pool, len(tied))
        for position, player in enumerate(tied):
            result[player] = (share + (1 if position < rest else 0)) * CENT
    return result


def table_ruleset(ruleset: Ruleset, size: int) -> Ruleset:
    """The tournament's ruleset for a table of ``size`` (docs/rules.md section 13).

    A table of three plays the tournament's deals; at a table of four the dealer
    sits out each deal and the table plays ``deals × 4 / 3`` deals, so that
    everybody plays as many as at a table of three.

    >>> from scorer.rules.ruleset import PRESETS
    >>> four = table_ruleset(PRESETS["turnier"], 4)
    >>> four.players, four.dealer_sits_out, four.deals, four.end
    (4, True, 16, 'deals')
    >>> table_ruleset(PRESETS["turnier"], 3).deals
    12
    """
    if size not in (3, 4):
        raise RulesError("a tournament table seats 3 or 4 players, not {size}", size=size)
    if ruleset.deals % 3:
        raise RulesError(
            "a round of {deals} deals cannot be played at a table of four (they play "
            "4/3 as many): choose a multiple of 3, e.g. 9 or 12",
            deals=ruleset.deals,
        )
    deals = ruleset.deals if size == 3 else ruleset.deals * 4 // 3
    return ruleset.replace(
        players=size, team_size=1, dealer_sits_out=size == 4, end="deals", deals=deals
    )


def tournament_ruleset(ruleset: Ruleset, deals: int | None = None) -> Ruleset:
    """``ruleset`` as a tournament plays it (docs/rules.md section 13): tables of three,
    each for themselves, closed play, a fixed number of ``deals`` (the ruleset's when None).

    This is the tournament's ruleset (of a table of three); :func:`table_ruleset` makes
    the table of four from it.  Refused (``RulesError``) when the deals do not suit both.

    >>> from scorer.rules.ruleset import PRESETS
    >>> made = tournament_ruleset(PRESETS["standard"], 9)
    >>> made.players, made.team_size, made.end, made.deals
    (3, 1, 'deals', 9)
    >>> tournament_ruleset(PRESETS["turnier"], 10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: a round of 10 deals cannot be played at a table of four ...
    """
    made = ruleset.replace(
        players=3,
        team_size=1,
        open_play=False,
        dealer_sits_out=False,
        end="deals",
        deals=ruleset.deals if deals is None else deals,
    )
    return check_tournament_ruleset(made)


def check_tournament_ruleset(ruleset: Ruleset) -> Ruleset:
    """``ruleset`` when a tournament can play it (as :func:`tournament_ruleset` makes one),
    else ``RulesError`` saying what is not.

    >>> from scorer.rules.ruleset import PRESETS
    >>> check_tournament_ruleset(PRESETS["kreuzbinokel"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: a tournament is played at tables of three, each for themselves
    """
    if ruleset.players != 3 or ruleset.team_size != 1 or ruleset.open_play:
        raise RulesError("a tournament is played at tables of three, each for themselves")
    if ruleset.end != "deals":
        raise RulesError("a tournament round is a fixed number of deals")
    for size in (3, 4):
        # the deals must suit a table of four too, and both tables must be dealt
        check_table(table_ruleset(ruleset, size), size)
    return ruleset


def lost_game(outcome: str, *, made: bool | None, won: bool | None) -> bool:
    """Whether a hand was a game its declarer lost: failed, gone off, or a special game lost.

    These are what the lost-game money counts (docs/rules.md section 13); a
    forfeit is a penalty, not a lost game.

    >>> lost_game("played", made=False, won=None), lost_game("gone_off", made=None, won=None)
    (True, True)
    >>> lost_game("played", made=True, won=None), lost_game("durch", made=None, won=False)
    (False, True)
    """
    if outcome == "gone_off":
        return True
    if outcome == "played":
        return made is False
    return outcome in SPECIAL_GAMES and won is False


def ranking(
    rounds: Mapping[K, Sequence[int]], lost: Mapping[K, int], *, tie_break: bool = False
) -> dict[K, int]:
    """Places of the tournament's ranking (docs/rules.md section 13), best first.

    ``rounds`` holds each player's points in the rounds they played (a round
    they did not play is left out, not a 0: it is no round at all for the
    tie-break); ``lost`` their lost games (a missing player has none).  The
    sum of the rounds decides; equal sums share a place and the next one skips,
    as :func:`rank` gives them.  With ``tie_break`` equal sums are ordered by
    the better best round, then by the fewer lost games; only players equal
    in all three share a place.  The result lists the players by place, ties
    in the order of ``rounds``.

    >>> played = {"Anna": [300, 100], "Bertl": [200, 200], "Done": [150, 100]}
    >>> ranking(played, {"Anna": 2, "Bertl": 1})
    {'Anna': 1, 'Bertl': 1, 'Done': 3}
    >>> ranking(played, {"Anna": 2, "Bertl": 1}, tie_break=True)
    {'Anna': 1, 'Bertl': 2, 'Done': 3}
    >>> ranking({"a": [250, 150], "b": [150, 250], "c": [200, 200]}, {"a": 3, "b": 1},
    ...         tie_break=True)
    {'b': 1, 'a': 2, 'c': 3}
    """
    if not isinstance(rounds, Mapping) or not isinstance(lost, Mapping):
        raise RulesError("the rounds and the lost games must map players to numbers")
    for player, values in rounds.items():
        if isinstance(values, str | bytes) or not isinstance(values, Sequence):
            raise RulesError(
                "'{player}': '{value}' are not round points", player=player, value=values
            )
        for value in (*values, lost.get(player, 0)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulesError(
                    "'{player}': '{value}' is not a number of points", player=player, value=value
                )
    keys: dict[K, tuple[int, ...]] = {}
    for player, values in rounds.items():
        total = sum(values)
        # no round played: no best round either; it sorts below every real one
        best = max(values) if values else -(2**63)
        keys[player] = (total, best, -lost.get(player, 0)) if tie_break else (total,)
    ordered = sorted(keys, key=lambda player: keys[player], reverse=True)
    places: dict[K, int] = {}
    for position, player in enumerate(ordered, start=1):
        before = ordered[position - 2] if position > 1 else None
        if before is not None and keys[player] == keys[before]:
            places[player] = places[before]
        else:
            places[player] = position
    return places


# -- the prize fund and the prizes beyond the money (docs/rules.md section 13) ---------------

MAX_SHARES = 100
"""The most places one prize fund is shared among (a share each)."""

_SHARE_TOKENS = re.compile(r"[;\s]+|,(?=\s|$)")
_SHARE = re.compile(r"[0-9]+(?:[.,][0-9]{1,2})?", re.ASCII)


def _share_tokens(text: str) -> list[str]:
    """The typed shares one by one: ``"30,20,15"`` (several commas, no spaces) is three."""
    tokens: list[str] = []
    for token in _SHARE_TOKENS.split(text.replace("%", " ")):
        if token.count(",") > 1:
            tokens.extend(token.split(","))
        elif token:
            tokens.append(token)
    return [token for token in tokens if token]


def prize_shares(text: str) -> tuple[Decimal, ...]:
    """The organiser's shares of the prize fund, typed in per cent, as fractions of the fund.

    The shares of places 1, 2, 3 … are separated by a semicolon, a space or a
    comma and a space; a comma between digits is a decimal comma (``12,5``),
    unless several of them stand without a space (``30,20,15`` is three
    shares).  A per cent sign may follow each.  Empty text is no shares (no
    money prizes).  Up to two decimals; a negative share, one above 100 %,
    shares adding up to more than 100 % or anything that is no number raise
    :class:`RulesError` naming it.

    >>> prize_shares("30, 20, 15, 10")
    (Decimal('0.3'), Decimal('0.2'), Decimal('0.15'), Decimal('0.1'))
    >>> prize_shares("40 %; 12,5 %; 7.5")
    (Decimal('0.4'), Decimal('0.125'), Decimal('0.075'))
    >>> prize_shares("30,20,15")
    (Decimal('0.3'), Decimal('0.2'), Decimal('0.15'))
    >>> prize_shares("60, 50")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: the shares add up to 110 %, more than the whole fund: ...
    """
    if not isinstance(text, str):
        raise RulesError("'{share}' is not a list of shares", share=text)
    tokens = _share_tokens(text)
    if len(tokens) > MAX_SHARES:
        raise RulesError("at most {most} places share the prize fund", most=MAX_SHARES)
    percents: list[Decimal] = []
    for token in tokens:
        quoted = token if len(token) <= 12 else token[:12] + "…"
        if token.startswith("-") or token.startswith("−"):
            raise RulesError("a share cannot be negative: '{share}'", share=quoted)
        if _SHARE.fullmatch(token) is None:
            raise RulesError(
                "'{share}' is not a share: write the shares of the places in per cent, "
                "e.g. 30, 20, 15, 10",
                share=quoted,
            )
        percent = Decimal(token.replace(",", "."))
        if percent > 100:
            raise RulesError("a share is at most 100 %, not {share} %", share=quoted)
        percents.append(percent)
    total = sum(percents, Decimal(0))
    if total > 100:
        raise RulesError(
            "the shares add up to {total} %, more than the whole fund: lower them to 100 % at most",
            total=total.normalize().to_eng_string(),
        )
    return tuple((percent / 100).normalize() for percent in percents)


def prize_fund(takings: Decimal, keep: Decimal, *, share: bool = False) -> Decimal:
    """What of the ``takings`` meant for the prizes goes to the prize fund, to the cent.

    The organiser keeps ``keep``: an amount (never more than there is), or
    with ``share`` a fraction of the takings (``0.10`` for 10 %).  The fund is
    rounded down to the cent: a fraction of a cent stays in the till.

    >>> prize_fund(Decimal("423.50"), Decimal("0.10"), share=True)
    Decimal('381.15')
    >>> prize_fund(Decimal("300"), Decimal("50")), prize_fund(Decimal("30"), Decimal("50"))
    (Decimal('250.00'), Decimal('0.00'))
    >>> prize_fund(Decimal("0.15"), Decimal("0.5"), share=True)
    Decimal('0.07')
    """
    amount = _money(takings, "the takings")
    kept = _money(keep, "what the organiser keeps")
    if share:
        if kept > 1:
            raise RulesError("the organiser keeps at most 100 %")
        fund = amount * (1 - kept)
    else:
        fund = max(amount - kept, Decimal(0))
    return fund.quantize(CENT, rounding=ROUND_DOWN)


def pick_order(places: Mapping[K, int]) -> list[K]:
    """Who picks a prize from the prize table when: by place, tied players in ``places``' order.

    The app passes the players in start-number order, so of two who share a
    place the lower start number picks first.

    >>> pick_order({"c": 3, "a": 1, "d": 2, "b": 2})
    ['a', 'd', 'b', 'c']
    """
    if not isinstance(places, Mapping):
        raise RulesError("the places must map players to places")
    for player, place in places.items():
        if not isinstance(place, int) or isinstance(place, bool) or place < 1:
            raise RulesError("'{player}': '{place}' is not a place", player=player, place=place)
    return sorted(places, key=lambda player: places[player])


def item_prizes(items: Sequence[str], places: Mapping[K, int]) -> dict[K, str]:
    """The item prizes: the k-th to pick (:func:`pick_order`) gets the k-th item of the list.

    The organiser lists the prize table best first.  A list shorter than the
    players ends the prizes: whoever picks after the last item gets no entry.

    >>> item_prizes(["Schinken", "Wein", "Kalender"], {"a": 1, "b": 2, "c": 2, "d": 4})
    {'a': 'Schinken', 'b': 'Wein', 'c': 'Kalender'}
    """
    if isinstance(items, str | bytes) or not isinstance(items, Sequence):
        raise RulesError("the prizes must be a list of items")
    return dict(zip(pick_order(places), items, strict=False))


def last_place(places: Mapping[K, int]) -> list[K]:
    """The players of the last place (the joke prize's), several when they share it.

    >>> last_place({"a": 1, "b": 2, "c": 3, "d": 3}), last_place({})
    (['c', 'd'], [])
    """
    order = pick_order(places)
    if not order:
        return []
    last = places[order[-1]]
    return [player for player in order if places[player] == last]


def place_prizes(fund: Decimal, shares: Sequence[Decimal]) -> list[Decimal]:
    """The prize of each place by its share, as :func:`prizes` reckons it: rounded down to the cent.

    >>> place_prizes(Decimal("381.15"), [Decimal("0.3"), Decimal("0.2")])
    [Decimal('114.34'), Decimal('76.23')]
    """
    amount = _money(fund, "the prize fund")
    if isinstance(shares, str | bytes) or not isinstance(shares, Sequence):
        raise RulesError("the shares must be a list of fractions of the fund")
    fractions = [_money(share, f"the share of place {i}") for i, share in enumerate(shares, 1)]
    return [(amount * share).quantize(CENT, rounding=ROUND_DOWN) for share in fractions]


def round_fees(lost: Sequence[int | None], schedule: str) -> tuple[Decimal | None, ...]:
    """What each round's lost games add to a player's lost-game money of the evening.

    The schedule prices the lost games of the whole evening (its step "from
    the fifth" counts the fifth lost game of the evening, whatever the round);
    a round's fee is what its lost games add to those before.  The rounds add
    up to :func:`lost_game_fee` of the evening's total.  ``None`` is a round
    the player did not play (no fee either).

    >>> round_fees([3, None, 3], "0.50; 1.00 from 5")
    (Decimal('1.50'), None, Decimal('2.50'))
    >>> sum(fee for fee in round_fees([3, None, 3], "0.50; 1.00 from 5") if fee)
    Decimal('4.00')
    """
    if isinstance(lost, str | bytes) or not isinstance(lost, Sequence):
        raise RulesError("the lost games must be a list of rounds")
    fees: list[Decimal | None] = []
    before = 0
    for games in lost:
        if games is None:
            fees.append(None)
            continue
        fees.append(lost_game_fee(before + games, schedule) - lost_game_fee(before, schedule))
        before += games
    return tuple(fees)


# -- the series (Binokel-Cup): evenings added up (docs/rules.md section 13) ------------------

SERIES_COUNTING = ("all", "best", "every")
"""How a series' evenings add up: all of them, the best k, or only players of every evening."""


def series_evenings(
    played: Sequence[int | None], counting: str, best: int = 0
) -> tuple[int, ...] | None:
    """Which evenings count for one player: their indices, or ``None`` when not ranked.

    ``played`` holds the player's points of each evening held so far, ``None``
    for an evening they missed.  ``"all"`` counts every evening played;
    ``"best"`` the ``best`` highest of them (all when fewer were played; of
    equal evenings the earlier); ``"every"`` all of them, but only a player who
    played every evening is ranked.

    >>> series_evenings([300, None, 500], "all")
    (0, 2)
    >>> series_evenings([300, 200, 500], "best", 2)
    (0, 2)
    >>> series_evenings([300, None, 500], "every") is None
    True
    """
    if counting not in SERIES_COUNTING:
        raise RulesError("'{counting}' is no way to count a series", counting=counting)
    if counting == "best" and (not isinstance(best, int) or isinstance(best, bool) or best < 1):
        raise RulesError("the best '{best}' evenings: give a number of 1 or more", best=best)
    for value in played:
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise RulesError("'{value}' is not a number of points", value=value)
    attended = [index for index, value in enumerate(played) if value is not None]
    if counting == "every":
        return tuple(attended) if attended and len(attended) == len(played) else None
    if not attended:
        return None
    if counting == "best":
        chosen = sorted(attended, key=lambda index: (-(played[index] or 0), index))[:best]
        return tuple(sorted(chosen))
    return tuple(attended)


def series_ranking(
    evenings: Mapping[K, Sequence[int | None]], counting: str, best: int = 0
) -> dict[K, tuple[int, int]]:
    """The series ranking: each ranked player's place and counted points, best first.

    ``evenings`` maps a player to their points of each evening held (``None``
    for a missed one; every player's sequence has one entry per evening).  A
    player's series points are the sum of the evenings :func:`series_evenings`
    counts; equal sums share a place as :func:`rank` gives them.  Players it
    does not rank (``"every"`` and an evening missed) are left out.

    >>> series_ranking({"a": [300, 200], "b": [None, 600], "c": [400, 100]}, "all")
    {'b': (1, 600), 'a': (2, 500), 'c': (2, 500)}
    >>> series_ranking({"a": [300, 200], "b": [None, 600], "c": [400, 100]}, "every")
    {'a': (1, 500), 'c': (1, 500)}
    >>> series_ranking({"a": [300, 200], "b": [None, 600], "c": [400, 100]}, "best", 1)
    {'b': (1, 600), 'c': (2, 400), 'a': (3, 300)}
    """
    if not isinstance(evenings, Mapping):
        raise RulesError("the evenings must map players to points")
    lengths = {len(values) for values in evenings.values()}
    if len(lengths) > 1:
        raise RulesError("every player needs one entry per evening")
    totals: dict[K, int] = {}
    for player, values in evenings.items():
        counted = series_evenings(values, counting, best)
        if counted is not None:
            totals[player] = sum(values[index] or 0 for index in counted)
    return {player: (place, totals[player]) for player, place in rank(totals).items()}


_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_SOUNDS = (
    ("ay", "ei"),
    ("ey", "ei"),
    ("ai", "ei"),
    ("ph", "f"),
    ("th", "t"),
    ("dt", "t"),
    ("ck", "k"),
    ("tz", "z"),
    ("y", "i"),
)


def name_key(name: str) -> str:
    """A name as it is compared for the same person: case, spaces and dots do not count.

    >>> name_key("  Hans   MAIER ")
    'hans maier'
    """
    return " ".join(name.replace(".", " ").casefold().split())


def _sound(name: str) -> str:
    """A name as it sounds in Swabia: Maier, Meier, Mayer and Meyer alike, ä as ae."""
    text = unicodedata.normalize("NFKD", name_key(name).translate(_UMLAUTS))
    text = "".join(c for c in text if c.isalnum() or c == " ")
    for spelled, said in _SOUNDS:
        text = text.replace(spelled, said)
    text = re.sub(r"(.)\1+", r"\1", text)
    return " ".join(sorted(text.split()))


def alike_names(name: str, names: Sequence[str]) -> list[int]:
    """Indices of ``names`` that may be the same person as ``name`` but are not spelled alike.

    The same :func:`name_key` is the same person (not listed here); a name that
    sounds the same (Schäfer, Schaefer; Maier, Meyer; first and last name
    swapped), has the same last name and a first name that is the other's
    initial (H. Maier), or differs by one letter in a longer name is alike.

    >>> alike_names("Hans Schäfer", ["Hans Schaefer", "Hans Schäfer", "H. Schäfer", "Eva Schäfer"])
    [0, 2]
    >>> alike_names("Meyer Sepp", ["Sepp Maier", "Sepp Mayr", "Josef Maier"])
    [0, 1]
    """
    key, sound = name_key(name), _sound(name)
    parts = key.split()
    found: list[int] = []
    for index, other in enumerate(names):
        other_key = name_key(other)
        if not other_key or other_key == key:
            continue
        other_sound = _sound(other)
        other_parts = other_key.split()
        alike = other_sound == sound
        if not alike and len(parts) > 1 and len(other_parts) > 1:
            same_last = _sound(parts[-1]) == _sound(other_parts[-1])
            first, other_first = parts[0], other_parts[0]
            initial = (len(first) == 1 or len(other_first) == 1) and first[0] == other_first[0]
            alike = same_last and initial
        if not alike and min(len(sound), len(other_sound)) >= 6:
            alike = SequenceMatcher(None, sound, other_sound).ratio() >= 0.9
        if alike:
            found.append(index)
    return found
