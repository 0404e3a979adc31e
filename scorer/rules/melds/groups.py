"""The groups of melds and their counting (docs/rules.md section 3)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..cards import Card, Rank, Suit
from ..eights import EIGHT_RANKS
from ..errors import MeldError
from ..ruleset import Ruleset
from .names import (
    BINOKEL,
    BINOKEL_KINDS,
    DISS,
    DOUBLE_BINOKEL,
    DOUBLE_FAMILY,
    EIGHT,
    FAMILY_RANKS,
    FOUR,
    FOUR_RANKS,
    GRAS_KOENIG,
    GRAS_OBER,
    GROSS_BINOKEL,
    PAIR,
    RANK_KINDS,
    RUNDGANG_FLAT,
    SCHELLEN_UNTER,
    SUIT_KINDS,
    Meld,
    Target,
    meld_name_of,
    meld_points,
    parse_meld_name,
)

# -- the groups and their counting ------------------------------------------


@dataclass(frozen=True)
class Choice:
    """The best melds of one group for given card counts."""

    value: int
    melds: tuple[Meld, ...]
    needed: tuple[tuple[Card, int], ...]
    needed_at: tuple[tuple[int, int], ...]  # the same, by the card's place in the deck


class Group:
    """The melds of one group (section 3.1) and the best choice per card counts."""

    def __init__(
        self,
        key: str,
        cards: tuple[Card, ...],
        places: tuple[int, ...],
        candidates: tuple[Meld, ...],
    ) -> None:
        self.key = key
        self.cards = cards
        self.places = places
        self.candidates = candidates
        self.is_suit = key.startswith("suit ")
        self._memo: dict[tuple[int, ...], Choice] = {}

    def best(self, counts: tuple[int, ...]) -> Choice:
        """The highest-valued melds these counts of the group's cards allow.

        Ties go to fewer melds (a Doppelfamilie rather than two families of the
        same value); every count of every candidate meld is tried.
        """
        choice = self._memo.get(counts)
        if choice is None:
            choice = self._solve(counts)
            self._memo[counts] = choice
        return choice

    def _solve(self, counts: tuple[int, ...]) -> Choice:
        index = {card: i for i, card in enumerate(self.cards)}
        needs = [
            [sum(1 for c in meld.cards if c == card) for card in self.cards]
            for meld in self.candidates
        ]
        best: tuple[int, int, tuple[int, ...]] = (0, 0, ())
        taken = [0] * len(self.candidates)

        def visit(i: int, left: list[int]) -> None:
            nonlocal best
            if i == len(self.candidates):
                value = sum(n * m.points for n, m in zip(taken, self.candidates, strict=True))
                key = (value, -sum(taken), tuple(taken))
                if key[:2] > best[:2] or not best[2]:
                    best = key
                return
            need = needs[i]
            n = 0
            while True:
                taken[i] = n
                visit(i + 1, left)
                if any(k > rest for k, rest in zip(need, left, strict=True)):
                    break
                left = [rest - k for k, rest in zip(need, left, strict=True)]
                n += 1
            taken[i] = 0

        visit(0, list(counts))
        melds: list[Meld] = []
        needed = [0] * len(self.cards)
        for n, meld in zip(best[2], self.candidates, strict=True):
            melds.extend([meld] * n)
            for card in meld.cards:
                needed[index[card]] += n
        pairs = tuple((c, k) for c, k in zip(self.cards, needed, strict=True) if k)
        at = tuple((i, k) for i, k in zip(self.places, needed, strict=True) if k)
        return Choice(best[0], tuple(melds), pairs, at)


class Plan:
    """Everything about a ruleset and trump that does not depend on the hand."""

    def __init__(self, ruleset: Ruleset, trump: Suit | None) -> None:
        self.ruleset = ruleset
        self.trump = trump
        self.copies = ruleset.copies
        self.order = {Card(s, r): i for i, (s, r) in enumerate(_deck_order(ruleset))}
        # best_meld counts cards by (suit, rank): str-based enum keys hash in C
        self.places = {(s, r): i for i, (s, r) in enumerate(_deck_order(ruleset))}
        self.melds: dict[str, Meld] = {}
        self.reasons: dict[str, MeldError] = {}
        for name in _all_names():
            try:
                self.melds[name] = self._make(name)
            except MeldError as exc:
                self.reasons[name] = exc
        groups: list[Group] = []
        keys: list[str] = [f"suit {s.value}" for s in Suit]
        keys += [BINOKEL]
        keys += [f"rank {r.value}" for r in EIGHT_RANKS]
        keys += [DISS]
        for key in keys:
            # bigger melds first, so that a result reads "family H, pair H"
            candidates = tuple(m for m in reversed(self.melds.values()) if m.group == key)
            if candidates:
                used = {c for m in candidates for c in m.cards}
                cards = tuple(sorted(used, key=lambda card: self.order[card]))
                places = tuple(self.order[card] for card in cards)
                groups.append(Group(key, cards, places, candidates))
        self.groups = tuple(groups)
        self.by_key = {g.key: g for g in groups}

    def _make(self, name: str) -> Meld:
        kind, target = parse_meld_name(name)
        points = meld_points(name, self.trump, self.ruleset)
        if kind == DISS and self.trump is None:
            raise MeldError(
                "the Diss is the seven of trump: name the trump before declaring '{name}'",
                name=name,
            )
        return Meld(meld_name_of(kind, target), points, _meld_cards(kind, target, self.trump))

    def meld(self, text: str | Meld) -> Meld:
        """The meld for a declared name, with this trump's points; MeldError if unknown here."""
        name = text.name if isinstance(text, Meld) else meld_name_of(*parse_meld_name(text))
        meld = self.melds.get(name)
        if meld is None:
            reason = self.reasons[name]
            raise type(reason)(reason.template, **reason.params)
        return meld


