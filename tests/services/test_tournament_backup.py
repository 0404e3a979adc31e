"""A tournament's and a series' backup: the round trip, the links, every refusal.

A round trip (export → restore → export) gives the same file apart from the
moment of the export (and, for a copy, the links).  A refused file leaves the
database as it was.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event, func, select, update

from scorer import services
from scorer.extensions import db
from scorer.models import GameSession, Hand, HandEvent, Match, utcnow
from scorer.services import BackupError, ConflictError, NotFound
from scorer.services.backup_format import dumps
from scorer.services.tournaments import (
    board,
    entrants,
    money,
    restoring,
    rounds,
    setup,
    tables,
)
from scorer.services.tournaments.backup import export_series, export_tournament, restore
from scorer.services.writes import ORGANISER
from scorer.tournament_models import (
    Confirmation,
    Entrant,
    RetiredLink,
    Series,
    SeriesPlayer,
    Tournament,
    TournamentTable,
)
from tests.tournament_builders import a_hand, drawn, play_round, play_table, tournament_with

TOKEN_KEYS = ("token", "view_token")


def evening_mid_round() -> Tournament:
    """Round 1 closed (a paper slip, a replaced link, confirmations, an organiser's
    correction), a withdrawn and a late player, round 2 open with a table half played."""
    tournament = tournament_with(10, deals=3, rounds_=3)
    money.update_prizes(
        tournament,
        money.PrizeSettings(
            keep_kind="percent",
            keep_value=1000,
            shares=(Decimal("0.3"), Decimal("0.2")),
            items=("Schinken", "Wein"),
            joke="Rote Laterne",
        ),
    )
    row = drawn(tournament, 1)
    first, second, third = row.tables
    play_table(first)
    play_table(second)
    board.set_paper(tournament, third, {p: (100 + 10 * p, 1) for p in third.players})
    board.set_paper(tournament, third, {p: (120, 0) for p in third.players})
    tables.confirm(first, first.players[0])
    tables.confirm(first, first.players[1])
    rounds.replace_link(tournament, second)
    rounds.close_round(tournament, row)
    gone = next(e for e in tournament.entrants if e.number == 2)
    entrants.withdraw(tournament, gone)
    late = entrants.register(tournament, "Zenzi", "Gschwend")
    entrants.check_in(tournament, late)
    money.mark_paid(tournament, late.id, money.ledger(tournament).account(late.id).owed_cents)
    row2 = drawn(tournament, 2)
    play_table(row2.tables[0], 1)
    return tournament


def strip(data: dict[str, Any], tokens: bool = False) -> dict[str, Any]:
    """The file without its export time (and, with ``tokens``, without its links)."""
    out = copy.deepcopy(data)
    out.pop("exported_at", None)
    if tokens:

        def walk(value: Any) -> None:
            if isinstance(value, dict):
                for key in TOKEN_KEYS:
                    value.pop(key, None)
                for item in value.values():
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        walk(out)
    return out


def wipe() -> None:
    """Another laptop: an empty database."""
    db.session.remove()
    db.drop_all()
    db.create_all()


def counts() -> tuple[int, ...]:
    models = (Tournament, Entrant, TournamentTable, Match, Hand, HandEvent, GameSession)
    more = (Confirmation, RetiredLink, Series, SeriesPlayer)
    return tuple(
        db.session.execute(select(func.count()).select_from(m)).scalar_one()
        for m in (*models, *more)
    )


def test_a_tournament_mid_round_comes_back_exactly_on_another_laptop(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = evening_mid_round()
        first = export_tournament(tournament)
        text = dumps(first)
        wipe()
        result = restore(text.encode())
        assert not result.copy and result.tournament is not None
        again = export_tournament(result.tournament)
        assert strip(again) == strip(first)
        assert result.tournament.token == first["tournament"]["token"]
        # what the file holds: the links of the night, slips, confirmations, marks
        t = first["tournament"]
        table1, table2, table3 = t["rounds"][0]["tables"]
        assert table2["link_number"] == 2 and len(table2["retired_links"]) == 1
        assert table3["paper"] and len(table3["paper_log"]) == 2
        assert len(table1["confirmations"]) == 2
        assert t["rounds"][1]["closed_at"] is None
        assert any(e["withdrawn_before"] == 2 for e in t["entrants"])
        assert any(e["from_round"] == 2 for e in t["entrants"])
        assert t["prize_items"] == ["Schinken", "Wein"] and t["keep_kind"] == "percent"
        # the restored tournament plays on: the open round's table still writes, round 1 not
        restored = result.tournament
        assert restored.round_rows[0].tables[0].match.locked == "closed"
        assert restored.round_rows[1].tables[0].match.locked is None
        play_round(restored.round_rows[1])
        rounds.close_round(restored, restored.round_rows[1])
        # the replaced link still says it was replaced
        old = first["tournament"]["rounds"][0]["tables"][1]["retired_links"][0]["token"]
        assert rounds.retired(old) is not None


@pytest.mark.parametrize("tie_break", [True, False])
def test_a_backup_keeps_its_tie_break_whatever_the_default(app: Flask, tie_break: bool) -> None:
    # new tournaments share places by default (issue 30); a file keeps what it says
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, rounds_=1)
        setup.update_settings(tournament, {"tie_break": tie_break})
        text = dumps(export_tournament(tournament))
        wipe()
        result = restore(text)
        assert result.tournament is not None and result.tournament.tie_break is tie_break


def test_the_same_file_twice_is_a_copy_with_new_links(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = evening_mid_round()
        first = export_tournament(tournament)
        result = restore(dumps(first))
        assert result.copy and result.tournament is not None
        assert result.tournament.token != tournament.token
        again = export_tournament(result.tournament)
        assert strip(again, tokens=True) == strip(first, tokens=True)
        old = {first["tournament"]["token"], first["tournament"]["view_token"]}
        assert not old & {again["tournament"]["token"], again["tournament"]["view_token"]}
        matches = [t["match"]["token"] for r in again["tournament"]["rounds"] for t in r["tables"]]
        before = [t["match"]["token"] for r in first["tournament"]["rounds"] for t in r["tables"]]
        assert not set(matches) & set(before)


def test_a_series_of_two_evenings_comes_back_exactly(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        series = Series(name="Binokel-Cup 2025", counting="best", best=1, met_across=True)
        db.session.add(series)
        one = tournament_with(9, rounds_=1, name="Cup 1")
        two = tournament_with(9, rounds_=1, name="Cup 2")
        for evening in (one, two):
            evening.series = series
        for index, entrant in enumerate(one.entrants):
            person = SeriesPlayer(name=entrant.name, club="")
            series.players.append(person)
            db.session.flush()
            entrant.series_player_id = person.id
            two.entrants[index].series_player_id = person.id
        db.session.commit()
        row = drawn(one, 1)
        play_round(row)
        rounds.close_round(one, row)
        drawn(two, 1)
        first = export_series(series)
        assert first["format"] == "scorer-series"
        assert len(first["series"]["evenings"]) == 2
        assert first["series"]["evenings"][1]["entrants"][0]["series_player"] == 1
        text = dumps(first)
        wipe()
        result = restore(text)
        assert result.series is not None and not result.copy
        assert strip(export_series(result.series)) == strip(first)
        evening = result.series.tournaments[1]
        assert evening.entrants[0].series_player_id == result.series.players[0].id


def test_the_history_of_a_hand_keeps_who_changed_it(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, rounds_=1)
        row = drawn(tournament, 1)
        play_round(row)
        match = row.tables[0].match
        services.delete_hand(match, match.hands[0], via=ORGANISER)
        first = export_tournament(tournament)
        events = first["tournament"]["rounds"][0]["tables"][0]["match"]["hands"][0]["events"]
        assert [e["via"] for e in events] == [None, ORGANISER]
        text = dumps(first)
        wipe()
        result = restore(text)
        assert result.tournament is not None
        assert strip(export_tournament(result.tournament)) == strip(first)


# -- refusals: a clear message, the database unchanged --------------------------------


def a_file(app: Flask) -> dict[str, Any]:
    tournament = evening_mid_round()
    data = export_tournament(tournament)
    wipe()
    return data


def edit(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    target = out
    for key in keys[:-1]:
        target = target[key]
    if value is DELETE:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return out


DELETE = object()
T = "tournament"
R1T1 = "tournament.rounds.0.tables.0"


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        ("format", "scorer-tabelle", "not a scorer backup"),
        ("version", 2, "version"),
        (f"{T}.name", "Anna\x00", "control characters"),
        (f"{T}.name", "", "name"),
        (f"{T}.rounds_planned", 10**309, "rounds is missing or invalid"),
        (f"{T}.rounds_planned", 1, "tournament"),
        (f"{T}.entry_fee_cents", -1, "entry fee is missing or invalid"),
        (f"{T}.fee_schedule", "viel", "viel"),
        (f"{T}.ruleset", {"players": 4}, "tournament"),
        (f"{T}.prize_shares", [6000, 6000], "prize shares is missing or invalid"),
        (f"{T}.held_on", "gestern", "gestern"),
        (f"{T}.entrants.1.number", 1, "start number 1 is given twice"),
        (f"{T}.entrants.0.series_player", 1, "series_player"),
        (f"{T}.rounds.0.closed_at", None, "only the last round can still be open"),
        (f"{T}.rounds.1.number", 3, "not numbered"),
        (f"{R1T1}.players.0", 77, "start number 77 is no player"),
        (f"{R1T1}.players", [1, 1, 3], "sits at two tables"),
        (f"{R1T1}.link_number", 3, "replaced links"),
        (f"{R1T1}.confirmations.0.player", 99, "player"),
        (f"{R1T1}.match.hands.0.parties.0.points", 9999, "the rules give"),
        (f"{R1T1}.match.ruleset", None, "rules is missing or invalid"),
        (f"{R1T1}.match.token", "kurz", "token"),
        ("tournament.rounds.0.tables.2.paper", {"1": [1, 99]}, "paper"),
    ],
)
def test_a_bad_file_is_refused_and_nothing_is_added(
    app: Flask, path: str, value: Any, words: str
) -> None:
    with app.test_request_context("/?lang=en"):
        data = a_file(app)
        before = counts()
        bad = edit(data, path, value)
        text = json.dumps(bad) if value != 10**309 else dumps(bad)
        with pytest.raises(BackupError) as caught:
            restore(text)
        message = str(caught.value)
        if caught.value.cause is not None:
            message += " " + str(caught.value.cause)
        assert words in message
        assert counts() == before


def test_two_open_rounds_and_a_dangling_player_are_refused(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        data = a_file(app)
        before = counts()
        two_open = edit(data, "tournament.rounds.0.closed_at", None)
        with pytest.raises(BackupError, match="only the last round"):
            restore(dumps(two_open))
        missing = edit(data, "tournament.entrants", data[T]["entrants"][1:])
        with pytest.raises(BackupError):
            restore(dumps(missing))
        assert counts() == before


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # tricks rounded to ten: no game of the tournament's rules makes 437 points
        ({0: (437, None)}, "437 points cannot be played with these rules"),
        # 3 deals, one declarer each: 2 + 1 + 1 lost games cannot be
        ({0: (None, 2), 1: (None, 1), 2: (None, 1)}, "lost games together"),
    ],
)
@pytest.mark.parametrize("where", ["paper", "paper_log.0.after"])
def test_a_slip_no_table_can_have_written_is_refused(
    app: Flask, change: dict[int, tuple[int | None, int | None]], words: str, where: str
) -> None:
    """The file's slips pass the same check as a slip typed in on the board."""
    with app.test_request_context("/?lang=en"):
        data = a_file(app)
        before = counts()
        path = f"{T}.rounds.0.tables.2.{where}"
        target: Any = data
        for key in path.split("."):
            target = target[int(key) if key.isdigit() else key]
        slip = copy.deepcopy(target)
        for seat, (points, lost) in change.items():
            line = slip[list(slip)[seat]]
            line[0] = line[0] if points is None else points
            line[1] = line[1] if lost is None else lost
        with pytest.raises(BackupError) as caught:
            restore(dumps(edit(data, path, slip)))
        assert caught.value.cause is not None and words in str(caught.value.cause)
        assert str(caught.value).startswith("tournament, round 1, table 3")
        assert counts() == before


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (b"\xff\xfe", "not JSON"),
        (b"[" * 10_000 + b"]" * 10_000, "nested"),
        (b'{"format": "scorer-tournament", "version": 1, "tournament": NaN}', "NaN"),
        (b'{"format": "scorer-backup", "version": 1, "sessions": []}', "backup of matches"),
        (b'{"format": "scorer-tournament", "version": 1}', "tournament"),
        (b'{"format": "scorer-series", "version": 1, "series": []}', "series"),
    ],
)
def test_hostile_files_are_refused(app: Flask, text: bytes, words: str) -> None:
    with app.test_request_context("/?lang=en"):
        with pytest.raises(BackupError, match=words):
            restore(text)
        assert counts() == (0,) * len(counts())


