"""The melds by name (docs/rules.md section 3): what each is called and worth."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..cards import Card, Rank, Suit
from ..eights import EIGHT_RANKS
from ..errors import CardError, MeldError
from ..ruleset import Ruleset

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

SUIT_KINDS = (PAIR, FAMILY, DOUBLE_FAMILY)
BINOKEL_KINDS = (BINOKEL, GROSS_BINOKEL, DOUBLE_BINOKEL)
RANK_KINDS = (FOUR, EIGHT)
FAMILY_RANKS = (Rank.A, Rank.TEN, Rank.K, Rank.O, Rank.U)
FOUR_RANKS = (Rank.A, Rank.TEN, Rank.K, Rank.O, Rank.U)
GRAS_OBER = Card(Suit.G, Rank.O)
SCHELLEN_UNTER = Card(Suit.S, Rank.U)
GRAS_KOENIG = Card(Suit.G, Rank.K)

RUNDGANG_FLAT = 250
"""What a Rundgang counts with ``rundgang = "flat 250"``."""

Trump = Suit | str | None
Target = Suit | Rank | None


@dataclass(frozen=True)
class Meld:
    """One meld as it goes on the sheet: ``name`` in the notation of section 3, and its points.

    ``cards`` are the cards it needs (a Doppelfamilie lists every card twice).

    >>> from scorer.rules import PRESETS, best_meld
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
    if kind in SUIT_KINDS:
        if len(rest) == 1:
            try:
                return kind, Suit.parse(rest[0])
            except CardError:
                pass
        raise MeldError(
            "'{text}' is not a meld: a {kind} needs a suit (E, G, H or S)", text=text, kind=kind
        )
    if kind in RANK_KINDS:
        ranks = FOUR_RANKS if kind == FOUR else EIGHT_RANKS
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
    if kind in (*BINOKEL_KINDS, DISS) and not rest:
        return kind, None
    raise MeldError("'{text}' is not a meld", text=text)


def meld_name_of(kind: str, target: Target) -> str:
    return kind if target is None else f"{kind} {target.value}"


def _group_of(kind: str, target: Target) -> str:
    if kind in SUIT_KINDS or kind in RANK_KINDS:
        assert target is not None
        return f"{'suit' if kind in SUIT_KINDS else 'rank'} {target.value}"
    return BINOKEL if kind in BINOKEL_KINDS else DISS


def suit_of_trump(trump: Trump) -> Suit | None:
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
    value = _value(kind, target, suit_of_trump(trump), ruleset)
    if value is None:
        canonical = meld_name_of(kind, target)
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


def check_shown_meld(name: str, points: int, trump: Trump, ruleset: Ruleset | None = None) -> int:
    """``points`` when they are what one meld shown during play is worth, else MeldError.

    The two-player games write their melds one at a time, as they are shown
    (docs/rules.md section 9): no hand of fixed size bounds them, so each is
    checked on its own.  It must be a meld of these house rules, worth what
    they give it under ``trump``.  With ``trump=None`` (not named yet, or not
    known: a meld kept from before the trump was turned) any value the meld
    has under some trump, or before one is named (:func:`offered_points`), is
    its value.

    >>> from scorer.rules import PRESETS
    >>> check_shown_meld("pair H", 40, "H", PRESETS["zweier"])
    40
    >>> check_shown_meld("pair H", 40, None, PRESETS["zweier"])
    40
    >>> check_shown_meld("gross_binokel", 850, "H", PRESETS["schweizer"])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.MeldError: 'gross_binokel' is worth 80 here, not 850
    >>> check_shown_meld("family H", 5000, None, PRESETS["schweizer"])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.MeldError: 'family H' is worth 150 here, not 5000
    """
    ruleset = Ruleset() if ruleset is None else ruleset
    worth: set[int] = set()
    refused: MeldError | None = None
    for under in (trump,) if trump is not None else (None, *Suit):
        try:
            worth.add(meld_points(name, under, ruleset))
        except MeldError as exc:  # a trump family is no meld outside its suit
            refused = refused or exc
    if not worth and refused is not None:
        raise refused
    if isinstance(points, bool) or not isinstance(points, int) or points not in worth:
        canonical = meld_name_of(*parse_meld_name(name))
        *some, last = sorted(worth)
        if some:  # plain and in trump: two values
            raise MeldError(
                "'{name}' is worth {worth} or {other} here, not {points}",
                name=canonical,
                worth=", ".join(str(value) for value in some),
                other=last,
                points=points,
            )
        raise MeldError(
            "'{name}' is worth {worth} here, not {points}",
            name=canonical,
            worth=last,
            points=points,
        )
    return points


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
    trump_suit = suit_of_trump(trump)
    names: list[str] = []
    for kind in MELD_KINDS:
        targets: Sequence[Target]
        if kind in SUIT_KINDS:
            targets = tuple(Suit)
        elif kind in RANK_KINDS:
            targets = FOUR_RANKS if kind == FOUR else EIGHT_RANKS
        else:
            targets = (None,)
        for target in targets:
            trumps: Iterable[Suit | None] = (
                (trump_suit,) if trump is not None or not isinstance(target, Suit) else Suit
            )
            if any(_value(kind, target, t, ruleset) is not None for t in trumps):
                names.append(meld_name_of(kind, target))
    return tuple(names)
