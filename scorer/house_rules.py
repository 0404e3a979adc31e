"""The words of the house rules, in one place: every ``Ruleset`` option's label,
one-line explanation, choices and group (:data:`RULE_OPTIONS`), the presets' names,
and a whole ruleset in words — one line for the head of the PDF
(:func:`ruleset_line`) and the house rules that differ from the preset
(:func:`house_rules`).

The setup form (:mod:`scorer.forms.setup`), the rules page (:mod:`scorer.views.matches`)
and the PDF (:mod:`scorer.pdf`) all read them here; the numbers they quote come from
:mod:`scorer.rules`.  A new house-rule option is five files (README, "A new house
rule"): its field in ``scorer.rules.ruleset`` (with the default that keeps the old play;
a ``bool`` field is a check box by itself, ``BOOL_FIELDS``; a choice or a range goes into
``CHOICES`` / ``INT_RANGES`` beside it), the rule where it acts with a doctest of a real
hand, its row here (label, one line of help, group), the German words
(``scorer/translations/update.sh``) and its row in docs/rules.md.  The setup form, the
rules page, the PDF's head and the backups follow (``tests/web/test_house_rule_options.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask_babel import gettext
from flask_babel import lazy_gettext as _l

from .rules import PRESETS, SPECIAL_GAMES, Ruleset, deck_size, rundgang_totals
from .rules.ruleset import MAX_DABB, MAX_GAMES, MAX_POINTS
from .words import bonus_label

# -- one row per Ruleset option, with its one-line explanation --------------------


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
    # the variants of docs/rules.md section 12: folded in "more rules"
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

RANK_WORDS: dict[str, Any] = {
    "A": _l("Daus"),
    "10": _l("Zehn"),
    "K": _l("König"),
    "O": _l("Ober"),
    "U": _l("Unter"),
    "7": _l("Sieben"),
}
"""A rank's name on a house rule's box (the Achterle's ranks, ``scorer.rules.EIGHT_RANKS``)."""

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


# -- a whole ruleset in words ---------------------------------------------------------


def _end_text(ruleset: Ruleset) -> str:
    if ruleset.end == "deals":
        return gettext("%(deals)s deals", deals=ruleset.deals)
    if ruleset.end == "at_once":
        return gettext("to %(target)s, at once", target=ruleset.target)
    if ruleset.end == "games":
        return gettext("best of %(games)s hands", games=ruleset.games)
    if ruleset.end == "with_game":
        return gettext("to %(target)s with a won game", target=ruleset.target)
    return gettext("to %(target)s", target=ruleset.target)


def ruleset_line(ruleset: Ruleset) -> str:
    """The rules in one line: preset, table, deck, end, bids."""
    parts = [preset_name(ruleset.preset)]  # the players and cards follow
    if ruleset.teams:
        parts.append(
            gettext(
                "%(players)s players in %(parties)s teams",
                players=ruleset.players,
                parties=ruleset.parties,
            )
        )
    else:
        parts.append(gettext("%(players)s players", players=ruleset.players))
    parts.append(gettext("%(cards)s cards", cards=deck_size(ruleset)))
    parts.append(_end_text(ruleset))
    if not ruleset.open_play:
        parts.append(gettext("bids from %(min)s", min=ruleset.min_bid))
    parts.extend(_variant_texts(ruleset))
    return " · ".join(parts)


def _variant_texts(ruleset: Ruleset) -> list[str]:
    """The variants of docs/rules.md section 12 that differ from the defaults, one phrase each."""
    default = Ruleset()
    out = []
    if ruleset.dabb is not None:
        out.append(gettext("Dabb %(dabb)s", dabb=ruleset.dabb))
    if ruleset.card_points != default.card_points:
        out.append(gettext("counting %(scheme)s", scheme=ruleset.card_points))
    if ruleset.rundgang != default.rundgang:
        out.append(gettext("Rundgang always 250"))
    if ruleset.eight_ranks is not None:
        ranks = ", ".join(r.value for r in ruleset.eight_ranks) or "—"
        out.append(gettext("Achterle of %(ranks)s", ranks=ranks))
    if not ruleset.diss_pressable and ruleset.has_sevens:
        out.append(gettext("Diss not pressed"))
    if ruleset.dealer == "winner":
        out.append(gettext("the winner deals"))
    if ruleset.first_dealer == "after_winner":
        out.append(gettext("next match: the winner deals"))
    if ruleset.failed_bonus != "none" and not ruleset.open_play:
        out.append(gettext("failed: %(bonus)s", bonus=bonus_label(ruleset.failed_bonus)))
    return out


def _value(value: Any) -> str:
    if value is True:
        return gettext("yes")
    if value is False:
        return gettext("no")
    if value is None:
        return gettext("off")
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def house_rules(ruleset: Ruleset) -> list[str]:
    """The house rules that differ from the ruleset's preset, one short phrase each."""
    labels = {o.name: str(o.label) for o in RULE_OPTIONS}
    choices = {o.name: {k: str(v) for k, v in o.choices} for o in RULE_OPTIONS if o.choices}
    out = []
    for key, value in ruleset.overrides().items():
        if key == "special_values":
            base = dict(Ruleset.from_dict({"preset": ruleset.preset}).special_values)
            for name, amount in value.items():
                if base.get(name) != amount:
                    out.append(f"{labels.get(name, name)}: {_value(amount)}")
        elif key == "team_size":
            out.append(gettext("teams of two") if value == 2 else gettext("everybody alone"))
        elif key == "players":
            continue  # the players are listed on the sheet
        elif key in ("failed_bonus", "going_off_bonus"):
            out.append(f"{labels.get(key, key)}: {bonus_label(value)}")
        elif key in choices and value in choices[key]:
            out.append(f"{labels.get(key, key)}: {choices[key][value]}")
        else:
            out.append(f"{labels.get(key, key)}: {_value(value)}")
    return out


def rules_page(ruleset: Ruleset) -> dict[str, Any]:
    """What ``templates/matches/_rules_body.html`` shows of ``ruleset``: its preset, the
    options that differ from it, every option's value, the Rundgang's totals."""
    preset = PRESETS.get(ruleset.preset, PRESETS["standard"])
    return {
        "ruleset": ruleset,
        "groups": RULE_GROUPS,
        "options": RULE_OPTIONS,
        "value_of": lambda name: rule_value(ruleset, name),
        "preset_label": PRESET_LABELS.get(ruleset.preset, ruleset.preset),
        "overrides": ruleset.overrides(),
        "changed": [
            option.name
            for option in RULE_OPTIONS
            if rule_value(ruleset, option.name) != rule_value(preset, option.name)
        ],
        "rundgang": rundgang_totals(ruleset),
    }
