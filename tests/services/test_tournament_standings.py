"""The public link's standings: the ranking, progress, seating, a player's page, the poll state."""

from __future__ import annotations

from flask import Flask

from scorer import services
from scorer.extensions import db
from scorer.services.tournaments import public_state, published, rounds, seating, setup, standings
from scorer.services.tournaments.standings import Standings
from scorer.services.tournaments.tables import results
from scorer.tournament_models import Entrant, Tournament
from tests.tournament_builders import a_hand, drawn, play_round, tournament_with


def _view(tournament: Tournament) -> Standings:
    db.session.expire_all()
    return published.fresh_standings(tournament.id)


def _line(current: Standings, name: str) -> standings.Line:
    return next(x for x in current.lines if x.player.name == name)


def _tag(tournament: Tournament) -> str:
    state = standings.poll_state(tournament.view_token)
    assert state is not None
    return state.tag


def _give(tournament: Tournament, number: int, name: str, points: int, lost: int = 0) -> None:
    """Set one player's points of round ``number`` through a paper slip of their table."""
    row = next(r for r in tournament.round_rows if r.number == number)
    entrant = next(e for e in tournament.entrants if e.name == name)
    table = next(t for t in row.tables if entrant.id in t.players)
    slip = dict(table.paper or {str(p): [0, 0] for p in table.players})
    slip[str(entrant.id)] = [points, lost]
    table.paper = slip
    setup.bump(tournament)
    db.session.commit()


def test_before_the_draw_the_registered_players_and_no_ranking(in_app: Flask) -> None:
    tournament = tournament_with(6)
    tournament.entrants.append(Entrant(name="Zenzi"))  # registered, not checked in
    db.session.commit()
    current = _view(tournament)
    assert not current.drawn and not current.provisional and not current.final
    assert current.lines == () and current.progress is None and current.seats == ()
    assert [p.name for p in current.players][:2] == ["Anna", "Bertl"]
    assert current.players[-1].name == "Zenzi" and current.players[-1].number is None
    # the name list to pick from holds only players with a start number
    assert "Zenzi" not in [p.name for p in seating.listed(current)]


def test_points_per_round_total_and_lost_games_from_the_matches(in_app: Flask) -> None:
    tournament = tournament_with(6, deals=3)
    first = drawn(tournament)
    play_round(first)
    rounds.close_round(tournament, first)
    second = drawn(tournament, 2)
    current = _view(tournament)
    assert current.rounds == (1, 2)
    assert current.provisional and not current.final
    expected = results(first)
    for line in current.lines:
        result = expected[line.player.entrant_id]
        assert line.rounds == (result.points, 0)
        assert line.total == result.points and line.lost == result.lost
    # in a_hand the declarer makes 150 with 230: the declarers gain, nobody lost a game
    assert all(line.lost == 0 for line in current.lines)
    assert sorted(line.total for line in current.lines)[-1] > 0
    play_round(second)
    rounds.close_round(tournament, second)
    done = _view(tournament)
    assert done.final and not done.provisional
    assert all(line.rounds[1] is not None for line in done.lines)


def test_a_lost_game_counts(in_app: Flask) -> None:
    tournament = tournament_with(3, deals=3)
    row = drawn(tournament)
    match = row.tables[0].match
    hand = a_hand(match, declarer=0)
    failed = services.HandInput(
        declarer=0,
        bid=300,
        trump=hand.trump,
        outcome="played",
        melds=hand.melds,
        tricks=hand.tricks,
    )
    services.save_hand(match, failed)
    current = _view(tournament)
    schreiber = row.tables[0].players[0]
    line = next(x for x in current.lines if x.player.entrant_id == schreiber)
    assert line.lost == 1 and line.total < 0
    assert sum(x.lost for x in current.lines) == 1


def test_equal_totals_share_a_place_without_tie_break(in_app: Flask) -> None:
    tournament = tournament_with(6, deals=3)  # the default: no tie-break
    drawn(tournament)
    for name, points in (("Anna", 300), ("Bertl", 300), ("Christa", 200)):
        _give(tournament, 1, name, points)
    current = _view(tournament)
    places = {x.player.name: x.place for x in current.lines}
    assert places["Anna"] == places["Bertl"] == 1 and places["Christa"] == 3
    # shared places are listed by start number
    assert [x.player.name for x in current.lines][:2] == ["Anna", "Bertl"]


