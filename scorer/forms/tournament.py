"""The organiser's forms: the tournament (create and settings) and its players.

:class:`TournamentForm` takes the evening (name, date, place), its rounds and
deals, the money (entry fee, lost-game schedule), the tie-break and the
address the phones reach; its house rules are the match setup's fields
(:func:`~scorer.forms.setup.build_rule_fields`) without the options a
tournament fixes (:data:`FIXED_RULES`: tables of three each for themselves, a
fixed number of deals, the deal going round).  :func:`tournament_ruleset`
turns them into the tournament's ruleset; the rules check it.

:class:`PlayerForm` registers (or corrects) a player, :class:`PlayerActionForm`
is a tap on a player's row (present, back, withdrawn, back again),
:class:`ImportForm` a pasted list or a file.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from flask_babel import format_decimal
from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField
from wtforms import BooleanField, Field, HiddenField, SelectField, StringField, TextAreaField
from wtforms.validators import InputRequired, Length, Optional, ValidationError

from ..rules import RulesError, Ruleset
from ..rules.tournament import table_ruleset
from ..rules.tournament import tournament_ruleset as played_in_a_tournament
from ..services.tournaments import entrants, setup
from ..words import fee_schedule, rules_message
from .base import AppForm, WholeNumberField, choice_list, euros_to_cents, key_or_none, printable
from .setup import rule_changes

FIXED_RULES = frozenset(
    {"dealer_sits_out", "end", "target", "deals", "games", "first_dealer", "dealer"}
)
"""House rules a tournament does not offer: its tables, their end and their deal are fixed
(a table of four lets the dealer sit out and plays 4/3 the deals, by the rules)."""

MAX_DEALS = 60
SHORT_DEALS = 9


def fee_text(cents: int) -> str:
    """Cents as the form shows an amount: ``7,50`` (German), ``7.50`` (English)."""
    return str(format_decimal(Decimal(cents) / 100, format="0.00"))


def _rules_check(check: Any) -> Any:
    """A WTForms validator from a rules check: its RulesError in the user's language."""

    def validate(form: Any, field: Field) -> None:
        if field.data is None or field.errors:
            return
        try:
            check(field.data)
        except RulesError as error:
            raise ValidationError(rules_message(error)) from None

    return validate


def _deals_check(deals: int) -> None:
    # a table of four plays 4/3 as many deals: the rules say which numbers can
    table_ruleset(setup.default_ruleset().replace(deals=deals), 4)


def _fee_check(text: str) -> None:
    setup.check_fee_schedule(text or "0")


def _date_check(text: str) -> None:
    setup.check_held_on(text or "")


def _url_check(text: str) -> None:
    setup.check_public_url(text or "")


