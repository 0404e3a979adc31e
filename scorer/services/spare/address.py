"""Whether this laptop serves the address the printed table cards carry.

The cards' QR codes carry one address (the tournament's public address, else the
hall's ``PUBLIC_URL``), usually the hall laptop's own hotspot: a fixed address on
a given system (NetworkManager's hotspot is ``10.42.0.1``).  A spare that opens
the same hotspot — same name, same password — has that address too, and every
card, open page and queued phone entry reaches it without anyone scanning
anything.  At a takeover (and on the spare's page, again on request) the app
checks it: the address must be one of this machine's (a socket binds to it) and
the port the one it serves on.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Check:
    """The cards' address against this laptop: ``here`` (this machine has the host's
    address), ``port_ok`` (it serves on the cards' port); ``names``: the tournaments whose
    cards carry it."""

    address: str
    host: str
    port: int
    here: bool
    port_ok: bool
    names: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.here and self.port_ok


def has_address(host: str) -> bool:
    """Whether this machine has ``host``'s address (a name is looked up first).

    >>> has_address("127.0.0.1"), has_address("127.0.0.9")
    (True, True)
    """
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_DGRAM)
    except (OSError, UnicodeError):
        return False
    for family, kind, _proto, _name, where in found:
        probe = socket.socket(family, kind)
        try:
            probe.bind((where[0], 0))  # only an address of this machine's takes a bind
        except OSError:
            continue
        finally:
            probe.close()
        return True
    return False


def check(address: str, serving_port: int | None, names: tuple[str, ...] = ()) -> Check | None:
    """The check of one cards' address (None: not an address to check)."""
    parts = urlsplit(address)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    return Check(
        address=f"{parts.scheme}://{parts.netloc}",
        host=parts.hostname,
        port=port,
        here=has_address(parts.hostname),
        port_ok=serving_port is None or serving_port == port,
        names=names,
    )


def cards(hall_cards: str, tournaments: list[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """The addresses the cards of these tournaments carry (``(name, public_url)`` each; an
    empty public address is the hall's), with the tournaments that carry each."""
    out: dict[str, list[str]] = {}
    for name, own in tournaments:
        chosen = own or hall_cards
        if chosen:
            parts = urlsplit(chosen)
            out.setdefault(f"{parts.scheme}://{parts.netloc}", []).append(name)
    return {address: tuple(names) for address, names in out.items()}
