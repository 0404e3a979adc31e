"""Melds (Meldbilder): what a hand shows, and whether declared melds can be shown.

The combination rules are those of docs/rules.md section 3.  Melds fall into
*groups* (section 3 calls them kinds): the melds of one suit (pairs and
families of that suit), the melds of one rank (four and eight of a kind), the
Binokel melds and the Diss.  A card may serve in several groups at once but
only once within a group, so every group is a small counting problem of its
own: a hand holds each card of the group 0, 1 or 2 times, and the group's
melds are chosen by trying every count of every meld of the group that those
cards allow.  That is a few dozen tries per group, remembered per ruleset and
trump, so :func:`best_meld` never searches over subsets of cards.

>>> best_meld("HA H10 HK HO HU HK HO", "H").total
190
>>> check_meld(["pair E", "pair G", "pair H", "pair S"], "E").implied
(Meld(name='four K', points=80), Meld(name='four O', points=60))
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from heapq import heappop, heappush
from typing import NoReturn

from .cards import Card, Rank, Suit, parse_cards
from .errors import CardError, MeldError
from .ruleset import Ruleset

PAIR = "pair"
FAMILY = "family"
DOUBLE_FAMILY = "double_family"
BINOKEL = "binokel"
GROSS_BINOKEL = "gross_binokel"
DOUBLE_BINOKEL = "double_binokel"
FOUR = "four"
EIGHT = "eight"
DISS = "diss"

MELD_KINDS: tuple[str, ...] = (
    PAIR,
    FAMILY,
    DOUBLE_FAMILY,
    BINOKEL,
    GROSS_BINOKEL,
    DOUBLE_BINOKEL,
    FOUR,
    EIGHT,
    DISS,
)
"""The kinds of meld, in display order; a meld's name is its kind plus suit or rank."""

_SUIT_KINDS = (PAIR, FAMILY, DOUBLE_FAMILY)
_BINOKEL_KINDS = (BINOKEL, GROSS_BINOKEL, DOUBLE_BINOKEL)
_RANK_KINDS = (FOUR, EIGHT)
_FAMILY_RANKS = (Rank.A, Rank.TEN, Rank.K, Rank.O, Rank.U)
_FOUR_RANKS = (Rank.A, Rank.TEN, Rank.K, Rank.O, Rank.U)
_EIGHT_RANKS = (Rank.A, Rank.TEN, Rank.K, Rank.O, Rank.U, Rank.SEVEN)
_GO = Card(Suit.G, Rank.O)
_SU = Card(Suit.S, Rank.U)
_GK = Card(Suit.G, Rank.K)

RUNDGANG_FLAT = 250
"""What a Rundgang counts with ``rundgang = "flat 250"``."""

Trump = Suit | str | None
Target = Suit | Rank | None


@dataclass(frozen=True)
class Meld:
    """One meld as it goes on the sheet: ``name`` in the notation of section 3, and its points.

    ``cards`` are the cards it needs (a Doppelfamilie lists every card twice).

    >>> from scorer.rules import PRESETS
    >>> best_meld("GO SU GK", "H", PRESETS["schweizer"]).melds
    (Meld(name='pair G', points=20), Meld(name='gross_binokel', points=80))
    >>> m = best_meld("GO SU GK", "H", PRESETS["schweizer"]).melds[1]
    >>> m.kind, m.group, m.target, [str(c) for c in m.cards]
    ('gross_binokel', 'binokel', None, ['GO', 'SU', 'GK'])
    """

    name: str
    points: int
    cards: tuple[Card, ...] = field(default=(), repr=False)

    @property
    def kind(self) -> str:
        """The meld without its suit or rank: ``pair``, ``four``, ``binokel`` ..."""
        return self.name.split(" ", 1)[0]

    @property
    def target(self) -> Suit | Rank | None:
        """The suit of a pair or family, the rank of a four or eight, else None."""
        return parse_meld_name(self.name)[1]

    @property
    def group(self) -> str:
        """The group (section 3.1): ``suit H``, ``rank A``, ``binokel`` or ``diss``.

        Within a group a card serves once; across groups it may be shared.
        """
        return _group_of(*parse_meld_name(self.name))