class TournamentForm(AppForm):
    """A tournament's settings; the house rules are attached by :func:`build_rule_fields`."""

    name = StringField(
        _l("Name of the tournament"),
        [InputRequired(), Length(max=setup.MAX_TOURNAMENT_NAME), printable],
    )
    held_on = StringField(
        _l("Date"), [Optional(), Length(max=10), printable, _rules_check(_date_check)]
    )
    place = StringField(_l("Venue"), [Optional(), Length(max=setup.MAX_PLACE), printable])
    rounds = WholeNumberField(_l("Rounds"), low=1, high=setup.MAX_ROUNDS, required=True, default=3)
    deals = WholeNumberField(
        _l("Deals per round"),
        low=3,
        high=MAX_DEALS,
        required=True,
        default=12,
        description=_l(
            "12 as usual, 9 for a short tournament; a multiple of 3 (a table of four "
            "plays 4/3 as many, the dealer sitting out)"
        ),
    )
    entry_fee = StringField(_l("Entry fee (€)"), [Optional(), Length(max=12), printable])
    fee_schedule = StringField(
        _l("Lost-game money (€)"),
        [Optional(), Length(max=setup.MAX_SCHEDULE), printable, _rules_check(_fee_check)],
        description=_l("the price of a lost game, then “; price from N” from the N-th on; 0: none"),
    )
    # off by default: a village tournament shares places (docs/rules.md section 13); the
    # page offers the two choices as radio buttons, each saying what it means
    tie_break = BooleanField(_l("Equal points"), default=False)
    public_url = StringField(
        _l("Address for the phones"),
        [Optional(), Length(max=setup.MAX_PUBLIC_URL), printable, _rules_check(_url_check)],
        description=_l(
            "only in a hall without internet, with this laptop's own Wi-Fi: its address "
            "there, e.g. http://192.168.4.1:5000; empty: the address this page came from"
        ),
    )
    action = HiddenField()
    idempotency_key = HiddenField(filters=[key_or_none])

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rule_fields: dict[str, Field] = {}

    def validate_entry_fee(self, field: Field) -> None:
        euros_to_cents(field.data)

    def entry_fee_cents(self) -> int:
        return euros_to_cents(self.entry_fee.data)

    def schedule(self) -> str:
        return " ".join((self.fee_schedule.data or "").split()) or "0"

    def fill(self, tournament: Any, ruleset: Ruleset) -> None:
        """Show a tournament's settings (the settings page before anything is posted)."""
        self.name.data = tournament.name
        self.held_on.data = tournament.held_on
        self.place.data = tournament.place
        self.rounds.data = tournament.rounds
        self.deals.data = ruleset.deals
        self.entry_fee.data = fee_text(tournament.entry_fee_cents)
        self.fee_schedule.data = fee_schedule(tournament.fee_schedule)
        self.tie_break.data = tournament.tie_break
        self.public_url.data = tournament.public_url


def tournament_ruleset(form: TournamentForm, base: Ruleset) -> Ruleset:
    """The ruleset (of a table of three) the form describes; RulesError when it is not playable."""
    changes = rule_changes(form.rule_fields, base, FIXED_RULES)
    return played_in_a_tournament(base.replace(**changes), form.deals.data)


# -- the players -------------------------------------------------------------------------


class PlayerForm(AppForm):
    """Register a player at the door (or correct one): name, club or town, household."""

    name = StringField(_l("Name"), [InputRequired(), Length(max=entrants.MAX_NAME), printable])
    club = StringField(_l("Club or town"), [Optional(), Length(max=entrants.MAX_CLUB), printable])
    household = StringField(
        _l("Household"),
        [Optional(), Length(max=entrants.MAX_HOUSEHOLD), printable],
        description=_l("players with the same word here never sit at one table (e.g. Maier)"),
    )
    number = WholeNumberField(_l("Start number"), low=1, high=entrants.MAX_NUMBER)
    action = HiddenField()


PLAYER_ACTIONS: tuple[tuple[str, Any], ...] = (
    ("check_in", _l("present")),
    ("check_out", _l("not present")),
    ("withdraw", _l("withdraw")),
    ("rejoin", _l("back again")),
)


class PlayerActionForm(AppForm):
    """A tap on a player's row; ``number`` only with ``check_in`` (empty: the next free one).

    ``sure`` is "1" once the organiser has answered the question a withdrawal asks
    first ("Wirklich abmelden?"): a mis-tap next to a name acts on nothing.
    """

    action = SelectField(choices=choice_list(PLAYER_ACTIONS))
    number = WholeNumberField(_l("Start number"), low=1, high=entrants.MAX_NUMBER)
    sure = HiddenField()


class EveryonePresentForm(AppForm):
    """Check in every player registered and not present; ``sure``: asked once, answered."""

    sure = HiddenField()


class ImportForm(AppForm):
    """A list of names: pasted (one per line, ``Name; Verein``) or a CSV or Excel file."""

    text = TextAreaField(
        _l("or paste names"),
        [Optional(), Length(max=200_000)],
        description=_l("one player per line; a club or town after a semicolon: Anna Maier; TSV"),
    )
    file = FileField(_l("The club's list: an Excel file (.xlsx) or CSV"))
