"""Money (docs/rules.md section 13): the lost-game fees, the prize fund, the prizes."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache
from math import floor
from typing import TypeVar

from ..errors import RulesError
from ..stakes import MAX_AMOUNT_CENTS

K = TypeVar("K", bound=Hashable)

CENT = Decimal("0.01")


# (ASCII: "٣" or "３" is no digit of a schedule, as of every number field of the app)
_SCHEDULE_PART = re.compile(
    r"\s*€?\s*(?P<amount>[0-9]+(?:[.,][0-9]{1,2})?)\s*€?\s*"
    r"(?:(?:from|ab)\s+(?P<start>[0-9]+))?\s*",
    re.IGNORECASE | re.ASCII,
)

MAX_LOST_GAME_PRICE = Decimal(MAX_AMOUNT_CENTS) / 100
"""The most a lost game can cost (1000 €, the most of any amount the app takes)."""
MAX_LOST_GAME_FROM = 99
"""The latest lost game of a round a price can start from ("from 99")."""


@lru_cache(maxsize=64)
def _schedule(schedule: str) -> tuple[tuple[int, Decimal], ...]:
    """``"0.50; 1.00 from 5"`` as ``((1, 0.50), (5, 1.00))``: from which lost game each price.

    >>> _schedule("0,50; 1,00 ab 5")
    ((1, Decimal('0.50')), (5, Decimal('1.00')))
    >>> _schedule("0.50; 1.00 from ٥")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: ... write its numbers with the digits 0 to 9, ...
    >>> _schedule("0.50; 1.00 from 12345678901234567890")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: ... counts the lost games of a round, from 1 to 99, ...
    """
    malformed = RulesError(
        "'{schedule}' is not a lost-game schedule: write the price of a lost game, then "
        "'; price from N' for the price from the N-th lost game on, e.g. '0.50; 1.00 from 5'",
        schedule=schedule,
    )
    steps: list[tuple[int, Decimal]] = []
    for position, part in enumerate(schedule.split(";")):
        match = _SCHEDULE_PART.fullmatch(part)
        if match is None:
            if any(c.isdigit() and not c.isascii() for c in part):
                raise RulesError(
                    "'{schedule}' is not a lost-game schedule: write its numbers with the "
                    "digits 0 to 9, e.g. '0.50; 1.00 from 5'",
                    schedule=schedule,
                )
            raise malformed
        amount = Decimal(match["amount"].replace(",", "."))
        if amount > MAX_LOST_GAME_PRICE:
            raise RulesError(
                "'{schedule}' is not a lost-game schedule: a lost game costs at most {most} €, "
                "e.g. '0.50; 1.00 from 5'",
                schedule=schedule,
                most=int(MAX_LOST_GAME_PRICE),
            )
        if match["start"] is None:
            if position:
                raise malformed
            start = 1
        else:
            digits = match["start"]
            start = int(digits) if len(digits) <= 4 else MAX_LOST_GAME_FROM + 1
            if not 1 <= start <= MAX_LOST_GAME_FROM:
                raise RulesError(
                    "'{schedule}' is not a lost-game schedule: 'from {start}' counts the lost "
                    "games of a round, from 1 to {most}, e.g. '0.50; 1.00 from 5'",
                    schedule=schedule,
                    start=_shortened(digits),
                    most=MAX_LOST_GAME_FROM,
                )
            if steps and start <= steps[-1][0]:
                raise malformed
        steps.append((start, amount))
    return tuple(steps)


def _shortened(digits: str) -> str:
    """A number as typed, cut short when it is longer than any the schedule takes."""
    return digits if len(digits) <= 12 else digits[:12] + "…"


SCHEDULE_SYNTAX: dict[str, tuple[str, str]] = {"en": (".", "from"), "de": (",", "ab")}
"""How a language writes a lost-game schedule: its decimal mark and its word for "from".

