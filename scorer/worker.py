"""The job queue's worker: ``python -m scorer.worker`` (``scorer hall`` and ``scorer serve``
start it beside the server).

It runs the jobs the app queues (:mod:`scorer.jobs`; today a round's table
cards and slips, :mod:`scorer.paper.ahead`) in a process of its own at a low
CPU priority (``JOB_NICE``), one at a time (``JOB_RENDERERS``), and ends when
the process that started it ends.  Its settings are the app's (the environment,
as for the server); ``--settings FILE`` lays a JSON object of settings over
them (the tests and the bench give it their folders so).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scorer.worker", description=__doc__)
    parser.add_argument("--settings", type=Path, help="a JSON file of settings over the app's")
    args = parser.parse_args(argv)
    settings = json.loads(args.settings.read_text()) if args.settings else None
    logging.basicConfig(level=logging.INFO, format="scorer worker: %(message)s")
    logging.getLogger("huey").setLevel(logging.WARNING)  # not a line per job
    # not its steps, nor the image a render cut off by a newer wish did not load
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    from . import create_app

    app = create_app(settings)
    with contextlib.suppress(OSError):
        os.nice(int(app.config["JOB_NICE"]))  # the phones first
    from .jobs import consume
    from .pdf import preload

    preload()  # the renderer loaded once here, shared by every process forked from this one
    consume(app)


if __name__ == "__main__":
    main()
