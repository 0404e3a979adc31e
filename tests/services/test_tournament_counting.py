"""The tournament's change count: every change of a table counts once, in its own commit.

The public pages and the board compare a few rows per poll (``counting``) instead of
summing every table's version; these tests hold it to what the sum did: every
change of a table moves it, a refused or rolled-back one does not, two tables
saving at once both count, and a poll after a save always sees the save — with
the save and the poll's build forced into each order that could lose it
(``tests/races.py``), on SQLite and PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from sqlalchemy import event, select
from sqlalchemy.engine import Engine

from scorer import services
from scorer.extensions import db
from scorer.services import ConflictError
from scorer.services.tournaments import board, counting, published, standings, tables
from scorer.tournament_models import Tournament, TournamentChanges
from tests.builders import service_match
from tests.races import in_context, interleave
from tests.tournament_builders import a_hand, drawn, play_table, tournament_with


def count_of(tournament_id: int) -> int:
    return counting.read(tournament_id)[0]


def save(token: str) -> object:
    match = services.get_match(token)
    return services.save_hand(match, a_hand(match, services.standing(match).hand_count % 3))


def test_every_change_of_a_table_counts_once_at_its_tournament(in_app: Flask) -> None:
    tournament = tournament_with(9)
    other = tournament_with(9, name="Frühjahrsturnier")
    row = drawn(tournament)
    drawn(other)
    assert count_of(tournament.id) == 0  # a draw is the tournament's own change (version)
    table = row.tables[0]
    play_table(table, 3)
    assert count_of(tournament.id) == 3 and count_of(other.id) == 0
    tables.confirm(table, table.players[0])
    assert count_of(tournament.id) == 4
    hand = table.match.hands[0]
    services.delete_hand(table.match, hand)
    assert count_of(tournament.id) == 5
    board.set_paper(tournament, row.tables[1], {p: (10, 0) for p in row.tables[1].players})
    assert count_of(tournament.id) == 6


def test_a_match_outside_a_tournament_counts_nowhere(in_app: Flask) -> None:
    tournament = tournament_with(9)
    drawn(tournament)
    service_match(in_app, ["Anna", "Bert", "Carl"], hands=3)
    assert db.session.execute(select(TournamentChanges)).all() == []


def test_a_refused_change_counts_nothing(in_app: Flask) -> None:
    tournament = tournament_with(9)
    match = drawn(tournament).tables[0].match
    services.save_hand(match, a_hand(match))
    before = count_of(tournament.id)
    with pytest.raises(ConflictError):  # a form loaded at an older version
        services.save_hand(match, a_hand(match, 1), version=match.version - 1)
    assert count_of(tournament.id) == before


def test_the_count_is_the_last_statement_before_the_commit(in_app: Flask) -> None:
    """Counting holds the tournament's one row only while the transaction commits: a
    save that waits for it has done its work, and holds nothing another save waits for."""
    tournament = tournament_with(9)
    token = drawn(tournament).tables[0].match.token
    sent: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        sent.append(statement.lstrip()[:40].upper())

    event.listen(Engine, "before_cursor_execute", seen)
    try:
        save(token)
    finally:
        event.remove(Engine, "before_cursor_execute", seen)
    writes = [s for s in sent if s.startswith(("INSERT", "UPDATE", "DELETE"))]
    assert writes[-1].startswith("INSERT INTO TOURNAMENT_CHANGES")
    assert sum(s.startswith("INSERT INTO TOURNAMENT_CHANGES") for s in sent) == 1


def test_two_tables_saving_at_once_both_count(in_app: Flask) -> None:
    """Table 1 reads, table 2 saves (making the tournament's row), table 1 saves: two."""
    tournament = tournament_with(9)
    row = drawn(tournament)
    first, second = row.tables[0].match.token, row.tables[1].match.token
    db.session.commit()
    late, early = interleave(
        in_context(in_app, lambda: save(first)), in_context(in_app, lambda: save(second))
    )
    assert not isinstance(late, BaseException) and not isinstance(early, BaseException)
    db.session.expire_all()
    assert count_of(tournament.id) == 2


def shown_totals(view_token: str) -> dict[int, int]:
    """What the public pages show now, as a fresh poll after the last one reads it."""
    now = published.shown(view_token, keep=0, fresh=0)
    assert now is not None
    return {line.player.number or 0: line.total for line in now.standings.lines}


def saved_totals(tournament: Tournament) -> dict[int, int]:
    db.session.expire_all()
    row = db.session.get_one(Tournament, tournament.id).round_rows[-1]
    numbers = {e.id: e.number or 0 for e in tournament.entrants}
    return {
        numbers[p]: services.standing(t.match).totals[seat]
        for t in row.tables
        for seat, p in enumerate(t.players)
    }


@pytest.mark.parametrize("stored", [False, True], ids=["first-build", "next-build"])
def test_a_poll_built_while_a_hand_is_saved_never_hides_it(in_app: Flask, stored: bool) -> None:
    """The poll reads the state, the hand commits, then the poll writes: its first build
    (read before the hand, stored after it), or its claim of the next one (the build read
    after the hand, stored under the state read before it).  The next poll shows the hand."""
    tournament = tournament_with(9)
    row = drawn(tournament)
    token, view = row.tables[0].match.token, tournament.view_token
    if stored:
        shown_totals(view)
        save(row.tables[1].match.token)
    db.session.commit()
    late, early = interleave(
        in_context(in_app, lambda: shown_totals(view)), in_context(in_app, lambda: save(token))
    )
    assert not isinstance(late, BaseException) and not isinstance(early, BaseException)
    assert shown_totals(view) == saved_totals(tournament)
    if not stored:
        assert late != shown_totals(view)  # the build the late poll stored lacked the hand


def test_a_hand_saved_while_a_poll_builds_shows_at_the_next_poll(in_app: Flask) -> None:
    """The save reads its table; a poll builds and stores the pages; the save writes and
    commits.  The poll after it shows the hand."""
    tournament = tournament_with(9)
    row = drawn(tournament)
    token, view = row.tables[2].match.token, tournament.view_token
    before = shown_totals(view)
    db.session.commit()
    late, early = interleave(
        in_context(in_app, lambda: save(token)), in_context(in_app, lambda: shown_totals(view))
    )
    assert not isinstance(late, BaseException) and early == before
    after = shown_totals(view)
    assert after == saved_totals(tournament) and after != before


def test_the_poll_state_moves_with_every_change_and_only_then(in_app: Flask) -> None:
    tournament = tournament_with(9)
    row = drawn(tournament)
    view = tournament.view_token
    first = standings.poll_state(view)
    assert first is not None and standings.poll_state(view) == first
    play_table(row.tables[0], 1)
    second = standings.poll_state(view)
    assert second is not None and second.tag != first.tag
    assert second.last_modified >= row.tables[0].match.updated_at
    assert standings.poll_state(view) == second
    assert counting.read(tournament.id)[0] == 1


def test_the_count_lies_in_a_few_rows_by_the_match(in_app: Flask) -> None:
    """Tables whose matches fall in different rows count apart; the total is every change."""
    tournament = tournament_with(18)
    row = drawn(tournament)
    for table in row.tables:
        play_table(table, 1)
    rows = db.session.execute(
        select(TournamentChanges.shard, TournamentChanges.count).where(
            TournamentChanges.tournament_id == tournament.id
        )
    ).all()
    expected: dict[int, int] = {}
    for table in row.tables:
        shard = table.match_id % counting.SHARDS
        expected[shard] = expected.get(shard, 0) + 1
    assert dict(rows) == expected
    assert count_of(tournament.id) == len(row.tables) == 6
