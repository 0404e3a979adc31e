"""The public side of a tournament as one value, built from a fixed number of Core statements.

What the public link shows (docs/rules.md section 13.4) — the ranking, the current
round's progress, the seating — is a :class:`~.standings.Standings`.  :func:`build`
reads it in a fixed number of statements whatever the size of the hall, and goes
on from the previous build: a round whose tables' match versions did not change
is taken over whole; in a round in play only the tables whose match moved on
(a hand saved, corrected or struck, a paper slip, a confirmation) are read again.
Each table's points come from its match's stored standing (kept up to date by
every save, ``services.sheets``), its lost games from its hands; the ranking is
the rules' (``scorer.rules.tournament.evening_ranking``).

:func:`dumps` and :func:`loads` turn a build into JSON and back (the public
snapshot every process shares, ``published``; the hosted copy of a hall).
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, select

from ...extensions import db
from ...models import Hand, Match
from ...rules.tournament import TableResult, evening_ranking, lost_game, table_results
from ...tournament_models import Entrant, Round, Series, Tournament, TournamentTable
from ..sheets import STANDING_VERSION, standing
from .standings import Line, Player, Progress, Seat, Standings, TableProgress, alphabetical

SCHEMA = 1
"""The shape of :func:`dumps`' JSON; a snapshot of another shape is built anew."""

_T = Tournament.__table__
_S = Series.__table__
_E = Entrant.__table__
_R = Round.__table__
_TT = TournamentTable.__table__
_M = Match.__table__
_H = Hand.__table__

_TOURNAMENT = (
    select(
        _T.c.name,
        _T.c.place,
        _T.c.held_on,
        _T.c.rounds,
        _T.c.tie_break,
        _T.c.version,
        _S.c.name,
        _S.c.view_token,
    )
    .select_from(_T.outerjoin(_S, _S.c.id == _T.c.series_id))
    .where(_T.c.id == bindparam("tournament_id"))
)
_ENTRANTS = select(
    _E.c.id, _E.c.number, _E.c.name, _E.c.club, _E.c.from_round, _E.c.withdrawn_before
).where(_E.c.tournament_id == bindparam("tournament_id"))
# each round's state: the versions of its tables' matches
_ROUNDS = (
    select(
        _R.c.id,
        _R.c.number,
        _R.c.closed_at,
        _R.c.attempt,
        func.coalesce(func.sum(_M.c.version), 0),
        func.count(_M.c.id),
    )
    .select_from(
        _R.outerjoin(_TT, _TT.c.round_id == _R.c.id).outerjoin(_M, _M.c.id == _TT.c.match_id)
    )
    .where(_R.c.tournament_id == bindparam("tournament_id"))
    .group_by(_R.c.id, _R.c.number, _R.c.closed_at, _R.c.attempt)
    .order_by(_R.c.number)
)
# the tables of the rounds read again, with their match's version and slip only
_VERSIONS = (
    select(_TT.c.round_id, _TT.c.id, _TT.c.number, _TT.c.paper, _M.c.version)
    .select_from(_TT.join(_M, _M.c.id == _TT.c.match_id))
    .where(_TT.c.round_id.in_(bindparam("round_ids", expanding=True)))
)
# what a table that moved on shows now
_TABLES = (
    select(
        _TT.c.id,
        _TT.c.players,
        _TT.c.paper,
        _M.c.id,
        _M.c.finished_at,
        _M.c.standing,
        _M.c.ruleset,
    )
    .select_from(_TT.join(_M, _M.c.id == _TT.c.match_id))
    .where(_TT.c.id.in_(bindparam("table_ids", expanding=True)))
)
_LOST = select(_H.c.match_id, _H.c.declarer_party, _H.c.outcome, _H.c.made, _H.c.won).where(
    _H.c.match_id.in_(bindparam("match_ids", expanding=True)),
    _H.c.deleted_at.is_(None),
    _H.c.status == "closed",
    _H.c.declarer_party.is_not(None),
)


@dataclass(frozen=True)
class TableMemo:
    """A table as the last build read it: its match's version and what it showed then.

    ``results`` lines up with ``players`` (seat order): points, lost games, from paper.
    """

    id: int
    number: int
    match_id: int
    version: int
    slip: str
    deals: int
    played: int
    done: bool
    paper: bool
    players: tuple[int, ...]
    results: tuple[tuple[int, int, bool], ...]


@dataclass(frozen=True)
class RoundMemo:
    """A drawn round as the last build read it, under the state it was read at."""

    id: int
    number: int
    closed: bool
    key: tuple[Any, ...]
    tables: tuple[TableMemo, ...]


@dataclass(frozen=True)
class Built:
    """One build: what the public pages show, and what the next build goes on from."""

    standings: Standings
    rounds: tuple[RoundMemo, ...]


def _deals(ruleset: Any) -> int:
    return int(ruleset.get("deals", 12)) if isinstance(ruleset, dict) else 12


