"""Export and import of sessions as JSON, and the sheet of a match as CSV.

The backup format is versioned::

    {"format": "scorer-backup", "version": 1, "exported_at": "...",
     "sessions": [{"token": ..., "matches": [{"ruleset": {...}, "seats": [...],
                   "hands": [{..., "parties": [...], "meld_log": [...],
                              "events": [...]}]}]}]}

Decisions (also in the README):

* **Nothing from the file is trusted.**  Every field is checked for its type
  and range; the ruleset goes through ``Ruleset.from_dict``; every closed hand
  is settled again from what was *entered* (declarer, bid, trump, outcome,
  melds, trick points) with the same code path as the hand form
  (:func:`scorer.services.settle_input`), and the file's points must agree
  with the rules — a tampered number refuses the whole file.  Winners and the
  end of a match are recomputed, never read.
* **Tokens are kept** so that shared links keep working after a move to
  another installation — unless a token is already used here (or is not a
  22–32 character URL-safe token): then that session or match gets a new one.
* **All or nothing**: :func:`load` only adds rows to the database session;
  the caller (``services.import_backup``) commits once or rolls back.
* The hand history (``events``) travels with the hands; its snapshots are
  rebuilt from checked values only.
* **Limits** keep an import to what the app can serve: :data:`MAX_HANDS` a
  match, :data:`MAX_SESSION_HANDS` a session, :data:`MAX_FILE_HANDS` a file,
  and a session whose compact export (:func:`dumps`) would pass
  :data:`MAX_SESSION_BYTES`, so that every imported session can be exported and
  uploaded again through the web import (``MAX_CONTENT_LENGTH``).  The file is
  strict JSON (no ``NaN``/``Infinity``, at most :data:`MAX_DEPTH` levels), and
  no text anywhere may hold control characters, NUL or lone surrogates.

CSV: one line per hand, semicolons (German Excel opens it with a double
click; LibreOffice and Numbers detect it), UTF-8 with a byte order mark so
Excel reads the umlauts, CRLF line ends, numbers as plain integers with a
minus sign (a spreadsheet cannot add up bracketed losses).  A text cell that a
spreadsheet would take for a formula (a player called ``=HYPERLINK(…)``) gets a
leading apostrophe (OWASP, "CSV injection"); numbers stay numbers.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from flask_babel import gettext as _
from sqlalchemy import select

from . import services
from .extensions import db
from .models import GameSession, Hand, HandEvent, HandMeld, Match, Seat, new_token
from .rules import (
    BASES,
    OUTCOMES,
    SPECIAL_GAMES,
    RulesError,
    Ruleset,
    available_melds,
    check_table,
    party_of_seat,
)

FORMAT = "scorer-backup"
VERSION = 1

MAX_SESSIONS = 2000
MAX_MATCHES = 200
MAX_HANDS = services.MAX_MATCH_HANDS
"""Hands of one match in a file."""
MAX_SESSION_HANDS = 1000
"""Hands of one session, over all its matches."""
MAX_FILE_HANDS = 2000
"""Hands of a whole file."""
MAX_SESSION_BYTES = 2_000_000
"""The compact export of one imported session: it must fit the web import
(``MAX_CONTENT_LENGTH``, 2 MiB) with room for the envelope and the upload's headers."""
MAX_DEPTH = 20
"""Nesting of arrays and objects; a backup needs about a dozen levels."""
MAX_LOG = 200
MAX_MELD_NAMES = 40
"""Meld names of one party in a hand, each at most 40 characters (as the hand form keeps them)."""
MAX_POINTS = 10_000
MAX_HAND_POINTS = 2**31 - 1
"""A hand's points are the rules' business; this only keeps them to the database's integers."""
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{22,32}")
# control characters other than tab, line feed and carriage return, and lone surrogates:
# PostgreSQL refuses NUL, and a surrogate cannot be written as UTF-8
BAD_TEXT_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
EARLIEST = datetime(1970, 1, 1)
EVENT_ACTIONS = ("created", "corrected", "deleted", "restored")


class BackupError(ValueError):
    """The file cannot be imported; the message is in the user's language."""


# -- export -------------------------------------------------------------------


