"""The key a hosted copy issues for a tournament, the address a hall pushes to, the signatures.

The hosted copy shows one line the organiser carries to the hall (as a QR code
for a phone, and as text): ``<address>#<key>``, e.g.
``https://ergebnisse.example.org/online/17#3f1c…``.  Every request of the hall
is signed with the key (HMAC-SHA256 over what it says: the page, the kind of
request, the generation and sequence number, the body's hash), so a request
nobody with the key made is refused, whatever it carries.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from ...rules import RulesError

KEY_BYTES = 32
_KEY_RE = re.compile(r"[0-9a-f]{64}")
_PATH_RE = re.compile(r"(?:/[^?#]*)?/online/[0-9]{1,12}")


def new_key() -> str:
    """A page's key: 256 random bits as hex."""
    return secrets.token_hex(KEY_BYTES)


@dataclass(frozen=True)
class Connection:
    """Where a hall pushes (the page's address) and the key it signs with."""

    address: str
    key: str

    @property
    def line(self) -> str:
        """The line the organiser carries from the hosted copy to the hall."""
        return f"{self.address}#{self.key}"


def parse_line(text: str) -> Connection:
    """A connection line as the hosted copy shows it, checked; or RulesError saying what.

    >>> parse_line(" https://example.org/online/17#" + "ab" * 32 + " ").address
    'https://example.org/online/17'
    >>> parse_line("https://example.org/online/17")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: ...
    """
    line = "".join(str(text).split())
    address, _, key = line.partition("#")
    parts = urlsplit(address)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RulesError("the line starts with the hosted copy's address (https://…)")
    if parts.query or not _PATH_RE.fullmatch(parts.path.rstrip("/")):
        raise RulesError("the address ends in /online/<number>, as the hosted copy shows it")
    if not _KEY_RE.fullmatch(key):
        raise RulesError("the key after the # is missing or cut short: copy the whole line")
    return Connection(address.rstrip("/"), key)


def signature(key: str, *parts: object) -> str:
    """HMAC-SHA256 of ``parts`` (joined by newlines) with ``key``, as hex."""
    message = "\n".join(str(p) for p in parts).encode()
    return hmac.new(bytes.fromhex(key), message, hashlib.sha256).hexdigest()


def body_hash(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def signed(key: str, given: str, *parts: object) -> bool:
    """Whether ``given`` is the signature of ``parts`` with ``key`` (compared in constant time)."""
    return hmac.compare_digest(signature(key, *parts), given or "")
