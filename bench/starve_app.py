"""The app ``bench/bench_starve.py`` serves: ``scorer.create_app()`` with its folders in a temp dir.

``STARVE_DIR`` names the benchmark's folder; the work slots and the PDF cache go
there instead of the checkout's ``instance/`` (a fresh cache per server, no
slot shared with anything else), as README.md advises for a second server on
one machine.  Every other setting is the app's default; ``app(limits=False)``
turns Flask-Limiter off (``RATELIMIT_ENABLED``), so that only the work slots
stand between the strangers and the server — what many strangers at many
addresses would get.  gunicorn: ``'starve_app:app()'`` or
``'starve_app:app(limits=False)'`` with ``--pythonpath bench``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask

from scorer import create_app


def app(limits: bool = True) -> Flask:
    where = Path(os.environ["STARVE_DIR"])
    config: dict[str, Any] = {
        "WORK_SLOT_DIR": str(where / "work-slots"),
        "PDF_CACHE_DIR": str(where / "pdf-cache"),
    }
    if not limits:
        config["RATELIMIT_ENABLED"] = False
    return create_app(config)
