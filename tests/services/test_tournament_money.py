"""The tournament's money as the services reckon it (issue 22, part 3), on a real database.

Results come from paper slips where a test needs exact points and lost games
(the organiser types them in as from a table whose phone failed) and from
hands saved at a table where it matters that the tables' own lost games count.
Every amount below is worked out by hand in the comments.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import flask_migrate
import pytest
from flask import Flask
from sqlalchemy import inspect, text, update

from scorer import create_app, services
from scorer.extensions import db
from scorer.rules import RulesError
from scorer.services.tournaments import board, entrants, money, published, rounds
from scorer.tournament_models import Entrant, Round, Tournament
from tests.builders import EMPTY_SCHEMA, PG_URL
from tests.tournament_builders import drawn, play_round, tournament_with

pytestmark = pytest.mark.usefixtures("app_context")


@pytest.fixture
def app_context(app: Flask):  # type: ignore[no-untyped-def]
    with app.app_context():
        yield


def number_of(tournament: Tournament) -> dict[int, int]:
    """Entrant id → start number."""
    return {e.id: e.number or 0 for e in tournament.entrants}


def by_number(tournament: Tournament, number: int) -> Entrant:
    return next(e for e in tournament.entrants if e.number == number)


def slips(tournament: Tournament, row: Round, results: Mapping[int, tuple[int, int]]) -> None:
    """Type in every table's paper slip: start number → (points, lost games); others 0, 0."""
    numbers = number_of(tournament)
    for table in row.tables:
        slip = {e: results.get(numbers[e], (0, 0)) for e in table.players}
        board.set_paper(tournament, table, slip)


def evening(
    players: int,
    rounds_: list[Mapping[int, tuple[int, int]]],
    *,
    entry_fee_cents: int = 0,
    deals: int = 9,
) -> Tournament:
    """A tournament whose rounds are typed in from paper and closed."""
    tournament = tournament_with(players, deals=deals, rounds_=len(rounds_))
    tournament.entry_fee_cents = entry_fee_cents
    db.session.commit()
    for number, results in enumerate(rounds_, start=1):
        row = drawn(tournament, number)
        slips(tournament, row, results)
        rounds.close_round(tournament, row)
    return tournament


def account(tournament: Tournament, number: int) -> money.Account:
    found = money.ledger(tournament).account(by_number(tournament, number).id)
    assert found is not None
    return found


# -- what each player owes -------------------------------------------------------------------


def test_the_schedule_applies_to_the_lost_games_of_the_evening() -> None:
    # "0.50; 1.00 from 5": Anna loses 2 + 2 = 4 games → 4 × 0.50 = 2.00;
    # Bertl 3 + 3 = 6 → 4 × 0.50 + 2 × 1.00 = 4.00 (round 1 adds 1.50, round 2 the 4th
    # at 0.50 and the 5th and 6th at 1.00 = 2.50); per round 3 games would cost 1.50 each
    tournament = evening(
        9, [{1: (100, 2), 2: (50, 3)}, {1: (100, 2), 2: (50, 3)}], entry_fee_cents=800
    )
    anna, bertl = account(tournament, 1), account(tournament, 2)
    assert (anna.lost, anna.fees, anna.lost_cents) == ((2, 2), (100, 100), 200)
    assert (bertl.lost, bertl.fees, bertl.lost_cents) == ((3, 3), (150, 250), 400)
    assert (anna.owed_cents, bertl.owed_cents) == (1000, 1200)
    assert anna.paper == (True, True)
    ledger = money.ledger(tournament)
    assert ledger.rounds == (1, 2)
    # 9 × 8 € entry, 6 € lost-game money, all to the fund, nothing kept
    assert (ledger.fund.entry_cents, ledger.fund.lost_cents) == (7200, 600)
    assert (ledger.fund.fund_cents, ledger.fund.kept_cents) == (7800, 0)


