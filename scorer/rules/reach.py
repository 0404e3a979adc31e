"""Which meld totals one party can reach: the check of a total typed by hand.

Most hands are entered as one number per party ("Meldung 190"), not meld by
meld.  A number that no hand can show (30 without sevens, 5000 in a hand of
12 cards) is a typing mistake; :func:`check_meld_total` refuses it and names
the nearest totals that are possible.

What is possible is what :func:`~scorer.rules.melds.check_meld` accepts with
the table's hand size: a set of declared melds, within a group (one suit, one
rank, the Binokel, the Diss) adding up their cards, across groups sharing
them, needing no more cards than a hand holds after pressing (docs/rules.md section
3).  The totals are found without trying hands or meld lists one by one:

1. every group has a handful of declarations (:func:`group_declarations`);
2. the groups of one rank take cards of every suit, the Binokel takes Grün-Ober,
   Schellen-Unter (and Grün-König), the Diss the trump seven: each choice of
   these is a *floor*, the least of every card the hand must hold;
3. above a floor the four suits are independent: a small table per suit of
   (cards, points) is combined suit by suit, the points of each card count kept
   as the bits of an integer (bit ``k``: ``k × unit`` points reachable);
4. the floors' own points are added last.

The result is remembered per ruleset, trump, hand size and hands, so the hand form's
preview asks in microseconds after the first time (a few hundredths of a second).

A team (Kreuzbinokel, Sechser) melds with two hands: its totals are the sums of
two one-hand totals.  That does not check that two partners cannot hold more
of a card than the deck has (two hands with an Achterle of aces each), so for a
team it refuses what is surely impossible and may let a very rare impossible
total through; it never refuses a total a team can show.

The two-player games show melds one at a time during play, drawing from the
stock in between: a hand's melds are not limited by one hand of cards there,
and :func:`party_meld_totals` gives None (nothing to check).

>>> totals = meld_totals(Ruleset(), "H", 12)
>>> 30 in totals, 40 in totals, totals.nearest(30)
(False, True, (20, 40))
>>> check_meld_total(Ruleset(), 30, "H")
Traceback (most recent call last):
...
scorer.rules.errors.MeldError: no melds add up to 30 here: the nearest totals are 20 and 40
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache, reduce
from itertools import product
from math import gcd

from .cards import Card, Suit
from .errors import MeldError
from .melds import (
    RUNDGANG_FLAT,
    Declaration,
    Trump,
    group_declarations,
)
from .ruleset import Ruleset


@dataclass(frozen=True)
class MeldTotals:
    """The meld totals one party can show: ``k × unit`` when bit ``k`` of ``bits`` is set.

    >>> t = MeldTotals(10, 0b10101)
    >>> list(t), t.max, 20 in t, 25 in t, t.nearest(30), t.nearest(50)
    ([0, 20, 40], 40, True, False, (20, 40), (40, None))
    """

    unit: int
    bits: int
    cards: int = 0  # the hand size they were worked out for
    hands: int = 1  # 2 for a team

    def __contains__(self, total: object) -> bool:
        if not isinstance(total, int) or isinstance(total, bool) or total < 0:
            return False
        k, rest = divmod(total, self.unit)
        return not rest and k <= self.bits.bit_length() and bool(self.bits >> k & 1)

    def __iter__(self) -> Iterator[int]:
        bits, k = self.bits, 0
        while bits:
            if bits & 1:
                yield k * self.unit
            bits >>= 1
            k += 1

    @property
    def max(self) -> int:
        """The highest reachable total."""
        return (self.bits.bit_length() - 1) * self.unit

    def nearest(self, total: int) -> tuple[int | None, int | None]:
        """The reachable totals next below and next above ``total`` (None where there is none)."""
        if total > self.max:
            return self.max, None
        below = None
        if total > 0:
            low = self.bits & ((1 << ((total - 1) // self.unit + 1)) - 1)
            below = (low.bit_length() - 1) * self.unit if low else None
        start = total // self.unit + 1 if total >= 0 else 0
        high = self.bits >> start
        above = (start + (high & -high).bit_length() - 1) * self.unit if high else None
        return below, above


@lru_cache(maxsize=256)
def meld_totals(ruleset: Ruleset, trump: Trump, hand_size: int, hands: int = 1) -> MeldTotals:
    """The totals ``hands`` hands of ``hand_size`` cards can meld together under this trump.

    ``trump=None`` (not named yet): what any trump allows.

    >>> t = meld_totals(Ruleset(), "H", 12)
    >>> t.max, 10 in t, 1500 in t, 1510 in t
    (1800, False, True, False)
    >>> meld_totals(Ruleset(sevens=True), "H", 14).nearest(15)
    (10, 20)
    """
    size = max(0, hand_size)
    if trump is None:
        union = [_one_hand(ruleset, suit, size) for suit in Suit]
        one = MeldTotals(union[0].unit, reduce(lambda a, b: a | b, (t.bits for t in union)), size)
    else:
        one = _one_hand(ruleset, Suit.parse(trump), size)
    bits = one.bits
    for _ in range(1, hands):
        bits = _sumset(bits, one.bits)
    return MeldTotals(one.unit, bits, size, max(1, hands))


def party_meld_totals(ruleset: Ruleset, trump: Trump) -> MeldTotals | None:
    """The totals one party of this table can meld: one hand, or a team's two (``team_size``).

    None where the totals are not limited by a hand: the games without bidding whose
    melds are shown one at a time during play (``open_play``, the two-player games),
    and tables without a fixed deal.

    >>> from scorer.rules import PRESETS
    >>> party_meld_totals(PRESETS["kreuzbinokel"], "H").max > party_meld_totals(Ruleset(), "H").max
    True
    >>> party_meld_totals(PRESETS["zweier"], "H") is None
    True
    """
    deal = ruleset.deal()
    if deal is None or ruleset.open_play or ruleset.players < 3:
        return None
    return meld_totals(ruleset, trump, deal[0], ruleset.team_size)


def check_meld_total(
    ruleset: Ruleset, total: int, trump: Trump = None, totals: MeldTotals | None = None
) -> None:
    """MeldError when no party of this table can meld ``total`` (0 is always possible).

    ``totals`` are the party's reachable totals when the caller has them
    (:func:`party_meld_totals`); else they are worked out for this table.

    >>> check_meld_total(Ruleset(), 190, "H")
    >>> check_meld_total(Ruleset(), 5000, "H")
    Traceback (most recent call last):
    ...
    scorer.rules.errors.MeldError: a hand of 12 cards melds at most 1800, not 5000
    """
    if totals is None:
        totals = party_meld_totals(ruleset, trump)
    if totals is None or total in totals:
        return
    below, above = totals.nearest(total)
    if above is None:
        if totals.hands > 1:
            raise MeldError(
                "two hands of {cards} cards meld at most {most}, not {total}",
                cards=totals.cards,
                most=totals.max,
                total=total,
            )
        raise MeldError(
            "a hand of {cards} cards melds at most {most}, not {total}",
            cards=totals.cards,
            most=totals.max,
            total=total,
        )
    if below is None:
        raise MeldError("melds cannot add up to {total}: the least is 0", total=total)
    raise MeldError(
        "no melds add up to {total} here: the nearest totals are {below} and {above}",
        total=total,
        below=below,
        above=above,
    )


# -- the work -------------------------------------------------------------------


def _sumset(a: int, b: int) -> int:
    """The bits of every sum of a total in ``a`` and one in ``b``."""
    if a.bit_count() > b.bit_count():
        a, b = b, a
    out, k = 0, 0
    while a:
        if a & 1:
            out |= b << k
        a >>= 1
        k += 1
    return out


@dataclass(frozen=True)
class _Floor:
    """A choice of the rank groups', the Binokel's and the Diss's declarations."""

    needs: dict[Card, int]
    values: int  # bits of the points these declarations add
    kings_obers: int | None  # with "flat 250": the four K and four O they replace


