"""The use cases that change a round's paper announce it, once, after their commit.

A draw, a redraw, a new table link, a corrected name or club, new settings and a
closed round each announce an event (:mod:`scorer.services.events`); a refusal
announces nothing, and a correction that changes nothing on paper (a household)
announces nothing either.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from scorer.rules import RulesError
from scorer.services import bus
from scorer.services.events import (
    PlayerRenamed,
    RoundClosed,
    RoundDrawn,
    RoundRedrawn,
    TableLinkReplaced,
    TournamentSettingsChanged,
)
from scorer.services.tournaments import board, entrants, rounds, setup
from tests.tournament_builders import tournament_with

KINDS = (
    RoundDrawn,
    RoundRedrawn,
    TableLinkReplaced,
    RoundClosed,
    PlayerRenamed,
    TournamentSettingsChanged,
)


@pytest.fixture
def heard() -> Iterator[list[object]]:
    seen: list[object] = []
    for kind in KINDS:
        bus.register(kind, seen.append)
    yield seen
    for kind in KINDS:
        bus.unregister(kind, seen.append)


def test_each_change_of_a_rounds_paper_is_announced(in_app: Flask, heard: list[object]) -> None:
    tournament = tournament_with(9, rounds_=2)
    t = tournament.id
    row = rounds.draw_round(tournament, 1)
    assert heard == [RoundDrawn(t, 1)]
    rounds.draw_round(tournament, 1)  # the same round again (a second tab): nothing new
    assert heard == [RoundDrawn(t, 1)]
    rounds.redraw(tournament, row, 1)
    table = row.tables[1]
    rounds.replace_link(tournament, table)
    entrant = next(e for e in tournament.entrants if e.number is not None)
    entrants.edit(tournament, entrant, entrant.name, entrant.club, "Haus 3")  # not on paper
    entrants.edit(tournament, entrant, "Walburga", entrant.club, "Haus 3")
    setup.update_settings(tournament, {"place": "Krone"})
    assert heard[1:] == [
        RoundRedrawn(t, 1),
        TableLinkReplaced(t, 1, table.number),
        PlayerRenamed(t, entrant.id),
        TournamentSettingsChanged(t),
    ]
    numbers = {e.id: e.number or 0 for e in tournament.entrants}
    for each in row.tables:
        board.set_paper(tournament, each, {p: (numbers[p] * 10, 0) for p in each.players})
    rounds.close_round(tournament, row)
    assert heard[-1] == RoundClosed(t, 1)


def test_a_refused_change_announces_nothing(in_app: Flask, heard: list[object]) -> None:
    tournament = tournament_with(9, rounds_=2)
    row = rounds.draw_round(tournament, 1)
    heard.clear()
    with pytest.raises(RulesError):
        rounds.close_round(tournament, row)  # no table has played
    with pytest.raises(RulesError):
        setup.update_settings(tournament, {"rounds": 0})
    assert heard == []
