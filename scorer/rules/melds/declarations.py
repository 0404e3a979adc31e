"""The ways to declare one group of melds (the calculator's choices)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..cards import Card, Suit
from ..ruleset import Ruleset
from .groups import Group, plan_of
from .names import Meld, Trump, suit_of_trump

# -- the ways to declare one group -------------------------------------------


@dataclass(frozen=True)
class Declaration:
    """One way to declare the melds of one group (section 3.1) that :func:`check_meld` accepts.

    ``needs`` says how often each card is needed (cards not named: 0); ``value``
    is the melds' points.  The empty declaration is not among them.
    """

    group: str
    melds: tuple[Meld, ...]
    value: int
    needs: tuple[tuple[Card, int], ...]


def group_declarations(ruleset: Ruleset, trump: Trump) -> dict[str, tuple[Declaration, ...]]:
    """Every declaration of every group, by the group's key (``suit H``, ``rank A``, ``binokel``,
    ``diss``): the melds of a group that the deck can show at once and that no better meld of
    the same cards replaces (two Binokel are refused, a Doppelbinokel is one).  Declarations
    with the same cards and points appear once.

    >>> groups = group_declarations(Ruleset(), "H")
    >>> sorted((d.value, [m.name for m in d.melds]) for d in groups["binokel"])
    [(40, ['binokel']), (300, ['double_binokel'])]
    >>> len(groups["suit H"]), "diss" in groups
    (5, False)
    """
    return _declarations(ruleset, suit_of_trump(trump))


@lru_cache(maxsize=64)
def _declarations(ruleset: Ruleset, trump: Suit | None) -> dict[str, tuple[Declaration, ...]]:
    plan = plan_of(ruleset, trump)
    return {group.key: _ways(group, plan.copies) for group in plan.groups}


def _ways(group: Group, copies: int) -> tuple[Declaration, ...]:
    """Every count of every meld of the group that the deck holds and no better meld replaces."""
    seen: dict[tuple[tuple[int, ...], int], Declaration] = {}
    needs = [[meld.cards.count(card) for card in group.cards] for meld in group.candidates]
    taken: list[Meld] = []

    def visit(i: int, used: list[int], value: int) -> None:
        if i == len(group.candidates):
            key = (tuple(used), value)
            if taken and key not in seen and group.best(key[0]).value == value:
                pairs = tuple((c, n) for c, n in zip(group.cards, used, strict=True) if n)
                seen[key] = Declaration(group.key, tuple(taken), value, pairs)
            return
        visit(i + 1, used, value)
        meld, more, count = group.candidates[i], list(used), 0
        while True:
            more = [u + k for u, k in zip(more, needs[i], strict=True)]
            if any(u > copies for u in more):
                break
            taken.append(meld)
            count += 1
            visit(i + 1, more, value + count * meld.points)
        del taken[len(taken) - count :]

    visit(0, [0] * len(group.cards), 0)
    return tuple(seen.values())
