"""What the public link shows (TOURNAMENT.md section 3): ranking, progress, seating, a player.

:func:`standings` reads a tournament once into plain values (no ORM rows
leave it): every player's points per round from the tables' matches or their
paper slips (:func:`.tables.results`), their lost games and place
(``scorer.rules.tournament.ranking``, with the tournament's tie-break), the
current round's progress per table and its seating.  The beamer, "where do I
sit?" and each player's page are read from that one value.

The public pages poll every few seconds.  :func:`poll_state` answers in one
Core statement whether anything they show can have changed: the tournament's
version (players, rounds, tables, settings: ``setup.bump``) together with the
sum and the count of its tables' match versions (every saved, corrected or
struck hand and every confirmation counts one at its match).  A built
:class:`Standings` is kept per process under that tag, so a hall full of
phones asking after one saved hand builds it once.
"""

from __future__ import annotations

import threading
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from cachetools import LRUCache
from flask import current_app
from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import selectinload

from ...extensions import db
from ...models import Hand, Match
from ...rules.tournament import ranking
from ...tournament_models import Entrant, Round, Tournament, TournamentTable
from ..sheets import STANDING_VERSION
from .tables import Result, results, state_of

EXTENSION = "scorer.standings"
KEPT = 16
"""How many built standings a process keeps (a few tournaments, a few states each)."""

MAX_NUMBER = 10**6
"""No start number is larger; a larger one typed or in an address names nobody."""


@dataclass(frozen=True)
class Player:
    """A registered player as the public pages name them."""

    entrant_id: int
    number: int | None
    name: str
    club: str
    from_round: int | None
    withdrawn: bool


@dataclass(frozen=True)
class Line:
    """One line of the ranking: a player's points per drawn round, total, lost games, place.

    ``rounds`` lines up with :attr:`Standings.rounds`; ``None`` is a round the
    player did not play (a late arrival's first rounds, a withdrawn player's
    last), shown as "–" and counted 0.
    """

    player: Player
    rounds: tuple[int | None, ...]
    paper: tuple[bool, ...]
    total: int
    lost: int
    place: int


@dataclass(frozen=True)
class TableProgress:
    """A table of the current round: deal ``played`` of ``deals``, done, from paper."""

    number: int
    played: int
    deals: int
    done: bool
    paper: bool

    @property
    def finished(self) -> bool:
        """Played out or typed in from its paper slip: the table counts as done."""
        return self.done or self.paper


@dataclass(frozen=True)
class Progress:
    """The current round: its number, whether it is closed, and each table's progress."""

    round: int
    closed: bool
    tables: tuple[TableProgress, ...]

    @property
    def finished(self) -> int:
        """How many tables are done ("17 von 20 Tischen fertig")."""
        return sum(1 for t in self.tables if t.finished)

    @property
    def waiting(self) -> list[TableProgress]:
        """The tables still playing, the furthest behind first (whom the hall waits for)."""
        return sorted(
            (t for t in self.tables if not t.finished), key=lambda t: (t.played, t.number)
        )


@dataclass(frozen=True)
class Seat:
    """Where a player sits in the current round: table and seat (seat 1 is the Schreiber)."""

    player: Player
    table: int
    seat: int

    @property
    def schreiber(self) -> bool:
        """Seat 1 keeps the score (and deals first)."""
        return self.seat == 1


@dataclass(frozen=True)
class Standings:
    """Everything the public pages show of a tournament, read at one moment."""

    tournament_id: int
    name: str
    rounds_planned: int
    rounds: tuple[int, ...]
    lines: tuple[Line, ...]
    players: tuple[Player, ...]
    progress: Progress | None
    seats: tuple[Seat, ...]
    tie_break: bool

    @property
    def drawn(self) -> bool:
        """Whether a round has been drawn (before that: the registered players only)."""
        return bool(self.rounds)

    @property
    def provisional(self) -> bool:
        """Whether the ranking may still change: the current round is not closed."""
        return self.progress is not None and not self.progress.closed

    @property
    def final(self) -> bool:
        """Whether the last round is closed: the ranking is the tournament's result."""
        return (
            self.progress is not None
            and self.progress.closed
            and self.progress.round >= self.rounds_planned
        )


