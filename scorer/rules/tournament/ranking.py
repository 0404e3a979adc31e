"""The ranking (docs/rules.md section 13): shared places, the tie-break, the lost games."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from ..errors import RulesError
from ..outcomes import verdict_of

K = TypeVar("K", bound=Hashable)


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


def lost_game(outcome: str, *, made: bool | None, won: bool | None) -> bool:
    """Whether a hand was a game its declarer lost: failed, gone off, or a special game lost.

    These are what the lost-game money counts (docs/rules.md section 13); a
    forfeit is a penalty, not a lost game (``Verdict.lost_game`` of the hand's
    :func:`~scorer.rules.outcomes.verdict_of`).

    >>> lost_game("played", made=False, won=None), lost_game("gone_off", made=None, won=None)
    (True, True)
    >>> lost_game("played", made=True, won=None), lost_game("durch", made=None, won=False)
    (False, True)
    """
    return verdict_of(outcome, made=made, won=won).lost_game


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
