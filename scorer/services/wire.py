"""How one instance of the app asks another: a POST, its answer (status, JSON, headers,
bytes), or none.

The hall pushes to its hosted copy (``services.online``) and to its spare laptop,
and asks the spare what it holds; the spare pairs with the hall
(``services.spare``).  Tests hand their own transport (:data:`Post`) to carry the
requests to the other instance's test client.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import trouble

TIMEOUT = 10.0
"""Seconds a request waits for the other instance's answer (a phone's hotspot at the break
is slow)."""


class Unreachable(Exception):
    """No answer from the other instance (no reception, switched off, a refused connection,
    a timeout); ``reason`` is its code (:mod:`.trouble`), worded by the page that
    shows it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Answer:
    """The other laptop's answer: its status, its JSON, its headers and its bytes."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes = b""


Post = Callable[[str, bytes, dict[str, str]], Answer]


def post(url: str, body: bytes, headers: dict[str, str], timeout: float | None = None) -> Answer:
    """POST ``body`` to ``url``: the answer's status and JSON, or Unreachable (``timeout``:
    seconds, :data:`TIMEOUT` unless given)."""
    try:
        request = urllib.request.Request(url, data=body, method="POST", headers=headers)
        with urllib.request.urlopen(request, timeout=timeout or TIMEOUT) as response:
            raw = response.read()
            return Answer(response.status, _json(raw), dict(response.headers), raw)
    except urllib.error.HTTPError as error:
        raw = error.read()
        return Answer(error.code, _json(raw), dict(error.headers or {}), raw)
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as error:
        raise Unreachable(trouble.reason_of(error)) from None


def _json(raw: bytes) -> dict[str, Any]:
    """The answer's JSON object, or an empty one."""
    try:
        value = json.loads(raw.decode("utf-8")) if raw else {}
    except (UnicodeDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def signed_headers(signed_with: str) -> dict[str, str]:
    """The headers of a signed request (its body is no form: octet-stream)."""
    return {
        # (not application/json: the app takes no JSON body on any POST route)
        "Content-Type": "application/octet-stream",
        "User-Agent": "scorer-hall",
        "X-Scorer-Signature": signed_with,
    }