def test_the_tie_break_orders_equal_totals(in_app: Flask) -> None:
    tournament = tournament_with(6, deals=3)
    assert not tournament.tie_break  # off unless the organiser asks for it
    setup.update_settings(tournament, {"tie_break": True})
    first = drawn(tournament)
    for table in first.tables:
        table.paper = {str(p): [0, 0] for p in table.players}
    db.session.commit()
    rounds.close_round(tournament, first)
    drawn(tournament, 2)
    _give(tournament, 1, "Anna", 100, lost=1)
    _give(tournament, 2, "Anna", 300)
    _give(tournament, 1, "Bertl", 200)
    _give(tournament, 2, "Bertl", 200)
    _give(tournament, 1, "Christa", 300, lost=2)
    _give(tournament, 2, "Christa", 100)
    _give(tournament, 1, "Done", 400)
    current = _view(tournament)
    places = {x.player.name: x.place for x in current.lines}
    # all four have 400: best round 400 (Done) > 300 (Anna, 1 lost; Christa, 2 lost) > 200
    # (lost games of round 1 together at most its 3 deals, whoever sat together)
    assert [places[n] for n in ("Done", "Anna", "Christa", "Bertl")] == [1, 2, 3, 4]
    setup.update_settings(tournament, {"tie_break": False})
    plain = _view(tournament)
    assert {x.place for x in plain.lines if x.total == 400} == {1}


def test_paper_slips_count_and_are_marked(in_app: Flask) -> None:
    tournament = tournament_with(6, deals=3)
    row = drawn(tournament)
    play_round(row, hands=1)
    _give(tournament, 1, "Anna", 420, lost=3)
    current = _view(tournament)
    anna = _line(current, "Anna")
    assert anna.rounds == (420,) and anna.total == 420 and anna.lost == 3
    assert anna.paper == (True,) and anna.place == 1
    table = next(t for t in current.progress.tables if t.paper)  # type: ignore[union-attr]
    assert table.finished


def test_withdrawn_and_late_players(in_app: Flask) -> None:
    tournament = tournament_with(6, deals=3)
    first = drawn(tournament)
    play_round(first)
    rounds.close_round(tournament, first)
    anna = next(e for e in tournament.entrants if e.name == "Anna")
    anna.withdrawn_before = 2
    tournament.entrants.append(Entrant(name="Gustl", number=7, from_round=2))
    setup.bump(tournament)
    db.session.commit()
    drawn(tournament, 2)
    current = _view(tournament)
    gone = _line(current, "Anna")
    assert gone.player.withdrawn and gone.rounds[1] is None
    assert gone.total == gone.rounds[0]
    late = _line(current, "Gustl")
    assert late.rounds == (None, 0) and late.total == 0 and not late.player.withdrawn
    # both are ranked: their points so far stay in the ranking
    assert len(current.lines) == 7
    assert "Anna" not in [s.player.name for s in current.seats]
    page = seating.player_page(current, 1)
    assert page is not None and page.seat is None and page.line is gone


def test_progress_and_provisional(in_app: Flask) -> None:
    tournament = tournament_with(10, deals=3)
    row = drawn(tournament)
    services.save_hand(row.tables[1].match, a_hand(row.tables[1].match))
    for _ in range(4):  # the table of four plays 4 deals
        match = row.tables[0].match
        services.save_hand(match, a_hand(match))
    current = _view(tournament)
    progress = current.progress
    assert progress is not None and progress.round == 1 and not progress.closed
    assert [(t.number, t.played, t.deals) for t in progress.tables] == [
        (1, 4, 4),
        (2, 1, 3),
        (3, 0, 3),
    ]
    assert progress.finished == 1
    assert [t.number for t in progress.waiting] == [3, 2]
    assert current.provisional


def test_seating_by_name_and_by_table(in_app: Flask) -> None:
    tournament = tournament_with(["Zenzi", "ärnst", "Anna", "Otto", "Bertl", "Mane", "Resi"])
    row = drawn(tournament)
    current = _view(tournament)
    names = [s.player.name for s in seating.by_name(current)]
    assert names == ["Anna", "ärnst", "Bertl", "Mane", "Otto", "Resi", "Zenzi"]
    tables = seating.by_table(current)
    assert [n for n, _ in tables] == [1, 2]
    for (number, seats), table in zip(tables, row.tables, strict=True):
        assert number == table.number
        assert [s.player.entrant_id for s in seats] == table.players
        assert [s.seat for s in seats] == list(range(1, len(seats) + 1))
        assert seats[0].schreiber and not seats[1].schreiber


