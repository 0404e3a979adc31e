"""The house rules of a table: an immutable :class:`Ruleset` and the presets.

``Ruleset()`` is the default column of docs/rules.md section 8.  A ruleset is a
plain value: it goes to JSON with :meth:`Ruleset.to_dict` and comes back with
:meth:`Ruleset.from_dict`, which also takes a preset name plus overrides:

>>> r = Ruleset.from_dict({"preset": "turnier", "round_tricks": False})
>>> r.preset, r.going_off_bonus, r.round_tricks
('turnier', 'half_bid', False)
>>> Ruleset.from_dict(r.to_dict()) == r
True
>>> r.overrides()
{'round_tricks': False}

Besides the options of section 8 a ruleset knows its table: ``players``
(seats at the table), ``team_size`` (1 alone, 2 for partners),
``dealer_sits_out``, ``open_play`` (two-player games without bidding) and the
``deck`` (``binokel``: the double deck; ``piquet``: the Swiss 32-card deck,
each card once).  ``end`` has one more value than section 8 lists:
``at_once`` — the first party to reach the target wins at once, even in the
middle of a hand (the Swiss game, section 9).

The variants of docs/rules.md section 12 (defaults first, so no table changes):
``dabb`` (``None``: the usual deal; a number picks another deal of the same
cards), ``rundgang`` (``"sum"`` | ``"flat 250"``), ``diss_pressable``,
``card_points`` (the counting scheme for A-10-K-O-U), ``first_dealer``
(``"rotate"`` | ``"after_winner"``: who deals the first hand of the next
match), ``dealer`` (``"rotate"`` | ``"winner"``: who deals the next hand) and
``end = "games"`` with ``games`` (best of N hands):

>>> Ruleset(card_points="10-10-10-0-0").card_value(Card.parse("EK"))
10
>>> Ruleset(end="games", games=4)
Traceback (most recent call last):
...
scorer.rules.errors.RulesError: house rule 'games' must be an odd number of hands (3, 5, 7 …), not 4
"""

from __future__ import annotations

import dataclasses
import re
import reprlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, Literal

from .cards import Card, Rank, Suit
from .eights import eight_ranks_of
from .errors import RulesError

SPECIAL_GAMES: tuple[str, ...] = (
    "durch",
    "durch_open",
    "durch_hand",
    "bettel",
    "bettel_open",
    "bettel_hand",
)
"""The special games of docs/rules.md section 4, in the order a sheet lists them."""

DEFAULT_SPECIAL_VALUES: tuple[tuple[str, int | None], ...] = (
    ("durch", 1000),
    ("durch_open", 1500),
    ("durch_hand", 2000),
    ("bettel", 1000),
    ("bettel_open", 1500),
    ("bettel_hand", 2000),
)

END_RULES: tuple[str, ...] = (
    "with_game",
    "after_any_hand_but_going_off",
    "after_any_hand",
    "deals",
    "at_once",
    "games",
)

EndRule = Literal[
    "with_game", "after_any_hand_but_going_off", "after_any_hand", "deals", "at_once", "games"
]

CARD_POINTS: tuple[str, ...] = ("11-10-4-3-2", "10-10-10-0-0", "10-10-5-5-0", "15-15-0-0-0")
"""The counting schemes of seed 000 ("values"): points of A, 10, K, O, U (7, 8, 9 count 0)."""

RUNDGANG_RULES: tuple[str, ...] = ("sum", "flat 250")
FIRST_DEALER_RULES: tuple[str, ...] = ("rotate", "after_winner")
DEALER_RULES: tuple[str, ...] = ("rotate", "winner")
MAX_GAMES = 99
"""The most hands of a match played as best of N (``end = "games"``)."""

_BONUS_RE = re.compile(r"(none|half_bid|(per_player|flat) ([0-9]{1,6}))")
_PRESET_RE = re.compile(r"[a-z][a-z0-9_]{0,39}")

MAX_POINTS = 10_000
"""The highest value of a meld, a bid step, a bonus … — the setup form's limit too."""