def test_a_failed_game_at_the_table_is_a_lost_game() -> None:
    tournament = tournament_with(9, deals=3, rounds_=1)
    row = drawn(tournament, 1)
    match = row.tables[0].match
    failed = services.HandInput(
        declarer=0, bid=150, trump="E", outcome="played", melds=[0, 0, 0], tricks=[60, 130, 60]
    )
    services.save_hand(match, failed)
    schreiber = row.tables[0].players[0]
    found = money.ledger(tournament).account(schreiber)
    assert found is not None and (found.lost, found.lost_cents) == ((1,), 50)


def test_the_entry_fee_is_owed_from_the_check_in_also_after_withdrawing() -> None:
    tournament = tournament_with(10, deals=3, rounds_=2)
    tournament.entry_fee_cents = 500
    db.session.commit()
    late = entrants.register(tournament, "Zenzi")  # registered, never checked in
    row = drawn(tournament, 1)
    play_round(row)
    rounds.close_round(tournament, row)
    leaving = by_number(tournament, 3)
    entrants.withdraw(tournament, leaving)
    ledger = money.ledger(tournament)
    assert late.id not in {a.entrant_id for a in ledger.accounts}
    gone = ledger.account(leaving.id)
    assert gone is not None and gone.withdrawn and gone.owed_cents == 500
    assert [a.number for a in ledger.accounts] == list(range(1, 11))
    assert ledger.fund.entry_cents == 10 * 500


def test_a_late_arrival_has_no_first_round_and_pays_the_schedule_from_the_start() -> None:
    tournament = tournament_with(9, deals=9, rounds_=2)
    row = drawn(tournament, 1)
    slips(tournament, row, {1: (100, 5)})
    rounds.close_round(tournament, row)
    late = entrants.register(tournament, "Zenzi", present=True)
    row = drawn(tournament, 2)
    slips(tournament, row, {1: (100, 1), late.number or 0: (50, 5)})
    # Anna: 5 lost games, then 1 more: 2.00 + 1.00, then the 6th at 1.00;
    # Zenzi: 5 lost games in her first round: 4 × 0.50 + 1.00 = 3.00
    anna, zenzi = account(tournament, 1), money.ledger(tournament).account(late.id)
    assert (anna.lost, anna.fees) == ((5, 1), (300, 100))
    assert zenzi is not None and (zenzi.lost, zenzi.fees, zenzi.lost_cents) == (
        (None, 5),
        (None, 300),
        300,
    )


# -- the fund ----------------------------------------------------------------------------------


def settings(tournament: Tournament, **changes: object) -> None:
    current = money.settings_of(tournament)
    values = {**current.__dict__, **changes}
    money.update_prizes(tournament, money.PrizeSettings(**values))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kind", "value", "to_fund", "fund", "kept"),
    [
        # 9 × 10 € + 6 € lost-game money = 96 €
        ("amount", 0, True, 9600, 0),
        ("amount", 2000, True, 7600, 2000),
        # 12.5 % of 96 € = 12 €
        ("percent", 1250, True, 8400, 1200),
        # the lost-game money stays with the organiser: 90 € less 10 % = 81 €
        ("percent", 1000, False, 8100, 1500),
        # more kept than there is: nothing for the fund
        ("amount", 100_000, True, 0, 9600),
    ],
)
def test_the_fund_is_the_takings_less_what_the_organiser_keeps(
    kind: str, value: int, to_fund: bool, fund: int, kept: int
) -> None:
    tournament = evening(
        9, [{1: (100, 2), 2: (50, 3)}, {1: (100, 2), 2: (50, 3)}], entry_fee_cents=1000
    )
    settings(tournament, keep_kind=kind, keep_value=value, lost_to_fund=to_fund)
    found = money.ledger(tournament).fund
    assert (found.takings_cents, found.fund_cents, found.kept_cents) == (9600, fund, kept)


def test_a_percentage_kept_rounds_the_fund_down_to_the_cent() -> None:
    # 3 × 3.33 € = 9.99 €, 10 % kept: 8.991 € → the fund is 8.99 €, the till keeps 1.00 €
    tournament = evening(3, [{}], entry_fee_cents=333)
    settings(tournament, keep_kind="percent", keep_value=1000)
    found = money.ledger(tournament).fund
    assert (found.fund_cents, found.kept_cents) == (899, 100)


