"""The use cases of scorer.services, without HTTP: what a view asks, what gets stored.

A match at the Stammtisch from the first hand to the money: start it, write hands,
correct one, strike one and bring it back, play the next match; the two-player Swiss
game that ends the moment a meld reaches 1000; the settlement's fewest transfers.
The hands come from ``tests.builders.hand_input`` (Anna declares 150 in Eichel and
makes it with 100 melds and 130 in tricks; the others meld 20 and take 60 each).
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from scorer import services
from scorer.extensions import db
from scorer.models import Hand, Match
from scorer.rules import PRESETS, minimal_transfers
from scorer.services import ConflictError, HandClosedError, HandInput, MatchOverError
from tests.builders import hand_input

NAMES = ["Anna", "Berta", "Carl"]
ANNA_MAKES_150 = hand_input(3, 0)  # Anna: 100 + 130 = 230; Berta and Carl: 20 + 60 = 80
BERTA_FAILS_400 = hand_input(3, 1, made=False)  # Berta bids 400, makes 20 + 130: −800


def new_match(**changes: Any) -> Match:
    ruleset = PRESETS["standard"].replace(**changes) if changes else PRESETS["standard"]
    return services.start_match(names=NAMES, ruleset=ruleset, title="Krone")


def save(match: Match, data: HandInput, version: int | None = None) -> Hand:
    """Save a hand and load it as the next request would (``get_hand``).

    A new hand is written with Core statements: the ``Hand`` that ``save_hand``
    returns carries its id and values, not the rows loaded with the match.
    """
    return services.get_hand(match, services.save_hand(match, data, version=version).id)


def hands_in_db() -> int:
    return int(db.session.execute(select(func.count()).select_from(Hand)).scalar_one())


def test_a_match_starts_empty_with_the_first_dealer(in_app: Flask) -> None:
    match = new_match()
    sheet = services.sheet(match)
    assert sheet.parties == NAMES
    assert (sheet.hand_count, sheet.totals, sheet.finished) == (0, [0, 0, 0], False)
    assert sheet.progress.next_dealer == 0  # Anna deals first, Berta leads
    assert match.session.title == "Krone" and match.number == 1
    assert services.get_match(match.token) is match


def test_a_saved_hand_is_on_the_sheet_and_in_the_standing(in_app: Flask) -> None:
    match = new_match()
    version = match.version
    hand = save(match, ANNA_MAKES_150, version=version)
    sheet = services.sheet(match)
    assert [row.points for row in sheet.rows] == [[230, 80, 80]]
    assert sheet.totals == [230, 80, 80]
    assert sheet.rows[0].dealer == "Anna" and sheet.rows[0].declarer == "Anna"
    assert sheet.progress.next_dealer == 1  # the deal moves on to Berta
    assert match.version == version + 1
    # the standing (the top of the match page, without the rows) says the same
    standing = services.standing(match)
    assert (standing.totals, standing.hand_count) == ([230, 80, 80], 1)
    assert [e.action for e in hand.events] == ["created"]


def test_the_same_hand_sent_twice_with_its_key_is_saved_once(in_app: Flask) -> None:
    match = new_match()
    first = services.save_hand(match, ANNA_MAKES_150, idempotency_key="k1")
    again = services.save_hand(match, ANNA_MAKES_150, idempotency_key="k1")
    assert again.id == first.id
    assert hands_in_db() == 1


def test_a_resend_that_meets_its_first_send_answers_with_the_hand_on_the_sheet(
    in_app: Flask,
) -> None:
    """The phone sent a hand, lost the answer and sent it again at once: the second
    request read the match before the first one committed, and its key after."""
    match = new_match()
    token, version = match.token, match.version
    assert services.sheet(match).hand_count == 0  # what the second request has read
    with in_app.app_context():  # the first request, in a session of its own
        services.save_hand(
            services.get_match(token), ANNA_MAKES_150, version=version, idempotency_key="k1"
        )
        db.session.remove()
    again = services.save_hand(match, ANNA_MAKES_150, version=version, idempotency_key="k1")
    assert hands_in_db() == 1
    # the answer shows the match as it is now: the hand on the sheet, the new version
    assert match.version == version + 1
    sheet = services.sheet(match)
    assert [row.hand.id for row in sheet.rows] == [again.id]
    assert sheet.totals == [230, 80, 80]


def test_a_hand_saved_on_an_old_version_is_refused(in_app: Flask) -> None:
    match = new_match()
    old = match.version
    services.save_hand(match, ANNA_MAKES_150, version=old)
    with pytest.raises(ConflictError):
        services.save_hand(match, BERTA_FAILS_400, version=old)  # another phone, same page
    assert hands_in_db() == 1


def test_a_correction_recomputes_the_totals_and_keeps_the_history(in_app: Flask) -> None:
    match = new_match()
    hand = save(match, ANNA_MAKES_150)
    services.save_hand(match, BERTA_FAILS_400)
    # Anna's hand was really a going off (Ansagen, abgegangen): she pays her bid
    gone_off = HandInput(declarer=0, bid=150, trump="E", outcome="gone_off", melds=[0, 20, 20])
    services.save_hand(match, gone_off, hand=hand, version=match.version)
    sheet = services.sheet(match)
    assert sheet.rows[0].points[0] == -150
    assert sheet.totals == [sum(row.points[p] for row in sheet.rows) for p in range(3)]
    # the later hand is untouched (Berta failed: 40 each to Anna and Carl, the Swabian sheet)
    assert sheet.rows[1].points == [120, -800, 120]
    assert [e.action for e in hand.events] == ["created", "corrected"]
    assert hands_in_db() == 2


def test_a_struck_hand_leaves_the_sheet_and_comes_back(in_app: Flask) -> None:
    match = new_match()
    first = save(match, ANNA_MAKES_150)
    services.save_hand(match, BERTA_FAILS_400)
    services.delete_hand(match, first, match.version)
    sheet = services.sheet(match)
    assert [row.points for row in sheet.rows] == [[120, -800, 120]]
    assert services.live_hands(match) == [match.hands[1]]
    assert hands_in_db() == 2  # struck, not deleted: it stays in the history
    with pytest.raises(ConflictError):
        services.restore_hand(match, first, match.version - 1)
    services.restore_hand(match, first, match.version)
    assert services.sheet(match).totals == [350, -720, 200]
    assert [e.action for e in first.events] == ["created", "deleted", "restored"]


def test_the_next_match_moves_the_deal_on_and_is_made_once(in_app: Flask) -> None:
    match = new_match(target=300)
    services.save_hand(match, ANNA_MAKES_150)
    services.save_hand(match, hand_input(3, 1))  # Berta makes 160: 310 with the game
    sheet = services.sheet(match)
    assert sheet.finished and sheet.winner_names == ["Berta"]
    with pytest.raises(MatchOverError):
        services.save_hand(match, ANNA_MAKES_150)
    following = services.next_match(match)
    assert (following.number, following.session_id) == (2, match.session_id)
    assert [s.name for s in following.seats] == NAMES
    assert services.sheet(following).progress.next_dealer == 1  # Berta deals first now
    assert services.next_match(match).id == following.id  # a double tap: the same match


def test_a_next_match_racing_its_twin_lands_in_the_twins_match(
    in_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two phones tap "next match" at once: this request looked for a later match
    before its twin committed match 2, and reads the session's matches after."""
    from scorer.services import starting

    match = new_match(target=300)
    services.save_hand(match, ANNA_MAKES_150)
    services.save_hand(match, hand_input(3, 1))
    token = match.token
    real = starting._later_match
    looks: list[int] = []

    def twin_commits_in_between(of: Match) -> Match | None:
        looks.append(of.id)
        if len(looks) == 1:
            with in_app.app_context():  # the twin, in a session of its own
                services.next_match(services.get_match(token))
                db.session.remove()
            return None  # what this request saw before the twin's commit
        return real(of)

    monkeypatch.setattr(starting, "_later_match", twin_commits_in_between)
    following = services.next_match(match)
    numbers = db.session.execute(
        select(Match.number).where(Match.session_id == match.session_id).order_by(Match.number)
    ).scalars()
    assert list(numbers) == [1, 2]  # no match 3: both phones are in match 2
    assert following.number == 2


