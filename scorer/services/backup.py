"""The backup use case: every session exported, and a file imported all or nothing.

Decisions (also in the README):

* **Nothing from the file is trusted.**  Every field is checked for its type
  and range; the ruleset goes through ``Ruleset.from_dict``; every closed hand
  is settled again from what was *entered* (declarer, bid, trump, outcome,
  melds, trick points) with the same code path as the hand form
  (:func:`scorer.services.hands.settle_input`), and the file's points must agree
  with the rules — a tampered number refuses the whole file.  Winners and the
  end of a match are recomputed, never read.
* **Tokens are kept** so that shared links keep working after a move to
  another installation — unless a token is already used here (or is not a
  22–32 character URL-safe token): then that session or match gets a new one.
* **All or nothing**: :func:`load` builds and checks every row without writing
  any (they never join the database session); :func:`import_backup` then writes
  them with Core statements (:mod:`scorer.services.bulk`) and commits once, or
  rolls back.  So SQLite's write lock is held only while the rows are written:
  about a tenth of a second for the largest file (``bench/RESULTS.md``, "A restore
  under load"), not for the seconds the rules spend checking it.
* The hand history (``events``) travels with the hands; its snapshots are
  rebuilt from checked values only.
* **Limits** keep an import to what the app can serve: those of
  :mod:`scorer.services.backup_format` (hands of a match, a session, a file; the
  nesting; the texts), and a session whose compact export
  (:func:`~scorer.services.backup_format.dumps`) would pass
  :data:`MAX_SESSION_BYTES`, so that every imported session can be exported
  and uploaded again through the web import (``MAX_CONTENT_LENGTH``).

A refusal is a :class:`~scorer.services.errors.BackupError` with a message in
the user's language; a refusal by the rules keeps their ``RulesError`` and the
place in the file, for the web layer to word.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import select

from ..extensions import db
from ..models import GameSession, Hand, HandEvent, HandMeld, Match, Seat, new_token
from ..rules import (
    BASES,
    OUTCOMES,
    SPECIAL_GAMES,
    RulesError,
    Ruleset,
    available_melds,
    check_shown_meld,
    check_table,
    party_of_seat,
)
from . import bulk
from .backup_format import (
    EVENT_ACTIONS,
    KEY_RE,
    MAX_HAND_POINTS,
    MAX_HANDS,
    MAX_LOG,
    MAX_MATCHES,
    MAX_MELD_NAMES,
    MAX_POINTS,
    MAX_SESSIONS,
    TOKEN_RE,
    Reader,
    count_hands,
    dumps,
    export_session,
    export_sessions,
    parse,
    text_ok,
)
from .errors import BackupError, Said
from .errors import Said as _
from .hands import HandInput, settle_input, settle_mid_hand, write_hand
from .starting import MAX_NAME, MAX_TITLE, clean_name, remember_players
from .two_player import open_hand_melds
from .unit import use_case
from .writes import ORGANISER, after_change

MAX_SESSION_BYTES = 2_000_000
"""The compact export of one imported session: it must fit the web import
(``MAX_CONTENT_LENGTH``, 2 MiB) with room for the envelope and the upload's headers."""


def export_all() -> dict[str, Any]:
    """Every session of this installation (the command line's ``backup export``)."""
    rows = db.session.execute(select(GameSession).order_by(GameSession.id)).scalars()
    return export_sessions(rows)


class Tokens:
    """Keeps the file's tokens unless they are malformed or already taken here.

    Also used by the tournament's import for its tables' matches.
    """

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


def import_backup(raw: bytes | str) -> list[GameSession]:
    """Import a backup file in one transaction: all of it, or nothing (BackupError).

    The same file imported twice at once: both imports find the file's tokens free,
    and the second to write them meets the unique tokens of the first.  Its unit of
    work runs it again from the file (:mod:`.unit`: the retry on a lost race lives
    there), which now sees those tokens taken and gives its sessions and matches new
    ones — two sessions, never a 500.  (``ConflictError`` only when that keeps
    happening, which no pair of uploads can cause.)
    """
    data = parse(raw)
    ids = _import(data)
    found = db.session.execute(select(GameSession).where(GameSession.id.in_(ids))).scalars()
    by_id = {row.id: row for row in found}
    return [by_id[i] for i in ids]


