"""The year's ranking (docs/rules.md section 14.2): every member's numbers over the evenings.

Per person, over the evenings of the year:

- ``points``: the totals of every match he sat in (his party's total; a team's
  total for each partner), finished or not — what the sheets say;
- ``matches`` played and ``matches_won`` (finished, his party among the winners);
- ``hands`` he got cards in, ``hands_won`` (his party scored more in the hand
  than every other party that got cards: :func:`scorer.rules.hand_winner`) and
  ``hands_lost`` (another party did);
- ``lost_games``: games he declared and lost (failed, gone off, a special game
  lost: :func:`scorer.rules.tournament.lost_game`);
- ``evenings`` he played, and his ``average`` points per evening;
- ``money``: what the year's evenings are worth to him (section 14.3).

The group picks what ranks (:data:`RANKING_BY`); equal values share a place
(1, 1, 3).  A guest is not ranked: his numbers are listed apart, and what
members did against him counts as any match.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from .. import PlayedHand, RulesError, hand_winner
from ..tournament import lost_game, rank
from .evenings import Evening, MatchPlayed
from .money import EveningMoney, evening_money

RANKING_BY: tuple[str, ...] = ("points", "matches", "money")
"""What the year is ranked by: points, matches won, or money won."""


@dataclass(frozen=True)
class YearLine:
    """One person's numbers in the year; ``place`` is ``None`` for a guest (not ranked)."""

    person: str
    place: int | None = None
    points: int = 0
    matches: int = 0
    matches_won: int = 0
    hands: int = 0
    hands_won: int = 0
    hands_lost: int = 0
    lost_games: int = 0
    evenings: int = 0
    money: int = 0

    @property
    def average(self) -> int | None:
        """Points per evening played, rounded half up; ``None`` before the first evening.

        >>> YearLine("A", points=2450, evenings=4).average
        613
        >>> YearLine("A", points=-50, evenings=4).average
        -12
        """
        if not self.evenings:
            return None
        return (2 * self.points + self.evenings) // (2 * self.evenings)


@dataclass(frozen=True)
class YearRanking:
    """The ranked members (``lines``), the guests apart, and the chart's running points.

    ``running[i]`` holds every ranked line's points after the first ``i``
    evenings (``running[0]`` the zeros of the start), in the order of ``lines``.
    """

    by: str
    lines: tuple[YearLine, ...]
    guests: tuple[YearLine, ...]
    running: tuple[tuple[int, ...], ...] = field(default=())


@dataclass
class _Tally:
    """A match's hands counted per party once (who got cards, who won, who lost) and its
    lost games per seat's name."""

    played: dict[int, int]
    won: dict[int, int]
    lost: dict[int, int]
    lost_games: dict[str, int]


def _tally(match: MatchPlayed) -> _Tally:
    parties = sorted(set(match.parties))
    tally = _Tally(
        dict.fromkeys(parties, 0), dict.fromkeys(parties, 0), dict.fromkeys(parties, 0), {}
    )
    for hand in match.hands:
        active = [p for p in parties if not hand.sat_out(p)]
        points = tuple(hand.points[p] for p in active)
        top = hand_winner(PlayedHand(None, hand.outcome, None, points)) if active else None
        winner = None if top is None else active[top]
        for party in active:
            tally.played[party] += 1
            if winner is not None:
                if party == winner:
                    tally.won[party] += 1
                else:
                    tally.lost[party] += 1
        if lost_game(hand.outcome, made=hand.made, won=hand.won):
            for name in match.declarers(hand):
                tally.lost_games[name] = tally.lost_games.get(name, 0) + 1
    return tally


def _add(line: YearLine, match: MatchPlayed, name: str, tally: _Tally) -> YearLine:
    party = match.party_of(name)
    won = match.finished and party in match.winners
    return replace(
        line,
        points=line.points + match.totals[party],
        matches=line.matches + 1,
        matches_won=line.matches_won + won,
        hands=line.hands + tally.played[party],
        hands_won=line.hands_won + tally.won[party],
        hands_lost=line.hands_lost + tally.lost[party],
        lost_games=line.lost_games + tally.lost_games.get(name, 0),
    )