def dumps(data: dict[str, Any]) -> str:
    """A backup as compact JSON text (no indentation: the biggest session fits the web import)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds")


def export_sessions(rows: Iterable[GameSession]) -> dict[str, Any]:
    """The backup of the given sessions, as plain JSON values."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": _time(datetime.now(UTC).replace(tzinfo=None)),
        "sessions": [_session(row) for row in rows],
    }


def export_all() -> dict[str, Any]:
    """Every session of this installation (the command line's ``backup export``)."""
    rows = db.session.execute(select(GameSession).order_by(GameSession.id)).scalars()
    return export_sessions(rows)


def _session(row: GameSession) -> dict[str, Any]:
    return {
        "token": row.token,
        "view_token": row.view_token,
        "title": row.title,
        "created_at": _time(row.created_at),
        "updated_at": _time(row.updated_at),
        "stake_cents": row.stake_cents,
        "stake_basis": row.stake_basis,
        "matches": [_match(m) for m in row.matches],
    }


def _match(match: Match) -> dict[str, Any]:
    return {
        "number": match.number,
        "token": match.token,
        "view_token": match.view_token,
        "ruleset": dict(match.ruleset),
        "first_dealer": match.first_dealer,
        "created_at": _time(match.created_at),
        "updated_at": _time(match.updated_at),
        "finished_at": _time(match.finished_at),
        "seats": [{"name": s.name, "party": s.party} for s in match.seats],
        "hands": [_hand(h) for h in match.hands],
    }


def _hand(hand: Hand) -> dict[str, Any]:
    return {
        "seq": hand.seq,
        "dealer_seat": hand.dealer_seat,
        "declarer": hand.declarer_party,
        "bid": hand.bid,
        "trump": hand.trump,
        "outcome": hand.outcome,
        "won": hand.won,
        "status": hand.status,
        "ended_mid_hand": hand.ended_mid_hand,
        "created_at": _time(hand.created_at),
        "updated_at": _time(hand.updated_at),
        "deleted_at": _time(hand.deleted_at),
        "parties": services.party_lines(hand),
        "meld_log": [
            {
                "party": m.party,
                "name": m.name,
                "points": m.points,
                "created_at": _time(m.created_at),
            }
            for m in hand.meld_log
        ],
        "events": [
            {"action": e.action, "created_at": _time(e.created_at), "snapshot": e.snapshot}
            for e in hand.events
        ],
    }


# -- checking values ------------------------------------------------------------


class _Reader:
    """Typed access to one JSON object, with the place it came from for messages."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise BackupError(_("%(where)s: expected an object", where=where))
        self.data = data
        self.where = where

    def fail(self, key: str) -> BackupError:
        return BackupError(
            _("%(where)s: '%(key)s' is missing or invalid", where=self.where, key=key)
        )

    def get_int(self, key: str, low: int, high: int, *, optional: bool = False) -> Any:
        value = self.data.get(key)
        if value is None and optional:
            return None
        if type(value) is not int or not low <= value <= high:
            raise self.fail(key)
        return value

    def get_bool(self, key: str, *, optional: bool = False) -> Any:
        value = self.data.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, bool):
            raise self.fail(key)
        return value

    def get_str(
        self, key: str, longest: int, *, optional: bool = False, choices: Sequence[str] = ()
    ) -> Any:
        value = self.data.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, str) or len(value) > longest or BAD_TEXT_RE.search(value):
            raise self.fail(key)
        if choices and value not in choices:
            raise self.fail(key)
        return value

    def get_time(self, key: str, *, optional: bool = False) -> Any:
        value = self.data.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, str) or len(value) > 40:
            raise self.fail(key)
        try:
            parsed = datetime.fromisoformat(value)
            if parsed.tzinfo is not None:
                parsed = parsed.astimezone(UTC).replace(tzinfo=None)
        except (ValueError, OverflowError):  # year 1 at +01:00 is before the year 1 in UTC
            raise self.fail(key) from None
        if parsed < EARLIEST:
            raise self.fail(key)
        return parsed

    def get_list(self, key: str, longest: int) -> list[Any]:
        value = self.data.get(key, [])
        if not isinstance(value, list) or len(value) > longest:
            raise self.fail(key)
        return value


class _Tokens:
    """Keeps the file's tokens unless they are malformed or already taken here."""

    def __init__(self) -> None:
        self.taken: dict[str, set[str]] = {}

    def _used(self, column: Any) -> set[str]:
        key = str(column)
        if key not in self.taken:
            self.taken[key] = set(db.session.execute(select(column)).scalars())
        return self.taken[key]

    def pick(self, wanted: Any, column: Any) -> tuple[str, bool]:
        """The token to use and whether it is the file's own."""
        used = self._used(column)
        kept = isinstance(wanted, str) and bool(TOKEN_RE.fullmatch(wanted)) and wanted not in used
        token = wanted if kept else new_token()
        while token in used:
            token = new_token()
        used.add(token)
        return token, kept


