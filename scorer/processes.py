"""The hall's server processes and the port they share, after a hard stop (kill -9, a crash).

gunicorn's workers inherit the listening socket from their master.  Killed hard,
the master cannot stop them: they live on and hold the port (up to gunicorn's
graceful timeout) while the hall, started again at once, cannot bind it.  So:

- :func:`die_with_parent`: a worker asks the kernel for SIGKILL when its master dies
  (Linux's parent-death signal), so the port is free the moment the master is gone —
  a request in flight is cut, and the phone sends it again (its key saves it once);
- :func:`wait_for_port`: the hall waits for its port while anything else still holds
  it, saying so, and gives up after a while with what to do.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import signal
import socket
import sys
import time
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(expected_parent: int | None = None) -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; elsewhere
    nothing happens and the answer is False).

    ``expected_parent``: the parent this process was started by; if it has died already
    (between the fork and this call), this process ends at once.
    """
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    if expected_parent is not None and os.getppid() != expected_parent:
        os._exit(0)  # the parent went before the signal was asked for: go now
    return True


def port_free(host: str, port: int) -> bool:
    """Whether a server could listen on ``host:port`` now (as gunicorn binds: SO_REUSEADDR,
    so connections of a stopped server still closing do not count)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            # held: wait.  Anything else (no such address, a port below 1024) is no
            # waiting matter: gunicorn's own bind says what it is.
            return error.errno != errno.EADDRINUSE
    return True


def wait_for_port(
    host: str,
    port: int,
    *,
    wait: float = 60.0,
    every: float = 0.5,
    say: Callable[[str], None] = print,
) -> None:
    """Return once ``host:port`` can be listened on; say once that it is waiting, and end
    the program with what to do when the port stays held for ``wait`` seconds."""
    deadline = time.monotonic() + wait
    told = False
    while not port_free(host, port):
        if time.monotonic() >= deadline:
            raise SystemExit(
                f"scorer: port {port} is still in use after {wait:.0f} s. Another program "
                f"holds it (`ss -ltnp 'sport = :{port}'` shows which): stop it, or start "
                f"the hall on another port (PORT=5001)."
            )
        if not told:
            say(
                f"scorer: port {port} is still held (the server stopped a moment ago, or "
                f"another program uses it); waiting up to {wait:.0f} s for it to be free …"
            )
            told = True
        time.sleep(every)
    if told:
        say(f"scorer: port {port} is free again.")
