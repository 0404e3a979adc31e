"""The rounds of a tournament, called as the organiser's pages call them.

Drawing (one draw however many tabs ask, refused with a reason when it cannot
be), drawing again before the first hand, replacing a table's link, closing a
round (refused while a table plays, harmless twice) and what a closed round
still lets through: the organiser's corrections, never the table phone's.
"""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy import func, select

from scorer import services
from scorer.extensions import db
from scorer.models import Match
from scorer.rules import RulesError
from scorer.services import ConflictError, LockedError
from scorer.services.tournaments import board as boards
from scorer.services.tournaments import rounds, setup
from scorer.services.writes import ORGANISER
from scorer.tournament_models import Entrant, RedrawnLink, RetiredLink, Round
from scorer.words import rules_message
from tests.races import in_context, interleave
from tests.tournament_builders import a_hand, drawn, play_round, tournament_with


def rounds_in_db() -> int:
    return int(db.session.execute(select(func.count()).select_from(Round)).scalar_one())


def seated(row: Round) -> list[list[int]]:
    return [list(t.players) for t in row.tables]


# -- the draw --------------------------------------------------------------------------


def test_drawing_the_same_round_twice_makes_one_draw(in_app: Flask) -> None:
    tournament = tournament_with(9)
    first = rounds.draw_round(tournament, 1)
    again = rounds.draw_round(tournament, 1)
    assert again.id == first.id
    assert rounds_in_db() == 1
    assert [t.number for t in first.tables] == [1, 2, 3]
    assert sorted(p for t in first.tables for p in t.players) == [e.id for e in tournament.entrants]


def test_a_tab_that_read_before_the_other_drew_gets_the_other_draw(in_app: Flask) -> None:
    """Two organiser tabs: this one read the tournament without rounds, the other drew
    and committed in between; this one's insert meets the unique round number."""
    tournament = tournament_with(9)
    assert tournament.round_rows == []  # read: no round yet
    token = tournament.token
    with in_app.app_context():  # the other tab, a session of its own
        other = rounds.draw_round(setup.get_tournament(token), 1)
        other_id, other_tables = other.id, seated(other)
        db.session.remove()
    mine = rounds.draw_round(tournament, 1)
    assert mine.id == other_id
    assert seated(mine) == other_tables
    assert rounds_in_db() == 1
    # and not a single match of the draw that lost is left behind
    assert db.session.execute(select(func.count()).select_from(Match)).scalar_one() == 3


@pytest.mark.parametrize("players", [0, 1, 2, 5])
def test_a_round_needs_players_that_make_tables(in_app: Flask, players: int) -> None:
    tournament = tournament_with(players)
    with pytest.raises(RulesError) as refused:
        rounds.draw_round(tournament, 1)
    assert "check in" in str(refused.value)
    assert rounds_in_db() == 0


def test_the_next_round_waits_for_the_last_to_close(in_app: Flask) -> None:
    tournament = tournament_with(9)
    drawn(tournament, 1)
    assert rounds.next_number(tournament) is None
    with pytest.raises(RulesError) as refused:
        rounds.draw_round(tournament, 2)
    assert str(refused.value) == "close round 1 before drawing the next"
    with pytest.raises(RulesError):
        rounds.draw_round(tournament, 3)  # no skipping either
    assert rounds_in_db() == 1


def test_after_the_last_round_nothing_more_is_drawn(in_app: Flask) -> None:
    tournament = tournament_with(9, rounds_=1)
    row = drawn(tournament, 1)
    play_round(row)
    rounds.close_round(tournament, row)
    assert rounds.next_number(tournament) is None
    with pytest.raises(RulesError) as refused:
        rounds.draw_round(tournament, 2)
    assert "all are drawn" in str(refused.value)


