"""The rules of a match in words for the head of the sheet: the ruleset in one line, house rules.

Suit and outcome names are in :mod:`scorer.words`; these two describe a whole
ruleset and are used by the PDF only.
"""

from __future__ import annotations

from typing import Any

from flask_babel import gettext

from ..forms import RULE_OPTIONS, preset_name
from ..rules import Ruleset, deck_size
from ..words import bonus_label


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
    """The variants of RULES.md section 12 that differ from the defaults, one phrase each."""
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
