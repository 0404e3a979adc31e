"""Suits, ranks and cards in the notation of docs/rules.md section 2.

A card is written suit then rank: ``GO`` is Grün-Ober, ``H10`` Herz-Zehn.

>>> parse_cards("EA e10 GO,SU")
[Card.parse('EA'), Card.parse('E10'), Card.parse('GO'), Card.parse('SU')]
>>> str(Card.parse("h10"))
'H10'
>>> Card.parse("GO").german
'Grün-Ober'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from .errors import CardError


class Suit(StrEnum):
    """The four German suits; the value is the notation letter."""

    E = "E"
    G = "G"
    H = "H"
    S = "S"

    @property
    def german(self) -> str:
        """The suit's German name, as the table says it."""
        return _SUIT_NAMES[self]

    @classmethod
    def parse(cls, text: str | Suit) -> Suit:
        """A suit from its letter (any case) or its German name.

        >>> Suit.parse("h"), Suit.parse("Grün")
        (<Suit.H: 'H'>, <Suit.G: 'G'>)
        """
        if isinstance(text, Suit):
            return text
        key = str(text).strip()
        for suit in cls:
            if key.upper() == suit.value or key.lower() == suit.german.lower():
                return suit
        raise CardError(
            "'{text}' is not a suit: use E (Eichel), G (Grün), H (Herz) or S (Schellen)",
            text=text,
        )


_SUIT_NAMES = {Suit.E: "Eichel", Suit.G: "Grün", Suit.H: "Herz", Suit.S: "Schellen"}


class Rank(StrEnum):
    """Ranks, highest first; the value is the notation."""

    A = "A"
    TEN = "10"
    K = "K"
    O = "O"  # noqa: E741 - the Ober is written O on every Binokel sheet
    U = "U"
    NINE = "9"
    EIGHT = "8"
    SEVEN = "7"

    @property
    def points(self) -> int:
        """Card points: A 11, 10 10, K 4, O 3, U 2, 9/8/7 nothing."""
        return _RANK_POINTS[self]

    @property
    def german(self) -> str:
        """The rank's German name."""
        return _RANK_NAMES[self]

    @classmethod
    def parse(cls, text: str | Rank) -> Rank:
        """A rank from its notation (any case).

        >>> Rank.parse("10"), Rank.parse("k")
        (<Rank.TEN: '10'>, <Rank.K: 'K'>)
        """
        if isinstance(text, Rank):
            return text
        key = str(text).strip().upper()
        for rank in cls:
            if key == rank.value:
                return rank
        raise CardError("'{text}' is not a rank: use A, 10, K, O, U or 7", text=text)


_RANK_POINTS = {
    Rank.A: 11,
    Rank.TEN: 10,
    Rank.K: 4,
    Rank.O: 3,
    Rank.U: 2,
    Rank.NINE: 0,
    Rank.EIGHT: 0,
    Rank.SEVEN: 0,
}
_RANK_NAMES = {
    Rank.A: "Daus",
    Rank.TEN: "Zehn",
    Rank.K: "König",
    Rank.O: "Ober",
    Rank.U: "Unter",
    Rank.NINE: "Neun",
    Rank.EIGHT: "Acht",
    Rank.SEVEN: "Sieben",
}

_CARD_RE = re.compile(r"^([EGHS])(A|10|K|O|U|9|8|7)$", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,;]+")


@dataclass(frozen=True, order=True)
class Card:
    """One card; every card exists twice in the Binokel deck."""

    suit: Suit
    rank: Rank

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """A card from its notation, case-insensitive.

        >>> Card.parse("sU")
        Card.parse('SU')
        """
        if isinstance(text, Card):
            return text
        token = str(text).strip()
        match = _CARD_RE.match(token)
        if match is None:
            raise CardError(
                "'{token}' is not a card: write the suit (E, G, H, S) "
                "then the rank (A, 10, K, O, U, 7), e.g. GO or H10",
                token=token,
            )
        return cls(Suit(match.group(1).upper()), Rank(match.group(2).upper()))

    @property
    def points(self) -> int:
        """The card's trick points."""
        return self.rank.points

    @property
    def german(self) -> str:
        """The German name, e.g. ``Herz-König``."""
        return f"{self.suit.german}-{self.rank.german}"

    def __str__(self) -> str:
        return f"{self.suit.value}{self.rank.value}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


def parse_cards(text: str | Iterable[str | Card]) -> list[Card]:
    """Cards from a string (separated by spaces, commas or semicolons) or an iterable.

    >>> parse_cards(["GO", "su"])
    [Card.parse('GO'), Card.parse('SU')]
    >>> parse_cards("GO HX")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.CardError: 'HX' is not a card: write the suit (E, G, H, S) then the rank ...
    """
    if isinstance(text, str):
        tokens: list[str | Card] = [t for t in _SEPARATORS.split(text) if t]
    else:
        tokens = list(text)
    return [Card.parse(token) for token in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """The canonical notation of several cards, space separated.

    >>> format_cards(parse_cards("ga g10"))
    'GA G10'
    """
    return " ".join(str(card) for card in cards)