def test_the_draw_keeps_players_apart_from_earlier_table_mates(in_app: Flask) -> None:
    tournament = tournament_with(9, rounds_=3)
    for number in (1, 2, 3):
        assert rounds.next_number(tournament) == number
        row = drawn(tournament, number)
        assert row.seed == f"{tournament.seed}-{number}"
        # round 1 has nobody met before: nothing to count (the rules' met_again)
        assert rounds.repeated_pairs(tournament, row) == (None if number == 1 else 0)
        play_round(row)
        rounds.close_round(tournament, row)


def test_repeated_pairs_counts_earlier_meetings(in_app: Flask) -> None:
    """Four players in two rounds: a table of four meets itself again, six pairs."""
    tournament = tournament_with(4)
    first = drawn(tournament, 1)
    assert rounds.repeated_pairs(tournament, first) is None
    play_round(first)
    rounds.close_round(tournament, first)
    second = drawn(tournament, 2)
    assert rounds.repeated_pairs(tournament, second) == 6


def test_a_late_arrival_is_drawn_from_their_round(in_app: Flask) -> None:
    tournament = tournament_with(9)
    play_round(first := drawn(tournament, 1))
    rounds.close_round(tournament, first)
    tournament.entrants.append(Entrant(name="Zenzi", number=10, from_round=2))
    db.session.commit()
    second = drawn(tournament, 2)
    assert [len(t.players) for t in second.tables] == [4, 3, 3]


# -- drawing again ---------------------------------------------------------------------


def test_drawing_again_before_the_first_hand(in_app: Flask) -> None:
    tournament = tournament_with(12)
    row = drawn(tournament, 1)
    old_tokens = {t.match.token for t in row.tables}
    again = rounds.redraw(tournament, row, attempt=1)
    assert again.attempt == 2
    assert again.seed == f"{tournament.seed}-1-2"
    assert {t.match.token for t in again.tables}.isdisjoint(old_tokens)
    assert db.session.execute(select(func.count()).select_from(Match)).scalar_one() == 4


def test_drawing_again_from_a_stale_page_is_a_conflict(in_app: Flask) -> None:
    tournament = tournament_with(9)
    row = drawn(tournament, 1)
    rounds.redraw(tournament, row, attempt=1)
    with pytest.raises(ConflictError):
        rounds.redraw(tournament, row, attempt=1)  # the other tab already drew again
    assert row.attempt == 2


def test_the_draw_stands_once_a_table_has_entered_a_hand(in_app: Flask) -> None:
    tournament = tournament_with(9)
    row = drawn(tournament, 1)
    play_round(row, hands=0)
    match = row.tables[2].match
    services.save_hand(match, a_hand(match))
    assert rounds.has_hands(row)
    assert rounds.started(row) == [3]
    with pytest.raises(RulesError) as refused:
        rounds.redraw(tournament, row, attempt=1)
    assert str(refused.value) == "table 3 has started: round 1 can no longer be drawn again"
    assert row.attempt == 1


def test_a_paper_slip_starts_a_table_too(in_app: Flask) -> None:
    tournament = tournament_with(9)
    row = drawn(tournament, 1)
    table = row.tables[1]
    boards.set_paper(tournament, table, {p: (0, 0) for p in table.players})
    with pytest.raises(RulesError, match="table 2 has started"):
        rounds.redraw(tournament, row, attempt=1)


def test_a_first_hand_saved_while_the_draw_is_made_again_is_kept(in_app: Flask) -> None:
    """The phone's first hand commits after the organiser's request read the round
    and before it writes: the redraw runs again, sees the hand and refuses."""
    tournament = tournament_with(9)
    row = drawn(tournament, 1)
    match_id, token = row.tables[0].match_id, row.tables[0].match.token
    organiser, round_id = tournament.token, row.id

    def phone() -> object:
        match = services.get_match(token)
        return services.save_hand(match, a_hand(match))

    def redraw() -> object:
        again = setup.get_tournament(organiser)
        return rounds.redraw(again, db.session.get_one(Round, round_id), attempt=1)

    db.session.commit()
    refused, _ = interleave(in_context(in_app, redraw), in_context(in_app, phone))
    assert isinstance(refused, RulesError)
    assert "table 1 has started" in str(refused)
    db.session.expire_all()
    assert len(db.session.get_one(Match, match_id).hands) == 1
    assert db.session.get_one(Round, row.id).attempt == 1


