"""WTForms for the score sheet.  Fields parse into rules types; no database writes.

Every form is a ``FlaskForm`` (CSRF).  A ``RulesError`` found while parsing
becomes a form error in the user's language, never a 500.  The modules, by job:

- :mod:`.base` — :class:`AppForm` (WTForms' messages cached per language),
  :func:`choice_list` / :func:`choice_values`, ``MAX_POINTS``, and the shared
  validators and filters :func:`printable`, :func:`key_or_none`,
  :func:`euros_to_cents`, and :class:`WholeNumberField` (every number field of
  every form) with its parser :func:`whole_number`;
- :mod:`.setup` — the new match: :class:`NewMatchForm` (and :class:`StakeForm`, the
  session's stake, its basis one of the rules' ``BASES``),
  :func:`build_rule_fields`, :func:`ruleset_from_form`,
  :func:`rules_field_errors`;
- :mod:`.hand` — a hand: :class:`PartyForm`, :class:`HandForm` and its builder
  :func:`hand_form` (for the views and the cached empty form of
  :mod:`scorer.cache` alike), :class:`TricksForm`, :class:`MeldEntryForm`,
  :class:`ConfirmForm`.

The words of the house rules (:class:`RuleOption`, ``RULE_OPTIONS``, ``RULE_GROUPS``,
``BONUS_CHOICES``, ``BONUS_HELP``, ``PRESET_LABELS``, :func:`preset_name`,
:func:`rule_value`) live in :mod:`scorer.house_rules` and are re-exported here.

Import from ``scorer.forms``: every name above is re-exported here.
"""

from ..house_rules import (
    BONUS_CHOICES,
    BONUS_HELP,
    PRESET_LABELS,
    RULE_GROUPS,
    RULE_OPTIONS,
    RuleOption,
    preset_name,
    rule_value,
)
from .base import (
    MAX_POINTS,
    AppForm,
    WholeNumberField,
    choice_list,
    choice_values,
    euros_to_cents,
    key_or_none,
    printable,
    whole_number,
)
from .hand import (
    ConfirmForm,
    HandForm,
    MeldEntryForm,
    PartyForm,
    TricksForm,
    hand_form,
)
from .setup import (
    NewMatchForm,
    StakeForm,
    build_rule_fields,
    rules_field_errors,
    ruleset_from_form,
)

__all__ = [
    "BONUS_CHOICES",
    "BONUS_HELP",
    "MAX_POINTS",
    "PRESET_LABELS",
    "RULE_GROUPS",
    "RULE_OPTIONS",
    "AppForm",
    "ConfirmForm",
    "HandForm",
    "MeldEntryForm",
    "NewMatchForm",
    "PartyForm",
    "RuleOption",
    "StakeForm",
    "TricksForm",
    "WholeNumberField",
    "build_rule_fields",
    "choice_list",
    "choice_values",
    "euros_to_cents",
    "hand_form",
    "key_or_none",
    "preset_name",
    "printable",
    "rule_value",
    "rules_field_errors",
    "ruleset_from_form",
    "whole_number",
]