@dataclass(frozen=True)
class MeldResult:
    """Melds of one party, as :func:`best_meld` finds them or :func:`check_meld` accepts them.

    ``total`` is the sum of ``melds``' points; ``rundgang`` says that a pair or
    family of every suit is among them (the Rundgang is not an extra meld:
    its value is its parts); ``cards_needed`` is how many cards the melds take
    from the hand; ``implied`` (from :func:`check_meld`) are melds that the
    needed cards show as well but that were not declared.

    With ``rundgang = "flat 250"`` a Rundgang counts 250 instead of its four
    kings, four Ober and one pair of every suit without a family (a family
    beside it keeps its full value); ``rundgang_extra`` is what that adds, and
    ``total`` includes it (then ``total`` is the melds' points plus it).
    """

    total: int
    melds: tuple[Meld, ...]
    rundgang: bool
    cards_needed: int
    implied: tuple[Meld, ...] = ()
    rundgang_extra: int = 0

    @property
    def implied_points(self) -> int:
        """What the implied melds would add."""
        return sum(m.points for m in self.implied)

    @property
    def names(self) -> tuple[str, ...]:
        """The meld names, in the result's order."""
        return tuple(m.name for m in self.melds)


# -- names -----------------------------------------------------------------

_ALIASES = {
    "paar": PAIR,
    "bärle": PAIR,
    "familie": FAMILY,
    "doppelfamilie": DOUBLE_FAMILY,
    "doublefamily": DOUBLE_FAMILY,
    "doppelbinokel": DOUBLE_BINOKEL,
    "doublebinokel": DOUBLE_BINOKEL,
    "grossbinokel": GROSS_BINOKEL,
    "großbinokel": GROSS_BINOKEL,
    "vier": FOUR,
    "achterle": EIGHT,
    "acht": EIGHT,
    "dix": DISS,
}
_TWO_WORDS = {
    ("double", "family"): DOUBLE_FAMILY,
    ("double", "binokel"): DOUBLE_BINOKEL,
    ("gross", "binokel"): GROSS_BINOKEL,
    ("groß", "binokel"): GROSS_BINOKEL,
}
_NAME_SEPARATORS = re.compile(r"[\s_\-]+")


@lru_cache(maxsize=1024)  # a handful of names, read again for every meld of every tap
def parse_meld_name(text: str) -> tuple[str, Suit | Rank | None]:
    """A meld name's kind and its suit or rank, leniently (any case, spaces or underscores).

    Only the notation is checked here; whether a ruleset knows the meld is
    :func:`meld_points`' business.  A few German words are understood too
    (``Familie Herz``, ``Achterle A``, ``Doppelbinokel``).

    >>> parse_meld_name("Family h")
    ('family', <Suit.H: 'H'>)
    >>> parse_meld_name("four 10"), parse_meld_name("Double Binokel")
    (('four', <Rank.TEN: '10'>), ('double_binokel', None))
    >>> parse_meld_name("pair X")
    Traceback (most recent call last):
    ...
    scorer.rules.errors.MeldError: 'pair X' is not a meld: a pair needs a suit (E, G, H or S)
    """
    words = [w for w in _NAME_SEPARATORS.split(str(text).strip().lower()) if w and w != "in"]
    if len(words) >= 2 and (words[0], words[1]) in _TWO_WORDS:
        words = [_TWO_WORDS[(words[0], words[1])], *words[2:]]
    if not words:
        raise MeldError("'{text}' is not a meld", text=text)
    kind = _ALIASES.get(words[0], words[0])
    rest = words[1:]
    if kind in _SUIT_KINDS:
        if len(rest) == 1:
            try:
                return kind, Suit.parse(rest[0])
            except CardError:
                pass
        raise MeldError(
            "'{text}' is not a meld: a {kind} needs a suit (E, G, H or S)", text=text, kind=kind
        )
    if kind in _RANK_KINDS:
        ranks = _FOUR_RANKS if kind == FOUR else _EIGHT_RANKS
        if len(rest) == 1:
            rank = next((r for r in ranks if r.value == rest[0].upper()), None)
            if rank is not None:
                return kind, rank
        raise MeldError(
            "'{text}' is not a meld: '{kind}' needs a rank ({ranks})",
            text=text,
            kind=kind,
            ranks=", ".join(r.value for r in ranks),
        )
    if kind in (*_BINOKEL_KINDS, DISS) and not rest:
        return kind, None
    raise MeldError("'{text}' is not a meld", text=text)


def _name(kind: str, target: Target) -> str:
    return kind if target is None else f"{kind} {target.value}"


def _group_of(kind: str, target: Target) -> str:
    if kind in _SUIT_KINDS or kind in _RANK_KINDS:
        assert target is not None
        return f"{'suit' if kind in _SUIT_KINDS else 'rank'} {target.value}"
    return BINOKEL if kind in _BINOKEL_KINDS else DISS


def _trump(trump: Trump) -> Suit | None:
    return None if trump is None else Suit.parse(trump)