# -- the prizes ------------------------------------------------------------------------------


def test_a_three_way_tie_for_second_shares_the_prizes_of_places_2_to_4() -> None:
    # 10 players × 10 € = 100 €; shares 30, 20, 15: place 1 gets 30.00; Bertl, Christa
    # and Done share places 2-4: 20.00 + 15.00 + 0.00 = 35.00 → 11.67, 11.67, 11.66
    # (the cent that does not divide goes to the lower start numbers first)
    points = {1: (500, 0), 2: (300, 0), 3: (300, 0), 4: (300, 0)}
    points.update({n: (100 - 10 * n, 0) for n in range(5, 11)})
    tournament = evening(10, [points], entry_fee_cents=1000)
    settings(tournament, shares=(Decimal("0.30"), Decimal("0.20"), Decimal("0.15")))
    plist = money.prize_list(tournament, published.fresh_standings(tournament.id))
    assert plist.final
    won = [(w.player.number, w.place, w.tied, w.cents) for w in plist.winners]
    assert won == [(1, 1, 1, 3000), (2, 2, 3, 1167), (3, 2, 3, 1167), (4, 2, 3, 1166)]
    assert plist.place_cents == (3000, 2000, 1500)
    # 65.00 handed out; 35.00 stays in the till (shares under 100 %, place 4 has none)
    assert (plist.given_cents, plist.rest_cents) == (6500, 3500)


def test_a_fund_splits_into_cents_without_losing_one() -> None:
    # 7 × 14.29 € = 100.03 €; shares 50, 30, 20 add up to 100 %: the whole fund is handed
    # out.  50.015, 30.009, 20.006 rounded down leave two cents, which go to places 1 and
    # 2 (the better places first): 50.02, 30.01, 20.00.  A three-way tie for first shares
    # 100.03 → 33.35, 33.34, 33.34 (the cent to the lowest start number)
    points = {1: (300, 0), 2: (300, 0), 3: (300, 0), 4: (200, 0)}
    tournament = evening(7, [points], entry_fee_cents=1429)
    settings(tournament, shares=(Decimal("0.5"), Decimal("0.3"), Decimal("0.2")))
    plist = money.prize_list(tournament, published.fresh_standings(tournament.id))
    assert plist.fund.fund_cents == 10003
    assert plist.place_cents == (5002, 3001, 2000)
    assert [w.cents for w in plist.winners] == [3335, 3334, 3334]
    assert (plist.given_cents, plist.rest_cents) == (10003, 0)


def test_shares_of_100_percent_leave_no_cent_in_the_till() -> None:
    # issue 30: 275.85 € at 50/30/20 paid out 275.84 €.  15 × 18.39 € = 275.85 €
    points = {n: (400 - 10 * n, 0) for n in range(1, 16)}
    tournament = evening(15, [points], entry_fee_cents=1839)
    settings(tournament, shares=(Decimal("0.5"), Decimal("0.3"), Decimal("0.2")))
    plist = money.prize_list(tournament, published.fresh_standings(tournament.id))
    assert plist.fund.fund_cents == 27585
    assert plist.place_cents == (13793, 8275, 5517)
    assert [w.cents for w in plist.winners] == [13793, 8275, 5517]
    assert (plist.given_cents, plist.rest_cents) == (27585, 0)


def test_item_prizes_go_in_pick_order_and_a_short_list_ends_them() -> None:
    # Bertl and Christa share place 2: Bertl (start number 2) picks before Christa
    points = {1: (500, 0), 2: (300, 0), 3: (300, 0), 4: (200, 0)}
    tournament = evening(6, [points])
    settings(tournament, mode="items", items=("Schinken", "Wein", "Kalender"), joke="Zwiebeln")
    plist = money.prize_list(tournament, published.fresh_standings(tournament.id))
    assert [(w.pick, w.player.number, w.place, w.item) for w in plist.winners] == [
        (1, 1, 1, "Schinken"),
        (2, 2, 2, "Wein"),
        (3, 3, 2, "Kalender"),
    ]
    assert plist.ranked == 6 and plist.items_left == ()
    # places 5 and 6 score 0 and 0: both share the last place and get the joke prize
    assert sorted(w.player.number for w in plist.joke_winners) == [5, 6]


