"""An evening as the rules read it: its matches' seats, totals and ends, its hands, its money.

Read as plain Core rows (no ORM object per match, seat or hand: a year of 40
evenings of 10 matches has about 5,600 hands) and kept per process, evening by
evening, under a fingerprint of its session (its matches' count, versions and
last change, the session's own): when a hand is saved tonight, the year is
computed again from tonight's evening read anew and the other 39 as they were.
The numbers are the rules' own results as the match stores them (each match's
standing, each hand's points); nothing is settled again here.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache
from sqlalchemy import String, func, select, type_coerce

from ...extensions import db
from ...models import GameSession, Hand, HandParty, Match, Seat
from ...rules.year import Evening, EveningMoney, HandPlayed, MatchPlayed, evening_money
from ...stammtisch_models import Evening as EveningRow
from ..sheets import STANDING_VERSION, standing


@dataclass(frozen=True)
class MatchLink:
    """How a page reaches a match: its edit link's token, its read-only one's, its number."""

    token: str
    view_token: str
    number: int
    finished: bool


_HANDS = Hand.__table__
_LINES = HandParty.__table__
_MATCHES = Match.__table__
_SEATS = Seat.__table__


def _plain(statement: Any) -> Any:
    """Rows of a Core statement on the request's connection (no ORM: a year's hands are
    thousands of rows, and the ORM's bookkeeping per row was most of their cost)."""
    return db.session.connection().execute(statement)


def _hands_of(session_ids: Sequence[int]) -> dict[int, list[HandPlayed]]:
    """The counted hands of the matches of these sessions, by match id, as the rules read them."""
    if not session_ids:
        return {}
    counted = (
        _HANDS.c.deleted_at.is_(None),
        _HANDS.c.status == "closed",
        _MATCHES.c.session_id.in_(list(session_ids)),
    )
    lines: dict[int, list[tuple[int, int, bool, tuple[str, ...]]]] = defaultdict(list)
    # the meld names as stored text: most lines name none (a typed total), and reading
    # every line's JSON was a third of the year's reading
    for hand_id, party, points, sits_out, names in _plain(
        select(
            _LINES.c.hand_id,
            _LINES.c.party,
            _LINES.c.points,
            _LINES.c.sits_out,
            type_coerce(_LINES.c.meld_names, String),
        )
        .join(_HANDS, _HANDS.c.id == _LINES.c.hand_id)
        .join(_MATCHES, _MATCHES.c.id == _HANDS.c.match_id)
        .where(*counted)
    ):
        lines[hand_id].append((party, points, bool(sits_out), _names(names)))
    found: dict[int, list[HandPlayed]] = defaultdict(list)
    for row in _plain(
        select(
            _HANDS.c.id,
            _HANDS.c.match_id,
            _HANDS.c.seq,
            _HANDS.c.declarer_party,
            _HANDS.c.declarer_seat,
            _HANDS.c.outcome,
            _HANDS.c.bid,
            _HANDS.c.made,
            _HANDS.c.won,
        )
        .join(_MATCHES, _MATCHES.c.id == _HANDS.c.match_id)
        .where(*counted)
        .order_by(_HANDS.c.match_id, _HANDS.c.seq)
    ):
        parts = sorted(lines.get(row.id, []))
        found[row.match_id].append(
            HandPlayed(
                number=row.seq,
                declarer=row.declarer_party,
                declarer_seat=row.declarer_seat,
                outcome=row.outcome,
                bid=row.bid or 0,
                made=row.made,
                won=row.won,
                points=tuple(p[1] for p in parts),
                sits_out=tuple(p[2] for p in parts),
                melds=tuple(p[3] for p in parts),
            )
        )
    return found


def _names(stored: str | None) -> tuple[str, ...]:
    """A party's meld names as the JSON column stores them (``null`` for a typed total)."""
    if not stored or not stored.startswith("["):
        return ()
    names = json.loads(stored)
    return tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else ()


@dataclass(frozen=True)
class Played:
    """An evening as the rules read it, its money and its matches' links: plain values,
    kept between requests."""

    value: Evening
    money: EveningMoney
    links: tuple[MatchLink, ...]


def _outcome(row: Any) -> tuple[tuple[int, ...], bool, tuple[int, ...]]:
    """A match's totals, whether it ended and its winners, from its stored standing (the
    rules' result as the match keeps it); a match without a current one is replayed."""
    cached = row.standing
    if isinstance(cached, dict) and cached.get("v") == STANDING_VERSION:
        finished = cached.get("finished_after") is not None
        return tuple(cached["totals"]), finished, tuple(cached["winners"])
    match = db.session.get(Match, row.id)
    assert match is not None
    current = standing(match)
    return tuple(current.totals), current.finished, tuple(current.winners)


_KEPT: LRUCache[tuple[Any, ...], Played] = LRUCache(maxsize=2048)
_KEPT_LOCK = threading.Lock()


