"""One use case, one transaction: the unit of work every write of the services runs in.

A use case is a service function marked with :func:`use_case`.  It reads rows,
asks the rules, writes — and never commits: the unit of work commits once when
it returns, or rolls everything back when it raises, so a failure halfway
leaves nothing half done.  A use case called by another one is part of the
outer one's unit (only the outermost commits), so use cases compose.

Races are decided by the database, not by what a request read: every write
that depends on what was read is a guarded UPDATE that finds its row only at
the version read (``writes.touch``, ``tournaments.setup.bump``).  When the row
has moved on, the guard raises :class:`LostRace`; the unit of work rolls back
and runs the use case again on the rows as they are now (the retry lives here,
once).  Run again, a use case either goes through on the new state (a new
table link while the table saved a hand) or refuses with the reason the new
state gives (a redraw once a table has entered a hand).  A form that carries
the version it showed is refused on the retry by its own version check
(``ConflictError``), as it should be: the Schreiber has to look first.

What follows a commit — paper to make, a state to push, a cache to drop — is
announced by the use case (:func:`announce`) and handled once after the commit
(:mod:`scorer.services.bus`); the events of an attempt that is rolled back or run
again go with it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm.exc import ObjectDeletedError

from ..extensions import db
from . import bus
from .errors import ConflictError

P = ParamSpec("P")
T = TypeVar("T")

ATTEMPTS = 4
"""How often a use case runs before a lost race is answered as a conflict."""

# PostgreSQL's answers to two transactions that cannot both go on: run again
_RETRY_STATES = {"40001", "40P01"}  # serialization failure, deadlock detected

_UNIT = "scorer.unit"
_EVENTS = "scorer.unit.events"

_GUARDS: list[Callable[[], None]] = []


def guard(check: Callable[[], None]) -> None:
    """Ask ``check()`` before every use case (outermost unit, first attempt); what it
    raises refuses the use case before it reads or writes anything.

    The app factory registers :func:`scorer.services.spare.role.check_writable`: only
    the hall writes (a spare following it, or a hall its spare replaced, refuses).
    Registering the same check twice keeps one.
    """
    if check not in _GUARDS:
        _GUARDS.append(check)


class LostRace(ConflictError):
    """A guarded write found its row changed since this request read it.

    Inside a use case the unit of work runs the use case again; outside one (or
    after the last attempt) it is a :class:`ConflictError` like any other.
    """


def in_unit() -> bool:
    """Whether a unit of work is open on this request's database session."""
    return bool(db.session().info.get(_UNIT))


def announce(event: object) -> None:
    """Have ``event`` handled once after the enclosing use case commits (:mod:`.bus`).

    Outside a unit of work there is no commit to wait for: it is handled at once.
    """
    session = db.session()
    if session.info.get(_UNIT):
        session.info.setdefault(_EVENTS, []).append(event)
    else:
        bus.handle([event])


def _lost(exc: BaseException) -> bool:
    """Whether ``exc`` says another request came first (the use case may run again)."""
    if isinstance(exc, LostRace | IntegrityError):
        # IntegrityError: a twin's row got in first (a unique key: the same form sent
        # twice, the same start number, the same round); run again, the use case finds it
        return True
    state = getattr(getattr(exc, "orig", None), "sqlstate", None)
    return isinstance(exc, DBAPIError) and state in _RETRY_STATES


def unit_of_work(
    *, keep_loaded: bool = False, guarded: bool = True
) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """A decorator that runs a function as one unit of work: committed once, rolled back on
    any error, run again on a lost race.

    ``keep_loaded``: the commit leaves the loaded objects as they are (the answer is
    rendered from what was just written instead of reading it again).  ``guarded``: the
    guards (:func:`guard`) are asked first; off only for the machinery that changes what
    they ask (a spare's pairing and takeover, a hall learning it was replaced).
    """

    def decorate(inner: Callable[P, T]) -> Callable[P, T]:
        @wraps(inner)
        def run(*args: P.args, **kwargs: P.kwargs) -> T:
            session = db.session()
            if session.info.get(_UNIT):
                return inner(*args, **kwargs)  # part of the enclosing use case
            if guarded:
                for check in _GUARDS:
                    check()
            for attempt in range(1, ATTEMPTS + 1):
                session.info[_UNIT] = True
                session.info[_EVENTS] = []
                try:
                    result = inner(*args, **kwargs)
                    if keep_loaded:
                        session.expire_on_commit = False
                    session.commit()
                    events = session.info.get(_EVENTS, [])
                except ObjectDeletedError as exc:
                    # a row this request had read was deleted by another one meanwhile
                    session.rollback()
                    raise ConflictError() from exc
                except BaseException as exc:
                    session.rollback()
                    if not _lost(exc):
                        raise
                    if attempt == ATTEMPTS:
                        raise ConflictError() from exc
                    continue
                finally:
                    session.info.pop(_UNIT, None)
                    session.info.pop(_EVENTS, None)
                    session.expire_on_commit = True
                bus.handle(events)  # after the commit, outside the unit, once
                return result
            raise AssertionError("unreachable")  # pragma: no cover

        return run

    return decorate


use_case = unit_of_work()
"""Run the decorated service function as one use case (see the module's docstring)."""

machinery = unit_of_work(guarded=False)
"""A unit of work that does not ask the guards: the machinery that sets what they ask."""