def _value(kind: str, target: Target, trump: Suit | None, ruleset: Ruleset) -> int | None:
    """The points of a meld under this trump, or None when the ruleset does not know it."""
    r = ruleset
    doubles = r.copies > 1
    if kind == PAIR:
        return r.trump_pair if target == trump else r.pair
    if kind == FAMILY:
        return r.trump_family if target == trump else r.family
    if kind == DOUBLE_FAMILY:
        return r.double_family if doubles else None
    if kind == BINOKEL:
        return r.binokel
    if kind == GROSS_BINOKEL:
        return r.gross_binokel
    if kind == DOUBLE_BINOKEL:
        return r.double_binokel if doubles else None
    if kind == FOUR:
        fours = {
            Rank.A: r.four_aces,
            Rank.TEN: r.four_tens,
            Rank.K: r.four_kings,
            Rank.O: r.four_obers,
            Rank.U: r.four_unters,
        }
        return fours.get(target) if isinstance(target, Rank) else None
    if kind == EIGHT:
        known = target in r.effective_eight_ranks and target in r.ranks
        return r.eight_of_a_kind if known else None
    if kind == DISS:
        return r.diss if r.has_sevens else None
    return None


def meld_points(name: str, trump: Trump, ruleset: Ruleset | None = None) -> int:
    """The points of one meld under this trump; MeldError when the ruleset does not know it.

    With ``trump=None`` (not chosen yet) no trump values apply.

    >>> meld_points("pair H", "H"), meld_points("pair H", "E"), meld_points("pair H", None)
    (40, 20, 20)
    >>> meld_points("four 10", "H")
    Traceback (most recent call last):
    ...
    scorer.rules.errors.MeldError: 'four 10' is not a meld in these house rules
    """
    ruleset = Ruleset() if ruleset is None else ruleset
    kind, target = parse_meld_name(name)
    value = _value(kind, target, _trump(trump), ruleset)
    if value is None:
        canonical = _name(kind, target)
        if kind == DISS:
            raise MeldError(
                "there is no Diss without sevens: '{name}' is not a meld in this game",
                name=canonical,
            )
        if kind == FAMILY and ruleset.family is None:
            raise MeldError(
                "only the trump family counts in this game: '{name}' is not a meld",
                name=canonical,
            )
        raise MeldError("'{name}' is not a meld in these house rules", name=canonical)
    return value


def offered_points(name: str, trump: Trump, ruleset: Ruleset | None = None) -> int:
    """A meld's points as a button offers it while the hand is played (two players).

    Before the trump is known, a meld that exists only in trump (the Swiss
    family) is worth what it would be if its suit became trump; everything else
    is :func:`meld_points`.

    >>> from scorer.rules import PRESETS
    >>> offered_points("family H", None, PRESETS["schweizer"])
    150
    >>> offered_points("family H", "E", PRESETS["schweizer"])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.MeldError: only the trump family counts in this game: \
'family H' is not a meld
    """
    try:
        return meld_points(name, trump, ruleset)
    except MeldError:
        if trump is not None:
            raise
        return meld_points(name, name.rpartition(" ")[2], ruleset)


def smallest_meld(ruleset: Ruleset | None = None) -> int:
    """The fewest points one meld is worth under these rules, in any trump.

    A meld total is 0 or at least this: the hand form reads a smaller number as
    typed in tens (``"10"`` for 100 where no meld is worth 10).

    >>> smallest_meld(), smallest_meld(Ruleset(sevens=True)), smallest_meld(Ruleset(pair=30))
    (20, 10, 30)
    """
    return _smallest_meld(Ruleset() if ruleset is None else ruleset)


@lru_cache(maxsize=64)
def _smallest_meld(ruleset: Ruleset) -> int:
    # every hand form asks (page, preview, save): worked out once per ruleset
    return min(
        offered_points(name, suit, ruleset)
        for suit in Suit
        for name in available_melds(ruleset, suit)
    )


def available_melds(ruleset: Ruleset | None = None, trump: Trump = None) -> tuple[str, ...]:
    """Every meld name the ruleset knows, in display order (pairs, families, ..., Diss).

    Without a trump, melds that exist only in trump (the Swiss family) are
    listed for every suit, since any suit may become trump.

    >>> available_melds()[:4], available_melds()[-3:]
    (('pair E', 'pair G', 'pair H', 'pair S'), ('eight K', 'eight O', 'eight U'))
    >>> available_melds(Ruleset(sevens=True))[-2:]
    ('eight 7', 'diss')
    >>> from scorer.rules import PRESETS
    >>> [m for m in available_melds(PRESETS["schweizer"], "H") if "family" in m]
    ['family H']
    """
    ruleset = Ruleset() if ruleset is None else ruleset
    trump_suit = _trump(trump)
    names: list[str] = []
    for kind in MELD_KINDS:
        targets: Sequence[Target]
        if kind in _SUIT_KINDS:
            targets = tuple(Suit)
        elif kind in _RANK_KINDS:
            targets = _FOUR_RANKS if kind == FOUR else _EIGHT_RANKS
        else:
            targets = (None,)
        for target in targets:
            trumps: Iterable[Suit | None] = (
                (trump_suit,) if trump is not None or not isinstance(target, Suit) else Suit
            )
            if any(_value(kind, target, t, ruleset) is not None for t in trumps):
                names.append(_name(kind, target))
    return tuple(names)


