"""A spare laptop follows the hall: equal to it after every change, takes over, the old one stops.

Two laptops (``tests.spare_builders``: each its own database — SQLite files, or
PostgreSQL schemas), paired through their pages; the hall's follower is run
round by round.  After each change of the evening every tournament's and series'
backup document on the spare is the hall's, exactly.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, func, select

from scorer import services
from scorer.extensions import db
from scorer.hall_models import SpareUnit
from scorer.models import Hand
from scorer.services.online import hall as online
from scorer.services.spare import feed, pairing, receive
from scorer.services.spare import role as roles
from scorer.services.spare.changes import snapshot
from scorer.services.tournaments import (
    entrants,
    money,
    rounds,
    series,
    series_people,
    setup,
    tables,
)
from scorer.services.writes import ORGANISER
from scorer.tournament_models import Tournament
from tests.services.test_tournament_backup import evening_mid_round
from tests.spare_builders import (
    Laptops,
    documents,
    follow,
    follow_until_same,
    pair,
    take_over,
    two_laptops,
)
from tests.tournament_builders import a_hand, drawn, play_round, play_table, tournament_with

LINE = "https://results.example.org/online/7#" + "ab" * 32


@pytest.fixture
def laptops(tmp_path: Path) -> Iterator[Laptops]:
    with two_laptops(tmp_path) as pair_of:
        yield pair_of


def on(app: Any) -> Any:
    return app.test_request_context("/?lang=en")


def evening() -> int:
    """The evening of the backup tests (round 1 closed with a slip, a replaced link,
    confirmations and money; a late arrival, a withdrawal; round 2 half played), with an
    organiser's correction of round 1 and its results online."""
    tournament = evening_mid_round()
    first = tournament.round_rows[0].tables[0]
    hand = first.match.hands[0]
    services.save_hand(first.match, a_hand(first.match, 1), hand=hand, via=ORGANISER)
    online.link(tournament, LINE)
    return tournament.id


def a_series() -> tuple[int, int]:
    """A series of two evenings, the second counting the first's tables in its draw."""
    one = tournament_with(9, deals=3, rounds_=1, name="Cup 1")
    play_round(drawn(one, 1))
    rounds.close_round(one, one.round_rows[0])
    cup = series.create_series(one)
    two = series.new_evening(cup, idempotency_key=secrets.token_hex(8))
    series_people.register_people(two)
    entrants.check_in_all(two)
    drawn(two, 1)
    return cup.id, two.id


def equal(laptops: Laptops) -> None:
    follow_until_same(laptops)
    hall, spare = documents(laptops.hall), documents(laptops.spare)
    assert hall and hall.keys() == spare.keys()
    for token, document in hall.items():
        assert spare[token] == document, token


def test_the_spare_holds_every_tournament_and_series_of_the_hall(laptops: Laptops) -> None:
    with on(laptops.hall):
        evening()
        a_series()
        db.session.remove()
    pair(laptops)
    equal(laptops)
    with on(laptops.spare):
        # links, draws, deals, confirmations, money, the online connection: as on the hall
        held = {t.name for t in db.session.execute(select(Tournament)).scalars()}
        assert held == {"Herbstturnier", "Cup 1", "Cup 1 · Abend 2"} or len(held) == 3
        link = db.session.execute(select(online.OnlineLink)).scalar_one()
        assert (link.address, link.key, link.generation) == (LINE.split("#")[0], "ab" * 32, None)
        assert roles.current().role == roles.SPARE


def test_the_spare_stays_equal_through_the_evening(laptops: Laptops) -> None:
    with on(laptops.hall):
        tournament_id = evening()
        db.session.remove()
    pair(laptops)
    equal(laptops)
    steps = []

    def step(change: Any) -> None:
        with on(laptops.hall):
            change(db.session.get(Tournament, tournament_id))
            db.session.remove()
        equal(laptops)
        steps.append(change)

    step(lambda t: play_table(t.round_rows[1].tables[0], 1))  # a deal saved
    step(lambda t: services.delete_hand(t.round_rows[1].tables[0].match, _last(t)))  # struck
    step(lambda t: services.restore_hand(t.round_rows[1].tables[0].match, _last(t)))
    step(lambda t: play_round(t.round_rows[1]))  # every table done
    step(lambda t: [tables.confirm(x, x.players[1]) for x in t.round_rows[1].tables])
    step(lambda t: money.mark_unpaid(t, t.entrants[-1].id))  # a wrong "paid" taken back
    step(lambda t: rounds.close_round(t, t.round_rows[1]))
    step(lambda t: entrants.register(t, "Nachzügler", ""))
    step(lambda t: entrants.remove(t, t.entrants[-1]))  # and gone again
    step(lambda t: drawn(t, 3))
    step(lambda t: rounds.redraw(t, t.round_rows[2], t.round_rows[2].attempt))
    step(lambda t: setup.update_settings(t, {"tie_break": True}))
    step(lambda t: online.unlink(t))
    assert len(steps) == 13