# -- fuzz: whatever the file, a BackupError or a restore, never anything else ----------


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*here, index))
    return found


@pytest.fixture(scope="module")
def small_file(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from tests.builders import fresh_app

    with fresh_app(tmp_path_factory.mktemp("fuzz")) as app, app.test_request_context():
        tournament = tournament_with(9, deals=3, rounds_=2)
        row = drawn(tournament, 1)
        play_round(row, 1)
        return export_tournament(tournament)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mutated_file_never_raises_anything_but_a_backup_error(
    app: Flask, small_file: dict[str, Any], data: st.DataObject
) -> None:
    mutated = copy.deepcopy(small_file)
    paths = [p for p in _paths(mutated) if p]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        target: Any = mutated
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = data.draw(JSON)
        except (KeyError, IndexError, TypeError):
            continue
    with app.test_request_context("/?lang=en"):
        with contextlib.suppress(BackupError):
            restore(json.dumps(mutated))
        db.session.rollback()


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=JSON)
def test_random_json_is_refused_cleanly(app: Flask, value: Any) -> None:
    with app.test_request_context("/?lang=en"):
        for wrapped in (value, {"format": "scorer-tournament", "version": 1, "tournament": value}):
            with pytest.raises(BackupError):
                restore(json.dumps(wrapped))


