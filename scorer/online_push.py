"""The hall's pusher: ``python -m scorer.online_push`` (``scorer.hall`` starts it).

Every :data:`EVERY` seconds it looks at each tournament the organiser put online
(``services.online.hall``) and, when its public side shows something new, sends
the newest state to the hosted copy.  A process of its own at a low priority, so
that a push — however slow the hotspot, however long the hosted copy takes to
answer — never holds a phone's request or the beamer.  It ends when the process
that started it ends.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask

EVERY = 2.0
"""Seconds between rounds (the hosted page shows a state within 10 s of the connection)."""

log = logging.getLogger("scorer.online_push")


def run(app: Flask, rounds: int | None = None, every: float = EVERY) -> None:
    """Push in rounds, forever (or ``rounds`` times), while the starting process lives."""
    from .extensions import db
    from .services.online.hall import Pusher, links

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


def main() -> None:
    with contextlib.suppress(OSError):
        os.nice(10)  # the phones first
    logging.basicConfig(level=logging.INFO, format="scorer push: %(message)s")
    from . import create_app

    run(create_app())


if __name__ == "__main__":
    main()
