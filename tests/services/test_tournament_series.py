"""The series (Binokel-Cup): evenings, the same person across them, the ranking, the draw.

The issue's check: three evenings of 27 players, three rounds each, the
earlier evenings' tables counted as met — not one pair of the series meets
twice over all nine rounds.  And the ranking under each counting rule with
numbers computed by hand (evenings typed in from paper slips).
"""

from __future__ import annotations

import pytest
from flask import Flask

from scorer.extensions import db
from scorer.rules import RulesError
from scorer.rules.tournament import repeats
from scorer.services import ConflictError, NotFound
from scorer.services.tournaments import entrants, rounds, series, series_people
from scorer.tournament_models import Entrant, Series, Tournament
from tests.tournament_builders import drawn, play_round, tournament_with


def evening_of(the_series: Series, names: list[str] | int, key: str) -> Tournament:
    """The series' next evening with ``names`` registered and present."""
    evening = series.new_evening(the_series, idempotency_key=key)
    wanted = [f"Spieler {i}" for i in range(1, names + 1)] if isinstance(names, int) else names
    entrants.register_many(evening, [(name, "") for name in wanted])
    for entrant in list(evening.entrants):
        entrants.check_in(evening, entrant)
    return evening


def play_evening(evening: Tournament) -> None:
    for number in range(1, evening.rounds + 1):
        row = drawn(evening, number)
        play_round(row)
        rounds.close_round(evening, row)


def test_three_evenings_of_27_players_meet_nobody_twice(in_app: Flask) -> None:
    first = tournament_with(27, rounds_=3, deals=3)
    the_series = series.create_series(first)
    play_evening(first)
    evenings = [first]
    for k in (2, 3):
        evening = evening_of(the_series, 27, f"evening-{k}")
        assert all(e.series_player_id is not None for e in evening.entrants)
        play_evening(evening)
        evenings.append(evening)
    # every round of the series as tables of people, in the order they were played
    played = []
    for evening in evenings:
        person = {e.id: e.series_player_id for e in evening.entrants}
        for row in evening.round_rows:
            played.append([tuple(person[p] for p in t.players) for t in row.tables])
    assert len(played) == 9
    assert len({p for tables in played for t in tables for p in t}) == 27
    assert sum(repeats(played[k], played[:k]) for k in range(1, 9)) == 0
    # the round page's figure counts the earlier evenings too
    assert all(rounds.repeated_pairs(evenings[2], row) == 0 for row in evenings[2].round_rows)
    standing = series.series_standings(the_series)
    assert len(standing.held) == 3 and not standing.provisional
    assert len(standing.lines) == 27 and all(line.place for line in standing.lines)


def test_without_met_across_the_draw_forgets_the_earlier_evenings(in_app: Flask) -> None:
    first = tournament_with(9, rounds_=1)
    the_series = series.create_series(first)
    play_evening(first)
    second = evening_of(the_series, [e.name for e in first.entrants], "second")
    assert len(series_people.met_before(second)) == 1
    series.update_settings(the_series, counting="all", best=None, met_across=False)
    assert series_people.met_before(second) == []


def slip(evening: Tournament, points: dict[str, int]) -> None:
    """One round at one table of three, typed in from its paper slip, closed."""
    row = drawn(evening, 1)
    by_name = {e.name: e.id for e in evening.entrants}
    row.tables[0].paper = {str(by_name[n]): [p, 0] for n, p in points.items()}
    db.session.commit()
    rounds.close_round(evening, row)


@pytest.fixture
def three_evenings(in_app: Flask) -> Series:
    """Anna, Bertl, Christa; Anna, Bertl, Done; Anna, Christa, Done — one round each."""
    first = tournament_with(["Anna", "Bertl", "Christa"], rounds_=1)
    the_series = series.create_series(first)
    slip(first, {"Anna": 300, "Bertl": 200, "Christa": 100})
    second = evening_of(the_series, ["Anna", "Bertl", "Done"], "2")
    slip(second, {"Anna": 100, "Bertl": 500, "Done": 400})
    third = evening_of(the_series, ["Anna", "Christa", "Done"], "3")
    slip(third, {"Anna": 200, "Christa": 600, "Done": 50})
    return the_series


