"""The session's stake and its settlement (``services.money``).

Changing the stake is a use case of its own (one transaction); a stake out of the
range is refused and nothing changes; the settlement counts finished matches only
and pays out with the fewest transfers the rules find.
"""

from __future__ import annotations

import pytest
from flask import Flask

from scorer import services
from scorer.extensions import db
from scorer.rules import PRESETS, RulesError
from tests.builders import hand_input

NAMES = ["Anna", "Berta", "Carl"]


def finished(stake: int = 0) -> services.Sheet:
    match = services.start_match(names=NAMES, ruleset=PRESETS["standard"].replace(target=300),
                                 stake_cents=stake)  # fmt: skip
    while not services.standing(match).finished:
        services.save_hand(match, hand_input(3, services.standing(match).hand_count))
    return services.sheet(match)


def test_a_stake_changes_the_settlement(in_app: Flask) -> None:
    sheet = finished()
    row = sheet.match.session
    assert all(v == 0 for v in services.settlement(row).balances.values())
    services.set_stake(row, 50, "full")
    db.session.expire_all()
    paid = services.settlement(row)
    assert sum(paid.balances.values()) == 0 and any(paid.balances.values())
    assert len(paid.transfers) <= len(NAMES) - 1


@pytest.mark.parametrize("cents, basis", [(-1, "full"), (100_001, "full"), (10, "per_minute")])
def test_a_stake_out_of_range_is_refused_and_nothing_changes(
    in_app: Flask, cents: int, basis: str
) -> None:
    row = finished(stake=20).match.session
    with pytest.raises(RulesError):
        services.set_stake(row, cents, basis)
    db.session.expire_all()
    assert (row.stake_cents, row.stake_basis) == (20, "full")


def test_an_unfinished_match_pays_nothing(in_app: Flask) -> None:
    match = services.start_match(names=NAMES, ruleset=PRESETS["standard"], stake_cents=100)
    services.save_hand(match, hand_input(3, 0))
    assert all(v == 0 for v in services.settlement(match.session).balances.values())