@use_case
def _import(data: dict[str, Any]) -> list[int]:
    """The file's sessions built and checked without writing, then written (no commit: the
    unit's); their ids.  SQLite's write lock is held while the rows go in, not while the
    rules check them."""
    rows = load(data)
    write(rows)
    remember_players(sorted({s.name for row in rows for m in row.matches for s in m.seats}))
    return [row.id for row in rows]


def write(rows: Sequence[GameSession]) -> None:
    """Insert checked sessions built by :func:`load` with their matches, seats, hands,
    lines, melds and history: one statement per table (no commit)."""
    matches = [m for row in rows for m in row.matches]
    hands = [h for m in matches for h in m.hands]
    bulk.insert(rows)
    bulk.insert(matches)
    bulk.insert([s for m in matches for s in m.seats], ids=False)
    bulk.insert(hands)
    bulk.insert([p for h in hands for p in h.parties], ids=False)
    bulk.insert([m for h in hands for m in h.meld_log], ids=False)
    bulk.insert([e for h in hands for e in h.events], ids=False)


def load(data: dict[str, Any]) -> list[GameSession]:
    """The sessions of a backup, every value checked, as rows outside the database session.

    Nothing is written (:func:`write` does).  Raises :class:`BackupError` with a
    message in the user's language.
    """
    top = Reader(data, _("backup"))
    sessions = top.get_list("sessions", MAX_SESSIONS)
    if not sessions:
        raise BackupError(_("The backup holds no sessions."))
    count_hands(sessions)
    tokens = Tokens()
    rows = []
    for number, item in enumerate(sessions, 1):
        rows.append(_load_session(item, number, tokens))
    return rows


def _load_session(item: Any, number: int, tokens: Tokens) -> GameSession:
    r = Reader(item, _("session %(number)s", number=number))
    token, _kept = tokens.pick(r.data.get("token"), GameSession.token)
    view_token, _kept = tokens.pick(r.data.get("view_token"), GameSession.view_token)
    row = GameSession(
        token=token,
        view_token=view_token,
        title=r.get_str("title", MAX_TITLE),
        created_at=r.get_time("created_at"),
        updated_at=r.get_time("updated_at", absent=True) or r.get_time("created_at"),
        stake_cents=r.get_int("stake_cents", 0, 100_000),
        stake_basis=r.get_str("stake_basis", 16, choices=BASES),
    )
    last_number = 0
    for index, match_item in enumerate(r.get_list("matches", MAX_MATCHES), 1):
        match = load_match(match_item, r.where, index, tokens)
        if match.number <= last_number:
            raise BackupError(_("%(where)s: the matches are not in order", where=r.where))
        last_number = match.number
        row.matches.append(match)
    for match in row.matches:
        finish_match(match)
    size = len(dumps(export_session(row)).encode("utf-8"))
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
    return row


