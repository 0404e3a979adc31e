"""The app as gunicorn serves it, with faults a test asks for by putting a file in a folder.

``SCORER_FAULTS`` names the folder.  A hand save (a POST to ``…/hands``) that finds
``kill-after-commit`` there removes it and kills its own worker right after its commit:
the hand is saved, its answer never leaves.  ``hold-after-commit`` is taken by the first
save that commits (it becomes ``holding``), which then waits until the test removes
``holding``: an answer that is late while other requests are answered.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

from flask import Flask, has_request_context, request
from sqlalchemy import event
from sqlalchemy.orm import Session

from scorer import create_app as create_scorer

HOLD_AT_MOST = 30.0  # seconds: a test that never lets go fails, the server goes on


def _a_hand_save() -> bool:
    return has_request_context() and request.method == "POST" and request.path.endswith("/hands")


def create_app() -> Flask:
    app = create_scorer()
    folder = Path(os.environ["SCORER_FAULTS"])

    def after_commit(_session: Any) -> None:
        if not _a_hand_save():
            return
        kill = folder / "kill-after-commit"
        if kill.exists():
            kill.unlink()
            os.kill(os.getpid(), signal.SIGKILL)
        holding = folder / "holding"
        try:
            (folder / "hold-after-commit").rename(holding)  # one save takes it
        except FileNotFoundError:
            return
        deadline = time.monotonic() + HOLD_AT_MOST
        while holding.exists() and time.monotonic() < deadline:
            time.sleep(0.01)

    event.listen(Session, "after_commit", after_commit)
    return app