def _last(tournament: Tournament) -> Hand:
    return tournament.round_rows[1].tables[0].match.hands[-1]


def test_a_series_evening_and_its_people_follow(laptops: Laptops) -> None:
    with on(laptops.hall):
        _cup, two = a_series()
        db.session.remove()
    pair(laptops)
    equal(laptops)
    with on(laptops.hall):
        evening_two = db.session.get(Tournament, two)
        assert evening_two is not None
        play_round(evening_two.round_rows[0])
        person = next(e for e in evening_two.entrants if e.series_player_id is not None)
        series_people.unlink(evening_two, person.id)
        series_people.new_person(evening_two, person.id)
        db.session.remove()
    equal(laptops)


def test_a_push_carries_only_what_changed(laptops: Laptops) -> None:
    with on(laptops.hall):
        tournament_id = evening()
        db.session.remove()
    pair(laptops)
    equal(laptops)
    sizes = []
    original = laptops.wire.__call__

    def measure(url: str, body: bytes, headers: dict[str, str]) -> Any:
        sizes.append(len(body))
        return original(url, body, headers)

    laptops.feed.send = measure
    with on(laptops.hall):
        tournament = db.session.get(Tournament, tournament_id)
        assert tournament is not None
        play_table(tournament.round_rows[1].tables[0], 1)
        db.session.remove()
    equal(laptops)
    with on(laptops.hall), snapshot() as connection:
        from scorer.services.spare.changes import Survey

        whole = Survey()
        whole.look(connection)
    # one deal: its table's unit, not the tournament
    assert len(sizes) == 1
    with on(laptops.spare):
        assert db.session.execute(select(func.count()).select_from(SpareUnit)).scalar_one() == len(
            whole.fingerprints
        )


def test_nothing_new_costs_a_heartbeat_now_and_then(laptops: Laptops) -> None:
    with on(laptops.hall):
        evening()
        db.session.remove()
    pair(laptops)
    equal(laptops)
    laptops.feed.contacted = 0.0  # long ago: the spare is told the hall lives
    assert follow(laptops) == ["sent"]
    laptops.feed.contacted = time.monotonic() + 3600  # just now, however slow this machine
    assert follow(laptops) == ["same"]
    with on(laptops.spare):
        row = receive.following()
        assert row is not None and row.received_at is not None and row.hall_time is not None


def test_a_tournament_gone_from_the_hall_goes_from_the_spare(laptops: Laptops) -> None:
    with on(laptops.hall):
        tournament_id = evening()
        other = tournament_with(9, name="Probe")
        play_round(drawn(other, 1), hands=1)
        other_id = other.id
        db.session.remove()
    pair(laptops)
    equal(laptops)
    with on(laptops.hall):
        from scorer.services.spare.receive import remove_tournament

        remove_tournament(other_id)  # (as a restore that failed removes its rows)
        db.session.commit()
        db.session.remove()
    equal(laptops)
    with on(laptops.spare):
        assert db.session.get(Tournament, tournament_id) is not None
        assert db.session.execute(select(func.count()).select_from(Tournament)).scalar_one() == 1


def test_the_spare_writes_nothing_of_its_own(laptops: Laptops) -> None:
    with on(laptops.hall):
        tournament_id = evening()
        db.session.remove()
    pair(laptops)
    equal(laptops)
    with on(laptops.spare):
        tournament = db.session.get(Tournament, tournament_id)
        assert tournament is not None
        match = tournament.round_rows[1].tables[0].match
        with pytest.raises(roles.NotTheHall) as refused:
            services.save_hand(match, a_hand(match))
        assert refused.value.role.role == roles.SPARE
        with pytest.raises(roles.NotTheHall):
            entrants.register(tournament, "Fremder", "")