@dataclass(frozen=True)
class PlayerPage:
    """A player's own page: their line of the ranking and where they sit this round."""

    player: Player
    line: Line | None
    seat: Seat | None
    mates: tuple[Seat, ...]
    table: TableProgress | None
    round: int | None


class PollState(NamedTuple):
    """What the public pages' polls compare: a tag of everything they show, its last change."""

    tournament_id: int
    tag: str
    last_modified: datetime


# -- the poll ------------------------------------------------------------------

_TOURNAMENTS = Tournament.__table__
_ROUNDS = Round.__table__
_TABLES = TournamentTable.__table__
_MATCHES = Match.__table__
# One statement, no ORM rows: the tournament by its (unique, indexed) public link, its
# rounds by tournament_id, their tables by round_id and each table's match by its key.
# Every saved hand bumps its match's version, so the sum changes with any of them; a
# redraw (matches deleted and made anew) bumps the tournament's version.
_POLL_STATE = (
    select(
        _TOURNAMENTS.c.id,
        _TOURNAMENTS.c.version,
        _TOURNAMENTS.c.updated_at,
        func.coalesce(func.sum(_MATCHES.c.version), 0),
        func.count(_MATCHES.c.id),
        func.max(_MATCHES.c.updated_at),
    )
    .select_from(
        _TOURNAMENTS.outerjoin(_ROUNDS, _ROUNDS.c.tournament_id == _TOURNAMENTS.c.id)
        .outerjoin(_TABLES, _TABLES.c.round_id == _ROUNDS.c.id)
        .outerjoin(_MATCHES, _MATCHES.c.id == _TABLES.c.match_id)
    )
    .where(_TOURNAMENTS.c.view_token == bindparam("view_token"))
    .group_by(_TOURNAMENTS.c.id, _TOURNAMENTS.c.version, _TOURNAMENTS.c.updated_at)
)


def poll_state(view_token: str) -> PollState | None:
    """The tag and last change of everything the public pages of ``view_token`` show.

    None when the link names no tournament.  Read on a connection of its own
    (no ORM objects, no session of the request): nearly every poll ends here.
    """
    with db.engine.connect() as connection:
        row = connection.execute(_POLL_STATE, {"view_token": view_token}).first()
    if row is None:
        return None
    tournament_id, version, updated_at, versions, matches, changed = row
    last = max(updated_at, changed) if changed is not None else updated_at
    return PollState(tournament_id, f"t{tournament_id}.{version}.{versions}.{matches}", last)


# -- the standings -------------------------------------------------------------


def _player(e: Entrant) -> Player:
    return Player(e.id, e.number, e.name, e.club, e.from_round, e.withdrawn_before is not None)


@dataclass(frozen=True)
class _RoundView:
    """What the standings need of one drawn round, as plain values (kept per round state)."""

    number: int
    closed: bool
    results: dict[int, Result]
    tables: tuple[TableProgress, ...]
    # (entrant id, table number, seat) in table and seat order
    seating: tuple[tuple[int, int, int], ...]


