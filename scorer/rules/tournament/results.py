"""A tournament table's result (docs/rules.md section 13): the paper slip, whose result
counts, who may sign it, and the order of the places.

A table whose phone failed plays on paper: the organiser types each player's
points and lost games from the slip.  A slip *replaces* what the table's phone
entered (its totals and lost games); a table without a slip counts its match.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

from ..errors import RulesError
from .ranking import ranking

K = TypeVar("K", bound=Hashable)

MAX_SLIP_POINTS = 50_000
"""The most points (either sign) a paper slip takes per player: a round of 16 deals
stays far below it, a slip typed with a digit too many does not."""

PODIUM = 3
"""The places the evening's prize giving calls out and the ranking sheet sets apart
(ties share a place: everybody on the places 1 to 3)."""


class TableResult(NamedTuple):
    """One player's result at one table: points, lost games, and whether from a slip."""

    points: int
    lost: int
    paper: bool = False


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_slip(
    players: Sequence[K],
    slip: Mapping[K, tuple[int, int]],
    *,
    deals: int,
    step: int,
    names: Sequence[str],
) -> dict[K, tuple[int, int]]:
    """The slip in seat order, or RulesError saying what no table can have played.

    ``players`` are the table's players in seat order (``names`` theirs);
    ``slip`` maps each to (points, lost games).  Every player of the table and
    nobody else; points whole numbers within ±:data:`MAX_SLIP_POINTS` that the
    table's rules can make (a multiple of ``step``, the rules' ``points_step``:
    with tricks rounded to ten, of 10); lost games from 0 to the table's
    ``deals``, and together no more than its deals (a deal has one declarer).

    >>> check_slip(["a", "b", "c"], {"c": (0, 0), "a": (250, 1), "b": (-40, 2)},
    ...            deals=12, step=10, names=["Anna", "Bertl", "Christl"])
    {'a': (250, 1), 'b': (-40, 2), 'c': (0, 0)}
    >>> check_slip(["a", "b", "c"], {"a": (437, 0), "b": (0, 0), "c": (0, 0)},
    ...            deals=12, step=10, names=["Anna", "Bertl", "Christl"])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: Anna: 437 points cannot be played with these rules: ...
    """
    if set(slip) != set(players) or len(slip) != len(players):
        raise RulesError(
            "a paper slip needs the points and lost games of every player at the table"
        )
    checked: dict[K, tuple[int, int]] = {}
    for seat, player in enumerate(players):
        points, lost = slip[player]
        if not _whole(points) or not -MAX_SLIP_POINTS <= points <= MAX_SLIP_POINTS:
            raise RulesError(
                "points on a paper slip are whole numbers from −{most} to {most}",
                most=MAX_SLIP_POINTS,
            )
        if not _whole(lost) or not 0 <= lost <= deals:
            raise RulesError(
                "lost games on a paper slip are whole numbers from 0 to {deals}", deals=deals
            )
        if points % step:
            # e.g. tricks rounded to ten: 437 is no total these rules can make
            raise RulesError(
                "{name}: {points} points cannot be played with these rules: "
                "every game's points are a multiple of {step}",
                name=names[seat],
                points=points,
                step=step,
            )
        checked[player] = (points, lost)
    if sum(lost for _, lost in checked.values()) > deals:
        # each deal has one declarer, who alone can lose it
        raise RulesError(
            "the table played {deals} deals: at most {deals} lost games together",
            deals=deals,
        )
    return checked


def table_results(
    players: Sequence[K],
    totals: Sequence[int],
    lost: Sequence[int],
    slip: Mapping[K, tuple[int, int]] | None,
) -> dict[K, TableResult]:
    """Each player's result at a table: the slip's when it has one (it replaces what
    the phone entered), else the match's ``totals`` and ``lost`` games by seat (at a
    tournament table everybody plays for themselves: the party is the seat).

    >>> table_results(["a", "b", "c"], [120, 0, -40], [0, 1, 0], None)["c"]
    TableResult(points=-40, lost=0, paper=False)
    >>> table_results(["a", "b", "c"], [120, 0, -40], [0, 1, 0],
    ...               {"a": (100, 0), "b": (0, 0), "c": (0, 2)})["c"]
    TableResult(points=0, lost=2, paper=True)
    """
    if slip is not None:
        return {p: TableResult(points, games, paper=True) for p, (points, games) in slip.items()}
    return {p: TableResult(totals[seat], lost[seat]) for seat, p in enumerate(players)}