@dataclass(frozen=True)
class Bonus:
    """A ``going_off_bonus`` or ``failed_bonus``, read once from its setting (section 8).

    The setting is spelled ``"per_player 10"``, ``"flat 40"``, ``"half_bid"`` or
    ``"none"``; :meth:`parse` reads it, ``str()`` gives it back.

    >>> b = Bonus.parse("per_player 40")
    >>> b.kind, b.amount, str(b), b.points(bid=300, players=3)
    ('per_player', 40, 'per_player 40', 120)
    >>> Bonus.parse("half_bid").points(bid=310, players=3)
    160
    """

    kind: str = "none"
    amount: int = 0

    @classmethod
    def parse(cls, spec: object) -> Bonus:
        """The bonus a setting names; RulesError when it names none (or N is over the limit)."""
        found = _BONUS_RE.fullmatch(spec) if isinstance(spec, str) else None
        if found is None or int(found.group(3) or 0) > MAX_POINTS:
            raise RulesError(
                "'{value}' is not a bonus: use 'per_player N', 'flat N' (N from 0 to {high}), "
                "'half_bid' or 'none'",
                value=_shown(spec),
                high=MAX_POINTS,
            )
        if found.group(2):
            return cls(found.group(2), int(found.group(3)))
        return cls(found.group(1))

    def points(self, *, bid: int, players: int) -> int:
        """What one opposing party gets: N per player dealt in, N, half the bid (rounded
        up to 10), or nothing."""
        if self.kind == "per_player":
            return self.amount * players
        if self.kind == "flat":
            return self.amount
        if self.kind == "half_bid":
            return -(-bid // 20) * 10
        return 0

    def __str__(self) -> str:
        return f"{self.kind} {self.amount}" if self.kind in ("per_player", "flat") else self.kind


MIN_PLAYERS = 2
MAX_PLAYERS = 8
"""A table seats 2 to 8 players: the two-player game up to two full decks' worth (section 1)."""

MAX_TARGET = 100_000
"""The highest target: a table that wants no end by points sets it this high."""

INT_RANGES: dict[str, tuple[int, int]] = {
    "players": (MIN_PLAYERS, MAX_PLAYERS),
    "team_size": (1, 2),
    "last_trick": (0, MAX_POINTS),
    "min_bid": (0, MAX_POINTS),
    "bid_step": (1, MAX_POINTS),
    "pair": (0, MAX_POINTS),
    "trump_pair": (0, MAX_POINTS),
    "trump_family": (0, MAX_POINTS),
    "binokel": (0, MAX_POINTS),
    "four_aces": (0, MAX_POINTS),
    "four_kings": (0, MAX_POINTS),
    "four_obers": (0, MAX_POINTS),
    "four_unters": (0, MAX_POINTS),
    "diss": (0, MAX_POINTS),
    "failed_multiplier": (0, MAX_POINTS),
    "failed_extra": (0, MAX_POINTS),
    "special_failed_multiplier": (0, MAX_POINTS),
    "target": (1, MAX_TARGET),
    "deals": (1, MAX_POINTS),
    "games": (1, MAX_GAMES),
}
"""The whole-number options and their ranges (ints, never bools)."""

OPTIONAL_INT_FIELDS: tuple[str, ...] = (
    "family",
    "double_family",
    "double_binokel",
    "gross_binokel",
    "four_tens",
    "eight_of_a_kind",
)
"""Options that are a number from 0 to :data:`MAX_POINTS` or None (the meld is off)."""

CHOICES: dict[str, tuple[str, ...]] = {
    "deck": ("binokel", "piquet"),
    "special_tally": ("points", "stars"),
    "end": END_RULES,
    "rundgang": RUNDGANG_RULES,
    "card_points": CARD_POINTS,
    "first_dealer": FIRST_DEALER_RULES,
    "dealer": DEALER_RULES,
}

_SHOWN = reprlib.Repr()
_SHOWN.maxstring = 40
_SHOWN.maxother = 40
_SHOWN.maxlevel = 2


def _shown(value: object) -> str:
    """A value for a message: short, whatever it is (a hostile file may send anything)."""
    try:
        return _SHOWN.repr(value)
    except (ValueError, RecursionError):  # an int too long to print, a list nested too deep
        return "…"


def _check_int(field: str, value: object, low: int, high: int, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if type(value) is int and low <= value <= high:
        return
    # two literal templates: the message catalogue extracts each
    if optional:
        raise RulesError(
            "house rule '{field}' must be a whole number from {low} to {high} or empty, "
            "not {value}",
            field=field,
            low=low,
            high=high,
            value=_shown(value),
        )
    raise RulesError(
        "house rule '{field}' must be a whole number from {low} to {high}, not {value}",
        field=field,
        low=low,
        high=high,
        value=_shown(value),
    )


def _check_choice(field: str, value: object, choices: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in choices:
        raise RulesError(
            "house rule '{field}' must be one of {choices}, not {value}",
            field=field,
            choices=", ".join(choices),
            value=_shown(value),
        )


def _special_values(given: object) -> tuple[tuple[str, int | None], ...]:
    """The special games' values, every game named, each a number or None (not played)."""
    items: object = tuple(given.items()) if isinstance(given, Mapping) else given
    if not isinstance(items, tuple | list):
        raise RulesError(
            "house rule 'special_values' must give the special games their points, not {value}",
            value=_shown(given),
        )
    merged: dict[str, int | None] = dict(DEFAULT_SPECIAL_VALUES)
    for item in items:
        if not isinstance(item, tuple | list) or len(item) != 2:
            raise RulesError(
                "house rule 'special_values' must give the special games their points, not {value}",
                value=_shown(given),
            )
        name, value = item
        if not isinstance(name, str):
            raise RulesError(
                "house rule 'special_values' must give the special games their points, not {value}",
                value=_shown(given),
            )
        if name not in merged:
            raise RulesError("'{name}' is not a special game", name=name[:40])
        _check_int(name, value, 0, MAX_POINTS, optional=True)
        merged[name] = value
    return tuple(merged.items())


def _eight_ranks(given: object) -> tuple[Rank, ...]:
    """The ranks that make an Achterle: a list of different ranks."""
    if not isinstance(given, tuple | list) or len(given) > len(Rank):
        raise RulesError(
            "house rule 'eight_ranks' must be a list of different ranks, not {value}",
            value=_shown(given),
        )
    ranks = []
    for item in given:
        if not isinstance(item, str):  # a Rank is a str too
            raise RulesError(
                "house rule 'eight_ranks' must be a list of different ranks, not {value}",
                value=_shown(given),
            )
        ranks.append(Rank.parse(item))
    if len(set(ranks)) != len(ranks):
        raise RulesError(
            "house rule 'eight_ranks' must be a list of different ranks, not {value}",
            value=_shown(given),
        )
    return tuple(ranks)


@dataclass(frozen=True)
class Ruleset:
    """Every option that decides a number on the sheet; see docs/rules.md section 8."""

    preset: str = "standard"
    # the table
    players: int = 3
    team_size: int = 1
    dealer_sits_out: bool = False
    open_play: bool = False
    deck: Literal["binokel", "piquet"] = "binokel"
    # cards and tricks
    sevens: bool = False
    dabb: int | None = None
    card_points: str = "11-10-4-3-2"
    last_trick: int = 10
    # bidding
    min_bid: int = 150
    bid_step: int = 10
    # melds
    pair: int = 20
    trump_pair: int = 40
    family: int | None = 100
    trump_family: int = 150
    double_family: int | None = 1500
    binokel: int = 40
    double_binokel: int | None = 300
    gross_binokel: int | None = None
    four_aces: int = 100
    four_kings: int = 80
    four_obers: int = 60
    four_unters: int = 40
    four_tens: int | None = None
    eight_of_a_kind: int | None = 1000
    eight_ranks: tuple[Rank, ...] | None = None
    rundgang: str = "sum"
    diss: int = 10
    diss_pressable: bool = True
    # failing and going off
    failed_multiplier: int = 2
    failed_extra: int = 0
    failed_bonus: str = "none"
    going_off_bonus: str = "per_player 10"
    unreachable_bid_doubles: bool = False
    round_tricks: bool = False
    # special games
    special_values: tuple[tuple[str, int | None], ...] = DEFAULT_SPECIAL_VALUES
    special_failed_multiplier: int = 2
    special_tally: Literal["points", "stars"] = "points"
    # the end of the match
    end: EndRule = "with_game"
    target: int = 1000
    deals: int = 12
    games: int = 3
    # who deals
    first_dealer: str = "rotate"
    dealer: str = "rotate"

    def __post_init__(self) -> None:
        object.__setattr__(self, "special_values", _special_values(self.special_values))
        if self.eight_ranks is not None:
            object.__setattr__(self, "eight_ranks", _eight_ranks(self.eight_ranks))
        self._validate()

    def _validate(self) -> None:
        # every field's type and range first: the checks across fields below compare numbers
        preset = self.preset
        if not isinstance(preset, str) or not _PRESET_RE.fullmatch(preset):
            raise RulesError(
                "house rule 'preset' must be the name of a preset, not {value}",
                value=_shown(preset),
            )
        for name, (low, high) in INT_RANGES.items():
            _check_int(name, getattr(self, name), low, high)
        for name in OPTIONAL_INT_FIELDS:
            _check_int(name, getattr(self, name), 0, MAX_POINTS, optional=True)
        for name in BOOL_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise RulesError(
                    "house rule '{field}' must be true or false, not {value}",
                    field=name,
                    value=_shown(value),
                )
        for name, choices in CHOICES.items():
            _check_choice(name, getattr(self, name), choices)
        for name in ("failed_bonus", "going_off_bonus"):
            value = getattr(self, name)
            try:
                Bonus.parse(value)
            except RulesError:
                raise RulesError(
                    "house rule '{field}': {value} is not a bonus: use 'per_player N', "
                    "'flat N' (N from 0 to {high}), 'half_bid' or 'none'",
                    field=name,
                    value=_shown(value),
                    high=MAX_POINTS,
                ) from None
        _check_int("dabb", self.dabb, 0, MAX_DABB, optional=True)
        if self.games % 2 == 0:
            raise RulesError(
                "house rule 'games' must be an odd number of hands (3, 5, 7 …), not {value}",
                value=self.games,
            )
        if self.players % self.team_size:
            raise RulesError(
                "{players} players cannot play in teams of {size}",
                players=self.players,
                size=self.team_size,
            )
        if self.min_bid % self.bid_step:
            raise RulesError(
                "the minimum bid {min_bid} must be a multiple of the step {step}",
                min_bid=self.min_bid,
                step=self.bid_step,
            )

    # -- derived values ---------------------------------------------------

    @property
    def going_off(self) -> Bonus:
        """``going_off_bonus`` as a value (read once per ruleset)."""
        return _bonus(self.going_off_bonus)

    @property
    def failed(self) -> Bonus:
        """``failed_bonus`` as a value (read once per ruleset)."""
        return _bonus(self.failed_bonus)

    @property
    def fixed_deals(self) -> int | None:
        """The number of deals a match plays when it ends after a fixed number, else None.

        >>> Ruleset(end="deals", deals=12).fixed_deals, Ruleset().fixed_deals
        (12, None)
        """
        return self.deals if self.end == "deals" else None

    @property
    def has_target(self) -> bool:
        """Reaching ``target`` ends the match (not so after fixed deals or a best of N).

        >>> Ruleset().has_target, Ruleset(end="deals").has_target
        (True, False)
        """
        return self.end not in ("deals", "games")

    @property
    def teams(self) -> bool:
        """True when partners play together (Kreuzbinokel, Sechser)."""
        return self.team_size > 1

    @property
    def parties(self) -> int:
        """The number of scoring units: players, or teams."""
        return self.players // self.team_size

    @property
    def ranks(self) -> tuple[Rank, ...]:
        """The ranks in this ruleset's deck, highest first."""
        if self.deck == "piquet":
            return (Rank.A, Rank.TEN, Rank.K, Rank.O, Rank.U, Rank.NINE, Rank.EIGHT, Rank.SEVEN)
        base = (Rank.A, Rank.TEN, Rank.K, Rank.O, Rank.U)
        return (*base, Rank.SEVEN) if self.sevens else base

    @property
    def copies(self) -> int:
        """How often every card is in the deck: twice, or once in the Swiss deck."""
        return 1 if self.deck == "piquet" else 2

    @property
    def has_sevens(self) -> bool:
        """Whether the trump seven (Diss, or dix in the Swiss game) exists."""
        return self.sevens or self.deck == "piquet"

    @property
    def trick_total(self) -> int:
        """All card points of the deck plus the last trick: 250, or 130 in the Swiss game."""
        return sum(self.card_value(card) * n for card, n in deck(self).items()) + self.last_trick

    def card_value(self, card: Card) -> int:
        """A card's trick points in this table's counting scheme (``card_points``)."""
        return _scheme(self.card_points).get(card.rank, 0)

    @property
    def dealt_in(self) -> int:
        """Players that get cards in a hand: all, or all but a dealer who sits out."""
        return self.players - (1 if self.dealer_sits_out else 0)

    def deal(self) -> tuple[int, int] | None:
        """Cards per hand after pressing and the Dabb for this table, or None when the
        table has no fixed deal (the two-player game with a stock) or cannot be dealt.

        >>> Ruleset().deal(), Ruleset(sevens=True, dabb=6).deal()
        ((12, 4), (14, 6))
        """
        try:
            return _sizes(self, self.dealt_in)
        except RulesError:
            return None

    @property
    def effective_eight_ranks(self) -> tuple[Rank, ...]:
        """Ranks that make an Achterle (eight of a kind)."""
        if self.eight_of_a_kind is None or self.copies < 2:
            return ()
        if self.eight_ranks is not None:  # a seven only where the deck has sevens
            return tuple(r for r in self.eight_ranks if r is not Rank.SEVEN or self.sevens)
        return eight_ranks_of(self.sevens)

    def special_value(self, outcome: str) -> int | None:
        """The value of a special game, or None when this table does not play it."""
        values = dict(self.special_values)
        if outcome not in values:
            raise RulesError("'{outcome}' is not a special game", outcome=outcome)
        return values[outcome]

    @property
    def specials(self) -> tuple[str, ...]:
        """The special games this table plays."""
        return tuple(name for name, value in self.special_values if value is not None)

    # -- serialisation ----------------------------------------------------

    def to_dict(self, *, compact: bool = False) -> dict[str, Any]:
        """Every field as plain JSON values.

        ``compact`` (a backup file): the preset and only the fields that differ from
        the field's own default or from the preset's value.  A house rule added in a
        later release keeps the old play at its default, so a file of a later release
        that does not use it reads the same in an earlier one; one that uses it is
        refused there, naming it.

        >>> PRESETS["turnier"].to_dict(compact=True)["preset"]
        'turnier'
        >>> Ruleset.from_dict(PRESETS["turnier"].to_dict(compact=True)) == PRESETS["turnier"]
        True
        """
        data: dict[str, Any] = {}
        preset = PRESETS.get(self.preset) if compact else None
        for f in fields(self):
            value = getattr(self, f.name)
            # (a field at its own default and at the preset's value goes without saying)
            kept = preset is not None and f.name != "preset"
            if kept and value == f.default and value == getattr(preset, f.name):
                continue
            if f.name == "special_values":
                value = dict(value)
            elif f.name == "eight_ranks" and value is not None:
                value = [r.value for r in value]
            data[f.name] = value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """A ruleset from :meth:`to_dict` output, or a preset name plus overrides.

        Unknown keys are refused with a :class:`RulesError`, so a typo in a house
        rule never passes silently.
        """
        if not isinstance(data, Mapping):
            raise RulesError("the house rules must be an object, not {value}", value=_shown(data))
        data = dict(data)
        preset_name = data.pop("preset", "standard")
        if not isinstance(preset_name, str):
            raise RulesError(
                "house rule 'preset' must be the name of a preset, not {value}",
                value=_shown(preset_name),
            )
        if preset_name not in PRESETS:
            raise RulesError("'{name}' is not a preset", name=preset_name[:40])
        base = PRESETS[preset_name]
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(key) for key in set(data) - known)
        if unknown:
            raise RulesError("unknown house rule '{name}'", name=unknown[0][:40])
        if "special_values" in data and isinstance(data["special_values"], Mapping):
            merged = dict(base.special_values)
            merged.update(data["special_values"])
            data["special_values"] = tuple(merged.items())
        try:
            return dataclasses.replace(base, **data)
        except TypeError as exc:  # a wrong type for a field
            raise RulesError("invalid house rules: {detail}", detail=str(exc)) from exc

    def overrides(self) -> dict[str, Any]:
        """The fields that differ from this ruleset's preset (the house rules)."""
        base = PRESETS.get(self.preset, Ruleset()).to_dict()
        mine = self.to_dict()
        return {k: v for k, v in mine.items() if k != "preset" and base.get(k) != v}

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)


MAX_DABB = 16
"""The biggest Dabb a ruleset may name (``dabb``)."""


def _scheme(name: str) -> dict[Rank, int]:
    a, ten, k, o, u = (int(part) for part in name.split("-"))
    return {Rank.A: a, Rank.TEN: ten, Rank.K: k, Rank.O: o, Rank.U: u}


def deck(ruleset: Ruleset) -> Counter[Card]:
    """Every card of the ruleset's deck with how often it is there.

    >>> sum(deck(Ruleset()).values()), sum(deck(Ruleset(sevens=True)).values())
    (40, 48)
    >>> sum(deck(PRESETS["schweizer"]).values())
    32
    """
    return Counter({Card(suit, rank): ruleset.copies for suit in Suit for rank in ruleset.ranks})


def deck_size(ruleset: Ruleset) -> int:
    """How many cards the ruleset's deck has: 40, 48 with the sevens, 32 in the Swiss game.

    >>> deck_size(Ruleset()), deck_size(PRESETS["sechser"]), deck_size(PRESETS["schweizer"])
    (40, 48, 32)
    """
    return sum(deck(ruleset).values())


# (active players, sevens) -> (hand size after pressing, Dabb)
_HAND_SIZES: dict[tuple[int, bool], tuple[int, int]] = {
    (3, False): (12, 4),
    (4, False): (9, 4),
    (5, False): (7, 5),
    (3, True): (15, 3),
    (4, True): (11, 4),
    (5, True): (9, 3),
    (6, True): (7, 6),
    (8, True): (6, 0),
}


def _sizes(ruleset: Ruleset, players: int) -> tuple[int, int]:
    if ruleset.deck == "piquet":
        if 2 <= players <= 4:  # seed 001: the Swiss game is played by three or four as well
            return (8, 0)
    elif players == 2 and ruleset.open_play:
        raise RulesError("the two-player game draws from a stock and has no fixed hand size")
    elif ruleset.dabb is not None and 3 <= players <= 8:
        cards = deck_size(ruleset)
        dealt = cards - ruleset.dabb
        if dealt > 0 and dealt % players == 0:
            return (dealt // players, ruleset.dabb)
        raise RulesError(
            "{players} players cannot be dealt from the {cards}-card deck with a Dabb of {dabb}",
            players=players,
            cards=cards,
            dabb=ruleset.dabb,
        )
    elif (players, ruleset.sevens) in _HAND_SIZES:
        return _HAND_SIZES[(players, ruleset.sevens)]
    raise RulesError(
        "{players} players cannot be dealt from the {cards}-card deck",
        players=players,
        cards=deck_size(ruleset),
    )


@lru_cache(maxsize=64)
def _bonus(spec: str) -> Bonus:
    return Bonus.parse(spec)


def hand_size(ruleset: Ruleset, players: int) -> int:
    """Cards in a hand after pressing, for the number of active players (section 2).

    >>> hand_size(Ruleset(), 3), hand_size(Ruleset(sevens=True), 6)
    (12, 7)

    ``dabb`` picks another deal of the same cards (seed 000: three players with
    sevens get 14 and a Dabb of 6, 15 and 3, or 16 and none):

    >>> [hand_size(Ruleset(sevens=True, dabb=d), 3) for d in (6, 3, 0)]
    [14, 15, 16]
    >>> hand_size(Ruleset(), 6)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: 6 players cannot be dealt from the 40-card deck
    """
    return _sizes(ruleset, players)[0]


def dabb_size(ruleset: Ruleset, players: int) -> int:
    """Cards in the Dabb for the number of active players (0: no Dabb).

    >>> dabb_size(Ruleset(), 3), dabb_size(Ruleset(sevens=True), 3)
    (4, 3)
    """
    return _sizes(ruleset, players)[1]


def _preset(name: str, **changes: Any) -> Ruleset:
    return Ruleset(preset=name, **changes)


_NO_SPECIALS = tuple((name, None) for name, _ in DEFAULT_SPECIAL_VALUES)

BOOL_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Ruleset) if f.type == "bool")
"""The options that are true or false: the fields the class declares ``bool`` (a new one is
one field; this list, the checks and the setup form's check boxes follow it).

>>> "sevens" in BOOL_FIELDS and "diss_pressable" in BOOL_FIELDS
True
"""

