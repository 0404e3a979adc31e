""" "Neues Jahr": the group's next year with one tap (docs/rules.md section 14.1).

It carries over the members who have not left (in their order), the house rules,
the stakes, how money is kept and what ranks.  What was open between people and
towards the kitty is carried by the books themselves (section 14.3), nothing is
copied.  Two taps (two phones, a double tap) make one year: the form names the
year it was tapped in, and a year already started after it is the answer.
"""

from __future__ import annotations

from datetime import date

from ...extensions import db
from ...models import utcnow
from ...rules.year import next_season, season_label
from ...stammtisch_models import Member, Stammtisch, Year
from ..unit import use_case
from .groups import current_year, season_start_of
from .people import active_members


@use_case
def new_year(group: Stammtisch, *, day: date, after: int | None = None) -> Year:
    """The year after the current one, started on ``day``; committed.

    ``after`` is the number of the year the tap was made in: when a later year
    exists already, that year is the answer (the second of two taps).
    """
    last = current_year(group)
    if after is not None and last.number > after:
        return last
    start = season_start_of(group)
    season = next_season(last.season, day, start)
    year = Year(
        group=group,
        number=last.number + 1,
        label=season_label(season, start),
        season=season,
        starts_on=max(day, last.starts_on),
        ruleset=dict(last.ruleset),
        stake_cents=last.stake_cents,
        stake_basis=last.stake_basis,
        money_mode=last.money_mode,
        ranking_by=last.ranking_by,
    )
    db.session.add(year)
    for position, member in enumerate(active_members(last)):
        year.members.append(
            Member(person_id=member.person_id, position=position, joined_on=year.starts_on)
        )
    group.updated_at = utcnow()
    return year
