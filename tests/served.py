"""The app served as in production, for the tests that need a real server and real sockets.

:class:`Server` runs gunicorn (two worker processes; threads on request) in a
process group of its own, so a test can kill it whole; :class:`Phone` is a plain
HTTP client with cookies that follows no redirect, like a browser without JavaScript.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]


class Phone:
    """A plain HTTP client with cookies (no redirects followed), like a browser without JS."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}
        self.last_location = ""

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> Any:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body, headers)
            response = conn.getresponse()
            data = response.read().decode()
        finally:
            conn.close()
        self.last_location = response.getheader("Location") or ""
        for cookie in response.msg.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        return response.status, data


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """gunicorn serving ``app`` (a gunicorn app spec) in its own process group.

    ``threads``: gunicorn's gthread workers with that many threads each (production's
    ``--threads 4``); 0 keeps the sync workers.  ``preload``: the app is made once in
    gunicorn's master and the workers fork from it (``--preload``): a server up in the
    time of one app instead of one per worker, for tests that start many.
    """

    def __init__(
        self,
        env: dict[str, str],
        log: Path,
        app: str = "scorer:create_app()",
        threads: int = 0,
        preload: bool = False,
    ) -> None:
        self.env = env
        self.log = log
        self.app = app
        self.threads = threads
        self.preload = preload
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, port: int | None = None) -> None:
        """Start (again): on ``port`` when given (the links handed out carry it)."""
        self.port = port or free_port()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    str(ROOT / ".venv" / "bin" / "gunicorn"),
                    "-w",
                    "2",
                    *(["--threads", str(self.threads)] if self.threads else []),
                    *(["--preload"] if self.preload else []),
                    "-b",
                    f"127.0.0.1:{self.port}",
                    self.app,
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=log,
                start_new_session=True,  # its own group: the workers die with it
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            # (a gunicorn that could not bind exits: another server's answer is not its own)
            if self.process.poll() is not None:
                break
            try:
                status, _ = Phone(self.port).request("GET", "/")
                if status == 200 and self.process.poll() is None:
                    return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("gunicorn did not start:\n" + self.log.read_text()[-3000:])

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
            self.process = None