# -- the groups and their counting ------------------------------------------


@dataclass(frozen=True)
class _Choice:
    """The best melds of one group for given card counts."""

    value: int
    melds: tuple[Meld, ...]
    needed: tuple[tuple[Card, int], ...]
    needed_at: tuple[tuple[int, int], ...]  # the same, by the card's place in the deck


class _Group:
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
        self._memo: dict[tuple[int, ...], _Choice] = {}

    def best(self, counts: tuple[int, ...]) -> _Choice:
        """The highest-valued melds these counts of the group's cards allow.

        Ties go to fewer melds (a Doppelfamilie rather than two families of the
        same value); every count of every candidate meld is tried.
        """
        choice = self._memo.get(counts)
        if choice is None:
            choice = self._solve(counts)
            self._memo[counts] = choice
        return choice

    def _solve(self, counts: tuple[int, ...]) -> _Choice:
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
        return _Choice(best[0], tuple(melds), pairs, at)


class _Plan:
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
        groups: list[_Group] = []
        keys: list[str] = [f"suit {s.value}" for s in Suit]
        keys += [BINOKEL]
        keys += [f"rank {r.value}" for r in _EIGHT_RANKS]
        keys += [DISS]
        for key in keys:
            # bigger melds first, so that a result reads "family H, pair H"
            candidates = tuple(m for m in reversed(self.melds.values()) if m.group == key)
            if candidates:
                used = {c for m in candidates for c in m.cards}
                cards = tuple(sorted(used, key=lambda card: self.order[card]))
                places = tuple(self.order[card] for card in cards)
                groups.append(_Group(key, cards, places, candidates))
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
        return Meld(_name(kind, target), points, _meld_cards(kind, target, self.trump))

    def meld(self, text: str | Meld) -> Meld:
        """The meld for a declared name, with this trump's points; MeldError if unknown here."""
        name = text.name if isinstance(text, Meld) else _name(*parse_meld_name(text))
        meld = self.melds.get(name)
        if meld is None:
            reason = self.reasons[name]
            raise type(reason)(reason.template, **reason.params)
        return meld


def _all_names() -> tuple[str, ...]:
    names = [_name(k, s) for k in _SUIT_KINDS for s in Suit]
    names += list(_BINOKEL_KINDS)
    names += [_name(FOUR, r) for r in _FOUR_RANKS] + [_name(EIGHT, r) for r in _EIGHT_RANKS]
    return (*names, DISS)


def _deck_order(ruleset: Ruleset) -> list[tuple[Suit, Rank]]:
    return [(s, r) for s in Suit for r in ruleset.ranks]


def _meld_cards(kind: str, target: Target, trump: Suit | None) -> tuple[Card, ...]:
    if kind in _SUIT_KINDS:
        assert isinstance(target, Suit)
        one = tuple(Card(target, r) for r in (_FAMILY_RANKS if kind != PAIR else (Rank.K, Rank.O)))
        return one * 2 if kind == DOUBLE_FAMILY else one
    if kind in _RANK_KINDS:
        assert isinstance(target, Rank)
        one = tuple(Card(s, target) for s in Suit)
        return one * 2 if kind == EIGHT else one
    if kind == BINOKEL:
        return (_GO, _SU)
    if kind == GROSS_BINOKEL:
        return (_GO, _SU, _GK)
    if kind == DOUBLE_BINOKEL:
        return (_GO, _SU, _GO, _SU)
    assert trump is not None
    return (Card(trump, Rank.SEVEN),)


# notation repeats (a few dozen tokens), so parsing it once pays for itself
_parse_card = lru_cache(maxsize=1024)(Card.parse)


@lru_cache(maxsize=128)
def _plan(ruleset: Ruleset, trump: Suit | None) -> _Plan:
    return _Plan(ruleset, trump)


def _rundgang(melds: Iterable[Meld]) -> bool:
    suits = {m.target for m in melds if m.kind in _SUIT_KINDS}
    return len(suits) == len(Suit)


def _flat_rundgang(ruleset: Ruleset, melds: Sequence[Meld]) -> int:
    """What ``rundgang = "flat 250"`` adds to these melds (0 when it is no Rundgang).

    The Rundgang counts 250 in place of the four kings, the four Ober and one pair
    in every suit; a suit shown by its family keeps the family's full value (the
    family's King and Ober serve the Rundgang too, seed 000: "the tour always
    gives 250 points, regardless of whether it is connected to a family").  Where
    house rules make the parts worth more than 250 the parts count (section 3.5).
    """
    if ruleset.rundgang != "flat 250" or not _rundgang(melds):
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


