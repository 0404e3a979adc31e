"""The hall's follower: ``python -m scorer.follow`` (``scorer.hall`` starts it).

Every second it brings the hall's spare laptop up to date (what changed since
the spare's last confirmed state, signed and numbered) and writes the backup
folder's files of the tournaments that changed (``services.spare``).  A process
of its own at a low priority, so that following never holds a phone's request
or the beamer.  It ends when the process that started it ends.
"""

from __future__ import annotations

import contextlib
import logging
import os


def main() -> None:
    with contextlib.suppress(OSError):
        os.nice(10)  # the phones first
    logging.basicConfig(level=logging.INFO, format="scorer follow: %(message)s")
    from . import create_app
    from .services.spare.follow import run

    run(create_app())


if __name__ == "__main__":
    main()
