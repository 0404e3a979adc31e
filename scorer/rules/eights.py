"""The Achterle's ranks (eight of a kind, docs/rules.md sections 3 and 12): which ranks
can make one, and the option ``eight_ranks`` for the ranks a table chooses."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import Rank

EIGHT_RANKS: tuple[Rank, ...] = (Rank.A, Rank.TEN, Rank.K, Rank.O, Rank.U, Rank.SEVEN)
"""The ranks an Achterle can be of (docs/rules.md section 3), highest first; the seven
only in the game with sevens."""


def eight_ranks_of(sevens: bool) -> tuple[Rank, ...]:
    """The ranks that can make an Achterle at a table with or without ``sevens``.

    >>> [r.value for r in eight_ranks_of(False)], eight_ranks_of(True)[-1].value
    (['A', '10', 'K', 'O', 'U'], '7')
    """
    return EIGHT_RANKS if sevens else EIGHT_RANKS[:-1]


def chosen_eight_ranks(
    chosen: Iterable[Rank | str], *, sevens: bool, given: tuple[Rank, ...] | None = None
) -> tuple[Rank, ...] | None:
    """The option ``eight_ranks`` for the ranks a table chose (section 12).

    A seven counts only with ``sevens``.  Every rank that can make an Achterle
    chosen is the default, ``None`` (every rank, the seven too once sevens are
    played) — unless the rules chosen from (``given``, e.g. a preset's) list
    their ranks, which then stay a list.

    >>> chosen_eight_ranks(["A", "10", "K", "O", "U", "7"], sevens=False) is None
    True
    >>> [r.value for r in chosen_eight_ranks(["A", "K", "7"], sevens=False)]
    ['A', 'K']
    >>> [r.value for r in chosen_eight_ranks(["A", "10", "K", "O", "U"], sevens=True)]
    ['A', '10', 'K', 'O', 'U']
    """
    ranks = [Rank.parse(r) for r in chosen]
    ranks = [r for r in EIGHT_RANKS if r in ranks and (sevens or r is not Rank.SEVEN)]
    if given is None and set(ranks) >= set(eight_ranks_of(sevens)):
        return None
    return tuple(ranks)
