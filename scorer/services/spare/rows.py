"""What a spare copies of its hall: units of rows, with the hall's own ids, every value checked.

Three kinds of *unit*, each a set of rows that changes together on the hall:

``s`` — a series: its row and its people;
``t`` — a tournament's own rows: the tournament (settings, money, prizes), its
        players, its rounds, the links of a draw made again, its online connection;
``m`` — a table: its match (the session it lives in, its seats, every hand with
        its lines, melds and history), the table's row, the players'
        confirmations, its replaced links.

Rows keep the hall's ids.  A spare starts empty (:func:`holds_anything`), so the
ids are free there, and a copy with the same ids is the same tournament: every
link, every reference between rows, every idempotency key of a saved deal is as
on the hall, and a takeover changes nothing but who writes.

A unit travels whole, as the hall's rows are the moment it was read: every
table's rows as lists of values in the order of its column names (which travel
too: a spare of another release, whose tables have other columns, refuses).
:func:`decode` checks every value against its column (type, length, range, NUL)
and every row against its unit (an entrant of another tournament, a hand of
another match is refused), before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, Integer, String, Table, select
from sqlalchemy.engine import Connection

from ...models import GameSession, Hand, HandEvent, HandMeld, HandParty, Match, Seat
from ...online_models import OnlineLink
from ...tournament_models import (
    Confirmation,
    Entrant,
    RedrawnLink,
    RetiredLink,
    Round,
    Series,
    SeriesPlayer,
    Tournament,
    TournamentTable,
)

CHUNK = 400
"""Ids in one ``IN (…)`` of a read."""

BIGGEST = 2**63 - 1


class Refused(ValueError):
    """A unit (or a push) a spare does not take: ``why`` says what is wrong, in English."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def _table(model: Any) -> Table:
    table = model.__table__
    assert isinstance(table, Table)
    return table


@dataclass(frozen=True)
class Part:
    """A table of a unit: ``scope`` is the column that names the unit's row (or its parent's),
    ``keep``: its rows are updated in place (other units' rows refer to them), not
    removed and written again; ``columns``: those that travel (None: all)."""

    table: Table
    scope: str
    keep: bool = False
    columns: tuple[str, ...] | None = None

    @property
    def name(self) -> str:
        return str(self.table.name)

    @property
    def travelling(self) -> tuple[str, ...]:
        if self.columns is not None:
            return self.columns
        return tuple(str(c.name) for c in self.table.columns)


SERIES = (
    Part(_table(Series), "id", keep=True),
    Part(_table(SeriesPlayer), "series_id", keep=True),
)
TOURNAMENT = (
    Part(_table(Tournament), "id", keep=True),
    Part(_table(Entrant), "tournament_id", keep=True),
    Part(_table(Round), "tournament_id", keep=True),
    Part(_table(RedrawnLink), "round_id"),
    # where the tournament is online and its key; how far this hall's pushes got stays
    # here (a spare that takes over connects anew: the hosted copy follows it)
    Part(_table(OnlineLink), "tournament_id", columns=("tournament_id", "address", "key")),
)
TABLE = (
    Part(_table(GameSession), "id"),
    Part(_table(Match), "id"),
    Part(_table(TournamentTable), "match_id"),
    Part(_table(Seat), "match_id"),
    Part(_table(Hand), "match_id"),
    Part(_table(HandParty), "hand_id"),
    Part(_table(HandMeld), "hand_id"),
    Part(_table(HandEvent), "hand_id"),
    Part(_table(Confirmation), "table_id"),
    Part(_table(RetiredLink), "match_id"),
)
PARTS = {"s": SERIES, "t": TOURNAMENT, "m": TABLE}
ALL_TABLES = tuple(p.table for parts in PARTS.values() for p in parts)


def columns() -> dict[str, list[str]]:
    """The column names of every table that travels, as this release has them."""
    return {p.name: list(p.travelling) for parts in PARTS.values() for p in parts}


