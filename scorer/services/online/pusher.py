"""The pusher's rounds: every few seconds, each tournament put online, sent when it is new.

``scorer.online_push`` (started by ``scorer.hall``) and ``flask --app scorer online
push`` run :func:`run` in a process of their own.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from ...extensions import db
from .hall import Pusher, links

EVERY = 2.0
"""Seconds between rounds (the hosted page shows a state within 10 s of the connection)."""

log = logging.getLogger("scorer.online_push")


def run(app: Any, rounds: int | None = None, every: float = EVERY) -> None:
    """Push in rounds, forever (or ``rounds`` times), while the starting process lives."""
    parent = os.getppid()
    pusher = Pusher(zone=str(app.config.get("TIMEZONE") or "Europe/Berlin"))
    done = 0
    while rounds is None or done < rounds:
        started = time.monotonic()
        with app.app_context():
            try:
                for row in links():
                    pusher.push(row)
            except Exception:  # the next round tries again; the hall goes on regardless
                log.exception("a push round failed")
                db.session.rollback()
            finally:
                db.session.remove()
        done += 1
        if rounds is None and os.getppid() != parent:
            return  # the hall was stopped
        time.sleep(max(0.0, every - (time.monotonic() - started)))


