"""The year's records (docs/rules.md section 14.4): what the table talks about, each with its hand.

From the hands already stored, over the members' evenings of the year (a
guest's hands make no record of the year's table):

- ``highest_bid``: the highest bid a declarer made (played and reached);
- ``binokel`` / ``double_binokel``: who showed the most Binokel and
  Doppelbinokel — counted from the melds named on the sheet (the calculator's
  or a two-player game's); a total typed as one number names no meld and
  counts for none; at a table of teams a team's melds count for both partners;
- ``durch``: who won the most Durch (laid open and from the hand included);
- ``run``: the longest run of won games, game after game a player declared
  (made, or a special game won; a game lost, gone off or forfeited ends it);
- ``partners``: the partners who won the most matches together at a table of
  teams (Kreuzbinokel);
- ``lost_games``: who lost the most games (section 13: failed, gone off, a
  special game lost).

A record is held by everybody who reached its value; each holder links to his
hand: the one that set it (the bid, the last of the count, the run's last
game, the hand that ended the partners' last won match).  Of equal values the
one reached first stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .. import SPECIAL_GAMES
from ..tournament import lost_game
from .evenings import Evening, HandPlayed, MatchPlayed

RECORDS: tuple[str, ...] = (
    "highest_bid",
    "binokel",
    "double_binokel",
    "durch",
    "run",
    "partners",
    "lost_games",
)
"""The records of a year, in the order the year page lists them."""

DURCH: frozenset[str] = frozenset({"durch", "durch_open", "durch_hand"})


@dataclass(frozen=True, order=True)
class HandRef:
    """Where a hand is: the evening's number in the group, the match's in the evening, the
    hand's in the match."""

    evening: int
    match: int
    hand: int


@dataclass(frozen=True)
class Holder:
    """Who holds a record (one person, or two partners) and the hand that set it."""

    people: tuple[str, ...]
    hand: HandRef


@dataclass(frozen=True)
class Record:
    """A record of the year: its kind (:data:`RECORDS`), its value and who holds it."""

    kind: str
    value: int
    holders: tuple[Holder, ...]


def won_game(hand: HandPlayed) -> bool:
    """Whether the declarer's game went his way: made (a forfeit by an opponent counts as
    made, section 12), or a special game won.

    >>> won_game(HandPlayed(1, 0, None, "played", 250, True, None, (300, 0, 0)))
    True
    >>> won_game(HandPlayed(2, 0, None, "gone_off", 250, None, None, (-250, 30, 30)))
    False
    """
    if hand.outcome in SPECIAL_GAMES:
        return hand.won is True
    return hand.outcome in ("played", "forfeit") and hand.made is True


@dataclass
class _Best:
    """The best value so far of one record and who holds it."""

    value: int = 0
    holders: list[Holder] | None = None

    def offer(self, value: int, holder: Holder) -> None:
        if self.holders is None or value > self.value:
            self.value, self.holders = value, [holder]
        elif value == self.value and all(h.people != holder.people for h in self.holders):
            self.holders.append(holder)

    def record(self, kind: str) -> Record | None:
        if not self.holders:
            return None
        return Record(kind, self.value, tuple(self.holders))


@dataclass
class _Tally:
    """A count per person (or pair), with the hand of the last one."""

    counts: dict[tuple[str, ...], tuple[int, HandRef]]

    def add(self, people: tuple[str, ...], hand: HandRef, times: int = 1) -> None:
        count = self.counts.get(people, (0, hand))[0]
        self.counts[people] = (count + times, hand)

    def record(self, kind: str) -> Record | None:
        best = _Best()
        for people, (count, hand) in sorted(self.counts.items(), key=lambda i: (i[1][1], i[0])):
            if count:
                best.offer(count, Holder(people, hand))
        return best.record(kind)


def _members_of(evening: Evening, match: MatchPlayed, names: Sequence[str]) -> tuple[str, ...]:
    people = (evening.person(n) for n in names)
    return tuple(p for p in people if not evening.is_guest(p))


def year_records(evenings: Sequence[Evening]) -> tuple[Record, ...]:
    """The year's records, in the order of :data:`RECORDS` (a record nobody holds is left out).

    >>> from datetime import date
    >>> people = {"Anna": "A", "Bert": "B", "Carla": "C"}
    >>> binokel = (("binokel",), (), ())
    >>> hands = (
    ...     HandPlayed(1, 0, None, "played", 350, True, None, (400, 60, 20), melds=binokel),
    ...     HandPlayed(2, 1, None, "durch", 0, None, True, (0, 1000, 0)),
    ...     HandPlayed(3, 2, None, "played", 300, False, None, (80, 60, -600)),
    ... )
    >>> match = MatchPlayed(1, tuple(people), (0, 1, 2), (480, 1120, -580), True, (1,), hands)
    >>> night = Evening(1, date(2025, 3, 14), "none", 0, "full", people, frozenset(), (match,))
    >>> for r in year_records([night]):
    ...     print(r.kind, r.value, [(h.people, h.hand.hand) for h in r.holders])
    highest_bid 350 [(('A',), 1)]
    binokel 1 [(('A',), 1)]
    durch 1 [(('B',), 2)]
    run 1 [(('A',), 1), (('B',), 2)]
    lost_games 1 [(('C',), 3)]
    """
    bid = _Best()
    tallies = {kind: _Tally({}) for kind in ("binokel", "double_binokel", "durch", "lost_games")}
    partners = _Tally({})
    runs: dict[str, int] = {}
    longest = _Best()
    for evening in sorted(evenings, key=lambda e: (e.day, e.number)):
        for match in sorted(evening.matches, key=lambda m: m.number):
            members = {
                party: _members_of(evening, match, match.partners(party))
                for party in set(match.parties)
            }
            for hand in sorted(match.hands, key=lambda h: h.number):
                where = HandRef(evening.number, match.number, hand.number)
                for party, named in enumerate(hand.melds):
                    for kind in ("binokel", "double_binokel"):
                        if kind in named:
                            for person in members.get(party, ()):
                                tallies[kind].add((person,), where, named.count(kind))
                if hand.declarer is None:
                    continue
                declarers = _members_of(evening, match, match.declarers(hand))
                for person in declarers:
                    if hand.outcome == "played" and hand.made and hand.bid:
                        bid.offer(hand.bid, Holder((person,), where))
                    if hand.outcome in DURCH and hand.won:
                        tallies["durch"].add((person,), where)
                    if lost_game(hand.outcome, made=hand.made, won=hand.won):
                        tallies["lost_games"].add((person,), where)
                    runs[person] = runs.get(person, 0) + 1 if won_game(hand) else 0
                    if runs[person]:
                        longest.offer(runs[person], Holder((person,), where))
            if match.teams and match.finished and match.hands:
                last = HandRef(evening.number, match.number, match.hands[-1].number)
                for party in match.winners:
                    pair = _members_of(evening, match, match.partners(party))
                    if len(pair) == 2:
                        partners.add(tuple(sorted(pair)), last)
    found = {
        "highest_bid": bid.record("highest_bid"),
        "run": longest.record("run"),
        "partners": partners.record("partners"),
        **{kind: tally.record(kind) for kind, tally in tallies.items()},
    }
    return tuple(record for kind in RECORDS if (record := found[kind]) is not None)
