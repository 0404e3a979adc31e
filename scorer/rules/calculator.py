"""The meld calculator (Meldrechner): its state and what one tap does to it.

Two modes.  *Declare*: melds are named one tap at a time, each checked with
:func:`~scorer.rules.melds.check_meld` at once (with the table's hand size), so
an impossible declaration is explained the moment it happens; the melds the
declared cards imply are offered as one more tap (four pairs → the Rundgang),
and a second Binokel, family or four of a kind is offered as the bigger meld.
*Cards*: cards are picked from the deck → :func:`~scorer.rules.melds.best_meld`;
for the declarer, who holds the Dabb too, the best hand after pressing
(:func:`~scorer.rules.melds.best_kept`).

Everything is lenient: the state comes back from a form, so unknown names and
cards are dropped rather than refused.  Why a tap was refused is a
:class:`~scorer.rules.errors.RulesError` in :attr:`Calculator.error` (the web
layer says it in the user's language).

>>> calc = Calculator.start(Ruleset(), trump="H", players=3)
>>> tap(calc, Tap(add="pair H"))
>>> tap(calc, Tap(add="pair E"))
>>> calc.declared, calc.total
(['pair H', 'pair E'], 60)
>>> tap(calc, Tap(add="binokel"))
>>> tap(calc, Tap(add="binokel"))
>>> str(calc.error), calc.upgrade_to
('two Binokel are a Doppelbinokel: declare double_binokel', 'double_binokel')
>>> tap(calc, Tap(upgrade="binokel"))
>>> calc.declared, calc.total
(['pair H', 'pair E', 'double_binokel'], 360)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .cards import Card, Suit
from .errors import CardError, RulesError
from .melds import MeldResult, best_kept, best_meld, check_meld, parse_meld_name
from .ruleset import Ruleset, dabb_size, hand_size

MAX_MELDS = 40  # more than any hand can show; longer input is cut off
MAX_CARDS = 64  # tokens read from a card list
MODES = ("declare", "cards")
# one bigger meld replaces two of the same kind (docs/rules.md section 3.3)
UPGRADES = {"binokel": "double_binokel", "family": "double_family", "four": "eight"}
TRUMPS = ("E", "G", "H", "S")


def canonical(name: str) -> str | None:
    """A meld name in the notation of docs/rules.md section 3, or None for anything else.

    >>> canonical("Familie herz"), canonical("Doppelbinokel"), canonical("nonsense")
    ('family H', 'double_binokel', None)
    """
    try:
        kind, target = parse_meld_name(name)
    except RulesError:
        return None
    return kind if target is None else f"{kind} {target.value}"


def meld_names(text: str | None) -> list[str]:
    """The meld names of a comma-separated list, unknown ones dropped.

    >>> meld_names("pair H, four A,,xyz")
    ['pair H', 'four A']
    """
    names = (canonical(n) for n in (text or "").split(",")[:MAX_MELDS])
    return [n for n in names if n]


def upgraded(name: str) -> str:
    """The meld that two of ``name`` make.

    >>> upgraded("binokel"), upgraded("four A"), upgraded("family H")
    ('double_binokel', 'eight A', 'double_family H')
    """
    kind, _, target = name.partition(" ")
    return f"{UPGRADES[kind]} {target}".strip()


def rundgang_melds(declared: list[str]) -> list[str]:
    """What one tap on "Rundgang" declares on top of ``declared``: a pair in every suit
    that shows neither a pair nor a family yet, and four Könige and four Ober unless
    they are declared (docs/rules.md section 3.4: the Rundgang is these melds).

    >>> rundgang_melds([])
    ['pair E', 'pair G', 'pair H', 'pair S', 'four K', 'four O']
    >>> rundgang_melds(["family H", "pair E", "four A", "eight O"])
    ['pair G', 'pair S', 'four K']
    """
    suits_shown = {
        target
        for kind, _, target in (name.partition(" ") for name in declared)
        if kind in ("pair", "family", "double_family")
    }
    pairs = [f"pair {suit}" for suit in TRUMPS if suit not in suits_shown]
    fours = [
        f"four {rank}"
        for rank in ("K", "O")
        if f"four {rank}" not in declared and f"eight {rank}" not in declared
    ]
    return [*pairs, *fours]


def rundgang_gain(calc: Calculator) -> int | None:
    """What one tap on "Rundgang" adds to the total now — the number its button shows, so
    that it says what the tap does; None where the tap adds nothing (not in declare
    mode, a Rundgang already there) or the melds cannot all be shown (the hand is too
    small for them: the tap says why).

    The Rundgang is worth its parts (docs/rules.md section 3.4), so it is worth what the
    trump makes of them.  Before the trump is named every pair is a plain one:

    >>> rundgang_gain(Calculator.start(Ruleset(), trump=None, players=3))
    220
    >>> rundgang_gain(Calculator.start(Ruleset(), trump="E", players=3))
    240
    >>> rundgang_gain(Calculator.start(Ruleset(rundgang="flat 250"), trump="E", players=3))
    250

    Around a trump family already declared, the rest of the 350:

    >>> calc = Calculator.start(Ruleset(), trump="E", players=3)
    >>> tap(calc, Tap(add="family E"))
    >>> rundgang_gain(calc), calc.total
    (200, 150)
    """
    missing = rundgang_melds(calc.declared)
    if calc.mode != "declare" or not missing or len(calc.declared) + len(missing) > MAX_MELDS:
        return None
    try:
        result = check_meld([*calc.declared, *missing], calc.trump, calc.ruleset, calc.hand_size)
    except RulesError:
        return None
    return result.total - calc.total


def deck_cards(ruleset: Ruleset) -> list[Card]:
    """Every card of the deck once, suit by suit, highest rank first.

    >>> len(deck_cards(Ruleset())), len(deck_cards(Ruleset(sevens=True)))
    (20, 24)
    """
    return [Card(s, r) for s in Suit for r in ruleset.ranks]


def picked_cards(text: str | None, ruleset: Ruleset) -> Counter[Card]:
    """The cards of a list: unknown tokens and copies beyond the deck are dropped.

    >>> sorted(str(c) for c in picked_cards("HA HA HA e7 xx GO", Ruleset()).elements())
    ['GO', 'HA', 'HA']
    """
    ranks = set(ruleset.ranks)
    counts: Counter[Card] = Counter()
    for token in (text or "").replace(",", " ").split()[:MAX_CARDS]:
        try:
            card = Card.parse(token)
        except CardError:
            continue
        if card.rank in ranks and counts[card] < ruleset.copies:
            counts[card] += 1
    return counts


def cards_text(cards: Counter[Card], ruleset: Ruleset) -> str:
    """The picked cards as notation, in deck order (what :func:`picked_cards` reads).

    >>> cards_text(picked_cards("GO HA go", Ruleset()), Ruleset())
    'GO GO HA'
    """
    return " ".join(str(c) for c in deck_cards(ruleset) for _ in range(cards[c]))


def table_sizes(ruleset: Ruleset, players: int | None) -> tuple[int | None, int]:
    """Cards in a hand after pressing and cards in the Dabb, for ``players`` dealt in.

    ``(None, 0)`` where the table has no fixed hand (unknown players, open play).

    >>> table_sizes(Ruleset(), 3), table_sizes(Ruleset(sevens=True), 3), table_sizes(Ruleset(), 7)
    ((12, 4), (15, 3), (None, 0))
    """
    if players is None:
        return None, 0
    try:
        return hand_size(ruleset, players), dabb_size(ruleset, players)
    except RulesError:
        return None, 0


def player_choices(ruleset: Ruleset) -> list[int]:
    """The numbers of players dealt in that this deck can be dealt to.

    >>> player_choices(Ruleset()), player_choices(Ruleset(sevens=True))
    ([3, 4, 5], [3, 4, 5, 6, 8])
    """
    return [n for n in range(2, 9) if table_sizes(ruleset, n)[0] is not None]


@dataclass
class Calculator:
    """One state of the calculator."""

    ruleset: Ruleset
    trump: str | None
    players: int | None
    hand_size: int | None
    dabb: int
    mode: str = "declare"
    declarer: bool = False
    declared: list[str] = field(default_factory=list)
    cards: Counter[Card] = field(default_factory=Counter)
    result: MeldResult | None = None
    error: RulesError | None = None
    refused: str | None = None
    upgrade: str | None = None
    pressed_result: MeldResult | None = None  # card mode: the declarer after pressing

    @classmethod
    def start(
        cls,
        ruleset: Ruleset,
        *,
        trump: str | None = None,
        players: int | None = None,
        mode: str | None = None,
        declarer: bool = False,
        declared: str | None = None,
        cards: str | None = None,
    ) -> Calculator:
        """The state a form describes, read leniently (unknown values dropped).

        >>> calc = Calculator.start(Ruleset(), trump="x", players=3, mode="?", cards="GO SU")
        >>> calc.trump, calc.mode, calc.hand_size, calc.dabb, calc.card_count
        (None, 'declare', 12, 4, 2)
        """
        size, dabb = table_sizes(ruleset, players)
        return cls(
            ruleset=ruleset,
            trump=trump if trump in TRUMPS else None,
            players=players,
            hand_size=size,
            dabb=dabb,
            mode=mode if mode in MODES else "declare",
            declarer=declarer,
            declared=meld_names(declared),
            cards=picked_cards(cards, ruleset),
        )

    @property
    def card_limit(self) -> int | None:
        """How many cards may be picked: the hand, plus the Dabb for the declarer."""
        if self.hand_size is None:
            return None
        return self.hand_size + (self.dabb if self.declarer else 0)

    @property
    def upgrade_to(self) -> str | None:
        """The bigger meld offered instead of a second :attr:`upgrade`."""
        return upgraded(self.upgrade) if self.upgrade else None

    @property
    def card_count(self) -> int:
        return sum(self.cards.values())

    @property
    def counts(self) -> Counter[str]:
        return Counter(self.declared)

    @property
    def final(self) -> MeldResult | None:
        """The result that counts: after pressing for the declarer, else the plain one."""
        return self.pressed_result or self.result

    @property
    def total(self) -> int:
        final = self.final
        return final.total if final else 0

    @property
    def rundgang(self) -> bool:
        """A pair or family in every suit, with nothing left to add."""
        final = self.final
        return final is not None and final.rundgang and not final.implied

    @property
    def picked(self) -> list[Card]:
        """The picked cards, every copy, in deck order."""
        return [c for c in deck_cards(self.ruleset) for _ in range(self.cards[c])]


@dataclass(frozen=True)
class Tap:
    """The button a tap pressed (at most one is set) and its value."""

    go: str | None = None  # switch mode
    clear: bool = False  # start again (the melds, or the cards in card mode)
    back: str | None = None  # take one declared meld back
    upgrade: str | None = None  # turn a declared meld into the bigger one
    card: str | None = None  # pick or put back one copy: "GO:1", "GO:2"
    add: str | None = None  # declare one more meld
    implied: bool = False  # declare the melds the cards imply
    rundgang: bool = False  # declare what a Rundgang needs beyond the declared melds


def tap(calc: Calculator, pressed: Tap) -> None:
    """Carry out one tap on ``calc``, then check the whole state again.

    >>> calc = Calculator.start(Ruleset(), trump="E", players=3)
    >>> for meld in ("pair E", "pair G", "pair H", "pair S"):
    ...     tap(calc, Tap(add=meld))
    >>> [m.name for m in calc.result.implied], calc.total
    (['four K', 'four O'], 100)
    >>> tap(calc, Tap(implied=True))
    >>> calc.total, calc.rundgang
    (240, True)
    >>> tap(calc, Tap(add="pair E"))
    >>> tap(calc, Tap(add="pair E"))
    >>> str(calc.error), calc.declared.count("pair E")
    ('needs Eichel-König three times; the deck has two', 2)

    The Rundgang in one tap, around what is already declared:

    >>> calc = Calculator.start(Ruleset(), trump="E", players=3)
    >>> tap(calc, Tap(add="family E"))
    >>> tap(calc, Tap(rundgang=True))
    >>> calc.declared, calc.total, calc.rundgang
    (['family E', 'pair G', 'pair H', 'pair S', 'four K', 'four O'], 350, True)
    """
    # what was refused describes the last tap only
    calc.error = calc.refused = calc.upgrade = None
    if pressed.go in MODES:
        calc.mode = pressed.go
    names = list(calc.declared)
    if pressed.clear:
        if calc.mode == "cards":
            calc.cards = Counter()
        else:
            names = []
    removed = canonical(pressed.back or "")
    if removed in names:
        del names[len(names) - 1 - names[::-1].index(removed)]
    bigger = canonical(pressed.upgrade or "")
    if bigger in names and bigger.partition(" ")[0] in UPGRADES:
        names.remove(bigger)
        names.append(upgraded(bigger))
    if pressed.card:
        _toggle_card(calc, pressed.card)
    _accept(calc, names)
    if pressed.add:
        added = canonical(pressed.add)
        if added is None:
            calc.error = RulesError("'{name}' is not a meld", name=pressed.add[:40])
        elif len(calc.declared) < MAX_MELDS:
            _add(calc, [added])
    if pressed.implied and calc.result and calc.result.implied:
        _add(calc, [m.name for m in calc.result.implied])
    if pressed.rundgang and calc.mode == "declare":
        missing = rundgang_melds(calc.declared)
        if missing and len(calc.declared) + len(missing) <= MAX_MELDS:
            _add(calc, missing)
    if calc.mode == "cards":
        _check_cards(calc)


def _accept(calc: Calculator, names: list[str]) -> None:
    """Keep the declared melds that can be shown together, in order; say why one cannot."""
    accepted: list[str] = []
    result = None
    for name in names:
        try:
            result = check_meld([*accepted, name], calc.trump, calc.ruleset, calc.hand_size)
        except RulesError as exc:
            if calc.error is None:
                _refuse(calc, accepted, name, exc)
            continue
        accepted.append(name)
    calc.declared = accepted
    calc.result = result if accepted else None


def _refuse(calc: Calculator, accepted: list[str], name: str, exc: RulesError) -> None:
    """Say why ``name`` cannot be added; offer the bigger meld where two make one."""
    calc.error = exc
    calc.refused = name
    calc.upgrade = None
    if name.partition(" ")[0] not in UPGRADES or name not in accepted:
        return
    rest = list(accepted)
    rest.remove(name)
    try:
        check_meld([*rest, upgraded(name)], calc.trump, calc.ruleset, calc.hand_size)
    except RulesError:
        return
    calc.upgrade = name


def _add(calc: Calculator, names: list[str]) -> None:
    """Declare more melds: all of them or, with the reason, none."""
    try:
        result = check_meld([*calc.declared, *names], calc.trump, calc.ruleset, calc.hand_size)
    except RulesError as exc:
        _refuse(calc, calc.declared, names[0], exc)
        return
    calc.declared = [*calc.declared, *names]
    calc.result = result


def _toggle_card(calc: Calculator, value: str) -> None:
    """Tap on one copy of a card: a picked copy is put back, another one is picked."""
    token, _, copy = value.partition(":")
    try:
        card = Card.parse(token)
    except CardError:
        return
    if card.rank not in calc.ruleset.ranks:
        return
    number = int(copy) if copy in ("1", "2") else 1
    if calc.cards[card] >= number:
        calc.cards[card] -= 1
        return
    limit = calc.card_limit
    if limit is not None and calc.card_count >= limit:
        calc.error = RulesError(
            "{card}: a hand holds {size} cards; put one back first", card=card.german, size=limit
        )
        return
    if calc.cards[card] < calc.ruleset.copies:
        calc.cards[card] += 1


def _check_cards(calc: Calculator) -> None:
    """Card mode: the best melds of the picked cards (for the declarer, after pressing)."""
    limit = calc.card_limit
    if limit is not None and calc.card_count > limit:
        # only tampered or stale input gets here: keep the first cards
        kept: Counter[Card] = Counter()
        for card in deck_cards(calc.ruleset):
            take = min(calc.cards[card], limit - sum(kept.values()))
            if take > 0:
                kept[card] = take
        calc.cards = kept
        calc.error = RulesError("A hand holds {size} cards.", size=limit)
    calc.result = None
    calc.pressed_result = None
    if not calc.cards:
        return
    cards = calc.picked
    calc.result = best_meld(cards, calc.trump, calc.ruleset)  # the cards are checked above
    size = calc.hand_size
    if calc.declarer and size is not None and calc.result.cards_needed > size:
        # the best melds need more cards than a hand keeps: the best hand after pressing
        calc.pressed_result = best_kept(cards, calc.trump, size, calc.ruleset)