def _merge_needs(needed: dict[Card, int], pairs: Iterable[tuple[Card, int]]) -> None:
    """Across groups a card is shared: keep the most any one group needs."""
    for card, n in pairs:
        if n > needed.get(card, 0):
            needed[card] = n


# -- best_meld ----------------------------------------------------------------


def best_meld(
    cards: str | Iterable[str | Card], trump: Trump, ruleset: Ruleset | None = None
) -> MeldResult:
    """The highest meld total these cards allow (docs/rules.md section 3), and its melds.

    ``cards`` are :class:`Card` objects or their notation; ``trump`` a suit
    letter, a :class:`Suit`, or None when trump is not named yet (no trump
    values, no Diss).  Within each group (one suit, one rank, the Binokel, the
    Diss) every count of every meld the cards allow is tried and the best kept,
    so where house rules make a bigger meld worth less than its parts (a
    Doppelfamilie below two families, ``eight_of_a_kind=None``) the parts
    count.  The melds come in group order: suits E G H S, Binokel, ranks, Diss.

    In the Swiss game melds are shown one at a time during play, and some only
    after another (the trump family after the trump pair, the Groß-Binokel
    after the Binokel or the Grün pair); that order is not modelled here: the
    result is what the cards are worth shown at once, with the Groß-Binokel
    counted instead of the Binokel.

    CardError for cards the deck cannot hold: more copies than the deck has,
    a seven without sevens.

    >>> r = best_meld("HA H10 HK HO HU HK HO", "H")
    >>> r.total, r.names, r.cards_needed
    (190, ('family H', 'pair H'), 7)
    >>> r = best_meld("EK EO GK GO HK HO SK SO", "E")
    >>> r.total, r.rundgang, r.names
    (240, True, ('pair E', 'pair G', 'pair H', 'pair S', 'four K', 'four O'))
    >>> best_meld("SU SU SU", "H")
    Traceback (most recent call last):
    ...
    scorer.rules.errors.CardError: SU (Schellen-Unter) is given 3 times; the deck has it twice
    """
    plan = _plan(Ruleset() if ruleset is None else ruleset, _trump(trump))
    return _result(plan, _counts(plan, cards))


def _counts(plan: _Plan, cards: str | Iterable[str | Card]) -> list[int]:
    """How many of each card of the deck (by place) ``cards`` hold; CardError if impossible."""
    places = plan.places
    counts = [0] * len(places)
    hand = parse_cards(cards) if isinstance(cards, str) else list(cards)
    for item in hand:
        card = item if isinstance(item, Card) else _parse_card(item)
        place = places.get((card.suit, card.rank))
        if place is None or counts[place] == plan.copies:
            _refuse_card(plan, card, parse_cards(hand).count(card))
        counts[place] += 1
    return counts


def _chosen(plan: _Plan, counts: Sequence[int]) -> tuple[int, list[int], list[_Group]]:
    """The best total of these card counts, how many of each card its melds need, and
    the groups that meld (their choices are in the groups' tables)."""
    needed = [0] * len(counts)
    total = 0
    melding = []
    for group in plan.groups:
        choice = group.best(tuple([counts[i] for i in group.places]))
        if choice.melds:
            total += choice.value
            melding.append(group)
            for place, n in choice.needed_at:
                if n > needed[place]:
                    needed[place] = n
    return total, needed, melding


def _pressable(plan: _Plan, counts: Sequence[int], melding: Sequence[_Group]) -> int:
    """Trump sevens melded as Diss and needed by no other meld: with
    ``diss_pressable`` they may be pressed, so they take no place in the kept hand."""
    if not plan.ruleset.diss_pressable or plan.trump is None:
        return 0
    place = plan.places.get((plan.trump, Rank.SEVEN))
    if place is None:
        return 0
    diss = other = 0
    for group in melding:
        choice = group.best(tuple([counts[i] for i in group.places]))
        n = dict(choice.needed_at).get(place, 0)
        if group.key == DISS:
            diss = n
        else:
            other = max(other, n)
    return max(0, diss - other)


def _kept(plan: _Plan, counts: Sequence[int]) -> tuple[int, int, list[int]]:
    """The total, the cards the melds need in the kept hand, and per card the need."""
    total, needed, melding = _chosen(plan, counts)
    return total, sum(needed) - _pressable(plan, counts, melding), needed


