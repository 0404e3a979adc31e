"""The year's numbers in words: every amount with what it is for, the records, the days.

The money page explains each number from the rules' own lines
(:class:`scorer.rules.year.StakeLine`): "3 × 0,10 € für 390 Punkte Rückstand am
6. März".  Nothing is computed here; the words come in the user's language.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from datetime import date
from decimal import Decimal
from functools import lru_cache
from typing import Any

from flask_babel import format_date, get_locale, gettext, ngettext
from flask_babel import lazy_gettext as _l

from ...house_rules import ruleset_line
from ...rules import RulesError, Ruleset
from ...rules.year import EveningMoney, Record, StakeLine
from ...words import STAKE_BASES, money, rules_message, signed

MONEY_MODES: dict[str, Any] = {
    "pay": _l("pay each other"),
    "kitty": _l("into the kitty"),
    "none": _l("no money"),
}
MONEY_SHORT: dict[str, Any] = {
    "pay": _l("to each other"),
    "kitty": _l("kitty"),
    "none": _l("no money"),
}
RANKED_BY: dict[str, Any] = {
    "points": _l("by points"),
    "matches": _l("by matches won"),
    "money": _l("by money won"),
}
RECORD_TITLES: dict[str, Any] = {
    "highest_bid": _l("Highest bid made"),
    "binokel": _l("Most Binokel"),
    "double_binokel": _l("Most Doppelbinokel"),
    "durch": _l("Most Durch won"),
    "run": _l("Longest run of won games"),
    "partners": _l("Best partners (Kreuzbinokel)"),
    "lost_games": _l("Most lost games"),
}
# the parameters of a rules message that are amounts of cents (said as euros)
_CENTS = ("cents", "held", "most")


@lru_cache(maxsize=4096)
def _euros(cents: int, language: str) -> str:
    return money(cents)


def euros(cents: int) -> str:
    """:func:`scorer.words.money`, kept per amount and language: the money page says a
    year's thousands of amounts, a few dozen different ones (Babel's formatting of each
    was most of the page's time)."""
    return _euros(cents, str(get_locale()))


def day_short(day: date) -> str:
    """A day as the money page says it: "14. März" (its year is the page's)."""
    return str(format_date(day, gettext("d MMMM")))


def day_long(day: date) -> str:
    """A day with its year: "14.03.2025"."""
    return str(format_date(day, "medium"))


def money_message(error: RulesError) -> str:
    """A refusal of the year's rules with its amounts said as euros."""
    params = dict(error.params)
    for key in _CENTS:
        cents = params.get(key)
        if isinstance(cents, int):
            params[key] = money(cents)
    day = params.get("day")
    if isinstance(day, str):
        with contextlib.suppress(ValueError):
            params["day"] = day_long(date.fromisoformat(day))
    return rules_message(RulesError(error.template, **params))


def stake_line(line: StakeLine, night: EveningMoney, winners: str) -> str:
    """What one match's result is worth to one player, in words.

    A loser: "3 × 0,10 € für 390 Punkte Rückstand auf Anna"; a winner: "+0,90 € als
    Sieger"; into the kitty the same amounts go "in die Kasse".  ``winners``: the
    winners' names as the line says them.
    """
    amount = euros(abs(line.cents))
    kitty = night.money == "kitty"
    if line.winner:
        if kitty:
            return gettext("won: nothing to pay")
        return gettext("%(amount)s as the winner", amount=signed_money(line.cents))
    stake = euros(night.stake_cents)
    if night.basis == "per_game":
        text = gettext("%(stake)s for the match lost to %(winners)s", stake=stake, winners=winners)
    elif night.basis == "exact":
        text = gettext(
            "%(behind)s points behind %(winners)s × %(stake)s a hundred = %(amount)s",
            behind=line.behind,
            winners=winners,
            stake=stake,
            amount=amount,
        )
    elif not line.hundreds:
        text = gettext(
            "nothing: only %(behind)s points behind %(winners)s",
            behind=line.behind,
            winners=winners,
        )
    else:
        text = gettext(
            "%(count)s × %(stake)s for %(behind)s points behind %(winners)s",
            count=line.hundreds,
            stake=stake,
            behind=line.behind,
            winners=winners,
        )
    if kitty and line.cents:
        return gettext("%(what)s, into the kitty", what=text)
    return text


def evening_total(night: EveningMoney, person: str) -> int:
    """A person's amount of an evening: his balance (paying each other) or minus his dues."""
    return night.won.get(person, 0)


def record_value(record: Record) -> str:
    """A record's value in words: "350", "3 ×", "5 games in a row"."""
    if record.kind == "highest_bid":
        return gettext("bid %(bid)s", bid=record.value)
    if record.kind == "run":
        return ngettext("%(num)s game in a row", "%(num)s games in a row", record.value)
    if record.kind == "partners":
        return ngettext("%(num)s match won together", "%(num)s matches won together", record.value)
    if record.kind == "lost_games":
        return ngettext("%(num)s lost game", "%(num)s lost games", record.value)
    return gettext("%(count)s ×", count=record.value)


def names_of(people: tuple[str, ...], name: Callable[[str], str]) -> str:
    """One holder's people: "Anna" or "Anna & Carla"."""
    return " & ".join(name(p) for p in people)


def signed_money(cents: int) -> str:
    """An amount with its sign: "+0,60 €", "−0,60 €", "0,00 €"."""
    return ("+" if cents > 0 else "") + euros(cents)


def points(value: int) -> str:
    """Points as the sheet writes them."""
    return signed(value)


def cell_text(value: Any) -> str:
    """A cell of the year's tables as the PDF prints it: euros as money, numbers as the
    sheet writes them (a loss in brackets), text as it is."""
    if isinstance(value, Decimal):
        return euros(int(value * 100))
    if isinstance(value, int) and not isinstance(value, bool):
        return signed(value)
    return "" if value is None else str(value)


def word_filters() -> Mapping[str, Callable[..., str]]:
    """The filters the year's templates use."""
    return {
        "day_short": day_short,
        "day_long": day_long,
        "signed_money": signed_money,
        "cell": cell_text,
    }


def stake_basis_text(basis: str) -> str:
    """What the stake is per, as the setup form says it ("per full 100")."""
    return str(STAKE_BASES.get(basis, basis))


def money_mode_text(mode: str) -> str:
    """How an evening's money is kept, in words."""
    return str(MONEY_MODES.get(mode, mode))


def rules_line_of(year: Any) -> str:
    """A year's house rules in one line (the preset and what differs)."""
    return ruleset_line(Ruleset.from_dict(year.ruleset))


def template_words() -> dict[str, Callable[..., Any]]:
    """The functions the year's templates call."""
    return {
        "record_value": record_value,
        "names_of": names_of,
        "stake_basis_text": stake_basis_text,
        "money_modes_text": money_mode_text,
        "rules_line_of": rules_line_of,
    }