def _order(evenings: Iterable[Evening]) -> list[Evening]:
    return sorted(evenings, key=lambda e: (e.day, e.number))


def _ranked_value(line: YearLine, by: str) -> int:
    if by == "matches":
        return line.matches_won
    if by == "money":
        return line.money
    return line.points


def year_ranking(
    evenings: Sequence[Evening],
    members: Sequence[str] = (),
    by: str = "points",
    money: Sequence[EveningMoney] = (),
) -> YearRanking:
    """The year's numbers per person, the members ranked ``by`` what the group picks.

    ``members`` are the year's members in the order ties are listed (by name,
    say); everybody who sat in an evening other than as a guest is ranked too.
    ``money``: the evenings' :func:`evening_money`, when the caller has it already.

    Two evenings of three (10 ct per full hundred, paying each other):

    >>> from datetime import date
    >>> people = {"Anna": "A", "Bert": "B", "Carla": "C"}
    >>> one = Evening(1, date(2025, 3, 6), "pay", 10, "full", people, frozenset(), (
    ...     MatchPlayed(1, ("Anna", "Bert", "Carla"), (0, 1, 2), (1030, 640, 410), True, (0,)),))
    >>> two = Evening(2, date(2025, 3, 13), "pay", 10, "full", people, frozenset(), (
    ...     MatchPlayed(1, ("Anna", "Bert", "Carla"), (0, 1, 2), (720, 1010, 980), True, (1,)),))
    >>> year = year_ranking([one, two], ["A", "B", "C"])
    >>> [(l.place, l.person, l.points, l.matches_won, l.money) for l in year.lines]
    [(1, 'A', 1750, 1, 70), (2, 'B', 1650, 1, -10), (3, 'C', 1390, 0, -60)]
    >>> [(l.place, l.person) for l in year_ranking([one, two], ["A", "B", "C"], "money").lines]
    [(1, 'A'), (2, 'B'), (3, 'C')]
    >>> year.running
    ((0, 0, 0), (1030, 640, 410), (1750, 1650, 1390))
    """
    if by not in RANKING_BY:
        raise RulesError(
            "'{by}' is nothing the year is ranked by: use {choices}",
            by=by,
            choices=", ".join(RANKING_BY),
        )
    ordered = _order(evenings)
    lines: dict[str, YearLine] = {m: YearLine(m) for m in members}
    guests: dict[str, YearLine] = {}
    played: list[dict[str, int]] = []
    known = {m.number: m for m in money}
    for evening in ordered:
        worth = (known.get(evening.number) or evening_money(evening)).won
        here: set[str] = set()
        for match in evening.matches:
            tally = _tally(match)
            for name in match.seats:
                person = evening.person(name)
                book = guests if evening.is_guest(person) else lines
                book[person] = _add(book.get(person, YearLine(person)), match, name, tally)
                here.add(person)
        for person in here:
            book = guests if evening.is_guest(person) else lines
            line = book[person]
            book[person] = replace(
                line, evenings=line.evenings + 1, money=line.money + worth.get(person, 0)
            )
        played.append({p: line.points for p, line in lines.items()})
    values = {person: _ranked_value(line, by) for person, line in lines.items()}
    places = rank(values)
    position = {person: i for i, person in enumerate(lines)}
    order = sorted(
        lines,
        key=lambda p: (
            places[p],
            -lines[p].points,
            -lines[p].matches_won,
            position[p],
        ),
    )
    ranked = tuple(replace(lines[p], place=places[p]) for p in order)
    running = [tuple(0 for _ in order)]
    for after in played:
        running.append(tuple(after.get(p, 0) for p in order))
    guest_lines = tuple(sorted(guests.values(), key=lambda line: (-line.points, line.person)))
    return YearRanking(by, ranked, guest_lines, tuple(running))
