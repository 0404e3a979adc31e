"""The hosted copy: pages made for halls, what halls push to them, and what they show.

Whoever organises makes a page here (:func:`make_page`): a public link, an
admin link, and the key the hall signs with.  The hall connects once
(:func:`connect`: a new generation; a replayed connect is refused by its nonce)
and then pushes whole states (:func:`receive`).  A push is taken only when it
is signed with the page's key, is of the page's current generation and is newer
than what the page shows — a push sent twice is answered as taken, an older or
replayed one is refused, and a page taken down takes nothing.  Nothing flows
back: the hall's answer is a status, and this copy has no way into the hall.

The public pages read the page's last state (:func:`received`), kept per
process by its sequence number and read again at most every
``TOURNAMENT_POLL_KEEP`` seconds, so a final's 1,000 viewers cost the database
one small read per process every half second.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cachetools import LRUCache
from sqlalchemy import select, update

from ...extensions import db
from ...models import utcnow
from ...online_models import OnlineNonce, OnlinePage
from ...rules import RulesError
from ..errors import NotFound
from ..kept import Derived, Recent
from ..tournaments.money import PrizeList
from ..tournaments.series import SeriesStandings
from ..tournaments.standings import Standings
from ..unit import LostRace, use_case
from .document import Document, DocumentError, loads
from .signing import body_hash, new_key, signed

MAX_NAME = 80
KEPT = 64
"""Pages whose last state a process keeps read (a hosted copy serves many tournaments)."""


class Refused(Exception):
    """A hall's request this copy does not take; ``status`` is the HTTP answer, ``why`` says why.

    ``generation`` and ``seq``: where the page stands (the hall learns it must connect
    again, or that the page has a newer state).
    """

    def __init__(self, status: int, why: str, generation: int = 0, seq: int = 0) -> None:
        super().__init__(why)
        self.status, self.why, self.generation, self.seq = status, why, generation, seq


@use_case
def make_page(name: str) -> OnlinePage:
    """A new page for a tournament (named as the organiser says), with a fresh key."""
    clean = " ".join(str(name).split())[:MAX_NAME]
    if not clean or not clean.isprintable():
        raise RulesError("name the tournament the page is for")
    page = OnlinePage(name=clean, key=new_key())
    db.session.add(page)
    db.session.flush()
    return page


def _by(column: Any, token: str) -> OnlinePage:
    page = db.session.execute(select(OnlinePage).where(column == token)).scalar_one_or_none()
    if page is None:
        raise NotFound()
    return page


def page_by_admin(token: str) -> OnlinePage:
    """The page behind its admin link, or NotFound."""
    return _by(OnlinePage.admin_token, token)


def _page(page_id: int) -> OnlinePage:
    page = db.session.get(OnlinePage, page_id) if 0 < page_id < 2**31 else None
    if page is None:
        raise Refused(404, "no such page")
    if page.taken_down_at is not None:
        raise Refused(410, "the page was taken down")
    return page


@use_case
def connect(page_id: int, body: bytes, given: str) -> tuple[int, int]:
    """A hall connects: a new generation (the hall before it may push no more), or Refused.

    ``body`` is JSON ``{"hall": …, "nonce": …}`` signed with the page's key; a nonce
    seen before is a replay.  Answers (generation, seq) for the hall to go on from.
    """
    page = _page(page_id)
    if not signed(page.key, given, "connect", page_id, body_hash(body)):
        raise Refused(403, "not signed with this page's key")
    try:
        asked = json.loads(body.decode("utf-8"))
        nonce = asked["nonce"]
    except (ValueError, UnicodeDecodeError, KeyError, TypeError):
        raise Refused(400, "not a connect request") from None
    if not isinstance(nonce, str) or not 16 <= len(nonce) <= 64 or not nonce.isalnum():
        raise Refused(400, "not a connect request")
    seen = db.session.execute(
        select(OnlineNonce.id).where(OnlineNonce.page_id == page_id, OnlineNonce.nonce == nonce)
    ).first()
    if seen is not None:
        raise Refused(409, "this connect request was made before", page.generation, page.seq)
    db.session.add(OnlineNonce(page_id=page_id, nonce=nonce))  # (unique: a twin loses)
    page.generation += 1
    page.seq = 0
    db.session.flush()
    return page.generation, 0


@use_case
def receive(page_id: int, generation: int, seq: int, body: bytes, given: str) -> bool:
    """Take a pushed state: True when it is new, False when this very one was taken before.

    Refused (403) unless signed with the page's key; (409) unless of the page's
    generation and newer than what it shows; (400) unless a document of this release.
    """
    page = _page(page_id)
    digest = body_hash(body)
    if not signed(page.key, given, "push", page_id, generation, seq, digest):
        raise Refused(403, "not signed with this page's key")
    if generation != page.generation:
        raise Refused(409, "another hall has connected since", page.generation, page.seq)
    if seq <= page.seq:
        if seq == page.seq and digest == page.digest:
            return False  # sent again: taken already
        raise Refused(409, "the page shows a newer state", page.generation, page.seq)
    try:
        loads(body)
    except DocumentError as exc:
        raise Refused(400, f"not a document of this release: {exc}") from None
    done = db.session.execute(
        update(OnlinePage)
        .where(
            OnlinePage.id == page_id,
            OnlinePage.generation == generation,
            OnlinePage.seq < seq,
        )
        .values(seq=seq, digest=digest, data=body, received_at=utcnow())
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise LostRace()  # a newer push came in meanwhile: run again, it is refused or taken
    return True


@use_case
def take_down(page: OnlinePage) -> None:
    """The page shows nothing any more and takes no push (its results are gone from here)."""
    page.taken_down_at = page.taken_down_at or utcnow()
    page.data = None


# -- what the public pages show ----------------------------------------------------------


@dataclass
class Received:
    """A page's last state as this process read it (a public page's source)."""

    page_id: int
    seq: int
    generation: int
    name: str
    doc: Document
    received_at: datetime
    derived: Derived = field(default_factory=Derived, repr=False)

    @property
    def standings(self) -> Standings:
        return self.doc.standings

    @property
    def built_at(self) -> datetime:
        return self.received_at

    @property
    def prizes(self) -> PrizeList | None:
        return self.doc.prizes

    @property
    def series(self) -> SeriesStandings | None:
        return self.doc.series

    def once(self, key: Any, make: Callable[[], Any]) -> Any:
        return self.derived.once(key, make)


class _Memory:
    def __init__(self) -> None:
        self.recent: Recent[str, Received | None] = Recent(16 * KEPT)
        self.lock = threading.Lock()
        self.pages: LRUCache[int, Received] = LRUCache(maxsize=KEPT)


_HEAD = select(
    OnlinePage.id,
    OnlinePage.seq,
    OnlinePage.generation,
    OnlinePage.name,
    OnlinePage.received_at,
    OnlinePage.taken_down_at,
)


_MEMORIES: dict[str, _Memory] = {}
_MEMORIES_LOCK = threading.Lock()


def forget() -> None:
    """Forget what this process read of every database's pages: for a database emptied and
    made anew under the same address (the tests' PostgreSQL schema, its ids from 1 again),
    whose pages would otherwise meet the states read before."""
    with _MEMORIES_LOCK:
        _MEMORIES.clear()


def received(token: str, *, keep: float = 0.5) -> Received | None:
    """The last state pushed to the page of public link ``token`` (None: no page, taken
    down, or nothing received yet), read at most every ``keep`` seconds per process."""
    with _MEMORIES_LOCK:
        memory = _MEMORIES.setdefault(str(db.engine.url), _Memory())
    return memory.recent.get(token, keep, lambda: _read(memory, token))


def _read(memory: _Memory, token: str) -> Received | None:
    with db.engine.connect() as connection:
        head = connection.execute(_HEAD.where(OnlinePage.token == token)).first()
        if head is None:
            return None
        page_id, seq, generation, name, at, down = head
        if down is not None or at is None:
            return None
        with memory.lock:
            mine = memory.pages.get(page_id)
        # the time it was received too: a page id and its first numbers come again when a
        # database is made anew under the same address (or SQLite reuses a deleted row's id)
        seen = (seq, generation, at)
        if mine is not None and (mine.seq, mine.generation, mine.received_at) == seen:
            return mine
        data = connection.execute(
            select(OnlinePage.data).where(OnlinePage.id == page_id)
        ).scalar_one_or_none()
    if data is None:
        return None
    try:
        doc = loads(data)
    except DocumentError:
        return None  # of another release: shown again once the hall sends a state
    made = Received(page_id, seq, generation, name, doc, at)
    with memory.lock:
        memory.pages[page_id] = made
    return made


def page_state(page: OnlinePage) -> Document | None:
    """What ``page`` shows now (its admin page says so), or None."""
    if page.data is None:
        return None
    try:
        return loads(page.data)
    except DocumentError:
        return None
