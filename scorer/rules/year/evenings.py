"""The evenings of a Stammtisch as its year reads them (docs/rules.md section 14).

The year is computed from the evenings, never typed: each evening is one
session of the table (its matches, their hands as the rules settled them when
they were saved), and these values carry what the year's arithmetic needs of it
— nothing is settled again here.

A *person* of the group is a key (an opaque string the caller chooses, the same
for one person in every evening); a seat of a match is the name written on the
sheet that evening, and :attr:`Evening.people` says which person each name is.
Who sat in as a guest is the evening's own record (:attr:`Evening.guests`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property

from .. import BASES, MAX_AMOUNT_CENTS, RulesError

MONEY_MODES: tuple[str, ...] = ("pay", "kitty", "none")
"""How an evening's stakes are kept: the players pay each other, the losers pay into the
kitty (Kasse), or no money at all."""


@dataclass(frozen=True)
class HandPlayed:
    """One counted hand of a match (struck hands and a hand still in play are left out).

    ``number`` is the hand's number in its match (its address, never reused);
    ``declarer`` the declaring party and ``declarer_seat`` the seat that declared
    where a party is a team (``None``: not recorded); ``points`` one entry per
    party as the rules settled them, ``sits_out`` which party sat out (the dealer
    at a table of four with a dealer out), ``melds`` the melds each party named
    (the calculator's or the two-player game's names of section 3; empty where a
    total was typed).

    >>> HandPlayed(3, 0, None, "played", 300, True, None, (310, 80, 40)).points
    (310, 80, 40)
    """

    number: int
    declarer: int | None
    declarer_seat: int | None
    outcome: str
    bid: int
    made: bool | None
    won: bool | None
    points: tuple[int, ...]
    sits_out: tuple[bool, ...] = ()
    melds: tuple[tuple[str, ...], ...] = ()

    def sat_out(self, party: int) -> bool:
        """Whether ``party`` got no cards in this hand."""
        return party < len(self.sits_out) and self.sits_out[party]

    def named(self, party: int) -> tuple[str, ...]:
        """The melds ``party`` named in this hand (empty when a total was typed)."""
        return self.melds[party] if party < len(self.melds) else ()


@dataclass(frozen=True)
class MatchPlayed:
    """One match of an evening: its seats (names as written), their parties, the totals.

    ``totals`` and ``winners`` are per party, as the match's standing holds them;
    ``finished`` once the rules ended the match (only then it has winners and money).

    >>> m = MatchPlayed(1, ("Anna", "Bert", "Carla"), (0, 1, 2), (1010, 730, 455), True, (0,))
    >>> m.teams, m.party_of("Bert")
    (False, 1)
    """

    number: int
    seats: tuple[str, ...]
    parties: tuple[int, ...]
    totals: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]
    hands: tuple[HandPlayed, ...] = ()

    @property
    def teams(self) -> bool:
        """Whether the parties are teams of partners (Kreuzbinokel, Sechser)."""
        return len(set(self.parties)) < len(self.seats)

    def party_of(self, name: str) -> int:
        """The party of the seat with this name."""
        return self.parties[self.seats.index(name)]

    @cached_property
    def _teams(self) -> dict[int, tuple[str, ...]]:
        found: dict[int, tuple[str, ...]] = {}
        for name, party in zip(self.seats, self.parties, strict=True):
            found[party] = (*found.get(party, ()), name)
        return found

    def partners(self, party: int) -> tuple[str, ...]:
        """The names of the seats that play for ``party``, in seat order."""
        return self._teams.get(party, ())

    def declarers(self, hand: HandPlayed) -> tuple[str, ...]:
        """Who declared ``hand``: the recorded seat, else every partner of the declaring party."""
        if hand.declarer is None:
            return ()
        seat = hand.declarer_seat
        if seat is not None and 0 <= seat < len(self.seats):
            return (self.seats[seat],)
        return self.partners(hand.declarer)


@dataclass(frozen=True)
class Evening:
    """An evening of the group: its day, how its money is kept, its matches.

    ``number`` is the evening's number in the group (never reused); ``people``
    maps every name on its sheets to the person it is, ``guests`` holds the
    persons who sat in as guests.  ``stake_cents`` and ``basis`` are the
    evening's stake (section 7), ``money`` one of :data:`MONEY_MODES`.

    >>> e = Evening(1, date(2025, 3, 14), "pay", 10, "full", {"Anna": "a", "Gast": "g"},
    ...             frozenset({"g"}))
    >>> e.person("Gast"), e.is_guest("g")
    ('g', True)
    """

    number: int
    day: date
    money: str
    stake_cents: int
    basis: str
    people: Mapping[str, str]
    guests: frozenset[str] = frozenset()
    matches: tuple[MatchPlayed, ...] = field(default=())

    def person(self, name: str) -> str:
        """The person who sat under this name."""
        return self.people[name]

    def is_guest(self, person: str) -> bool:
        """Whether ``person`` sat in as a guest this evening."""
        return person in self.guests

    @property
    def sat(self) -> tuple[str, ...]:
        """The persons who played at least one match this evening, in order of first seat."""
        seen: dict[str, None] = {}
        for match in self.matches:
            for name in match.seats:
                seen.setdefault(self.people[name], None)
        return tuple(seen)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_evening(evening: Evening) -> Evening:
    """``evening`` when its parts fit together, else :class:`RulesError` saying what does not.

    Every seat's name must be a person of the evening, a match's parties,
    totals and winners must agree, the money mode, basis and stake must be known.

    >>> check_evening(Evening(1, date(2025, 3, 14), "cash", 10, "full", {}))
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: 'cash' is not a way to keep the money: use pay, kitty, none
    """
    if evening.money not in MONEY_MODES:
        raise RulesError(
            "'{mode}' is not a way to keep the money: use {choices}",
            mode=evening.money,
            choices=", ".join(MONEY_MODES),
        )
    if evening.basis not in BASES:
        raise RulesError("'{basis}' is not a stake basis", basis=evening.basis)
    if not _count(evening.stake_cents) or not 0 <= evening.stake_cents <= MAX_AMOUNT_CENTS:
        raise RulesError("the stake must be whole cents, not {stake}", stake=evening.stake_cents)
    people = dict(evening.people)
    for guest in evening.guests:
        if guest not in people.values():
            raise RulesError("guest '{guest}' did not sit at this evening", guest=guest)
    for match in evening.matches:
        if len(match.seats) != len(match.parties) or len(set(match.seats)) != len(match.seats):
            raise RulesError("match {number}: its seats do not fit together", number=match.number)
        for name in match.seats:
            if name not in people:
                raise RulesError(
                    "match {number}: '{name}' is nobody of this evening",
                    number=match.number,
                    name=name,
                )
        parties = len(match.totals)
        if sorted(set(match.parties)) != list(range(parties)):
            raise RulesError("match {number}: its parties do not fit", number=match.number)
        if any(not 0 <= w < parties for w in match.winners) or (
            match.finished != bool(match.winners)
        ):
            raise RulesError("match {number}: its winners do not fit", number=match.number)
        for hand in match.hands:
            if len(hand.points) != parties:
                raise RulesError(
                    "match {number}, hand {hand}: one result per party",
                    number=match.number,
                    hand=hand.number,
                )
    return evening
