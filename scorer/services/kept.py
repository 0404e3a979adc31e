"""What a process keeps for a moment: a value read a moment ago answers the next asks.

The read-only pages poll every few seconds, many of them the same link (a hall's
phones, a final's viewers at home).  Reading the database for each poll made the
database the limit of an unchanged poll; a value kept for half a second per link
and process costs it one read per link and process every half second instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from cachetools import LRUCache

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """Values by key, each answered again for ``seconds`` after it was read (thread-safe)."""

    def __init__(self, size: int) -> None:
        self.lock = threading.Lock()
        self.values: LRUCache[K, tuple[float, V]] = LRUCache(maxsize=size)

    def get(self, key: K, seconds: float, read: Callable[[], V]) -> V:
        """The value of ``key`` read less than ``seconds`` ago, or ``read()`` now."""
        now = time.monotonic()
        if seconds > 0:
            with self.lock:
                kept = self.values.get(key)
            if kept is not None and now - kept[0] < seconds:
                return kept[1]
        value = read()
        if seconds > 0:
            with self.lock:
                self.values[key] = (now, value)
        return value


class Derived:
    """What a value makes once and keeps, by key (thread-safe): a public build's pages,
    their fingerprints and renders, made once per build and process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: dict[Hashable, object] = {}

    def once(self, key: Hashable, make: Callable[[], V]) -> V:
        """``make()`` the first time ``key`` is asked, the same value after."""
        with self._lock:
            if key in self._made:
                return self._made[key]  # type: ignore[return-value]
        value = make()
        with self._lock:
            return self._made.setdefault(key, value)  # type: ignore[return-value]
