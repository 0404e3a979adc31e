"""Whether declared melds can be shown together (docs/rules.md section 3)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NoReturn

from ..cards import Card, Rank, Suit
from ..errors import MeldError
from ..ruleset import Ruleset
from .groups import Choice, Plan, flat_rundgang, has_rundgang, merge_needs, plan_of
from .names import (
    DISS,
    DOUBLE_BINOKEL,
    DOUBLE_FAMILY,
    EIGHT,
    FAMILY,
    FOUR,
    Meld,
    MeldResult,
    Trump,
    suit_of_trump,
)

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
    plan = plan_of(ruleset, suit_of_trump(trump))
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
        merge_needs(needed, cards.items())
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
    extra = flat_rundgang(ruleset, melds)
    return MeldResult(
        total=sum(m.points for m in melds) + extra,
        melds=melds,
        rundgang=has_rundgang((*melds, *implied)),
        cards_needed=cards_needed,
        implied=tuple(implied),
        rundgang_extra=extra,
    )


def _check_copies(plan: Plan, cards: Counter[Card]) -> None:
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


def _refuse_merge(declared: Sequence[Meld], value: int, best: Choice) -> NoReturn:
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
