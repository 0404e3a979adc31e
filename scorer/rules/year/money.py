"""An evening's money, line by line (docs/rules.md section 14.3).

Each finished match costs what section 7 says (:func:`scorer.rules.stake_payments`
on the match's totals and winners, in team play each partner with the team's
total).  How that money moves is the evening's way of keeping it:

- ``pay``: the players pay each other; the evening's balances are settled with
  the fewest transfers (:func:`scorer.rules.minimal_transfers`), as a session is;
- ``kitty``: each loser pays what he would have paid the winners into the
  kitty, match by match; the winners receive nothing;
- ``none``: no money.

Every amount comes with what it is for — the points behind, the hundreds
counted — so that the money page can say it in words ("3 × 0,10 € für 290
Punkte Rückstand am 14. März").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from .. import minimal_transfers, stake_payments
from .evenings import Evening, MatchPlayed


@dataclass(frozen=True)
class StakeLine:
    """What one player's result in one finished match is worth.

    ``cents`` is section 7's amount (received: positive, paid: negative);
    ``behind`` the points the player trailed the (highest) winner by, 0 for a
    winner; ``hundreds`` how many hundreds were counted for a loser with the
    ``full`` or ``started`` basis (1 with ``per_game``), ``None`` for a winner and
    with ``exact``.
    """

    person: str
    cents: int
    behind: int
    hundreds: int | None
    winner: bool


@dataclass(frozen=True)
class MatchMoney:
    """The money of one finished match of an evening, a line per player."""

    number: int
    winners: tuple[str, ...]
    lines: tuple[StakeLine, ...]


@dataclass(frozen=True)
class EveningMoney:
    """An evening's money: per match, per person, and how it moves.

    ``results`` is each person's sum over the finished matches (section 7's
    balance); ``transfers`` the fewest transfers that settle them (``pay``);
    ``dues`` what each person owes the kitty (``kitty``: the sum of his losses,
    match by match).  With ``none`` there is no money, and both are empty.
    ``won`` is what the evening is worth to each person in the year's ranking
    by money: his balance (``pay``), minus his dues (``kitty``), nothing (``none``).
    """

    number: int
    day: date
    money: str
    stake_cents: int
    basis: str
    matches: tuple[MatchMoney, ...]
    results: dict[str, int]
    transfers: tuple[tuple[str, str, int], ...]
    dues: dict[str, int]

    @property
    def won(self) -> dict[str, int]:
        if self.money == "pay":
            return dict(self.results)
        if self.money == "kitty":
            return {person: -cents for person, cents in self.dues.items()}
        return {}


def _hundreds(behind: int, basis: str) -> int | None:
    if basis == "full":
        return behind // 100
    if basis == "started":
        return -(-behind // 100)
    if basis == "per_game":
        return 1
    return None


def match_money(evening: Evening, match: MatchPlayed) -> MatchMoney:
    """One finished match's money, by :func:`scorer.rules.stake_payments` on the seats' names.

    Anna wins with 1010, Bert has 730 and Carla 455, 20 ct per full hundred
    (section 7's example): Bert pays 2 × 20 ct, Carla 5 × 20 ct, Anna gets 1,40 €.

    >>> e = Evening(1, date(2025, 3, 14), "pay", 20, "full",
    ...             {"Anna": "A", "Bert": "B", "Carla": "C"})
    >>> m = MatchPlayed(1, ("Anna", "Bert", "Carla"), (0, 1, 2), (1010, 730, 455), True, (0,))
    >>> [(l.person, l.cents, l.behind, l.hundreds) for l in match_money(e, m).lines]
    [('A', 140, 0, None), ('B', -40, 280, 2), ('C', -100, 555, 5)]
    """
    totals = {
        name: match.totals[party] for name, party in zip(match.seats, match.parties, strict=True)
    }
    winners = [n for n, p in zip(match.seats, match.parties, strict=True) if p in match.winners]
    paid = stake_payments(totals, winners, evening.stake_cents, evening.basis)
    top = max(totals[name] for name in winners)
    lines = []
    for name in match.seats:
        won = name in winners
        behind = 0 if won else top - totals[name]
        hundreds = None if won else _hundreds(behind, evening.basis)
        lines.append(StakeLine(evening.person(name), paid[name], behind, hundreds, won))
    return MatchMoney(match.number, tuple(evening.person(n) for n in winners), tuple(lines))


def evening_money(evening: Evening) -> EveningMoney:
    """The money of an evening over its finished matches, kept as the evening keeps it.

    Two matches at 10 ct per full hundred.  In the first Bert trails the two winners by
    210 and pays 2 × 10 ct, 10 ct to each; in the second Anna trails Bert by 120 (1 × 10 ct)
    and Carla by 310 (3 × 10 ct).  Paying each other, one transfer settles the evening:

    >>> people = {"Anna": "A", "Bert": "B", "Carla": "C"}
    >>> seats = ("Anna", "Bert", "Carla")
    >>> first = MatchPlayed(1, seats, (0, 1, 2), (1000, 790, 1000), True, (0, 2))
    >>> second = MatchPlayed(2, seats, (0, 1, 2), (900, 1020, 710), True, (1,))
    >>> pay = evening_money(Evening(1, date(2025, 3, 14), "pay", 10, "full", people, frozenset(),
    ...                             (first, second)))
    >>> pay.results, pay.transfers
    ({'A': 0, 'B': 20, 'C': -20}, (('C', 'B', 20),))

    Into the kitty the same evening costs Anna 10 ct (the second match), Bert 20 ct (the
    first) and Carla 30 ct (the second); nobody is paid:

    >>> kitty = evening_money(Evening(1, date(2025, 3, 14), "kitty", 10, "full", people,
    ...                               frozenset(), (first, second)))
    >>> kitty.dues, kitty.transfers, kitty.won
    ({'A': 10, 'B': 20, 'C': 30}, (), {'A': -10, 'B': -20, 'C': -30})
    """
    matches: list[MatchMoney] = []
    results: dict[str, int] = dict.fromkeys(evening.sat, 0)
    dues: dict[str, int] = {}
    if evening.money != "none":
        for match in evening.matches:
            if not match.finished:
                continue
            money = match_money(evening, match)
            matches.append(money)
            for line in money.lines:
                results[line.person] += line.cents
                if evening.money == "kitty":
                    dues[line.person] = dues.get(line.person, 0) + max(0, -line.cents)
    transfers: tuple[tuple[str, str, int], ...] = ()
    if evening.money == "pay":
        transfers = tuple(minimal_transfers(results))
    elif evening.money == "kitty":
        dues = {person: dues.get(person, 0) for person in results}
    else:
        results = {}
    return EveningMoney(
        number=evening.number,
        day=evening.day,
        money=evening.money,
        stake_cents=evening.stake_cents,
        basis=evening.basis,
        matches=tuple(matches),
        results=results,
        transfers=transfers,
        dues=dues,
    )
