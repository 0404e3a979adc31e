"""The job queue (scorer.jobs): a worker's sign of life, and a job cut off once it is not
wanted any more.

A job that watches whether it is still wanted (:func:`scorer.jobs.watch`) is
stopped where it is in a worker process — here this process plays one (its
``SIGUSR1`` handler installed, as each worker process does as it starts).  The
tests wait for the cut, never for a time: a job that is not cut off runs until
pytest-timeout fails the test.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from scorer import jobs
from scorer.jobs import Abandoned, watch


@pytest.fixture
def as_worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process as a worker process, for the test."""
    before = signal.getsignal(signal.SIGUSR1)
    signal.signal(signal.SIGUSR1, jobs.abandon)
    monkeypatch.setattr(jobs.here, "worker", True)
    monkeypatch.setattr(jobs.here, "recycle", False)
    try:
        yield
    finally:
        signal.signal(signal.SIGUSR1, before)


def test_a_job_no_longer_wanted_is_stopped_where_it_is(as_worker: None) -> None:
    wanted = [True]
    steps = 0
    with pytest.raises(Abandoned), watch(lambda: wanted[0], every=0.01):
        wanted[0] = False  # a newer wish came
        while True:  # a render going on
            steps += 1
            time.sleep(0.001)
    assert steps > 0
    assert jobs.here.recycle  # the process cut off mid-way is replaced after the job


def test_a_stop_the_work_swallowed_is_raised_after_it(as_worker: None) -> None:
    wanted = [True]
    swallowed = []
    with pytest.raises(Abandoned), watch(lambda: wanted[0], every=0.01):
        wanted[0] = False
        while not swallowed:
            try:
                time.sleep(0.001)
            except Abandoned:  # a renderer that logs what it could not load and goes on
                swallowed.append(True)
    assert swallowed


def test_a_job_still_wanted_runs_to_its_end(as_worker: None) -> None:
    looked = []

    def wanted() -> bool:
        looked.append(True)
        return True

    with watch(wanted, every=0.001):
        while len(looked) < 3:
            time.sleep(0.001)
    assert not jobs.here.recycle


def test_outside_a_worker_process_the_block_runs_to_its_end() -> None:
    with watch(lambda: False, every=0.001):
        time.sleep(0.05)  # (nothing here may be cut off: no handler for it)


@pytest.fixture
def app_config(tmp_path: Path) -> dict[str, Any]:
    return {"JOB_ALIVE": 60.0}


def test_the_worker_is_alive_while_it_says_so(in_app: Flask) -> None:
    queue = jobs.jobs(in_app)
    assert not queue.alive()  # no worker has said anything
    queue.beat()
    assert queue.alive()
    in_app.config["JOB_ALIVE"] = 0.0  # said too long ago
    assert not queue.alive()
    in_app.config["JOB_IMMEDIATE"] = True  # the jobs run where they are queued
    assert queue.alive()


def test_the_queues_values_are_kept_by_key(in_app: Flask) -> None:
    queue = jobs.jobs(in_app)
    assert queue.get("round") is None
    with queue.lock():
        queue.put("round", {"id": "a", "state": "queued"})
    assert queue.get("round") == {"id": "a", "state": "queued"}
    assert queue.path.parent == Path(in_app.config["JOB_QUEUE"]).parent
