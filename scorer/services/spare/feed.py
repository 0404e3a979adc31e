"""The hall's side of following: pushing what changed to its spare, learning it was replaced.

The hall's follower (``python -m scorer.follow``, a process of its own at a low
priority, started by ``scorer.hall``) calls :meth:`Feed.round` every second: it
asks the spare once what it holds (``hello``), then in each round surveys the
hall in one snapshot (:mod:`.changes`) and pushes whatever units the spare lacks
— compressed, signed with the evening's key (:mod:`.pairing`), numbered, of this
hall's generation — and when nothing changed, every :data:`HEARTBEAT` seconds an
empty push, so the spare knows the hall lives.

**Replaced.**  When the spare has taken over, it answers any push (and the hello
this hall sends when it starts, :func:`check_at_start`) with 409 "taken over":
this laptop then marks itself replaced (:func:`replaced`) and writes nothing any
more (:mod:`.role`): its pages say so, a save is refused with why.
"""

from __future__ import annotations

import json
import secrets
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ...extensions import db
from ...hall_models import SpareLink
from ...models import utcnow
from ...resources import RELEASE
from ..online.signing import body_hash, signature
from ..unit import machinery
from ..wire import Answer, Post, Unreachable, post, signed_headers
from . import role as roles
from .changes import Key, Survey, plan, snapshot
from .pairing import link, link_row
from .receive import FORMAT
from .rows import columns

HEARTBEAT = 3.0
"""Seconds without a change after which an empty push tells the spare the hall lives."""
START_TIMEOUT = 3.0
"""Seconds the hall waits at its start to hear whether its spare took over."""


@machinery
def replaced(by: str, since: datetime | None) -> None:
    """This hall's spare took over (at ``since``, the spare's word): write nothing more."""
    state = roles.state_row()
    if state.role == roles.REPLACED:
        return
    state.role = roles.REPLACED
    state.replaced_by = by[:300]
    state.replaced_at = since or utcnow()


def _taken_over(answer: Answer) -> bool:
    return answer.status == 409 and answer.body.get("taken_over") is True


def _since(answer: Answer) -> datetime | None:
    value = answer.body.get("since")
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


@dataclass
class Feed:
    """The hall's pushes to its spare: what the spare holds, as far as this process knows."""

    cards: str = ""
    send: Post = post
    survey: Survey = field(default_factory=Survey)
    confirmed: dict[Key, str] | None = None
    contacted: float = 0.0
    address: str = ""

    def round(self) -> str:
        """One round: "none" (no spare), "same" (nothing new), "sent", "stopped" (this
        hall was replaced), "unreachable" or "refused"; the link row says how far it got."""
        row = link()
        state = roles.current()
        if row is None or not row.address or not row.key:
            return "none"
        if not state.is_hall:
            return "stopped"
        if row.address != self.address:
            self.address, self.confirmed = row.address, None  # paired anew
        try:
            if self.confirmed is None:
                status = self._hello(row, state.generation)
                if status != "held":
                    return status
            with snapshot():
                self.survey.look(db.session.connection())
                wanted = plan(db.session.connection(), self.survey, self.confirmed or {})
            if not wanted and time.monotonic() - self.contacted < HEARTBEAT:
                return "same"
            return self._push(wanted, state.generation)
        except Unreachable as error:
            _note(error=str(error)[:300] or "unreachable")
            return "unreachable"

    def _hello(self, row: SpareLink, generation: int) -> str:
        body = secrets.token_hex(16).encode()
        answer = self.send(
            f"{row.address}/spare/hello",
            body,
            {
                **signed_headers(signature(row.key, "hello", generation, 0, body_hash(body))),
                "X-Scorer-Generation": str(generation),
            },
        )
        if _taken_over(answer):
            replaced(row.address, _since(answer))
            return "stopped"
        units = answer.body.get("units")
        if answer.status != 200 or not isinstance(units, dict):
            _note(error=f"{answer.status} {str(answer.body.get('why', ''))[:200]}")
            return "refused"
        held: dict[Key, str] = {}
        for name, fingerprint in units.items():
            kind, _, number = str(name).partition(":")
            if kind in ("s", "t", "m") and number.isdigit() and isinstance(fingerprint, str):
                held[(kind, int(number))] = fingerprint
        self.confirmed = held
        self.contacted = time.monotonic()
        return "held"

    def _push(self, wanted: Any, generation: int) -> str:
        row = link()
        assert row is not None and self.confirmed is not None
        message = {
            "format": FORMAT,
            "release": RELEASE,
            "hall_time": utcnow().isoformat(),
            "hall_change": self.survey.last_change.isoformat() if self.survey.last_change else None,
            "cards": self.cards,
            "columns": columns(),
            "units": [unit.message(fingerprint) for unit, fingerprint in wanted.units],
            "gone": [list(key) for key in wanted.gone],
        }
        body = zlib.compress(json.dumps(message, separators=(",", ":")).encode(), 6)
        seq = _next_seq()
        answer = self.send(
            f"{row.address}/spare/push",
            body,
            {
                **signed_headers(signature(row.key, "push", generation, seq, body_hash(body))),
                "X-Scorer-Generation": str(generation),
                "X-Scorer-Seq": str(seq),
            },
        )
        if _taken_over(answer):
            replaced(row.address, _since(answer))
            return "stopped"
        if answer.status != 200:
            self.confirmed = None  # ask what it holds before the next push
            _note(error=f"{answer.status} {str(answer.body.get('why', ''))[:200]}")
            return "refused"
        self.contacted = time.monotonic()
        for unit, fingerprint in wanted.units:
            self.confirmed[(unit.kind, unit.id)] = fingerprint
        for key in wanted.gone:
            self.confirmed.pop(key, None)
        whole = all(self.confirmed.get(k) == f for k, f in self.survey.fingerprints.items())
        _note(
            confirmed=seq,
            units=len(self.confirmed),
            change=self.survey.last_change if whole else None,
        )
        return "sent"


@machinery
def _next_seq() -> int:
    row = link_row()
    row.seq += 1
    row.tried_at = utcnow()
    return row.seq


@machinery
def _note(
    *, error: str = "", confirmed: int | None = None, units: int = 0, change: datetime | None = None
) -> None:
    """What the last round came to, on the link row (the hall's page shows it)."""
    row = link_row()
    row.tried_at = utcnow()
    row.error = error
    if confirmed is not None:
        row.confirmed, row.confirmed_at, row.units = confirmed, utcnow(), units
        if change is not None:
            row.confirmed_change = change


def check_at_start(send: Post | None = None) -> bool:
    """As the hall starts: ask its spare whether it took over (a short wait); True when it
    did (this laptop is marked replaced and writes nothing)."""
    row = link()
    state = roles.current()
    if row is None or not row.address or not row.key or not state.is_hall:
        return not state.is_hall and state.role == roles.REPLACED
    chosen = send or (lambda url, body, headers: post(url, body, headers, START_TIMEOUT))
    try:
        Feed(send=chosen)._hello(row, state.generation)
    except Unreachable:
        return False
    return roles.current().role == roles.REPLACED
