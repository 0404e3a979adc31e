"""The hall's pusher: ``python -m scorer.online_push`` (``scorer.hall`` starts it).

Every ``services.online.pusher.EVERY`` seconds it looks at each tournament the organiser put online
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


def main() -> None:
    with contextlib.suppress(OSError):
        os.nice(10)  # the phones first
    logging.basicConfig(level=logging.INFO, format="scorer push: %(message)s")
    from . import create_app
    from .services.online.pusher import run

    run(create_app())


if __name__ == "__main__":
    main()
