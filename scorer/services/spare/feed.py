"""The hall's side: pairing with a spare, pushing what changed, learning it was replaced.

**Pairing, in one step.**  The hall's page shows a line: the address the phones
reach the hall under and a code, ``http://10.42.0.1:5000/hall#K7Q2-M9XD-4HP3-ZR8W``
(:func:`new_code`; valid for :data:`CODE_FOR`, 80 random bits).  The organiser
types it into the spare's page.  The spare sends the hall its own address,
signed with a key made from the code (:func:`pair`): the code never travels, and
a stranger who guesses is cut off after :data:`TRIES` wrong tries.  Both then
derive the evening's key from the code and two random nonces, one of each side.

**Pushing.**  The hall's follower (``python -m scorer.follow``, a process of its
own at a low priority, started by ``scorer.hall``) calls :meth:`Feed.round` every
second: it asks the spare once what it holds (``hello``), then in each round
surveys the hall in one snapshot (:mod:`.changes`) and pushes whatever units the
spare lacks — compressed, signed with the key, numbered, of this hall's
generation — and when nothing changed, every :data:`HEARTBEAT` seconds an empty
push, so the spare knows the hall lives.

**Replaced.**  When the spare has taken over, it answers any push (and the hello
this hall sends when it starts, :func:`check_at_start`) with 409 "taken over":
this laptop then marks itself replaced (:func:`replaced`) and writes nothing any
more (:mod:`.role`): its pages say so, a save is refused with why.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from ...extensions import db
from ...hall_models import SpareLink
from ...models import utcnow
from ...resources import RELEASE
from ...rules import RulesError
from ..online.signing import body_hash, signature, signed
from ..unit import machinery, use_case
from . import role as roles
from .changes import Key, Survey, plan, snapshot
from .receive import FORMAT
from .rows import columns

CODE_FOR = timedelta(minutes=15)
"""How long a pairing code is good for."""
TRIES = 10
"""Wrong proofs that void a pairing code."""
CODE_LETTERS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base 32: no I, L, O or U to mistake for 1, 1, 0 or V."""
CODE_LENGTH = 16
HEARTBEAT = 3.0
"""Seconds without a change after which an empty push tells the spare the hall lives."""
TIMEOUT = 10.0
"""Seconds a push waits for the spare's answer."""
START_TIMEOUT = 3.0
"""Seconds the hall waits at its start to hear whether its spare took over."""
ROW = 1


# -- the transport ---------------------------------------------------------------------------


class Unreachable(Exception):
    """No answer from the other laptop (not on the network, switched off, a timeout)."""


@dataclass(frozen=True)
class Answer:
    """The other laptop's answer: its status, its JSON, its headers and its bytes."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes = b""


Post = Callable[[str, bytes, dict[str, str]], Answer]


def post(url: str, body: bytes, headers: dict[str, str], timeout: float = TIMEOUT) -> Answer:
    """POST ``body`` to ``url``: the answer's status and JSON, or Unreachable."""
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return Answer(response.status, _json(raw), dict(response.headers), raw)
    except urllib.error.HTTPError as error:
        raw = error.read()
        return Answer(error.code, _json(raw), dict(error.headers or {}), raw)
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise Unreachable(str(error)[:200]) from None


