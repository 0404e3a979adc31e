"""A Stammtisch's backup file read and checked, every value of it, before anything is written.

:func:`load` turns a parsed file (:func:`scorer.services.backup_format.parse`) into
the group's rows, built outside the database session, or refuses it with a
:class:`~scorer.services.errors.BackupError` naming the place and what is wrong
(what is checked: :mod:`.restoring`'s docstring).  Each evening's matches are read
by the match backups (:func:`scorer.services.backup.load_match`), their hands
settled again by the rules; the group's books are computed by the rules as the
pages will (:func:`_check_books`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import select

from ...extensions import db
from ...models import GameSession, Match, new_token
from ...rules import BASES, MAX_AMOUNT_CENTS, RulesError, Ruleset, check_table
from ...rules.tournament import name_key
from ...rules.year import (
    MAX_PAYMENT_CENTS,
    MONEY_MODES,
    PAYMENT_KINDS,
    RANKING_BY,
    Evening,
    MatchPlayed,
    SeasonStart,
    evening_money,
    year_ledger,
)
from ...rules.year import Payment as PaymentValue
from ...stammtisch_models import Evening as EveningRow
from ...stammtisch_models import Member, Person, Sitter, Stammtisch, Year
from ...stammtisch_models import Payment as PaymentRow
from ..backup import Tokens, finish_match, load_match
from ..backup_format import TOKEN_RE, count_hands
from ..backup_format import Reader as BaseReader
from ..errors import BackupError, Said
from ..errors import Said as _
from ..starting import MAX_NAME, MAX_TITLE, clean_name
from .groups import MAX_GROUP_NAME, MAX_PEOPLE

MAX_YEARS = 100
MAX_EVENINGS = 1000
MAX_MEMBERS_IN_FILE = 200
MAX_PAYMENTS = 20_000
MAX_HANDS = 40_000
"""Hands of a whole group's file (the command line takes them all; the web page its size)."""
MAX_SITTERS = 8


# what a key of the file is called where a message names it (the match backups' own
# words, scorer.services.backup_format.FIELDS, name the rest)
_FIELDS: dict[str, Said] = {
    "person": _("person"),
    "payer": _("who paid"),
    "payee": _("who was paid"),
    "year": _("year"),
    "evening": _("evening"),
    "season": _("season"),
    "season_start": _("the day the year begins"),
    "starts_on": _("start"),
    "label": _("name of the year"),
    "held_on": _("date"),
    "paid_on": _("date"),
    "joined_on": _("joined"),
    "left_on": _("left"),
    "money_mode": _("money"),
    "ranking_by": _("ranking"),
    "stake_basis": _("stake per"),
    "cents": _("amount"),
    "note": _("what for"),
    "kind": _("kind of payment"),
    "guest": _("guest"),
    "position": _("place in the list"),
    "sitters": _("who sat in"),
    "members": _("members"),
    "people": _("people"),
    "years": _("years"),
    "evenings": _("evenings"),
    "payments": _("payments"),
}


class Reader(BaseReader):
    """The match backups' reader, naming this file's own keys in the user's words."""

    def fail(self, key: str) -> BackupError:
        if key not in _FIELDS:
            return super().fail(key)
        return BackupError(
            _("%(where)s: %(field)s is missing or invalid", where=self.where, field=_FIELDS[key])
        )


class _Chosen(Tokens):
    """The file's tokens, all of them (``keep``) or none (every one new)."""

    def __init__(self, keep: bool) -> None:
        super().__init__()
        self.keep = keep

    def pick(self, wanted: Any, column: Any) -> tuple[str, bool]:
        return (wanted, True) if self.keep else (new_token(), False)


def _day(r: Reader, key: str, *, optional: bool = False) -> date | None:
    value = r.data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > 10:
        raise r.fail(key)
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise r.fail(key) from None


def _need_day(r: Reader, key: str) -> date:
    found = _day(r, key)
    assert found is not None
    return found


def _file_tokens(top: Reader, evenings: Sequence[Any]) -> list[tuple[Any, Any]]:
    """Every token the file wants, with the column it goes to."""
    wanted = [
        (top.data.get("token"), Stammtisch.token),
        (top.data.get("view_token"), Stammtisch.view_token),
    ]
    for item in evenings:
        session = item.get("session") if isinstance(item, dict) else None
        if not isinstance(session, dict):
            continue
        wanted += [
            (session.get("token"), GameSession.token),
            (session.get("view_token"), GameSession.view_token),
        ]
        for match in session.get("matches") or []:
            if isinstance(match, dict):
                wanted += [
                    (match.get("token"), Match.token),
                    (match.get("view_token"), Match.view_token),
                ]
    return wanted


