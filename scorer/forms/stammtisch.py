"""The Stammtisch's forms (docs/rules.md section 14): the group, tonight's table, the money taps.

Fields parse what was typed into plain values (names, cents, days, the rules of
the house rules' fields); the use cases check them against the group.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    Field,
    FieldList,
    Form,
    FormField,
    HiddenField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import InputRequired, Length, Optional, ValidationError

from ..house_rules import PRESET_LABELS
from ..rules import MAX_PLAYERS, PRESETS, RulesError, Ruleset
from ..rules.year import MAX_PAYMENT_CENTS, SeasonStart
from ..services import storable
from ..words import rules_message
from .base import AppForm, WholeNumberField, choice_list, euros_to_cents, key_or_none, printable
from .setup import rule_changes, stake_basis_field

MONEY_CHOICES: tuple[tuple[str, Any], ...] = (
    ("pay", _l("Pay each other")),
    ("kitty", _l("Into the kitty")),
    ("none", _l("No money")),
)
RANKING_CHOICES: tuple[tuple[str, Any], ...] = (
    ("points", _l("Points")),
    ("matches", _l("Matches won")),
    ("money", _l("Money won")),
)
GUEST_SEATS = 3
"""Guests a form offers at once (a fourth one is rare; a second evening takes him)."""
MAX_SEAT = MAX_PLAYERS

_DAY = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})|(\d{4})-(\d{1,2})-(\d{1,2})", re.ASCII)
_AMOUNT = re.compile(r"[0-9]{1,9}(?:[.,][0-9]{0,2})?", re.ASCII)


def payout_cents(text: str | None) -> int:
    """An amount of euros as typed (``12,50``, ``12.5 €``) in cents, up to the most a payment
    may be; ValidationError for anything else.

    >>> payout_cents("12,50"), payout_cents(" 7 € ")
    (1250, 700)
    """
    cleaned = (text or "").strip().replace("€", "").replace(" ", "")
    if not _AMOUNT.fullmatch(cleaned):
        raise ValidationError(_l("Enter an amount like 12,50"))
    cents = int((Decimal(cleaned.replace(",", ".")) * 100).quantize(Decimal(1), ROUND_HALF_UP))
    if not 0 < cents <= MAX_PAYMENT_CENTS:
        raise ValidationError(
            _l("Enter an amount between 0,01 and %(most)s €", most=MAX_PAYMENT_CENTS // 100)
        )
    return cents


def read_day(text: str | None) -> date:
    """A day as typed (``14.03.2025`` or ``2025-03-14``); ValidationError for anything else.

    >>> read_day("14.3.2025"), read_day("2025-03-14")
    (datetime.date(2025, 3, 14), datetime.date(2025, 3, 14))
    """
    found = _DAY.fullmatch((text or "").strip())
    if found is None:
        raise ValidationError(_l("Enter a day like 14.03.2025"))
    if found.group(1):
        day, month, year = (int(found.group(i)) for i in (1, 2, 3))
    else:
        year, month, day = (int(found.group(i)) for i in (4, 5, 6))
    try:
        return date(year, month, day)
    except ValueError:
        raise ValidationError(_l("Enter a day like 14.03.2025")) from None


def printable_lines(form: Any, field: Field) -> None:
    """:func:`printable` for a list typed one a line: line breaks allowed, nothing else."""
    if isinstance(field.data, str) and not storable(field.data, line_breaks=True):
        raise ValidationError(_l("This field may not contain control characters."))


def member_names(text: str | None) -> list[str]:
    """The names of a list typed one a line (or separated by commas)."""
    return [n.strip() for n in re.split(r"[\n,;]", text or "") if n.strip()]


class _GroupFields(AppForm):
    """What the group and its settings page share: the name, the season, the house rules,
    the stakes, how money is kept and what ranks."""

    name = StringField(_l("Name of the Stammtisch"), [InputRequired(), Length(max=80), printable])
    season_start = StringField(
        _l("The year begins on"),
        [Optional(), Length(max=10), printable],
        default="1.1.",
        description=_l("1.1. for the calendar year; 1.9. for a season from September."),
    )
    preset = SelectField(_l("Preset"), default="standard")
    teams = BooleanField(_l("Play in teams of two (partners opposite)"))
    stake = StringField(_l("Stake (€)"), [Optional(), Length(max=10), printable])
    stake_basis = stake_basis_field()
    money_mode = SelectField(
        _l("Money"),
        choices=choice_list(MONEY_CHOICES),
        default="pay",
        description=_l(
            "Pay each other: what is not paid on the night stays open until paid. Into the "
            "kitty: the losers pay the Kasse, for the annual outing."
        ),
    )
    ranking_by = SelectField(
        _l("The year is ranked by"), choices=choice_list(RANKING_CHOICES), default="points"
    )
    action = HiddenField()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.preset.choices = choice_list((k, PRESET_LABELS[k]) for k in PRESETS)
        self.rule_fields: dict[str, Field] = {}

    def validate_stake(self, field: Field) -> None:
        euros_to_cents(field.data)

    def validate_season_start(self, field: Field) -> None:
        try:
            SeasonStart.parse(field.data or "1.1.")
        except RulesError as exc:
            raise ValidationError(rules_message(exc)) from None

    def stake_cents(self) -> int:
        return euros_to_cents(self.stake.data)

    def season(self) -> str:
        return str(SeasonStart.parse(self.season_start.data or "1.1."))

    def ruleset(self) -> Ruleset:
        """The house rules the fields describe, for the preset's table (teams as ticked)."""
        base = PRESETS.get(self.preset.data or "standard", PRESETS["standard"])
        changes = rule_changes(self.rule_fields, base)
        changes["team_size"] = 2 if self.teams.data else 1
        if self.teams.data and base.players % 2:
            changes["players"] = base.players + 1
        return base.replace(**changes)