def ranked(the_series: Series) -> dict[str, tuple[int | None, int]]:
    return {
        line.name: (line.place, line.total) for line in series.series_standings(the_series).lines
    }


def test_the_ranking_counts_all_evenings(three_evenings: Series) -> None:
    # Anna 300+100+200, Bertl 200+500, Christa 100+600, Done 400+50
    assert ranked(three_evenings) == {
        "Bertl": (1, 700),
        "Christa": (1, 700),
        "Anna": (3, 600),
        "Done": (4, 450),
    }


def test_the_ranking_counts_the_best_evening(three_evenings: Series) -> None:
    series.update_settings(three_evenings, counting="best", best=1, met_across=True)
    standing = series.series_standings(three_evenings)
    assert {line.name: (line.place, line.total) for line in standing.lines} == {
        "Christa": (1, 600),
        "Bertl": (2, 500),
        "Done": (3, 400),
        "Anna": (4, 300),
    }
    anna = next(line for line in standing.lines if line.name == "Anna")
    assert anna.evenings == (300, 100, 200) and anna.counted == (0,)


def test_the_ranking_of_every_evening_leaves_out_who_missed_one(three_evenings: Series) -> None:
    series.update_settings(three_evenings, counting="every", best=None, met_across=True)
    assert ranked(three_evenings) == {
        "Anna": (1, 600),
        "Bertl": (None, 700),
        "Christa": (None, 700),
        "Done": (None, 450),
    }


@pytest.mark.parametrize("best", [0, -1, 10**309, 53, True, "2"])
def test_a_best_k_out_of_range_is_refused_and_nothing_changes(
    three_evenings: Series, best: object
) -> None:
    with pytest.raises(RulesError):
        series.update_settings(
            three_evenings,
            counting="best",
            best=best,  # type: ignore[arg-type]
            met_across=True,
        )
    db.session.rollback()
    assert three_evenings.counting == "all"


def test_an_unknown_counting_and_a_nul_name_are_refused(three_evenings: Series) -> None:
    with pytest.raises(RulesError):
        series.update_settings(three_evenings, counting="most", best=None, met_across=True)
    with pytest.raises(RulesError):
        series.update_settings(
            three_evenings, name="Cup\x00", counting="all", best=None, met_across=True
        )


# -- the same person --------------------------------------------------------------------


def test_a_name_typed_differently_waits_for_the_organisers_choice(in_app: Flask) -> None:
    first = tournament_with(["Hans Schäfer", "Eva Maier", "Otto"], rounds_=1)
    the_series = series.create_series(first)
    second = series.new_evening(the_series, idempotency_key="k")
    hans = entrants.register(second, "Hans Schaefer")
    eva = entrants.register(second, "eva  MAIER")
    new = entrants.register(second, "Zenzi")
    assert hans.series_player_id is None
    assert eva.series_player_id == first.entrants[1].series_player_id
    assert new.series_player_id is not None and new.series_player_id not in {
        e.series_player_id for e in first.entrants
    }
    (choice,) = series_people.choices(second)
    assert choice.name == "Hans Schaefer"
    assert [(p.name, p.evenings) for p in choice.people] == [("Hans Schäfer", (1,))]
    # undecided: a person of their own in the ranking, marked
    series_people.same_person(second, hans.id, choice.people[0].id)
    assert hans.series_player_id == first.entrants[0].series_player_id
    assert series_people.choices(second) == []
    # a wrong choice is undone and chosen again
    series_people.unlink(second, hans.id)
    assert hans.series_player_id is None
    series_people.new_person(second, hans.id)
    assert hans.series_player_id not in {e.series_player_id for e in first.entrants}
    before = len(the_series.players)
    series_people.new_person(second, hans.id)  # a double tap changes nothing
    assert len(the_series.players) == before