# -- import ---------------------------------------------------------------------


def parse(raw: bytes | str) -> dict[str, Any]:
    """The JSON of an uploaded file, checked to be a scorer backup of a known version."""
    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
        data = json.loads(text, parse_constant=_no_constant)
    except BackupError:
        raise
    except RecursionError:
        raise BackupError(_too_deep()) from None
    except (UnicodeDecodeError, ValueError):
        raise BackupError(_("This file is not JSON.")) from None
    _check_values(data)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BackupError(_("This file is not a scorer backup."))
    if data.get("version") != VERSION:
        raise BackupError(
            _(
                "This backup has format version %(version)s; this installation reads version "
                "%(known)s.",
                version=str(data.get("version"))[:20],
                known=VERSION,
            )
        )
    return data


def _no_constant(name: str) -> Any:
    """``NaN``, ``Infinity``: Python's json reads them, JSON has no such numbers."""
    raise BackupError(
        _("This file holds the number %(name)s, which JSON does not know.", name=name)
    )


def _too_deep() -> str:
    return _(
        "This file is nested more than %(depth)s levels deep; a backup needs about a dozen.",
        depth=MAX_DEPTH,
    )


def _check_values(data: Any) -> None:
    """Refuse deep nesting and text no database can keep, anywhere in the file.

    One walk without recursion; the place of a bad text is named like
    ``sessions.0.matches.1.seats.2.name``.
    """
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if BAD_TEXT_RE.search(value):
                raise BackupError(
                    _(
                        "%(field)s: control characters, NUL and broken Unicode are not "
                        "allowed in a text",
                        field=".".join(str(p) for p in path) or "-",
                    )
                )
        elif isinstance(value, dict | list):
            if len(path) >= MAX_DEPTH:
                raise BackupError(_too_deep())
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str):
                    stack.append((key, path))  # a key is a text too
                stack.append((item, (*path, key)))


def _count_hands(sessions: list[Any]) -> None:
    """Refuse a file with more hands than the app serves, before anything is checked in depth."""
    total = 0
    for number, item in enumerate(sessions, 1):
        matches = item.get("matches") if isinstance(item, dict) else None
        in_session = 0
        for index, match in enumerate(matches if isinstance(matches, list) else (), 1):
            hands = match.get("hands") if isinstance(match, dict) else None
            in_match = len(hands) if isinstance(hands, list) else 0
            if in_match > MAX_HANDS:
                raise BackupError(
                    _(
                        "session %(number)s, match %(match)s has %(count)s hands; a match can "
                        "hold at most %(limit)s.",
                        number=number,
                        match=index,
                        count=in_match,
                        limit=MAX_HANDS,
                    )
                )
            in_session += in_match
        if in_session > MAX_SESSION_HANDS:
            raise BackupError(
                _(
                    "session %(number)s has %(count)s hands; a session can hold at most %(limit)s.",
                    number=number,
                    count=in_session,
                    limit=MAX_SESSION_HANDS,
                )
            )
        total += in_session
    if total > MAX_FILE_HANDS:
        raise BackupError(
            _(
                "This file has %(count)s hands; one import takes at most %(limit)s. Export "
                "fewer sessions at a time.",
                count=total,
                limit=MAX_FILE_HANDS,
            )
        )