def _links_free(wanted: list[tuple[Any, Any]]) -> bool:
    """Whether every token of the file is well formed, once in the file and free here."""
    texts = [w for w, _ in wanted]
    if not all(isinstance(w, str) and TOKEN_RE.fullmatch(w) for w in texts):
        return False
    if len(set(texts)) != len(texts):
        return False
    by_column: dict[str, tuple[Any, list[str]]] = {}
    for token, column in wanted:
        by_column.setdefault(str(column), (column, []))[1].append(token)
    for column, tokens in by_column.values():
        for start in range(0, len(tokens), 500):
            chunk = tokens[start : start + 500]
            if db.session.execute(select(column).where(column.in_(chunk)).limit(1)).first():
                return False
    return True


def _people(top: Reader) -> list[Person]:
    items = top.get_list("people", MAX_PEOPLE)
    people: list[Person] = []
    keys: set[str] = set()
    for number, item in enumerate(items, 1):
        r = Reader(item, _("person %(number)s", number=number))
        name = clean_name(r.get_str("name", MAX_NAME))
        if not name:
            raise r.fail("name")
        key = name_key(name)
        if key in keys:
            raise BackupError(_("%(where)s: two people have the same name", where=r.where))
        keys.add(key)
        people.append(Person(name=name, key=key, created_at=r.get_time("created_at")))
    return people


def _person(r: Reader, key: str, people: list[Person], *, optional: bool = False) -> Person | None:
    value = r.data.get(key)
    if value is None and optional:
        return None
    return people[r.get_int(key, 1, len(people)) - 1]


def _rules(r: Reader) -> dict[str, Any]:
    raw = r.data.get("ruleset")
    if not isinstance(raw, dict):
        raise r.fail("ruleset")
    try:
        ruleset = Ruleset.from_dict(raw)
        check_table(ruleset, ruleset.players)
    except RulesError as exc:
        raise BackupError(where=r.where, cause=exc) from None
    return ruleset.to_dict()


def _years(top: Reader, people: list[Person]) -> list[Year]:
    items = top.get_list("years", MAX_YEARS)
    if not items:
        raise BackupError(_("The file holds no year of the group."))
    years: list[Year] = []
    for number, item in enumerate(items, 1):
        r = Reader(item, _("year %(number)s", number=number))
        if r.get_int("number", 1, MAX_YEARS) != number:
            raise BackupError(_("%(where)s: the years are not numbered in order", where=r.where))
        starts_on = _need_day(r, "starts_on")
        if years and starts_on < years[-1].starts_on:
            raise BackupError(_("%(where)s: it starts before the year before it", where=r.where))
        year = Year(
            number=number,
            label=r.get_str("label", 16),
            season=_need_day(r, "season"),
            starts_on=starts_on,
            ruleset=_rules(r),
            stake_cents=r.get_int("stake_cents", 0, MAX_AMOUNT_CENTS),
            stake_basis=r.get_str("stake_basis", 16, choices=BASES),
            money_mode=r.get_str("money_mode", 8, choices=MONEY_MODES),
            ranking_by=r.get_str("ranking_by", 8, choices=RANKING_BY),
        )
        seen: set[int] = set()
        for index, member_item in enumerate(r.get_list("members", MAX_MEMBERS_IN_FILE), 1):
            m = Reader(member_item, _("%(where)s, member %(number)s", where=r.where, number=index))
            person = _person(m, "person", people)
            assert person is not None
            if id(person) in seen:
                raise BackupError(_("%(where)s: a member is listed twice", where=r.where))
            seen.add(id(person))
            joined = _need_day(m, "joined_on")
            left = _day(m, "left_on", optional=True)
            if left is not None and left < joined:
                raise m.fail("left_on")
            year.members.append(
                Member(
                    person=person,
                    position=m.get_int("position", 0, 10_000),
                    joined_on=joined,
                    left_on=left,
                )
            )
        years.append(year)
    return years


def _member_on(year: Year, person: Person, day: date) -> bool:
    return any(
        m.person is person and m.joined_on <= day and (m.left_on is None or m.left_on >= day)
        for m in year.members
    )


