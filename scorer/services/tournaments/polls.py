"""The public pages' poll state, read at most every half second per link and process.

600 phones and the beamers of a hall ask every few seconds; nearly every
answer is "unchanged" (204/304).  Each answer needs the tournament's state
(:func:`.standings.poll_state`, one aggregate over every table's match); read
for every poll, PostgreSQL's share of an unchanged poll was larger than the
whole answer of a bare Flask app.
"""

from __future__ import annotations

import threading
import time

from cachetools import LRUCache
from flask import current_app

from .standings import EXTENSION, KEPT, PollState, poll_state

POLL_KEEP = 0.5
"""Seconds a process answers the public polls of one link from the state it last read
(the app's ``TOURNAMENT_POLL_KEEP``; 0 in the tests).  A hall's 600 phones and the
beamers then cost PostgreSQL one read per link and process every half second, not
one per poll (bench/RESULTS.md, "Tournament night")."""


class _Recent:
    """The poll states a process read last, by public link, with when (monotonic)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.states: LRUCache[str, tuple[float, PollState | None]] = LRUCache(maxsize=8 * KEPT)


def recent_poll_state(view_token: str) -> PollState | None:
    """:func:`poll_state`, read at most every :data:`POLL_KEEP` seconds per link and process."""
    keep = float(current_app.config.get("TOURNAMENT_POLL_KEEP", POLL_KEEP))
    if keep <= 0:
        return poll_state(view_token)
    recent: _Recent = current_app.extensions.setdefault(f"{EXTENSION}.polls", _Recent())
    now = time.monotonic()
    with recent.lock:
        kept = recent.states.get(view_token)
    if kept is not None and now - kept[0] < keep:
        return kept[1]
    state = poll_state(view_token)
    with recent.lock:
        recent.states[view_token] = (now, state)
    return state
