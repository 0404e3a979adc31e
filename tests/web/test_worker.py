"""The job queue's real worker, ``python -m scorer.worker``, beside the app under test.

Draws and redraws in a row start no process: the worker's processes stay the
consumer and one renderer, whatever the number of wishes, and the newest draw's
paper ends up in the cache.  A worker stopped in the middle of a job puts it
back into the kept queue, and the next start makes it; a second worker on the
same instance waits for the first.  The tests wait for what the organiser
waits for (a PDF in the cache, the worker's sign of life), never for a time;
:data:`PATIENCE` only turns a hang into a failure.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.jobs import jobs
from scorer.paper.printouts import ROUND_PRINTOUTS
from scorer.pdf import cache, making
from scorer.services.tournaments import setup
from tests.builders import run_jobs
from tests.tournament_builders import tournament_with

ROOT = Path(__file__).resolve().parents[2]
PATIENCE = 240.0
"""Seconds a test waits for the worker before it fails (a worker that hangs)."""

SHARED = (
    "SQLALCHEMY_DATABASE_URI",
    "SECRET_KEY",
    "PDF_CACHE_DIR",
    "WORK_SLOT_DIR",
    "JOB_QUEUE",
    "PUBLIC_URL",
    "SQLITE_SYNCHRONOUS",
    "PDF_AHEAD",
    "JOB_ALIVE",
    "JOB_RENDERERS",
)


@pytest.fixture
def app_config(tmp_path: Path) -> dict[str, Any]:
    return {
        "PDF_CACHE_DIR": str(tmp_path / "pdf-cache"),
        "PUBLIC_URL": "http://192.168.4.1:5000",
        "PDF_AHEAD": True,
        "JOB_ALIVE": 3600,
    }


def until(what: Callable[[], bool], why: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting: {why}")
        time.sleep(0.05)


@contextmanager
def a_worker(app: Flask, tmp_path: Path, name: str = "worker") -> Iterator[subprocess.Popen[bytes]]:
    """``python -m scorer.worker`` on the app's database, queue and folders; stopped (SIGTERM,
    as ``scorer hall`` stops it) after the block."""
    settings = tmp_path / f"{name}.json"
    settings.write_text(json.dumps({key: app.config[key] for key in SHARED}))
    log = (tmp_path / f"{name}.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "scorer.worker", "--settings", str(settings)],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        finally:
            log.close()


def children(pid: int) -> list[int]:
    """Every process below ``pid`` (its children, theirs…), read from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        here = frontier.pop()
        below = [p for p, parent in parents.items() if parent == here]
        found += below
        frontier += below
    return found


def living(pid: int) -> bool:
    """``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def kept_paper(app: Flask, token: str) -> bool:
    """Whether the round's cards and slips as they stand now (in English) are in the cache."""
    with app.test_request_context("/?lang=en"):
        tournament = setup.get_tournament(token)
        row = tournament.round_rows[0]
        return all(cache.read(make(tournament, row).key) for make in ROUND_PRINTOUTS.values())


def draw(client: FlaskClient, token: str) -> None:
    response = client.post(f"/t/{token}/rounds?lang=en", data={"number": "1", "back": ""})
    assert response.status_code == 303


def test_draws_and_redraws_in_a_row_start_no_process(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    with app.app_context():
        token = str(tournament_with(12, rounds_=2).token)
    queue = jobs(app)
    # what earlier tests of this pytest process left running below it (a browser of the
    # e2e tests, its helpers) is theirs, not this test's
    before = {p for p in children(os.getpid()) if living(p)}
    with a_worker(app, tmp_path) as worker:
        until(lambda: queue.beside("alive").exists(), "the worker's sign of life")
        most = 0
        draw(client, token)
        for attempt in range(1, 41):
            answer = client.post(f"/t/{token}/rounds/1/redraw?lang=en", data={"attempt": attempt})
            assert answer.status_code == 303
            # this process starts none; the worker is its consumer, huey's scheduler and
            # one renderer
            below = [p for p in children(os.getpid()) if living(p) and p not in before]
            assert set(below) - {worker.pid} <= set(children(worker.pid))
            most = max(most, len(below))
            assert most <= 2 + app.config["JOB_RENDERERS"]
        until(lambda: kept_paper(app, token), "the last draw's cards and slips")
        until(lambda: queue.waiting() == 0, "the queue emptied")
        assert worker.poll() is None
    assert worker.returncode == 0


def test_a_worker_stopped_in_a_job_puts_it_back_and_the_next_start_makes_it(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    with app.app_context():
        token = str(tournament_with(9, rounds_=2).token)
    queue = jobs(app)
    queue.beat()  # (the worker is about to start)
    draw(client, token)
    assert queue.waiting() == 1
    with app.test_request_context("/?lang=en"):
        tournament = setup.get_tournament(token)
        cards = ROUND_PRINTOUTS["cards"](tournament, tournament.round_rows[0]).key
    # the job will wait for the queue's values, its PDFs claimed: caught in the middle
    with queue.lock(), a_worker(app, tmp_path) as worker:

        def claimed() -> bool:
            with app.app_context():
                return making.under_way(cards) is not None

        until(claimed, "the worker at work on the cards")
        worker.send_signal(signal.SIGTERM)  # the hall stops: its worker with it
        worker.wait(timeout=PATIENCE)
    assert queue.waiting() == 1  # put back, kept in the queue's file
    assert not kept_paper(app, token)
    assert run_jobs(app) == 1  # the next start (here: this process) makes it
    assert kept_paper(app, token)


def test_a_second_worker_on_the_same_instance_waits_for_the_first(
    app: Flask, tmp_path: Path
) -> None:
    queue = jobs(app)
    with a_worker(app, tmp_path, "first") as first:
        until(lambda: queue.beside("alive").exists(), "the first worker's sign of life")
        with a_worker(app, tmp_path, "second") as second:
            log = tmp_path / "second.log"
            until(lambda: b"waiting for it to end" in log.read_bytes(), "the second one's word")
            assert children(second.pid) == []  # no process of its own to run jobs
            assert first.poll() is None