# -- written in parts: the hall's saves get in between, nobody sees half of it ----------
#
# A restore writes its rows in short transactions (services.tournaments.restoring) so that
# SQLite's one write lock is free between them.  These tests make the parts small and do
# things at the moment a part has been committed — in an app context of their own, as
# another request would, with its own session and connection — through the restore's
# session's ``after_commit`` event: no sleeps, no threads.


@contextlib.contextmanager
def after_each_part(app: Flask, step: Callable[[int], None]) -> Iterator[list[int]]:
    """Run ``step(n)`` right after the n-th commit of the current session (the restore's
    parts, then its last step), as another request; yields the commits counted."""
    session = db.session()
    commits: list[int] = []

    def after_commit(_session: Any) -> None:
        commits.append(len(commits) + 1)
        with app.app_context(), app.test_request_context("/?lang=en"):
            step(commits[-1])
            db.session.remove()

    event.listen(session, "after_commit", after_commit)
    try:
        yield commits
    finally:
        event.remove(session, "after_commit", after_commit)


def found_by_links(data: dict[str, Any]) -> list[bool]:
    """Whether each link of a tournament's file finds its row here (the organiser's and
    the public link, every table's match and its read-only link, every replaced link)."""
    t = data["tournament"]
    lookups: list[tuple[Callable[[str], Any], str]] = [
        (setup.get_tournament, t["token"]),
        (setup.get_tournament_for_view, t["view_token"]),
    ]
    for row in t["rounds"]:
        for table in row["tables"]:
            lookups += [
                (services.get_match, table["match"]["token"]),
                (services.get_match_for_view, table["match"]["view_token"]),
            ]
            lookups += [(rounds.retired, link["token"]) for link in table["retired_links"]]
    found = []
    for lookup, token in lookups:
        try:
            found.append(lookup(token) is not None)
        except NotFound:
            found.append(False)
    return found