def _all_names() -> tuple[str, ...]:
    names = [meld_name_of(k, s) for k in SUIT_KINDS for s in Suit]
    names += list(BINOKEL_KINDS)
    names += [meld_name_of(FOUR, r) for r in FOUR_RANKS] + [
        meld_name_of(EIGHT, r) for r in EIGHT_RANKS
    ]
    return (*names, DISS)


def _deck_order(ruleset: Ruleset) -> list[tuple[Suit, Rank]]:
    return [(s, r) for s in Suit for r in ruleset.ranks]


def _meld_cards(kind: str, target: Target, trump: Suit | None) -> tuple[Card, ...]:
    if kind in SUIT_KINDS:
        assert isinstance(target, Suit)
        one = tuple(Card(target, r) for r in (FAMILY_RANKS if kind != PAIR else (Rank.K, Rank.O)))
        return one * 2 if kind == DOUBLE_FAMILY else one
    if kind in RANK_KINDS:
        assert isinstance(target, Rank)
        one = tuple(Card(s, target) for s in Suit)
        return one * 2 if kind == EIGHT else one
    if kind == BINOKEL:
        return (GRAS_OBER, SCHELLEN_UNTER)
    if kind == GROSS_BINOKEL:
        return (GRAS_OBER, SCHELLEN_UNTER, GRAS_KOENIG)
    if kind == DOUBLE_BINOKEL:
        return (GRAS_OBER, SCHELLEN_UNTER, GRAS_OBER, SCHELLEN_UNTER)
    assert trump is not None
    return (Card(trump, Rank.SEVEN),)


# notation repeats (a few dozen tokens), so parsing it once pays for itself
parse_card = lru_cache(maxsize=1024)(Card.parse)


@lru_cache(maxsize=128)
def plan_of(ruleset: Ruleset, trump: Suit | None) -> Plan:
    return Plan(ruleset, trump)


def has_rundgang(melds: Iterable[Meld]) -> bool:
    suits = {m.target for m in melds if m.kind in SUIT_KINDS}
    return len(suits) == len(Suit)


def flat_rundgang(ruleset: Ruleset, melds: Sequence[Meld]) -> int:
    """What ``rundgang = "flat 250"`` adds to these melds (0 when it is no Rundgang).

    The Rundgang counts 250 in place of the four kings, the four Ober and one pair
    in every suit; a suit shown by its family keeps the family's full value (the
    family's King and Ober serve the Rundgang too, seed 000: "the tour always
    gives 250 points, regardless of whether it is connected to a family").  Where
    house rules make the parts worth more than 250 the parts count (section 3.5).
    """
    if ruleset.rundgang != "flat 250" or not has_rundgang(melds):
        return 0
    names = [m.name for m in melds]
    if "four K" not in names or "four O" not in names:
        return 0  # kings or Ober shown as an Achterle: the parts stay
    replaced = next(m.points for m in melds if m.name == "four K")
    replaced += next(m.points for m in melds if m.name == "four O")
    for suit in Suit:
        if f"family {suit.value}" in names or f"double_family {suit.value}" in names:
            continue
        pair = next((m for m in melds if m.name == f"pair {suit.value}"), None)
        if pair is not None:
            replaced += pair.points
    return max(0, RUNDGANG_FLAT - replaced)


def merge_needs(needed: dict[Card, int], pairs: Iterable[tuple[Card, int]]) -> None:
    """Across groups a card is shared: keep the most any one group needs."""
    for card, n in pairs:
        if n > needed.get(card, 0):
            needed[card] = n
