"""The setup form of a new match, and the house rules it shows.

:data:`RULE_OPTIONS` is one row per ``Ruleset`` option with its one-line
explanation, read by the setup form, the rules page and the PDF alike;
:class:`NewMatchForm` takes players, preset, teams and stakes, and
:func:`build_rule_fields` / :func:`ruleset_from_form` turn the house rules
into fields and back into a ``Ruleset``.
"""

from __future__ import annotations

from dataclasses import dataclass
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

from ..rules import PRESETS, SPECIAL_GAMES, Rank, RulesError, Ruleset, check_table
from ..rules.ruleset import MAX_DABB, MAX_GAMES
from ..services import clean_name
from .base import (
    MAX_POINTS,
    AppForm,
    WholeNumberField,
    choice_list,
    euros_to_cents,
    key_or_none,
    printable,
)

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
    high: int = MAX_POINTS


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
        "failed_bonus", "bonus", _l("Failed: bonus to opponents"), BONUS_HELP, group="failing"
    ),
    RuleOption(
        "going_off_bonus",
        "bonus",
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
            ("with_game", _l("with a won game (target reached)")),
            ("after_any_hand_but_going_off", _l("after any hand but a going off")),
            ("after_any_hand", _l("after any hand")),
            ("deals", _l("after a fixed number of deals")),
            ("at_once", _l("at once, even in the middle of a hand")),
            ("games", _l("best of a number of hands")),
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
    RuleOption(
        "games",
        "int",
        _l("Best of (hands)"),
        _l("with “best of”: 3, 5, 7 …; a hand is won by who scores more in it"),
        group="end",
        high=MAX_GAMES,
    ),
    # the variants of RULES.md section 12: folded in "more rules"
    RuleOption(
        "dabb",
        "optional_int",
        _l("Dabb size"),
        _l("empty: the usual deal; e.g. three with sevens: 6, 3 or 0 (14, 15, 16 cards each)"),
        group="more",
        high=MAX_DABB,
    ),
    RuleOption(
        "card_points",
        "choice",
        _l("Counting (A-10-K-O-U)"),
        _l("card points in the tricks; a hand always has 240 + the last trick"),
        choices=(
            ("11-10-4-3-2", "11-10-4-3-2"),
            ("10-10-10-0-0", "10-10-10-0-0"),
            ("10-10-5-5-0", "10-10-5-5-0"),
            ("15-15-0-0-0", "15-15-0-0-0"),
        ),
        group="more",
    ),
    RuleOption(
        "rundgang",
        "choice",
        _l("Rundgang"),
        _l("a pair of every suit: what its parts add up to, or always 250"),
        choices=(("sum", _l("sum of its parts (240)")), ("flat 250", _l("always 250"))),
        group="more",
    ),
    RuleOption(
        "eight_ranks",
        "ranks",
        _l("Achterle of"),
        _l("the ranks whose eight make an Achterle"),
        group="more",
    ),
    RuleOption(
        "diss_pressable",
        "bool",
        _l("Diss may be pressed"),
        _l("the trump seven may be melded and then pressed"),
        group="more",
    ),
    RuleOption(
        "dealer",
        "choice",
        _l("Next dealer"),
        _l("who deals the next hand"),
        choices=(("rotate", _l("the next seat")), ("winner", _l("the winner of the hand"))),
        group="more",
    ),
    RuleOption(
        "first_dealer",
        "choice",
        _l("Next match starts"),
        _l("who deals the first hand of the session's next match"),
        choices=(
            ("rotate", _l("one seat on")),
            ("after_winner", _l("the winner deals, the losers lead")),
        ),
        group="more",
    ),
)

RULE_GROUPS: tuple[tuple[str, Any], ...] = (
    ("cards", _l("Cards")),
    ("bidding", _l("Bidding")),
    ("melds", _l("Melds")),
    ("failing", _l("Failing and going off")),
    ("specials", _l("Special games")),
    ("end", _l("Table and end")),
    ("more", _l("More rules")),
)

BONUS_KINDS: tuple[tuple[str, Any], ...] = (
    ("none", _l("none")),
    ("per_player", _l("N per player dealt in")),
    ("flat", _l("N each")),
    ("half_bid", _l("half the bid")),
)

