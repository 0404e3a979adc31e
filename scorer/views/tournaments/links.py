"""The addresses the tournament's links and QR codes carry (docs/rules.md section 13.3).

The phones must reach them: on a server that is the address the organiser
opened; on the organiser's laptop with a Wi-Fi of its own it is the laptop's
address on that network, never ``127.0.0.1``.  In this order the base is the
tournament's own setting (``public_url``: a name the organiser sets), the
app's ``PUBLIC_URL``, the address the request came to — and when that is the
laptop itself (``localhost``, ``127.0.0.1``), its address on the network.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from flask import current_app, request, url_for

from ...network import lan_address
from ...tournament_models import Tournament
from ..polls import qr_svg

__all__ = ["base_url", "external_url", "lan_address", "qr_svg"]

LOOPBACK_NAMES = ("localhost", "localhost.localdomain")


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def base_url(tournament: Tournament | None = None) -> str:
    """The scheme, host and port the phones reach the app under (no trailing slash)."""
    chosen = (tournament.public_url if tournament is not None else "") or str(
        current_app.config.get("PUBLIC_URL") or ""
    )
    if chosen:
        return chosen.rstrip("/")
    parts = urlsplit(request.host_url)
    host = parts.hostname or ""
    if _is_loopback(host):
        address = lan_address()
        if address is not None:
            port = f":{parts.port}" if parts.port else ""
            return f"{parts.scheme}://{address}{port}"
    return request.host_url.rstrip("/")


def external_url(tournament: Tournament | None, endpoint: str, **values: Any) -> str:
    """The full address of ``endpoint`` as a phone in the hall reaches it."""
    return base_url(tournament) + url_for(endpoint, **values)