class _Kept:
    """Built standings by (tournament, poll tag), and each round's view by its own state.

    A new state is a new key, never a stale one.  A closed round's tables rarely
    change, so while a round is played only that round's tables are read again.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entries: LRUCache[tuple[int, str], Standings] = LRUCache(maxsize=KEPT)
        self.rounds: LRUCache[tuple[object, ...], _RoundView] = LRUCache(maxsize=4 * KEPT)
        # per tournament: the lock its builds take turns on
        self.building: dict[int, threading.Lock] = {}
        # per tournament: the newest state shown, and when this process first saw it
        self.latest: dict[int, tuple[float, PollState]] = {}


# each round's state: the versions of its tables' matches (one statement, no ORM rows)
_ROUND_STATES = (
    select(
        _ROUNDS.c.id,
        _ROUNDS.c.closed_at,
        func.coalesce(func.sum(_MATCHES.c.version), 0),
        func.count(_MATCHES.c.id),
    )
    .select_from(
        _ROUNDS.outerjoin(_TABLES, _TABLES.c.round_id == _ROUNDS.c.id).outerjoin(
            _MATCHES, _MATCHES.c.id == _TABLES.c.match_id
        )
    )
    .where(_ROUNDS.c.tournament_id == bindparam("tournament_id"))
    .group_by(_ROUNDS.c.id, _ROUNDS.c.number, _ROUNDS.c.closed_at)
    .order_by(_ROUNDS.c.number)
)


def _load_rounds(ids: Sequence[int]) -> list[Round]:
    """Rounds with their tables, matches, seats and confirmations in 5 statements.

    A match without a stored standing (a table that has not saved a hand yet)
    is read from its hands (``sheets.standing``): those are loaded here for all
    such matches at once, instead of one query per table at the start of a round.
    """
    tables = selectinload(Round.tables)
    loaded = list(
        db.session.execute(
            select(Round)
            .where(Round.id.in_(ids))
            .options(
                tables.selectinload(TournamentTable.match).selectinload(Match.seats),
                tables.selectinload(TournamentTable.confirmations),
            )
        ).scalars()
    )
    bare = [
        t.match_id
        for row in loaded
        for t in row.tables
        if not t.match.standing or t.match.standing.get("v") != STANDING_VERSION
    ]
    if bare:
        db.session.execute(
            select(Match)
            .where(Match.id.in_(bare))
            .options(selectinload(Match.hands).selectinload(Hand.parties))
        ).scalars().all()
    return loaded


def _view_of(row: Round) -> _RoundView:
    states = [state_of(t) for t in row.tables]
    return _RoundView(
        number=row.number,
        closed=row.closed_at is not None,
        results=results(row),
        tables=tuple(
            TableProgress(s.table.number, s.played, s.deals, s.done, s.paper) for s in states
        ),
        seating=tuple(
            (entrant_id, table.number, seat)
            for table in row.tables
            for seat, entrant_id in enumerate(table.players, start=1)
        ),
    )


def _rounds_of(tournament: Tournament, kept: _Kept | None) -> list[_RoundView]:
    """The drawn rounds, each read from the tables unless kept at its present state."""
    states = db.session.execute(_ROUND_STATES, {"tournament_id": tournament.id}).all()
    # the tournament's version too: a paper slip or a player's change counts there
    keys = {
        round_id: (round_id, tournament.version, closed_at, versions, matches)
        for round_id, closed_at, versions, matches in states
    }
    found: dict[int, _RoundView] = {}
    if kept is not None:
        with kept.lock:
            for round_id, key in keys.items():
                view = kept.rounds.get(key)
                if view is not None:
                    found[round_id] = view
    missing = [round_id for round_id in keys if round_id not in found]
    if missing:
        made = {row.id: _view_of(row) for row in _load_rounds(missing)}
        found.update(made)
        if kept is not None:
            with kept.lock:
                for round_id, view in made.items():
                    kept.rounds[keys[round_id]] = view
    return [found[round_id] for round_id in keys if round_id in found]


def build(tournament: Tournament, kept: _Kept | None = None) -> Standings:
    """The tournament's standings as the database holds them now (``kept``: rounds kept)."""
    players = {e.id: _player(e) for e in tournament.entrants}
    drawn = _rounds_of(tournament, kept)
    points: dict[int, list[int | None]] = {}
    paper: dict[int, list[bool]] = {}
    lost: dict[int, int] = {}
    for index, row in enumerate(drawn):
        for entrant_id, result in row.results.items():
            if entrant_id not in players:
                continue
            points.setdefault(entrant_id, [None] * len(drawn))[index] = result.points
            paper.setdefault(entrant_id, [False] * len(drawn))[index] = result.paper
            lost[entrant_id] = lost.get(entrant_id, 0) + result.lost
    # by start number first: players who share a place are listed so
    order = sorted(points, key=lambda i: (players[i].number or 0, i))
    played = {i: [p for p in points[i] if p is not None] for i in order}
    places = ranking(played, lost, tie_break=tournament.tie_break)
    lines = tuple(
        Line(
            player=players[i],
            rounds=tuple(points[i]),
            paper=tuple(paper[i]),
            total=sum(played[i]),
            lost=lost.get(i, 0),
            place=place,
        )
        for i, place in places.items()
    )
    progress = None
    seats: tuple[Seat, ...] = ()
    if drawn:
        current = drawn[-1]
        progress = Progress(round=current.number, closed=current.closed, tables=current.tables)
        seats = tuple(
            Seat(players[entrant_id], table, seat)
            for entrant_id, table, seat in current.seating
            if entrant_id in players
        )
    registered = sorted(
        players.values(), key=lambda p: (p.number is None, p.number or 0, alphabetical(p.name))
    )
    return Standings(
        tournament_id=tournament.id,
        name=tournament.name,
        rounds_planned=tournament.rounds,
        rounds=tuple(r.number for r in drawn),
        lines=lines,
        players=tuple(registered),
        progress=progress,
        seats=seats,
        tie_break=tournament.tie_break,
    )