def test_two_player_melds_end_a_swiss_match_at_once(in_app: Flask) -> None:
    # played to 230, so that two real melds reach it (melds are worth what the rules say)
    swiss = PRESETS["schweizer"].replace(target=230)
    match = services.start_match(names=["Anna", "Bert"], ruleset=swiss)
    services.set_trump(match, "H")
    services.write_meld(match, 0, "family H", 150)
    services.write_meld(match, 1, "four A", 100)
    assert not services.sheet(match).finished
    open_hand = services.sheet(match).open_hand
    assert open_hand is not None
    assert services.open_hand_melds(open_hand, 2) == [150, 100]
    # Anna reaches the target with a meld in the middle of the hand: over, no tricks played
    hand = services.write_meld(match, 0, "gross_binokel", 80)
    sheet = services.sheet(match)
    assert sheet.finished and sheet.winner_names == ["Anna"]
    assert sheet.totals == [230, 100]
    assert hand.status == "closed" and hand.ended_mid_hand
    assert sheet.open_hand is None
    with pytest.raises(MatchOverError):
        services.write_meld(match, 1, "four K", 80)


def test_a_close_of_a_two_player_hand_sent_twice_at_once_closes_it_once(in_app: Flask) -> None:
    match = services.start_match(names=["Anna", "Bert"], ruleset=PRESETS["schweizer"])
    services.write_meld(match, 0, "four A", 100)
    token, version = match.token, match.version
    assert services.sheet(match).open_hand is not None  # what the second request has read
    with in_app.app_context():  # the first close, in a session of its own
        services.finish_open_hand(services.get_match(token), [100, None], version, hand_number=1)
        db.session.remove()
    again = services.finish_open_hand(match, [100, None], version, hand_number=1)
    sheet = services.sheet(match)
    assert [row.hand.id for row in sheet.rows] == [again.id]
    assert sheet.open_hand is None and sheet.totals == [200, 30]
    # other trick points for that hand are another close: refused, the hand stays as it is
    with pytest.raises(HandClosedError):
        services.finish_open_hand(match, [90, None], match.version, hand_number=1)
    assert services.sheet(match).totals == [200, 30]