def forget() -> None:
    """Drop every evening this process keeps (a change needs no call: it changes the
    evening's fingerprint)."""
    with _KEPT_LOCK:
        _KEPT.clear()


def _fingerprints(session_ids: Sequence[int]) -> dict[int, tuple[Any, ...]]:
    """What an evening's numbers depend on, per session, in two statements: the session's
    stake and last change, its matches' count, versions and last change (a saved,
    corrected or struck hand bumps its match's version)."""
    m = _MATCHES.c
    matches = {
        row.session_id: tuple(row)[1:]
        for row in _plain(
            select(m.session_id, func.count(), func.sum(m.version), func.max(m.updated_at))
            .where(m.session_id.in_(list(session_ids)))
            .group_by(m.session_id)
        )
    }
    s = GameSession.__table__.c
    return {
        row.id: (row.stake_cents, row.stake_basis, row.updated_at, matches.get(row.id))
        for row in _plain(
            select(s.id, s.stake_cents, s.stake_basis, s.updated_at).where(
                s.id.in_(list(session_ids))
            )
        )
    }


def played(rows: Sequence[EveningRow], with_hands: bool) -> dict[int, Played]:
    """The evenings of ``rows`` as the rules read them, by evening id (their hands only when
    asked for): from this process's store where an evening has not changed, the others
    read in a few statements."""
    if not rows:
        return {}
    prints = _fingerprints([row.session_id for row in rows])
    url = str(db.engine.url)
    keys = {
        row.id: (
            url,
            row.id,
            with_hands,
            row.number,
            row.held_on,
            row.money_mode,
            tuple((s.person_id, s.name, s.guest) for s in row.sitters),
            prints.get(row.session_id),
        )
        for row in rows
    }
    with _KEPT_LOCK:
        found = {row.id: _KEPT.get(keys[row.id]) for row in rows}
    missing = [row for row in rows if found[row.id] is None]
    if missing:
        fresh = _read(missing, with_hands)
        with _KEPT_LOCK:
            for row in missing:
                _KEPT[keys[row.id]] = fresh[row.id]
        found.update(fresh)
    return {row_id: value for row_id, value in found.items() if value is not None}


def _read(rows: Sequence[EveningRow], with_hands: bool) -> dict[int, Played]:
    """The evenings of ``rows`` read from the database."""
    session_ids = [row.session_id for row in rows]
    stakes = {
        sid: (cents, basis)
        for sid, cents, basis in _plain(
            select(
                GameSession.__table__.c.id,
                GameSession.__table__.c.stake_cents,
                GameSession.__table__.c.stake_basis,
            ).where(GameSession.__table__.c.id.in_(session_ids))
        )
    }
    seats: dict[int, list[Any]] = defaultdict(list)
    for seat in _plain(
        select(_SEATS.c.match_id, _SEATS.c.party, _SEATS.c.name)
        .join(_MATCHES, _MATCHES.c.id == _SEATS.c.match_id)
        .where(_MATCHES.c.session_id.in_(session_ids))
        .order_by(_SEATS.c.match_id, _SEATS.c.position)
    ):
        seats[seat.match_id].append(seat)
    matches: dict[int, list[Any]] = defaultdict(list)
    m = _MATCHES.c
    for match in _plain(
        select(m.id, m.session_id, m.number, m.token, m.view_token, m.standing)
        .where(m.session_id.in_(session_ids))
        .order_by(m.session_id, m.number)
    ):
        matches[match.session_id].append(match)
    hands = _hands_of(session_ids) if with_hands else {}
    found: dict[int, Played] = {}
    for row in rows:
        people = {s.name: str(s.person_id) for s in row.sitters}
        guests = {str(s.person_id) for s in row.sitters if s.guest}
        played: list[MatchPlayed] = []
        links: list[MatchLink] = []
        for match in matches[row.session_id]:
            totals, finished, winners = _outcome(match)
            names = tuple(s.name for s in seats[match.id])
            for name in names:
                if name not in people:  # a sheet's name nobody sat under: kept apart
                    people[name] = "?" + name
                    guests.add(people[name])
            played.append(
                MatchPlayed(
                    number=match.number,
                    seats=names,
                    parties=tuple(s.party for s in seats[match.id]),
                    totals=totals,
                    finished=finished,
                    winners=winners,
                    hands=tuple(hands.get(match.id, ())),
                )
            )
            links.append(MatchLink(match.token, match.view_token, match.number, finished))
        cents, basis = stakes[row.session_id]
        value = Evening(
            number=row.number,
            day=row.held_on,
            money=row.money_mode,
            stake_cents=cents,
            basis=basis,
            people=people,
            guests=frozenset(guests),
            matches=tuple(played),
        )
        found[row.id] = Played(value, evening_money(value), tuple(links))
    return found
