"""Creating a tournament and changing its settings (services.tournaments.setup)."""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.rules import RulesError
from scorer.services.tournaments import setup
from scorer.tournament_models import Tournament
from tests.tournament_builders import drawn, tournament_with


def count() -> int:
    return int(db.session.execute(select(func.count()).select_from(Tournament)).scalar_one())


def test_create_with_the_defaults(in_app: Flask) -> None:
    tournament = setup.create_tournament(name="  Herbstturnier   FFW ")
    assert tournament.name == "Herbstturnier FFW"
    ruleset = setup.ruleset_of(tournament)
    assert ruleset.preset == "turnier" and ruleset.deals == 12 and ruleset.players == 3
    assert tournament.rounds == 3
    assert tournament.fee_schedule == "0.50; 1.00 from 5"
    assert tournament.tie_break is False  # village tournaments share places (issue 30)
    assert tournament.token != tournament.view_token
    assert setup.table_ruleset_of(tournament, 4).deals == 16


def test_create_with_own_rules_and_money(in_app: Flask) -> None:
    ruleset = setup.default_ruleset().replace(deals=9, round_tricks=False, min_bid=200)
    tournament = setup.create_tournament(
        name="Kurzturnier",
        held_on="2025-11-08",
        place="Festhalle",
        ruleset=ruleset,
        rounds=4,
        entry_fee_cents=750,
        fee_schedule="0,50; 1,00 ab 5",
        tie_break=False,
        public_url="http://192.168.4.1:5000/",
    )
    assert setup.ruleset_of(tournament) == ruleset
    assert setup.table_ruleset_of(tournament, 4).deals == 12
    assert (tournament.held_on, tournament.place, tournament.rounds) == (
        "2025-11-08",
        "Festhalle",
        4,
    )
    assert tournament.entry_fee_cents == 750 and tournament.tie_break is False
    assert tournament.fee_schedule == "0.50; 1.00 from 5"  # typed in German, kept in English
    assert tournament.public_url == "http://192.168.4.1:5000"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"name": " "}, "needs a name"),
        ({"name": "Turnier\x00"}, "control characters"),
        ({"rounds": 0}, "1 to 12 rounds"),
        ({"rounds": 13}, "1 to 12 rounds"),
        ({"held_on": "8.11.2025"}, "not a date"),
        ({"held_on": "2025-02-30"}, "not a date"),
        ({"fee_schedule": "50 cents"}, "not a lost-game schedule"),
        ({"fee_schedule": "1" * 61}, "longer than 60"),
        ({"entry_fee_cents": -1}, "entry fee"),
        ({"entry_fee_cents": 10**9}, "entry fee"),
        ({"public_url": "192.168.4.1:5000"}, "not an address"),
        ({"public_url": "http://host:99999"}, "not an address"),
        ({"public_url": "http://host/path"}, "not an address"),
        ({"public_url": "javascript:alert(1)"}, "not an address"),
        ({"ruleset": setup.default_ruleset().replace(deals=10)}, "multiple of 3"),
        ({"ruleset": setup.default_ruleset().replace(players=4)}, "tables of three"),
        ({"ruleset": setup.default_ruleset().replace(end="with_game")}, "fixed number of deals"),
    ],
)
def test_create_refuses_what_no_tournament_can_be(in_app: Flask, changes: dict, words: str) -> None:
    with pytest.raises(RulesError, match=words):
        setup.create_tournament(**{"name": "Turnier", **changes})
    assert count() == 0


def test_the_same_form_twice_makes_one_tournament(in_app: Flask) -> None:
    first = setup.create_tournament(name="Turnier", idempotency_key="key-1")
    again = setup.create_tournament(name="Turnier", idempotency_key="key-1")
    other = setup.create_tournament(name="Turnier", idempotency_key="key-2")
    assert first.id == again.id != other.id
    assert count() == 2


def test_update_settings_changes_everything_before_round_1(in_app: Flask) -> None:
    tournament = tournament_with(6)
    version = tournament.version
    setup.update_settings(
        tournament,
        {
            "name": "Winterturnier",
            "place": "Krone",
            "held_on": "2026-01-10",
            "rounds": 5,
            "entry_fee_cents": 1000,
            "fee_schedule": "1,00",
            "tie_break": False,
            "public_url": "https://turnier.example",
            "ruleset": setup.default_ruleset().replace(deals=9),
        },
    )
    assert tournament.name == "Winterturnier" and tournament.rounds == 5
    assert setup.ruleset_of(tournament).deals == 9
    assert tournament.public_url == "https://turnier.example"
    assert tournament.version == version + 1


def test_rules_cannot_change_after_round_1_is_drawn(in_app: Flask) -> None:
    tournament = tournament_with(6)
    drawn(tournament)
    before = dict(tournament.ruleset)
    with pytest.raises(RulesError, match="first round is drawn"):
        setup.update_settings(
            tournament,
            {"name": "Neu", "ruleset": setup.default_ruleset().replace(deals=12, min_bid=200)},
        )
    db.session.expire_all()
    assert tournament.ruleset == before and tournament.name == "Herbstturnier"
    # the same rules again (the settings form sends them) and other settings: fine
    setup.update_settings(tournament, {"name": "Neu", "ruleset": setup.ruleset_of(tournament)})
    assert tournament.name == "Neu"


def test_rounds_never_fewer_than_drawn(in_app: Flask) -> None:
    tournament = tournament_with(6, rounds_=2)
    drawn(tournament)
    with pytest.raises(RulesError, match="1 to 12"):
        setup.update_settings(tournament, {"rounds": 0})
    setup.update_settings(tournament, {"rounds": 1})
    assert tournament.rounds == 1


def test_a_refused_change_changes_nothing(in_app: Flask) -> None:
    tournament = tournament_with(3)
    with pytest.raises(RulesError):
        setup.update_settings(tournament, {"name": "Neu", "public_url": "ftp://x"})
    db.session.expire_all()
    assert tournament.name == "Herbstturnier"


def test_recent_tournaments_of_this_device(in_app: Flask) -> None:
    one = setup.create_tournament(name="Eins")
    two = setup.create_tournament(name="Zwei")
    setup.create_tournament(name="Fremd")
    found = setup.recent_tournaments([one.token, two.token, "unknown", 7])  # type: ignore[list-item]
    assert {t.name for t in found} == {"Eins", "Zwei"}
    assert setup.recent_tournaments([]) == []
