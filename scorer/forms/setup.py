"""The setup form of a new match, and the house rules it shows.

:data:`RULE_OPTIONS` is one row per ``Ruleset`` option with its one-line
explanation, read by the setup form, the rules page and the PDF alike;
:class:`NewMatchForm` takes players, preset, teams and stakes, and
:func:`build_rule_fields` / :func:`ruleset_from_form` turn the house rules
into fields and back into a ``Ruleset``.
"""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    Field,
    FieldList,
    HiddenField,
    SelectField,
    StringField,
)
from wtforms.validators import Length, Optional, ValidationError

from ..house_rules import (
    BONUS_CHOICES,
    BONUS_KINDS,
    PRESET_LABELS,
    RANK_WORDS,
    RULE_OPTIONS,
    RuleOption,
    rule_value,
)
from ..rules import (
    BASES,
    EIGHT_RANKS,
    MAX_PLAYERS,
    PRESETS,
    SPECIAL_GAMES,
    RulesError,
    Ruleset,
    check_table,
    chosen_eight_ranks,
)
from ..services import clean_name
from ..words import STAKE_BASES
from .base import (
    AppForm,
    WholeNumberField,
    choice_list,
    euros_to_cents,
    key_or_none,
    printable,
)


def stake_basis_field() -> SelectField:
    """Per what the stake counts: every basis the rules know (``scorer.rules.BASES``,
    the first their default), in the user's words."""
    return SelectField(
        _l("Stake per"),
        choices=choice_list((basis, STAKE_BASES[basis]) for basis in BASES),
        default=BASES[0],
    )


class StakeForm(AppForm):
    """The stake of a session: an amount and what it is per (the session's page)."""

    stake = StringField(_l("Stake (€)"), [Optional(), Length(max=10), printable])
    stake_basis = stake_basis_field()

    def validate_stake(self, field: Field) -> None:
        euros_to_cents(field.data)


class NewMatchForm(AppForm):
    """Players in seat order, a preset, house rules, stakes."""

    title = StringField(_l("Table"), [Optional(), Length(max=80), printable])
    players = FieldList(
        StringField(_l("Player"), [Optional(), Length(max=40), printable]),
        min_entries=3,
        max_entries=MAX_PLAYERS,
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
        max_entries=MAX_PLAYERS,
    )
    first_dealer = SelectField(
        _l("First dealer (Geber)"),
        choices=choice_list((str(i), str(i + 1)) for i in range(MAX_PLAYERS)),
        default="0",
    )
    stake = StringField(_l("Stake (€)"), [Optional(), Length(max=10), printable])
    stake_basis = stake_basis_field()
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


def build_rule_fields(form: FlaskForm, base: Ruleset, data: Any) -> None:
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
        elif option.kind == "bonus":
            kind, _, number = str(default).partition(" ")
            f = SelectField(
                option.label,
                choices=choice_list(BONUS_KINDS),
                default=kind,
                description=option.help,
            )
            unbound.append(
                (
                    option.name + "_n",
                    WholeNumberField(
                        _l("N"),
                        default=int(number) if number.isdigit() else None,
                    ),
                )
            )
        elif option.kind == "ranks":
            # one box per rank an Achterle can be of (a list of same-named boxes would need
            # a list in every client); the last one carries the option's help
            chosen = base.eight_ranks if base.eight_ranks is not None else EIGHT_RANKS
            for rank in EIGHT_RANKS:
                help_text = option.help if rank is EIGHT_RANKS[-1] else ""
                box = BooleanField(
                    RANK_WORDS[rank.value], default=rank in chosen, description=help_text
                )
                unbound.append((f"{option.name}_{rank.value}", box))
            continue
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
            f = WholeNumberField(
                option.label,
                high=option.high,
                default=default,
                description=option.help,
            )
        else:
            f = WholeNumberField(
                option.label,
                high=option.high,
                required=True,
                default=default,
                description=option.help,
            )
        unbound.append((option.name, f))
    sub = BaseForm(unbound, prefix="rule-", meta=form.meta)  # its messages in the form's language
    sub.process(data)
    form.rule_fields = dict(sub._fields)
    form.rule_form = sub


def ruleset_from_form(form: NewMatchForm) -> Ruleset:
    """The ruleset the setup form describes; RulesError when it is not playable."""
    base = PRESETS.get(form.preset.data or "standard", PRESETS["standard"])
    names = form.player_names()
    changes = rule_changes(form.rule_fields, base)
    changes["players"] = len(names)
    changes["team_size"] = 2 if form.teams.data else 1
    ruleset = base.replace(**changes)
    check_table(ruleset, len(names))
    return ruleset


def rule_changes(
    fields: dict[str, Field], base: Ruleset, skip: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The ``Ruleset.replace`` arguments the house-rule fields of :func:`build_rule_fields`
    describe (the options in ``skip`` keep ``base``'s value: a tournament fixes them)."""
    changes: dict[str, Any] = {}
    specials: dict[str, int | None] = {}
    for option in RULE_OPTIONS:
        if option.name in skip:
            if option.name in SPECIAL_GAMES:
                specials[option.name] = base.special_value(option.name)
            continue
        field = fields.get(option.name)
        value = None if field is None else field.data
        if option.kind == "bool":
            value = bool(value)
        elif option.kind == "bonus":
            value = bonus_from(option, value, fields[option.name + "_n"].data)
        elif option.kind == "ranks":
            ticked = [r for r in EIGHT_RANKS if fields[f"{option.name}_{r.value}"].data]
            sevens = bool(changes.get("sevens", base.sevens))
            value = chosen_eight_ranks(ticked, sevens=sevens, given=base.eight_ranks)
        if option.name in SPECIAL_GAMES:
            specials[option.name] = value
        else:
            changes[option.name] = value
    changes["special_values"] = tuple(specials.items())
    return changes


def bonus_from(option: RuleOption, kind: Any, number: Any) -> str:
    """A bonus setting from its two fields: the kind and, for per_player / flat, N."""
    if kind in ("per_player", "flat"):
        if number is None:
            raise RulesError(
                "house rule '{field}': type the number N for '{kind}'",
                field=option.name,
                kind=kind,
            )
        return f"{kind} {number}"
    return str(kind or "none")


def rules_field_errors(form: FlaskForm) -> bool:
    """Validate the attached house-rule fields; True when they are fine."""
    sub = getattr(form, "rule_form", None)
    return True if sub is None else bool(sub.validate())
