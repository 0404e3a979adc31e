"""What a house rule gives at the table being set up, in words beside its fields.

"N per player dealt in" with N = 40 gives each opponent 120 at a table of three:
:func:`bonus_hints` says so beside the going-off and failing bonus, computed by
the rules (:func:`scorer.rules.bonus_points`, :func:`scorer.rules.players_dealt_in`)
for the table the setup form shows (its preset, its number of seats, the dealer
sitting out or not), never by the template or the page's script.
"""

from __future__ import annotations

from typing import Any

from flask_babel import gettext

from ..rules import PRESETS, RulesError, Ruleset, bonus_points, players_dealt_in
from .setup import RULE_OPTIONS, NewMatchForm, bonus_from


def bonus_hints(form: NewMatchForm) -> dict[str, str]:
    """One line per bonus option (``going_off_bonus``, ``failed_bonus``): what one
    opposing party gets at this table; no line where the fields say nothing yet."""
    fields: dict[str, Any] = getattr(form, "rule_fields", {})
    base = PRESETS.get(form.preset.data or "standard", PRESETS["standard"])
    sits_out = fields.get("dealer_sits_out")
    try:
        table = base.replace(
            players=len(form.players),
            dealer_sits_out=bool(sits_out.data) if sits_out is not None else base.dealer_sits_out,
        )
    except (RulesError, ValueError, TypeError):
        return {}
    return hints_for(fields, table)


def hints_for(fields: dict[str, Any], table: Ruleset) -> dict[str, str]:
    """:func:`bonus_hints` for the house-rule ``fields`` of any form, at ``table``
    (its players and whether the dealer sits out; the tournament's table of three)."""
    hints: dict[str, str] = {}
    dealt_in = players_dealt_in(table)
    bid = 2 * table.min_bid
    for option in RULE_OPTIONS:
        if option.kind != "bonus" or option.name not in fields:
            continue
        kind = fields[option.name].data
        number = fields[option.name + "_n"].data
        try:
            spec = bonus_from(option, kind, number)
            points = bonus_points(spec, bid=bid, players=dealt_in)
        except RulesError:
            continue
        if kind == "per_player":
            hints[option.name] = gettext(
                "At this table: %(points)s to each opponent (%(n)s × %(players)s players "
                "dealt in).",
                points=points,
                n=number,
                players=dealt_in,
            )
        elif kind == "flat":
            hints[option.name] = gettext(
                "At this table: %(points)s to each opponent.", points=points
            )
        elif kind == "half_bid":
            hints[option.name] = gettext(
                "At this table: half the bid to each opponent (%(points)s at a bid of %(bid)s).",
                points=points,
                bid=bid,
            )
    return hints
