"""Whole numbers as the rules take them: every count, bid and point is an ``int`` (never a
``bool``, which Python counts as one), and a list of them names what it is in its error."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeGuard

from .errors import RulesError


def is_whole(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a whole number (``True`` is not, though Python counts it as 1).

    >>> is_whole(3), is_whole(True), is_whole(3.0)
    (True, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool)


def whole_numbers(values: object, what: str) -> list[int]:
    """``values`` as a list of whole numbers, else :class:`RulesError` naming ``what``.

    >>> whole_numbers((90, 100), "trick points")
    [90, 100]
    >>> whole_numbers([90, "x"], "trick points")
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: trick points: 'x' is not a whole number
    """
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise RulesError("{what} must be a list of numbers, not {value!r}", what=what, value=values)
    result: list[int] = []
    for value in values:
        if not is_whole(value):
            raise RulesError("{what}: '{value}' is not a whole number", what=what, value=value)
        result.append(value)
    return result