def load(data: dict[str, Any]) -> list[GameSession]:
    """Add the sessions of a checked backup to the database session (no commit).

    Raises :class:`BackupError` with a message in the user's language; the
    caller rolls back.
    """
    top = _Reader(data, _("backup"))
    sessions = top.get_list("sessions", MAX_SESSIONS)
    if not sessions:
        raise BackupError(_("The backup holds no sessions."))
    _count_hands(sessions)
    tokens = _Tokens()
    rows = []
    for number, item in enumerate(sessions, 1):
        rows.append(_load_session(item, number, tokens))
    return rows


def _load_session(item: Any, number: int, tokens: _Tokens) -> GameSession:
    r = _Reader(item, _("session %(number)s", number=number))
    token, _kept = tokens.pick(r.data.get("token"), GameSession.token)
    view_token, _kept = tokens.pick(r.data.get("view_token"), GameSession.view_token)
    row = GameSession(
        token=token,
        view_token=view_token,
        title=r.get_str("title", services.MAX_TITLE),
        created_at=r.get_time("created_at"),
        updated_at=r.get_time("updated_at", optional=True) or r.get_time("created_at"),
        stake_cents=r.get_int("stake_cents", 0, 100_000),
        stake_basis=r.get_str("stake_basis", 16, choices=BASES),
    )
    db.session.add(row)
    names: list[str] = []
    last_number = 0
    for index, match_item in enumerate(r.get_list("matches", MAX_MATCHES), 1):
        match = _load_match(match_item, r.where, index, tokens)
        if match.number <= last_number:
            raise BackupError(_("%(where)s: the matches are not in order", where=r.where))
        last_number = match.number
        row.matches.append(match)
        names.extend(s.name for s in match.seats)
    db.session.flush()
    for match in row.matches:
        _finish(match)
    size = len(dumps(_session(row)).encode("utf-8"))
    if size > MAX_SESSION_BYTES:
        raise BackupError(
            _(
                "%(where)s: its backup would take %(size)s bytes; a session may take at most "
                "%(limit)s (the size the import page accepts).",
                where=r.where,
                size=size,
                limit=MAX_SESSION_BYTES,
            )
        )
    services.remember_players(sorted(set(names)))
    return row


def _load_match(item: Any, where: str, index: int, tokens: _Tokens) -> Match:
    r = _Reader(item, _("%(where)s, match %(number)s", where=where, number=index))
    raw_rules = r.data.get("ruleset")
    if not isinstance(raw_rules, dict):
        raise r.fail("ruleset")
    try:
        ruleset = Ruleset.from_dict(raw_rules)
    except RulesError as exc:
        raise BackupError(f"{r.where}: {_message(exc)}") from None
    seats_in = r.get_list("seats", 8)
    if len(seats_in) != ruleset.players:
        raise BackupError(
            _(
                "%(where)s: the rules are for %(players)s players, the file has %(count)s",
                where=r.where,
                players=ruleset.players,
                count=len(seats_in),
            )
        )
    try:
        # the same checks of the table as the setup form
        check_table(ruleset, ruleset.players)
        expected = [party_of_seat(ruleset, s) for s in range(ruleset.players)]
    except RulesError as exc:
        raise BackupError(f"{r.where}: {_message(exc)}") from None
    seats = []
    for position, seat_item in enumerate(seats_in):
        s = _Reader(seat_item, _("%(where)s, seat %(number)s", where=r.where, number=position + 1))
        name = services.clean_name(s.get_str("name", services.MAX_NAME))
        if not name:
            raise s.fail("name")
        seats.append(Seat(position=position, name=name, party=s.get_int("party", 0, 7)))
    lowered = [s.name.lower() for s in seats]
    if len(set(lowered)) != len(lowered):
        raise BackupError(_("%(where)s: two seats have the same name", where=r.where))
    parties = sorted(s.party for s in seats)
    if parties != sorted(expected):
        raise BackupError(
            _("%(where)s: the seats do not make the teams of these rules", where=r.where)
        )
    token, _kept = tokens.pick(r.data.get("token"), Match.token)
    view_token, _kept = tokens.pick(r.data.get("view_token"), Match.view_token)
    match = Match(
        number=r.get_int("number", 1, MAX_MATCHES),
        token=token,
        view_token=view_token,
        ruleset=ruleset.to_dict(),
        first_dealer=r.get_int("first_dealer", 0, ruleset.players - 1),
        created_at=r.get_time("created_at"),
        updated_at=r.get_time("updated_at", optional=True) or r.get_time("created_at"),
        finished_at=r.get_time("finished_at", optional=True),
        version=1,
    )
    match.seats.extend(seats)
    last_seq = 0
    hands_in = r.get_list("hands", MAX_HANDS)
    for number, hand_item in enumerate(hands_in, 1):
        hand = _load_hand(match, ruleset, hand_item, r.where, number)
        if hand.seq <= last_seq:
            raise BackupError(_("%(where)s: the hands are not in order", where=r.where))
        if hand.status == "open" and number != len(hands_in):
            raise BackupError(
                _("%(where)s: only the last hand can still be in play", where=r.where)
            )
        last_seq = hand.seq
    return match


