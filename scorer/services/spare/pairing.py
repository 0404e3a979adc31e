"""Pairing a spare with the hall in one step: a line on the hall's page, typed on the spare's.

The hall's page shows a line: the address the phones reach the hall under and a
code, ``http://10.42.0.1:5000/hall#K7Q2-M9XD-4HP3-ZR8W`` (:func:`new_code`; valid
for :data:`CODE_FOR`, 80 random bits).  The organiser types it into the spare's
page.  The spare sends the hall its own address, signed with a key made from the
code (:func:`pair`; the hall's half: :func:`accept`): the code never travels, and a
stranger who guesses is cut off after :data:`TRIES` wrong tries.  Both then derive
the evening's key from the code and two random nonces, one of each side; the hall
signs its answer with the code's key too, so the spare knows it reached that hall.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from ...extensions import db
from ...hall_models import SpareLink
from ...models import utcnow
from ...resources import RELEASE
from ...rules import RulesError
from ..online.signing import body_hash, signature, signed
from ..unit import machinery, use_case
from ..wire import Post, post, signed_headers
from . import role as roles
from .rows import columns

CODE_FOR = timedelta(minutes=15)
"""How long a pairing code is good for."""
TRIES = 10
"""Wrong proofs that void a pairing code."""
CODE_LETTERS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base 32: no I, L, O or U to mistake for 1, 1, 0 or V."""
CODE_LENGTH = 16
ROW = 1


def code_key(code: str) -> str:
    """The key a code signs with (its hash: the code itself is never sent)."""
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


def link_row() -> SpareLink:
    """The hall's spare link as an object of this session (made when missing)."""
    row = db.session.get(SpareLink, ROW)
    if row is None:
        row = SpareLink(id=ROW)
        db.session.add(row)
        db.session.flush()
    return row


@use_case
def new_code() -> str:
    """A fresh pairing code (the one before is void), committed."""
    row = link_row()
    row.code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
    row.code_until, row.code_tries = utcnow() + CODE_FOR, 0
    return row.code


@use_case
def unpair() -> None:
    """Push to no spare any more (the spare keeps what it holds)."""
    row = link_row()
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
    row = link_row()
    now = utcnow()
    if not row.code or row.code_until is None or row.code_until < now:
        return Accepted(refused=PairRefused(410, "no pairing code is open on the hall"))
    key = code_key(row.code)
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
    row = link_row()
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
    key = code_key(line.code)
    nonce = secrets.token_hex(16)
    body = json.dumps(
        {"spare": spare_address, "nonce": nonce, "columns": columns_digest()}
    ).encode()
    answer = (send or post)(
        f"{line.address}/hall/pair", body, signed_headers(signature(key, "pair", body_hash(body)))
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
