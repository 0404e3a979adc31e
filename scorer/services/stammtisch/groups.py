"""A Stammtisch: made, found by its links, its settings and its year's house rules.

The group's link (``token``) may do everything; its twin (``view_token``) only
reads.  A refusal is a ``RulesError`` whose ``field`` parameter names the form
field it is about (the view puts it there).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy import bindparam, select, update

from ...extensions import db
from ...models import GameSession, utcnow
from ...rules import BASES, MAX_AMOUNT_CENTS, RulesError, Ruleset, check_table
from ...rules.tournament import name_key
from ...rules.year import MONEY_MODES, RANKING_BY, SeasonStart, season_label, season_of
from ...stammtisch_models import Evening, Member, Person, Stammtisch, Year
from ..errors import ConflictError, NotFound
from ..starting import MAX_NAME, clean_name, storable
from ..unit import LostRace, use_case

MAX_GROUP_NAME = 80
MAX_MEMBERS = 30
"""The most members a group has at once (a table seats eight; a club's regulars fit)."""
MAX_PEOPLE = 200
"""The most people a group knows (members and guests over the years)."""

_GROUPS = Stammtisch.__table__
_BUMP = (
    update(_GROUPS)
    .where(_GROUPS.c.id == bindparam("group_id"), _GROUPS.c.version == bindparam("read"))
    .values(version=_GROUPS.c.version + 1, updated_at=bindparam("now"))
)


def bump(group: Stammtisch, version: int | None = None) -> None:
    """Count a change of the group's money: one UPDATE at the version read, so of two
    changes at once the later one runs again on the books as they are now (:class:`LostRace`:
    the unit of work runs the use case again), and a form that carries the version it
    showed (``version``) is refused when another change came first (:class:`ConflictError`)."""
    if version is not None and version != group.version:
        raise ConflictError()
    done = db.session.execute(_BUMP, {"group_id": group.id, "read": group.version, "now": utcnow()})
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise LostRace()
    db.session.refresh(group, ["version", "updated_at"])


def person_name(name: str, field: str = "name") -> str:
    """A person's name as stored (trimmed, spaces folded), or a refusal naming ``field``."""
    cleaned = clean_name(name)
    if not cleaned or not storable(cleaned) or len(" ".join(name.split())) > MAX_NAME:
        raise RulesError(
            "'{name}' is not a name: 1 to {most} letters, no control characters",
            name=name[:50],
            most=MAX_NAME,
            field=field,
        )
    return cleaned


def check_settings(stake_cents: int, stake_basis: str, money_mode: str, ranking_by: str) -> None:
    """The stakes, the way money is kept and what ranks, or a refusal naming the field."""
    if not isinstance(stake_cents, int) or not 0 <= stake_cents <= MAX_AMOUNT_CENTS:
        raise RulesError(
            "the stake must be 0 to {most} €", most=MAX_AMOUNT_CENTS // 100, field="stake"
        )
    if stake_basis not in BASES:
        raise RulesError("'{basis}' is not a stake basis", basis=stake_basis, field="stake_basis")
    if money_mode not in MONEY_MODES:
        raise RulesError("'{mode}' is no way to keep money", mode=money_mode, field="money_mode")
    if ranking_by not in RANKING_BY:
        raise RulesError("'{by}' is nothing to rank by", by=ranking_by, field="ranking_by")


def check_rules(ruleset: Ruleset) -> dict[str, object]:
    """The group's house rules as stored: playable at their own table (``check_table``)."""
    check_table(ruleset, ruleset.players)
    return ruleset.to_dict()


def _settings(
    season_start: str,
    ruleset: Ruleset,
    stake_cents: int,
    stake_basis: str,
    money_mode: str,
    ranking_by: str,
) -> tuple[SeasonStart, dict[str, object]]:
    """The day the year begins and the house rules as stored, the stakes, money and ranking
    checked; a refusal names its field."""
    check_settings(stake_cents, stake_basis, money_mode, ranking_by)
    try:
        start = SeasonStart.parse(season_start)
    except RulesError as exc:
        raise RulesError(exc.template, **exc.params, field="season_start") from None
    return start, check_rules(ruleset)


def _group_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned or len(cleaned) > MAX_GROUP_NAME or not storable(cleaned):
        raise RulesError(
            "the group needs a name of 1 to {most} letters", most=MAX_GROUP_NAME, field="name"
        )
    return cleaned


def _members(names: Sequence[str]) -> list[str]:
    cleaned = [person_name(n, "members") for n in names if n.strip()]
    if not 2 <= len(cleaned) <= MAX_MEMBERS:
        raise RulesError(
            "a group has 2 to {most} members, not {count}",
            most=MAX_MEMBERS,
            count=len(cleaned),
            field="members",
        )
    keys = [name_key(n) for n in cleaned]
    for index, key in enumerate(keys):
        if key in keys[:index]:
            raise RulesError(
                "'{name}' is listed twice: every member needs a name of his own",
                name=cleaned[index],
                field="members",
            )
    return cleaned


@use_case
def create_group(
    *,
    name: str,
    members: Sequence[str],
    ruleset: Ruleset,
    stake_cents: int,
    stake_basis: str,
    money_mode: str,
    ranking_by: str,
    season_start: str,
    day: date,
    idempotency_key: str | None = None,
) -> Stammtisch:
    """A new group with its first year, starting on ``day`` (committed).

    The same form sent twice (its ``idempotency_key``) makes one group.
    """
    if idempotency_key:
        found = db.session.execute(
            select(Stammtisch).where(Stammtisch.idempotency_key == idempotency_key)
        ).scalar_one_or_none()
        if found is not None:
            return found
    title = _group_name(name)
    names = _members(members)
    start, rules = _settings(
        season_start, ruleset, stake_cents, stake_basis, money_mode, ranking_by
    )
    group = Stammtisch(name=title, season_start=str(start), idempotency_key=idempotency_key)
    db.session.add(group)
    season = season_of(day, start)[0]
    year = Year(
        group=group,
        number=1,
        label=season_label(season, start),
        season=season,
        starts_on=day,
        ruleset=rules,
        stake_cents=stake_cents,
        stake_basis=stake_basis,
        money_mode=money_mode,
        ranking_by=ranking_by,
    )
    db.session.add(year)
    for position, member in enumerate(names):
        person = Person(group=group, name=member, key=name_key(member))
        db.session.add(person)
        year.members.append(Member(person=person, position=position, joined_on=day))
    return group


def _by(column: Any, token: str) -> Stammtisch:
    group = db.session.execute(select(Stammtisch).where(column == token)).scalar_one_or_none()
    if group is None:
        raise NotFound()
    return group


def get_group(token: str) -> Stammtisch:
    """The group behind its link, or :class:`NotFound`."""
    return _by(Stammtisch.token, token)


def get_group_for_view(view_token: str) -> Stammtisch:
    """The group behind its read-only twin, or :class:`NotFound`."""
    return _by(Stammtisch.view_token, view_token)


def recent_groups(tokens: Sequence[str], view_tokens: Sequence[str] = ()) -> list[Stammtisch]:
    """The groups this device has opened (by either link), most recently changed first."""
    if not tokens and not view_tokens:
        return []
    query = select(Stammtisch).where(
        Stammtisch.token.in_(list(tokens)) | Stammtisch.view_token.in_(list(view_tokens))
    )
    return list(db.session.execute(query.order_by(Stammtisch.updated_at.desc())).scalars())


def group_of_session(session: GameSession) -> tuple[Stammtisch, int] | None:
    """The group an evening (a session) belongs to, and the evening's number; None when the
    session is no group's evening."""
    row = db.session.execute(
        select(Stammtisch, Evening.number)
        .join(Evening, Evening.group_id == Stammtisch.id)
        .where(Evening.session_id == session.id)
    ).first()
    return None if row is None else (row[0], row[1])


def current_year(group: Stammtisch) -> Year:
    """The group's year now: the last one started."""
    return group.years[-1]


def year_by_number(group: Stammtisch, number: int) -> Year:
    """One of the group's years, or :class:`NotFound`."""
    found = next((y for y in group.years if y.number == number), None)
    if found is None:
        raise NotFound()
    return found


def season_start_of(group: Stammtisch) -> SeasonStart:
    """The day the group's year begins."""
    return SeasonStart.parse(group.season_start)


@use_case
def update_group(
    group: Stammtisch,
    *,
    name: str,
    season_start: str,
    ruleset: Ruleset,
    stake_cents: int,
    stake_basis: str,
    money_mode: str,
    ranking_by: str,
) -> None:
    """The group's name and season, and the current year's rules, stakes, money and ranking.

    Evenings already begun keep their own rules, stakes and way of keeping money
    (their sessions and rows hold them); the next evening takes the new ones.
    """
    title = _group_name(name)
    start, rules = _settings(
        season_start, ruleset, stake_cents, stake_basis, money_mode, ranking_by
    )
    year = current_year(group)
    group.name = title
    group.season_start = str(start)
    year.ruleset = rules
    year.stake_cents = stake_cents
    year.stake_basis = stake_basis
    year.money_mode = money_mode
    year.ranking_by = ranking_by
    group.updated_at = utcnow()
