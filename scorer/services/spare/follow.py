"""The rounds of the hall's follower: the spare and the backup folder kept up to date.

``python -m scorer.follow`` (started by ``python -m scorer.hall`` beside the
server, a process of its own at a low priority) runs :func:`run`: every
:data:`EVERY` second a round of the spare's pushes (:class:`~.feed.Feed`), and in
a thread of its own the folder's files (:class:`~.folder.Folder`) — a big
tournament's file taking its seconds never holds the spare back.  Each is
bounded (a push holds at most a budget of groups, a file is written at most
every few seconds).  A round that fails is logged and the next one tries again:
the hall goes on regardless.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from ..rounds_loop import in_rounds
from ..wire import Post, post
from .feed import Feed
from .folder import Folder

EVERY = 1.0
"""Seconds between two rounds (a save is on the spare and in the folder a few seconds after)."""

log = logging.getLogger("scorer.follow")


def run(
    app: Any,
    rounds: int | None = None,
    every: float = EVERY,
    send: Post = post,
) -> None:
    """Follow in rounds, forever (or ``rounds`` times), while the starting process lives."""
    parent = os.getppid()
    feed = Feed(cards=str(app.config.get("PUBLIC_URL") or ""), send=send)
    folder = Folder()
    setting = str(app.config.get("BACKUP_FOLDER") or "")
    stop = threading.Event()
    beside = threading.Thread(
        target=in_rounds,
        args=(app, lambda: folder.round(setting)),
        kwargs={"every": every, "rounds": rounds, "log": log, "stop": stop, "parent": parent},
        name="backup folder",
        daemon=True,
    )
    beside.start()
    try:
        in_rounds(app, feed.round, every=every, rounds=rounds, log=log, stop=stop, parent=parent)
    finally:
        stop.set()
        beside.join(timeout=60)
