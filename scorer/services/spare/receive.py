"""The spare's side: pairing with a hall, taking its pushes, what it holds.

A spare is a second installation on the hall's network with an empty database
(:func:`holds_anything`).  The organiser types the hall's pairing line into the
spare's page; the spare proves to the hall that it knows the line's code
(:mod:`.feed`, ``pair``) and both derive the key of the evening from it — the
code itself never travels.  From then on the hall pushes what changed
(:func:`take`): signed with that key, numbered, of the hall's generation.  A
push is taken only when all of it is checked (:func:`scorer.services.spare.rows.decode`)
and then written in one transaction: the spare holds a consistent state of
every group, or the one before.

After a takeover (:mod:`.takeover`) this laptop is the hall: a push of the old
one is answered "taken over" (409, with this hall's generation), which is how
the old laptop learns it was replaced and stops writing.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update

from ...extensions import db
from ...hall_models import SpareFollow, SpareUnit
from ...models import GameSession, new_token, utcnow
from ...tournament_models import PublicSnapshot, Round, Series, Tournament, TournamentTable
from ..online.signing import body_hash, signed
from ..unit import machinery
from . import role as roles
from .rows import PARTS, SERIES, TABLE, TOURNAMENT, Part, Refused, columns, decode

FORMAT = "scorer-spare"
MOST_UNPACKED = 512 * 1024 * 1024
"""Bytes a push may unpack to (a whole hall of big tournaments fits; a zip bomb does not)."""
ROW = 1

Key = tuple[str, int]


class Rejected(Exception):
    """A request of a hall this spare does not take: ``status`` and ``why`` are the answer.

    ``taken_over``: this laptop took over (the hall that asks was replaced): since
    ``since``, as generation ``generation``.
    """

    def __init__(
        self,
        status: int,
        why: str,
        *,
        taken_over: bool = False,
        generation: int = 0,
        since: datetime | None = None,
    ) -> None:
        super().__init__(why)
        self.status, self.why = status, why
        self.taken_over, self.generation, self.since = taken_over, generation, since

    def answer(self) -> dict[str, Any]:
        out: dict[str, Any] = {"why": self.why}
        if self.taken_over:
            out.update(
                taken_over=True,
                generation=self.generation,
                since=self.since.isoformat(timespec="seconds") if self.since else None,
            )
        return out


def holds_anything() -> bool:
    """Whether this laptop holds a match, a tournament or a series of its own (a spare
    must not: it copies the hall with the hall's own row ids)."""
    for model in (GameSession, Tournament, Series):
        if db.session.execute(select(model.id).limit(1)).first() is not None:
            return True
    return False


def following() -> SpareFollow | None:
    """The hall this laptop follows (or followed, before it took over), if any."""
    return db.session.get(SpareFollow, ROW)


@machinery
def follow(hall_address: str, hall_token: str, key: str, generation: int, cards: str) -> None:
    """Become the spare of the hall at ``hall_address`` (its pairing done), committed."""
    state = roles.state_row()
    row = db.session.get(SpareFollow, ROW)
    if row is None:
        row = SpareFollow(id=ROW, hall_address="", hall_token="", key="")
        db.session.add(row)
    row.hall_address, row.hall_token, row.key = hall_address, hall_token, key
    row.generation, row.seq, row.digest, row.cards = generation, 0, "", cards[:300]
    row.paired_at, row.received_at, row.hall_time, row.hall_change = utcnow(), None, None, None
    db.session.execute(delete(SpareUnit))
    state.role, state.since = roles.SPARE, utcnow()


def _verified(kind: str, generation: int, seq: int, body: bytes, given: str) -> SpareFollow:
    """The follow row when the request is signed with its key, else Rejected; a laptop
    that took over answers that (409) to a hall it followed."""
    row = following()
    state = roles.current()
    if row is None or not row.key:
        raise Rejected(404, "this laptop is not a spare")
    if not signed(row.key, given, kind, generation, seq, body_hash(body)):
        raise Rejected(403, "not signed with the key of the pairing")
    if state.role == roles.HALL:
        raise Rejected(
            409,
            "the spare has taken over",
            taken_over=True,
            generation=state.generation,
            since=state.since,
        )
    if state.role != roles.SPARE or generation != row.generation:
        raise Rejected(409, "this spare follows another hall")
    return row


@machinery
def hello(generation: int, body: bytes, given: str) -> dict[str, Any]:
    """A hall asks what this spare holds: the last push taken and every unit's fingerprint."""
    row = _verified("hello", generation, 0, body, given)
    units = db.session.execute(select(SpareUnit.kind, SpareUnit.unit_id, SpareUnit.fingerprint))
    return {
        "seq": row.seq,
        "units": {f"{kind}:{unit_id}": fingerprint for kind, unit_id, fingerprint in units},
    }


def unpack(body: bytes) -> dict[str, Any]:
    """A push's JSON (zlib), bounded and strict; Refused when it is not one."""
    unpacker = zlib.decompressobj()
    try:
        raw = unpacker.decompress(body, MOST_UNPACKED)
    except zlib.error:
        raise Refused("not a push (zlib)") from None
    if unpacker.unconsumed_tail:
        raise Refused("the push unpacks to too much")

    def constant(name: str) -> Any:
        raise ValueError(name)

    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Refused("not a push (JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise Refused("not a push of a hall")
    return data


@dataclass(frozen=True)
class Taken:
    seq: int
    units: int
    fresh: bool


def _time(value: Any) -> datetime | None:
    if value is None:
        return None
    try:
        moment = (
            datetime.fromisoformat(value) if isinstance(value, str) and len(value) < 40 else None
        )
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is not None:
        raise Refused("not a time")
    return moment


@machinery
def take(generation: int, seq: int, body: bytes, given: str) -> Taken:
    """Take a push of the hall this spare follows: all of it, or Rejected/Refused.

    A push sent again (same number, same body) is answered as taken; an older one is
    refused.  Everything is checked before the first row is written.
    """
    row = _verified("push", generation, seq, body, given)
    digest = body_hash(body)
    if seq <= row.seq:
        if seq == row.seq and digest == row.digest:
            return Taken(seq, 0, fresh=False)
        raise Rejected(409, "this spare holds a newer push")
    data = unpack(body)
    known = data.get("columns")
    if not isinstance(known, dict) or known != columns():
        raise Refused("the hall runs another release of scorer: install the same on both")
    units, gone = _checked(data, known)
    hall_time, hall_change = _time(data.get("hall_time")), _time(data.get("hall_change"))
    cards = data.get("cards")
    if not isinstance(cards, str) or len(cards) > 300 or not cards.isprintable():
        raise Refused("not an address")
    _write(units, gone)
    row.seq, row.digest, row.received_at = seq, digest, utcnow()
    row.hall_time, row.hall_change, row.cards = hall_time, hall_change, cards
    return Taken(seq, len(units), fresh=True)


@dataclass(frozen=True)
class _Checked:
    kind: str
    id: int
    fingerprint: str
    rows: dict[str, list[dict[str, Any]]]
    tables: list[int] | None


def _checked(data: dict[str, Any], known: dict[str, list[str]]) -> tuple[list[_Checked], list[Key]]:
    units = data.get("units")
    gone = data.get("gone")
    if not isinstance(units, list) or not isinstance(gone, list):
        raise Refused("not a push of a hall")
    out = []
    seen: set[Key] = set()
    for unit in units:
        if not isinstance(unit, dict):
            raise Refused("not a unit")
        kind, unit_id, fingerprint = unit.get("kind"), unit.get("id"), unit.get("fingerprint")
        if (
            not isinstance(kind, str)
            or kind not in PARTS
            or not isinstance(unit_id, int)
            or not _whole(unit_id)
            or not isinstance(fingerprint, str)
            or not _fingerprint(fingerprint)
        ):
            raise Refused("not a unit")
        if (kind, unit_id) in seen:
            raise Refused("a unit twice in one push")
        seen.add((kind, unit_id))
        tables = unit.get("tables")
        if kind == "t" and (not isinstance(tables, list) or not all(_whole(t) for t in tables)):
            raise Refused(f"tournament {unit_id}: no list of its tables")
        rows = decode(kind, unit_id, unit.get("rows"), known)
        out.append(_Checked(kind, unit_id, fingerprint, rows, tables if kind == "t" else None))
    keys = []
    for item in gone:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or item[0] not in PARTS
            or not _whole(item[1])
        ):
            raise Refused("not a unit gone")
        keys.append((item[0], item[1]))
    return out, keys


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63


def _fingerprint(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 64 and value.isalnum()


# -- writing a checked push -----------------------------------------------------------------


def _ids_where(part: Part, column: str, values: list[int]) -> set[int]:
    if not values:
        return set()
    table = part.table
    found = db.session.execute(select(table.c.id).where(table.c[column].in_(values))).scalars()
    return {int(v) for v in found}


def _keep(part: Part, unit_id: int, rows: list[dict[str, Any]]) -> set[int]:
    """Rows updated in place (other units' rows refer to them); the ids here that the hall
    has no more (removed after the units that refer to them are written)."""
    table = part.table
    existing = _ids_where(part, part.scope, [unit_id])
    changed = [r for r in rows if r["id"] in existing]
    new = [r for r in rows if r["id"] not in existing]
    if changed:
        names = [n for n in part.travelling if n != "id"]
        db.session.connection().execute(
            update(table)
            .where(table.c.id == bindparam("row_id"))
            .values({n: bindparam(f"new_{n}") for n in names}),
            [{"row_id": r["id"], **{f"new_{n}": r[n] for n in names}} for r in changed],
        )
    if new:
        db.session.connection().execute(insert(table), new)
    return existing - {r["id"] for r in rows}


def _online(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An online connection as a spare holds it: where and the key; nothing sent from here
    yet (on a takeover it connects anew, and the hosted copy follows the new hall)."""
    now = utcnow()
    return [
        {
            **r,
            "hall": new_token(),
            "generation": None,
            "seq": 0,
            "confirmed": 0,
            "confirmed_digest": "",
            "confirmed_at": None,
            "tried_at": None,
            "error": "",
            "created_at": now,
        }
        for r in rows
    ]


def _write(units: list[_Checked], gone: list[Key]) -> None:
    connection = db.session.connection()
    later: list[tuple[Part, set[int]]] = []
    tables_gone: list[int] = []
    for unit in (u for u in units if u.kind == "s"):
        for part in SERIES:
            later.append((part, _keep(part, unit.id, unit.rows[part.name])))
    for unit in (u for u in units if u.kind == "t"):
        tournament, entrants, rounds, redrawn, online = TOURNAMENT
        for part in (tournament, entrants, rounds):
            later.append((part, _keep(part, unit.id, unit.rows[part.name])))
        round_ids = list(_ids_where(rounds, "tournament_id", [unit.id]))
        connection.execute(delete(redrawn.table).where(redrawn.table.c.round_id.in_(round_ids)))
        _insert(redrawn, unit.rows[redrawn.name])
        connection.execute(delete(online.table).where(online.table.c.tournament_id == unit.id))
        _insert(online, _online(unit.rows[online.name]))
        held = _tables_of(unit.id)
        tables_gone.extend(sorted(set(held) - set(unit.tables or [])))
    matches = [u for u in units if u.kind == "m"]
    remove_tables([u.id for u in matches])
    for part in TABLE:
        _insert(part, [row for u in matches for row in u.rows[part.name]])
    # what the hall has no more: the rows that refer to others first
    remove_tables(tables_gone + [unit_id for kind, unit_id in gone if kind == "m"])
    for kind, unit_id in gone:
        if kind == "t":
            remove_tournament(unit_id)
    for part, ids in reversed(later):
        if ids:
            connection.execute(delete(part.table).where(part.table.c.id.in_(sorted(ids))))
    for kind, unit_id in gone:
        if kind == "s":
            for part in reversed(SERIES):
                connection.execute(delete(part.table).where(part.table.c[part.scope] == unit_id))
    held_units = [(u.kind, u.id, u.fingerprint) for u in units]
    dropped = gone + [("m", m) for m in tables_gone]
    for kind, unit_id in dropped + [(k, i) for k, i, _ in held_units]:
        connection.execute(
            delete(SpareUnit.__table__).where(
                SpareUnit.__table__.c.kind == kind, SpareUnit.__table__.c.unit_id == unit_id
            )
        )
    if held_units:
        connection.execute(
            insert(SpareUnit.__table__),
            [{"kind": k, "unit_id": i, "fingerprint": f} for k, i, f in held_units],
        )


def _insert(part: Part, rows: list[dict[str, Any]]) -> None:
    if rows:
        db.session.connection().execute(insert(part.table), rows)


def _tables_of(tournament_id: int) -> list[int]:
    found = db.session.execute(
        select(TournamentTable.match_id)
        .join(Round, Round.id == TournamentTable.round_id)
        .where(Round.tournament_id == tournament_id)
    ).scalars()
    return [int(m) for m in found]


def remove_tables(match_ids: list[int]) -> None:
    """Remove these tables with their matches, sessions and every row of theirs."""
    if not match_ids:
        return
    connection = db.session.connection()
    session, match, table, seats, hands, parties, melds, events, confirmations, retired = TABLE
    for start in range(0, len(match_ids), 400):
        chunk = match_ids[start : start + 400]
        hand_ids = select(hands.table.c.id).where(hands.table.c.match_id.in_(chunk))
        table_ids = select(table.table.c.id).where(table.table.c.match_id.in_(chunk))
        sessions = list(
            connection.execute(
                select(match.table.c.session_id).where(match.table.c.id.in_(chunk))
            ).scalars()
        )
        for part in (parties, melds, events):
            connection.execute(delete(part.table).where(part.table.c.hand_id.in_(hand_ids)))
        connection.execute(
            delete(confirmations.table).where(confirmations.table.c.table_id.in_(table_ids))
        )
        for part in (retired, seats, hands, table):
            connection.execute(delete(part.table).where(part.table.c.match_id.in_(chunk)))
        connection.execute(delete(match.table).where(match.table.c.id.in_(chunk)))
        connection.execute(delete(session.table).where(session.table.c.id.in_(sessions)))


def remove_tournament(tournament_id: int) -> None:
    """Remove a tournament this spare holds, with every row of it."""
    connection = db.session.connection()
    remove_tables(_tables_of(tournament_id))
    tournament, entrants, rounds, redrawn, online = TOURNAMENT
    round_ids = select(rounds.table.c.id).where(rounds.table.c.tournament_id == tournament_id)
    connection.execute(delete(redrawn.table).where(redrawn.table.c.round_id.in_(round_ids)))
    connection.execute(delete(online.table).where(online.table.c.tournament_id == tournament_id))
    snapshots = PublicSnapshot.__table__
    connection.execute(delete(snapshots).where(snapshots.c.tournament_id == tournament_id))
    for part in (rounds, entrants):
        connection.execute(delete(part.table).where(part.table.c.tournament_id == tournament_id))
    connection.execute(delete(tournament.table).where(tournament.table.c.id == tournament_id))


def holdings() -> dict[Key, str]:
    """What this spare holds: every unit's fingerprint."""
    found = db.session.execute(select(SpareUnit.kind, SpareUnit.unit_id, SpareUnit.fingerprint))
    return {(kind, unit_id): fingerprint for kind, unit_id, fingerprint in found}


def held_tournaments() -> list[Tournament]:
    """The tournaments this laptop holds, the newest first (the spare's page lists them)."""
    return list(db.session.execute(select(Tournament).order_by(Tournament.id.desc())).scalars())