def check_confirm(player: K, players: Sequence[K], *, finished: bool, closed: bool) -> None:
    """RulesError unless ``player`` may sign the table's result now: a player of the
    table, once the table has played its deals, while the round is open.

    >>> check_confirm("a", ["a", "b", "c"], finished=True, closed=False)
    >>> check_confirm("a", ["a", "b", "c"], finished=False, closed=False)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: the result can be confirmed once the table has played its deals
    """
    if player not in players:
        raise RulesError("this player does not sit at this table")
    if not finished:
        raise RulesError("the result can be confirmed once the table has played its deals")
    if closed:
        raise RulesError("this round is closed")


def listed(places: Mapping[K, int], then: Mapping[K, object]) -> list[K]:
    """The players as a ranking lists them: by place, players sharing a place by
    ``then`` (an evening: the start number; a series: the name's sort key).

    >>> listed({"x": 1, "y": 1, "z": 3}, {"x": 7, "y": 2, "z": 1})
    ['y', 'x', 'z']
    """
    return sorted(places, key=lambda player: (places[player], then[player]))


def on_podium(place: int) -> bool:
    """Whether a place is called out at the prize giving (1 to :data:`PODIUM`).

    >>> on_podium(3), on_podium(4)
    (True, False)
    """
    return place <= PODIUM


@dataclass(frozen=True)
class Placed(Generic[K]):
    """A player's line of the evening's ranking: place, points per round (None: not
    played), which rounds came from a slip, total and lost games."""

    player: K
    place: int
    rounds: tuple[int | None, ...]
    paper: tuple[bool, ...]
    total: int
    lost: int


def evening_ranking(
    rounds: Sequence[Mapping[K, TableResult]], then: Mapping[K, object], *, tie_break: bool
) -> list[Placed[K]]:
    """The evening's ranking after ``rounds`` (each round's results by player), as a
    ranking lists it: :func:`ranking` places the players by their rounds' sum (with
    the tie-break when ``tie_break``), :func:`listed` orders players sharing a place
    by ``then`` (the start number).  Only the players of ``then`` are ranked (a player
    struck from the list keeps their table's result out of it).

    >>> r1 = {"a": TableResult(300, 1), "b": TableResult(100, 0)}
    >>> r2 = {"a": TableResult(-100, 2), "b": TableResult(100, 0, paper=True)}
    >>> [(p.player, p.place, p.rounds, p.total) for p in
    ...  evening_ranking([r1, r2], {"a": 2, "b": 1}, tie_break=False)]
    [('b', 1, (100, 100), 200), ('a', 1, (300, -100), 200)]
    >>> [p.player for p in evening_ranking([r1, r2], {"a": 2, "b": 1}, tie_break=True)]
    ['a', 'b']
    """
    points: dict[K, list[int | None]] = {}
    paper: dict[K, list[bool]] = {}
    lost: dict[K, int] = {}
    for index, results in enumerate(rounds):
        for player, result in results.items():
            if player not in then:
                continue
            points.setdefault(player, [None] * len(rounds))[index] = result.points
            paper.setdefault(player, [False] * len(rounds))[index] = result.paper
            lost[player] = lost.get(player, 0) + result.lost
    played = {p: [v for v in values if v is not None] for p, values in points.items()}
    places = ranking(played, lost, tie_break=tie_break)
    return [
        Placed(
            player=p,
            place=places[p],
            rounds=tuple(points[p]),
            paper=tuple(paper[p]),
            total=sum(played[p]),
            lost=lost.get(p, 0),
        )
        for p in listed(places, then)
    ]
