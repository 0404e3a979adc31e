"""One command for a tournament in a hall without reception: ``python -m scorer.hall``.

The organiser's laptop runs the app for every phone on its own Wi-Fi
(TOURNAMENT.md section 2, "Where it runs on the night"):

1. the SQLite database in ``instance/`` is migrated to the newest schema, and what a
   restore left half-written when the laptop died is removed;
2. a secret key is kept in ``instance/secret_key`` (made once, readable by the
   owner only), so both worker processes sign the same forms and a restart
   in the middle of a round loses no form a phone is showing;
3. the links and QR codes carry the laptop's address on that network
   (``PUBLIC_URL``, unless it is set), never ``127.0.0.1``;
4. gunicorn serves on every interface, port 5000 (``PORT``), with two workers
   of four threads each (bench/RESULTS.md);
5. beside it runs the pusher (``scorer.online_push``), a process of its own at a
   low priority: a tournament the organiser put online is sent to its hosted
   copy whenever the laptop reaches the internet;
6. and the follower (``scorer.follow``), another: it keeps a paired spare laptop
   and the backup folder up to date.  Before it serves, a hall with a spare asks
   it whether it took over meanwhile (then this laptop writes nothing any more).

It prints the address to open on the laptop and to give the phones.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

from .network import lan_address


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


def serve(bind: str, *, workers: int = 2, pusher: bool = False) -> None:
    """Migrate, then serve with gunicorn on ``bind`` (gthread: ``workers`` × 4 threads).

    ``pusher``: the tournament online's pusher beside it, a process of its own (it ends
    when this one does).
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

        def load(self) -> Any:
            from . import create_app as fresh

            return fresh()

    beside = ("online_push", "follow") if pusher else ()
    started = [subprocess.Popen([sys.executable, "-m", f"scorer.{name}"]) for name in beside]
    try:
        sys.argv = sys.argv[:1]
        Server().run()
    finally:
        for process in started:
            process.terminate()


def main() -> None:
    """The hall: a kept key, the laptop's address in the links, served to the hall's network."""
    port = int(os.environ.get("PORT", "5000"))
    os.environ.setdefault("SECRET_KEY", secret_key(instance_folder()))
    os.environ.setdefault("HALL", "1")  # the pages of the spare laptop and the backup folder
    address = lan_address()
    if address and not os.environ.get("PUBLIC_URL"):
        os.environ["PUBLIC_URL"] = f"http://{address}:{port}"
    public = os.environ.get("PUBLIC_URL") or f"http://127.0.0.1:{port}"
    print(f"scorer: open {public} (on this laptop also http://127.0.0.1:{port})", flush=True)
    serve(f"0.0.0.0:{port}", workers=int(os.environ.get("WORKERS", "2")), pusher=True)


if __name__ == "__main__":
    main()