def test_two_melds_that_end_a_swiss_match_at_once_end_it_once(in_app: Flask) -> None:
    swiss = PRESETS["schweizer"].replace(target=180)  # four aces and four kings reach it
    match = services.start_match(names=["Anna", "Bert"], ruleset=swiss)
    services.write_meld(match, 0, "four A", 100)
    token = match.token
    assert services.sheet(match).open_hand is not None  # what the second request has read
    with in_app.app_context():  # Anna's meld reaches the target on one phone
        services.write_meld(services.get_match(token), 0, "four K", 80, 1)
        db.session.remove()
    # Bert's, on the other phone at the same moment: the match is over, said so (no 500)
    with pytest.raises(MatchOverError):
        services.write_meld(match, 1, "four A", 100, 1)
    sheet = services.sheet(match)
    assert sheet.finished and sheet.totals == [180, 0] and len(sheet.rows) == 1


def test_the_settlement_needs_the_fewest_transfers(in_app: Flask) -> None:
    # two matches at 50 cents per full hundred behind the winner
    first = new_match(target=300)
    session = first.session
    services.set_stake(session, 50, "full")
    services.save_hand(first, ANNA_MAKES_150)
    services.save_hand(first, hand_input(3, 1))  # Berta wins 310; Anna 310, Carl 160
    second = services.next_match(first)
    services.save_hand(second, hand_input(3, 0, declarer=2))  # Carl makes 150: 230
    services.save_hand(second, hand_input(3, 1, declarer=2))  # and 160 more: 460, the game

    money = services.settlement(session)
    assert [m.sheet.winner_names for m in money.matches] == [["Berta"], ["Carl"]]
    per_match = [m.payments for m in money.matches]
    assert all(sum(p.values()) == 0 for p in per_match)
    assert money.balances == {n: sum(p[n] for p in per_match) for n in NAMES}
    assert money.transfers == minimal_transfers(money.balances)
    # every open balance is settled, with fewer transfers than one per match and loser
    after = dict(money.balances)
    for payer, payee, cents in money.transfers:
        after[payer] += cents
        after[payee] -= cents
    assert set(after.values()) == {0}
    open_balances = sum(1 for cents in money.balances.values() if cents)
    assert len(money.transfers) <= open_balances - 1


