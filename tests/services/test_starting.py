"""Starting matches (``services.starting``), called as the setup page and "next match" call it.

One use case, one transaction: the same setup form sent twice makes one session,
the same form with other players is refused, and a race with a twin is run again
by the unit of work until it lands in the twin's match.
"""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy import func, select

from scorer import services
from scorer.extensions import db
from scorer.models import GameSession, Match, Player
from scorer.rules import PRESETS, RulesError
from scorer.services import KeyReusedError
from tests.builders import hand_input
from tests.races import in_context, interleave

NAMES = ["Anna", "Berta", "Carl"]


def count(model: type) -> int:
    return int(db.session.execute(select(func.count()).select_from(model)).scalar_one())


def test_a_match_remembers_its_players_for_the_autocomplete(in_app: Flask) -> None:
    match = services.start_match(names=[" Anna ", "Berta", "Carl"], ruleset=PRESETS["standard"])
    assert sorted(db.session.execute(select(Player.name)).scalars()) == NAMES
    # offered again on the device that opened the session, and only there
    assert services.known_players([match.session.token], "b") == ["Berta"]
    assert services.known_players(["another-device"], "b") == []


def test_the_same_setup_form_twice_starts_one_session(in_app: Flask) -> None:
    first = services.start_match(names=NAMES, ruleset=PRESETS["standard"], idempotency_key="k1")
    again = services.start_match(names=NAMES, ruleset=PRESETS["standard"], idempotency_key="k1")
    assert again.id == first.id and count(GameSession) == 1


def test_the_same_form_with_other_players_is_refused(in_app: Flask) -> None:
    services.start_match(names=NAMES, ruleset=PRESETS["standard"], idempotency_key="k1")
    with pytest.raises(KeyReusedError):
        services.start_match(names=["Dora", *NAMES[1:]], ruleset=PRESETS["standard"],
                             idempotency_key="k1")  # fmt: skip
    assert count(GameSession) == 1


def test_a_ruleset_for_other_players_is_refused_and_nothing_is_made(in_app: Flask) -> None:
    with pytest.raises(RulesError, match="for 4 players"):
        services.start_match(names=NAMES, ruleset=PRESETS["kreuzbinokel"])
    assert count(Match) == 0


def test_two_setup_forms_sent_at_once_make_one_session(in_app: Flask) -> None:
    """The second read no session under the key, then the first committed it: its insert
    meets the unique key, the unit of work runs it again, and it finds the first one's."""

    def start() -> int:
        return services.start_match(
            names=NAMES, ruleset=PRESETS["standard"], idempotency_key="twice"
        ).id

    db.session.commit()
    late, early = interleave(in_context(in_app, start), in_context(in_app, start))
    assert late == early
    assert count(GameSession) == 1


def test_next_match_of_a_finished_one_is_made_once_with_the_deal_moved_on(in_app: Flask) -> None:
    match = services.start_match(names=NAMES, ruleset=PRESETS["standard"].replace(target=300))
    while not services.standing(match).finished:
        services.save_hand(match, hand_input(3, services.standing(match).hand_count))
    second = services.next_match(match)
    assert services.next_match(match).id == second.id
    assert second.number == 2 and second.session_id == match.session_id
    assert second.first_dealer != match.first_dealer or services.standing(match).winners
