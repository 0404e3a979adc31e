"""Work made ahead, in a process of its own at a low priority: ``python -m scorer.ahead``.

The round's table cards and paper slips take the renderer many seconds of CPU
for a big hall (bench/RESULTS.md, "Tournament paper").  Made inside a web
worker they would hold its GIL that long, and every phone whose poll or hand
that worker's other threads serve would wait.  So they are made ahead, right
after the draw, by a child process that

- runs at a lower CPU priority (``PDF_AHEAD_NICE`` steps of ``nice``, default
  10, set by the parent the moment it starts: when the phones want the CPU
  they get it first),
- takes its turn in the server's work slots (:func:`scorer.slots.work_slot`,
  waiting up to ``PDF_AHEAD_WAIT`` seconds: it holds no web thread while it
  waits),
- gets the app's settings and the job on its standard input (never on the
  command line: the database's address may carry a password), and the claims
  of what it makes as inherited file descriptors (:mod:`scorer.pdf.making`):
  whoever asks for the PDF meanwhile is told it is being prepared, and no
  second process starts on it.

:func:`start` runs a job (``module:function`` and its JSON arguments) and
returns at once; the view that asked answers without waiting.  A thread of
the starting process waits for the child's end (no zombie in a gunicorn
worker).  ``PDF_AHEAD = False`` (the tests' default) starts nothing; a test
that turns it on waits for :func:`running` to end.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from flask import Flask, current_app

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent

_running: set[subprocess.Popen[bytes]] = set()
_lock = threading.Lock()


def enabled() -> bool:
    """Whether this app makes work ahead (``PDF_AHEAD``)."""
    return bool(current_app.config.get("PDF_AHEAD", False))


def _settings(app: Flask, folders: Mapping[str, str]) -> dict[str, Any]:
    """The app's settings a child needs, as JSON: every plain value, and the folders resolved
    (a child's instance folder may be another)."""
    plain = (str, int, float, bool, type(None))

    def is_plain(value: object) -> bool:
        if isinstance(value, plain):
            return True
        if isinstance(value, list | tuple):
            return all(is_plain(v) for v in value)
        if isinstance(value, dict):
            return all(isinstance(k, str) and is_plain(v) for k, v in value.items())
        return False

    settings = {key: value for key, value in app.config.items() if is_plain(value)}
    settings.update(folders)
    settings["WORK_SLOT_WAIT"] = float(app.config.get("PDF_AHEAD_WAIT", 600))
    return settings


def start(
    job: str, arguments: Mapping[str, Any], fds: Sequence[int], folders: Mapping[str, str]
) -> subprocess.Popen[bytes] | None:
    """Run ``job`` (``"package.module:function"``) in a child process; don't wait for it.

    The function is called as ``function(arguments, fds)`` inside the child's app
    context; ``fds`` are descriptors the child inherits (its claims).  None when
    the child could not be started (logged; the caller's claims stay its own).
    """
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    message = {
        "settings": _settings(app, folders),
        "job": job,
        "arguments": dict(arguments),
        "fds": list(fds),
    }
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "scorer.ahead"],
            stdin=subprocess.PIPE,
            pass_fds=tuple(fds),
            cwd=ROOT,
        )
    except OSError:
        log.warning("could not start %s ahead", job, exc_info=True)
        return None
    _lower(child.pid, int(app.config.get("PDF_AHEAD_NICE", 10)))
    assert child.stdin is not None
    try:
        with child.stdin:
            child.stdin.write(json.dumps(message).encode())
    except OSError:  # it ended before it read its job: its claims end with it
        log.warning("work made ahead did not take its job", exc_info=True)
    with _lock:
        _running.add(child)
    threading.Thread(target=_reap, args=(child,), daemon=True, name="ahead-reaper").start()
    return child


def _lower(pid: int, steps: int) -> None:
    """The child's CPU priority ``steps`` below this process's, set before it has read its
    job (its imports, the app and the render all run low)."""
    try:
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, pid, min(19, mine + steps))
    except OSError:
        log.warning("could not lower the priority of work made ahead", exc_info=True)


def _reap(child: subprocess.Popen[bytes]) -> None:
    child.wait()
    with _lock:
        _running.discard(child)
    if child.returncode:
        log.warning("work made ahead ended with %s", child.returncode)


def running() -> list[subprocess.Popen[bytes]]:
    """The children this process started that have not ended yet."""
    with _lock:
        return [child for child in _running if child.returncode is None]


def main() -> None:
    """The child: build the app from the settings it was given, run the job, exit."""
    message = json.loads(sys.stdin.buffer.read())
    from . import create_app

    app = create_app(message["settings"])
    module, _, name = str(message["job"]).partition(":")
    function = getattr(importlib.import_module(module), name)
    with app.app_context():
        function(message["arguments"], [int(fd) for fd in message["fds"]])


if __name__ == "__main__":
    main()