def _json(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw.decode("utf-8")) if raw else {}
    except (UnicodeDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _headers(signed_with: str) -> dict[str, str]:
    return {
        # (not application/json: the app takes no JSON body on any POST route)
        "Content-Type": "application/octet-stream",
        "User-Agent": "scorer-hall",
        "X-Scorer-Signature": signed_with,
    }


# -- pairing ---------------------------------------------------------------------------------


def _code_key(code: str) -> str:
    return hashlib.sha256(("scorer-spare:" + code).encode()).hexdigest()


def clean_code(text: str) -> str:
    """A code as typed, read as the hall made it (case, dashes, O for 0, I and L for 1).

    >>> clean_code("k7q2-m9xd 4hp3-zr8w")
    'K7Q2M9XD4HP3ZR8W'
    >>> clean_code("OIL")
    '011'
    """
    folded = "".join(str(text).split()).replace("-", "").upper()
    return folded.translate(str.maketrans("OIL", "011"))


def grouped(code: str) -> str:
    """The code in groups of four, as the page shows it.

    >>> grouped("K7Q2M9XD4HP3ZR8W")
    'K7Q2-M9XD-4HP3-ZR8W'
    """
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


@dataclass(frozen=True)
class Line:
    """A pairing line: where the hall serves, and the code."""

    address: str
    code: str

    @property
    def text(self) -> str:
        return f"{self.address}/hall#{grouped(self.code)}"


def parse_line(text: str) -> Line:
    """The hall's pairing line as typed on the spare, checked; or RulesError saying what.

    >>> parse_line(" http://10.42.0.1:5000/hall#k7q2-m9xd-4hp3-zr8w ").address
    'http://10.42.0.1:5000'
    """
    line = "".join(str(text).split())
    address, _, code = line.partition("#")
    parts = urlsplit(address)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RulesError("the line starts with the hall's address (http://…)")
    if parts.query or parts.path.rstrip("/") not in ("/hall", ""):
        raise RulesError("the line is the hall's address, /hall and the code after a #")
    code = clean_code(code)
    if len(code) != CODE_LENGTH or any(ch not in CODE_LETTERS for ch in code):
        raise RulesError("the code after the # has 16 letters and digits: type all of it")
    base = f"{parts.scheme}://{parts.netloc}"
    return Line(base, code)


def link() -> SpareLink | None:
    """The hall's spare link (None: no pairing was ever begun)."""
    return db.session.get(SpareLink, ROW)


def _row() -> SpareLink:
    row = db.session.get(SpareLink, ROW)
    if row is None:
        row = SpareLink(id=ROW)
        db.session.add(row)
        db.session.flush()
    return row


@use_case
def new_code() -> str:
    """A fresh pairing code (the one before is void), committed."""
    row = _row()
    row.code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
    row.code_until, row.code_tries = utcnow() + CODE_FOR, 0
    return row.code


@use_case
def unpair() -> None:
    """Push to no spare any more (the spare keeps what it holds)."""
    row = _row()
    row.address = row.key = row.code = ""
    row.error = ""


class PairRefused(Exception):
    """A pairing request the hall does not take: ``status``, ``why``."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status, self.why = status, why


def _address(value: Any) -> str:
    """A laptop's own address as it sends it: ``http://host:port``, nothing more."""
    if not isinstance(value, str) or len(value) > 200 or not value.isprintable():
        raise PairRefused(400, "not an address")
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PairRefused(400, "not an address")
    if parts.path.strip("/") or parts.query or parts.fragment:
        raise PairRefused(400, "an address is scheme, host and port only")
    return f"{parts.scheme}://{parts.netloc}"


def columns_digest() -> str:
    """The tables' columns this release copies, as a hash (both laptops must agree)."""
    return hashlib.sha256(json.dumps(columns(), sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Accepted:
    """The hall's answer to a spare's pairing: its body and the signature over it (or the
    refusal, with a wrong try counted)."""

    body: bytes = b""
    signature: str = ""
    refused: PairRefused | None = None


@machinery
def accept(body: bytes, given: str, cards: str) -> Accepted:
    """A spare asks to pair: the hall's answer, committed (a wrong code's try counted).

    ``body``: JSON ``{"spare": its address, "nonce": …, "columns": …}``, signed with
    the code's key.  The code is used up; the hall pushes to the spare from now on.
    """
    row = _row()
    now = utcnow()
    if not row.code or row.code_until is None or row.code_until < now:
        return Accepted(refused=PairRefused(410, "no pairing code is open on the hall"))
    key = _code_key(row.code)
    if not signed(key, given, "pair", body_hash(body)):
        row.code_tries += 1
        if row.code_tries >= TRIES:
            row.code = ""  # a stranger guessing: the organiser makes a new one
        return Accepted(refused=PairRefused(403, "this is not the code the hall shows"))
    try:
        asked = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return Accepted(refused=PairRefused(400, "not a pairing request"))
    nonce = asked.get("nonce") if isinstance(asked, dict) else None
    if not isinstance(nonce, str) or not 16 <= len(nonce) <= 64 or not nonce.isalnum():
        return Accepted(refused=PairRefused(400, "not a pairing request"))
    if asked.get("columns") != columns_digest():
        return Accepted(refused=PairRefused(409, f"another release of scorer (hall: {RELEASE})"))
    try:
        address = _address(asked.get("spare"))
    except PairRefused as refused:
        return Accepted(refused=refused)
    hall_nonce = secrets.token_hex(16)
    state = roles.ensure()
    row = _row()
    row.address = address
    row.key = signature(key, "key", nonce, hall_nonce)
    row.code, row.code_until, row.code_tries = "", None, 0
    row.paired_at, row.seq, row.confirmed, row.units = now, 0, 0, 0
    row.confirmed_at = row.confirmed_change = row.tried_at = None
    row.error = ""
    answer = json.dumps(
        {
            "hall_nonce": hall_nonce,
            "hall": state.token,
            "generation": state.generation,
            "cards": cards,
            "release": RELEASE,
        }
    ).encode()
    return Accepted(answer, signature(key, "paired", body_hash(answer)))


@dataclass(frozen=True)
class Paired:
    hall_address: str
    hall_token: str
    key: str
    generation: int
    cards: str


def pair(line: Line, spare_address: str, send: Post | None = None) -> Paired:
    """The spare's half of pairing: prove the code to the hall, derive the key.

    Raises RulesError with what went wrong (the spare's page words it), or
    Unreachable when the hall does not answer.
    """
    key = _code_key(line.code)
    nonce = secrets.token_hex(16)
    body = json.dumps(
        {"spare": spare_address, "nonce": nonce, "columns": columns_digest()}
    ).encode()
    answer = (send or post)(
        f"{line.address}/hall/pair", body, _headers(signature(key, "pair", body_hash(body)))
    )
    if answer.status == 403:
        raise RulesError("the hall does not know this code: type the line its page shows now")
    if answer.status == 410:
        raise RulesError("the code is no longer valid: make a new one on the hall's page")
    if answer.status == 409:
        raise RulesError("the two laptops run different releases of scorer: install the same")
    if answer.status != 200:
        raise RulesError(
            "the hall did not take the pairing (answer {status})", status=answer.status
        )
    given = next((v for k, v in answer.headers.items() if k.lower() == "x-scorer-signature"), "")
    if not signed(key, given, "paired", body_hash(answer.raw)):
        raise RulesError("the answer did not come from the hall that shows this code")
    told = answer.body
    hall_nonce, token, generation = told.get("hall_nonce"), told.get("hall"), told.get("generation")
    if not (isinstance(hall_nonce, str) and isinstance(token, str) and isinstance(generation, int)):
        raise RulesError(
            "the hall did not take the pairing (answer {status})", status=answer.status
        )
    cards = told.get("cards") if isinstance(told.get("cards"), str) else ""
    return Paired(
        line.address,
        token[:32],
        signature(key, "key", nonce, hall_nonce),
        generation,
        str(cards)[:300],
    )


# -- pushing --------------------------------------------------------------------------------


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
                **_headers(signature(row.key, "hello", generation, 0, body_hash(body))),
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
                **_headers(signature(row.key, "push", generation, seq, body_hash(body))),
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
    row = _row()
    row.seq += 1
    row.tried_at = utcnow()
    return row.seq


@machinery
def _note(
    *, error: str = "", confirmed: int | None = None, units: int = 0, change: datetime | None = None
) -> None:
    """What the last round came to, on the link row (the hall's page shows it)."""
    row = _row()
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