RANK_CHOICES: tuple[tuple[str, Any], ...] = (
    ("A", _l("Daus")),
    ("10", _l("Zehn")),
    ("K", _l("König")),
    ("O", _l("Ober")),
    ("U", _l("Unter")),
    ("7", _l("Sieben")),
)

BONUS_CHOICES: tuple[tuple[str, Any], ...] = (
    ("none", _l("none")),
    ("per_player 10", _l("10 per player dealt in")),
    ("flat 30", _l("30 each")),
    ("flat 50", _l("50 each")),
    ("half_bid", _l("half the bid")),
)

PRESET_LABELS: dict[str, Any] = {
    "standard": _l("Standard (Swabian, 3 players)"),
    "kreuzbinokel": _l("Kreuzbinokel (4 players, teams)"),
    "sechser": _l("Sechser (6 players, 3 teams)"),
    "turnier": _l("Tournament (3 players, 12 deals)"),
    "vier_mit_aussetzer": _l("Four with dealer sitting out (12 deals)"),
    "zweier": _l("Zweier (2 players, no bidding)"),
    "schweizer": _l("Schweizer (two players, 32 cards)"),
}


def preset_name(preset: str) -> str:
    """A preset's name without its table ("Standard"): the calculator's choice, the PDF."""
    return str(PRESET_LABELS.get(preset, preset)).split(" (")[0]


STAKE_BASES: tuple[tuple[str, Any], ...] = (
    ("full", _l("per full 100")),
    ("started", _l("per started 100")),
    ("exact", _l("exactly per 100")),
    ("per_game", _l("per lost match")),
)


def rule_value(ruleset: Ruleset, name: str) -> Any:
    """An option's value, with the special games read from ``special_values``."""
    if name in SPECIAL_GAMES:
        return ruleset.special_value(name)
    if name == "eight_ranks":
        return (
            [r.value for r in ruleset.effective_eight_ranks]
            if ruleset.eight_of_a_kind is not None
            else []
        )
    return getattr(ruleset, name)


def _all_eight_ranks(sevens: bool) -> list[str]:
    ranks = ["A", "10", "K", "O", "U"]
    return [*ranks, "7"] if sevens else ranks


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
            # one box per rank (a list of same-named boxes would need a list in every client)
            ranks = base.eight_ranks
            chosen = {r.value for r in ranks} if ranks is not None else set(_all_eight_ranks(True))
            for value, label in RANK_CHOICES[:-1]:
                unbound.append(
                    (f"{option.name}_{value}", BooleanField(label, default=value in chosen))
                )
            f = BooleanField(RANK_CHOICES[-1][1], default="7" in chosen, description=option.help)
            unbound.append((f"{option.name}_7", f))
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
    changes: dict[str, Any] = {"players": len(names)}
    specials: dict[str, int | None] = {}
    for option in RULE_OPTIONS:
        field = form.rule_fields.get(option.name)
        value = None if field is None else field.data
        if option.kind == "bool":
            value = bool(value)
        elif option.kind == "bonus":
            value = _bonus_from(option, value, form.rule_fields[option.name + "_n"].data)
        elif option.kind == "ranks":
            ticked = [v for v, _ in RANK_CHOICES if form.rule_fields[f"{option.name}_{v}"].data]
            value = _ranks_from(ticked, base, bool(changes.get("sevens", base.sevens)))
        if option.name in SPECIAL_GAMES:
            specials[option.name] = value
        else:
            changes[option.name] = value
    changes["special_values"] = tuple(specials.items())
    changes["team_size"] = 2 if form.teams.data else 1
    ruleset = base.replace(**changes)
    check_table(ruleset, len(names))
    return ruleset


def _bonus_from(option: RuleOption, kind: Any, number: Any) -> str:
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


def _ranks_from(chosen: list[str], base: Ruleset, sevens: bool) -> Any:
    """The Achterle ranks ticked (the seven only with sevens); all of them is the default
    (``None``)."""
    if not sevens:
        chosen = [r for r in chosen if r != "7"]
    if base.eight_ranks is None and set(chosen) >= set(_all_eight_ranks(sevens)):
        return None
    return tuple(Rank.parse(r) for r in chosen)


def rules_field_errors(form: FlaskForm) -> bool:
    """Validate the attached house-rule fields; True when they are fine."""
    sub = getattr(form, "rule_form", None)
    return True if sub is None else bool(sub.validate())