def test_a_redraw_keeps_the_tables_matches_and_retires_their_links(in_app: Flask) -> None:
    tournament = tournament_with(10)
    row = drawn(tournament, 1)
    before = {t.number: (t.match_id, t.match.token, list(t.players)) for t in row.tables}
    rounds.redraw(tournament, row, attempt=1)
    db.session.expire_all()
    row = db.session.get_one(Round, row.id)
    assert [len(t.players) for t in row.tables] == [4, 3, 3]
    for table in row.tables:
        match_id, token, _ = before[table.number]
        assert table.match_id == match_id  # the same match, its seats the new players
        assert table.match.token != token
        assert [s.name for s in table.match.seats] == [
            db.session.get_one(Entrant, p).name for p in table.players
        ]
        assert isinstance(rounds.retired(token), RedrawnLink)
    assert [list(t.players) for t in row.tables] != [before[n][2] for n in (1, 2, 3)]


# -- replacing a table's link ----------------------------------------------------------


def test_replacing_a_link_retires_the_old_one(in_app: Flask) -> None:
    tournament = tournament_with(9)
    table = drawn(tournament, 1).tables[0]
    match = table.match
    services.save_hand(match, a_hand(match))
    old = match.token
    new = rounds.replace_link(tournament, table)
    assert new != old and match.token == new
    assert table.link_number == 2
    retired = rounds.retired(old)
    assert retired is not None and retired.link_number == 1 and retired.match_id == match.id
    assert rounds.retired(new) is None
    with pytest.raises(services.NotFound):
        services.get_match(old)
    # the new phone continues at the same deal
    assert services.standing(services.get_match(new)).hand_count == 1
    rounds.replace_link(tournament, table)
    assert table.link_number == 3
    assert db.session.execute(select(func.count()).select_from(RetiredLink)).scalar_one() == 2


# -- closing a round -------------------------------------------------------------------


def test_closing_is_refused_while_tables_play(in_app: Flask) -> None:
    tournament = tournament_with(9)
    row = drawn(tournament, 1)
    play_round(row, hands=2)
    with pytest.raises(RulesError) as refused:
        rounds.close_round(tournament, row)
    assert refused.value.params == {"tables": "1, 2, 3"}
    with in_app.test_request_context("/?lang=en"):
        assert rules_message(refused.value).startswith("tables 1, 2, 3 have not finished")
    assert row.closed_at is None
    second = row.tables[1].match
    services.save_hand(second, a_hand(second))  # table 2 plays its last deal
    with pytest.raises(RulesError) as refused:
        rounds.close_round(tournament, row)
    assert str(refused.value).startswith("tables 1, 3 have not finished")


def test_closing_twice_is_harmless(in_app: Flask) -> None:
    tournament = tournament_with(9)
    row = drawn(tournament, 1)
    play_round(row)
    rounds.close_round(tournament, row)
    closed_at = row.closed_at
    version = tournament.version
    rounds.close_round(tournament, row)
    assert row.closed_at == closed_at
    assert tournament.version == version
    assert {t.match.locked for t in row.tables} == {"closed"}


def test_a_closed_round_takes_corrections_from_the_organiser_only(in_app: Flask) -> None:
    tournament = tournament_with(9)
    row = drawn(tournament, 1)
    play_round(row)
    rounds.close_round(tournament, row)
    match = row.tables[0].match
    hand = services.live_hands(match)[0]
    with pytest.raises(LockedError):
        services.save_hand(match, a_hand(match, declarer=1), hand=hand)
    services.save_hand(match, a_hand(match, declarer=1), hand=hand, via=ORGANISER)
    assert services.live_hands(match)[0].declarer_party == 1