def marked() -> int:
    """Tournaments and series marked as being restored."""
    return sum(
        db.session.execute(
            select(func.count()).select_from(m).where(m.restoring.is_not(None))
        ).scalar_one()
        for m in (Tournament, Series)
    )


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of 20 rows: the restore of ``evening_mid_round`` takes six, then its last step."""
    monkeypatch.setattr(restoring, "PART_ROWS", 20)
    monkeypatch.setattr(restoring, "PAUSE", 0)


@pytest.mark.usefixtures("small_parts")
def test_a_hand_is_saved_between_two_parts_of_a_running_restore(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = evening_mid_round()
        data = export_tournament(tournament)
        open_table = tournament.round_rows[1].tables[1].match.token
        hands = hands_at(open_table)
        seen: list[tuple[int, bool]] = []

        def save_a_hand(part: int) -> None:
            if part == 1:
                match = services.get_match(open_table)
                services.save_hand(match, a_hand(match))  # commits (SQLite: the lock is free)
            copy_made = db.session.execute(
                select(func.count()).select_from(Tournament)
            ).scalar_one()
            seen.append((part, copy_made == 2 and marked() == 0))

        with after_each_part(app, save_a_hand) as commits:
            result = restore(dumps(data))
        assert result.copy and len(commits) > 2
        # the hand went in after the first part, while the copy was still being written
        assert seen[0] == (1, False) and seen[-1] == (len(commits), True)
        assert hands_at(open_table) == hands + 1
        assert result.tournament is not None
        assert strip(export_tournament(result.tournament), tokens=True) == strip(data, tokens=True)


def hands_at(token: str) -> int:
    return services.standing(services.get_match(token)).hand_count


@pytest.mark.usefixtures("small_parts")
def test_a_half_written_tournament_is_found_by_none_of_its_links(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        data = a_file(app)
        looked: list[tuple[bool, ...]] = []

        def look(_part: int) -> None:
            found = found_by_links(data)
            assert len(set(found)) == 1, found  # none of them, or all of them at once
            looked.append((found[0], marked() > 0))

        with after_each_part(app, look):
            result = restore(dumps(data))
        assert not result.copy
        # every part but the last wrote rows of a marked tournament no link finds
        assert looked[:-1] == [(False, True)] * (len(looked) - 1) and len(looked) > 2
        assert looked[-1] == (True, False)


class DiskFull(Exception):
    """What the database might say in the middle of a part."""


@contextlib.contextmanager
def failing_insert(after_commits: list[int], part: int) -> Iterator[None]:
    """The first INSERT of the restore's ``part``-th part fails (after ``part - 1``
    commits): rows of that part are already in its transaction, those before committed."""

    def before_execute(*args: Any) -> None:
        statement = args[2]
        if len(after_commits) == part - 1 and statement.lstrip().upper().startswith("INSERT"):
            after_commits.append(0)  # once
            raise DiskFull()

    engine = db.engine
    event.listen(engine, "before_cursor_execute", before_execute)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", before_execute)


@pytest.mark.usefixtures("small_parts")
@pytest.mark.parametrize("part", [2, 5])
def test_a_restore_failing_in_a_later_part_leaves_nothing(app: Flask, part: int) -> None:
    with app.test_request_context("/?lang=en"):
        data = a_file(app)
        before = counts()
        with after_each_part(app, lambda _part: None) as commits:
            with failing_insert(commits, part), pytest.raises(DiskFull):
                restore(dumps(data))
            assert commits[: part - 1] == list(range(1, part))  # those parts were written
        assert counts() == before and marked() == 0
        assert not any(found_by_links(data))
        # nothing of it is left in the way: the file comes back with its own links
        assert not restore(dumps(data)).copy


@pytest.mark.usefixtures("small_parts")
def test_what_a_restore_that_died_left_is_removed_once_its_mark_is_stale(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    with app.test_request_context("/?lang=en"):
        data = a_file(app)
        before = counts()
        restore(dumps(data))
        once = counts()
        wipe()
        with monkeypatch.context() as died:
            # the process dies in part 3: nobody removes the parts before it
            died.setattr(restoring, "discard", lambda *args: None)
            with (
                after_each_part(app, lambda _part: None) as commits,
                failing_insert(commits, 3),
                pytest.raises(DiskFull),
            ):
                restore(dumps(data))
        left = counts()
        assert left != before and marked() == 1
        assert not any(found_by_links(data))
        # a fresh mark may be a restore at work: kept
        restoring.discard_stale()
        assert counts() == left
        # ten minutes without a part: a dead restore's; the next restore removes it first
        stale = utcnow() - restoring.STALE - timedelta(seconds=1)
        db.session.execute(update(Tournament).values(restoring=stale))
        db.session.commit()
        result = restore(dumps(data))
        assert not result.copy and marked() == 0
        assert counts() == once


@pytest.mark.usefixtures("small_parts")
def test_a_restore_that_stood_still_too_long_stops_when_its_rows_were_removed(
    app: Flask,
) -> None:
    """A laptop asleep in the middle of a restore: another restore took its rows for a dead
    one's and removed them; when it wakes up it says so instead of finishing a part."""
    with app.test_request_context("/?lang=en"):
        data = a_file(app)
        before = counts()

        def another_restore_cleans_up(part: int) -> None:
            if part == 2:
                stale = utcnow() - restoring.STALE - timedelta(seconds=1)
                db.session.execute(update(Tournament).values(restoring=stale))
                db.session.commit()
                restoring.discard_stale()

        with after_each_part(app, another_restore_cleans_up), pytest.raises(ConflictError):
            restore(dumps(data))
        assert counts() == before and marked() == 0


def test_two_restores_of_one_file_finishing_at_once_make_a_copy(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both find the file's links free; the twin puts them in between this restore's look
    and its last step, which then tries again and gives its copy new links."""
    with app.test_request_context("/?lang=en"):
        data = a_file(app)
        real = restoring.in_use
        looks: list[bool] = []

        def twin_finishes_in_between(tokens: list[str]) -> bool:
            seen = real(tokens)
            looks.append(seen)
            if len(looks) == 1:
                with app.app_context(), app.test_request_context("/?lang=en"):
                    assert not restore(dumps(data)).copy  # the twin, on its own
                    db.session.remove()
            return seen

        monkeypatch.setattr(restoring, "in_use", twin_finishes_in_between)
        mine = restore(dumps(data))
        assert mine.copy and mine.tournament is not None
        assert looks == [False, False, True]  # mine, the twin's, mine again
        assert mine.tournament.token != data[T]["token"]
        assert all(found_by_links(data))  # the twin's
        assert marked() == 0