def _result(plan: _Plan, counts: Sequence[int]) -> MeldResult:
    total, needed, melding = _chosen(plan, counts)
    melds = [
        meld
        for group in melding
        for meld in group.best(tuple([counts[i] for i in group.places])).melds
    ]
    suits = sum(group.is_suit for group in melding)
    extra = _flat_rundgang(plan.ruleset, melds)
    return MeldResult(total + extra, tuple(melds), suits == len(Suit), sum(needed), (), extra)


def best_kept(
    cards: str | Iterable[str | Card], trump: Trump, keep: int, ruleset: Ruleset | None = None
) -> MeldResult:
    """The best melds of any ``keep`` of these cards: what the declarer can still meld
    after pressing the rest (the Dabb taken up, as many cards laid away).

    Fewer cards never meld more, so a hand's total bounds every hand left after
    pressing more of it, and a card its best melds do not use can be pressed for
    nothing.  The search is best first over the cards the melds use: it takes the
    hand of the highest total from a queue, and the first one whose melds need no
    more than ``keep`` cards is the answer.  ``cards_needed`` of the result is at
    most ``keep`` (a negative ``keep`` counts as 0); the result equals :func:`best_meld` when
    that fits already.  With ``diss_pressable`` (the default) a trump seven melded
    as Diss and then pressed takes no kept place: ``cards_needed`` may then exceed
    ``keep`` by those sevens.

    >>> cards = "HA H10 HK HO HU EA E10 EK EO EU GO SU GA SA GK SK"
    >>> best_meld(cards, "H").cards_needed
    16
    >>> r = best_kept(cards, "H", 12)
    >>> r.total, r.cards_needed <= 12
    (350, True)
    """
    plan = _plan(Ruleset() if ruleset is None else ruleset, _trump(trump))
    start = tuple(_counts(plan, cards))
    keep = max(keep, 0)
    total, used, needed = _kept(plan, start)
    order = 0  # ties: the hand that needs fewer cards, then first in, first out
    queue = [(-total, used, order, start, needed)]
    seen = {start}
    while queue:
        _, used, _, counts, needed = heappop(queue)
        if used <= keep:
            return _result(plan, counts)
        # a hand that melds more than ``keep`` cards can hold must lose one of the
        # cards its melds use; with it go the copies of that card the melds leave
        # over (they only matter again once a copy is gone, and that is this step)
        for place, n in enumerate(needed):
            if not n:
                continue
            rest = list(counts)
            rest[place] = n - 1
            state = tuple(rest)
            if state in seen:
                continue
            seen.add(state)
            total, rest_used, rest_needed = _kept(plan, state)
            order += 1
            heappush(queue, (-total, rest_used, order, state, rest_needed))
    raise AssertionError("unreachable: a hand of no cards melds nothing")  # pragma: no cover


def _refuse_card(plan: _Plan, card: Card, count: int) -> NoReturn:
    """CardError for a card the deck does not have, or has fewer times than given."""
    if card not in plan.order:
        if card.rank is Rank.SEVEN:
            raise CardError(
                "{notation} ({card}): this game is played without sevens",
                notation=str(card),
                card=card.german,
            )
        raise CardError(
            "{notation} ({card}) is not in the {size}-card deck",
            notation=str(card),
            card=card.german,
            size=len(plan.order) * plan.copies,
        )
    if plan.copies == 1:
        raise CardError(
            "{notation} ({card}) is given {count} times; the deck has it once",
            notation=str(card),
            card=card.german,
            count=count,
        )
    raise CardError(
        "{notation} ({card}) is given {count} times; the deck has it twice",
        notation=str(card),
        card=card.german,
        count=count,
    )


def rundgang_totals(ruleset: Ruleset, trump: Trump = "H") -> tuple[int, int] | None:
    """What a Rundgang counts under these rules: with the trump pair, and with the trump
    family in its place (the rules page quotes them); None where it cannot be shown
    (no four kings or Ober, no trump family).

    >>> rundgang_totals(Ruleset()), rundgang_totals(Ruleset(rundgang="flat 250"))
    ((240, 350), (250, 400))
    """
    suit = Suit.parse(trump or "H")
    pairs = [f"pair {s.value}" for s in Suit]
    family = [f"family {suit.value}" if s == suit else f"pair {s.value}" for s in Suit]
    try:
        with_pair = check_meld([*pairs, "four K", "four O"], suit, ruleset).total
        with_family = check_meld([*family, "four K", "four O"], suit, ruleset).total
    except MeldError:
        return None
    return with_pair, with_family


# -- the ways to declare one group -------------------------------------------


@dataclass(frozen=True)
class Declaration:
    """One way to declare the melds of one group (section 3.1) that :func:`check_meld` accepts.

    ``needs`` says how often each card is needed (cards not named: 0); ``value``
    is the melds' points.  The empty declaration is not among them.
    """

    group: str
    melds: tuple[Meld, ...]
    value: int
    needs: tuple[tuple[Card, int], ...]


