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

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ...extensions import db
from ...models import GameSession, Hand, HandParty, Match
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
from ..sheets import standing
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


def _hands_of(session_ids: Sequence[int]) -> dict[int, list[HandPlayed]]:
    """The counted hands of the matches of these sessions, by match id, as the rules read them."""
    if not session_ids:
        return {}
    counted = (
        Hand.deleted_at.is_(None),
        Hand.status == "closed",
        Match.session_id.in_(list(session_ids)),
    )
    lines: dict[int, list[tuple[int, int, bool, list[str] | None]]] = defaultdict(list)
    for hand_id, party, points, sits_out, names in db.session.execute(
        select(
            HandParty.hand_id,
            HandParty.party,
            HandParty.points,
            HandParty.sits_out,
            HandParty.meld_names,
        )
        .join(Hand, Hand.id == HandParty.hand_id)
        .join(Match, Match.id == Hand.match_id)
        .where(*counted)
    ):
        lines[hand_id].append((party, points, sits_out, names))
    found: dict[int, list[HandPlayed]] = defaultdict(list)
    for row in db.session.execute(
        select(
            Hand.id,
            Hand.match_id,
            Hand.seq,
            Hand.declarer_party,
            Hand.declarer_seat,
            Hand.outcome,
            Hand.bid,
            Hand.made,
            Hand.won,
        )
        .join(Match, Match.id == Hand.match_id)
        .where(*counted)
        .order_by(Hand.match_id, Hand.seq)
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
                sits_out=tuple(bool(p[2]) for p in parts),
                melds=tuple(tuple(p[3] or ()) for p in parts),
            )
        )
    return found


def _nights(rows: Sequence[EveningRow], with_hands: bool) -> list[Night]:
    """The evenings of ``rows`` as the rules read them (the hands only when asked for)."""
    if not rows:
        return []
    session_ids = [row.session_id for row in rows]
    sessions = {
        s.id: s
        for s in db.session.execute(
            select(GameSession).where(GameSession.id.in_(session_ids))
        ).scalars()
    }
    matches: dict[int, list[Match]] = defaultdict(list)
    for match in db.session.execute(
        select(Match)
        .where(Match.session_id.in_(session_ids))
        .order_by(Match.session_id, Match.number)
        .options(selectinload(Match.seats))
    ).scalars():
        matches[match.session_id].append(match)
    hands = _hands_of(session_ids) if with_hands else {}
    nights = []
    for row in rows:
        session = sessions[row.session_id]
        people = {s.name: str(s.person_id) for s in row.sitters}
        guests = {str(s.person_id) for s in row.sitters if s.guest}
        played: list[MatchPlayed] = []
        links: list[MatchLink] = []
        for match in matches[row.session_id]:
            current = standing(match)
            seats = tuple(s.name for s in match.seats)
            for name in seats:
                if name not in people:  # a sheet's name nobody sat under: kept apart
                    people[name] = "?" + name
                    guests.add(people[name])
            played.append(
                MatchPlayed(
                    number=match.number,
                    seats=seats,
                    parties=tuple(s.party for s in match.seats),
                    totals=tuple(current.totals),
                    finished=current.finished,
                    winners=tuple(current.winners),
                    hands=tuple(hands.get(match.id, ())),
                )
            )
            links.append(MatchLink(match.token, match.view_token, match.number, current.finished))
        value = Evening(
            number=row.number,
            day=row.held_on,
            money=row.money_mode,
            stake_cents=session.stake_cents,
            basis=session.stake_basis,
            people=people,
            guests=frozenset(guests),
            matches=tuple(played),
        )
        nights.append(Night(row, session, value, evening_money(value), links))
    return nights


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


def year_view(group: Stammtisch, number: int | None = None, *, hands: bool = True) -> YearView:
    """The year ``number`` of the group (its current year by default), computed.

    ``hands=False`` leaves the hands unread (the money pages need none: their
    ranking has no hands won or lost and no records).
    """
    year = group.years[-1] if number is None else year_by_number(group, number)
    numbers = {y.id: y.number for y in group.years}
    rows = _evening_rows(group)
    this = [r for r in rows if r.year_id == year.id]
    earlier = [r for r in rows if numbers.get(r.year_id, 0) < year.number]
    nights = _nights(this, with_hands=hands)
    before = _nights(earlier, with_hands=False)
    evening_numbers = {r.id: r.number for r in rows}
    payment_rows = _payments(group)
    values = [payment_value(p, evening_numbers) for p in payment_rows]
    people = db.session.execute(select(Person).where(Person.group_id == group.id)).scalars()
    names = {str(p.id): p.name for p in people}
    members = {str(m.person_id): m for m in year.members}
    # equal places are listed by name (the rules keep the order they are given)
    by_name = sorted(members, key=lambda person: (names.get(person, "").casefold(), person))
    ranking = year_ranking([n.value for n in nights], by_name, year.ranking_by)
    end = next((y.starts_on for y in group.years if y.number == year.number + 1), None)
    ledger = year_ledger(
        [n.money for n in before], [n.money for n in nights], values, year.starts_on, end
    )
    during = {r.number for r in this}
    earlier_numbers = {r.number for r in earlier}
    counted = [
        row
        for row, value in zip(payment_rows, values, strict=True)
        if paid_when(value, during, earlier_numbers, year.starts_on, end) == "during"
    ]
    records = year_records([n.value for n in nights]) if hands else ()
    return YearView(
        group, year, names, members, nights, ranking, records, ledger, payment_rows, counted
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
