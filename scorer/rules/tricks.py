"""Trick points: docs/rules.md sections 2, 5 and 12.  Which values a counting scheme can
produce, the cross-check (the parties' trick points add up to the hand's total), the value
left empty filled in from it, and the rounding of ``round_tricks``."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .errors import TrickError
from .ruleset import Ruleset, deck
from .whole import whole_numbers


@lru_cache(maxsize=32)
def _card_sums(values: tuple[int, ...]) -> frozenset[int]:
    """Every sum of some of these card values (each card taken at most once)."""
    reach = 1  # bit n set: n can be made
    for value in values:
        reach |= reach << value
    return frozenset(n for n in range(reach.bit_length()) if reach >> n & 1)


def possible_trick_points(ruleset: Ruleset) -> frozenset[int]:
    """Every trick-point value one party can take in a hand with this counting scheme.

    A party takes some of the deck's cards (the declarer's pressed cards count
    too) and maybe the last trick: its points are a sum of some card values,
    plus ``last_trick`` or not.  With ``10-10-10-0-0`` that is every multiple
    of 10; with the usual 11-10-4-3-2 nearly everything, but not 1 (no card is
    worth 1 point) nor 249.

    >>> points = possible_trick_points(Ruleset())
    >>> 1 in points, 2 in points, 249 in points, 250 in points
    (False, True, False, True)
    >>> sorted(possible_trick_points(Ruleset(card_points="15-15-0-0-0")))[:6]
    [0, 10, 15, 25, 30, 40]
    """
    values = tuple(
        sorted(ruleset.card_value(c) for c, n in deck(ruleset).items() for _ in range(n))
    )
    sums = _card_sums(values)
    return sums | frozenset(n + ruleset.last_trick for n in sums)


def check_trick_values(
    ruleset: Ruleset, tricks: Sequence[int], *, scheme_checked: bool = True
) -> None:
    """Every value a party's trick points can be: 0 to the hand's total and, unless
    ``scheme_checked`` is off (a restored backup), a sum the counting scheme can make
    (:func:`possible_trick_points`); else :class:`TrickError` naming it.

    >>> check_trick_values(Ruleset(), [90, 160])
    >>> check_trick_values(Ruleset(), [1, 249])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.TrickError: trick points 1 cannot be taken when the cards count \
11-10-4-3-2 (A-10-K-O-U) and the last trick 10
    """
    total = ruleset.trick_total
    for value in tricks:
        if not 0 <= value <= total:
            raise TrickError(
                "trick points {value} are out of range: 0 to {total}", value=value, total=total
            )
    if not scheme_checked:
        return
    possible = possible_trick_points(ruleset)
    for value in tricks:
        if value not in possible:
            raise TrickError(
                "trick points {value} cannot be taken when the cards count {scheme} "
                "(A-10-K-O-U) and the last trick {last}",
                value=value,
                scheme=ruleset.card_points,
                last=ruleset.last_trick,
            )


def check_trick_sum(ruleset: Ruleset, tricks: Sequence[int], *, partial: bool = False) -> None:
    """The cross-check (docs/rules.md section 5): the trick points add up to the hand's
    total, else :class:`TrickError` with the sum and how far off it is.  ``partial``: a
    hand closed in the middle (or the values entered so far) may add up to less.

    >>> check_trick_sum(Ruleset(), [90, 100, 60])
    >>> check_trick_sum(Ruleset(), [90, 100, 70])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.TrickError: trick points add up to 260, 10 too many; a hand has 250
    >>> check_trick_sum(Ruleset(), [90, 100], partial=True)
    """
    total = ruleset.trick_total
    entered = sum(tricks)
    if entered > total:
        raise TrickError(
            "trick points add up to {sum}, {difference} too many; a hand has {total}",
            sum=entered,
            difference=entered - total,
            total=total,
        )
    if entered < total and not partial:
        raise TrickError(
            "trick points add up to {sum}, {difference} too few; a hand has {total}",
            sum=entered,
            difference=total - entered,
            total=total,
        )


def complete_tricks(
    ruleset: Ruleset,
    tricks: Sequence[int | None],
    took_trick: Sequence[bool | None] | None = None,
    *,
    scheme_checked: bool = True,
) -> list[int]:
    """Trick points of every party, the one left out (``None``) filled in.

    The cross-check of docs/rules.md section 5: the trick points of a hand add up to
    ``ruleset.trick_total`` (250; 130 in the Swiss game).  All values given:
    they are checked.  One missing: it is what is left.  More missing, values
    outside 0..trick_total, or a sum that does not fit: :class:`TrickError`
    with the sum and the difference.

    >>> complete_tricks(Ruleset(), [90, 100, None])
    [90, 100, 60]
    >>> complete_tricks(Ruleset(), [90, 100, 70])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.TrickError: trick points add up to 260, 10 too many; a hand has 250

    A party marked in ``took_trick`` as having taken no trick has 0 trick
    points: it is not the one filled in (docs/rules.md section 12).

    >>> complete_tricks(Ruleset(), [None, 180, None], took_trick=[None, None, False])
    [70, 180, 0]

    With every value empty, all but one are still to enter (the last one follows):

    >>> complete_tricks(Ruleset(), [None, None, None])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.TrickError: enter the trick points of all parties but one: 2 more to enter
    """
    if isinstance(tricks, str | bytes) or not isinstance(tricks, Sequence):
        raise TrickError("trick points must be a list, not {value!r}", value=tricks)
    if took_trick is not None:
        tricks = [
            0 if value is None and i < len(took_trick) and took_trick[i] is False else value
            for i, value in enumerate(tricks)
        ]
    if len(tricks) < 2:
        raise TrickError("a hand has at least two parties, not {count}", count=len(tricks))
    missing = [i for i, value in enumerate(tricks) if value is None]
    if len(missing) > 1:
        # the last one left empty follows from the trick total: one fewer is needed
        raise TrickError(
            "enter the trick points of all parties but one: {count} more to enter",
            count=len(missing) - 1,
        )
    known = whole_numbers([value for value in tricks if value is not None], "trick points")
    check_trick_values(ruleset, known, scheme_checked=scheme_checked)
    if not missing:
        check_trick_sum(ruleset, known)
        return known
    check_trick_sum(ruleset, known, partial=True)  # what is left may not be below 0
    total, entered = ruleset.trick_total, sum(known)
    result = list(known)
    result.insert(missing[0], total - entered)
    check_trick_values(ruleset, result, scheme_checked=scheme_checked)
    return result


def round_trick_points(points: int) -> int:
    """Trick points rounded to 10, 5 up (option ``round_tricks``).

    >>> round_trick_points(84), round_trick_points(85), round_trick_points(60)
    (80, 90, 60)
    """
    return (points + 5) // 10 * 10
