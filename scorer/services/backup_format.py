"""The backup file: its format, the export of sessions, and the reading of a file.

The backup format is versioned::

    {"format": "scorer-backup", "version": 1, "exported_at": "...",
     "sessions": [{"token": ..., "matches": [{"ruleset": {...}, "seats": [...],
                   "hands": [{..., "idempotency_key": ..., "parties": [...],
                              "meld_log": [...], "events": [...]}]}]}]}

A hand's ``idempotency_key`` (the key its form was sent with; null for a hand
without one, and absent from files written before it travelled) is kept by the
import: a table phone that sends the hand again to the laptop the file was
restored on finds it saved (``services.tournaments.witness``).

:func:`parse` reads a file and checks what holds for all of it (strict JSON, at
most :data:`MAX_DEPTH` levels, no control characters, NUL or lone surrogates in
any text, the format and its version); :func:`count_hands` the limits of
:data:`MAX_HANDS` a match, :data:`MAX_SESSION_HANDS` a session and
:data:`MAX_FILE_HANDS` a file; :class:`Reader` gives typed, range-checked access
to one object of it.  The import that checks every value against the rules and
adds the rows is :mod:`scorer.services.backup`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any

from ..models import GameSession, Hand, Match
from ..resources import RELEASE, release_key
from ..rules import Ruleset
from .errors import BackupError, Said
from .errors import Said as _
from .starting import MAX_SESSION_HANDS, storable
from .writes import MAX_MATCH_HANDS, hand_entered, party_lines

FORMAT = "scorer-backup"
VERSION = 1

MAX_SESSIONS = 2000
MAX_MATCHES = 200
MAX_HANDS = MAX_MATCH_HANDS
"""Hands of one match in a file."""
MAX_FILE_HANDS = 2000
"""Hands of a whole file."""
MAX_DEPTH = 20
"""Nesting of arrays and objects; a backup needs about a dozen levels."""
MAX_LOG = 200
MAX_MELD_NAMES = 40
"""Meld names of one party in a hand, each at most 40 characters (as the hand form keeps them)."""
MAX_POINTS = 10_000
MAX_HAND_POINTS = 2**31 - 1
"""A hand's points are the rules' business; this only keeps them to the database's integers."""
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{22,32}")
KEY_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A hand's idempotency key as the hand form sends it (``forms.base.key_or_none``): it travels
with the hand, so that a phone sending the hand again after a restore finds it saved."""
EARLIEST = datetime(1970, 1, 1)
EVENT_ACTIONS = ("created", "corrected", "deleted", "restored")


# -- export -------------------------------------------------------------------


def text_ok(value: str) -> bool:
    """Text a backup may carry: storable, line breaks and tabs allowed."""
    return storable(value, line_breaks=True)


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
        "release": RELEASE,
        "exported_at": _time(datetime.now(UTC).replace(tzinfo=None)),
        "sessions": [export_session(row) for row in rows],
    }


def _plain(row: Any, names: str, times: str = "created_at updated_at") -> dict[str, Any]:
    """The columns ``names`` of ``row`` as they are, and its ``times`` as ISO text."""
    values = {name: getattr(row, name) for name in names.split()}
    return values | {name: _time(getattr(row, name)) for name in times.split()}


def export_session(row: GameSession) -> dict[str, Any]:
    """One session with its matches, hands and their history, as plain JSON values."""
    return _plain(row, "token view_token title stake_cents stake_basis") | {
        "matches": [export_match(m) for m in row.matches]
    }


def compact_rules(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored ruleset as a backup writes it: the preset and what differs
    (``Ruleset.to_dict(compact=True)``), so that an earlier release reads it unless it
    uses a house rule that release does not know."""
    return Ruleset.from_dict(stored).to_dict(compact=True)


