"""Stakes and the session: docs/rules.md section 7.  All money is integer cents.

:func:`stake_payments` turns one match's totals into money per player;
:func:`minimal_transfers` settles the session's balances with the fewest
transfers.

Team play is the caller's part: pass every player with the team's total, and
both partners of the winning team as winners.  Then each partner pays or
receives the team's amount, as section 7 asks (the losers' money is split
among as many winners as there are partners).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Literal

from .errors import RulesError

Basis = Literal["full", "started", "exact", "per_game"]
BASES: tuple[str, ...] = ("full", "started", "exact", "per_game")
"""How a loser's payment is counted: full or started hundreds, exact, or flat per game."""

MAX_AMOUNT_CENTS = 100_000
"""The most one amount of money the app takes (1000 €): a stake, an entry fee, a
lost game's price.  More is a typing mistake at a card table."""

MAX_TRANSFER_PEOPLE = 16
"""The most people with an open balance :func:`minimal_transfers` settles (exact subset DP)."""


def _loser_pays(difference: int, stake_cents: int, basis: str) -> int:
    if basis == "per_game":
        return stake_cents
    if basis == "full":
        return stake_cents * (difference // 100)
    if basis == "started":
        return stake_cents * -(-difference // 100)
    return (difference * stake_cents + 50) // 100  # exact, to the cent, half up


def stake_payments(
    totals: Mapping[str, int],
    winners: Collection[str],
    stake_cents: int,
    basis: str = "full",
) -> dict[str, int]:
    """Net cents per player for one match; they sum to 0.

    Every loser pays ``stake_cents`` per 100 points of difference to the
    winner's total — ``full`` hundreds (default), ``started`` hundreds or
    ``exact`` (proportional, rounded to the cent, half up) — or, with
    ``per_game``, ``stake_cents`` flat.  Several winners share the money
    equally; the cents that do not divide go one each to the winners in name
    order, so the sum is exactly 0.  With several winners the difference is
    taken to the highest winner's total.  A loser above that total is refused.

    50 cents per hundred: Anna won with 1040, Berta 780 pays two full
    hundreds, Carl 310 pays seven.

    >>> stake_payments({"Anna": 1040, "Berta": 780, "Carl": 310}, ["Anna"], 50)
    {'Anna': 450, 'Berta': -100, 'Carl': -350}
    >>> stake_payments({"Anna": 1040, "Berta": 780, "Carl": 310}, ["Anna"], 50, "started")
    {'Anna': 550, 'Berta': -150, 'Carl': -400}
    """
    if basis not in BASES:
        raise RulesError(
            "'{basis}' is not a stake basis: use one of {choices}",
            basis=basis,
            choices=", ".join(BASES),
        )
    if not isinstance(stake_cents, int) or isinstance(stake_cents, bool) or stake_cents < 0:
        raise RulesError("the stake must be whole cents, not {stake}", stake=stake_cents)
    if not isinstance(totals, Mapping):
        raise RulesError("the totals must map names to points")
    for name, total in totals.items():
        if not isinstance(name, str) or not isinstance(total, int) or isinstance(total, bool):
            raise RulesError("'{name}': '{total}' is not a total", name=name, total=total)
    if isinstance(winners, str):
        raise RulesError("the winners must be a list of names, not '{winners}'", winners=winners)
    winner_names = sorted(set(winners))
    if not winner_names:
        raise RulesError("a match needs a winner")
    for name in winner_names:
        if name not in totals:
            raise RulesError("winner '{name}' has no total", name=name)
    top = max(totals[name] for name in winner_names)
    result = dict.fromkeys(totals, 0)
    pot = 0
    for name, total in totals.items():
        if name in winner_names:
            continue
        if total > top:
            raise RulesError(
                "'{name}' has {total}, more than the winner's {top}",
                name=name,
                total=total,
                top=top,
            )
        paid = _loser_pays(top - total, stake_cents, basis)
        result[name] = -paid
        pot += paid
    share, rest = divmod(pot, len(winner_names))
    for position, name in enumerate(winner_names):
        result[name] = share + (1 if position < rest else 0)
    return result


def _zero_sum_groups(amounts: list[int]) -> list[list[int]]:
    """A partition of the indices into the most groups that each sum to 0.

    ``best[mask]`` is the most zero-sum groups into which the people of
    ``mask`` can be peeled one by one; a zero-sum mask closes a group.
    """
    n = len(amounts)
    size = 1 << n
    sums = [0] * size
    best = [0] * size
    for mask in range(1, size):
        low = (mask & -mask).bit_length() - 1
        sums[mask] = sums[mask & (mask - 1)] + amounts[low]
        top = 0
        rest = mask
        while rest:
            bit = rest & -rest
            rest ^= bit
            candidate = best[mask ^ bit]
            if candidate > top:
                top = candidate
        best[mask] = top + (1 if sums[mask] == 0 else 0)
    groups: list[list[int]] = []
    current: list[int] = []
    mask = size - 1
    while mask:
        # remove the lowest person that keeps the optimum (deterministic)
        target = best[mask] - (1 if sums[mask] == 0 else 0)
        for i in range(n):
            bit = 1 << i
            if mask & bit and best[mask ^ bit] == target:
                break
        current.append(i)
        mask ^= bit
        if sums[mask] == 0:
            groups.append(sorted(current))
            current = []
    return groups


def minimal_transfers(balances: Mapping[str, int]) -> list[tuple[str, str, int]]:
    """The fewest transfers ``(payer, payee, cents)`` that settle the balances.

    A positive balance is money to receive, a negative one money to pay;
    they must sum to 0.  The number of transfers is the exact minimum: the
    number of people with an open balance minus the most groups of them whose
    balances sum to 0 (each group settles among itself with one transfer
    fewer than it has people).  Found by a subset DP, for up to
    :data:`MAX_TRANSFER_PEOPLE` people with an open balance.  The output is
    deterministic, sorted by payer and payee.

    >>> minimal_transfers({"Anna": 450, "Berta": -100, "Carl": -350})
    [('Berta', 'Anna', 100), ('Carl', 'Anna', 350)]
    >>> minimal_transfers({"A": 500, "B": -500, "C": 300, "D": -300})
    [('B', 'A', 500), ('D', 'C', 300)]
    """
    if not isinstance(balances, Mapping):
        raise RulesError("the balances must map names to cents")
    for name, cents in balances.items():
        if not isinstance(name, str) or not isinstance(cents, int) or isinstance(cents, bool):
            raise RulesError(
                "'{name}': '{cents}' is not a balance in cents", name=name, cents=cents
            )
    total = sum(balances.values())
    if total:
        raise RulesError("the balances add up to {total} cents, not 0", total=total)
    names = sorted(name for name, cents in balances.items() if cents)
    if len(names) > MAX_TRANSFER_PEOPLE:
        raise RulesError(
            "{count} people with open balances; at most {limit} can be settled at once",
            count=len(names),
            limit=MAX_TRANSFER_PEOPLE,
        )
    amounts = [balances[name] for name in names]
    transfers: list[tuple[str, str, int]] = []
    for group in _zero_sum_groups(amounts):
        payers = [i for i in group if amounts[i] < 0]
        payees = [i for i in group if amounts[i] > 0]
        owed = {i: abs(amounts[i]) for i in group}
        p = q = 0
        while p < len(payers) and q < len(payees):
            payer, payee = payers[p], payees[q]
            cents = min(owed[payer], owed[payee])
            transfers.append((names[payer], names[payee], cents))
            owed[payer] -= cents
            owed[payee] -= cents
            if owed[payer] == 0:
                p += 1
            if owed[payee] == 0:
                q += 1
    return sorted(transfers)
