"""The spare becomes the hall: one tap, a new generation.

What the spare holds is the hall's rows with the hall's ids, so taking over
changes only who writes:

1. this laptop's role becomes ``hall``, of generation one more than the hall it
   followed (the old laptop, when it comes back, learns that from the first
   answer it gets here and stops writing: :mod:`.receive`);
2. on PostgreSQL the id sequences move past the copied rows (SQLite takes the
   next id from the rows themselves);
3. every tournament gets its ``restored`` mark (the hall's clock of the last
   state held, its round and deals: the pages say so) and a new version (the
   public pages build anew); one without an address of its own gets the hall's
   (``PUBLIC_URL``, what its printed cards carry), so new links and QR codes
   match the cards;
4. every tournament online connects anew (the pusher starts a new generation at
   the hosted copy, which then refuses the old laptop's pushes).

Then :mod:`.address` checks that this laptop serves the cards' address.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, text, update

from ...extensions import db
from ...models import utcnow
from ...online_models import OnlineLink
from ...rules import RulesError
from ...tournament_models import Tournament
from ..tournaments import restored as notes
from ..unit import machinery
from . import role as roles
from .receive import following
from .rows import ALL_TABLES

ALIVE = timedelta(seconds=10)
"""A hall heard from this recently is likely alive: taking over asks first."""


@dataclass(frozen=True)
class Before:
    """What the spare's page says before the tap: when the hall was last heard of."""

    heard_at: datetime | None
    alive: bool


def before() -> Before:
    """Whether the hall still seems alive (a push within :data:`ALIVE`)."""
    row = following()
    heard = row.received_at if row is not None else None
    return Before(heard, heard is not None and utcnow() - heard < ALIVE)


@dataclass(frozen=True)
class TakenOver:
    generation: int
    stand: datetime | None
    tournaments: int


@machinery
def take_over() -> TakenOver:
    """This spare becomes the hall, committed; RulesError when it follows no hall."""
    state = roles.state_row()
    row = following()
    if state.role != roles.SPARE or row is None:
        raise RulesError("this laptop follows no hall: there is nothing to take over")
    now = utcnow()
    state.role = roles.HALL
    state.generation = row.generation + 1
    state.since, state.stand = now, row.hall_time
    _past_the_copies()
    tournaments = list(db.session.execute(select(Tournament)).scalars())
    for tournament in tournaments:
        tournament.restored = notes.mark("spare", row.hall_time, notes.contents(tournament))
        if not tournament.public_url and row.cards:
            tournament.public_url = row.cards
    db.session.flush()
    table = Tournament.__table__
    db.session.execute(update(table).values(version=table.c.version + 1, updated_at=now))
    online = OnlineLink.__table__
    db.session.execute(update(online).values(generation=None, seq=0, error=""))
    return TakenOver(state.generation, row.hall_time, len(tournaments))


def _past_the_copies() -> None:
    """PostgreSQL: every copied table's id sequence past its largest id."""
    if db.session.get_bind().dialect.name != "postgresql":
        return
    for table in ALL_TABLES:
        if "id" not in table.c:
            continue
        name = f'"{table.name}"'
        db.session.execute(
            text(
                f"SELECT setval(pg_get_serial_sequence(:name, 'id'), "
                f"COALESCE((SELECT MAX(id) FROM {name}), 0) + 1, false)"
            ),
            {"name": name},
        )
