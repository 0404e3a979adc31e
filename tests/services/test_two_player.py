"""The two-player hand in play (``services.two_player``): trump, melds one at a time, the close.

A meld shown adds to the hand whatever else was written meanwhile: a tap that lost a
race to another is run again by the unit of work, never refused; only a hand closed
meanwhile refuses a tap for it.
"""

from __future__ import annotations

import pytest
from flask import Flask

from scorer import services
from scorer.extensions import db
from scorer.models import Match
from scorer.rules import PRESETS
from scorer.services import HandClosedError
from tests.races import in_context, interleave

NAMES = ["Anna", "Berta"]


def a_match() -> Match:
    return services.start_match(names=NAMES, ruleset=PRESETS["zweier"])


def test_melds_are_written_one_at_a_time_and_count_live(in_app: Flask) -> None:
    match = a_match()
    services.set_trump(match, "H")
    services.write_meld(match, 0, "pair H", 40)
    services.write_meld(match, 1, "four A", 100)
    hand = services.open_hand(match)
    assert services.open_hand_melds(hand, 2) == [40, 100]
    assert services.live_totals(services.sheet(match)) == [40, 100]


def test_two_taps_at_once_both_count(in_app: Flask) -> None:
    """Two phones show a meld at the same moment: the later one's guarded write loses,
    runs again on the hand as the first left it, and both melds are written."""
    match = a_match()
    services.set_trump(match, "E")
    token = match.token

    def tap(party: int, name: str, points: int) -> None:
        services.write_meld(services.get_match(token), party, name, points)

    db.session.commit()
    late, early = interleave(
        in_context(in_app, lambda: tap(0, "pair E", 40)),
        in_context(in_app, lambda: tap(1, "pair G", 20)),
    )
    assert late is None and early is None
    hand = services.open_hand(services.get_match(token))
    assert sorted(services.open_hand_melds(hand, 2)) == [20, 40]


def test_a_tap_for_a_hand_closed_meanwhile_is_refused(in_app: Flask) -> None:
    match = a_match()
    services.set_trump(match, "S")
    services.write_meld(match, 0, "pair S", 40)
    services.finish_open_hand(match, [150, None], hand_number=1)
    with pytest.raises(HandClosedError):
        services.write_meld(match, 1, "pair G", 20, hand_number=1)


def test_a_meld_the_hand_cannot_show_is_refused(in_app: Flask) -> None:
    match = a_match()
    with pytest.raises(services.RulesError):
        services.write_meld(match, 0, "pair H", 0)
    with pytest.raises(services.RulesError):
        services.write_meld(match, 2, "pair H", 40)


@pytest.mark.parametrize(
    ("trump", "name", "points"),
    [
        ("H", "pair H", 20),  # a trump pair is worth 40
        ("E", "pair H", 40),  # a plain pair 20
        (None, "pair H", 30),  # 20 or 40, never 30
        ("H", "four A", 5000),  # "1 to 5000" was the old guess; the rules say 100
        (None, "four 10", 100),  # no meld in these house rules
        (None, "diss", 10),  # no Diss without sevens
    ],
)
def test_a_meld_is_worth_what_the_rules_give_it(
    in_app: Flask, trump: str | None, name: str, points: int
) -> None:
    match = a_match()
    if trump is not None:
        services.set_trump(match, trump)
    with pytest.raises(services.RulesError):
        services.write_meld(match, 0, name, points)
    open_hand = services.sheet(match).open_hand
    assert open_hand is None or open_hand.meld_log == []


@pytest.mark.parametrize(("points", "kept"), [(20, True), (40, True), (5000, False), (30, False)])
def test_a_backup_keeps_a_meld_at_a_value_the_rules_give_it(
    in_app: Flask, points: int, kept: bool
) -> None:
    """A restored two-player hand keeps its melds as shown, each at a value its meld has
    under some trump (it may have been shown before the trump was turned): a pair in Herz
    at 20 or 40, never 30 or 5000 (the old guess "1 to 5000")."""
    match = a_match()
    services.write_meld(match, 0, "pair H", 20)
    data = services.export_sessions([match.session])
    data["sessions"][0]["matches"][0]["hands"][0]["meld_log"][0]["points"] = points
    sessions = db.session.query(Match).count()
    if kept:
        (restored,) = services.import_backup(services.dumps(data))
        assert [m.points for m in restored.matches[0].hands[0].meld_log] == [points]
    else:
        with pytest.raises(services.BackupError) as refused:
            services.import_backup(services.dumps(data))
        assert "'pair H' is worth 20 or 40 here" in str(refused.value)
        assert db.session.query(Match).count() == sessions
