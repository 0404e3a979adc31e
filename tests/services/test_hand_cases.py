"""More use cases of a hand, called directly (no HTTP): what is refused leaves the database
as it was, a preview stores nothing, a correction is checked like a new hand, and a backup
goes out and comes back with the same sheet (or not at all)."""

from __future__ import annotations

import json

import pytest
from flask import Flask
from sqlalchemy import func, select

from scorer import services
from scorer.extensions import db
from scorer.models import GameSession, Hand, HandEvent
from scorer.rules import PRESETS, MeldError, RulesError
from scorer.services import BackupError, HandInput
from tests.builders import hand_input

NAMES = ["Anna", "Berta", "Carl"]


def count(model: type) -> int:
    return int(db.session.execute(select(func.count()).select_from(model)).scalar_one())


def new_match() -> object:
    return services.start_match(names=NAMES, ruleset=PRESETS["standard"], title="Krone")


def test_an_impossible_meld_total_is_refused_and_nothing_is_stored(in_app: Flask) -> None:
    match = new_match()
    version = match.version
    data = HandInput(declarer=0, bid=200, trump="H", melds=[100, 5000, 0], tricks=[180, 60, None])
    with pytest.raises(MeldError) as caught:
        services.save_hand(match, data)
    assert caught.value.params["party"] == 1
    db.session.rollback()
    assert (count(Hand), count(HandEvent), match.version) == (0, 0, version)


def test_a_preview_settles_without_storing(in_app: Flask) -> None:
    match = new_match()
    settled = services.preview(match, hand_input(3, 0))
    assert settled.points == [230, 80, 80]
    assert count(Hand) == 0


def test_a_correction_is_checked_like_a_new_hand(in_app: Flask) -> None:
    match = new_match()
    hand = services.save_hand(match, hand_input(3, 0))
    hand = services.get_hand(match, hand.id)
    wrong = HandInput(declarer=0, bid=150, trump="E", melds=[30, 20, 20], tricks=[130, 60, 60])
    with pytest.raises(RulesError):
        services.save_hand(match, wrong, hand=hand, version=match.version)
    db.session.rollback()
    assert services.sheet(match).totals == [230, 80, 80]
    assert [e.action for e in hand.events] == ["created"]


def test_a_struck_hand_counts_again_when_restored_and_its_history_says_so(in_app: Flask) -> None:
    match = new_match()
    hand = services.get_hand(match, services.save_hand(match, hand_input(3, 0)).id)
    services.delete_hand(match, hand, match.version)
    assert services.sheet(match).totals == [0, 0, 0]
    services.restore_hand(match, hand, match.version)
    assert services.sheet(match).totals == [230, 80, 80]
    assert [e.action for e in hand.events] == ["created", "deleted", "restored"]


def test_a_backup_comes_back_with_the_same_sheet(in_app: Flask) -> None:
    match = new_match()
    for n in range(6):
        services.save_hand(match, hand_input(3, n))
    before = services.sheet(match)
    with in_app.test_request_context("/"):
        data = services.export_all()
    with in_app.test_request_context("/"):
        [row] = services.import_backup(json.dumps(data))
    assert row.title == "Krone" and row.token != match.session.token
    [copy] = row.matches
    after = services.sheet(copy)
    assert after.totals == before.totals
    assert [r.points for r in after.rows] == [r.points for r in before.rows]


def test_a_poisoned_backup_imports_nothing(in_app: Flask) -> None:
    match = new_match()
    services.save_hand(match, hand_input(3, 0))
    with in_app.test_request_context("/"):
        data = services.export_all()
    sessions = count(GameSession)
    data["sessions"][0]["matches"][0]["hands"][0]["parties"][0]["points"] = 99999
    with in_app.test_request_context("/"), pytest.raises(BackupError):
        services.import_backup(json.dumps(data))
    db.session.rollback()
    assert count(GameSession) == sessions


@pytest.mark.parametrize(("at_fault", "ends"), [(2, True), (None, False)])
def test_a_forfeit_ends_a_match_when_the_rules_count_the_game_as_made(
    in_app: Flask, at_fault: int | None, ends: bool
) -> None:
    """Caught signalling (docs/rules.md section 12): the opponent's forfeit counts the
    declarer's game as made, so at the target it ends a match played "with a game"
    (section 6) like a made game; the declarer's own forfeit is a lost game and never
    ends it.  The sheet asks the rules (``verdict_of``), as the settlement said."""
    match = services.start_match(names=NAMES, ruleset=PRESETS["standard"].replace(target=300))
    data = HandInput(
        declarer=0, bid=300, trump="H", outcome="forfeit", melds=[100, 40, 0], at_fault=at_fault
    )
    hand = services.save_hand(match, data)
    sheet = services.sheet(match)
    assert sheet.finished is ends
    assert services.verdict(hand).declarer_won is ends
    if ends:
        assert sheet.totals[0] >= 300 and sheet.winner_names == ["Anna"]