@lru_cache(maxsize=128)
def _one_hand(ruleset: Ruleset, trump: Suit, size: int) -> MeldTotals:
    groups = group_declarations(ruleset, trump)
    every = [d.value for ds in groups.values() for d in ds] + [RUNDGANG_FLAT]
    unit = reduce(gcd, every, 0) or 1
    flat = ruleset.rundgang == "flat 250"
    suits = {s: groups.get(f"suit {s.value}", ()) for s in Suit}
    shared = [ds for key, ds in groups.items() if not key.startswith("suit ")]
    bits = 0
    for floor in _floors(shared, size, unit, flat, ruleset.diss_pressable):
        by_cards = _suits_on(floor, suits, ruleset, size, unit, flat)
        bits |= _sumset(by_cards, floor.values)
    return MeldTotals(unit, bits, size)


def _floors(
    shared: list[tuple[Declaration, ...]], size: int, unit: int, flat: bool, pressable: bool
) -> Iterator[_Floor]:
    """Every choice of the groups beyond the suits that fits in ``size`` cards, merged
    where the cards needed are the same (their points then travel as one set of bits)."""
    merged: dict[tuple[tuple[tuple[Card, int], ...], int | None], int] = {}
    options = [(None, *ds) for ds in shared]
    for choice in product(*options):
        needs: dict[Card, int] = {}
        value = 0
        names: dict[str, int] = {}
        for declaration in choice:
            if declaration is None:
                continue
            value += declaration.value
            free = pressable and declaration.group == "diss"
            for card, n in declaration.needs:
                if not free and n > needs.get(card, 0):
                    needs[card] = n
            for meld in declaration.melds:
                names.setdefault(meld.name, meld.points)
        if sum(needs.values()) > size:
            continue
        ko = None
        if flat and "four K" in names and "four O" in names:
            ko = names["four K"] + names["four O"]
        key = (tuple(sorted(needs.items(), key=lambda item: str(item[0]))), ko)
        merged[key] = merged.get(key, 0) | 1 << (value // unit)
    for (needs_key, ko), values in merged.items():
        yield _Floor(dict(needs_key), values, ko)


def _suits_on(
    floor: _Floor,
    suits: dict[Suit, tuple[Declaration, ...]],
    ruleset: Ruleset,
    size: int,
    unit: int,
    flat: bool,
) -> int:
    """The bits of the suits' points over this floor, for every way within ``size`` cards."""
    rundgang = flat and floor.kings_obers is not None
    # state: (cards so far, suits with a pair or family, pair points replaced) -> bits
    states: dict[tuple[int, int, int], int] = {(0, 0, 0): 1}
    for suit in Suit:
        base = {Card(suit, rank): floor.needs.get(Card(suit, rank), 0) for rank in ruleset.ranks}
        options = [(sum(base.values()), 0, False, 0)]
        for declaration in suits[suit]:
            need = dict(base)
            for card, n in declaration.needs:
                need[card] = max(need[card], n)
            pair = 0
            if not any(m.kind in ("family", "double_family") for m in declaration.melds):
                pair = next((m.points for m in declaration.melds if m.kind == "pair"), 0)
            options.append((sum(need.values()), declaration.value // unit, True, pair))
        following: dict[tuple[int, int, int], int] = {}
        for (cards, shown, replaced), bits in states.items():
            for more, value, melds, pair in options:
                if cards + more > size:
                    continue
                key = (cards + more, 0, 0)
                if rundgang:
                    key = (cards + more, shown + melds, replaced + pair)
                following[key] = following.get(key, 0) | bits << value
        states = following
    out = 0
    for (_, shown, replaced), bits in states.items():
        extra = 0
        if rundgang and shown == len(Suit):
            assert floor.kings_obers is not None
            extra = max(0, RUNDGANG_FLAT - floor.kings_obers - replaced) // unit
        out |= bits << extra
    return out


__all__ = [
    "MeldTotals",
    "check_meld_total",
    "meld_totals",
    "party_meld_totals",
]
