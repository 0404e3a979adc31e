"""The group's people: members joining, leaving and coming back, guests, names.

A person is the same across the group's years and evenings (his balances are
his until paid: docs/rules.md section 14.1); a membership is per year.  A
member who leaves stays in the year's list, marked with the day, and is not
offered for the next evenings.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import func, select

from ...extensions import db
from ...models import utcnow
from ...rules import RulesError
from ...rules.tournament import name_key
from ...stammtisch_models import Member, Person, Stammtisch, Year
from ..errors import NotFound
from ..unit import use_case
from .groups import MAX_MEMBERS, MAX_PEOPLE, current_year, person_name


def person_by_id(group: Stammtisch, person_id: int) -> Person:
    """One of the group's people, or :class:`NotFound`."""
    person = db.session.get(Person, person_id) if 0 < person_id < 2**31 else None
    if person is None or person.group_id != group.id:
        raise NotFound()
    return person


def find_person(group: Stammtisch, name: str) -> Person | None:
    """The group's person of this name (case, spaces and dots aside), if there is one."""
    return db.session.execute(
        select(Person).where(Person.group_id == group.id, Person.key == name_key(name))
    ).scalar_one_or_none()


def ensure_person(group: Stammtisch, name: str, field: str = "name") -> Person:
    """The group's person of this name, made when the group does not know him yet."""
    cleaned = person_name(name, field)
    found = find_person(group, cleaned)
    if found is not None:
        return found
    known = db.session.execute(
        select(func.count()).select_from(Person).where(Person.group_id == group.id)
    ).scalar_one()
    if known >= MAX_PEOPLE:
        raise RulesError(
            "the group knows {count} people already, the most it keeps", count=known, field=field
        )
    person = Person(group=group, name=cleaned, key=name_key(cleaned))
    db.session.add(person)
    db.session.flush()
    return person


def membership(year: Year, person: Person) -> Member | None:
    """The person's membership of ``year``, if he has one."""
    return next((m for m in year.members if m.person_id == person.id), None)


def active_members(year: Year) -> list[Member]:
    """The members of ``year`` who have not left, in the group's order."""
    return [m for m in year.members if m.left_on is None]


@use_case
def add_member(group: Stammtisch, name: str, day: date) -> Member:
    """A new member of the current year from ``day`` (a guest of earlier evenings, or a
    member who left, is the same person); committed."""
    year = current_year(group)
    person = ensure_person(group, name)
    found = membership(year, person)
    if found is not None and found.left_on is None:
        raise RulesError("'{name}' is a member already", name=person.name, field="name")
    if len(active_members(year)) >= MAX_MEMBERS:
        raise RulesError("a group has at most {most} members", most=MAX_MEMBERS, field="name")
    if found is not None:
        found.left_on = None
        member = found
    else:
        position = max((m.position for m in year.members), default=-1) + 1
        member = Member(person=person, position=position, joined_on=day)
        year.members.append(member)
    group.updated_at = utcnow()
    return member


def _member(group: Stammtisch, person_id: int) -> Member:
    person = person_by_id(group, person_id)
    found = membership(current_year(group), person)
    if found is None:
        raise NotFound()
    return found


@use_case
def leave(group: Stammtisch, person_id: int, day: date) -> Member:
    """The member leaves the group on ``day``: he stays in the year's list (his numbers, his
    balances until paid) and is offered for no more evenings; committed."""
    member = _member(group, person_id)
    if member.left_on is None:
        member.left_on = max(day, member.joined_on)
        group.updated_at = utcnow()
    return member


@use_case
def come_back(group: Stammtisch, person_id: int) -> Member:
    """A member who left is a member again (the same person, the same books); committed."""
    member = _member(group, person_id)
    if member.left_on is not None:
        if len(active_members(current_year(group))) >= MAX_MEMBERS:
            raise RulesError("a group has at most {most} members", most=MAX_MEMBERS, field="name")
        member.left_on = None
        group.updated_at = utcnow()
    return member


@use_case
def rename(group: Stammtisch, person_id: int, name: str) -> Person:
    """A person's name from now on (the evenings' sheets keep the name they were written
    with); refused when another person of the group has it; committed."""
    person = person_by_id(group, person_id)
    cleaned = person_name(name)
    other = find_person(group, cleaned)
    if other is not None and other.id != person.id:
        raise RulesError("'{name}' is the name of somebody else", name=cleaned, field="name")
    person.name = cleaned
    person.key = name_key(cleaned)
    group.updated_at = utcnow()
    return person