def _session(r: Reader, tokens: _Chosen) -> GameSession:
    s = Reader(r.data.get("session"), _("%(where)s, session", where=r.where))
    count_hands([s.data])
    token, _kept = tokens.pick(s.data.get("token"), GameSession.token)
    view_token, _kept = tokens.pick(s.data.get("view_token"), GameSession.view_token)
    row = GameSession(
        token=token,
        view_token=view_token,
        title=s.get_str("title", MAX_TITLE),
        created_at=s.get_time("created_at"),
        updated_at=s.get_time("updated_at", absent=True) or s.get_time("created_at"),
        stake_cents=s.get_int("stake_cents", 0, MAX_AMOUNT_CENTS),
        stake_basis=s.get_str("stake_basis", 16, choices=BASES),
    )
    last = 0
    for index, item in enumerate(s.get_list("matches", 200), 1):
        match = load_match(item, s.where, index, tokens)
        if match.number <= last:
            raise BackupError(_("%(where)s: the matches are not in order", where=s.where))
        last = match.number
        row.matches.append(match)
    if not row.matches:
        raise BackupError(_("%(where)s: an evening without a match", where=s.where))
    for match in row.matches:
        finish_match(match)
    return row


def _evenings(
    top: Reader, people: list[Person], years: list[Year], tokens: _Chosen
) -> list[EveningRow]:
    items = top.get_list("evenings", MAX_EVENINGS)
    rows: list[EveningRow] = []
    for index, item in enumerate(items, 1):
        r = Reader(item, _("evening %(number)s", number=index))
        number = r.get_int("number", 1, 2**31 - 1)
        if rows and number <= rows[-1].number:
            raise BackupError(_("%(where)s: the evenings are not in order", where=r.where))
        year = years[r.get_int("year", 1, len(years)) - 1]
        held_on = _need_day(r, "held_on")
        evening = EveningRow(
            number=number,
            year=year,
            held_on=held_on,
            money_mode=r.get_str("money_mode", 8, choices=MONEY_MODES),
        )
        names: set[str] = set()
        for place, sitter_item in enumerate(r.get_list("sitters", MAX_SITTERS), 1):
            s = Reader(sitter_item, _("%(where)s, player %(number)s", where=r.where, number=place))
            person = _person(s, "person", people)
            assert person is not None
            name = clean_name(s.get_str("name", MAX_NAME))
            guest = s.get_bool("guest")
            if not name or name in names or any(x.person is person for x in evening.sitters):
                raise s.fail("name")
            if guest == _member_on(year, person, held_on):
                raise BackupError(
                    _(
                        "%(where)s: sits in as a guest or a member, but the year says otherwise",
                        where=s.where,
                    )
                )
            names.add(name)
            evening.sitters.append(Sitter(person=person, name=name, guest=guest))
        evening.session = _session(r, tokens)
        for match in evening.session.matches:
            for seat in match.seats:
                if seat.name not in names:
                    raise BackupError(
                        _(
                            "%(where)s: “%(name)s” plays on a sheet but did not sit in",
                            where=r.where,
                            name=seat.name,
                        )
                    )
        rows.append(evening)
    return rows


def _payments(top: Reader, people: list[Person], evenings: list[EveningRow]) -> list[PaymentRow]:
    by_number = {e.number: e for e in evenings}
    rows = []
    for index, item in enumerate(top.get_list("payments", MAX_PAYMENTS), 1):
        r = Reader(item, _("payment %(number)s", number=index))
        kind = r.get_str("kind", 8, choices=PAYMENT_KINDS)
        evening_number = r.get_int("evening", 1, 2**31 - 1, optional=True)
        if evening_number is not None and evening_number not in by_number:
            raise r.fail("evening")
        row = PaymentRow(
            kind=kind,
            payer=_person(r, "payer", people, optional=True),
            payee=_person(r, "payee", people, optional=True),
            cents=r.get_int("cents", 1, MAX_PAYMENT_CENTS),
            paid_on=_need_day(r, "paid_on"),
            note=r.get_str("note", 80),
            evening=None if evening_number is None else by_number[evening_number],
            created_at=r.get_time("created_at"),
            struck_at=r.get_time("struck_at", optional=True),
        )
        wants = {"transfer": (True, True), "kitty": (True, False), "payout": (False, False)}[kind]
        has = (row.payer is not None, row.payee is not None)
        if has != wants or (kind == "transfer" and row.payer is row.payee):
            raise BackupError(_("%(where)s: who paid whom does not fit its kind", where=r.where))
        rows.append(row)
    return rows


