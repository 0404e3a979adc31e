"""The year as the pages show it: the evenings read from the database, the year asked of the rules.

Nothing here computes a number of the year: the rows are read (the matches'
stored standings, the hands' stored results, the payments) and handed to
:mod:`scorer.rules.year` as its values; the ranking, the records and the books
come back.  A person is known to the rules by his id as text.

What is read, in a handful of statements whatever the year's size: the group's
evenings and who sat in, the sessions' stakes, the matches with their seats
(each match's totals and end from its stored standing), and this year's hands
and their lines as plain rows (no ORM objects: a year of 40 evenings has about
5,000 hands).
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache
from sqlalchemy import String, func, select, type_coerce
from sqlalchemy.orm import selectinload

from ...extensions import db
from ...models import GameSession, Hand, HandParty, Match, Seat
from ...rules.year import (
    Evening,
    EveningMoney,
    HandPlayed,
    Ledger,
    MatchPlayed,
    Payment,
    Record,
    YearRanking,
    evening_money,
    paid_when,
    year_ledger,
    year_ranking,
    year_records,
)
from ...stammtisch_models import Evening as EveningRow
from ...stammtisch_models import Member, Person, Stammtisch, Year
from ...stammtisch_models import Payment as PaymentRow
from ..sheets import STANDING_VERSION, standing
from .groups import year_by_number


def key_of(person_id: int | None) -> str | None:
    """The rules' key of a person."""
    return None if person_id is None else str(person_id)


@dataclass(frozen=True)
class MatchLink:
    """How a page reaches a match: its edit link's token, its read-only one's, its number."""

    token: str
    view_token: str
    number: int
    finished: bool


@dataclass
class Night:
    """One evening of the year: its row, its session's links, its value and its money."""

    row: EveningRow
    session: GameSession
    value: Evening
    money: EveningMoney
    matches: list[MatchLink] = field(default_factory=list)


@dataclass
class YearView:
    """Everything the year's pages show, computed once per request."""

    group: Stammtisch
    year: Year
    names: dict[str, str]
    members: dict[str, Member]
    nights: list[Night]
    ranking: YearRanking
    records: tuple[Record, ...]
    ledger: Ledger
    payments: list[PaymentRow]
    counted: list[PaymentRow] = field(default_factory=list)
    """The payments that count in this year (:func:`scorer.rules.year.paid_when`)."""

    def name(self, person: str) -> str:
        """A person's name as the group knows him now."""
        return self.names.get(person, person.removeprefix("?"))

    def night(self, number: int) -> Night | None:
        """This year's evening with this number, if there is one."""
        return next((n for n in self.nights if n.row.number == number), None)

    def match_link(self, evening: int, match: int) -> MatchLink | None:
        """The links of an evening's match (for a record's hand)."""
        night = self.night(evening)
        if night is None:
            return None
        return next((m for m in night.matches if m.number == match), None)

    @property
    def current(self) -> bool:
        """Whether this is the group's current year."""
        return self.year.number == self.group.years[-1].number


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
class _Played:
    """An evening as the rules read it, its money and its matches' links: plain values,
    kept between requests (:data:`_KEPT`)."""

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