PRESETS: dict[str, Ruleset] = {
    # the Swabian game of seed 002: three players, 40 cards, to 1000 with a won game,
    # and each other player gets 40 when the declarer fails (its first worked example)
    "standard": _preset("standard", failed_bonus="flat 40"),
    # four players in two teams, partners sitting opposite
    "kreuzbinokel": _preset("kreuzbinokel", players=4, team_size=2),
    # six players in three teams of two, 48 cards with sevens
    "sechser": _preset("sechser", players=6, team_size=2, sevens=True),
    # tournament sheet: half the bid to each opponent on going off and failure,
    # an unreachable bid doubles, tricks rounded to 10, no special games, 12 deals
    "turnier": _preset(
        "turnier",
        going_off_bonus="half_bid",
        failed_bonus="half_bid",
        unreachable_bid_doubles=True,
        round_tricks=True,
        special_values=_NO_SPECIALS,
        end="deals",
        deals=12,
    ),
    # four at the table, the dealer sits out, 30 to each opponent, specials as stars
    "vier_mit_aussetzer": _preset(
        "vier_mit_aussetzer",
        players=4,
        dealer_sits_out=True,
        going_off_bonus="flat 30",
        failed_bonus="flat 30",
        special_tally="stars",
        end="deals",
        deals=12,
    ),
    # two players, the double deck of 40, stock instead of Dabb, melds during play
    "zweier": _preset(
        "zweier",
        players=2,
        open_play=True,
        special_values=_NO_SPECIALS,
        end="after_any_hand",
    ),
    # the Swiss game: 32-card piquet deck, 8 cards each, first to 1000 wins at once
    "schweizer": _preset(
        "schweizer",
        players=2,
        open_play=True,
        deck="piquet",
        family=None,
        double_family=None,
        double_binokel=None,
        gross_binokel=80,
        eight_of_a_kind=None,
        special_values=_NO_SPECIALS,
        end="at_once",
    ),
}

PRESET_DESCRIPTIONS: dict[str, str] = {
    "standard": "The Swabian game: three players, 40 cards, to 1000, 40 each when a game fails",
    "kreuzbinokel": "Four players in two teams, partners opposite",
    "sechser": "Six players in three teams, 48 cards with sevens",
    "turnier": "Tournament: half the bid to opponents, tricks rounded, no specials, 12 deals",
    "vier_mit_aussetzer": "Four at the table, dealer sits out, specials as stars, 12 deals",
    "zweier": "Two players, open play, melds written during the hand",
    "schweizer": "The Swiss game: 32 cards, two players, first to 1000 wins at once",
}
"""One line per preset, in English (the web layer translates it)."""