@dataclass
class Unit:
    """One unit's rows (encoded: lists of plain JSON values), by table name."""

    kind: str
    id: int
    rows: dict[str, list[list[Any]]] = field(default_factory=dict)
    tables: list[int] | None = None  # a tournament's: the ids of its tables' matches

    def message(self, fingerprint: str) -> dict[str, Any]:
        """The unit as a push carries it, with the fingerprint of the hall's state it is."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "id": self.id,
            "fingerprint": fingerprint,
            "rows": self.rows,
        }
        if self.tables is not None:
            out["tables"] = self.tables
        return out


# -- the hall's side: reading units ---------------------------------------------------------


def _encode(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _chunks(ids: Sequence[int]) -> Iterable[list[int]]:
    for start in range(0, len(ids), CHUNK):
        yield list(ids[start : start + CHUNK])


def _read(connection: Connection, part: Part, column: str, ids: Sequence[int]) -> list[Any]:
    """The rows of ``part`` whose ``column`` is one of ``ids``, by id."""
    table = part.table
    chosen = [table.c[name] for name in part.travelling]
    key = table.c["id"] if "id" in table.c else table.c[part.scope]
    found: list[Any] = []
    for chunk in _chunks(ids):
        found.extend(
            connection.execute(select(*chosen).where(table.c[column].in_(chunk)).order_by(key))
        )
    return found


def _group(part: Part, rows: list[Any], by: str) -> dict[int, list[list[Any]]]:
    index = part.travelling.index(by)
    out: dict[int, list[list[Any]]] = {}
    for row in rows:
        out.setdefault(int(row[index]), []).append([_encode(v) for v in row])
    return out


def read_series(connection: Connection, ids: Sequence[int]) -> dict[int, Unit]:
    """The series units ``ids`` as the hall holds them (the connection's snapshot)."""
    series, people = SERIES
    units = {i: Unit("s", i) for i in ids}
    for unit_id, rows in _group(series, _read(connection, series, "id", ids), "id").items():
        units[unit_id].rows[series.name] = rows
    for unit_id, rows in _group(
        people, _read(connection, people, "series_id", ids), "series_id"
    ).items():
        units[unit_id].rows[people.name] = rows
    return {i: u for i, u in units.items() if u.rows.get(series.name)}


def read_tournaments(connection: Connection, ids: Sequence[int]) -> dict[int, Unit]:
    """The tournament units ``ids`` (each with the ids of its tables' matches)."""
    tournament, entrants, rounds, redrawn, online = TOURNAMENT
    units = {i: Unit("t", i, tables=[]) for i in ids}
    for part in (tournament, entrants, rounds, online):
        column = "id" if part is tournament else "tournament_id"
        for unit_id, rows in _group(part, _read(connection, part, column, ids), column).items():
            units[unit_id].rows[part.name] = rows
    round_rows = _read(connection, rounds, "tournament_id", ids)
    owner = {int(r.id): int(r.tournament_id) for r in round_rows}
    for round_id, rows in _group(
        redrawn, _read(connection, redrawn, "round_id", list(owner)), "round_id"
    ).items():
        units[owner[round_id]].rows.setdefault(redrawn.name, []).extend(rows)
    tables = _table(TournamentTable)
    for chunk in _chunks(list(owner)):
        found = connection.execute(
            select(tables.c.round_id, tables.c.match_id)
            .where(tables.c.round_id.in_(chunk))
            .order_by(tables.c.match_id)
        )
        for round_id, match_id in found:
            tables_of = units[owner[int(round_id)]].tables
            assert tables_of is not None
            tables_of.append(int(match_id))
    return {i: u for i, u in units.items() if u.rows.get(tournament.name)}


def read_tables(connection: Connection, match_ids: Sequence[int]) -> dict[int, Unit]:
    """The table units of these matches (a match outside a tournament is none)."""
    session, match, table, seats, hands, parties, melds, events, confirmations, retired = TABLE
    units = {i: Unit("m", i) for i in match_ids}
    match_rows = _read(connection, match, "id", match_ids)
    for unit_id, rows in _group(match, match_rows, "id").items():
        units[unit_id].rows[match.name] = rows
    session_of = {int(r.session_id): int(r.id) for r in match_rows}
    for session_id, rows in _group(
        session, _read(connection, session, "id", list(session_of)), "id"
    ).items():
        units[session_of[session_id]].rows[session.name] = rows
    table_rows = _read(connection, table, "match_id", match_ids)
    for part, found in ((table, table_rows), (seats, None), (hands, None), (retired, None)):
        rows = found if found is not None else _read(connection, part, "match_id", match_ids)
        for unit_id, grouped in _group(part, rows, "match_id").items():
            units[unit_id].rows[part.name] = grouped
    hand_of = {
        int(row[0]): int(row[1])
        for chunk in _chunks(list(match_ids))
        for row in connection.execute(
            select(hands.table.c.id, hands.table.c.match_id).where(
                hands.table.c.match_id.in_(chunk)
            )
        )
    }
    for part in (parties, melds, events):
        for hand_id, rows in _group(
            part, _read(connection, part, "hand_id", list(hand_of)), "hand_id"
        ).items():
            units[hand_of[hand_id]].rows.setdefault(part.name, []).extend(rows)
    table_of = {int(r.id): int(r.match_id) for r in table_rows}
    for table_id, rows in _group(
        confirmations, _read(connection, confirmations, "table_id", list(table_of)), "table_id"
    ).items():
        units[table_of[table_id]].rows[confirmations.name] = rows
    return {i: u for i, u in units.items() if u.rows.get(table.name) and u.rows.get(match.name)}


# -- the spare's side: every value checked ----------------------------------------------------


def _refuse(part: Part, column: str, why: str) -> Refused:
    return Refused(f"{part.name}.{column}: {why}")


def _value(part: Part, name: str, value: Any) -> Any:
    """A value of the column ``name`` as the database takes it, or Refused."""
    column = part.table.c[name]
    kind = column.type
    if value is None:
        if not column.nullable:
            raise _refuse(part, name, "missing")
        return None
    if isinstance(kind, Boolean):
        if not isinstance(value, bool):
            raise _refuse(part, name, "not true or false")
        return value
    if isinstance(kind, Integer):
        if not isinstance(value, int) or isinstance(value, bool) or abs(value) > BIGGEST:
            raise _refuse(part, name, "not a whole number")
        return value
    if isinstance(kind, DateTime):
        try:
            moment = datetime.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            moment = None
        if moment is None or moment.tzinfo is not None or len(value) > 32:
            raise _refuse(part, name, "not a time")
        return moment
    if isinstance(kind, String):
        if not isinstance(value, str) or (kind.length is not None and len(value) > kind.length):
            raise _refuse(part, name, "not a text of its length")
        if "\x00" in value or not _encodable(value):
            raise _refuse(part, name, "a text with NUL or a lone surrogate")
        return value
    if isinstance(kind, JSON):
        _check_json(part, name, value)
        return value
    raise _refuse(part, name, "a column of a kind that does not travel")  # pragma: no cover


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_json(part: Part, name: str, value: Any) -> None:
    """A JSON column's value: texts without NUL or lone surrogates, at any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item or not _encodable(item):
                raise _refuse(part, name, "a text with NUL or a lone surrogate")
        elif isinstance(item, dict):
            for key, inner in item.items():
                stack.extend((key, inner))
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float) and item != item:  # pragma: no cover - JSON has no NaN
            raise _refuse(part, name, "not a number")


def decode(
    kind: str, unit_id: int, rows: Any, known: dict[str, list[str]]
) -> dict[str, list[dict[str, Any]]]:
    """A unit's rows as dictionaries by column, every value checked, or Refused.

    ``known``: the column names the push says it sends per table (they must be this
    release's).  Every row must belong to the unit (its scope column names the unit, or
    one of the unit's own rows).
    """
    if not isinstance(rows, dict):
        raise Refused(f"{kind} {unit_id}: not a unit")
    out: dict[str, list[dict[str, Any]]] = {}
    for part in PARTS[kind]:
        names = list(part.travelling)
        if known.get(part.name) != names:
            raise Refused(f"{part.name}: other columns than this release's")
        found = rows.get(part.name, [])
        if not isinstance(found, list):
            raise Refused(f"{part.name}: not a list of rows")
        checked = []
        for row in found:
            if not isinstance(row, list) or len(row) != len(names):
                raise Refused(f"{part.name}: a row of another shape")
            checked.append({n: _value(part, n, v) for n, v in zip(names, row, strict=True)})
        out[part.name] = checked
    unknown = set(rows) - {p.name for p in PARTS[kind]}
    if unknown:
        raise Refused(f"{kind} {unit_id}: tables that are not part of it: {sorted(unknown)[:3]}")
    _check_scope(kind, unit_id, out)
    return out


def _ids(rows: list[dict[str, Any]]) -> set[int]:
    return {int(r["id"]) for r in rows}


def _all_in(rows: list[dict[str, Any]], column: str, allowed: set[int], what: str) -> None:
    for row in rows:
        if row[column] not in allowed:
            raise Refused(f"{what}: a row of another unit")


def _check_scope(kind: str, unit_id: int, rows: dict[str, list[dict[str, Any]]]) -> None:
    """Every row names its unit (or a row of it): a unit never writes another's rows."""
    own = {unit_id}
    if kind == "s":
        series, people = SERIES
        if len(rows[series.name]) != 1:
            raise Refused(f"series {unit_id}: not one series row")
        _all_in(rows[series.name], "id", own, series.name)
        _all_in(rows[people.name], "series_id", own, people.name)
    elif kind == "t":
        tournament, entrants, rounds, redrawn, online = TOURNAMENT
        if len(rows[tournament.name]) != 1:
            raise Refused(f"tournament {unit_id}: not one tournament row")
        _all_in(rows[tournament.name], "id", own, tournament.name)
        for part in (entrants, rounds, online):
            _all_in(rows[part.name], "tournament_id", own, part.name)
        _all_in(rows[redrawn.name], "round_id", _ids(rows[rounds.name]), redrawn.name)
    else:
        session, match, table, seats, hands, parties, melds, events, confirmations, retired = TABLE
        if len(rows[match.name]) != 1 or len(rows[table.name]) != 1 or len(rows[session.name]) != 1:
            raise Refused(f"table {unit_id}: not one match, table and session")
        _all_in(rows[match.name], "id", own, match.name)
        _all_in(rows[session.name], "id", {rows[match.name][0]["session_id"]}, session.name)
        for part in (table, seats, hands, retired):
            _all_in(rows[part.name], "match_id", own, part.name)
        hand_ids = _ids(rows[hands.name])
        for part in (parties, melds, events):
            _all_in(rows[part.name], "hand_id", hand_ids, part.name)
        _all_in(rows[confirmations.name], "table_id", _ids(rows[table.name]), confirmations.name)