def group_declarations(ruleset: Ruleset, trump: Trump) -> dict[str, tuple[Declaration, ...]]:
    """Every declaration of every group, by the group's key (``suit H``, ``rank A``, ``binokel``,
    ``diss``): the melds of a group that the deck can show at once and that no better meld of
    the same cards replaces (two Binokel are refused, a Doppelbinokel is one).  Declarations
    with the same cards and points appear once.

    >>> groups = group_declarations(Ruleset(), "H")
    >>> sorted((d.value, [m.name for m in d.melds]) for d in groups["binokel"])
    [(40, ['binokel']), (300, ['double_binokel'])]
    >>> len(groups["suit H"]), "diss" in groups
    (5, False)
    """
    return _declarations(ruleset, _trump(trump))


@lru_cache(maxsize=64)
def _declarations(ruleset: Ruleset, trump: Suit | None) -> dict[str, tuple[Declaration, ...]]:
    plan = _plan(ruleset, trump)
    return {group.key: _ways(group, plan.copies) for group in plan.groups}


def _ways(group: _Group, copies: int) -> tuple[Declaration, ...]:
    """Every count of every meld of the group that the deck holds and no better meld replaces."""
    seen: dict[tuple[tuple[int, ...], int], Declaration] = {}
    needs = [[meld.cards.count(card) for card in group.cards] for meld in group.candidates]
    taken: list[Meld] = []

    def visit(i: int, used: list[int], value: int) -> None:
        if i == len(group.candidates):
            key = (tuple(used), value)
            if taken and key not in seen and group.best(key[0]).value == value:
                pairs = tuple((c, n) for c, n in zip(group.cards, used, strict=True) if n)
                seen[key] = Declaration(group.key, tuple(taken), value, pairs)
            return
        visit(i + 1, used, value)
        meld, more, count = group.candidates[i], list(used), 0
        while True:
            more = [u + k for u, k in zip(more, needs[i], strict=True)]
            if any(u > copies for u in more):
                break
            taken.append(meld)
            count += 1
            visit(i + 1, more, value + count * meld.points)
        del taken[len(taken) - count :]

    visit(0, [0] * len(group.cards), 0)
    return tuple(seen.values())


# -- check_meld ---------------------------------------------------------------

_DECLARED_SEPARATORS = re.compile(r"[,;\n]+")


