"""An evening started from the group: a session of the table with the group's rules and stakes.

The evening is what it is today — a :class:`~scorer.models.GameSession` with its
matches, sheets, PDF and settlement, started by :func:`scorer.services.start_match`
— and the group keeps who sat in as what (:class:`~scorer.stammtisch_models.Sitter`)
and how its money is kept.  The same form sent twice starts one evening.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, select

from ...extensions import db
from ...models import utcnow
from ...rules import MAX_PLAYERS, RulesError, Ruleset, check_table
from ...stammtisch_models import Evening, Person, Sitter, Stammtisch, Year
from ..errors import NotFound
from ..starting import start_match
from ..unit import use_case
from .groups import current_year
from .people import active_members, ensure_person, membership, person_by_id


@dataclass(frozen=True)
class Seat:
    """A seat of tonight's table: a member (``person_id``) or a guest (``guest``: his name)."""

    person_id: int | None = None
    guest: str | None = None


def evening_ruleset(year: Year, players: int, *, teams: bool, dealer_sits_out: bool) -> Ruleset:
    """The year's house rules for tonight's table: its seats, teams and whether the dealer
    sits out; refused (``field`` "seats") when the rules cannot be played so."""
    base = Ruleset.from_dict(year.ruleset)
    try:
        ruleset = base.replace(
            players=players, team_size=2 if teams else 1, dealer_sits_out=dealer_sits_out
        )
        check_table(ruleset, players)
    except RulesError as exc:
        raise RulesError(exc.template, **{**exc.params, "field": "seats"}) from None
    return ruleset


def _people(group: Stammtisch, year: Year, seats: Sequence[Seat]) -> list[tuple[Person, bool]]:
    if not 2 <= len(seats) <= MAX_PLAYERS:
        raise RulesError(
            "an evening needs 2 to {most} players, not {count}",
            most=MAX_PLAYERS,
            count=len(seats),
            field="seats",
        )
    chosen: list[tuple[Person, bool]] = []
    for seat in seats:
        if seat.person_id is not None:
            person = person_by_id(group, seat.person_id)
            member = membership(year, person)
            if member is None or member.left_on is not None:
                raise RulesError(
                    "'{name}' is no member this year: add him as a guest",
                    name=person.name,
                    field="seats",
                )
            chosen.append((person, False))
        else:
            person = ensure_person(group, seat.guest or "", "guests")
            member = membership(year, person)
            if member is not None and member.left_on is None:
                raise RulesError(
                    "'{name}' is a member: tick him among the members",
                    name=person.name,
                    field="guests",
                )
            chosen.append((person, True))
    ids = [p.id for p, _ in chosen]
    for index, (person, _) in enumerate(chosen):
        if person.id in ids[:index]:
            raise RulesError("'{name}' cannot sit twice", name=person.name, field="seats")
    return chosen


@use_case
def start_evening(
    group: Stammtisch,
    *,
    seats: Sequence[Seat],
    day: date,
    teams: bool = False,
    dealer_sits_out: bool = False,
    first_dealer: int = 0,
    idempotency_key: str | None = None,
) -> Evening:
    """Tonight's evening of the current year with these seats (in seat order): its first
    match started with the year's rules and stakes; committed.

    Asked again with the same ``idempotency_key`` (a double tap, the form sent
    twice) it is the same evening.
    """
    year = current_year(group)
    chosen = _people(group, year, seats)
    ruleset = evening_ruleset(year, len(chosen), teams=teams, dealer_sits_out=dealer_sits_out)
    match = start_match(
        names=[person.name for person, _ in chosen],
        ruleset=ruleset,
        title=group.name,
        first_dealer=first_dealer,
        stake_cents=year.stake_cents,
        stake_basis=year.stake_basis,
        idempotency_key=idempotency_key,
    )
    found = db.session.execute(
        select(Evening).where(Evening.session_id == match.session_id)
    ).scalar_one_or_none()
    if found is not None:
        return found
    number = (
        db.session.execute(
            select(func.max(Evening.number)).where(Evening.group_id == group.id)
        ).scalar_one_or_none()
        or 0
    ) + 1
    evening = Evening(
        group_id=group.id,
        year=year,
        number=number,
        session=match.session,
        held_on=day,
        money_mode=year.money_mode,
    )
    for person, guest in chosen:
        evening.sitters.append(Sitter(person=person, name=person.name, guest=guest))
    db.session.add(evening)
    group.updated_at = utcnow()
    return evening


def get_evening(group: Stammtisch, number: int) -> Evening:
    """One of the group's evenings by its number, or :class:`NotFound`."""
    if not 0 < number < 2**31:
        raise NotFound()
    found = db.session.execute(
        select(Evening).where(Evening.group_id == group.id, Evening.number == number)
    ).scalar_one_or_none()
    if found is None:
        raise NotFound()
    return found


def evenings_of(group: Stammtisch) -> list[Evening]:
    """Every evening of the group, in order."""
    return list(
        db.session.execute(
            select(Evening).where(Evening.group_id == group.id).order_by(Evening.number)
        ).scalars()
    )


def offered(year: Year) -> list[Person]:
    """The members an evening offers (who have not left), in the group's order."""
    return [m.person for m in active_members(year)]
