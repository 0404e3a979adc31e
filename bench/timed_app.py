"""What ``bench/bench_tournament.py`` serves: ``scorer.create_app()``, each answer with its CPU.

A WSGI wrapper around the app's own ``wsgi_app`` adds ``X-Bench-CPU-us``: the
CPU microseconds the worker thread spent on the request up to its headers
(routing, the views, the database driver's share, rendering, compression —
everything but writing the body to the socket), from ``time.thread_time()``; a
gthread worker runs each request on one thread.  gunicorn writes it to the
access log (``tournament_load.ACCESS_FORMAT``), so a run can say which kind of
request the workers' CPU went to.  Nothing else differs from the app as
deployed.  gunicorn: ``'timed_app:app()'`` with ``--pythonpath bench``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask

from scorer import create_app

HEADER = "X-Bench-CPU-us"


class CpuTime:
    """WSGI middleware: the thread's CPU time for the request, as a response header."""

    def __init__(self, wsgi: Callable[..., Iterable[bytes]]) -> None:
        self.wsgi = wsgi

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        start = time.thread_time()

        def timed(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.append((HEADER, str(int((time.thread_time() - start) * 1_000_000))))
            return start_response(status, headers, exc_info)

        return self.wsgi(environ, timed)


def app() -> Flask:
    """scorer with each answer's CPU time; ``BENCH_CONFIG`` (JSON, optional): settings over
    the environment's (a bench's PDF cache and work slots in its own folder)."""
    flask_app = create_app(json.loads(os.environ.get("BENCH_CONFIG") or "{}") or None)
    flask_app.wsgi_app = CpuTime(flask_app.wsgi_app)  # type: ignore[method-assign]
    return flask_app
