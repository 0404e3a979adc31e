"""The organiser's board, paper slips and the change list, called as the pages call them.

A round of 9 players at three tables of three deals (tests/tournament_builders):
the board follows the tables (deal n of N, done, signed, quiet), its poll
state changes exactly when the board would; a paper slip is checked, counted
by the ranking's results and logged; the change list holds every change made
after a table was done, with the link it came from and what it was before.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask import Flask

from scorer import services
from scorer.extensions import db
from scorer.rules import RulesError
from scorer.services.tournaments import board, changes, rounds, tables
from scorer.services.tournaments.board import SlipChangedError
from scorer.services.tournaments.changes import HandShot
from scorer.services.writes import ORGANISER
from scorer.tournament_models import Round, Tournament, TournamentTable
from tests.tournament_builders import a_hand, drawn, play_round, tournament_with


def play(table: TournamentTable, hands: int = 1) -> None:
    match = table.match
    for _ in range(hands):
        services.save_hand(match, a_hand(match, declarer=services.standing(match).hand_count % 3))


def confirm_all(table: TournamentTable) -> None:
    for player in table.players:
        tables.confirm(table, player)


def a_round(players: int = 9) -> tuple[Tournament, Round]:
    tournament = tournament_with(players)
    return tournament, drawn(tournament, 1)


# -- the board -------------------------------------------------------------------------


def test_the_board_before_the_first_draw_is_empty(in_app: Flask) -> None:
    tournament = tournament_with(9)
    shown = board.board(tournament)
    assert shown.row is None and shown.tables == ()
    assert board.page_of(shown, 1) == board.BoardPage((), 1, 1)


def test_the_board_follows_every_table(in_app: Flask) -> None:
    tournament, row = a_round()
    first, second, third = row.tables
    play(first, 3)
    confirm_all(first)
    play(second, 3)
    tables.confirm(second, second.players[0])
    play(third, 1)
    shown = board.board(tournament)
    page = board.page_of(shown, 1).tables
    assert [t.number for t in page] == [1, 2, 3]
    assert [t.id for t in page] == [first.id, second.id, third.id]
    assert [t.deal for t in page] == [3, 3, 2]
    assert [(t.state.played, t.state.deals) for t in page] == [(3, 3), (3, 3), (1, 3)]
    assert [t.finished for t in page] == [True, True, False]
    assert [t.state.signed for t in page] == [True, False, False]
    assert [t.state.confirmed for t in page] == [
        frozenset(first.players),
        frozenset(second.players[:1]),
        frozenset(),
    ]
    assert (shown.finished, shown.signed) == (2, 1)
    assert shown.unfinished == [3]
    assert shown.unsigned == [2]
    names = {e.id: e.name for e in tournament.entrants}
    assert [p.name for p in page[0].players] == [names[p] for p in first.players]
    assert [p.id for p in page[0].players] == list(first.players)


def test_each_page_of_the_board_shows_its_tables_and_the_counts_are_over_all(
    in_app: Flask,
) -> None:
    """Seven tables in pages of three (3, 3, 1): each page reads its own tables;
    what the board counts and lists is over all seven, whichever page is shown."""
    tournament, row = a_round(21)
    by_number = {t.number: t for t in row.tables}
    play(by_number[1], 3)  # done, unsigned
    play(by_number[6], 3)
    confirm_all(by_number[6])  # done and signed
    play(by_number[7], 3)
    confirm_all(by_number[7])
    services.delete_hand(by_number[7].match, by_number[7].match.hands[0])  # changed
    play(by_number[7], 1)
    board.set_paper(tournament, by_number[4], {p: (0, 0) for p in by_number[4].players})
    shown = board.board(tournament)
    pages = [board.page_of(shown, n, rows=3) for n in (1, 2, 3)]
    assert [[t.number for t in p.tables] for p in pages] == [[1, 2, 3], [4, 5, 6], [7]]
    assert {(p.page, p.pages) for p in pages} == {(1, 3), (2, 3), (3, 3)}
    assert board.page_of(shown, 99, rows=3).tables == pages[2].tables  # beyond: the last
    assert board.page_of(shown, 0, rows=3).tables == pages[0].tables
    assert len(shown.tables) == 7
    assert (shown.finished, shown.signed) == (4, 2)  # 1, 4 (paper), 6, 7; 4 and 6
    assert shown.unfinished == [2, 3, 5]
    assert shown.unsigned == [1, 7]
    assert shown.changed == [7]
    people = {e.id: e.name for e in tournament.entrants}
    for page in pages:
        for t in page.tables:
            table = by_number[t.number]
            assert t.id == table.id
            assert [p.name for p in t.players] == [people[p] for p in table.players]
            assert t.state.paper == (t.number == 4)


def test_a_table_quiet_for_ten_minutes_is_flagged(in_app: Flask) -> None:
    tournament, row = a_round()
    play(row.tables[0], 3)  # done: never quiet
    play(row.tables[1], 1)
    last = row.tables[1].match.updated_at
    soon = board.board(tournament, now=last + timedelta(minutes=9))
    assert soon.quiet == []
    later = board.board(tournament, now=last + timedelta(minutes=10))
    assert 2 in later.quiet and 1 not in later.quiet
    assert board.page_of(later, 1).tables[1].quiet_since == last
    much_later = board.board(tournament, now=last + timedelta(hours=2))
    assert much_later.quiet == [2, 3]  # table 3 has entered nothing since the draw


def test_a_closed_round_has_no_quiet_tables(in_app: Flask) -> None:
    tournament, row = a_round()
    play_round(row)
    rounds.close_round(tournament, row)
    later = board.board(tournament, now=row.closed_at + timedelta(hours=1))  # type: ignore[operator]
    assert later.quiet == []
    assert all(t.quiet_since is None for t in board.page_of(later, 1).tables)


def test_the_poll_state_changes_exactly_when_the_board_does(in_app: Flask) -> None:
    tournament, row = a_round()
    token = tournament.token
    now = row.tables[0].match.updated_at + timedelta(minutes=1)
    start = board.poll_state(token, now)
    assert start is not None
    assert board.poll_state(token, now) == start  # nothing happened
    play(row.tables[0])
    after_hand = board.poll_state(token, now)
    assert after_hand is not None and after_hand[0] != start[0]
    play(row.tables[0], 2)
    done = board.poll_state(token, now)
    confirm_all(row.tables[0])
    signed = board.poll_state(token, now)
    assert signed is not None and done is not None and signed[0] != done[0]
    # time passes: two tables turn quiet without anybody writing
    quiet = board.poll_state(token, now + timedelta(minutes=30))
    assert quiet is not None and quiet[0] != signed[0]
    assert board.poll_state("no-such-token") is None


def test_the_poll_state_follows_the_newest_round(in_app: Flask) -> None:
    tournament, row = a_round()
    play_round(row)
    rounds.close_round(tournament, row)
    closed = board.poll_state(tournament.token)
    drawn(tournament, 2)
    second = board.poll_state(tournament.token)
    assert closed is not None and second is not None and closed[0] != second[0]
    assert ".n3." in second[0]


# -- paper slips -----------------------------------------------------------------------


def slip_for(table: TournamentTable, *values: tuple[int, int]) -> dict[int, tuple[int, int]]:
    return dict(zip(table.players, values, strict=True))


def test_a_paper_slip_counts_in_the_results(in_app: Flask) -> None:
    tournament, row = a_round()
    table = row.tables[0]
    play(table, 1)  # the phone died after one deal
    slip = slip_for(table, (420, 0), (-150, 2), (90, 1))
    assert board.set_paper(tournament, table, slip)
    assert table.paper == {str(p): list(v) for p, v in slip.items()}
    results = tables.results(row)
    assert [results[p] for p in table.players] == [
        tables.Result(420, 0, paper=True),
        tables.Result(-150, 2, paper=True),
        tables.Result(90, 1, paper=True),
    ]
    state = board.page_of(board.board(tournament), 1).tables[0]
    assert state.finished and state.state.signed and state.state.paper
    assert 1 not in rounds.unfinished(row)


def test_the_same_slip_twice_changes_nothing(in_app: Flask) -> None:
    tournament, row = a_round()
    table = row.tables[0]
    slip = slip_for(table, (10, 0), (20, 0), (30, 0))
    shown = board.slip_digest(table.paper)
    assert board.set_paper(tournament, table, slip, shown=shown)
    version = table.match.version
    assert not board.set_paper(tournament, table, slip, shown=shown)  # a double tap
    assert table.match.version == version
    assert len(table.paper_log or []) == 1


def test_a_slip_changed_in_another_tab_is_not_overwritten(in_app: Flask) -> None:
    tournament, row = a_round()
    table = row.tables[0]
    shown = board.slip_digest(None)
    board.set_paper(tournament, table, slip_for(table, (10, 0), (20, 0), (30, 0)), shown=shown)
    with pytest.raises(SlipChangedError):
        board.set_paper(tournament, table, slip_for(table, (90, 0), (90, 0), (90, 0)), shown=shown)
    assert table.paper is not None
    assert [table.paper[str(p)] for p in table.players] == [[10, 0], [20, 0], [30, 0]]


def test_a_slip_can_be_removed(in_app: Flask) -> None:
    tournament, row = a_round()
    table = row.tables[0]
    board.set_paper(tournament, table, slip_for(table, (10, 0), (20, 0), (30, 0)))
    assert board.set_paper(tournament, table, None)
    assert table.paper is None
    assert 1 in rounds.unfinished(row)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({0: (10, 0), 1: (20, 0)}, "every player"),
        ({0: (10, 0), 1: (20, 0), 2: (30, 0), 99: (40, 0)}, "every player"),
        ({0: (50_010, 0), 1: (20, 0), 2: (30, 0)}, "points"),
        ({0: (-(10**309), 0), 1: (20, 0), 2: (30, 0)}, "points"),
        ({0: (True, 0), 1: (20, 0), 2: (30, 0)}, "points"),
        ({0: (1.5, 0), 1: (20, 0), 2: (30, 0)}, "points"),
        ({0: (10, -1), 1: (20, 0), 2: (30, 0)}, "lost games"),
        ({0: (10, 4), 1: (20, 0), 2: (30, 0)}, "lost games"),
        # tricks rounded to ten: no game of these rules makes 95 points
        ({0: (10, 0), 1: (95, 0), 2: (30, 0)}, "cannot be played with these rules"),
        # three deals, one declarer each: four lost games cannot be
        ({0: (10, 2), 1: (20, 1), 2: (30, 1)}, "lost games together"),
    ],
)
def test_a_slip_is_checked(
    in_app: Flask, values: dict[int, tuple[object, object]], message: str
) -> None:
    tournament, row = a_round()
    table = row.tables[0]
    seats = list(table.players)
    slip = {(seats[k] if k < 3 else k): v for k, v in values.items()}
    with pytest.raises(RulesError) as refused:
        board.set_paper(tournament, table, slip)  # type: ignore[arg-type]
    assert message in str(refused.value)
    db.session.refresh(table)
    assert table.paper is None and table.paper_log is None


def test_a_slip_holds_a_table_of_four_up_to_its_deals(in_app: Flask) -> None:
    tournament, row = a_round(10)
    four = next(t for t in row.tables if len(t.players) == 4)
    assert board.set_paper(tournament, four, slip_for(four, (0, 4), (0, 0), (0, 0), (0, 0)))
    with pytest.raises(RulesError):
        board.set_paper(tournament, four, slip_for(four, (0, 5), (0, 0), (0, 0), (0, 0)))


# -- the change list -------------------------------------------------------------------


def test_done_index_replays_the_history() -> None:
    assert changes.done_index(["created"] * 3, 3) == 2
    assert changes.done_index(["created", "corrected", "created", "created"], 3) == 3
    assert changes.done_index(["created", "deleted", "created", "restored"], 2) == 3
    assert changes.done_index(["created", "created"], 3) is None
    assert changes.done_index([], 3) is None


def test_link_then_counts_the_links_retired_by_then() -> None:
    from datetime import datetime

    nine, ten = datetime(2025, 11, 8, 21), datetime(2025, 11, 8, 22)
    assert changes.link_then([], ten) == 1
    assert changes.link_then([nine], ten) == 2
    assert changes.link_then([ten], nine) == 1
    assert changes.link_then([nine, ten], ten) == 3


def test_changes_before_a_table_is_done_are_not_listed(in_app: Flask) -> None:
    tournament, row = a_round()
    table = row.tables[0]
    play(table, 2)
    match = table.match
    first = services.live_hands(match)[0]
    services.save_hand(match, a_hand(match, declarer=2), hand=first)
    assert changes.changes(tournament) == []
    play(table, 1)
    assert changes.changes(tournament) == []  # the last deal is what made it done


def test_the_change_list_after_corrections_by_phone_and_organiser(in_app: Flask) -> None:
    tournament, row = a_round()
    table = row.tables[0]
    play(table, 3)
    match = table.match
    first = services.live_hands(match)[0]
    before = HandShot.of(first.events[-1].snapshot)
    # the Schreiber corrects the first deal after the last one
    services.save_hand(match, a_hand(match, declarer=1), hand=first)
    # the phone is replaced; the new one strikes the second deal and brings it back
    rounds.replace_link(tournament, table)
    second = services.live_hands(match)[1]
    services.delete_hand(match, second)
    services.restore_hand(match, second)
    # the round is closed; the organiser corrects the first deal again
    for other in row.tables[1:]:
        play(other, 3)
    rounds.close_round(tournament, row)
    services.save_hand(match, a_hand(match, declarer=2), hand=first, via=ORGANISER)

    listed = changes.changes(tournament)
    assert [(c.action, c.deal, c.link) for c in listed] == [
        ("corrected", 1, None),
        ("restored", 2, 2),
        ("deleted", 2, 2),
        ("corrected", 1, 1),
    ]
    by_phone = listed[-1]
    assert by_phone.round == 1 and by_phone.table.number == 1 and not by_phone.by_organiser
    assert by_phone.before == before
    assert by_phone.after.declarer == 1
    assert by_phone.after.points != before.points
    organiser = listed[0]
    assert organiser.by_organiser
    assert organiser.before == by_phone.after  # a correction's before: the event before it
    assert organiser.after.declarer == 2
    deleted, restored = listed[2], listed[1]
    assert deleted.before is not None and deleted.after is None
    assert restored.before is None and restored.after == deleted.before
    assert [c.at for c in listed] == sorted((c.at for c in listed), reverse=True)


def test_at_a_table_of_four_the_change_names_who_sat_the_deal_out(in_app: Flask) -> None:
    tournament, row = a_round(10)  # tables of 4, 3, 3
    table = row.tables[0]
    assert len(table.players) == 4
    match = table.match
    for _ in range(4):  # a table of four plays 3 × 4/3 deals
        services.save_hand(match, a_hand(match))
    second = services.live_hands(match)[1]
    services.save_hand(match, a_hand(match, declarer=2), hand=second)
    (change,) = changes.changes(tournament)
    assert change.deal == 2 and change.sits_out == second.dealer_seat
    three = row.tables[1]
    play(three, 3)
    first = services.live_hands(three.match)[0]
    services.save_hand(three.match, a_hand(three.match, declarer=1), hand=first)
    assert changes.changes(tournament)[0].sits_out is None


def test_a_correction_saved_unchanged_is_no_change(in_app: Flask) -> None:
    tournament, row = a_round()
    table = row.tables[0]
    play(table, 3)
    match = table.match
    first = services.live_hands(match)[0]
    services.save_hand(match, services.input_of(first), hand=first, via=ORGANISER)
    assert changes.changes(tournament) == []


def test_the_change_list_holds_the_paper_slips(in_app: Flask) -> None:
    tournament, row = a_round()
    table = row.tables[2]
    board.set_paper(tournament, table, slip_for(table, (300, 0), (100, 1), (-50, 2)))
    board.set_paper(tournament, table, slip_for(table, (300, 0), (110, 1), (-50, 2)))
    listed = changes.changes(tournament)
    assert [(c.action, c.table.number, c.by_organiser) for c in listed] == [
        ("paper", 3, True),
        ("paper", 3, True),
    ]
    assert listed[1].before is None
    assert listed[1].after == ((300, 0), (100, 1), (-50, 2))
    assert listed[0].before == listed[1].after
    assert listed[0].after == ((300, 0), (110, 1), (-50, 2))
    assert listed[0].names == tuple(board.seat_names(tournament, table))
