"""What the tournament's printouts show (services.tournaments.paper), read from real rounds.

The cards and slips name the players in seat order and, per deal, the dealer
and who sits out; the printed ranking after a round holds only the rounds up
to it and places them as the beamer does; certificates go to every player of
places 1-3.
"""

from __future__ import annotations

import pytest
from flask import Flask

from scorer.extensions import db
from scorer.rules import PRESETS
from scorer.rules.tournament import table_ruleset
from scorer.services import NotFound
from scorer.services.tournaments import board, entrants, paper, published, rounds
from scorer.tournament_models import Tournament
from tests.tournament_builders import drawn, play_round, tournament_with


def slips_for(tournament: Tournament, row_number: int, points: dict[int, tuple[int, int]]) -> None:
    """Every table of round ``row_number`` typed in from paper: start number → (points, lost)."""
    row = paper.round_row(tournament, row_number)
    numbers = {e.id: e.number for e in tournament.entrants}
    for table in row.tables:
        slip = {p: points[numbers[p] or 0] for p in table.players}
        board.set_paper(tournament, table, slip)


def test_a_table_of_four_deals_round_and_the_dealer_sits_out() -> None:
    four = paper.deal_lines(table_ruleset(PRESETS["turnier"], 4), 4)
    assert len(four) == 16
    assert [d.dealer for d in four] == [0, 1, 2, 3] * 4
    assert all(d.sits_out == d.dealer for d in four)
    three = paper.deal_lines(table_ruleset(PRESETS["turnier"], 3), 3)
    assert len(three) == 12
    assert [d.dealer for d in three[:4]] == [0, 1, 2, 0]
    assert all(d.sits_out is None for d in three)


def test_when_the_winner_deals_the_slip_leaves_the_dealer_open() -> None:
    ruleset = table_ruleset(PRESETS["turnier"].replace(dealer="winner"), 4)
    lines = paper.deal_lines(ruleset, 4)
    assert len(lines) == 16
    assert all(d.dealer is None and d.sits_out is None for d in lines)


def test_cards_and_slips_name_every_table_in_seat_order(app: Flask) -> None:
    with app.app_context():
        tournament = tournament_with(10)
        row = drawn(tournament, 1)
        people = {e.id: e for e in tournament.entrants}
        cards = paper.cards(tournament, [row])
        assert [c.table for c in cards] == [1, 2, 3]
        for card, table in zip(cards, row.tables, strict=True):
            assert [s.name for s in card.seats] == [people[p].name for p in table.players]
            assert [s.seat for s in card.seats] == list(range(1, len(table.players) + 1))
            assert card.seats[0].schreiber and not card.seats[1].schreiber
            assert card.token == table.match.token and card.round == 1
        assert cards[0].four and cards[0].deals == 4  # 3 deals at a table of three: 4 at four
        slips = paper.slips(tournament, row)
        assert [len(s.deals) for s in slips] == [4, 3, 3]
        assert [d.sits_out for d in slips[0].deals] == [0, 1, 2, 3]


def test_the_cards_of_every_round_come_round_by_round(app: Flask) -> None:
    with app.app_context():
        tournament = tournament_with(9)
        first = drawn(tournament, 1)
        play_round(first)
        rounds.close_round(tournament, first)
        second = drawn(tournament, 2)
        cards = paper.cards(tournament, [first, second])
        assert [(c.round, c.table) for c in cards] == [
            (1, 1),
            (1, 2),
            (1, 3),
            (2, 1),
            (2, 2),
            (2, 3),
        ]


def test_the_ranking_after_a_round_counts_only_the_rounds_up_to_it(app: Flask) -> None:
    with app.app_context():
        tournament = tournament_with(6, rounds_=2)
        tournament.tie_break = False
        db.session.commit()
        first = drawn(tournament, 1)
        slips_for(tournament, 1, {n: (100 * n, n % 2) for n in range(1, 7)})
        rounds.close_round(tournament, first)
        drawn(tournament, 2)
        slips_for(tournament, 2, {n: (700 - 100 * n, 1) for n in range(1, 7)})
        after_one = paper.ranking_after(tournament, 1)
        assert after_one.rounds == (1,) and after_one.closed and not after_one.final
        assert [line.number for line in after_one.lines] == [6, 5, 4, 3, 2, 1]
        assert [line.place for line in after_one.lines] == [1, 2, 3, 4, 5, 6]
        assert after_one.lines[0].rounds == (600,) and after_one.lines[0].paper == (True,)
        assert after_one.lines[0].lost == 0 and after_one.lines[1].lost == 1
        now = paper.ranking_after(tournament)
        assert now.after == 2 and now.provisional and not now.final
        assert {line.total for line in now.lines} == {700}
        assert all(line.place == 1 for line in now.lines)
        # the lost games of both rounds
        assert {line.number: line.lost for line in now.lines}[5] == 2


def test_the_final_ranking_is_the_beamers(app: Flask) -> None:
    with app.app_context():
        tournament = tournament_with(9, rounds_=2)
        for number in (1, 2):
            row = drawn(tournament, number)
            play_round(row)
            rounds.close_round(tournament, row)
        sheet = paper.ranking_after(tournament)
        assert sheet.final and not sheet.provisional
        beamer = published.fresh_standings(tournament.id)
        assert [(x.entrant_id, x.place, x.total, x.lost) for x in sheet.lines] == [
            (x.player.entrant_id, x.place, x.total, x.lost) for x in beamer.lines
        ]
        assert [x.rounds for x in sheet.lines] == [x.rounds for x in beamer.lines]


def test_certificates_go_to_every_player_sharing_a_place_up_to_three(app: Flask) -> None:
    with app.app_context():
        tournament = tournament_with(6, rounds_=1)
        tournament.tie_break = False
        db.session.commit()
        row = drawn(tournament, 1)
        scores = {1: 500, 2: 400, 3: 300, 4: 300, 5: 300, 6: 100}
        slips_for(tournament, 1, {n: (p, 0) for n, p in scores.items()})
        rounds.close_round(tournament, row)
        podium = paper.ranking_after(tournament).podium
        assert [(line.number, line.place) for line in podium] == [
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 3),
            (5, 3),
        ]


def test_a_player_who_left_is_marked_from_the_round_after_their_last(app: Flask) -> None:
    with app.app_context():
        tournament = tournament_with(7, rounds_=3)
        row = drawn(tournament, 1)
        play_round(row)
        rounds.close_round(tournament, row)
        leaving = next(e for e in tournament.entrants if e.number == 7)
        entrants.withdraw(tournament, leaving)
        row = drawn(tournament, 2)
        play_round(row)
        line = next(x for x in paper.ranking_after(tournament, 1).lines if x.number == 7)
        assert line.withdrawn  # gone before round 2: the ranking after round 1 says so
        later = next(x for x in paper.ranking_after(tournament, 2).lines if x.number == 7)
        assert later.withdrawn and later.rounds[1] is None


def test_a_round_not_drawn_names_nothing(app: Flask) -> None:
    with app.app_context():
        tournament = tournament_with(6)
        with pytest.raises(NotFound):
            paper.ranking_after(tournament)
        drawn(tournament, 1)
        for number in (0, 2, 10**9):
            with pytest.raises(NotFound):
                paper.round_row(tournament, number)
            with pytest.raises(NotFound):
                paper.ranking_after(tournament, number)