def _read_tables(table_ids: list[int]) -> dict[int, tuple[Any, ...]]:
    rows = db.session.execute(_TABLES, {"table_ids": table_ids}).all() if table_ids else []
    return {row[0]: tuple(row) for row in rows}


def _lost(match_ids: list[int]) -> Counter[tuple[int, int]]:
    counts: Counter[tuple[int, int]] = Counter()
    if not match_ids:
        return counts
    for match_id, declarer, outcome, made, won in db.session.execute(
        _LOST, {"match_ids": match_ids}
    ):
        if declarer is not None and lost_game(outcome, made=made, won=won):
            counts[(match_id, declarer)] += 1
    return counts


def _totals(match_id: int, stored: Any) -> tuple[list[int], int]:
    """A match's totals and hands from its stored standing (a replay when it has none)."""
    if isinstance(stored, dict) and stored.get("v") == STANDING_VERSION:
        return [int(t) for t in stored["totals"]], int(stored["hands"])
    match = db.session.get_one(Match, match_id)
    current = standing(match)
    return list(current.totals), current.hand_count


def _table_memo(
    table_id: int,
    number: int,
    version: int,
    slip: str,
    row: tuple[Any, ...],
    lost: Counter[tuple[int, int]],
) -> TableMemo:
    _, players, paper, match_id, finished_at, stored, ruleset = row
    seated = tuple(int(p) for p in players)
    totals, played = _totals(match_id, stored)
    typed = None
    if paper is not None:
        typed = {p: (int(paper[str(p)][0]), int(paper[str(p)][1])) for p in seated}
    lost_by_seat = [lost[(match_id, seat)] for seat in range(len(seated))]
    got = table_results(seated, totals, lost_by_seat, typed)
    results = tuple((got[p].points, got[p].lost, got[p].paper) for p in seated)
    return TableMemo(
        id=table_id,
        number=number,
        match_id=match_id,
        version=version,
        slip=slip,
        deals=_deals(ruleset),
        played=played,
        done=finished_at is not None,
        paper=paper is not None,
        players=seated,
        results=results,
    )


def _rounds(tournament_id: int, version: int, previous: Built | None) -> list[RoundMemo]:
    """The drawn rounds, each taken over from ``previous`` unless a table of it moved on."""
    before = {r.id: r for r in previous.rounds} if previous is not None else {}
    states = db.session.execute(_ROUNDS, {"tournament_id": tournament_id}).all()
    keys = {
        round_id: (number, closed_at is not None, attempt, int(versions), int(count), version)
        for round_id, number, closed_at, attempt, versions, count in states
    }
    again = [i for i, key in keys.items() if i not in before or before[i].key != key]
    tables: dict[int, list[tuple[int, int, int, str]]] = {i: [] for i in again}
    if again:
        for round_id, table_id, number, paper, match_version in db.session.execute(
            _VERSIONS, {"round_ids": again}
        ):
            slip = json.dumps(paper, sort_keys=True)
            tables[round_id].append((table_id, number, match_version, slip))
    kept = {t.id: t for i in again if i in before for t in before[i].tables}
    # a table whose match moved on, or whose slip changed, is read again
    moved = [
        (table_id, number, match_version, slip)
        for rows in tables.values()
        for table_id, number, match_version, slip in rows
        if table_id not in kept
        or (kept[table_id].version, kept[table_id].slip) != (match_version, slip)
    ]
    read = _read_tables([t for t, *_ in moved])
    lost = _lost([read[t][3] for t, *_ in moved if t in read])
    fresh = {
        table_id: _table_memo(table_id, number, match_version, slip, read[table_id], lost)
        for table_id, number, match_version, slip in moved
        if table_id in read
    }
    result = []
    for round_id, key in keys.items():
        if round_id not in tables:
            result.append(before[round_id])
            continue
        memos = sorted(
            (fresh.get(table_id) or kept[table_id] for table_id, *_ in tables[round_id]),
            key=lambda t: t.number,
        )
        result.append(RoundMemo(round_id, key[0], key[1], key, tuple(memos)))
    return result


def _current(
    row: RoundMemo | None, players: dict[int, Player]
) -> tuple[Progress | None, tuple[Seat, ...]]:
    """The current round's progress and seating, from its memo."""
    if row is None:
        return None, ()
    progress = Progress(
        round=row.number,
        closed=row.closed,
        tables=tuple(
            TableProgress(t.number, t.played, t.deals, t.done, t.paper) for t in row.tables
        ),
    )
    seats = tuple(
        Seat(players[entrant_id], table.number, seat)
        for table in row.tables
        for seat, entrant_id in enumerate(table.players, start=1)
        if entrant_id in players
    )
    return progress, seats