def test_takeover_makes_the_spare_the_hall_and_the_old_one_stops(laptops: Laptops) -> None:
    with on(laptops.hall):
        tournament_id = evening()
        db.session.remove()
    pair(laptops)
    equal(laptops)
    before = documents(laptops.hall)
    take_over(laptops)
    with on(laptops.spare):
        state = roles.current()
        assert state.role == roles.HALL and state.generation == 2
        tournament = db.session.get(Tournament, tournament_id)
        assert tournament is not None and tournament.restored["how"] == "spare"
        # it plays on: new rows get ids past the copies (PostgreSQL's sequences moved)
        match = tournament.round_rows[1].tables[0].match
        hand = services.save_hand(match, a_hand(match))
        assert hand.id > max(h.id for t in tournament.round_rows[0].tables for h in t.match.hands)
        added = entrants.register(tournament, "Neu", "")
        assert added.id > 0
        # connecting anew to the hosted copy: a new generation there
        link = db.session.execute(select(online.OnlineLink)).scalar_one()
        assert link.generation is None
        db.session.remove()
    after = documents(laptops.spare)
    for token, document in before.items():  # what it held is what the hall had
        held = after[token]["tournament"]
        assert held["rounds"][0] == document["tournament"]["rounds"][0]
    # the old laptop comes back: at its next contact (a heartbeat) it learns it was replaced
    laptops.feed.contacted = 0.0
    assert follow(laptops) == ["stopped"]
    with on(laptops.hall):
        assert roles.current().role == roles.REPLACED
        tournament = db.session.get(Tournament, tournament_id)
        assert tournament is not None
        match = tournament.round_rows[1].tables[0].match
        with pytest.raises(roles.NotTheHall) as refused:
            services.save_hand(match, a_hand(match))
        assert refused.value.role.role == roles.REPLACED
        assert online.links() == []  # nor does it push to the hosted copy


def test_the_old_hall_learns_it_at_its_start(laptops: Laptops) -> None:
    with on(laptops.hall):
        evening()
        db.session.remove()
    pair(laptops)
    equal(laptops)
    take_over(laptops)
    with on(laptops.hall):
        assert feed.check_at_start(laptops.wire) is True
        assert roles.current().role == roles.REPLACED
    laptops.wire.cut.add("http://127.0.0.2:5000")
    with on(laptops.hall):
        assert feed.check_at_start(laptops.wire) is True  # it knows already


def test_a_hall_whose_spare_is_away_goes_on(laptops: Laptops) -> None:
    with on(laptops.hall):
        tournament_id = evening()
        db.session.remove()
    pair(laptops)
    equal(laptops)
    laptops.wire.cut.add("http://127.0.0.2:5000")
    with on(laptops.hall):
        assert feed.check_at_start(laptops.wire) is False
        tournament = db.session.get(Tournament, tournament_id)
        assert tournament is not None
        play_table(tournament.round_rows[1].tables[1], 2)
        db.session.remove()
    assert follow(laptops) == ["unreachable"]
    with on(laptops.hall):
        link = pairing.link()
        assert link is not None and link.error
    laptops.wire.cut.clear()
    equal(laptops)  # back: it catches up


def test_a_spare_that_lost_its_database_is_filled_again(laptops: Laptops) -> None:
    with on(laptops.hall):
        evening()
        db.session.remove()
    pair(laptops)
    equal(laptops)
    with on(laptops.spare):
        # what it holds, forgotten (a push lost on the way, the spare's bookkeeping gone)
        db.session.execute(delete(SpareUnit))
        db.session.commit()
    laptops.feed.confirmed = None  # the follower asks what the spare holds again
    equal(laptops)


def test_the_follower_s_rounds_keep_the_spare_and_the_folder(
    laptops: Laptops, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m scorer.follow``'s loop: the spare's pushes, and the folder in a thread."""
    from scorer.services.spare import folder as folders
    from scorer.services.spare.follow import run

    monkeypatch.setattr(folders, "MIN_GAP", 0.0)
    stick = tmp_path / "stick"
    stick.mkdir()
    laptops.hall.config["BACKUP_FOLDER"] = str(stick)
    with on(laptops.hall):
        evening()
        db.session.remove()
    pair(laptops)
    run(laptops.hall, rounds=3, every=0.0, send=laptops.wire)
    hall, spare = documents(laptops.hall), documents(laptops.spare)
    assert hall == spare
    (written,) = stick.glob("*.json")
    assert written.name.startswith("turnier-herbstturnier-")
