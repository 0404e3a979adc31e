"""Every house rule, whichever it is: what a new option gets without a line of its own.

The recipe (README, "A new house rule"): an option is its field in
``scorer/rules/ruleset.py``, the rule where it acts (with a doctest of a real hand), its
row in ``scorer/house_rules.py``, its German words and its row in ``docs/rules.md``.
These tests hold every option to the rest of it — a row, the book, the setup form, the
rules page and a backup — so a new option is checked the day it is added.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer import services
from scorer.house_rules import RULE_OPTIONS
from scorer.rules import PRESETS, SPECIAL_GAMES, Ruleset
from scorer.rules.ruleset import CHOICES, INT_RANGES, OPTIONAL_INT_FIELDS
from tests.builders import page_text, session_token_of, start_match

ROOT = Path(__file__).resolve().parents[2]
# set by the players and the preset, not by a row of their own: the table, and the Swiss
# game's Groß-Binokel (its preset's)
NOT_ROWS = {"preset", "players", "team_size", "open_play", "deck", "special_values"}
NOT_ROWS |= {"gross_binokel"}
ROWS = {option.name: option for option in RULE_OPTIONS}
BOOLS = [option.name for option in RULE_OPTIONS if option.kind == "bool"]
NAMES = ["Anna", "Bert", "Carl", "Dora"]


def test_every_option_has_one_row_of_words() -> None:
    """A field of the ruleset is an option with its row (label, help, group), the special
    games one row each; a number's row has its range beside the field."""
    assert {f.name for f in fields(Ruleset)} - NOT_ROWS == set(ROWS) - set(SPECIAL_GAMES)
    assert set(SPECIAL_GAMES) <= set(ROWS)
    assert len(ROWS) == len(RULE_OPTIONS)  # one row each
    for option in RULE_OPTIONS:
        assert str(option.label) and str(option.help), option.name
        if option.name in SPECIAL_GAMES:
            continue
        if option.kind == "int":
            assert option.name in INT_RANGES, option.name
        if option.kind == "optional_int":  # dabb: its own range, the deal decides
            assert option.name in OPTIONAL_INT_FIELDS or option.name == "dabb", option.name
        if option.kind == "choice" and option.choices:
            assert {key for key, _ in option.choices} <= set(CHOICES[option.name]), option.name


def test_every_option_is_in_the_rulebook() -> None:
    book = (ROOT / "docs/rules.md").read_text(encoding="utf-8")
    missing = [name for name in ROWS if f"`{name}`" not in book and name not in SPECIAL_GAMES]
    assert missing == []


@pytest.mark.parametrize("name", BOOLS)
def test_a_yes_no_rule_goes_from_the_form_to_the_rules_page_and_a_backup(
    app: Flask, client: FlaskClient, name: str
) -> None:
    """Flipped on the setup form, the option is the match's, the rules page says it differs
    from the preset, and a backup brings it back (at a table that can play it: four with
    the dealer sitting out, three otherwise)."""
    preset = PRESETS["standard"]
    flipped = not getattr(preset, name)
    players = NAMES if name == "dealer_sits_out" else NAMES[:3]
    token = start_match(client, players, **{name: flipped})
    with app.app_context():
        assert getattr(services.ruleset_of(services.get_match(token)), name) is flipped
    rules = page_text(client.get(f"/m/{token}/rules?lang=en"))
    differ = rules[rules.index("House rules that differ from the preset") :]
    assert str(ROWS[name].label) in differ
    session = session_token_of(app, token)
    backup = client.get(f"/s/{session}/backup.json").get_data(as_text=True)
    with app.app_context():
        (copy,) = services.import_backup(backup)
        assert getattr(services.ruleset_of(copy.matches[0]), name) is flipped
    assert json.loads(backup)["sessions"][0]["matches"][0]["ruleset"][name] is flipped