def test_the_joke_prize_passes_over_a_player_who_withdrew() -> None:
    tournament = tournament_with(9, deals=9, rounds_=2)
    row = drawn(tournament, 1)
    slips(tournament, row, {n: (100 * n, 0) for n in range(1, 10)})
    rounds.close_round(tournament, row)
    entrants.withdraw(tournament, by_number(tournament, 1))  # last so far, goes home
    settings(tournament, joke="Zwiebeln")
    plist = money.prize_list(tournament, published.fresh_standings(tournament.id))
    assert not plist.final  # round 2 is still to come: provisional
    assert [w.player.number for w in plist.joke_winners] == [2]


# -- paid --------------------------------------------------------------------------------------


def test_paid_twice_is_one_change() -> None:
    tournament = evening(9, [{1: (100, 2)}], entry_fee_cents=1000)
    anna = by_number(tournament, 1)
    assert money.mark_paid(tournament, anna.id, 1100) is True
    first = account(tournament, 1)
    assert first.paid and first.paid_cents == 1100 and first.paid_at is not None
    assert money.mark_paid(tournament, anna.id, 1100) is False
    assert account(tournament, 1).paid_at == first.paid_at
    ledger = money.ledger(tournament)
    assert (ledger.collected_cents, ledger.paid_count) == (1100, 1)
    assert ledger.outstanding_cents == 8 * 1000


def test_a_tap_that_another_tab_made_first_writes_nothing() -> None:
    tournament = evening(9, [{}], entry_fee_cents=1000)
    anna = by_number(tournament, 1)
    earlier = datetime(2026, 11, 27, 20, 0)
    # the other tab's tap, committed behind this session's back
    with db.engine.begin() as connection:
        connection.execute(
            update(Entrant).where(Entrant.id == anna.id).values(paid_cents=1000, paid_at=earlier)
        )
    assert money.mark_paid(tournament, anna.id, 1000) is False
    assert account(tournament, 1).paid_at == earlier


def test_an_amount_changed_since_the_page_is_told_and_not_booked() -> None:
    tournament = evening(9, [{1: (100, 2)}], entry_fee_cents=1000)
    anna = by_number(tournament, 1)
    with pytest.raises(money.AmountChanged) as told:
        money.mark_paid(tournament, anna.id, 1000)  # the page showed 10 €, she owes 11 €
    assert (told.value.owed_cents, told.value.shown_cents) == (1100, 1000)
    assert account(tournament, 1).paid_cents is None


def test_a_correction_after_paying_shows_what_is_still_owed_or_to_give_back() -> None:
    tournament = evening(9, [{1: (100, 2)}], entry_fee_cents=1000)
    anna = by_number(tournament, 1)
    money.mark_paid(tournament, anna.id, 1100)
    row = tournament.round_rows[0]
    table = next(t for t in row.tables if anna.id in t.players)
    slip = {e: list(v) for e, v in (table.paper or {}).items()}
    slip[str(anna.id)] = [100, 4]  # two more lost games: 2.00 €
    board.set_paper(tournament, table, {int(e): (p, lost) for e, (p, lost) in slip.items()})
    now = account(tournament, 1)
    assert (now.paid, now.owed_cents, now.outstanding_cents, now.refund_cents) == (
        False,
        1200,
        100,
        0,
    )
    slip[str(anna.id)] = [100, 0]
    board.set_paper(tournament, table, {int(e): (p, lost) for e, (p, lost) in slip.items()})
    now = account(tournament, 1)
    assert (now.outstanding_cents, now.refund_cents) == (0, 100)
    assert money.ledger(tournament).refund_cents == 100


def test_not_paid_takes_a_tap_back_once() -> None:
    tournament = evening(9, [{}], entry_fee_cents=1000)
    anna = by_number(tournament, 1)
    money.mark_paid(tournament, anna.id, 1000)
    assert money.mark_unpaid(tournament, anna.id) is True
    assert money.mark_unpaid(tournament, anna.id) is False
    assert account(tournament, 1).paid_cents is None


