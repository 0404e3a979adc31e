"""The pusher's rounds: every few seconds, each tournament put online, sent when it is new.

``scorer.online_push`` (started by ``scorer.hall``) and ``flask --app scorer online
push`` run :func:`run` in a process of their own.
"""

from __future__ import annotations

import logging
from typing import Any

from ..rounds_loop import in_rounds
from .hall import Pusher, links

EVERY = 2.0
"""Seconds between rounds (the hosted page shows a state within 10 s of the connection)."""

log = logging.getLogger("scorer.online_push")


def run(app: Any, rounds: int | None = None, every: float = EVERY) -> None:
    """Push in rounds, forever (or ``rounds`` times), while the starting process lives."""
    pusher = Pusher(zone=str(app.config.get("TIMEZONE") or "Europe/Berlin"))

    def push_all() -> None:
        for row in links():
            pusher.push(row)

    in_rounds(app, push_all, every=every, rounds=rounds, log=log)
