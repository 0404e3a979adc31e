"""The hall comes back by itself when it is started again right after a hard stop.

``python -m scorer.hall`` runs for real (gunicorn, two workers, the pusher) on a free
port and an SQLite file of its own (the hall is a laptop on SQLite, on either test
run).  Its master is killed with SIGKILL: its workers die with it (a parent-death
signal), so the hall started again at once on the same port serves.  And while
another program holds the port, the hall says so and waits, then serves.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer.processes import port_free, wait_for_port
from tests.served import free_port

ROOT = Path(__file__).resolve().parents[2]
START = 90.0
"""Seconds a hall gets to start serving (a bound for a loaded machine, not a measure)."""


def answers(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            connection.request("GET", "/")
            return connection.getresponse().status == 200
        finally:
            connection.close()
    except OSError:
        return False


class Hall:
    """``python -m scorer.hall`` in a session of its own, its output in ``log``."""

    def __init__(self, tmp_path: Path, port: int) -> None:
        self.port = port
        self.log = tmp_path / "hall.log"
        self.env = {
            **os.environ,
            "PORT": str(port),
            "DATABASE_URL": f"sqlite:///{tmp_path / 'hall.sqlite'}",
            "SECRET_KEY": "hall-restart-secret",
            "PUBLIC_URL": f"http://127.0.0.1:{port}",
            "WORKERS": "2",
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
        }
        self.env.pop("TEST_DATABASE_URL", None)
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self) -> subprocess.Popen[bytes]:
        with self.log.open("ab") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "scorer.hall"],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=out,
                start_new_session=True,
            )
        self.started.append(process)
        return process

    def serves(self, process: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + START
        while not answers(self.port):
            assert process.poll() is None, "the hall ended:\n" + self.output()[-4000:]
            assert time.monotonic() < deadline, "the hall never served:\n" + self.output()
            time.sleep(0.2)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        for process in self.started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[Hall]:
    made = Hall(tmp_path, free_port())
    yield made
    made.stop()


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.extend(int(n) for n in text)
    return found


def forked(pid: int) -> list[int]:
    """The children of ``pid`` with its own command line (gunicorn's workers)."""
    line = Path(f"/proc/{pid}/cmdline").read_bytes()
    return [c for c in children(pid) if Path(f"/proc/{c}/cmdline").read_bytes() == line]


def gone(pid: int) -> bool:
    """Ended: no such process any more, or a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a parent-death signal: Linux")
def test_killed_hard_and_started_again_at_once_the_hall_serves(hall: Hall) -> None:
    first = hall.start()
    hall.serves(first)
    # gunicorn's workers: forked from the master (its command line); the pusher is started
    deadline = time.monotonic() + START
    while len(workers := forked(first.pid)) < 2:
        assert time.monotonic() < deadline, hall.output()
        time.sleep(0.1)

    os.kill(first.pid, signal.SIGKILL)  # the master, killed hard (its workers are not told)
    first.wait(timeout=30)
    again = hall.start()  # at once, on the same port
    hall.serves(again)
    deadline = time.monotonic() + START
    while not all(gone(pid) for pid in workers):  # they died with their master
        assert time.monotonic() < deadline, [p for p in workers if not gone(p)]
        time.sleep(0.1)
    assert again.poll() is None
    assert "Traceback" not in hall.output()


def test_while_another_program_holds_the_port_the_hall_says_so_and_waits(hall: Hall) -> None:
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("0.0.0.0", hall.port))
    holder.listen()
    try:
        process = hall.start()
        deadline = time.monotonic() + START
        while f"port {hall.port} is still held" not in hall.output():
            assert process.poll() is None, hall.output()
            assert time.monotonic() < deadline, hall.output()
            time.sleep(0.1)
    finally:
        holder.close()
    hall.serves(process)
    assert f"port {hall.port} is free again" in hall.output()


def test_a_port_that_stays_held_ends_the_wait_with_what_to_do() -> None:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    said: list[str] = []
    try:
        assert not port_free("127.0.0.1", port)
        with pytest.raises(SystemExit) as ended:
            wait_for_port("127.0.0.1", port, wait=0.3, every=0.05, say=said.append)
    finally:
        holder.close()
    assert len(said) == 1 and "still held" in said[0]
    assert f"port {port} is still in use" in str(ended.value) and "PORT=" in str(ended.value)
    assert port_free("127.0.0.1", port)


GRANDCHILD = """
import os, sys, time
from scorer.processes import die_with_parent
assert die_with_parent(expected_parent=os.getppid())
print("ready", flush=True)
time.sleep(600)
"""
PARENT = f"""
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", {GRANDCHILD!r}], stdout=subprocess.PIPE)
assert child.stdout.readline().strip() == b"ready"
print(child.pid, flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a parent-death signal: Linux")
def test_a_process_asking_for_it_dies_with_its_parent() -> None:
    """What a worker asks for in gunicorn's post_fork: killed with its parent, it goes too
    (without the signal it would sleep on for ten minutes)."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert not gone(child)
        parent.kill()
        parent.wait(timeout=30)
        deadline = time.monotonic() + START
        while not gone(child):
            assert time.monotonic() < deadline, "the child lived on without its parent"
            time.sleep(0.05)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(parent.pid, signal.SIGKILL)
        parent.wait(timeout=30)
        if parent.stdout is not None:
            parent.stdout.close()
