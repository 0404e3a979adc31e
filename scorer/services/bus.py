"""What follows a commit: events a use case announces, handled once after it commits.

A use case that changes what some other part of the app keeps — a round's paper
to make again, a public state to push, a cache to drop — does not do that work
itself: the unit of work may run it again after a lost race, and a network call
or a job enqueued inside it would then happen twice, or for a write that was
rolled back.  It announces an *event* instead (:func:`scorer.services.unit.announce`,
a frozen dataclass of :mod:`scorer.services.events`).  The unit of work keeps the events
of the attempt that commits and hands them to :func:`handle` once, after the
commit; an attempt rolled back drops its events with its writes.

Handlers are registered by the layers above the services (the app factory), by
event type (:func:`register`): the services know that something follows, not
what.  A handler runs in the request (or app context) that committed, after the
unit has closed, so it may run use cases of its own.  Its failure is logged and
never undoes the commit: what it makes is made again on demand.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Rang:
...     bell: str
>>> heard = []
>>> register(Rang, heard.append)
>>> handle([Rang("front"), Rang("front"), Rang("back")])
>>> heard
[Rang(bell='front'), Rang(bell='back')]
>>> unregister(Rang, heard.append)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger(__name__)

Handler = Callable[[Any], None]

_handlers: dict[type, list[Handler]] = {}


def register(kind: type, handler: Handler) -> None:
    """Call ``handler(event)`` after each commit that announced an event of ``kind``.

    Registering the same handler twice (a second app in one process) keeps one.
    """
    found = _handlers.setdefault(kind, [])
    if handler not in found:
        found.append(handler)


def unregister(kind: type, handler: Handler) -> None:
    """Stop calling ``handler`` for ``kind`` (nothing when it was not registered)."""
    found = _handlers.get(kind, [])
    if handler in found:
        found.remove(handler)


def handlers(kind: type) -> list[Handler]:
    """The handlers registered for ``kind``, in the order they were registered."""
    return list(_handlers.get(kind, []))


def handle(events: Iterable[object]) -> None:
    """Run the handlers of ``events`` in order, each distinct event once.

    An event announced twice in one unit (the same round's paper after two
    changes) is handled once; a handler that fails is logged, the rest still run.
    """
    seen: list[object] = []
    for event in events:
        if event in seen:
            continue
        seen.append(event)
        for handler in handlers(type(event)):
            try:
                handler(event)
            except Exception:
                log.exception("handling %r after its commit failed", event)