def test_a_players_page(in_app: Flask) -> None:
    tournament = tournament_with(6, deals=3)
    row = drawn(tournament)
    play_round(row, hands=2)
    current = _view(tournament)
    page = seating.player_page(current, 4)
    assert page is not None and page.player.name == "Done"
    assert page.seat is not None and page.line is not None and page.table is not None
    table = next(t for t in row.tables if page.player.entrant_id in t.players)
    assert page.seat.table == table.number
    assert page.seat.seat == table.players.index(page.player.entrant_id) + 1
    assert [s.player.entrant_id for s in page.mates] == table.players
    assert page.table.played == 2 and page.round == 1
    assert seating.player_page(current, 99) is None


def test_start_numbers_typed() -> None:
    assert seating.start_number("7") == 7
    for junk in ("", "0", "-1", "abc", "1e3", "99999999999999999999", "７", "1\x00", None):
        assert seating.start_number(junk) is None


def test_the_poll_state_changes_with_any_saved_hand_and_not_otherwise(in_app: Flask) -> None:
    assert standings.poll_state("nobody") is None
    tournament = tournament_with(9, deals=3)
    before_draw = _tag(tournament)
    assert _tag(tournament) == before_draw
    row = drawn(tournament)
    tags = [before_draw, _tag(tournament)]
    # a read changes nothing
    _view(tournament)
    assert _tag(tournament) == tags[-1]
    for table in row.tables:  # a hand at any table
        services.save_hand(table.match, a_hand(table.match))
        tags.append(_tag(tournament))
    assert len(set(tags)) == len(tags)
    # a struck hand, an organiser's change, another tournament's hand: the first two count
    last = row.tables[2].match
    hand = services.sheet(last).rows[-1].hand
    services.delete_hand(last, hand)
    tags.append(_tag(tournament))
    setup.update_settings(tournament, {"place": "Sulz"})
    tags.append(_tag(tournament))
    assert len(set(tags)) == len(tags)
    other = tournament_with(3, deals=3, name="Nachbarturnier")
    other_row = drawn(other)
    services.save_hand(other_row.tables[0].match, a_hand(other_row.tables[0].match))
    assert _tag(tournament) == tags[-1]
    state = standings.poll_state(tournament.view_token)
    assert state is not None and state.tournament_id == tournament.id
    db.session.refresh(last)
    assert state.last_modified >= last.updated_at


def test_a_build_goes_on_from_the_last_and_equals_a_fresh_one(in_app: Flask) -> None:
    tournament = tournament_with(6, deals=3)
    row = drawn(tournament)
    first = public_state.build(tournament.id)
    assert first is not None
    services.save_hand(row.tables[0].match, a_hand(row.tables[0].match))
    db.session.expire_all()
    again = public_state.build(tournament.id, first)
    assert again is not None and again.standings.lines != first.standings.lines
    # the table that did not move is taken over, not read again
    assert again.rounds[0].tables[1] is first.rounds[0].tables[1]
    assert again.rounds[0].tables[0] is not first.rounds[0].tables[0]
    fresh = public_state.build(tournament.id)
    assert fresh is not None and fresh.standings == again.standings


def test_a_closed_round_is_not_read_again_while_the_next_is_played(in_app: Flask) -> None:
    tournament = tournament_with(6, deals=3)
    first = drawn(tournament)
    play_round(first)
    rounds.close_round(tournament, first)
    second = drawn(tournament, 2)
    built = public_state.build(tournament.id)
    assert built is not None
    services.save_hand(second.tables[0].match, a_hand(second.tables[0].match))
    db.session.expire_all()
    again = public_state.build(tournament.id, built)
    assert again is not None
    assert again.rounds[0] is built.rounds[0]  # round 1 taken over whole
    assert again.rounds[1] is not built.rounds[1]
    fresh = public_state.build(tournament.id)
    assert fresh is not None and fresh.standings == again.standings


def test_a_build_round_trips_through_its_json(in_app: Flask) -> None:
    tournament = tournament_with(10, deals=3)
    row = drawn(tournament)
    play_round(row, hands=2)
    built = public_state.build(tournament.id)
    assert built is not None
    again = public_state.loads(public_state.dumps(built))
    assert again == built