def export_match(match: Match) -> dict[str, Any]:
    """One match with its seats, hands and their history, as plain JSON values.

    Also the match of a tournament's table (``scorer.services.tournaments.backup``).
    """
    return _plain(
        match, "number token view_token first_dealer", "created_at updated_at finished_at"
    ) | {
        "ruleset": compact_rules(match.ruleset),
        "seats": [{"name": s.name, "party": s.party} for s in match.seats],
        "hands": [_hand(h) for h in match.hands],
    }


def _hand(hand: Hand) -> dict[str, Any]:
    times = "created_at updated_at deleted_at"
    return (
        _plain(hand, "seq dealer_seat status ended_mid_hand idempotency_key", times)
        | hand_entered(hand)
        | {
            "parties": party_lines(hand),
            "meld_log": [_plain(m, "party name points", "created_at") for m in hand.meld_log],
            "events": [_plain(e, "action via snapshot", "created_at") for e in hand.events],
        }
    )


# -- checking values ------------------------------------------------------------


# what a key of the file is called where a message names it (as the pages call it)
FIELDS: dict[str, Said] = {
    "tournament": _("tournament"),
    "series": _("series"),
    "name": _("name"),
    "club": _("club or town"),
    "household": _("household"),
    "title": _("title"),
    "number": _("start number"),
    "entry_fee_cents": _("entry fee"),
    "fee_schedule": _("lost-game money"),
    "held_on": _("date"),
    "place": _("venue"),
    "joke_prize": _("prize for the last place"),
    "retired_links": _("replaced links"),
    "rounds": _("rounds"),
    "rounds_planned": _("rounds"),
    "tie_break": _("tie-break"),
    "public_url": _("address of the links"),
    "paid_cents": _("paid"),
    "prize_shares": _("prize shares"),
    "prize_items": _("prizes"),
    "prize_mode": _("kind of prizes"),
    "keep_value": _("what the organiser keeps"),
    "stake_cents": _("stake"),
    "bid": _("bid"),
    "trump": _("trump"),
    "declarer": _("declarer"),
    "melds": _("melds"),
    "tricks": _("trick points"),
    "points": _("points"),
    "ruleset": _("rules"),
    "seed": _("seed of the draw"),
    "paper": _("paper slip"),
    "idempotency_key": _("key of the entry"),
}

# a list of the file by the word for one of its items ("player 11", "round 2")
ITEMS: dict[str, Said] = {
    "sessions": _("session %(number)s"),
    "matches": _("match %(number)s"),
    "seats": _("seat %(number)s"),
    "hands": _("hand %(number)s"),
    "parties": _("party %(number)s"),
    "events": _("history %(number)s"),
    "meld_log": _("meld %(number)s"),
    "entrants": _("player %(number)s"),
    "players": _("player %(number)s"),
    "rounds": _("round %(number)s"),
    "tables": _("table %(number)s"),
    "evenings": _("evening %(number)s"),
}


def field_word(key: str) -> Said | str:
    """A key of the file as the pages call it (the key itself when they do not)."""
    return FIELDS.get(key, key)


def place(path: tuple[str | int, ...]) -> Said | str:
    """A place in the file as people read it: ``tournament.entrants.10.name`` is
    "tournament, player 11, name"."""
    words: list[Said | str] = []
    at = 0
    while at < len(path):
        key = path[at]
        following = path[at + 1] if at + 1 < len(path) else None
        if isinstance(key, str) and key in ITEMS and isinstance(following, int):
            words.append(Said(ITEMS[key].template, number=following + 1))
            at += 2
            continue
        words.append(field_word(key) if isinstance(key, str) else str(key + 1))
        at += 1
    if not words:
        return "-"
    said: Said | str = words[0]
    for word in words[1:]:
        said = Said("%(where)s, %(part)s", where=said, part=word)
    return said