class GroupForm(_GroupFields):
    """A new Stammtisch: its name, members and table."""

    members = TextAreaField(
        _l("Members"),
        [InputRequired(), Length(max=1500), printable_lines],
        description=_l("One name a line, in the order you usually sit."),
    )
    idempotency_key = HiddenField(filters=[key_or_none])

    def member_list(self) -> list[str]:
        return member_names(self.members.data)


class SettingsForm(_GroupFields):
    """The group's settings: the current year's rules, stakes, money and ranking."""


class SeatLine(Form):
    """A member offered for tonight: here or not, and where he sits."""

    person = HiddenField()
    here = BooleanField(_l("here"))
    seat = SelectField(
        _l("Seat"),
        choices=choice_list([("", "–"), *((str(n), str(n)) for n in range(1, MAX_SEAT + 1))]),
        validate_choice=False,
    )


class GuestLine(Form):
    """A guest tonight: his name and where he sits."""

    name = StringField(_l("Guest"), [Optional(), Length(max=40), printable])
    seat = SelectField(
        _l("Seat"),
        choices=choice_list([("", "–"), *((str(n), str(n)) for n in range(1, MAX_SEAT + 1))]),
        validate_choice=False,
    )


class EveningForm(AppForm):
    """Tonight's table: who is here, where everybody sits, who deals first."""

    members = FieldList(FormField(SeatLine), max_entries=40)
    guests = FieldList(FormField(GuestLine), min_entries=GUEST_SEATS, max_entries=GUEST_SEATS)
    teams = BooleanField(_l("Play in teams of two (partners opposite)"))
    dealer_sits_out = BooleanField(_l("The dealer sits out (four or five at the table)"))
    first_dealer = SelectField(
        _l("Deals first"),
        choices=choice_list((str(n), str(n)) for n in range(1, MAX_SEAT + 1)),
        default="1",
        validate_choice=False,
    )
    idempotency_key = HiddenField(filters=[key_or_none])

    def table(self) -> list[tuple[int | None, str | None]]:
        """Tonight's seats in order: ``(person id, None)`` for a member, ``(None, name)`` for
        a guest.  A chosen seat number places a person; the others follow in the list's
        order.  ValidationError when two people are given the same seat."""
        placed: dict[int, tuple[int | None, str | None]] = {}
        rest: list[tuple[int | None, str | None]] = []
        entries: list[tuple[str, tuple[int | None, str | None]]] = []
        for line in self.members:
            person = str(line.form.person.data or "")
            if line.form.here.data and person.isdigit() and len(person) < 10:
                entries.append((line.form.seat.data or "", (int(person), None)))
        for line in self.guests:
            name = (line.form.name.data or "").strip()
            if name:
                entries.append((line.form.seat.data or "", (None, name)))
        for seat, who in entries:
            if seat.isdigit() and 1 <= int(seat) <= MAX_SEAT:
                if int(seat) in placed:
                    raise ValidationError(_l("Two people were given seat %(seat)s.", seat=seat))
                placed[int(seat)] = who
            else:
                rest.append(who)
        order: list[tuple[int | None, str | None]] = []
        for number in range(1, MAX_SEAT + len(entries) + 1):
            if number in placed:
                order.append(placed[number])
            elif rest:
                order.append(rest.pop(0))
        return order + rest

    def dealer(self) -> int:
        value = self.first_dealer.data or "1"
        return int(value) - 1 if value.isdigit() and 1 <= int(value) <= MAX_SEAT else 0


class MemberForm(AppForm):
    """A new member, or a person's new name."""

    name = StringField(_l("Name"), [InputRequired(), Length(max=40), printable])


class TapForm(AppForm):
    """A "bezahlt" tap: who paid whom (or the kitty) how much, on which evening's night.

    ``key`` makes a tap sent twice one payment.
    """

    payer = WholeNumberField(low=1, high=2**31 - 1, required=True)
    payee = WholeNumberField(low=1, high=2**31 - 1)
    cents = WholeNumberField(low=1, high=MAX_PAYMENT_CENTS, required=True)
    evening = WholeNumberField(low=1, high=2**31 - 1)
    key = HiddenField(filters=[key_or_none])


class PayoutForm(AppForm):
    """A payout from the kitty: how much, when, what for."""

    amount = StringField(_l("Amount (€)"), [InputRequired(), Length(max=14), printable])
    day = StringField(_l("Day"), [InputRequired(), Length(max=10), printable])
    note = StringField(
        _l("What for"), [InputRequired(), Length(max=80), printable], description=_l("e.g. Ausflug")
    )
    version = WholeNumberField(low=0, high=2**31 - 1)
    key = HiddenField(filters=[key_or_none])

    def validate_amount(self, field: Field) -> None:
        payout_cents(field.data)

    def validate_day(self, field: Field) -> None:
        read_day(field.data)


class StrikeForm(AppForm):
    """Striking a payment tapped by mistake (its CSRF token)."""


class NewYearForm(AppForm):
    """ "Neues Jahr": the year it was tapped in (two taps make one year)."""

    after = WholeNumberField(low=1, high=10_000, required=True)


class RestoreForm(AppForm):
    """A group's backup file."""

    file = FileField(_l("Backup file"), [FileRequired(_l("Choose a backup file."))])
