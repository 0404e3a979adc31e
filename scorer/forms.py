"""WTForms for the score sheet.  Fields parse into rules types; no database writes.

Every form is a ``FlaskForm`` (CSRF).  A ``RulesError`` found while parsing
becomes a form error in the user's language, never a 500.  The hand form of a
match is built here too (:func:`hand_form`), for the views and for the cached
empty form (:mod:`scorer.cache`) alike.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Any

from babel.support import NullTranslations, Translations
from flask import current_app
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from werkzeug.datastructures import MultiDict
from wtforms import (
    BooleanField,
    Field,
    FieldList,
    Form,
    FormField,
    HiddenField,
    IntegerField,
    RadioField,
    SelectField,
    StringField,
)
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from .models import Hand, Match
from .rules import (
    PRESETS,
    SPECIAL_GAMES,
    RulesError,
    Ruleset,
    check_bid,
    check_table,
)
from .services import HandInput, Sheet, clean_name, input_of, storable
from .words import OUTCOME_CHOICES, SUITS, rules_message

try:
    from wtforms.fields.choices import SelectChoice as _SelectChoice
except ImportError:  # WTForms < 3.3 takes (value, label) tuples
    _SelectChoice = None

MAX_POINTS = 10_000


@lru_cache(maxsize=8)
def _wtforms_translations(locale: str) -> Translations | NullTranslations:
    from wtforms.i18n import messages_path

    return Translations.load(messages_path(), [locale], domain="wtforms")


class AppForm(FlaskForm):
    """A ``FlaskForm`` whose WTForms messages are read once per language, not per request.

    (Flask-WTF parses WTForms' catalogue again for every request that builds a form.)
    """

    class Meta(FlaskForm.Meta):
        def get_translations(self, form: Any) -> Any:
            if not current_app.config.get("WTF_I18N_ENABLED", True):
                return super().get_translations(form)
            return _wtforms_translations(str(get_locale()))


def choice_list(pairs: Iterable[tuple[str, Any]]) -> list[Any]:
    """Choices for a SelectField or RadioField from ``(value, label)`` pairs.

    WTForms 3.3 deprecates tuples (a DeprecationWarning, an error under
    ``filterwarnings = error``) in favour of ``SelectChoice``; older versions
    only know tuples.  Templates iterate ``field.iter_choices()``, which
    yields ``(value, label, selected, render_kw)`` in both.
    """
    if _SelectChoice is None:
        return list(pairs)
    return [_SelectChoice(value, label) for value, label in pairs]


def choice_values(choices: Iterable[Any] | None) -> list[str]:
    """The values of a field's choices, whether pairs or ``SelectChoice``."""
    return [c.value if hasattr(c, "value") else c[0] for c in choices or ()]


# -- the house rules: one row per Ruleset option, with its one-line explanation ----


@dataclass(frozen=True)
class RuleOption:
    """A ruleset option as the setup form and the rules page show it."""

    name: str
    kind: str  # "int", "optional_int", "bool", "choice"
    label: Any
    help: Any
    choices: tuple[tuple[str, Any], ...] = ()
    group: str = "melds"


BONUS_HELP = _l("what each opposing party gets besides its melds")

RULE_OPTIONS: tuple[RuleOption, ...] = (
    RuleOption(
        "sevens",
        "bool",
        _l("Play with sevens"),
        _l("48 cards: the trump seven (Diss) is a meld"),
        group="cards",
    ),
    RuleOption(
        "last_trick",
        "int",
        _l("Last trick"),
        _l("points for the last trick (a hand has 240 + this)"),
        group="cards",
    ),
    RuleOption(
        "min_bid",
        "int",
        _l("Minimum bid"),
        _l("the lowest bid; if everybody passes, Vorhand plays it"),
        group="bidding",
    ),
    RuleOption(
        "bid_step", "int", _l("Bid step"), _l("bids go up in steps of this"), group="bidding"
    ),
    RuleOption("pair", "int", _l("Pair"), _l("König + Ober of a suit")),
    RuleOption("trump_pair", "int", _l("Trump pair"), _l("König + Ober of trump")),
    RuleOption(
        "family",
        "optional_int",
        _l("Family"),
        _l("Daus, Zehn, König, Ober, Unter of a suit; empty: no meld"),
    ),
    RuleOption("trump_family", "int", _l("Trump family"), _l("the family in trump")),
    RuleOption(
        "double_family",
        "optional_int",
        _l("Double family"),
        _l("both families of a suit; empty: counts as two families"),
    ),
    RuleOption("binokel", "int", _l("Binokel"), _l("Grün-Ober + Schellen-Unter")),
    RuleOption(
        "double_binokel",
        "optional_int",
        _l("Double Binokel"),
        _l("both Grün-Ober and both Schellen-Unter; empty: two Binokel"),
    ),
    RuleOption("four_aces", "int", _l("Four aces"), _l("one Daus of every suit")),
    RuleOption(
        "four_tens", "optional_int", _l("Four tens"), _l("one Zehn of every suit; empty: no meld")
    ),
    RuleOption("four_kings", "int", _l("Four kings"), _l("one König of every suit")),
    RuleOption("four_obers", "int", _l("Four Ober"), _l("one Ober of every suit")),
    RuleOption("four_unters", "int", _l("Four Unter"), _l("one Unter of every suit")),
    RuleOption(
        "eight_of_a_kind",
        "optional_int",
        _l("Eight of a kind (Achterle)"),
        _l("both cards of a rank in every suit; empty: two fours"),
    ),
    RuleOption("diss", "int", _l("Diss"), _l("per trump seven (only with sevens)")),
    RuleOption(
        "failed_multiplier",
        "int",
        _l("Failed: multiplier"),
        _l("a failed declarer pays this × the bid …"),
        group="failing",
    ),
    RuleOption(
        "failed_extra",
        "int",
        _l("Failed: extra"),
        _l("… plus this (1 and 100 give −(bid + 100))"),
        group="failing",
    ),
    RuleOption(
        "failed_bonus", "choice", _l("Failed: bonus to opponents"), BONUS_HELP, group="failing"
    ),
    RuleOption(
        "going_off_bonus",
        "choice",
        _l("Going off: bonus to opponents"),
        BONUS_HELP,
        group="failing",
    ),
    RuleOption(
        "unreachable_bid_doubles",
        "bool",
        _l("Unreachable bid doubles"),
        _l("going off with a bid above melds + 250 costs twice the bid"),
        group="failing",
    ),
    RuleOption(
        "round_tricks",
        "bool",
        _l("Round trick points"),
        _l("credit trick points rounded to 10 (made or failed still on exact points)"),
        group="failing",
    ),
    RuleOption(
        "durch",
        "optional_int",
        _l("Durch"),
        _l("take every trick; empty: not played"),
        group="specials",
    ),
    RuleOption("durch_open", "optional_int", _l("Durch open"), _l("laid open"), group="specials"),
    RuleOption(
        "durch_hand",
        "optional_int",
        _l("Durch from the hand"),
        _l("laid open without looking at the Dabb"),
        group="specials",
    ),
    RuleOption(
        "bettel",
        "optional_int",
        _l("Bettel"),
        _l("take no trick; empty: not played"),
        group="specials",
    ),
    RuleOption("bettel_open", "optional_int", _l("Bettel open"), _l("laid open"), group="specials"),
    RuleOption(
        "bettel_hand",
        "optional_int",
        _l("Bettel from the hand"),
        _l("laid open without looking at the Dabb"),
        group="specials",
    ),
    RuleOption(
        "special_failed_multiplier",
        "int",
        _l("Special game lost: multiplier"),
        _l("a lost Durch or Bettel costs this × its value"),
        group="specials",
    ),
    RuleOption(
        "special_tally",
        "choice",
        _l("Special games score"),
        _l("points, or a star instead of points"),
        choices=(("points", _l("points")), ("stars", _l("stars"))),
        group="specials",
    ),
    RuleOption(
        "dealer_sits_out",
        "bool",
        _l("Dealer sits out"),
        _l("four or five at the table, three play; the dealer scores nothing"),
        group="end",
    ),
    RuleOption(
        "end",
        "choice",
        _l("End of the match"),
        _l("when the match is over"),
        choices=(
            ("with_game", _l("with a won game once someone has the target")),
            ("after_any_hand_but_going_off", _l("after any hand but a going off")),
            ("after_any_hand", _l("after any hand")),
            ("deals", _l("after a fixed number of deals")),
            ("at_once", _l("at once, even in the middle of a hand")),
        ),
        group="end",
    ),
    RuleOption("target", "int", _l("Target"), _l("points to reach"), group="end"),
    RuleOption(
        "deals",
        "int",
        _l("Number of deals"),
        _l("with a fixed number of deals: a multiple of the players"),
        group="end",
    ),
)

RULE_GROUPS: tuple[tuple[str, Any], ...] = (
    ("cards", _l("Cards")),
    ("bidding", _l("Bidding")),
    ("melds", _l("Melds")),
    ("failing", _l("Failing and going off")),
    ("specials", _l("Special games")),
    ("end", _l("Table and end")),
)

BONUS_CHOICES: tuple[tuple[str, Any], ...] = (
    ("none", _l("none")),
    ("per_player 10", _l("10 per player dealt in")),
    ("flat 30", _l("30 each")),
    ("flat 50", _l("50 each")),
    ("half_bid", _l("half the bid")),
)

PRESET_LABELS: dict[str, Any] = {
    "standard": _l("Standard (3 players, 40 cards, to 1000)"),
    "kreuzbinokel": _l("Kreuzbinokel (4 players, two teams)"),
    "sechser": _l("Sechser (6 players, three teams, with sevens)"),
    "turnier": _l("Tournament (3 players, 12 deals, tricks rounded)"),
    "vier_mit_aussetzer": _l("Four with dealer sitting out (12 deals)"),
    "zweier": _l("Two players (double deck, open play)"),
    "schweizer": _l("Schweizer (two players, 32 cards)"),
}

STAKE_BASES: tuple[tuple[str, Any], ...] = (
    ("full", _l("per full 100 points")),
    ("started", _l("per started 100 points")),
    ("exact", _l("exactly per 100 points")),
    ("per_game", _l("a fixed amount per lost match")),
)


def rule_value(ruleset: Ruleset, name: str) -> Any:
    """An option's value, with the special games read from ``special_values``."""
    if name in SPECIAL_GAMES:
        return ruleset.special_value(name)
    return getattr(ruleset, name)


# what people write for an amount of euros: digits, a decimal comma or point, digits
# (no exponent, no inf or nan, no underscores: float() would take all of them)
_AMOUNT = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+", re.ASCII)


def euros_to_cents(text: str | None) -> int:
    """``"0,10"``, ``"1.20 €"`` → cents; ValidationError for anything else or above 1000 €.

    >>> euros_to_cents("0,10"), euros_to_cents(" 1.205 € "), euros_to_cents("")
    (10, 121, 0)
    """
    cleaned = (text or "").strip().replace("€", "").replace(" ", "").replace(",", ".")
    if not cleaned:
        return 0
    if not _AMOUNT.fullmatch(cleaned):
        raise ValidationError(_l("Enter an amount like 0,10"))
    euros = Decimal(cleaned)
    if euros > 1000:  # compared before rounding: 300 digits do not fit the context
        raise ValidationError(_l("Enter an amount between 0 and 1000 €"))
    return int((euros * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def printable(form: Any, field: Field) -> None:
    """A validator for every text field: no control characters, no lone surrogates.

    PostgreSQL cannot store a NUL, and no name or title has a tab, a line break or
    an escape sequence in it; the user is told, in their language.
    """
    if isinstance(field.data, str) and not storable(field.data):
        raise ValidationError(_l("This field may not contain control characters."))


# an idempotency key as the forms make them (secrets.token_urlsafe(16))
_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def key_or_none(value: Any) -> str | None:
    """A WTForms filter: the posted key, or None for anything a form does not send.

    A key that is not one of ours (a NUL, spaces, 65 characters) is no key: the
    hand is saved like one from a form without it.
    """
    return value if isinstance(value, str) and _KEY.fullmatch(value) else None


class NewMatchForm(AppForm):
    """Players in seat order, a preset, house rules, stakes."""

    title = StringField(_l("Table"), [Optional(), Length(max=80), printable])
    players = FieldList(
        StringField(_l("Player"), [Optional(), Length(max=40), printable]),
        min_entries=3,
        max_entries=8,
    )
    preset = SelectField(
        _l("Preset"),
        choices=choice_list((k, PRESET_LABELS[k]) for k in PRESETS),
        default="standard",
    )
    teams = BooleanField(_l("Play in teams of two (partners opposite)"))
    team_of = FieldList(
        SelectField(
            _l("Team"),
            choices=choice_list([("0", "A"), ("1", "B"), ("2", "C"), ("3", "D")]),
            # not posted at all when the table plays without teams; checked in the view
            validate_choice=False,
        ),
        max_entries=8,
    )
    first_dealer = SelectField(
        _l("First dealer (Geber)"),
        choices=choice_list((str(i), str(i + 1)) for i in range(8)),
        default="0",
    )
    stake = StringField(_l("Stake (€)"), [Optional(), Length(max=10), printable])
    stake_basis = SelectField(_l("Stake per"), choices=choice_list(STAKE_BASES), default="full")
    action = HiddenField()
    idempotency_key = HiddenField(filters=[key_or_none])

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rule_fields: dict[str, Field] = {}

    def process(self, formdata: Any = None, *args: Any, **kwargs: Any) -> None:
        super().process(formdata, *args, **kwargs)
        # a name posted past the last seat: the list keeps eight and would drop it unseen
        posted = self.meta.wrap_formdata(self, formdata)
        last = self.players.max_entries or 0
        self.seats_beyond = posted is not None and any(
            value.strip()
            for key in posted
            if key.startswith("players-") and key[8:].isdigit() and int(key[8:]) >= last
            for value in posted.getlist(key)
        )

    def player_names(self) -> list[str]:
        return [clean_name(f.data or "") for f in self.players if (f.data or "").strip()]

    def players_errors(self) -> list[Any]:
        """The players list's own messages (its ``errors`` also holds one list per entry)."""
        return [e for e in self.players.errors if not isinstance(e, list | tuple)]

    def stake_cents(self) -> int:
        return euros_to_cents(self.stake.data)

    def validate_stake(self, field: Field) -> None:
        euros_to_cents(field.data)

    def validate_players(self, field: Field) -> None:
        """Two to eight different names; empty inputs only after the last name.

        An empty seat between two names is a mistake (a player forgotten), not
        a smaller table: it is marked instead of silently closing the gap.
        """
        if self.seats_beyond:
            raise ValidationError(_l("At most eight players sit at one table."))
        names = self.player_names()
        if len(names) < 2:
            raise ValidationError(_l("Enter at least two players."))
        entries = list(self.players)
        filled = [i for i, f in enumerate(entries) if (f.data or "").strip()]
        gaps = [f for f in entries[: filled[-1]] if not (f.data or "").strip()]
        for entry in gaps:
            entry.errors = [*entry.errors, _l("Enter a name.")]
        if gaps:
            raise ValidationError(_l("Enter a name for every seat; empty seats go at the end."))
        lowered = [n.lower() for n in names]
        if len(set(lowered)) != len(lowered):
            raise ValidationError(_l("Every player needs a different name."))


def build_rule_fields(form: NewMatchForm, base: Ruleset, data: Any) -> None:
    """Attach one field per house rule to ``form``, prefilled from ``base``.

    ``data`` is the posted form (or None): posted values win unless the user
    asked to apply the preset again.
    """
    from wtforms.form import BaseForm

    unbound: list[tuple[str, Field]] = []
    for option in RULE_OPTIONS:
        default = rule_value(base, option.name)
        if option.kind == "bool":
            f: Any = BooleanField(option.label, default=default, description=option.help)
        elif option.kind == "choice":
            choices = list(option.choices or BONUS_CHOICES)
            if default not in [c[0] for c in choices]:
                choices.append((default, default))
            f = SelectField(
                option.label,
                choices=choice_list(choices),
                default=default,
                description=option.help,
            )
        elif option.kind == "optional_int":
            f = IntegerField(
                option.label,
                [Optional(), NumberRange(0, MAX_POINTS)],
                default=default,
                description=option.help,
            )
        else:
            f = IntegerField(
                option.label,
                [InputRequired(), NumberRange(0, MAX_POINTS)],
                default=default,
                description=option.help,
            )
        unbound.append((option.name, f))
    sub = BaseForm(unbound, prefix="rule-")
    sub.process(data)
    form.rule_fields = dict(sub._fields)
    form.rule_form = sub


def ruleset_from_form(form: NewMatchForm) -> Ruleset:
    """The ruleset the setup form describes; RulesError when it is not playable."""
    base = PRESETS.get(form.preset.data or "standard", PRESETS["standard"])
    names = form.player_names()
    changes: dict[str, Any] = {"players": len(names)}
    specials: dict[str, int | None] = {}
    for option in RULE_OPTIONS:
        value = form.rule_fields[option.name].data
        if option.kind == "bool":
            value = bool(value)
        if option.name in SPECIAL_GAMES:
            specials[option.name] = value
        else:
            changes[option.name] = value
    changes["special_values"] = tuple(specials.items())
    changes["team_size"] = 2 if form.teams.data else 1
    ruleset = base.replace(**changes)
    check_table(ruleset, len(names))
    return ruleset


def rules_field_errors(form: FlaskForm) -> bool:
    """Validate the attached house-rule fields; True when they are fine."""
    sub = getattr(form, "rule_form", None)
    return True if sub is None else bool(sub.validate())


# -- a hand -----------------------------------------------------------------


class PartyForm(Form):
    """One party's line: melds, trick points, 'took no trick'."""

    melds = IntegerField(_l("Melds"), [Optional(), NumberRange(0, MAX_POINTS)])
    meld_names = HiddenField()
    tricks = IntegerField(_l("Tricks"), [Optional(), NumberRange(0, 1000)])
    no_trick = BooleanField(_l("took no trick"))


class HandForm(AppForm):
    """A hand: declarer, bid, trump, outcome first; then what the outcome needs."""

    declarer = SelectField(_l("Declarer (Spielmacher)"), choices=[], validate_choice=False)
    bid = IntegerField(_l("Bid (Reizwert)"), [Optional(), NumberRange(0, MAX_POINTS)])
    trump = RadioField(_l("Trump"), choices=choice_list(SUITS.items()), validate_choice=False)
    outcome = RadioField(
        _l("Outcome"),
        choices=choice_list(OUTCOME_CHOICES),
        default="played",
        validate_choice=False,
    )
    won = RadioField(
        _l("Result"),
        choices=choice_list([("1", _l("won")), ("0", _l("lost"))]),
        validate_choice=False,
    )
    parties = FieldList(FormField(PartyForm), min_entries=2, max_entries=8)
    version = HiddenField()
    idempotency_key = HiddenField(filters=[key_or_none])

    def setup(self, ruleset: Ruleset, names: list[str], *, has_data: bool) -> None:
        """Fit the form to the match: one line per party, the outcomes this table plays."""
        self.declarer.choices = choice_list(
            [("", "—")] + [(str(i), n) for i, n in enumerate(names)]
        )
        outcomes = [
            (value, label)
            for value, label in OUTCOME_CHOICES
            if value not in SPECIAL_GAMES or ruleset.special_value(value) is not None
        ]
        self.outcome.choices = choice_list(outcomes)
        self.ruleset = ruleset
        if not has_data:
            while len(self.parties) < len(names):
                self.parties.append_entry()
        self.party_names = names

    def to_input(self, parties: int) -> HandInput:
        """The entered hand as plain values (ValueError-free: fields are validated)."""
        declarer = self.declarer.data
        lines = list(self.parties)[:parties]
        while len(lines) < parties:
            lines.append(None)
        melds = [(line.form.melds.data or 0) if line else 0 for line in lines]
        tricks = [line.form.tricks.data if line else None for line in lines]
        took: list[bool | None] = [
            (False if line.form.no_trick.data else None) if line else None for line in lines
        ]
        names = [_meld_names(line.form.meld_names.data) if line else None for line in lines]
        outcome = self.outcome.data or "played"
        won = None
        if outcome in SPECIAL_GAMES and self.won.data in ("0", "1"):
            won = self.won.data == "1"
        return HandInput(
            declarer=_party_index(declarer, parties),
            bid=self.bid.data or 0,
            trump=self.trump.data if self.trump.data in ("E", "G", "H", "S") else None,
            outcome=outcome,
            won=won,
            melds=melds,
            meld_names=names,
            tricks=tricks,
            took_trick=took,
        )

    def validate_declarer(self, field: Field) -> None:
        valid = {str(i) for i in range(len(getattr(self, "party_names", [])))}
        if field.data not in valid:
            raise ValidationError(_l("Choose the declarer."))

    def validate_outcome(self, field: Field) -> None:
        if field.data not in choice_values(self.outcome.choices):
            raise ValidationError(_l("Choose how the hand went."))

    def validate_trump(self, field: Field) -> None:
        if self.outcome.data in ("played", "forfeit") and field.data not in ("E", "G", "H", "S"):
            raise ValidationError(_l("Choose the trump suit."))

    def validate_won(self, field: Field) -> None:
        if self.outcome.data in SPECIAL_GAMES and field.data not in ("0", "1"):
            raise ValidationError(_l("Won or lost?"))

    def validate(self, extra_validators: Any = None) -> bool:
        valid = bool(super().validate(extra_validators))
        # ``Optional()`` ends the bid's validation when it is empty, before validate_bid
        if (
            self.outcome.data in ("played", "gone_off", "forfeit")
            and self.bid.data is None
            and not self.bid.errors
        ):
            self.bid.errors = [*self.bid.errors, _l("Enter the bid.")]
            valid = False
        return valid

    def validate_bid(self, field: Field) -> None:
        """The bid is checked here too, so that it is marked with every other mistake."""
        if self.outcome.data not in ("played", "gone_off", "forfeit"):
            return
        if not field.data:
            raise ValidationError(_l("Enter the bid."))
        ruleset = getattr(self, "ruleset", None)
        if ruleset is not None:
            try:
                check_bid(ruleset, field.data)
            except RulesError as exc:
                raise ValidationError(rules_message(exc)) from None

    def add_rules_error(self, error: RulesError) -> None:
        """Put a rules error on the field it is about (the form keeps every value)."""
        from .rules import BidError, MeldError, TrickError

        message = rules_message(error)
        target: Field | None = None
        if isinstance(error, BidError):
            target = self.bid
        if target is not None:
            target.errors = [*target.errors, message]
        elif isinstance(error, TrickError):
            self.tricks_error = message
        elif isinstance(error, MeldError):
            self.melds_error = message
        else:
            self.form_errors.append(message)


def hand_form(
    match: Match, sheet: Sheet, hand: Hand | None = None, *, posted: bool = False
) -> HandForm:
    """The hand form for this match: as posted, prefilled from ``hand``, or empty.

    An empty form gets a fresh idempotency key; every form not read from the
    request carries the match's version.
    """
    if posted:
        form = HandForm()
    elif hand is not None:
        form = HandForm(formdata=_formdata(input_of(hand)))
    else:
        form = HandForm(formdata=None)
        form.idempotency_key.data = secrets.token_urlsafe(16)
    form.setup(sheet.ruleset, sheet.parties, has_data=posted or hand is not None)
    if not posted:
        form.version.data = str(match.version)
    return form


def _formdata(data: HandInput) -> MultiDict[str, Any]:
    """A saved hand as the hand form would post it (the correction form starts from it)."""
    pairs: list[tuple[str, Any]] = [
        ("declarer", "" if data.declarer is None else str(data.declarer)),
        ("bid", str(data.bid or "")),
        ("trump", data.trump or ""),
        ("outcome", data.outcome),
        ("won", "" if data.won is None else ("1" if data.won else "0")),
    ]
    for i, melds in enumerate(data.melds):
        pairs.append((f"parties-{i}-melds", str(melds) if melds else ""))
        names = data.meld_names[i] if i < len(data.meld_names) else None
        pairs.append((f"parties-{i}-meld_names", ",".join(names or [])))
        tricks = data.tricks[i] if i < len(data.tricks) else None
        pairs.append((f"parties-{i}-tricks", "" if tricks is None else str(tricks)))
        took = data.took_trick[i] if i < len(data.took_trick) else None
        if took is False:
            pairs.append((f"parties-{i}-no_trick", "y"))
    return MultiDict(pairs)


def _party_index(value: Any, parties: int) -> int | None:
    """A party index from the form, or None (the live preview runs on unvalidated input)."""
    text = str(value).strip() if value is not None else ""
    # compared as text: int() of 5000 digits raises, and "٣" or "01" name no party
    indices = [str(i) for i in range(parties)]
    return indices.index(text) if text in indices else None


def _meld_names(text: str | None) -> list[str] | None:
    if not text:
        return None
    # at most 40 names of at most 40 characters: a hidden field is still user input
    names = [n.strip()[:40] for n in text.split(",", 40)[:40] if n.strip() and storable(n)]
    return names or None


class TricksForm(AppForm):
    """Closing a two-player hand: trick points per party."""

    parties = FieldList(FormField(PartyForm), min_entries=2, max_entries=2)
    version = HiddenField()


class MeldEntryForm(AppForm):
    """One meld written during a two-player hand."""

    party = SelectField(_l("Player"), choices=choice_list([("0", "1"), ("1", "2")]))
    trump = RadioField(_l("Trump"), choices=choice_list(SUITS.items()), validate_choice=False)
    meld = SelectField(_l("Meld"), choices=[], validate_choice=False)
    points = IntegerField(_l("Points"), [Optional(), NumberRange(1, 5000)])
    version = HiddenField()
    # the number of the hand in play the page shows: a meld is written to that hand
    hand = HiddenField()


class ConfirmForm(AppForm):
    """A bare form for buttons that change something (delete, next match): CSRF only."""

    version = HiddenField()
