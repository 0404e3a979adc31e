"""Finding rows by their links: matches, sessions and hands, or :class:`NotFound`.

Also what the home page, the autocomplete, the device's export and the share
links' poll read, each in as few statements as the page needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Row, bindparam, func, select
from sqlalchemy.orm import joinedload

from ..extensions import db
from ..models import GameSession, Hand, Match, Seat
from .errors import NotFound
from .kept import Recent
from .starting import storable

# the largest id a row can have (PostgreSQL's integer); a larger one names no row, and the
# database would refuse to compare with it (SQLite from 2**63 on, PostgreSQL from 2**31 on)
MAX_ID = 2**31 - 1

# every view of an edit link needs the seats (names) and the session (title, link):
# read with the match in one statement instead of two lazy loads later
_MATCH_BY_TOKEN = (
    select(Match)
    .where(Match.token == bindparam("token"))
    .options(joinedload(Match.session), joinedload(Match.seats))
)


T = TypeVar("T")


def get_match(token: str) -> Match:
    """The match behind an edit link, or :class:`NotFound`."""
    match = db.session.execute(_MATCH_BY_TOKEN, {"token": token}).unique().scalar_one_or_none()
    if match is None:
        raise NotFound()
    return match


_MATCHES = Match.__table__
_SESSIONS = GameSession.__table__
# what the cached match page needs to know it is still current, in one Core statement
_MATCH_STATE = (
    select(_MATCHES.c.version, _MATCHES.c.updated_at, _SESSIONS.c.token)
    .join(_SESSIONS, _SESSIONS.c.id == _MATCHES.c.session_id)
    .where(_MATCHES.c.token == bindparam("token"))
)


def match_state(token: str) -> Row[Any]:
    """The version, last change and session token of the match behind an edit link, or
    :class:`NotFound`.

    No ORM object is built: the match page answers from its cache when these say
    nothing has changed (``cache.cached_page``).
    """
    row = db.session.connection().execute(_MATCH_STATE, {"token": token}).first()
    if row is None:
        raise NotFound()
    return row


_OTHER = _MATCHES.alias("other")
# what the poll's ETag needs, in one statement and without loading a row into the ORM:
# the match's id, version and last change, and how many matches its session has
_POLL_STATE = select(
    Match.id,
    Match.version,
    Match.updated_at,
    select(func.count())
    .select_from(_OTHER)
    .where(_OTHER.c.session_id == Match.session_id)
    .scalar_subquery(),
).where(Match.view_token == bindparam("view_token"))


_RECENT: Recent[tuple[str, str], Any] = Recent(4096)


def poll_state(view_token: str, keep: float = 0.0) -> Row[int, int, datetime, int] | None:
    """The id, version, last change and number of matches in the session of the match
    behind a read-only link, or None when there is none.

    The share links poll every few seconds: one Core statement on a connection of
    its own (no ORM objects, no session of the request); with ``keep`` the state a
    process read less than ``keep`` seconds ago answers (a table's phones and its
    TV cost the database one read every ``keep`` seconds per process, not one a poll).
    """

    def read() -> Row[int, int, datetime, int] | None:
        with db.engine.connect() as connection:
            return connection.execute(_POLL_STATE, {"view_token": view_token}).first()

    return _RECENT.get((str(db.engine.url), view_token), keep, read)


def _by_token(model: type[T], column: Any, token: str) -> T:
    """The row whose ``column`` is ``token``, or :class:`NotFound`."""
    row = db.session.execute(select(model).where(column == token)).scalar_one_or_none()
    if row is None:
        raise NotFound()
    return row


def get_match_for_view(token: str) -> Match:
    """The match behind a read-only link, or :class:`NotFound`."""
    return _by_token(Match, Match.view_token, token)


def get_session_for_view(token: str) -> GameSession:
    """The session behind a read-only link, or :class:`NotFound`."""
    return _by_token(GameSession, GameSession.view_token, token)


def get_session(token: str) -> GameSession:
    """The session behind an edit link, or :class:`NotFound`."""
    return _by_token(GameSession, GameSession.token, token)


def get_hand(match: Match, hand_id: int) -> Hand:
    """A hand of this match, or :class:`NotFound`."""
    if not 0 < hand_id <= MAX_ID:
        raise NotFound()
    hand = db.session.get(Hand, hand_id)
    if hand is None or hand.match_id != match.id:
        raise NotFound()
    return hand


def hand_by_number(match: Match, number: int) -> Hand:
    """A hand of this match by the number its address carries (``seq``: its place in the
    match, as the sheet counts it until a hand is struck; never reused), or NotFound."""
    if not 0 < number <= MAX_ID:
        raise NotFound()
    hand = db.session.execute(
        select(Hand).where(Hand.match_id == match.id, Hand.seq == number)
    ).scalar_one_or_none()
    if hand is None:
        raise NotFound()
    return hand


def recent_sessions(tokens: Sequence[str] = (), limit: int = 12) -> list[dict[str, Any]]:
    """The sessions this device has opened, newest first, for the home page."""
    if not tokens:
        return []
    rows = (
        db.session.execute(
            select(GameSession)
            .where(GameSession.token.in_(list(tokens)))
            .order_by(GameSession.updated_at.desc())
            .limit(limit)
        )
        .scalars()
        .all()
    )
    return [_session_summary(row) for row in rows]


def _session_summary(row: GameSession) -> dict[str, Any]:
    last = row.matches[-1] if row.matches else None
    players = ", ".join(s.name for s in last.seats) if last else ""
    return {
        "session": row,
        "title": row.title,
        "players": players,
        "when": row.updated_at,
        "match": last,
        "finished": bool(last and last.finished_at),
    }


def device_sessions(tokens: Sequence[str]) -> list[GameSession]:
    """The sessions with these tokens (the ones this device has opened), oldest first."""
    if not tokens:
        return []
    return list(
        db.session.execute(
            select(GameSession).where(GameSession.token.in_(list(tokens))).order_by(GameSession.id)
        )
        .scalars()
        .all()
    )


def known_players(tokens: Sequence[str], prefix: str = "", limit: int = 30) -> list[str]:
    """Names of the sessions with these tokens (the ones this device has opened), most
    recently used first (autocomplete): never a name typed on another device."""
    if not tokens or not storable(prefix):
        return []
    last_used = func.max(Match.created_at)
    query = (
        select(Seat.name)
        .join(Match, Seat.match_id == Match.id)
        .join(GameSession, Match.session_id == GameSession.id)
        .where(GameSession.token.in_(list(tokens)))
        .group_by(Seat.name)
        .order_by(last_used.desc(), Seat.name)
        .limit(limit)
    )
    if prefix:
        query = query.where(func.lower(Seat.name).startswith(prefix.lower(), autoescape=True))
    return list(db.session.execute(query).scalars())