The parser reads both everywhere; :meth:`Schedule.write` writes one.  English is
the stored (canonical) form, so that every backup reads the same."""


@dataclass(frozen=True)
class Schedule:
    """A lost-game schedule (docs/rules.md section 13): the price of each lost game of the
    evening, ``steps`` of (from which lost game, price) — ``"0.50; 1.00 from 5"`` is
    0.50 € each and 1.00 € from the fifth on.  Read once with :meth:`parse` where it is
    made (a form, a stored tournament, a backup); priced with :meth:`fee`.

    >>> Schedule.parse("0,5; 1 ab 5")
    Schedule(steps=((1, Decimal('0.5')), (5, Decimal('1'))))
    >>> str(Schedule.parse("0,5; 1 ab 5"))
    '0.50; 1.00 from 5'
    """

    steps: tuple[tuple[int, Decimal], ...]

    @classmethod
    def parse(cls, text: str) -> Schedule:
        """A schedule as typed, in either language's syntax; :class:`RulesError` naming it
        when it is none (see :func:`lost_game_fee`)."""
        if not isinstance(text, str):
            raise RulesError("'{schedule}' is not a lost-game schedule", schedule=text)
        return cls(_schedule(text))

    def fee(self, lost: int) -> Decimal:
        """What ``lost`` lost games of the evening cost, to the cent.

        >>> DEFAULT_SCHEDULE.fee(4), DEFAULT_SCHEDULE.fee(6)
        (Decimal('2.00'), Decimal('4.00'))
        """
        if not isinstance(lost, int) or isinstance(lost, bool) or lost < 0:
            raise RulesError("'{lost}' is not a number of lost games", lost=lost)
        total = Decimal(0)
        for k, (start, amount) in enumerate(self.steps):
            end = self.steps[k + 1][0] - 1 if k + 1 < len(self.steps) else lost
            games = min(lost, end) - start + 1
            if games > 0:
                total += games * amount
        return total.quantize(CENT)

    def write(self, language: str = "en") -> str:
        """The schedule as ``language`` writes it (:data:`SCHEDULE_SYNTAX`; an unknown
        language English); prices to the cent, a free game as 0.

        >>> DEFAULT_SCHEDULE.write("de")
        '0,50; 1,00 ab 5'
        """
        mark, word = SCHEDULE_SYNTAX.get(language, SCHEDULE_SYNTAX["en"])
        parts = []
        for position, (start, amount) in enumerate(self.steps):
            price = "0" if amount == 0 else f"{amount.quantize(CENT)}".replace(".", mark)
            parts.append(price if position == 0 and start == 1 else f"{price} {word} {start}")
        return "; ".join(parts)

    def __str__(self) -> str:
        """The canonical (English) form, as a tournament keeps it."""
        return self.write("en")


DEFAULT_SCHEDULE = Schedule.parse("0.50; 1.00 from 5")
"""The lost-game money a new tournament starts with (€0.50 a lost game, €1.00 from the fifth)."""


def _read(schedule: str | Schedule) -> Schedule:
    return schedule if isinstance(schedule, Schedule) else Schedule.parse(schedule)


def write_schedule(schedule: str | Schedule, language: str = "en") -> str:
    """A lost-game schedule (in either syntax, or read already) as ``language`` writes it.

    English (``"0.50; 1.00 from 5"``) is the canonical form the tournament keeps;
    another language known to :data:`SCHEDULE_SYNTAX` gets its decimal mark and
    word, an unknown one English.  Prices are written to the cent, a free game as 0.

    >>> write_schedule("0,5; 1 ab 5")
    '0.50; 1.00 from 5'
    >>> write_schedule("0.50; 1.00 from 5", "de")
    '0,50; 1,00 ab 5'
    >>> write_schedule("€ 0 ;0.5 from 3", "fr")
    '0; 0.50 from 3'
    """
    return _read(schedule).write(language)


def lost_game_fee(lost: int, schedule: str | Schedule) -> Decimal:
    """What ``lost`` lost games cost on ``schedule``, to the cent.

    A schedule is the price of a lost game, then ``; price from N`` for the
    price from the N-th lost game on (``ab`` for ``from`` and a decimal comma
    work too).  A first price with ``from N`` makes the games before free.
    Given as text it is read on every call: the app reads it once
    (:meth:`Schedule.parse`) and passes the :class:`Schedule`.

    >>> lost_game_fee(4, "0.50; 1.00 from 5"), lost_game_fee(6, "0.50; 1.00 from 5")
    (Decimal('2.00'), Decimal('4.00'))
    >>> lost_game_fee(3, "1.00")
    Decimal('3.00')
    >>> lost_game_fee(3, "50 cents")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: '50 cents' is not a lost-game schedule: write the price ...
    """
    if not isinstance(schedule, str | Schedule):
        raise RulesError("'{schedule}' is not a lost-game schedule", schedule=schedule)
    if not isinstance(lost, int) or isinstance(lost, bool) or lost < 0:
        raise RulesError("'{lost}' is not a number of lost games", lost=lost)
    return _read(schedule).fee(lost)


def _money(value: object, what: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, Decimal | int):
        raise RulesError("{what} must be a Decimal, not '{value}'", what=what, value=value)
    try:
        amount = Decimal(value)
    except InvalidOperation as error:  # pragma: no cover - Decimal(int) cannot fail
        raise RulesError("{what} is not a number", what=what) from error
    if not amount.is_finite() or amount < 0:
        raise RulesError("{what} must not be negative, not {value}", what=what, value=value)
    return amount


def prizes(fund: Decimal, shares: Sequence[Decimal], places: Mapping[K, int]) -> dict[K, Decimal]:
    """The money prizes: ``shares[i]`` of the ``fund`` for place ``i + 1`` (:func:`place_prizes`).

    Players who share a place (as :func:`rank` gives it) share equally the
    prizes of the places they occupy; the cents that do not divide go one each
    to the first of them in ``places``' order.  The prizes add up to the sum of
    the reached places' prizes: shares of 100 % with every place reached hand
    out the whole fund, to the cent.  Players whose places all lie beyond the
    last share get no entry.

    >>> prizes(Decimal("100"), [Decimal("0.30"), Decimal("0.20"), Decimal("0.15")],
    ...        {"a": 1, "b": 2, "c": 2, "d": 2})
    {'a': Decimal('30.00'), 'b': Decimal('11.67'), 'c': Decimal('11.67'), 'd': Decimal('11.66')}
    >>> prizes(Decimal("275.85"), [Decimal("0.5"), Decimal("0.3"), Decimal("0.2")],
    ...        {"a": 1, "b": 1, "c": 3})
    {'a': Decimal('110.34'), 'b': Decimal('110.34'), 'c': Decimal('55.17')}
    """
    cents = _place_cents(fund, shares)
    if not isinstance(places, Mapping):
        raise RulesError("the places must map players to places")
    groups: defaultdict[int, list[K]] = defaultdict(list)
    for player, place in places.items():
        if not isinstance(place, int) or isinstance(place, bool) or place < 1:
            raise RulesError("'{player}': '{place}' is not a place", player=player, place=place)
        groups[place].append(player)
    result: dict[K, Decimal] = {}
    taken = 0
    for place in sorted(groups):
        tied = groups[place]
        if place <= taken:
            raise RulesError(
                "place {place} is taken by the {count} players before: give the places as "
                "rank gives them (1, 1, 3)",
                place=place,
                count=taken,
            )
        taken = place + len(tied) - 1
        if place > len(cents):
            continue
        pool = sum(cents[place - 1 : taken])
        share, rest = divmod(pool, len(tied))
        for position, player in enumerate(tied):
            result[player] = (share + (1 if position < rest else 0)) * CENT
    return result


MAX_SHARES = 100
"""The most places one prize fund is shared among (a share each)."""

_SHARE_TOKENS = re.compile(r"[;\s]+|,(?=\s|$)")
_SHARE = re.compile(r"[0-9]+(?:[.,][0-9]{1,2})?", re.ASCII)


def _share_tokens(text: str) -> list[str]:
    """The typed shares one by one: ``"30,20,15"`` (several commas, no spaces) is three."""
    tokens: list[str] = []
    for token in _SHARE_TOKENS.split(text.replace("%", " ")):
        if token.count(",") > 1:
            tokens.extend(token.split(","))
        elif token:
            tokens.append(token)
    return [token for token in tokens if token]


def prize_shares(text: str) -> tuple[Decimal, ...]:
    """The organiser's shares of the prize fund, typed in per cent, as fractions of the fund.

    The shares of places 1, 2, 3 … are separated by a semicolon, a space or a
    comma and a space; a comma between digits is a decimal comma (``12,5``),
    unless several of them stand without a space (``30,20,15`` is three
    shares).  A per cent sign may follow each.  Empty text is no shares (no
    money prizes).  Up to two decimals; a negative share, one above 100 %,
    shares adding up to more than 100 % or anything that is no number raise
    :class:`RulesError` naming it.

    >>> prize_shares("30, 20, 15, 10")
    (Decimal('0.3'), Decimal('0.2'), Decimal('0.15'), Decimal('0.1'))
    >>> prize_shares("40 %; 12,5 %; 7.5")
    (Decimal('0.4'), Decimal('0.125'), Decimal('0.075'))
    >>> prize_shares("30,20,15")
    (Decimal('0.3'), Decimal('0.2'), Decimal('0.15'))
    >>> prize_shares("60, 50")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: the shares add up to 110 %, more than the whole fund: ...
    """
    if not isinstance(text, str):
        raise RulesError("'{share}' is not a list of shares", share=text)
    tokens = _share_tokens(text)
    if len(tokens) > MAX_SHARES:
        raise RulesError("at most {most} places share the prize fund", most=MAX_SHARES)
    percents: list[Decimal] = []
    for token in tokens:
        quoted = token if len(token) <= 12 else token[:12] + "…"
        if token.startswith("-") or token.startswith("−"):
            raise RulesError("a share cannot be negative: '{share}'", share=quoted)
        if _SHARE.fullmatch(token) is None:
            raise RulesError(
                "'{share}' is not a share: write the shares of the places in per cent, "
                "e.g. 30, 20, 15, 10",
                share=quoted,
            )
        percent = Decimal(token.replace(",", "."))
        if percent > 100:
            raise RulesError("a share is at most 100 %, not {share} %", share=quoted)
        percents.append(percent)
    return check_shares([(percent / 100).normalize() for percent in percents])


def check_shares(shares: Sequence[Decimal]) -> tuple[Decimal, ...]:
    """The shares of the prize fund as an organiser may set them, else :class:`RulesError`.

    A share is the fraction of the fund for its place: a per cent from 0 to 100
    with at most two decimals (``0.125`` is 12.5 %, ``0.12345`` is no share), at
    most :data:`MAX_SHARES` of them, and together no more than the whole fund.
    What :func:`prize_shares` reads from the typed text, and what the tournament
    keeps (in hundredths of a per cent, which these shares always are).

    >>> check_shares([Decimal("0.3"), Decimal("0.125")])
    (Decimal('0.3'), Decimal('0.125'))
    >>> check_shares([Decimal("0.12345")])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: a share is a per cent with at most two decimals
    >>> check_shares([Decimal("0.6"), Decimal("0.5")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: the shares add up to 110 %, more than the whole fund: ...
    """
    if isinstance(shares, str | bytes) or not isinstance(shares, Sequence):
        raise RulesError("the shares must be a list of fractions of the fund")
    if len(shares) > MAX_SHARES:
        raise RulesError("at most {most} places share the prize fund", most=MAX_SHARES)
    for share in shares:
        if isinstance(share, bool) or not isinstance(share, Decimal | int):
            raise RulesError("'{share}' is not a share", share=share)
        if isinstance(share, Decimal) and not share.is_finite():
            raise RulesError("'{share}' is not a share", share=share)
        if share < 0:
            raise RulesError("a share cannot be negative: '{share}'", share=share)
        if share > 1:
            percent = format((share * 100).normalize(), "f")
            raise RulesError("a share is at most 100 %, not {share} %", share=percent)
        if share * 10_000 != int(share * 10_000):
            raise RulesError("a share is a per cent with at most two decimals")
    total = sum(shares, Decimal(0)) * 100
    if total > 100:
        raise RulesError(
            "the shares add up to {total} %, more than the whole fund: lower them to 100 % at most",
            total=total.normalize().to_eng_string(),
        )
    return tuple(Decimal(share) for share in shares)


def prize_fund(takings: Decimal, keep: Decimal, *, share: bool = False) -> Decimal:
    """What of the ``takings`` meant for the prizes goes to the prize fund, to the cent.

    The organiser keeps ``keep``: an amount (never more than there is), or
    with ``share`` a fraction of the takings (``0.10`` for 10 %).  The fund is
    rounded down to the cent: a fraction of a cent stays in the till.

    >>> prize_fund(Decimal("423.50"), Decimal("0.10"), share=True)
    Decimal('381.15')
    >>> prize_fund(Decimal("300"), Decimal("50")), prize_fund(Decimal("30"), Decimal("50"))
    (Decimal('250.00'), Decimal('0.00'))
    >>> prize_fund(Decimal("0.15"), Decimal("0.5"), share=True)
    Decimal('0.07')
    """
    amount = _money(takings, "the takings")
    kept = _money(keep, "what the organiser keeps")
    if share:
        if kept > 1:
            raise RulesError("the organiser keeps at most 100 %")
        fund = amount * (1 - kept)
    else:
        fund = max(amount - kept, Decimal(0))
    return fund.quantize(CENT, rounding=ROUND_DOWN)


def pick_order(places: Mapping[K, int]) -> list[K]:
    """Who picks a prize from the prize table when: by place, tied players in ``places``' order.

    The app passes the players in start-number order, so of two who share a
    place the lower start number picks first.

    >>> pick_order({"c": 3, "a": 1, "d": 2, "b": 2})
    ['a', 'd', 'b', 'c']
    """
    if not isinstance(places, Mapping):
        raise RulesError("the places must map players to places")
    for player, place in places.items():
        if not isinstance(place, int) or isinstance(place, bool) or place < 1:
            raise RulesError("'{player}': '{place}' is not a place", player=player, place=place)
    return sorted(places, key=lambda player: places[player])


def item_prizes(items: Sequence[str], places: Mapping[K, int]) -> dict[K, str]:
    """The item prizes: the k-th to pick (:func:`pick_order`) gets the k-th item of the list.

    The organiser lists the prize table best first.  A list shorter than the
    players ends the prizes: whoever picks after the last item gets no entry.

    >>> item_prizes(["Schinken", "Wein", "Kalender"], {"a": 1, "b": 2, "c": 2, "d": 4})
    {'a': 'Schinken', 'b': 'Wein', 'c': 'Kalender'}
    """
    if isinstance(items, str | bytes) or not isinstance(items, Sequence):
        raise RulesError("the prizes must be a list of items")
    return dict(zip(pick_order(places), items, strict=False))


def last_place(places: Mapping[K, int]) -> list[K]:
    """The players of the last place (the joke prize's), several when they share it.

    >>> last_place({"a": 1, "b": 2, "c": 3, "d": 3}), last_place({})
    (['c', 'd'], [])
    """
    order = pick_order(places)
    if not order:
        return []
    last = places[order[-1]]
    return [player for player in order if places[player] == last]


def _place_cents(fund: Decimal, shares: Sequence[Decimal]) -> list[int]:
    """Each place's prize in cents (see :func:`place_prizes`), the arguments checked."""
    amount = _money(fund, "the prize fund")
    if isinstance(shares, str | bytes) or not isinstance(shares, Sequence):
        raise RulesError("the shares must be a list of fractions of the fund")
    fractions = [_money(share, f"the share of place {i}") for i, share in enumerate(shares, 1)]
    whole = sum(fractions, Decimal(0))
    if whole > 1:
        raise RulesError(
            "the shares add up to {total}, more than the whole fund: lower them to 1 at most",
            total=whole,
        )
    # in exact fractions of a cent: no rounding of Decimal's context can tip a cent over
    exact = [Fraction(amount) * Fraction(share) * 100 for share in fractions]
    cents = [floor(value) for value in exact]
    left = floor(Fraction(amount) * Fraction(whole) * 100) - sum(cents)
    # fewer cents are left than places were rounded down (each lost less than one)
    for place, value in enumerate(exact):
        if left == 0:
            break
        if value != cents[place]:
            cents[place] += 1
            left -= 1
    return cents


def place_prizes(fund: Decimal, shares: Sequence[Decimal]) -> list[Decimal]:
    """The prize of each place by its share of the ``fund``, to the cent.

    Together the places get the fund times the sum of the shares, rounded
    down to the cent: shares of 100 % hand out the whole fund.  Each place
    gets its share rounded down, and the cents that rounding leaves over go
    one each to the places that lost a fraction of a cent, the better place
    first; so a place's prize is its exact share rounded down or up, never
    more than a cent away.

    >>> place_prizes(Decimal("381.15"), [Decimal("0.3"), Decimal("0.2")])
    [Decimal('114.34'), Decimal('76.23')]
    >>> place_prizes(Decimal("275.85"), [Decimal("0.5"), Decimal("0.3"), Decimal("0.2")])
    [Decimal('137.93'), Decimal('82.75'), Decimal('55.17')]
    """
    return [cents * CENT for cents in _place_cents(fund, shares)]


def round_fees(lost: Sequence[int | None], schedule: str | Schedule) -> tuple[Decimal | None, ...]:
    """What each round's lost games add to a player's lost-game money of the evening.

    The schedule prices the lost games of the whole evening (its step "from
    the fifth" counts the fifth lost game of the evening, whatever the round);
    a round's fee is what its lost games add to those before.  The rounds add
    up to :func:`lost_game_fee` of the evening's total.  ``None`` is a round
    the player did not play (no fee either).

    >>> round_fees([3, None, 3], "0.50; 1.00 from 5")
    (Decimal('1.50'), None, Decimal('2.50'))
    >>> sum(fee for fee in round_fees([3, None, 3], "0.50; 1.00 from 5") if fee)
    Decimal('4.00')
    """
    if isinstance(lost, str | bytes) or not isinstance(lost, Sequence):
        raise RulesError("the lost games must be a list of rounds")
    schedule = _read(schedule)
    fees: list[Decimal | None] = []
    before = 0
    for games in lost:
        if games is None:
            fees.append(None)
            continue
        fees.append(schedule.fee(before + games) - schedule.fee(before))
        before += games
    return tuple(fees)


# -- the series (Binokel-Cup): evenings added up (docs/rules.md section 13) ------------------