def _played(rows: Sequence[EveningRow], with_hands: bool) -> dict[int, _Played]:
    """The evenings of ``rows`` as the rules read them, by evening id (the hands only when
    asked for): plain rows, no ORM objects for the matches and seats."""
    if not rows:
        return {}
    session_ids = [row.session_id for row in rows]
    stakes = {
        sid: (cents, basis)
        for sid, cents, basis in db.session.execute(
            select(GameSession.id, GameSession.stake_cents, GameSession.stake_basis).where(
                GameSession.id.in_(session_ids)
            )
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
    found = {}
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
        found[row.id] = _Played(value, evening_money(value), tuple(links))
    return found


def _payments(group: Stammtisch) -> list[PaymentRow]:
    return list(
        db.session.execute(
            select(PaymentRow)
            .where(PaymentRow.group_id == group.id, PaymentRow.struck_at.is_(None))
            .order_by(PaymentRow.paid_on, PaymentRow.id)
        ).scalars()
    )


def payment_value(row: PaymentRow, numbers: dict[int, int]) -> Payment:
    """A payment row as the rules read it (``numbers``: evening ids to their numbers)."""
    return Payment(
        number=row.id,
        kind=row.kind,
        day=row.paid_on,
        cents=row.cents,
        payer=key_of(row.payer_id),
        payee=key_of(row.payee_id),
        evening=None if row.evening_id is None else numbers.get(row.evening_id),
        note=row.note,
    )


def _evening_rows(group: Stammtisch) -> list[EveningRow]:
    return list(
        db.session.execute(
            select(EveningRow)
            .where(EveningRow.group_id == group.id)
            .order_by(EveningRow.held_on, EveningRow.number)
            .options(selectinload(EveningRow.sitters))
        ).scalars()
    )


@dataclass(frozen=True)
class _Computed:
    """What the rules made of a year: kept between requests while nothing changed."""

    played: dict[int, _Played]
    ranking: YearRanking
    records: tuple[Record, ...]
    ledger: Ledger
    counted: frozenset[int]


_KEPT: LRUCache[tuple[Any, ...], _Computed] = LRUCache(maxsize=16)
_KEPT_LOCK = threading.Lock()


def forget() -> None:
    """Drop every year this process keeps (the bench measures the first request after a
    change with it; a change itself needs no call: it changes the fingerprint)."""
    with _KEPT_LOCK:
        _KEPT.clear()


def _fingerprint(group: Stammtisch) -> tuple[Any, ...]:
    """What the year's numbers depend on, in one statement: the group's own changes (its
    members, settings and payments bump its version or time), and every evening's
    session and matches (a saved, corrected or struck hand bumps its match's version)."""
    row = db.session.execute(
        select(
            func.count(func.distinct(EveningRow.id)),
            func.count(Match.id),
            func.coalesce(func.sum(Match.version), 0),
            func.max(Match.updated_at),
            func.max(GameSession.updated_at),
        )
        .select_from(EveningRow)
        .join(GameSession, GameSession.id == EveningRow.session_id)
        .outerjoin(Match, Match.session_id == GameSession.id)
        .where(EveningRow.group_id == group.id)
    ).one()
    return (group.token, group.version, group.updated_at, *row)


def _compute(
    group: Stammtisch,
    year: Year,
    this: Sequence[EveningRow],
    earlier: Sequence[EveningRow],
    payment_rows: Sequence[PaymentRow],
    numbers: dict[int, int],
    order: Sequence[str],
    hands: bool,
) -> _Computed:
    played = _played(this, with_hands=hands)
    before = _played(earlier, with_hands=False)
    values = [payment_value(p, numbers) for p in payment_rows]
    ranking = year_ranking(
        [p.value for p in played.values()],
        order,
        year.ranking_by,
        [p.money for p in played.values()],
    )
    end = next((y.starts_on for y in group.years if y.number == year.number + 1), None)
    ledger = year_ledger(
        [p.money for p in before.values()],
        [p.money for p in played.values()],
        values,
        year.starts_on,
        end,
    )
    during = {r.number for r in this}
    earlier_numbers = {r.number for r in earlier}
    counted = frozenset(
        row.id
        for row, value in zip(payment_rows, values, strict=True)
        if paid_when(value, during, earlier_numbers, year.starts_on, end) == "during"
    )
    records = year_records([p.value for p in played.values()]) if hands else ()
    return _Computed(played, ranking, records, ledger, counted)


def year_view(group: Stammtisch, number: int | None = None, *, hands: bool = True) -> YearView:
    """The year ``number`` of the group (its current year by default), computed.

    ``hands=False`` leaves the hands unread (the money pages need none: their
    ranking has no hands won or lost and no records).  What the rules made of the
    year is kept in the process until something it depends on changes
    (:func:`_fingerprint`); the rows the pages show are read each time.
    """
    year = group.years[-1] if number is None else year_by_number(group, number)
    numbers_of_years = {y.id: y.number for y in group.years}
    rows = _evening_rows(group)
    this = [r for r in rows if r.year_id == year.id]
    earlier = [r for r in rows if numbers_of_years.get(r.year_id, 0) < year.number]
    evening_numbers = {r.id: r.number for r in rows}
    payment_rows = _payments(group)
    people = db.session.execute(select(Person).where(Person.group_id == group.id)).scalars()
    names = {str(p.id): p.name for p in people}
    members = {str(m.person_id): m for m in year.members}
    # equal places are listed by name (the rules keep the order they are given)
    order = sorted(members, key=lambda person: (names.get(person, "").casefold(), person))
    key = (str(db.engine.url), year.id, hands, tuple(order), *_fingerprint(group))
    with _KEPT_LOCK:
        computed = _KEPT.get(key)
    if computed is None:
        computed = _compute(group, year, this, earlier, payment_rows, evening_numbers, order, hands)
        with _KEPT_LOCK:
            _KEPT[key] = computed
    sessions = {
        s.id: s
        for s in db.session.execute(
            select(GameSession).where(GameSession.id.in_([r.session_id for r in this]))
        ).scalars()
    }
    nights = [
        Night(
            row,
            sessions[row.session_id],
            computed.played[row.id].value,
            computed.played[row.id].money,
            list(computed.played[row.id].links),
        )
        for row in this
    ]
    counted = [p for p in payment_rows if p.id in computed.counted]
    return YearView(
        group,
        year,
        names,
        members,
        nights,
        computed.ranking,
        computed.records,
        computed.ledger,
        list(payment_rows),
        counted,
    )


def evening_view(group: Stammtisch, row: EveningRow) -> tuple[YearView, Night]:
    """An evening with the year around it (its money is part of the year's books)."""
    view = year_view(group, _year_number(group, row), hands=False)
    night = view.night(row.number)
    assert night is not None
    return view, night


def _year_number(group: Stammtisch, row: EveningRow) -> int:
    return next(y.number for y in group.years if y.id == row.year_id)


@dataclass(frozen=True)
class Unpaid:
    """What of an evening's money is still to be paid on its night: per transfer of the
    night (payer, payee) and per person's dues to the kitty, in cents."""

    transfers: dict[tuple[str, str], int]
    dues: dict[str, int]


def unpaid_on_night(view: YearView, night: Night) -> Unpaid:
    """The night's transfers and dues less what was tapped "bezahlt" on that night."""
    paid = [p for p in view.payments if p.evening_id == night.row.id]
    transfers = {}
    for payer, payee, cents in night.money.transfers:
        done = sum(
            p.cents
            for p in paid
            if p.kind == "transfer" and (key_of(p.payer_id), key_of(p.payee_id)) == (payer, payee)
        )
        transfers[(payer, payee)] = max(0, cents - done)
    dues = {}
    for person, cents in night.money.dues.items():
        done = sum(p.cents for p in paid if p.kind == "kitty" and key_of(p.payer_id) == person)
        dues[person] = max(0, cents - done)
    return Unpaid(transfers, dues)