def test_one_file_imported_twice_at_once_makes_two_sessions(
    in_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two uploads of one backup at once: both find the file's links free; the twin
    commits them between this import's look and its write."""
    import json

    from scorer.models import GameSession, new_token
    from scorer.services import backup

    match = new_match()
    services.save_hand(match, ANNA_MAKES_150)
    data = json.loads(json.dumps(services.export_sessions([match.session])))
    session_data = data["sessions"][0]
    session_data["token"], session_data["view_token"] = new_token(), new_token()
    for item in session_data["matches"]:
        item["token"], item["view_token"] = new_token(), new_token()
    raw = json.dumps(data)
    real = backup.Tokens._used
    calls: list[int] = []

    def twin_commits_in_between(self: Any, column: Any) -> set[str]:
        seen = real(self, column)
        calls.append(1)
        if len(calls) == 1:
            with in_app.app_context(), in_app.test_request_context():  # the twin, on its own
                services.import_backup(raw)
                db.session.remove()
        return seen

    monkeypatch.setattr(backup.Tokens, "_used", twin_commits_in_between)
    with in_app.test_request_context():  # the import's messages speak the user's language
        (mine,) = services.import_backup(raw)
    tokens = set(db.session.execute(select(GameSession.token)).scalars())
    assert len(tokens) == 3  # the match's own session, the twin's and this one
    assert session_data["token"] in tokens and mine.token != session_data["token"]
    assert [m.token != item["token"] for m, item in zip(mine.matches, session_data["matches"],
                                                       strict=True)] == [True]  # fmt: skip


def test_an_import_writes_nothing_while_it_checks_the_file(
    in_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite has one write lock for the whole database: an import takes it only to write
    the rows it has checked, so a table saves its hand while the import still checks."""
    import json

    from scorer.models import GameSession
    from scorer.services import backup

    match = new_match()
    services.save_hand(match, ANNA_MAKES_150)
    token = match.token
    data = json.loads(json.dumps(services.export_sessions([match.session])))
    data["sessions"].append(json.loads(json.dumps(data["sessions"][0])))
    real = backup.load_match
    calls: list[int] = []
    sessions_seen: list[int] = []

    def a_table_saves_meanwhile(*args: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:  # the match of session 2: session 1 is checked
            # none of it is in the database, not even in the import's own transaction
            sessions_seen.append(
                db.session.execute(select(func.count()).select_from(GameSession)).scalar_one()
            )
            with in_app.app_context(), in_app.test_request_context():  # a table, on its own
                services.save_hand(services.get_match(token), BERTA_FAILS_400)
                db.session.remove()
        return real(*args)

    monkeypatch.setattr(backup, "load_match", a_table_saves_meanwhile)
    with in_app.test_request_context():
        rows = services.import_backup(json.dumps(data))
    assert sessions_seen == [1] and len(rows) == 2
    assert hands_in_db() == 2 + 2  # the table's two, one in each imported session
