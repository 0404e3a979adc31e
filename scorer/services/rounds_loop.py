"""The loop of a process beside the hall's server: a step every few seconds, while it lives.

The pusher (``services.online.pusher``) and the follower (``services.spare.follow``)
each run one: a step in an app context of its own, every ``every`` seconds (the step's
own time counted in), a step that fails logged and the next one tried regardless,
until ``rounds`` are done, ``stop`` is set, or the process that started this one ends
(the hall was stopped).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from ..extensions import db


def in_rounds(
    app: Any,
    step: Callable[[], object],
    *,
    every: float,
    rounds: int | None = None,
    log: logging.Logger,
    stop: threading.Event | None = None,
    parent: int | None = None,
) -> None:
    """``step()`` every ``every`` seconds (see the module's docstring)."""
    parent = os.getppid() if parent is None else parent
    halt = stop or threading.Event()
    done = 0
    while (rounds is None or done < rounds) and not halt.is_set():
        started = time.monotonic()
        with app.app_context():
            try:
                step()
            except Exception:  # the next round tries again; the hall goes on regardless
                log.exception("a round failed")
                db.session.rollback()
            finally:
                db.session.remove()
        done += 1
        if rounds is None and os.getppid() != parent:
            return  # the hall was stopped
        halt.wait(max(0.0, every - (time.monotonic() - started)))
