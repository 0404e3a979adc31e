"""Table sizes and the draw (docs/rules.md sections 13 and 13.6): who sits where next round."""

from __future__ import annotations

import hashlib
import itertools
import random
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

from ..errors import RulesError

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


def met_again(
    tables: Sequence[Sequence[int]], met: Sequence[Sequence[Sequence[int]]]
) -> int | None:
    """What the draw of ``tables`` achieved: how many pairs meet again (:func:`repeats`),
    or ``None`` when no table came before (round 1 of an evening without earlier
    evenings that count): then no pair can meet again, and there is nothing to say.

    >>> met_again([(1, 2, 5)], [[(1, 2, 3)]]), met_again([(1, 2, 5)], [[(3, 4, 6)]])
    (1, 0)
    >>> met_again([(1, 2, 5)], []) is None
    True
    """
    return repeats(tables, met) if met else None


def households_apart(households: Mapping[int, str | None]) -> list[tuple[int, int]]:
    """The pairs :func:`draw` never seats at one table: players of one household.

    ``households`` maps each start number to the household the organiser typed
    for the player (empty or ``None``: none).  One household is one word, case
    aside ("Maier" and "maier"); the pairs come in the order of ``households``.

    >>> households_apart({1: "Maier", 2: "", 3: "maier", 4: None, 5: "MAIER"})
    [(1, 3), (1, 5), (3, 5)]
    """
    keyed = [(number, (house or "").casefold()) for number, house in households.items()]
    return [
        (a, b) for (a, key), (b, other) in itertools.combinations(keyed, 2) if key and key == other
    ]


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