class Reader:
    """Typed access to one JSON object, with the place it came from for messages.

    Every getter refuses a missing or null value unless told otherwise: ``optional``
    takes both (a value that may be empty: a hand without trump, a match not finished);
    ``absent`` takes a key an older release did not write (its default applies) but
    refuses a null, which no release writes for a value that always has one.
    """

    def __init__(self, data: Any, where: Said | str) -> None:
        if not isinstance(data, dict):
            raise BackupError(_("%(where)s: expected an object", where=where))
        self.data = data
        self.where = where

    def fail(self, key: str) -> BackupError:
        return BackupError(
            _("%(where)s: %(field)s is missing or invalid", where=self.where, field=field_word(key))
        )

    def _skipped(self, key: str, optional: bool, absent: bool) -> bool:
        """Whether ``key`` gives None: null or missing and ``optional``, or missing and
        ``absent``."""
        if key not in self.data:
            return optional or absent
        return optional and self.data[key] is None

    def get_int(
        self, key: str, low: int, high: int, *, optional: bool = False, absent: bool = False
    ) -> Any:
        if self._skipped(key, optional, absent):
            return None
        value = self.data.get(key)
        if type(value) is not int or not low <= value <= high:
            raise self.fail(key)
        return value

    def get_bool(self, key: str, *, optional: bool = False, absent: bool = False) -> Any:
        if self._skipped(key, optional, absent):
            return None
        value = self.data.get(key)
        if not isinstance(value, bool):
            raise self.fail(key)
        return value

    def get_str(
        self,
        key: str,
        longest: int,
        *,
        optional: bool = False,
        absent: bool = False,
        choices: Sequence[str] = (),
    ) -> Any:
        if self._skipped(key, optional, absent):
            return None
        value = self.data.get(key)
        if not isinstance(value, str) or len(value) > longest or not text_ok(value):
            raise self.fail(key)
        if choices and value not in choices:
            raise self.fail(key)
        return value

    def get_time(self, key: str, *, optional: bool = False, absent: bool = False) -> Any:
        if self._skipped(key, optional, absent):
            return None
        value = self.data.get(key)
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


# -- reading a file ------------------------------------------------------------


def parse(raw: bytes | str, formats: Sequence[str] = (FORMAT,)) -> dict[str, Any]:
    """The JSON of an uploaded file, checked to be a scorer backup of a known version.

    ``formats``: the kinds of file the caller reads (the tournament's backups
    pass theirs; the check of the text is the same for all).
    """
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
    if not isinstance(data, dict) or data.get("format") not in formats:
        raise BackupError(_("This file is not a scorer backup."))
    _check_release(data)
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


def _rulesets(value: Any) -> Iterator[dict[str, Any]]:
    """Every ruleset of a file (the value of any key ``ruleset``), without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, inner in item.items():
                if key == "ruleset" and isinstance(inner, dict):
                    yield inner
                else:
                    stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)


def _check_release(data: dict[str, Any]) -> None:
    """A file of a later release that uses something this one lacks is refused, naming
    the release to install (a file that does not use it restores: ``compact_rules``)."""
    release = data.get("release")
    if not isinstance(release, str) or release_key(release) <= release_key(RELEASE):
        return
    known = {f.name for f in fields(Ruleset)}
    for rules in _rulesets(data):
        unknown = sorted(str(key) for key in rules if key not in known)
        if unknown:
            raise BackupError(
                _(
                    "This file was written by scorer %(release)s and uses the house rule "
                    "%(name)s, which this installation does not know: install scorer "
                    "%(release)s or newer to restore it.",
                    release=release[:20],
                    name=unknown[0][:40],
                )
            )


def _no_constant(name: str) -> Any:
    """``NaN``, ``Infinity``: Python's json reads them, JSON has no such numbers."""
    raise BackupError(
        _("This file holds the number %(name)s, which JSON does not know.", name=name)
    )


def _too_deep() -> Said:
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
            if not text_ok(value):
                raise BackupError(
                    _(
                        "%(field)s: control characters, NUL and broken Unicode are not "
                        "allowed in a text",
                        field=place(path),
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


def count_hands(sessions: list[Any]) -> None:
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
