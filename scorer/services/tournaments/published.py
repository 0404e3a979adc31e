"""The public side of a tournament, built once per change for all processes.

A hall of 1,000 tables saves a hand every few hundredths of a second, and its
spectators poll every few seconds: building the ranking for every poll (or once
per poll and process) made the work grow with the hall twice over.  Here one
process builds each new state (:func:`.public_state.build`, going on from the
last one) and stores it in the database (``PublicSnapshot``); every process
reads a stored build once and answers every poll of the public link from it.

A build is made at most every :data:`FRESH` seconds per tournament: a poll that
sees a newer state than the stored build claims the next build (one guarded
UPDATE, so of many polls one builds) and builds it; the others answer from the
stored one meanwhile.  What a process read is kept for :data:`POLL_KEEP` seconds
per public link, so a hall's phones cost the database one small read per link
and process every half second, not one per poll.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from cachetools import LRUCache
from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from ...extensions import db
from ...models import utcnow
from ...tournament_models import PublicSnapshot
from ..kept import Derived, Recent
from . import public_state
from .public_state import Built
from .standings import PollState, Standings, poll_state

EXTENSION = "scorer.published"

FRESH = 1.5
"""Seconds a stored build is shown before a newer one is built (``TOURNAMENT_FRESH``; 0 in
the tests that watch a hand arrive).  The beamer polls every 3 s, so a saved hand still
shows within 5 s."""

POLL_KEEP = 0.5
"""Seconds a process answers the polls of one public link from what it last read
(``TOURNAMENT_POLL_KEEP``; 0 in the tests)."""

CLAIM_FOR = timedelta(seconds=30)
"""A claim older than this is a builder that died: the next poll builds."""

KEPT = 32
"""How many tournaments' builds a process keeps (a hosted instance serves many)."""

_SNAPSHOTS = PublicSnapshot.__table__


@dataclass
class Published:
    """A stored build as this process read it, with what its pages cost once made."""

    tournament_id: int
    seq: int
    tag: str
    built_at: datetime
    built: Built
    derived: Derived = field(default_factory=Derived, repr=False)

    @property
    def standings(self) -> Standings:
        return self.built.standings

    def once(self, key: Any, make: Callable[[], Any]) -> Any:
        """``make()`` once per build and key in this process (a page, its digest, its render)."""
        return self.derived.once(key, make)


@dataclass(frozen=True)
class Shown:
    """What a public page shows now: the poll state, and the build it is answered from."""

    state: PollState
    published: Published

    @property
    def standings(self) -> Standings:
        return self.published.standings


class _Memory:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.recent: Recent[str, Shown | None] = Recent(16 * KEPT)
        self.published: LRUCache[int, Published] = LRUCache(maxsize=KEPT)


_MEMORIES: dict[str, _Memory] = {}
_MEMORIES_LOCK = threading.Lock()


def forget() -> None:
    """Forget what this process remembers of every database: for a database emptied and
    made anew under the same address (the tests' PostgreSQL schema, its ids from 1 again),
    whose tournaments would otherwise meet the builds of the ones before."""
    with _MEMORIES_LOCK:
        _MEMORIES.clear()


def _memory() -> _Memory:
    """This process's memory of the database the app uses (the tests use several)."""
    key = str(db.engine.url)
    with _MEMORIES_LOCK:
        return _MEMORIES.setdefault(key, _Memory())


def shown(view_token: str, *, keep: float = POLL_KEEP, fresh: float = FRESH) -> Shown | None:
    """What the public link ``view_token`` shows now (None: no such tournament).

    Read at most every ``keep`` seconds per link and process (the app's
    ``TOURNAMENT_POLL_KEEP``); a build is shown for up to ``fresh`` seconds before
    a newer one is built (``TOURNAMENT_FRESH``).
    """

    def read() -> Shown | None:
        state = poll_state(view_token)
        return None if state is None else Shown(state, _published(state, fresh))

    return _memory().recent.get(view_token, keep, read)


