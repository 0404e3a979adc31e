"""The series (Binokel-Cup, docs/rules.md section 13.1): evenings counted into one ranking."""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..errors import RulesError
from .ranking import rank
from .results import listed

K = TypeVar("K", bound=Hashable)


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


@dataclass(frozen=True)
class SeriesPlaced(Generic[K]):
    """A player's line of the series ranking: the place (``None``: the counting leaves
    them out), the evenings that count (their indices) and the points."""

    player: K
    place: int | None
    counted: tuple[int, ...]
    total: int


def series_lines(
    evenings: Mapping[K, Sequence[int | None]],
    then: Mapping[K, object],
    counting: str,
    best: int = 0,
) -> list[SeriesPlaced[K]]:
    """The series ranking as it is listed: the ranked players by place (:func:`series_ranking`;
    those sharing a place by ``then``, the name's sort key), then the players the counting
    leaves out (``"every"`` and an evening missed), most points of all their evenings
    first, then by ``then``.  Those count no evening and carry the sum of all of them.

    >>> lines = series_lines({"a": [300, 200], "b": [None, 600], "c": [400, 100]},
    ...                      {"a": "anna", "b": "bert", "c": "carl"}, "every")
    >>> [(line.player, line.place, line.counted, line.total) for line in lines]
    [('a', 1, (0, 1), 500), ('c', 1, (0, 1), 500), ('b', None, (), 600)]
    """
    ranked = series_ranking(evenings, counting, best)
    left_out = sorted(
        (player for player in evenings if player not in ranked),
        key=lambda player: (-sum(value or 0 for value in evenings[player]), then[player]),
    )
    lines: list[SeriesPlaced[K]] = []
    for player in listed({player: place for player, (place, _) in ranked.items()}, then):
        place, total = ranked[player]
        counted = series_evenings(evenings[player], counting, best) or ()
        lines.append(SeriesPlaced(player, place, counted, total))
    for player in left_out:
        lines.append(SeriesPlaced(player, None, (), sum(v or 0 for v in evenings[player])))
    return lines


# an evening's number in its name: "Abend 1", "1. Abend", "Spieltag 3", "Evening 2", "#4",
# "Nr. 5", a number of one or two digits at the end ("Cup 1", never the year "Cup 2026")
_EVENING_WORDS = r"(?:abend|spieltag|termin|teil|lauf|evening|night|part|leg|round)"
_NUMBER = r"(?:nr\.?|no\.?|#)?\s*[0-9]{1,2}"
_SEPARATORS = r"[\s·,:;/|–—-]*"
_BARE_NUMBER = r"(?:(?:nr\.?|no\.?|#)\s*|(?<![0-9/.,]))[0-9]{1,2}"
_EVENING_AT_END = re.compile(
    rf"{_SEPARATORS}(?:\(?(?:{_EVENING_WORDS}\s*{_NUMBER}|[0-9]{{1,2}}\s*\.\s*{_EVENING_WORDS}"
    rf"|{_BARE_NUMBER})\)?){_SEPARATORS}$",
    re.IGNORECASE | re.ASCII,
)
_EVENING_AT_START = re.compile(
    rf"^\s*(?:[0-9]{{1,2}}\s*\.\s*{_EVENING_WORDS}|{_EVENING_WORDS}\s*{_NUMBER}){_SEPARATORS}",
    re.IGNORECASE | re.ASCII,
)


def series_name(evening: str) -> str:
    """The name a series made of the evening ``evening`` is offered: without the evening's
    number ("Binokel-Cup Abend 1" is evening 1 of the "Binokel-Cup"), the rest as it is.

    >>> series_name("Binokel-Cup Abend 1"), series_name("1. Abend Winterpokal")
    ('Binokel-Cup', 'Winterpokal')
    >>> series_name("Binokel-Cup 2026 – 1. Spieltag"), series_name("Cup #1")
    ('Binokel-Cup 2026', 'Cup')
    >>> series_name("Herbstturnier 2026"), series_name("Abend 1")
    ('Herbstturnier 2026', 'Abend 1')
    """
    text = " ".join(str(evening).split())
    stripped = _EVENING_AT_START.sub("", _EVENING_AT_END.sub("", text)).strip(" ·,:;/|–—-")
    return stripped or text