def _kept() -> _Kept | None:
    if not current_app.config.get("PAGE_CACHE", True):
        return None
    kept: _Kept = current_app.extensions.setdefault(EXTENSION, _Kept())
    return kept


FRESH = 1.5
"""Seconds a built state is shown before a newer one is built (per process; the
app's ``TOURNAMENT_FRESH`` setting, 0 in the tests that watch a hand arrive).

While 200 tables save a hand a minute the state changes several times a second;
without this every poll of 600 phones would build the ranking anew.  The beamer
polls every 3 s, so a saved hand still shows within 5 s."""


def settled(state: PollState) -> PollState:
    """The state the public pages show: ``state``, or the one built less than
    :data:`FRESH` seconds ago (its tag then is the ETag, so the answer is consistent)."""
    kept = _kept()
    fresh = float(current_app.config.get("TOURNAMENT_FRESH", FRESH))
    if kept is None or fresh <= 0:
        return state
    now = time.monotonic()
    with kept.lock:
        last = kept.latest.get(state.tournament_id)
        shown = last[1] if last is not None and now - last[0] < fresh else None
        built = shown is not None and (state.tournament_id, shown.tag) in kept.entries
        if shown is not None and built and shown.tag != state.tag:
            return shown
        if last is None or last[1].tag != state.tag:
            kept.latest[state.tournament_id] = (now, state)
    return state


def standings(tournament: Tournament, tag: str | None = None) -> Standings:
    """The tournament's standings; with the poll's ``tag`` (read before) built once per state.

    The tag must have been read (:func:`poll_state`) before the rows are: what
    is kept under it is then never older than the state it names.
    """
    kept = _kept()
    if tag is None or kept is None:
        return build(tournament, kept)
    key = (tournament.id, tag)
    with kept.lock:
        found = kept.entries.get(key)
        building = kept.building.setdefault(tournament.id, threading.Lock())
    if found is not None:
        return found
    # one build per state and process: the other threads asking for it wait for it
    with building:
        with kept.lock:
            found = kept.entries.get(key)
        if found is None:
            found = build(tournament, kept)
            with kept.lock:
                kept.entries[key] = found
    return found


def alphabetical(name: str) -> str:
    """A name's key in an alphabetical list: case and accents aside (Ä with A, as in a phone book).

    >>> sorted(["Zenzi", "Ärnst", "anna", "Otto"], key=alphabetical)
    ['anna', 'Ärnst', 'Otto', 'Zenzi']
    """
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))