def load_match(item: Any, where: Said | str, index: int, tokens: Tokens) -> Match:
    """One match of a file, checked against the rules, with its hands (not added to a session).

    Built outside the database session; the caller gives it its session and then
    calls :func:`finish_match`.
    """
    r = Reader(item, _("%(where)s, match %(number)s", where=where, number=index))
    raw_rules = r.data.get("ruleset")
    if not isinstance(raw_rules, dict):
        raise r.fail("ruleset")
    try:
        ruleset = Ruleset.from_dict(raw_rules)
    except RulesError as exc:
        raise BackupError(where=r.where, cause=exc) from None
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
        raise BackupError(where=r.where, cause=exc) from None
    seats = []
    for position, seat_item in enumerate(seats_in):
        s = Reader(seat_item, _("%(where)s, seat %(number)s", where=r.where, number=position + 1))
        name = clean_name(s.get_str("name", MAX_NAME))
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
        updated_at=r.get_time("updated_at", absent=True) or r.get_time("created_at"),
        finished_at=r.get_time("finished_at", optional=True),
        version=1,
    )
    match.seats.extend(seats)
    last_seq = 0
    keys: set[str] = set()
    hands_in = r.get_list("hands", MAX_HANDS)
    for number, hand_item in enumerate(hands_in, 1):
        hand = _load_hand(match, ruleset, hand_item, r.where, number)
        if hand.seq <= last_seq:
            raise BackupError(_("%(where)s: the hands are not in order", where=r.where))
        if hand.idempotency_key is not None:
            if hand.idempotency_key in keys:
                raise BackupError(
                    _("%(where)s: two hands have the same key of the entry", where=r.where)
                )
            keys.add(hand.idempotency_key)
        if hand.status == "open" and number != len(hands_in):
            raise BackupError(
                _("%(where)s: only the last hand can still be in play", where=r.where)
            )
        last_seq = hand.seq
    return match