def _published(state: PollState, fresh_seconds: float) -> Published:
    memory = _memory()
    with memory.lock:
        mine = memory.published.get(state.tournament_id)
    if mine is not None and mine.tag == state.tag:
        return mine
    found = _stored(state.tournament_id, mine)
    if found is not None and found.tag == state.tag:
        return _remember(found)
    fresh = timedelta(seconds=fresh_seconds)
    if found is not None and utcnow() - found.built_at < fresh:
        return _remember(found)  # built a moment ago: the next poll builds the newer state
    made = _build(state, found)
    if made is None and found is None:
        # the first build of a tournament, stored by another process a moment ago
        made = _stored(state.tournament_id, None) or _unstored(state)
    return _remember(made if made is not None else found)


def _unstored(state: PollState) -> Published:
    built = public_state.build(state.tournament_id)
    assert built is not None
    return Published(state.tournament_id, 0, state.tag, utcnow(), built)


def _remember(published: Published | None) -> Published:
    assert published is not None
    memory = _memory()
    with memory.lock:
        mine = memory.published.get(published.tournament_id)
        if mine is None or mine.seq <= published.seq:
            memory.published[published.tournament_id] = published
            return published
        return mine


def _stored(tournament_id: int, mine: Published | None) -> Published | None:
    """The stored build, read only when it is another one than this process has."""
    with db.engine.connect() as connection:
        head = connection.execute(
            select(_SNAPSHOTS.c.seq, _SNAPSHOTS.c.tag, _SNAPSHOTS.c.built_at).where(
                _SNAPSHOTS.c.tournament_id == tournament_id
            )
        ).first()
        if head is None:
            return None
        seq, tag, built_at = head
        if mine is not None and mine.seq == seq:
            return mine
        data = connection.execute(
            select(_SNAPSHOTS.c.data).where(
                _SNAPSHOTS.c.tournament_id == tournament_id, _SNAPSHOTS.c.seq == seq
            )
        ).scalar_one_or_none()
    built = public_state.loads(data) if data is not None else None
    if built is None:
        return None  # of another shape, or replaced meanwhile: built anew
    return Published(tournament_id, seq, tag, built_at, built)


def _claim(found: Published) -> bool:
    """One guarded UPDATE: this process builds the next state (no other claimed it lately)."""
    now = utcnow()
    with db.engine.begin() as connection:
        done = connection.execute(
            update(_SNAPSHOTS)
            .where(
                _SNAPSHOTS.c.tournament_id == found.tournament_id,
                _SNAPSHOTS.c.seq == found.seq,
                (_SNAPSHOTS.c.claimed_at.is_(None)) | (_SNAPSHOTS.c.claimed_at < now - CLAIM_FOR),
            )
            .values(claimed_at=now)
        ).rowcount
    return done == 1


def _release(found: Published) -> None:
    with db.engine.begin() as connection:
        connection.execute(
            update(_SNAPSHOTS)
            .where(
                _SNAPSHOTS.c.tournament_id == found.tournament_id,
                _SNAPSHOTS.c.seq == found.seq,
            )
            .values(claimed_at=None)
        )


def _build(state: PollState, found: Published | None) -> Published | None:
    """Build ``state`` (read before) and store it; None when another process builds it."""
    if found is not None and not _claim(found):
        return None
    try:
        built = public_state.build(state.tournament_id, found.built if found is not None else None)
    except BaseException:
        if found is not None:
            _release(found)
        raise
    if built is None:
        return None
    data = public_state.dumps(built)
    now = utcnow()
    with db.engine.begin() as connection:
        if found is None:
            try:
                connection.execute(
                    insert(_SNAPSHOTS).values(
                        tournament_id=state.tournament_id,
                        seq=1,
                        tag=state.tag,
                        built_at=now,
                        data=data,
                    )
                )
            except IntegrityError:
                return None  # another process stored the first build a moment ago
            return Published(state.tournament_id, 1, state.tag, now, built)
        connection.execute(
            update(_SNAPSHOTS)
            .where(
                _SNAPSHOTS.c.tournament_id == state.tournament_id,
                _SNAPSHOTS.c.seq == found.seq,
            )
            .values(seq=found.seq + 1, tag=state.tag, built_at=now, claimed_at=None, data=data)
        )
    return Published(state.tournament_id, found.seq + 1, state.tag, now, built)


def fresh_standings(tournament_id: int) -> Standings:
    """The standings as the database holds them this moment (a printout, a download)."""
    built = public_state.build(tournament_id)
    assert built is not None
    return built.standings