def test_one_person_cannot_play_twice_on_one_evening(in_app: Flask) -> None:
    first = tournament_with(["Hans Maier", "Eva", "Otto"], rounds_=1)
    the_series = series.create_series(first)
    second = series.new_evening(the_series, idempotency_key="k")
    hans = entrants.register(second, "Hans Maier", "TSV")
    other = entrants.register(second, "H. Maier")
    assert hans.series_player_id == first.entrants[0].series_player_id
    # Hans Maier plays tonight: "H. Maier" can only be somebody else, a new person
    assert other.series_player_id not in {None, hans.series_player_id}
    with pytest.raises(RulesError):
        series_people.same_person(second, other.id, hans.series_player_id or 0)
    with pytest.raises(NotFound):
        series_people.same_person(second, other.id, 10**9)


def test_the_club_tells_two_people_of_one_name_apart(in_app: Flask) -> None:
    first = tournament_with(["Otto"], rounds_=1)
    first.entrants.extend(
        [Entrant(name="Sepp Huber", club="TSV"), Entrant(name="Sepp Huber", club="FC")]
    )
    db.session.commit()
    the_series = series.create_series(first)
    second = series.new_evening(the_series, idempotency_key="k")
    added = entrants.register_many(second, [("Sepp Huber", "fc"), ("Sepp Huber", "")])
    fc, plain = added.added
    assert fc.series_player_id == first.entrants[2].series_player_id
    # typed without a club: the one Sepp Huber not playing tonight yet
    assert plain.series_player_id == first.entrants[1].series_player_id


def test_a_new_evening_copies_the_last_and_a_double_tap_makes_one(in_app: Flask) -> None:
    first = tournament_with(9, rounds_=4, deals=9)
    first.entry_fee_cents, first.prize_shares, first.place = 700, [5000, 3000], "Lamm"
    db.session.commit()
    the_series = series.create_series(first)
    assert series.create_series(first) is the_series
    one = series.new_evening(the_series, idempotency_key="tap")
    two = series.new_evening(the_series, idempotency_key="tap")
    assert one.id == two.id and len(the_series.tournaments) == 2
    assert (one.rounds, one.ruleset, one.entry_fee_cents, one.prize_shares, one.place) == (
        4,
        first.ruleset,
        700,
        [5000, 3000],
        "Lamm",
    )
    assert one.name == "Herbstturnier · 2" and one.token != first.token
    other = tournament_with(3)
    other_series = series.create_series(other)
    with pytest.raises(ConflictError):
        series.new_evening(other_series, idempotency_key="tap")


def test_an_evening_not_drawn_yet_does_not_count(in_app: Flask) -> None:
    first = tournament_with(3, rounds_=1)
    the_series = series.create_series(first)
    row = drawn(first, 1)
    play_round(row, 1)
    series.new_evening(the_series, idempotency_key="k")
    standing = series.series_standings(the_series)
    assert len(standing.evenings) == 2 and len(standing.held) == 1
    assert standing.provisional
    assert all(len(line.evenings) == 1 for line in standing.lines)


def test_a_foreign_token_names_no_series(in_app: Flask) -> None:
    with pytest.raises(NotFound):
        series.get_series("x" * 22)
    with pytest.raises(NotFound):
        series.get_series_for_view("y" * 22)
    # a NUL or other junk never gets here: the links' URL converter refuses it (404, see
    # tests/web/test_tournament_series.py), as for every other link


def test_two_taps_at_once_make_one_series(in_app: Flask) -> None:
    from sqlalchemy import update
    from sqlalchemy.orm.attributes import set_committed_value

    evening = tournament_with(3)
    first = Series(name="Cup")
    db.session.add(first)
    db.session.commit()
    # the other request joined the tournament to its series after this one read it
    db.session.execute(
        update(Tournament.__table__)
        .where(Tournament.__table__.c.id == evening.id)
        .values(series_id=first.id)
    )
    db.session.commit()
    set_committed_value(evening, "series", None)
    assert series.create_series(evening).id == first.id
    assert db.session.query(Series).count() == 1
    assert all(e.series_player_id is None for e in evening.entrants)
