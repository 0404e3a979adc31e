"""What each public page shows, as one value: its poll is answered by what changed in it.

A phone watching the ranking shows one page of it; a player's phone shows their
own line and table.  Each page's value (:class:`RankingView`, :class:`PlayerView`,
:class:`SeatingView`) holds exactly what its template shows, so its
:func:`digest` changes when — and only when — the page would read differently: a
hand saved at table 412 changes the pages of the players it moves, not the
other 59 pages of a 3,000-player ranking, and not the pages of other players.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from .seating import by_name, by_table, player_page, search
from .standings import Line, Player, PlayerPage, Seat, Standings, TableProgress


class Source(Protocol):
    """Where a public page's values come from: the hall's shared build, or a hosted copy's
    last push from a hall.  ``once`` makes a value once per build (and process)."""

    @property
    def standings(self) -> Standings: ...

    @property
    def built_at(self) -> datetime: ...

    def once(self, key: Any, make: Callable[[], Any]) -> Any: ...


PHONE_ROWS = 50
"""Lines on a page of the ranking on a phone (the app's ``PUBLIC_PAGE_ROWS``; the beamer
says how many fit its screen)."""

MIN_ROWS = 3
MAX_ROWS = 200

WAITING_SHOWN = 24
"""The most tables the beamer names as still playing (the furthest behind); the rest are counted."""


@dataclass(frozen=True)
class Status:
    """Where the tournament stands: not drawn, a round in play (provisional), after one, final."""

    drawn: bool
    final: bool
    provisional: bool
    round: int | None


@dataclass(frozen=True)
class Count:
    """The current round: how many of its tables have finished ("17 von 20 Tischen fertig")."""

    round: int
    closed: bool
    finished: int
    tables: int


@dataclass(frozen=True)
class RankingView:
    """One page of the ranking: its lines, where it stands, and (on the beamer) who plays on."""

    name: str
    status: Status
    count: Count | None
    waiting: tuple[TableProgress, ...]
    more_waiting: int
    rounds: tuple[int, ...]
    lines: tuple[Line, ...]
    page: int
    pages: int
    rows: int
    players: tuple[Player, ...]
    tie_break: bool
    beamer: bool


@dataclass(frozen=True)
class PlayerView:
    """A player's own page: their line and table, where the tournament stands."""

    name: str
    status: Status
    me: PlayerPage | None
    rounds: tuple[int, ...]
    ranked: int
    drawn: bool


@dataclass(frozen=True)
class SeatingView:
    """The current round's seating by name and by table."""

    name: str
    drawn: bool
    round: int | None
    closed: bool
    by_name: tuple[Seat, ...]
    by_table: tuple[tuple[int, tuple[Seat, ...]], ...]
    players: tuple[Player, ...]
    # what was searched for ("" for nothing: ``by_name`` holds everybody)
    query: str = ""


def status_of(s: Standings) -> Status:
    return Status(
        drawn=s.drawn,
        final=s.final,
        provisional=s.provisional,
        round=s.progress.round if s.progress is not None else None,
    )


def count_of(s: Standings) -> Count | None:
    p = s.progress
    if p is None:
        return None
    return Count(p.round, p.closed, p.finished, len(p.tables))


def page_count(lines: int, rows: int) -> tuple[int, int]:
    """The pages of ``lines`` lines at most ``rows`` to a page, balanced: (pages, per page).

    >>> page_count(14, 13), page_count(3000, 50), page_count(0, 50), page_count(101, 50)
    ((2, 7), (60, 50), (1, 0), (3, 34))
    """
    if lines <= 0:
        return 1, 0
    pages = math.ceil(lines / rows)
    return pages, math.ceil(lines / pages)


def clamp_rows(rows: int) -> int:
    """Lines to a page as asked, kept within sense."""
    return max(MIN_ROWS, min(MAX_ROWS, rows))


def ranking_view(s: Standings, page: int, rows: int, *, beamer: bool) -> RankingView:
    """Page ``page`` (from 1; a page beyond the last is the last) of at most ``rows`` lines."""
    pages, per = page_count(len(s.lines), rows)
    page = max(1, min(page, pages))
    waiting: tuple[TableProgress, ...] = ()
    more = 0
    if beamer and s.progress is not None and not s.progress.closed:
        behind = s.progress.waiting
        waiting, more = tuple(behind[:WAITING_SHOWN]), max(0, len(behind) - WAITING_SHOWN)
    return RankingView(
        name=s.name,
        status=status_of(s),
        count=count_of(s),
        waiting=waiting,
        more_waiting=more,
        rounds=s.rounds,
        lines=s.lines[(page - 1) * per : page * per],
        page=page,
        pages=pages,
        rows=rows,
        players=() if s.drawn else s.players,
        tie_break=s.tie_break,
        beamer=beamer,
    )


def player_view(s: Standings, number: int) -> PlayerView:
    """The page of the player with start number ``number`` (``me`` None: nobody has it)."""
    me = player_page(s, number)
    return PlayerView(
        name=s.name,
        status=status_of(s),
        me=me,
        rounds=s.rounds,
        ranked=len(s.lines),
        drawn=s.drawn,
    )


def seating_view(s: Standings, query: str = "") -> SeatingView:
    """The seating; ``query``: by name only those a search for it finds."""
    return SeatingView(
        name=s.name,
        drawn=s.drawn,
        round=s.progress.round if s.progress is not None else None,
        closed=s.progress.closed if s.progress is not None else False,
        by_name=tuple(search(by_name(s), query)),
        by_table=tuple((number, tuple(seats)) for number, seats in by_table(s)),
        players=() if s.drawn else s.players,
        query=query,
    )


def digest(view: object) -> str:
    """A short fingerprint of everything a page shows (its poll's tag)."""
    return hashlib.sha256(repr(view).encode()).hexdigest()[:24]