def _load_hand(match: Match, ruleset: Ruleset, item: Any, where: str, number: int) -> Hand:
    r = _Reader(item, _("%(where)s, hand %(number)s", where=where, number=number))
    parties = ruleset.parties
    outcome = r.get_str("outcome", 20, choices=OUTCOMES)
    status = r.get_str("status", 8, choices=("open", "closed"))
    ended_mid_hand = r.get_bool("ended_mid_hand", optional=True) or False
    trump = r.get_str("trump", 1, optional=True, choices=("E", "G", "H", "S"))
    hand = Hand(
        seq=r.get_int("seq", 1, 1_000_000),
        dealer_seat=r.get_int("dealer_seat", 0, ruleset.players - 1),
        outcome=outcome,
        status=status,
        trump=trump,
        ended_mid_hand=ended_mid_hand,
        created_at=r.get_time("created_at"),
        updated_at=r.get_time("updated_at", optional=True) or r.get_time("created_at"),
        deleted_at=r.get_time("deleted_at", optional=True),
    )
    match.hands.append(hand)
    known_melds = available_melds(ruleset) if ruleset.open_play else ()
    for entry in r.get_list("meld_log", MAX_LOG):
        m = _Reader(entry, _("%(where)s, meld", where=r.where))
        hand.meld_log.append(
            HandMeld(
                party=m.get_int("party", 0, parties - 1),
                # the two-player page offers the ruleset's melds only
                name=m.get_str("name", 40, choices=known_melds),
                points=m.get_int("points", 1, 5000),
                created_at=m.get_time("created_at", optional=True) or hand.created_at,
            )
        )
    if hand.meld_log and not ruleset.open_play:
        raise r.fail("meld_log")
    lines = r.get_list("parties", 8)
    if status == "open":
        if not ruleset.open_play or outcome != "open_play" or lines or ended_mid_hand:
            raise r.fail("status")
        return hand
    if len(lines) != parties:
        raise r.fail("parties")
    given_points = []
    given_stars = []
    data = services.HandInput(
        declarer=r.get_int("declarer", 0, parties - 1, optional=True),
        bid=r.get_int("bid", 0, MAX_POINTS),
        trump=trump,
        outcome=outcome,
        won=r.get_bool("won", optional=True) if outcome in SPECIAL_GAMES else None,
    )
    for party, line_item in enumerate(lines):
        p = _Reader(line_item, _("%(where)s, party %(number)s", where=r.where, number=party + 1))
        data.melds.append(p.get_int("melds", 0, MAX_POINTS))
        names = p.data.get("meld_names")
        if names is not None and (
            not isinstance(names, list)
            or len(names) > MAX_MELD_NAMES
            or not all(
                isinstance(n, str) and 0 < len(n) <= 40 and not BAD_TEXT_RE.search(n) for n in names
            )
        ):
            raise p.fail("meld_names")
        data.meld_names.append(names or None)
        data.tricks.append(p.get_int("tricks", 0, MAX_POINTS, optional=True))
        data.took_trick.append(p.get_bool("took_trick", optional=True))
        given_points.append(p.get_int("points", -MAX_HAND_POINTS, MAX_HAND_POINTS))
        given_stars.append(p.get_int("stars", 0, 100))
    try:
        if ended_mid_hand:
            if ruleset.end != "at_once" or outcome != "open_play":
                raise r.fail("ended_mid_hand")
            data.melds = services.open_hand_melds(hand, parties)
            data.tricks = [0] * parties
            settled = services.settle_mid_hand(match, data, hand)
        else:
            settled = services.settle_input(match, data, hand.dealer_seat)
    except RulesError as exc:
        raise BackupError(f"{r.where}: {_message(exc)}") from None
    if settled.points != given_points or settled.stars != given_stars:
        raise BackupError(
            _(
                "%(where)s: the file says %(given)s, the rules give %(settled)s for what was "
                "entered",
                where=r.where,
                given=" / ".join(str(v) for v in given_points),
                settled=" / ".join(str(v) for v in settled.points),
            )
        )
    services.write_settled(hand, settled)
    hand.created_at = r.get_time("created_at")
    hand.updated_at = r.get_time("updated_at", optional=True) or hand.created_at
    for event_item in r.get_list("events", MAX_LOG):
        hand.events.append(_load_event(event_item, r.where, parties))
    return hand