def test_a_player_not_checked_in_has_nothing_to_pay() -> None:
    tournament = evening(9, [{}], entry_fee_cents=1000)
    zenzi = entrants.register(tournament, "Zenzi")
    with pytest.raises(RulesError, match="not checked in"):
        money.mark_paid(tournament, zenzi.id, 1000)
    with pytest.raises(services.NotFound):
        money.mark_paid(tournament, 10**9, 1000)


# -- the settings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        {"keep_kind": "gift"},
        {"keep_kind": "percent", "keep_value": 10_001},
        {"keep_kind": "amount", "keep_value": -1},
        {"mode": "lottery"},
        {"shares": (Decimal("0.6"), Decimal("0.5"))},
        {"shares": (Decimal("0.12345"),)},
        {"items": tuple(f"Preis {n}" for n in range(money.MAX_PRIZE_ITEMS + 1))},
        {"items": ("Wein\x00",)},
        {"joke": "x" * (money.MAX_ITEM + 1)},
    ],
)
def test_refused_settings_leave_the_tournament_as_it_was(bad: dict[str, object]) -> None:
    tournament = tournament_with(9)
    settings(tournament, shares=(Decimal("0.5"),), joke="Zwiebeln")
    before = money.settings_of(tournament)
    version = tournament.version
    with pytest.raises(RulesError):
        settings(tournament, **bad)
    db.session.rollback()
    assert money.settings_of(tournament) == before
    assert tournament.version == version


def test_saved_settings_count_as_a_change_of_the_tournament() -> None:
    tournament = tournament_with(9)
    version = tournament.version
    settings(tournament, items=("  Wein  ", "", "Schinken"), joke=" ein  Sack Zwiebeln ")
    assert tournament.version == version + 1
    saved = money.settings_of(tournament)
    assert (saved.items, saved.joke) == (("Wein", "Schinken"), "ein Sack Zwiebeln")


# -- the migration -------------------------------------------------------------------------------


def test_the_migration_adds_the_money_to_existing_tournaments_and_goes_back(
    tmp_path: Path,
) -> None:
    url = PG_URL or f"sqlite:///{tmp_path / 'money.sqlite'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        if PG_URL:
            db.session.execute(text(EMPTY_SCHEMA))
            db.session.commit()
        flask_migrate.upgrade(revision="e7a1c3d5f9b2")
        with db.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO tournament (id, token, view_token, name, held_on, place, ruleset,"
                    " rounds, entry_fee_cents, fee_schedule, tie_break, seed, public_url,"
                    " created_at, updated_at, version) VALUES (1, 'a', 'b', 'Alt', '', '', '{}',"
                    " 3, 500, '0.50', true, 'seed', '', '2026-01-01', '2026-01-01', 1)"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO tournament_entrant (id, tournament_id, name, club, household,"
                    " created_at) VALUES (1, 1, 'Anna', '', '', '2026-01-01')"
                )
            )
        flask_migrate.upgrade()
        with db.engine.connect() as connection:
            row = connection.execute(
                text(
                    "SELECT keep_kind, keep_value, lost_money_to_fund, prize_mode, prize_shares,"
                    " prize_items, joke_prize FROM tournament"
                )
            ).one()
            paid = connection.execute(text("SELECT paid_cents FROM tournament_entrant")).scalar()
        assert (row[0], row[1], bool(row[2]), row[3], row[6]) == ("amount", 0, True, "money", "")
        assert row[4] in ([], "[]") and row[5] in ([], "[]")
        assert paid is None
        flask_migrate.downgrade(revision="e7a1c3d5f9b2")
        with db.engine.connect() as connection:
            columns = {c["name"] for c in inspect(connection).get_columns("tournament")}
            names = connection.execute(text("SELECT name FROM tournament_entrant")).scalars()
            assert list(names) == ["Anna"]
        assert "prize_mode" not in columns and "keep_kind" not in columns
        db.session.remove()
        db.engine.dispose()