def build(tournament_id: int, previous: Built | None = None) -> Built | None:
    """The public side of the tournament as the database holds it now; None if it is gone."""
    found = db.session.execute(_TOURNAMENT, {"tournament_id": tournament_id}).first()
    if found is None:
        return None
    name, place, held_on, planned, tie_break, version, series_name, series_view = found
    players = {
        entrant_id: Player(entrant_id, number, name_, club, from_round, withdrawn is not None)
        for entrant_id, number, name_, club, from_round, withdrawn in db.session.execute(
            _ENTRANTS, {"tournament_id": tournament_id}
        )
    }
    drawn = _rounds(tournament_id, version, previous)
    each_round = [
        {
            entrant_id: TableResult(*result)
            for table in row.tables
            for entrant_id, result in zip(table.players, table.results, strict=True)
        }
        for row in drawn
    ]
    # players who share a place are listed by start number
    start = {i: (p.number or 0, i) for i, p in players.items()}
    lines = tuple(
        Line(
            player=players[line.player],
            rounds=line.rounds,
            paper=line.paper,
            total=line.total,
            lost=line.lost,
            place=line.place,
        )
        for line in evening_ranking(each_round, start, tie_break=tie_break)
    )
    progress, seats = _current(drawn[-1] if drawn else None, players)
    registered = sorted(
        players.values(), key=lambda p: (p.number is None, p.number or 0, alphabetical(p.name))
    )
    return Built(
        standings=Standings(
            tournament_id=tournament_id,
            name=name,
            rounds_planned=planned,
            rounds=tuple(r.number for r in drawn),
            lines=lines,
            players=tuple(registered),
            progress=progress,
            seats=seats,
            tie_break=tie_break,
            place=place,
            held_on=held_on,
            series=(series_name, series_view) if series_name is not None else None,
        ),
        rounds=tuple(drawn),
    )


# -- as JSON -------------------------------------------------------------------------


def _player_json(p: Player) -> list[Any]:
    return [p.entrant_id, p.number, p.name, p.club, p.from_round, p.withdrawn]


def _to_json(built: Built) -> dict[str, Any]:
    s = built.standings
    return {
        "schema": SCHEMA,
        "tournament": s.tournament_id,
        "name": s.name,
        "place": s.place,
        "held_on": s.held_on,
        "planned": s.rounds_planned,
        "tie_break": s.tie_break,
        "series": list(s.series) if s.series else None,
        "players": [_player_json(p) for p in s.players],
        "lines": [
            [x.player.entrant_id, list(x.rounds), list(x.paper), x.total, x.lost, x.place]
            for x in s.lines
        ],
        "rounds": [
            {
                "id": r.id,
                "number": r.number,
                "closed": r.closed,
                "key": list(r.key),
                "tables": [
                    [
                        t.id,
                        t.number,
                        t.match_id,
                        t.version,
                        t.slip,
                        t.deals,
                        t.played,
                        t.done,
                        t.paper,
                        list(t.players),
                        [list(x) for x in t.results],
                    ]
                    for t in r.tables
                ],
            }
            for r in built.rounds
        ],
    }


def dumps(built: Built) -> bytes:
    """A build as compressed JSON (the public snapshot's ``data``)."""
    text = json.dumps(_to_json(built), separators=(",", ":"), ensure_ascii=False)
    return zlib.compress(text.encode("utf-8"), 1)


def loads(data: bytes) -> Built | None:
    """A build from :func:`dumps`; None when it is of another shape (built anew then)."""
    raw = json.loads(zlib.decompress(data).decode("utf-8"))
    if not isinstance(raw, dict) or raw.get("schema") != SCHEMA:
        return None
    players = {row[0]: Player(*row) for row in raw["players"]}
    rounds = tuple(
        RoundMemo(
            id=r["id"],
            number=r["number"],
            closed=r["closed"],
            key=tuple(r["key"]),
            tables=tuple(
                TableMemo(
                    id=t[0],
                    number=t[1],
                    match_id=t[2],
                    version=t[3],
                    slip=t[4],
                    deals=t[5],
                    played=t[6],
                    done=t[7],
                    paper=t[8],
                    players=tuple(t[9]),
                    results=tuple((a, b, c) for a, b, c in t[10]),
                )
                for t in r["tables"]
            ),
        )
        for r in raw["rounds"]
    )
    progress, seats = _current(rounds[-1] if rounds else None, players)
    series = raw.get("series")
    return Built(
        standings=Standings(
            tournament_id=raw["tournament"],
            name=raw["name"],
            rounds_planned=raw["planned"],
            rounds=tuple(r.number for r in rounds),
            lines=tuple(
                Line(players[i], tuple(pts), tuple(slips), total, games, place)
                for i, pts, slips, total, games, place in raw["lines"]
            ),
            players=tuple(players.values()),
            progress=progress,
            seats=seats,
            tie_break=raw["tie_break"],
            place=raw.get("place", ""),
            held_on=raw.get("held_on", ""),
            series=(series[0], series[1]) if series else None,
        ),
        rounds=rounds,
    )