def _load_event(item: Any, where: str, parties: int) -> HandEvent:
    r = _Reader(item, _("%(where)s, history", where=where))
    raw = r.data.get("snapshot")
    snap = _Reader(raw, r.where)
    lines = []
    for line_item in snap.get_list("parties", parties):
        p = _Reader(line_item, r.where)
        lines.append(
            {
                "party": p.get_int("party", 0, parties - 1),
                "melds": p.get_int("melds", 0, MAX_POINTS, optional=True) or 0,
                "meld_names": None,
                "tricks": p.get_int("tricks", 0, MAX_POINTS, optional=True),
                "took_trick": p.get_bool("took_trick", optional=True),
                "points": p.get_int("points", -MAX_HAND_POINTS, MAX_HAND_POINTS),
                "stars": p.get_int("stars", 0, 100, optional=True) or 0,
            }
        )
    snapshot = {
        "declarer": snap.get_int("declarer", 0, parties - 1, optional=True),
        "bid": snap.get_int("bid", 0, MAX_POINTS, optional=True) or 0,
        "trump": snap.get_str("trump", 1, optional=True, choices=("E", "G", "H", "S")),
        "outcome": snap.get_str("outcome", 20, optional=True, choices=OUTCOMES),
        "won": snap.get_bool("won", optional=True),
        "made": snap.get_bool("made", optional=True),
        "parties": lines,
    }
    return HandEvent(
        action=r.get_str("action", 12, choices=EVENT_ACTIONS),
        created_at=r.get_time("created_at"),
        snapshot=snapshot,
    )


def _finish(match: Match) -> None:
    """Recompute the end and the winners of an imported match (never read from the file)."""
    try:
        services.refresh_end(match)
    except RulesError as exc:
        raise BackupError(_message(exc)) from None


def _message(exc: Exception) -> str:
    from .web import rules_message

    return rules_message(exc) if isinstance(exc, RulesError) else str(exc)


# -- CSV ------------------------------------------------------------------------


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_cell(value: Any) -> Any:
    """A cell as a spreadsheet should read it: text that starts like a formula is quoted.

    Numbers are written as they are (``-180`` stays a number).
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def sheet_csv(current: services.Sheet) -> bytes:
    """The sheet as CSV bytes: UTF-8 with BOM, semicolons, CRLF; heads in the user's language."""
    from .web import outcome_text

    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    head = [_("Hand"), _("Dealer"), _("Declarer"), _("Bid"), _("Trump"), _("Outcome")]
    for name in current.parties:
        head += [name, _("%(name)s total", name=name)]
    writer.writerow([csv_cell(cell) for cell in head])
    for row in current.rows:
        hand = row.hand
        line: list[Any] = [
            row.number,
            row.dealer,
            row.declarer or "",
            hand.bid or "",
            hand.trump or "",
            outcome_text(hand),
        ]
        for i, points in enumerate(row.points):
            line += ["" if row.sits_out[i] else points, row.totals[i]]
        writer.writerow([csv_cell(cell) for cell in line])
    total: list[Any] = [_("Total"), "", "", "", "", ""]
    for value in current.totals:
        total += ["", value]
    writer.writerow([csv_cell(cell) for cell in total])
    return out.getvalue().encode("utf-8-sig")
