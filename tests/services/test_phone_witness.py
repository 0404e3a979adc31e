"""The table phones as the last witness, at the service level: what the laptop holds, a
phone's deals taken in again (each once, at its place), and the phones' reports.

The hands' idempotency keys travel in the tournament's backup, so a laptop restored
from a file recognises the deals the file holds; a deal the file lacks goes in at the
place it was played, or not at all.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from flask import Flask
from sqlalchemy import func, select

from scorer import services
from scorer.extensions import db
from scorer.models import Hand, Match
from scorer.rules import PRESETS
from scorer.services import HandInput
from scorer.services.backup_format import dumps
from scorer.services.tournaments import board, phone_reports, rounds, witness
from scorer.services.tournaments.backup import export_tournament, restore
from scorer.services.tournaments.witness import Answer, Deal
from scorer.services.writes import ORGANISER
from scorer.tournament_models import PhoneReport, Tournament
from tests.races import in_context, interleave
from tests.tournament_builders import a_hand, drawn, tournament_with


def wipe() -> None:
    """Another laptop: an empty database."""
    db.session.remove()
    db.drop_all()
    db.create_all()


def keyed(match: Match, count: int, prefix: str = "k") -> list[Deal]:
    """``count`` deals saved at ``match`` as its phone saves them (a key each), as the
    phone keeps them: key, place and what was entered."""
    deals = []
    for n in range(count):
        entry = a_hand(match, declarer=n % len(match.seats))
        key = f"{prefix}{n + 1}-{match.id}"
        hand = services.save_hand(match, entry, idempotency_key=key)
        deals.append(Deal(key, hand.seq, entry))
    return deals


def only_table(tournament: Tournament) -> Match:
    return tournament.round_rows[-1].tables[0].match


def keys_of(match: Match) -> list[str | None]:
    return list(
        db.session.execute(
            select(Hand.idempotency_key).where(Hand.match_id == match.id).order_by(Hand.seq)
        ).scalars()
    )


# -- the keys travel in the backup ---------------------------------------------------------


SPECIAL = [
    HandInput(
        declarer=0,
        bid=300,
        trump="H",
        outcome="played",
        melds=[100, 20, 40],
        meld_names=[["Familie"], None, ["Paar"]],
        tricks=[180, 70, None],
    ),
    HandInput(declarer=1, bid=200, trump="E", outcome="gone_off", melds=[0, 60, 0]),
    HandInput(declarer=2, bid=300, outcome="forfeit", at_fault=1),
    HandInput(declarer=0, bid=250, trump="S", outcome="forfeit"),
]
SPECIAL_GAMES = [
    HandInput(declarer=1, bid=0, outcome="bettel", won=False),
    HandInput(declarer=2, bid=0, outcome="durch_open", won=False),
    HandInput(declarer=0, bid=0, outcome="durch", won=True),  # (it ends the match)
]


def test_a_restored_laptop_knows_every_deal_the_file_holds_by_its_key(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, deals=6, rounds_=1)
        row = drawn(tournament)
        match = row.tables[0].match
        sent = []
        for n, entry in enumerate(SPECIAL, 1):
            hand = services.save_hand(match, entry, idempotency_key=f"deal-{n}")
            sent.append(Deal(f"deal-{n}", hand.seq, entry))
        text = dumps(export_tournament(tournament))
        wipe()
        restored = restore(text).tournament
        assert restored is not None
        table = only_table(restored)
        assert keys_of(table) == [d.key for d in sent]
        # every deal sent again — each kind of outcome, meld names and all — is held
        outcomes = witness.resend(table, sent)
        assert [o.answer for o in outcomes] == [Answer.HELD] * len(sent)
        assert keys_of(table) == [d.key for d in sent]


def test_a_match_backup_keeps_the_keys_of_its_special_games(app: Flask) -> None:
    # the match backups read the hands the same way (a table's match is one of them)
    with app.test_request_context("/?lang=en"):
        match = services.start_match(names=["Anna", "Berta", "Carl"], ruleset=PRESETS["standard"])
        for n, entry in enumerate(SPECIAL_GAMES, 1):
            services.save_hand(match, entry, idempotency_key=f"game-{n}")
        text = services.dumps(services.export_all())
        wipe()
        [session] = services.import_backup(text)
        restored = session.matches[0]
        assert keys_of(restored) == ["game-1", "game-2", "game-3"]
        for n, entry in enumerate(SPECIAL_GAMES, 1):
            services.save_hand(restored, entry, idempotency_key=f"game-{n}")  # answered as saved
        assert len(keys_of(restored)) == 3


def test_a_file_with_one_key_twice_or_a_bad_key_is_refused(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, deals=3, rounds_=1)
        match = drawn(tournament).tables[0].match
        keyed(match, 2)
        data = export_tournament(tournament)
        hands = data["tournament"]["rounds"][0]["tables"][0]["match"]["hands"]
        hands[1]["idempotency_key"] = hands[0]["idempotency_key"]
        with pytest.raises(services.BackupError, match="same key of the entry"):
            restore(dumps(data))
        hands[1]["idempotency_key"] = "not a key!"
        with pytest.raises(services.BackupError, match="key of the entry"):
            restore(dumps(data))
        hands[1]["idempotency_key"] = None  # a hand saved without one: fine
        assert restore(dumps(data)).tournament is not None


# -- what a phone sends again ---------------------------------------------------------------


def test_deals_a_laptop_lacks_go_in_at_their_places_and_each_once(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, deals=6, rounds_=1)
        match = drawn(tournament).tables[0].match
        first = keyed(match, 2)
        text = dumps(export_tournament(tournament))  # the backup after deal 2
        later = keyed(match, 3, prefix="late")
        standing_before = services.standing(match).totals
        wipe()
        table = only_table(restore(text).tournament)  # type: ignore[union-attr]
        held = witness.held(table)
        assert held.keys == {d.key for d in first} and not held.closed
        # the phone sends all it holds; the laptop stores what it lacks, in order
        outcomes = witness.resend(table, [*first, *later])
        assert [o.answer for o in outcomes] == [Answer.HELD] * 2 + [Answer.STORED] * 3
        assert keys_of(table) == [d.key for d in [*first, *later]]
        assert services.standing(table).totals == standing_before
        # the same again: nothing stored twice
        again = witness.resend(table, [*first, *later])
        assert {o.answer for o in again} == {Answer.HELD}
        assert (
            db.session.execute(
                select(func.count()).select_from(Hand).where(Hand.match_id == table.id)
            ).scalar_one()
            == 5
        )


def test_a_deal_goes_only_to_its_own_place(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, deals=6, rounds_=1)
        match = drawn(tournament).tables[0].match
        deals = keyed(match, 3)
        text = dumps(export_tournament(tournament))
        wipe()
        table = only_table(restore(text).tournament)  # type: ignore[union-attr]
        fourth = replace(deals[2], key="four", seq=4)
        sixth = replace(deals[2], key="six", seq=6)
        outcomes = witness.resend(table, [sixth])
        assert outcomes[0].answer == Answer.GAP and outcomes[0].last == 3
        services.save_hand(table, a_hand(table), idempotency_key="typed-here")  # seq 4
        outcomes = witness.resend(table, [fourth])
        assert outcomes[0].answer == Answer.TAKEN and outcomes[0].last == 4
        assert keys_of(table) == [d.key for d in deals] + ["typed-here"]


def test_a_key_with_another_deal_is_refused_and_nothing_is_stored(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, deals=6, rounds_=1)
        match = drawn(tournament).tables[0].match
        deals = keyed(match, 2)
        other = replace(deals[1], entry=replace(deals[1].entry, bid=350))
        assert witness.resend(match, [other])[0].answer == Answer.REUSED
        assert keys_of(match) == [d.key for d in deals]


def test_a_deal_the_phone_saw_struck_comes_back_struck(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, deals=6, rounds_=1)
        match = drawn(tournament).tables[0].match
        text = dumps(export_tournament(tournament))
        deals = keyed(match, 2)
        wipe()
        table = only_table(restore(text).tournament)  # type: ignore[union-attr]
        struck = replace(deals[0], struck=True)
        outcomes = witness.resend(table, [struck, deals[1]])
        assert [o.answer for o in outcomes] == [Answer.STORED, Answer.STORED]
        hands = db.session.execute(
            select(Hand).where(Hand.match_id == table.id).order_by(Hand.seq)
        ).scalars()
        assert [h.deleted_at is not None for h in hands] == [True, False]
        assert services.standing(table).hand_count == 1
        assert [seq for seq, _key, _struck in witness.held(table).hands] == [1, 2]


def test_a_closed_round_takes_nothing_from_its_phone_but_the_organiser_may(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, deals=3, rounds_=1)
        row = drawn(tournament)
        first, *others = row.tables
        early = keyed(first.match, 2)
        for table in others:
            keyed(table.match, 3)
        text = dumps(export_tournament(tournament))
        last = keyed(first.match, 1, prefix="last")[0]
        wipe()
        restored = restore(text).tournament
        assert restored is not None
        row = restored.round_rows[0]
        table = row.tables[0]
        # on the new laptop the organiser typed table 1's slip and closed the round
        board.set_paper(restored, table, {p: (100, 0) for p in table.players})
        rounds.close_round(restored, row)
        match = table.match
        assert witness.held(match).closed
        assert witness.resend(match, [*early, last])[2].answer == Answer.CLOSED
        outcomes = witness.resend(match, [*early, last], via=ORGANISER)
        assert [o.answer for o in outcomes] == [Answer.HELD, Answer.HELD, Answer.STORED]


def test_two_phones_sending_the_same_deal_at_once_store_it_once(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, deals=6, rounds_=1)
        match = drawn(tournament).tables[0].match
        text = dumps(export_tournament(tournament))
        deals = keyed(match, 1)
        wipe()
        token = only_table(restore(text).tournament).token  # type: ignore[union-attr]
        db.session.remove()

    def send() -> list[Answer]:
        table = services.get_match(token)
        return [o.answer for o in witness.resend(table, deals)]

    late, early = interleave(in_context(app, send), in_context(app, send))
    assert early == [Answer.STORED]
    assert late == [Answer.HELD]
    with app.app_context():
        table = services.get_match(token)
        assert keys_of(table) == [deals[0].key]
        db.session.remove()


# -- the phones' reports ---------------------------------------------------------------------


def reported(deals: list[Deal], why: str = "") -> list[phone_reports.Reported]:
    return [
        phone_reports.Reported(
            key=d.key,
            seq=d.seq,
            deal=d.seq,
            struck=False,
            told=True,
            why=why,
            fields=(("declarer", str(d.entry.declarer)), ("bid", str(d.entry.bid))),
        )
        for d in deals
    ]


def test_a_report_names_the_table_with_the_same_players_and_is_taken_in(app: Flask) -> None:
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, deals=6, rounds_=1)
        row = drawn(tournament)
        table = row.tables[1]
        names = {e.id: e.name for e in tournament.entrants}
        players = [names[p] for p in table.players]
        deals = keyed(table.match, 3)
        for hand in list(table.match.hands):
            db.session.delete(hand)  # the laptop lost them (an older file)
        db.session.commit()
        found = phone_reports.report(
            tournament,
            token="x" * 22,  # the phone's link: a draw this laptop never made
            round_number=1,
            table_number=table.number,
            players=players,
            deals=reported(deals),
            why="missing",
        )
        [item] = phone_reports.listed(tournament)
        assert item.here is None and item.targets == [table] and len(item.missing) == 3
        outcomes = phone_reports.take_in(tournament, found, table, deals)
        assert [o.answer for o in outcomes] == [Answer.STORED] * 3
        assert found.settled == "taken"
        assert phone_reports.listed(tournament) == []
        assert phone_reports.state_of_link("x" * 22) == "taken"
        # the phone reports the same deals again: nothing new, nothing listed
        phone_reports.report(
            tournament,
            token="x" * 22,
            round_number=1,
            table_number=table.number,
            players=players,
            deals=reported(deals),
            why="missing",
        )
        assert phone_reports.listed(tournament) == []


def test_a_report_is_set_aside_and_the_reports_are_bounded(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(phone_reports, "MAX_REPORTS", 2)
    with app.test_request_context("/?lang=en"):
        tournament = tournament_with(9, deals=3, rounds_=1)
        drawn(tournament)
        kept = []
        for n in range(2):
            kept.append(
                phone_reports.report(
                    tournament,
                    token=f"{n}" * 22,
                    round_number=2,
                    table_number=n + 1,
                    players=["Anna", "Bertl", "Christa"],
                    deals=reported([Deal(f"k{n}", 1, a_hand(only_table(tournament)))]),
                    why="missing",
                )
            )
        with pytest.raises(phone_reports.TooManyReports):
            phone_reports.report(
                tournament,
                token="9" * 22,
                round_number=2,
                table_number=9,
                players=["Anna"],
                deals=[],
                why="missing",
            )
        listed = phone_reports.listed(tournament)
        assert [item.targets for item in listed] == [[], []]  # round 2 is not drawn here
        phone_reports.set_aside(kept[0])
        assert len(phone_reports.listed(tournament)) == 1
        assert db.session.execute(select(func.count()).select_from(PhoneReport)).scalar_one() == 2