def check_meld(
    declared: str | Iterable[str | Meld],
    trump: Trump,
    ruleset: Ruleset | None = None,
    hand_size: int | None = None,
) -> MeldResult:
    """Validate melds as a Schreiber hears them, e.g. ``["family H", "four A"]``.

    ``declared`` is a list of meld names (lenient, see :func:`parse_meld_name`),
    or one string separated by commas.  The melds must be showable together
    from one hand.  Within a group (one suit, one rank, the Binokel, the Diss)
    their cards add up; across groups a card is shared, so the hand needs of
    every card the most any one group needs.  MeldError, in this order:

    - a name that is no meld, or a meld these house rules do not know
      (``diss`` without sevens or without a trump, ``four 10`` when four tens
      are off, a non-trump family in the Swiss game);
    - a card needed more often than the deck has it;
    - melds of one group that the same cards show as a better meld: two
      ``binokel`` (declare ``double_binokel``), two families of a suit (a
      Doppelfamilie), two fours of a rank (an Achterle) — and in general any
      declaration of a group worth less than :func:`best_meld` finds on the
      cards it needs (where house rules make two families worth more than a
      Doppelfamilie, it is the Doppelfamilie that is refused);
    - more cards than ``hand_size`` (None: only the deck is checked).

    The result's ``melds`` are the declared ones (normalised names, declared
    order), ``total`` their points, ``cards_needed`` the size of the needed
    cards.  ``implied`` are the melds :func:`best_meld` finds on all needed
    cards beyond the declared ones: in every group whose declared melds are
    part of that best choice, the rest of it (four pairs imply four K and four
    O).  Where the best choice replaces a declared meld rather than adding to
    it (a family declared beside five Achterle, which hold a Doppelfamilie)
    nothing is implied for that group.  ``rundgang`` is true when the declared
    and implied melds hold a pair or family of every suit.

    In the two-player games melds are shown one at a time; check each as it
    is shown (a Binokel and later a Groß-Binokel need the same cards twice).

    >>> r = check_meld(["family H", "four A"], "H")
    >>> r.total, r.cards_needed, r.implied
    (250, 8, ())
    >>> r = check_meld("pair E, pair g, Pair H, pair S", "E")
    >>> r.total, r.rundgang, [m.name for m in r.implied]
    (100, True, ['four K', 'four O'])
    >>> check_meld(["pair H", "pair H", "pair H"], "H")
    Traceback (most recent call last):
    ...
    scorer.rules.errors.MeldError: needs Herz-König three times; the deck has two
    >>> check_meld(["binokel", "binokel"], "H")
    Traceback (most recent call last):
    ...
    scorer.rules.errors.MeldError: two Binokel are a Doppelbinokel: declare double_binokel
    """
    ruleset = Ruleset() if ruleset is None else ruleset
    plan = _plan(ruleset, _trump(trump))
    if isinstance(declared, str):
        declared = [t for t in _DECLARED_SEPARATORS.split(declared) if t.strip()]
    melds = tuple(plan.meld(item) for item in declared)

    by_group: dict[str, list[Meld]] = {}
    for meld in melds:
        by_group.setdefault(meld.group, []).append(meld)
    needed: dict[Card, int] = {}
    for key, group_melds in by_group.items():
        cards = Counter(c for m in group_melds for c in m.cards)
        _check_copies(plan, cards)
        group = plan.by_key[key]
        best = group.best(tuple([cards[c] for c in group.cards]))
        value = sum(m.points for m in group_melds)
        if best.value > value:
            _refuse_merge(group_melds, value, best)
        _merge_needs(needed, cards.items())
    cards_needed = sum(needed.values())
    kept = cards_needed
    if ruleset.diss_pressable and DISS in by_group and plan.trump is not None:
        # the Diss may be melded and then pressed: it needs no kept place
        seven = Card(plan.trump, Rank.SEVEN)
        diss = len(by_group[DISS])
        other = max(
            (
                sum(c == seven for m in ms for c in m.cards)
                for k, ms in by_group.items()
                if k != DISS
            ),
            default=0,
        )
        kept -= max(0, diss - other)
    if hand_size is not None and kept > hand_size:
        raise MeldError(
            "these melds need {needed} cards; a hand holds {size}",
            needed=kept,
            size=hand_size,
        )

    implied: list[Meld] = []
    for group in plan.groups:
        best = group.best(tuple([needed.get(c, 0) for c in group.cards]))
        rest = Counter(best.melds)
        rest.subtract(by_group.get(group.key, ()))
        if any(n < 0 for n in rest.values()):
            continue  # the best choice replaces a declared meld: nothing to add
        for meld in best.melds:
            if rest[meld] > 0:
                implied.append(meld)
                rest[meld] -= 1
    extra = _flat_rundgang(ruleset, melds)
    return MeldResult(
        total=sum(m.points for m in melds) + extra,
        melds=melds,
        rundgang=_rundgang((*melds, *implied)),
        cards_needed=cards_needed,
        implied=tuple(implied),
        rundgang_extra=extra,
    )


def _check_copies(plan: _Plan, cards: Counter[Card]) -> None:
    """MeldError when one group needs a card more often than the deck has it."""
    for card, n in sorted(cards.items(), key=lambda item: plan.order[item[0]]):
        if n <= plan.copies:
            continue
        if plan.copies == 1:
            if n == 2:
                raise MeldError("needs {card} twice; the deck has it once", card=card.german)
            raise MeldError(
                "needs {card} {count} times; the deck has it once", card=card.german, count=n
            )
        if n == 3:
            raise MeldError("needs {card} three times; the deck has two", card=card.german)
        raise MeldError("needs {card} {count} times; the deck has two", card=card.german, count=n)


def _refuse_merge(declared: Sequence[Meld], value: int, best: _Choice) -> NoReturn:
    """MeldError for melds of one group that the same cards show as better ones."""
    kinds = {m.kind for m in declared}
    better = {m.kind: m for m in best.melds}
    if DOUBLE_BINOKEL in better and DOUBLE_BINOKEL not in kinds:
        raise MeldError("two Binokel are a Doppelbinokel: declare double_binokel")
    if DOUBLE_FAMILY in better and kinds == {FAMILY}:
        suit = better[DOUBLE_FAMILY].target
        assert isinstance(suit, Suit)
        raise MeldError(
            "two families in {suit} are a Doppelfamilie: declare '{meld}'",
            suit=suit.german,
            meld=better[DOUBLE_FAMILY].name,
        )
    if EIGHT in better and kinds == {FOUR}:
        raise MeldError(
            "two '{four}' are an Achterle: declare '{eight}'",
            four=declared[0].name,
            eight=better[EIGHT].name,
        )
    raise MeldError(
        "the same cards are worth {best} as '{better}', not {points} as '{declared}': declare that",
        declared=", ".join(m.name for m in declared),
        points=value,
        better=", ".join(m.name for m in best.melds),
        best=best.value,
    )
