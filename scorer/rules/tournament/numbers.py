"""Start numbers (docs/rules.md sections 13 and 13.2): who is present gets one, 1, 2, 3 …, and
plays from the round they were checked in for until they withdraw.

A start number is given at check-in and never changed behind the player's
back (it is on the table cards and the ranking).  The numbers handed out are
the lowest nobody has, in the order the players are checked in: at the door
that is the order they arrive; a list checked in at once ("everyone present")
is checked in in the list's order, so the numbers follow the file.  A gap left
by a player who was not there after all is filled by the next one checked in.
"""

from __future__ import annotations

from collections.abc import Collection

from ..errors import RulesError


def start_numbers(taken: Collection[int], count: int) -> list[int]:
    """The ``count`` start numbers the next players checked in get, in that order:
    the lowest numbers not ``taken``.

    >>> start_numbers({1, 2, 4}, 3)
    [3, 5, 6]
    >>> start_numbers(set(), 0)
    []
    >>> start_numbers({1}, -1)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: '-1' is not a number of players
    """
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise RulesError("'{players}' is not a number of players", players=count)
    given: list[int] = []
    number = 0
    while len(given) < count:
        number += 1
        if number not in taken:
            given.append(number)
    return given


def plays_round(
    number: int, *, start_number: int | None, from_round: int | None, withdrawn_before: int | None
) -> bool:
    """Whether a player is drawn for round ``number``.

    A player plays once checked in (a ``start_number``), from the round they were
    checked in for (``from_round``: a late arrival joins the next round to be drawn),
    up to the round before the one they withdrew before (``withdrawn_before``;
    ``None``: still here).

    >>> [plays_round(n, start_number=7, from_round=2, withdrawn_before=4) for n in (1, 2, 3, 4)]
    [False, True, True, False]
    >>> plays_round(1, start_number=None, from_round=None, withdrawn_before=None)
    False
    """
    return (
        start_number is not None
        and from_round is not None
        and from_round <= number
        and (withdrawn_before is None or withdrawn_before > number)
    )
