"""The year as the pages show it: the evenings read from the database, the year asked of the rules.

Nothing here computes a number of the year: the rows are read (the matches'
stored standings, the hands' stored results, the payments) and handed to
:mod:`scorer.rules.year` as its values; the ranking, the records and the books
come back.  A person is known to the rules by his id as text.

What is read, in a handful of statements whatever the year's size: the group's
evenings and who sat in, the payments, the people, and the evenings as the rules
read them (:mod:`.played`: kept evening by evening while they do not change).
What the rules made of a year is kept too, under a fingerprint of everything it
depends on (:func:`_fingerprint`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from ...extensions import db
from ...models import GameSession, Match
from ...rules.year import (
    Evening,
    EveningMoney,
    Ledger,
    Payment,
    Record,
    YearRanking,
    paid_when,
    year_ledger,
    year_ranking,
    year_records,
)
from ...stammtisch_models import Evening as EveningRow
from ...stammtisch_models import Member, Person, Stammtisch, Year
from ...stammtisch_models import Payment as PaymentRow
from .groups import year_by_number
from .played import MatchLink, Played, played
from .played import forget as forget_evenings


def key_of(person_id: int | None) -> str | None:
    """The rules' key of a person."""
    return None if person_id is None else str(person_id)


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

    played: dict[int, Played]
    ranking: YearRanking
    records: tuple[Record, ...]
    ledger: Ledger
    counted: frozenset[int]


_KEPT: LRUCache[tuple[Any, ...], _Computed] = LRUCache(maxsize=16)
_KEPT_LOCK = threading.Lock()


def forget() -> None:
    """Drop every year and evening this process keeps (the bench measures the first
    request after a change with it; a change itself needs no call: it changes the
    fingerprints)."""
    with _KEPT_LOCK:
        _KEPT.clear()
    forget_evenings()


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
    this_year = played(this, with_hands=hands)
    before = played(earlier, with_hands=False)
    values = [payment_value(p, numbers) for p in payment_rows]
    ranking = year_ranking(
        [p.value for p in this_year.values()],
        order,
        year.ranking_by,
        [p.money for p in this_year.values()],
    )
    end = next((y.starts_on for y in group.years if y.number == year.number + 1), None)
    ledger = year_ledger(
        [p.money for p in before.values()],
        [p.money for p in this_year.values()],
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
    records = year_records([p.value for p in this_year.values()]) if hands else ()
    return _Computed(this_year, ranking, records, ledger, counted)


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