def _load_hand(match: Match, ruleset: Ruleset, item: Any, where: Said | str, number: int) -> Hand:
    r = Reader(item, _("%(where)s, hand %(number)s", where=where, number=number))
    parties = ruleset.parties
    outcome = r.get_str("outcome", 20, choices=OUTCOMES)
    status = r.get_str("status", 8, choices=("open", "closed"))
    ended_mid_hand = r.get_bool("ended_mid_hand", absent=True) or False
    trump = r.get_str("trump", 1, optional=True, choices=("E", "G", "H", "S"))
    hand = Hand(
        seq=r.get_int("seq", 1, 1_000_000),
        dealer_seat=r.get_int("dealer_seat", 0, ruleset.players - 1),
        outcome=outcome,
        status=status,
        trump=trump,
        ended_mid_hand=ended_mid_hand,
        created_at=r.get_time("created_at"),
        updated_at=r.get_time("updated_at", absent=True) or r.get_time("created_at"),
        deleted_at=r.get_time("deleted_at", optional=True),
        idempotency_key=_key(r),
    )
    match.hands.append(hand)
    known_melds = available_melds(ruleset) if ruleset.open_play else ()
    for entry in r.get_list("meld_log", MAX_LOG):
        m = Reader(entry, _("%(where)s, meld", where=r.where))
        # the two-player page offers the ruleset's melds only, each at its value (under
        # any trump: the trump may have been turned after the meld was shown)
        name = m.get_str("name", 40, choices=known_melds)
        points = m.get_int("points", 1, MAX_POINTS)
        try:
            check_shown_meld(name, points, None, ruleset)
        except RulesError as exc:
            raise BackupError(where=m.where, cause=exc) from None
        hand.meld_log.append(
            HandMeld(
                party=m.get_int("party", 0, parties - 1),
                name=name,
                points=points,
                created_at=m.get_time("created_at", absent=True) or hand.created_at,
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
    data = HandInput(
        declarer=r.get_int("declarer", 0, parties - 1, optional=True),
        bid=r.get_int("bid", 0, MAX_POINTS),
        trump=trump,
        outcome=outcome,
        won=r.get_bool("won", optional=True) if outcome in SPECIAL_GAMES else None,
        # both absent from older backups: the declarer at fault, no player named
        at_fault=r.get_int("at_fault", 0, parties - 1, optional=True)
        if outcome == "forfeit"
        else None,
        declarer_seat=r.get_int("declarer_seat", 0, ruleset.players - 1, optional=True),
    )
    melds: list[int] = []
    meld_names: list[list[str] | None] = []
    tricks: list[int | None] = []
    took: list[bool | None] = []
    for party, line_item in enumerate(lines):
        p = Reader(line_item, _("%(where)s, party %(number)s", where=r.where, number=party + 1))
        melds.append(p.get_int("melds", 0, MAX_POINTS))
        meld_names.append(_meld_names(p))
        tricks.append(p.get_int("tricks", 0, MAX_POINTS, optional=True))
        took.append(p.get_bool("took_trick", optional=True))
        given_points.append(p.get_int("points", -MAX_HAND_POINTS, MAX_HAND_POINTS))
        given_stars.append(p.get_int("stars", 0, 100))
    data = replace(data, melds=melds, meld_names=meld_names, tricks=tricks, took_trick=took)
    try:
        if ended_mid_hand:
            if ruleset.end != "at_once" or outcome != "open_play":
                raise r.fail("ended_mid_hand")
            data = replace(data, melds=open_hand_melds(hand, parties), tricks=[0] * parties)
            settled = settle_mid_hand(match, data, hand)
        else:
            settled = settle_input(match, data, hand.dealer_seat, restoring=True)
    except RulesError as exc:
        raise BackupError(where=r.where, cause=exc) from None
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
    write_hand(hand, settled)
    hand.created_at = r.get_time("created_at")
    hand.updated_at = r.get_time("updated_at", absent=True) or hand.created_at
    for event_item in r.get_list("events", MAX_LOG):
        hand.events.append(_load_event(event_item, r.where, parties))
    return hand


def _key(r: Reader) -> str | None:
    """The hand's idempotency key (None: saved without one, or a file from before keys)."""
    value = r.get_str("idempotency_key", 64, optional=True)
    if value is not None and not KEY_RE.fullmatch(value):
        raise r.fail("idempotency_key")
    return value


def _meld_names(p: Reader) -> list[str] | None:
    """The meld names of a party line (None: none written)."""
    names = p.data.get("meld_names")
    if names is not None and (
        not isinstance(names, list)
        or len(names) > MAX_MELD_NAMES
        or not all(isinstance(n, str) and 0 < len(n) <= 40 and text_ok(n) for n in names)
    ):
        raise p.fail("meld_names")
    return names or None


def _load_event(item: Any, where: Said | str, parties: int) -> HandEvent:
    r = Reader(item, _("%(where)s, history", where=where))
    raw = r.data.get("snapshot")
    snap = Reader(raw, r.where)
    lines = []
    for line_item in snap.get_list("parties", parties):
        p = Reader(line_item, r.where)
        lines.append(
            {
                "party": p.get_int("party", 0, parties - 1),
                "melds": p.get_int("melds", 0, MAX_POINTS, absent=True) or 0,
                # kept: a resent hand is compared with what its key first saved
                "meld_names": _meld_names(p),
                "tricks": p.get_int("tricks", 0, MAX_POINTS, optional=True),
                "took_trick": p.get_bool("took_trick", optional=True),
                "points": p.get_int("points", -MAX_HAND_POINTS, MAX_HAND_POINTS),
                "stars": p.get_int("stars", 0, 100, absent=True) or 0,
            }
        )
    snapshot = {
        "declarer": snap.get_int("declarer", 0, parties - 1, optional=True),
        "bid": snap.get_int("bid", 0, MAX_POINTS, absent=True) or 0,
        "trump": snap.get_str("trump", 1, optional=True, choices=("E", "G", "H", "S")),
        "outcome": snap.get_str("outcome", 20, absent=True, choices=OUTCOMES),
        "won": snap.get_bool("won", optional=True),
        "at_fault": snap.get_int("at_fault", 0, parties - 1, optional=True),
        "declarer_seat": snap.get_int("declarer_seat", 0, 7, optional=True),
        "made": snap.get_bool("made", optional=True),
        "parties": lines,
    }
    return HandEvent(
        action=r.get_str("action", 12, choices=EVENT_ACTIONS),
        # who made the change when not the match's own link (older files: none)
        via=r.get_str("via", 16, optional=True, choices=(ORGANISER,)),
        created_at=r.get_time("created_at"),
        snapshot=snapshot,
    )


def finish_match(match: Match) -> None:
    """Recompute the end and the winners of an imported match (never read from the file)."""
    try:
        after_change(match)
    except RulesError as exc:
        raise BackupError(cause=exc) from None