def _check_books(
    people: list[Person], years: list[Year], evenings: list[EveningRow], payments: list[PaymentRow]
) -> None:
    """Each year's books computed by the rules, as the pages will: a file whose kitty pays
    out more than it holds is refused."""
    key = {id(p): str(i) for i, p in enumerate(people)}
    values = [
        PaymentValue(
            number=i,
            kind=p.kind,
            day=p.paid_on,
            cents=p.cents,
            payer=None if p.payer is None else key[id(p.payer)],
            payee=None if p.payee is None else key[id(p.payee)],
            evening=None if p.evening is None else p.evening.number,
        )
        for i, p in enumerate(payments, 1)
        if p.struck_at is None
    ]
    money = {}
    for evening in evenings:
        played = []
        for match in evening.session.matches:
            standing = match.standing or {}
            played.append(
                MatchPlayed(
                    number=match.number,
                    seats=tuple(s.name for s in match.seats),
                    parties=tuple(s.party for s in match.seats),
                    totals=tuple(standing.get("totals") or ()),
                    finished=standing.get("finished_after") is not None,
                    winners=tuple(standing.get("winners") or ()),
                )
            )
        value = Evening(
            number=evening.number,
            day=evening.held_on,
            money=evening.money_mode,
            stake_cents=evening.session.stake_cents,
            basis=evening.session.stake_basis,
            people={s.name: key[id(s.person)] for s in evening.sitters},
            guests=frozenset(key[id(s.person)] for s in evening.sitters if s.guest),
            matches=tuple(played),
        )
        money[id(evening)] = evening_money(value)
    for position, year in enumerate(years):
        end = years[position + 1].starts_on if position + 1 < len(years) else None
        try:
            year_ledger(
                [money[id(e)] for e in evenings if years.index(e.year) < position],
                [money[id(e)] for e in evenings if e.year is year],
                values,
                year.starts_on,
                end,
            )
        except RulesError as exc:
            raise BackupError(where=_("year %(number)s", number=year.number), cause=exc) from None


@dataclass
class Loaded:
    """A group's file read and checked: its rows, built outside the database session."""

    group: Stammtisch
    evenings: list[EveningRow]
    payments: list[PaymentRow]
    keep: bool


def _hands_in(evenings: Sequence[Any]) -> int:
    total = 0
    for item in evenings:
        session = item.get("session") if isinstance(item, dict) else None
        matches = session.get("matches") if isinstance(session, dict) else None
        for match in matches if isinstance(matches, list) else ():
            hands = match.get("hands") if isinstance(match, dict) else None
            total += len(hands) if isinstance(hands, list) else 0
    return total


def load(data: dict[str, Any]) -> Loaded:
    """The group of a parsed file, every value checked, as rows outside the database
    session (nothing written), and whether it keeps the file's links."""
    top = Reader(data.get("stammtisch"), _("group"))
    evenings_in = top.get_list("evenings", MAX_EVENINGS)
    total = _hands_in(evenings_in)
    if total > MAX_HANDS:
        raise BackupError(
            _(
                "This file has %(count)s hands; a group's file may hold at most %(limit)s.",
                count=total,
                limit=MAX_HANDS,
            )
        )
    keep = _links_free(_file_tokens(top, evenings_in))
    tokens = _Chosen(keep)
    name = " ".join(top.get_str("name", MAX_GROUP_NAME).split())
    if not name:
        raise top.fail("name")
    try:
        season_start = str(SeasonStart.parse(top.get_str("season_start", 5)))
    except RulesError as exc:
        raise BackupError(where=top.where, cause=exc) from None
    people = _people(top)
    years = _years(top, people)
    evenings = _evenings(top, people, years, tokens)
    payments = _payments(top, people, evenings)
    _check_books(people, years, evenings, payments)
    group = Stammtisch(
        token=tokens.pick(top.data.get("token"), Stammtisch.token)[0],
        view_token=tokens.pick(top.data.get("view_token"), Stammtisch.view_token)[0],
        name=name,
        season_start=season_start,
        created_at=top.get_time("created_at"),
    )
    group.people.extend(people)
    group.years.extend(years)
    for evening in evenings:
        evening.group = group
    for payment in payments:
        payment.group = group
    return Loaded(group, evenings, payments, keep)
