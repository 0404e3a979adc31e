"""A PDF being made: one claim per cache key, shared by every process of this instance.

A long printout (a round's 200 paper slips) takes many seconds; the organiser
who taps again meanwhile, a second web worker process, or the job queue's worker
making it ahead (:mod:`scorer.paper.ahead`) must not make it a second time.  So
whoever makes the PDF of a key first *claims* it: an exclusive ``flock`` on
``<key>.making`` beside the cached PDFs, holding when the making began and how
long it is expected to take.  The kernel releases it when its holder closes it
or dies, so a crash leaves no claim behind.  The holder stores the PDF first,
then removes the file, then lets go: whoever finds no claim finds the PDF.

:func:`claim` takes a claim (None when somebody else holds one);
:func:`under_way` reads since when a claimed key is being made and how long
it should take, for the "being prepared, ready in n seconds" page.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..slots import folder

SUFFIX = ".making"


@dataclass(frozen=True)
class UnderWay:
    """A PDF being made: when it began (``time.time()``) and how long it should take (s)."""

    started: float
    seconds: float

    def left(self, now: float | None = None) -> int:
        """Whole seconds until it should be ready; at least 1 (it may take longer)."""
        now = time.time() if now is None else now
        return max(1, round(self.started + self.seconds - now))


def _path(key: str) -> Path:
    return folder("PDF_CACHE_DIR", "pdf-cache") / f"{key}{SUFFIX}"


class Claim:
    """The right to make the PDF of ``key``, until :meth:`release` (or the holder's end)."""

    def __init__(self, key: str, path: Path, handle: IO[bytes]) -> None:
        self.key, self.path, self._handle = key, path, handle

    def expect(self, seconds: float) -> None:
        """Say in the claim's file that the making begins now and takes about ``seconds``."""
        self._handle.seek(0)
        self._handle.truncate()
        self._handle.write(json.dumps({"started": time.time(), "seconds": seconds}).encode())
        self._handle.flush()

    def release(self) -> None:
        """Let go of the claim: the PDF is stored (or given up), its file removed."""
        if self._handle.closed:
            return
        self.path.unlink(missing_ok=True)
        self._handle.close()  # the lock goes with the file's descriptor

    def __enter__(self) -> Claim:
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def claim(key: str, seconds: float) -> Claim | None:
    """Claim ``key`` for a making of about ``seconds``; None while another holds it.

    Whether the PDF is made meanwhile, the caller checks after it holds the
    claim (the holder before stored it, then let go).
    """
    path = _path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        handle = path.open("a+b")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return None
        # the file may have been removed by its last holder between open and lock:
        # a lock on a removed file claims nothing, so take the file that is there now
        try:
            same = os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        handle.close()
    found = Claim(key, path, handle)
    found.expect(seconds)
    return found


def under_way(key: str) -> UnderWay | None:
    """What the claim on ``key`` says: since when and for how long it is being made.

    Asked after :func:`claim` found the key held.  None when the file is gone
    meanwhile (the PDF was just stored).
    """
    try:
        text = _path(key).read_bytes()
    except FileNotFoundError:
        return None
    try:
        found = json.loads(text or b"{}")
        return UnderWay(float(found["started"]), float(found["seconds"]))
    except (ValueError, KeyError, TypeError):
        return UnderWay(time.time(), 0.0)  # its holder is writing it this moment
