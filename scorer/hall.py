"""One command for a tournament in a hall without reception: ``python -m scorer.hall``.

The organiser's laptop runs the app for every phone on its own Wi-Fi
(docs/rules.md section 13.3, "Where it runs"):

1. the SQLite database in ``instance/`` is migrated to the newest schema, and what a
   restore left half-written when the laptop died is removed;
2. a secret key is kept in ``instance/secret_key`` (made once, readable by the
   owner only), so both worker processes sign the same forms and a restart
   in the middle of a round loses no form a phone is showing;
3. the links and QR codes carry the laptop's address on that network
   (``PUBLIC_URL``, unless it is set), never ``127.0.0.1``;
4. gunicorn serves on every interface, port 5000 (``PORT``), with two workers
   of four threads each (bench/RESULTS.md);
5. beside it run, each a process of its own at a low priority, the job queue's
   worker (``scorer.worker``: a round's paper made ahead), the pusher
   (``scorer.online_push``: a tournament the organiser put online is sent to its
   hosted copy whenever the laptop reaches the internet) and the follower
   (``scorer.follow``: it keeps a paired spare laptop and the backup folder up to
   date); one that ends by itself is started again, and all are stopped with the
   server.  Before it serves, a hall with a spare asks it whether it took over
   meanwhile (then this laptop writes nothing any more);
6. killed hard (kill -9, a crash) and started again at once, it comes back by itself:
   its workers die with it, and it waits for its port while anything still holds it
   (``scorer.processes``); the processes beside it end by themselves once the server
   that started them is gone (they watch their parent), and a new job queue worker
   waits for the old one's lock, so one renderer it stays.

It prints the address to open on the laptop and to give the phones.
"""

from __future__ import annotations

import logging
import os
import secrets
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from .network import lan_address
from .processes import die_with_parent, wait_for_port


def secret_key(instance: Path) -> str:
    """The key kept in ``instance/secret_key``, made on the first start."""
    instance.mkdir(parents=True, exist_ok=True)
    path = instance / "secret_key"
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    key = secrets.token_hex(32)
    with os.fdopen(handle, "w") as out:
        out.write(key + "\n")
    return key


def instance_folder() -> Path:
    """Where the app keeps its database and key (Flask's instance folder of ``scorer``):
    ``instance/`` in a checkout, beside the installed package otherwise."""
    from flask import Flask

    return Path(Flask("scorer").instance_path)


log = logging.getLogger(__name__)

AGAIN_AFTER = 5.0
"""Seconds before a process beside the server that ended by itself is started again."""
STOP_WAIT = 10.0
"""Seconds a process beside the server gets to end when the server stops."""


class Beside:
    """A process of the app beside the server (``python -m scorer.<name>``): started again
    when it ends by itself, stopped with the server."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._keeper = threading.Thread(target=self._keep, name=module, daemon=True)

    def start(self) -> None:
        self._keeper.start()

    def _keep(self) -> None:
        while True:
            with self._lock:  # (a stop at this moment either comes first or finds it)
                if self._stopping.is_set():
                    return
                process = self.process = subprocess.Popen([sys.executable, "-m", self.module])
            code = process.wait()
            if self._stopping.is_set():
                return
            log.warning("%s ended (%s): started again in %s s", self.module, code, AGAIN_AFTER)
            self._stopping.wait(AGAIN_AFTER)

    def stop(self) -> None:
        with self._lock:
            self._stopping.set()
            process = self.process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=STOP_WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def serve(bind: str, *, workers: int = 2, pusher: bool = False, worker: bool = True) -> None:
    """Migrate, then serve with gunicorn on ``bind`` (gthread: ``workers`` × 4 threads).

    ``worker``: the job queue's worker beside it (``scorer.worker``); ``pusher``: the
    tournament online's pusher and the spare's follower (``scorer.follow``).  Each a
    process of its own, started again when it ends by itself, stopped with the server.
    """
    from gunicorn.app.base import BaseApplication

    from . import create_app

    app = create_app()
    with app.app_context():
        from flask_migrate import upgrade

        from .services.tournaments.restoring import discard_stale

        upgrade()
        discard_stale()  # what a restore left when the laptop died in the middle of it
        if pusher:
            from .services.spare.feed import check_at_start

            if check_at_start():  # the spare took over while this laptop was away
                print("scorer: the spare laptop has taken over: this one writes nothing")

    class Server(BaseApplication):
        def load_config(self) -> None:
            settings: dict[str, Any] = {
                "bind": bind,
                "workers": workers,
                "threads": 4,
                "worker_class": "gthread",
                "timeout": 60,
            }
            for key, value in settings.items():
                self.cfg.set(key, value)
            # a worker dies with its master (kill -9 of the hall): the port is free at once
            self.cfg.set("post_fork", _dies_with_master)

        def load(self) -> Any:
            from . import create_app as fresh

            return fresh()

    host, _, port = bind.rpartition(":")
    wait_for_port(host.strip("[]") or "0.0.0.0", int(port))  # the old server's workers going
    beside = [
        Beside(module)
        for module, wanted in (
            ("scorer.worker", worker),
            ("scorer.online_push", pusher),
            ("scorer.follow", pusher),
        )
        if wanted
    ]
    for process in beside:
        process.start()
    try:
        sys.argv = sys.argv[:1]
        Server().run()
    finally:
        for process in beside:
            process.stop()


def _dies_with_master(server: Any, worker: Any) -> None:
    """gunicorn's post_fork: the worker gets SIGKILL when its master dies (scorer.processes)."""
    die_with_parent(expected_parent=worker.ppid)


def main() -> None:
    """The hall: a kept key, the laptop's address in the links, served to the hall's network."""
    port = int(os.environ.get("PORT", "5000"))
    if not (os.environ.get("SCORER_SECRET_KEY") or os.environ.get("SECRET_KEY")):  # README
        os.environ["SECRET_KEY"] = secret_key(instance_folder())
    os.environ.setdefault("HALL", "1")  # the pages of the spare laptop and the backup folder
    address = lan_address()
    given = os.environ.get("SCORER_PUBLIC_URL") or os.environ.get("PUBLIC_URL")  # README
    if address and not given:
        os.environ["PUBLIC_URL"] = f"http://{address}:{port}"
    public = given or os.environ.get("PUBLIC_URL") or f"http://127.0.0.1:{port}"
    print(f"scorer: open {public} (on this laptop also http://127.0.0.1:{port})", flush=True)
    serve(f"0.0.0.0:{port}", workers=int(os.environ.get("WORKERS", "2")), pusher=True)


if __name__ == "__main__":
    main()
