"""Which laptop this is: the hall, a spare following one, or a hall its spare replaced.

Only the hall writes.  A spare copies the hall row by row and must hold nothing
of its own (else its copy and the hall's would part); a hall whose spare took
over must take no more saves (its phones' deals belong on the new hall).  So
every use case first asks :func:`check_writable` (``services.unit``'s guard, one
small read) and gets :class:`NotTheHall` unless this laptop is the hall.  A
database without the row (every hosted copy, every laptop that never had a
spare) is a hall.

What a table phone compares to learn it talks to another laptop now is the
phones' own laptop id (issue 35 §2: a hash of the laptop's secret key): a spare,
installed apart, keeps a key of its own, so a takeover changes it.
``token`` here names the laptop to the other one (the hall to its spare).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from ...extensions import db
from ...hall_models import HallState
from ...models import new_token, utcnow

HALL = "hall"
SPARE = "spare"
REPLACED = "replaced"
ROW = 1
"""The id of the one row."""

_TABLE = HallState.__table__


@dataclass(frozen=True)
class Role:
    """What this laptop is, as its row says (see :class:`~scorer.hall_models.HallState`)."""

    role: str = HALL
    token: str = ""
    generation: int = 1
    since: datetime | None = None
    stand: datetime | None = None
    replaced_by: str = ""
    replaced_at: datetime | None = None

    @property
    def is_hall(self) -> bool:
        return self.role == HALL


class NotTheHall(Exception):
    """This laptop writes nothing: a spare that follows a hall, or a hall its spare replaced.

    ``role`` says which, and since when (the web words it: the page, the refused save).
    """

    def __init__(self, role: Role) -> None:
        super().__init__(role.role)
        self.role = role


_READ = select(
    _TABLE.c.role,
    _TABLE.c.token,
    _TABLE.c.generation,
    _TABLE.c.since,
    _TABLE.c.stand,
    _TABLE.c.replaced_by,
    _TABLE.c.replaced_at,
).where(_TABLE.c.id == ROW)


def current() -> Role:
    """This laptop's role as the database says now (a hall when there is no row)."""
    found = db.session.execute(_READ).first()
    if found is None:
        return Role()
    return Role(*found)


def check_writable() -> None:
    """The guard of every use case: NotTheHall unless this laptop is the hall."""
    found = db.session.execute(_READ).first()
    if found is not None and found[0] != HALL:
        raise NotTheHall(Role(*found))


def ensure() -> Role:
    """The row, made (committed, on a connection of its own) when there is none yet."""
    found = current()
    if found.token:
        return found
    try:
        with db.engine.begin() as connection:
            connection.execute(
                insert(_TABLE).values(
                    id=ROW,
                    token=new_token(),
                    role=HALL,
                    generation=1,
                    since=utcnow(),
                    replaced_by="",
                    folder="",
                    folder_files=0,
                    folder_error="",
                )
            )
    except IntegrityError:
        pass  # another process made it a moment ago
    db.session.rollback()  # read it fresh (PostgreSQL: the reading transaction ends)
    return current()


def state_row() -> HallState:
    """The row as an object of this request's session (made when missing)."""
    ensure()
    row = db.session.get(HallState, ROW)
    assert row is not None
    return row
