"""The best melds a hand shows, and which of its cards they need."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from heapq import heappop, heappush
from typing import NoReturn

from ..cards import Card, Rank, Suit, parse_cards
from ..errors import CardError, MeldError
from ..ruleset import Ruleset
from .check import check_meld
from .groups import Group, Plan, flat_rundgang, parse_card, plan_of
from .names import DISS, MeldResult, Trump, suit_of_trump

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
    plan = plan_of(Ruleset() if ruleset is None else ruleset, suit_of_trump(trump))
    return _result(plan, _counts(plan, cards))


def _counts(plan: Plan, cards: str | Iterable[str | Card]) -> list[int]:
    """How many of each card of the deck (by place) ``cards`` hold; CardError if impossible."""
    places = plan.places
    counts = [0] * len(places)
    hand = parse_cards(cards) if isinstance(cards, str) else list(cards)
    for item in hand:
        card = item if isinstance(item, Card) else parse_card(item)
        place = places.get((card.suit, card.rank))
        if place is None or counts[place] == plan.copies:
            _refuse_card(plan, card, parse_cards(hand).count(card))
        counts[place] += 1
    return counts


def _chosen(plan: Plan, counts: Sequence[int]) -> tuple[int, list[int], list[Group]]:
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


def _pressable(plan: Plan, counts: Sequence[int], melding: Sequence[Group]) -> int:
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


def _kept(plan: Plan, counts: Sequence[int]) -> tuple[int, int, list[int]]:
    """The total, the cards the melds need in the kept hand, and per card the need."""
    total, needed, melding = _chosen(plan, counts)
    return total, sum(needed) - _pressable(plan, counts, melding), needed


def _result(plan: Plan, counts: Sequence[int]) -> MeldResult:
    total, needed, melding = _chosen(plan, counts)
    melds = [
        meld
        for group in melding
        for meld in group.best(tuple([counts[i] for i in group.places])).melds
    ]
    suits = sum(group.is_suit for group in melding)
    extra = flat_rundgang(plan.ruleset, melds)
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
    plan = plan_of(Ruleset() if ruleset is None else ruleset, suit_of_trump(trump))
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


def _refuse_card(plan: Plan, card: Card, count: int) -> NoReturn:
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
