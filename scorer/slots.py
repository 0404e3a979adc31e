"""Expensive work, bounded per server and per client.

Two kinds of request cost seconds of CPU: rendering a PDF of a long sheet and
importing a large backup.  On a server of two sync workers, two of them at once
would leave nobody to answer the live view and the hand form.  So:

- **per server**: such work runs in one of ``WORK_SLOTS`` slots (default 1),
  shared by every worker process of this instance: a slot is an exclusive
  ``flock`` on a file in ``WORK_SLOT_DIR`` (default ``<instance>/work-slots``;
  two servers on one machine each set their own), which the kernel releases
  when the process dies.  A request that finds every slot taken for
  ``WORK_SLOT_WAIT`` seconds gets 503 with ``Retry-After: WORK_RETRY_AFTER``
  and a page that says "try again in N seconds" (:func:`busy_response`).
- **per client**: Flask-Limiter counts the expensive requests of one address
  (``LIMIT_IMPORT``, ``LIMIT_PDF``; "6 per minute"), and the tries to make a page on
  a hosted copy (``LIMIT_ONLINE_PAGES``): one more gets 429 with ``Retry-After`` and
  the same kind of page (:func:`too_many`).

The counts are kept in each worker's memory (``RATELIMIT_STORAGE_URI``,
default ``memory://``): with two workers a client may get up to twice its
limit; the slots are what bound the server.
"""

from __future__ import annotations

import fcntl
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from flask import Flask, Response, current_app, render_template, request
from flask_babel import gettext
from flask_limiter.errors import RateLimitExceeded

from .extensions import limiter


class Busy(Exception):
    """Every work slot stayed taken for the whole wait."""


def folder(setting: str, default: str) -> Path:
    """A folder named by a setting, else ``default`` under the instance folder."""
    configured = current_app.config.get(setting)
    return Path(configured) if configured else Path(current_app.instance_path) / default


@contextmanager
def work_slot() -> Iterator[None]:
    """Hold one of ``WORK_SLOTS`` slots of this instance; :class:`Busy` when none came free."""
    config = current_app.config
    where = folder("WORK_SLOT_DIR", "work-slots")
    where.mkdir(parents=True, exist_ok=True)
    paths = [where / f"slot-{n}.lock" for n in range(max(1, int(config["WORK_SLOTS"])))]
    deadline = time.monotonic() + float(config["WORK_SLOT_WAIT"])
    held: IO[bytes] | None = None
    while held is None:
        for path in paths:
            handle = path.open("ab")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            held = handle
            break
        else:
            if time.monotonic() >= deadline:
                raise Busy
            time.sleep(0.05)
    try:
        yield
    finally:
        fcntl.flock(held, fcntl.LOCK_UN)
        held.close()


def _wait_page(code: int, seconds: int, message: str) -> Response:
    html = render_template("errors/error.html", code=code, message=message)
    response = Response(html, status=code, mimetype="text/html")
    response.headers["Retry-After"] = str(seconds)
    response.headers["Cache-Control"] = "no-store"
    return response


def busy_response(message: str | None = None) -> Response:
    """503: the server's slots are taken; "try again in N seconds" in the user's language."""
    seconds = int(current_app.config["WORK_RETRY_AFTER"])
    text = message or gettext("The server is busy with other printouts and imports.")
    return _wait_page(
        503, seconds, text + " " + gettext("Please try again in %(n)s seconds.", n=seconds)
    )


def too_many(error: RateLimitExceeded) -> Response:
    """429: this client asked for expensive work too often; when it may ask again."""
    current = limiter.current_limit
    seconds = 60
    if current is not None:
        window = current.limit.get_expiry()
        seconds = max(1, min(window, math.ceil(current.reset_at - time.time())))
    if request.endpoint == "online.new":
        message = gettext(
            "This device has tried to make many pages here in a short time. "
            "Please try again in %(n)s seconds.",
            n=seconds,
        )
    else:
        message = gettext(
            "This device has asked for many printouts or imports in a short time. "
            "Please try again in %(n)s seconds.",
            n=seconds,
        )
    return _wait_page(429, seconds, message)


def import_limit() -> str:
    return str(current_app.config["LIMIT_IMPORT"])


def pdf_limit() -> str:
    return str(current_app.config["LIMIT_PDF"])


def online_pages_limit() -> str:
    """How often one address may try to make a page on this hosted copy (every try counts:
    a guessed invitation code too)."""
    return str(current_app.config["LIMIT_ONLINE_PAGES"])


def init_app(app: Flask) -> None:
    """The limiter bound to the app, and its 429 page."""
    limiter.init_app(app)
    app.register_error_handler(RateLimitExceeded, too_many)
