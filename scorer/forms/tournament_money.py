"""The organiser's money forms: a tap "paid" at the cash desk, and the prize settings.

:class:`PaidForm` carries the amount the page showed, so a tap on an amount
that changed since is told.  :class:`PrizeForm` reads what the organiser keeps
("50" euros or "10 %"), where the lost-game money goes, and the prizes: the
shares of the fund in per cent (the rules' ``prize_shares`` reads them), or a
prize table one item per line, and the joke prize of the last place.  Junk,
NUL bytes, 10**309 and a list of thousands of lines are refused in the user's
language; what was typed stays in the form.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from flask_babel import format_decimal
from flask_babel import lazy_gettext as _l
from wtforms import BooleanField, Field, RadioField, SelectField, StringField, TextAreaField
from wtforms.validators import Length, Optional, ValidationError

from ..rules import RulesError
from ..rules.tournament import prize_shares
from ..services import storable
from ..services.tournaments.money import (
    MAX_ITEM,
    MAX_KEEP_CENTS,
    MAX_PRIZE_ITEMS,
    PrizeSettings,
)
from ..words import rules_message
from .base import AppForm, WholeNumberField, choice_list, printable

MAX_OWED_CENTS = 10**9
"""No player owes more (a number beyond it is junk, refused as out of range)."""

PAID_ACTIONS = (("paid", _l("paid")), ("unpaid", _l("not paid")))
PRIZE_MODES = (("money", _l("Money: shares of the prize fund")), ("items", _l("Item prizes")))

# an amount or a percentage as people type it: digits, a decimal comma or point, two decimals
_NUMBER = re.compile(r"[0-9]+(?:[.,][0-9]{1,2})?", re.ASCII)


class PaidForm(AppForm):
    """A tap on a player's line: ``paid`` (with the amount shown) or ``not paid``."""

    action = SelectField(choices=choice_list(PAID_ACTIONS))
    cents = WholeNumberField(low=0, high=MAX_OWED_CENTS)

    def validate(self, extra_validators: Any = None) -> bool:
        """Valid when the action is known and a "paid" carries the amount it was for."""
        valid = bool(super().validate(extra_validators))
        if valid and self.action.data == "paid" and self.cents.data is None:
            self.cents.errors = [*self.cents.errors, str(_l("Enter the amount paid."))]
            return False
        return valid


def keep_of(text: str | None) -> tuple[str, int]:
    """What the organiser keeps as typed: ``("amount", cents)`` or ``("percent", hundredths)``.

    >>> keep_of("50"), keep_of("12,5 %"), keep_of(" "), keep_of("7.50 €")
    (('amount', 5000), ('percent', 1250), ('amount', 0), ('amount', 750))
    """
    cleaned = (text or "").strip().replace("€", "").replace(" ", "")
    percent = cleaned.endswith("%")
    cleaned = cleaned.removesuffix("%")
    if not cleaned:
        return ("percent" if percent else "amount"), 0
    if not _NUMBER.fullmatch(cleaned):
        raise ValidationError(_l("Enter an amount in euros like 50, or a percentage like 10 %."))
    value = Decimal(cleaned.replace(",", "."))
    if percent:
        if value > 100:
            raise ValidationError(_l("A percentage is at most 100 %."))
        return "percent", int(value * 100)
    if value * 100 > MAX_KEEP_CENTS:
        raise ValidationError(_l("Enter an amount up to %(most)s €.", most=MAX_KEEP_CENTS // 100))
    return "amount", int(value * 100)


def keep_text(kind: str, value: int) -> str:
    """What the organiser keeps as the form shows it: ``50,00`` or ``12,5 %``."""
    if kind == "percent":
        return f"{format_decimal(Decimal(value) / 100, format='0.##')} %"
    return str(format_decimal(Decimal(value) / 100, format="0.00")) if value else ""


def shares_text(shares: tuple[Decimal, ...]) -> str:
    """The shares as the form shows them (per cent): ``30, 20, 12,5``."""
    return ", ".join(str(format_decimal(share * 100, format="0.##")) for share in shares)


def item_lines(text: str | None) -> list[str]:
    """The prize table's items, one per line, blank lines left out."""
    return [" ".join(line.split()) for line in (text or "").splitlines() if line.strip()]


class PrizeForm(AppForm):
    """The money settings and the prizes (one form: they make one prize list)."""

    keep = StringField(
        _l("The organiser keeps"),
        [Optional(), Length(max=20), printable],
        description=_l(
            "an amount in euros (50) or a percentage (10 %) of the takings; empty: nothing"
        ),
    )
    lost_to_fund = BooleanField(_l("The lost-game money goes to the prize fund"), default=True)
    mode = RadioField(_l("Prizes"), choices=choice_list(PRIZE_MODES), default="money")
    shares = StringField(
        _l("Shares of the prize fund in %"),
        [Optional(), Length(max=400), printable],
        description=_l("per place, the winner first, e.g. 30, 20, 15, 10"),
    )
    items = TextAreaField(
        _l("Item prizes"),
        description=_l("one per line, the best first: place 1 picks first"),
    )
    joke = StringField(
        _l("Joke prize for the last place"),
        [Optional(), Length(max=MAX_ITEM), printable],
        description=_l("optional, e.g. a bag of onions"),
    )

    def validate_keep(self, field: Field) -> None:
        keep_of(field.data)

    def validate_shares(self, field: Field) -> None:
        try:
            prize_shares(field.data or "")
        except RulesError as error:
            raise ValidationError(rules_message(error)) from None

    def validate_items(self, field: Field) -> None:
        # the request's size limit (MAX_CONTENT_LENGTH) bounds the text read here
        lines = item_lines(field.data)
        if len(lines) > MAX_PRIZE_ITEMS:
            raise ValidationError(
                _l(
                    "At most %(most)s prizes, one per line: this list has %(count)s.",
                    most=MAX_PRIZE_ITEMS,
                    count=len(lines),
                )
            )
        for number, line in enumerate(lines, start=1):
            if not storable(line):
                raise ValidationError(
                    _l("Prize %(number)s holds control characters.", number=number)
                )
            if len(line) > MAX_ITEM:
                raise ValidationError(
                    _l(
                        "Prize %(number)s is longer than %(most)s characters.",
                        number=number,
                        most=MAX_ITEM,
                    )
                )

    def fill(self, settings: PrizeSettings) -> None:
        """Show the stored settings (the page before anything is posted)."""
        self.keep.data = keep_text(settings.keep_kind, settings.keep_value)
        self.lost_to_fund.data = settings.lost_to_fund
        self.mode.data = settings.mode
        self.shares.data = shares_text(settings.shares)
        self.items.data = "\n".join(settings.items)
        self.joke.data = settings.joke

    def settings(self) -> PrizeSettings:
        """The settings the form holds (after ``validate``)."""
        kind, value = keep_of(self.keep.data)
        return PrizeSettings(
            keep_kind=kind,
            keep_value=value,
            lost_to_fund=bool(self.lost_to_fund.data),
            mode=self.mode.data if self.mode.data in ("money", "items") else "money",
            shares=prize_shares(self.shares.data or ""),
            items=tuple(item_lines(self.items.data)),
            joke=" ".join((self.joke.data or "").split()),
        )
