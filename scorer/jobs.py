"""Background work through a kept job queue: huey, its queue a SQLite file of the instance.

Work a request starts but need not wait for (a round's paper after the draw)
is a *job*: a registered name and plain arguments, kept in ``JOB_QUEUE``
(huey's SQLite storage, default ``<instance>/jobs.sqlite``; no server) until
the worker has run it, so a restart of the hall loses none.  The worker is
``python -m scorer.worker`` (``scorer hall`` and ``scorer serve`` start it
beside the server and stop it with the server); :func:`consume` is what it
runs:

- **one per instance, whatever happens**: it holds an exclusive ``flock`` on
  ``<queue>.worker`` while it lives (the kernel lets go when it dies); a second
  one started on the same instance waits until the first has gone.  It runs
  ``JOB_RENDERERS`` processes (default 1) that take jobs one at a time;
- **at a low priority, with a bound of its own**: ``JOB_NICE`` steps of
  ``nice`` below the web workers, and none of the requests' work slots
  (:mod:`scorer.slots`): the phones' requests get the CPU first, and a PDF asked
  for in a request or a backup import still finds its slot free while the worker
  renders;
- **bounded in memory**: a process that a job grew past ``JOB_MEMORY_MB`` is
  replaced by a fresh one, forked from the consumer, which never runs a job;
- **alive, and saying so**: every :data:`BEAT` seconds it touches
  ``<queue>.alive``.  :meth:`Jobs.alive` is what the app asks before it queues:
  with no worker (a plain ``flask run``) nothing is queued and the app does the
  work when it is asked for, as it would without a queue;
- **ending with the process that started it**, and putting back a job it was
  interrupted in (a stop in the middle of a render): the next start runs it.

Jobs are registered by name with the function that runs them
(:meth:`Jobs.register`, by the modules the app factory sets up); a job runs in an
app context of its own and gets its id (``job=``).  The queue also keeps small
values by key (:meth:`Jobs.get`, :meth:`Jobs.put`, read-modify-write under
:meth:`Jobs.lock`, which holds across processes): what a job was queued for,
so that a newer wish can replace an older one.  A job whose work is no longer
wanted while it runs stops where it is (:func:`watch`).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from flask import Flask, current_app
from huey import SqliteHuey, signals
from huey.api import Huey, Task, TaskWrapper
from huey.consumer import Consumer, ConsumerStopped, Worker, WorkerRecycle

from .extensions import db

log = logging.getLogger(__name__)

EXTENSION = "scorer.jobs"
BEAT = 2.0
"""Seconds between the worker's signs of life (``JOB_ALIVE`` is several of them)."""
HEALTH_CHECK = 1.0
"""Seconds between the consumer's looks at its processes: a process that ended (grown too
big, or killed) is replaced within this."""
IDLE_POLL = 1.0
"""Seconds an idle worker process waits at most before it looks at the queue again."""
WATCH = 1.0
"""Seconds between a running job's looks at whether it is still wanted (:func:`watch`)."""


class Abandoned(Exception):
    """The job's work is no longer wanted (a newer wish came): stopped where it was."""


class Jobs:
    """The job queue of one app: huey over ``JOB_QUEUE``, made when it is first used."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self._functions: dict[str, Callable[..., None]] = {}
        self._wrappers: dict[str, TaskWrapper] = {}
        self._huey: Huey | None = None
        self._made = threading.Lock()

    # -- where ----------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        """The queue's file (``JOB_QUEUE``, default ``<instance>/jobs.sqlite``)."""
        configured = self.app.config.get("JOB_QUEUE")
        return Path(configured) if configured else Path(self.app.instance_path) / "jobs.sqlite"

    def beside(self, suffix: str) -> Path:
        """A file beside the queue's: ``<queue>.<suffix>``."""
        return self.path.with_name(f"{self.path.name}.{suffix}")

    @property
    def immediate(self) -> bool:
        """huey's immediate mode (``JOB_IMMEDIATE``): a job runs when it is queued, here."""
        return bool(self.app.config.get("JOB_IMMEDIATE"))

    # -- the queue ------------------------------------------------------------------------

    @property
    def huey(self) -> Huey:
        """The huey of this app (its storage is opened the first time it is asked for)."""
        with self._made:
            if self._huey is None:
                if not self.immediate:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                huey = SqliteHuey(
                    "scorer", filename=str(self.path), immediate=self.immediate, results=False
                )
                for name, function in self._functions.items():
                    self._wrappers[name] = self._task(huey, name, function)
                huey.signal(signals.SIGNAL_INTERRUPTED)(partial(_put_back, huey))
                self._huey = huey
            return self._huey

    def _task(self, huey: Huey, name: str, function: Callable[..., None]) -> TaskWrapper:
        app = self.app

        def run(task: Task | None = None, **arguments: Any) -> None:
            # an app context of its own: in immediate mode this runs inside the request
            # that queued it, whose database session it must leave alone
            with app.app_context():
                try:
                    function(job=task.id if task is not None else "", **arguments)
                finally:
                    db.session.remove()

        run.__name__ = run.__qualname__ = name
        return huey.task(name=name, context=True)(run)

    def register(self, name: str, function: Callable[..., None]) -> None:
        """Run ``function(job=<id>, **arguments)`` for each job of ``name``."""
        self._functions[name] = function
        if self._huey is not None:
            self._wrappers[name] = self._task(self._huey, name, function)

    def task(self, name: str, **arguments: Any) -> Task:
        """A job of ``name`` with ``arguments`` (plain values), not queued yet: its ``id`` is
        known before it is (:meth:`enqueue`)."""
        self.huey  # noqa: B018 (registers the tasks)
        return self._wrappers[name].s(**arguments)

    def enqueue(self, task: Task) -> None:
        """Queue ``task``; in immediate mode it runs now, here (hold no :meth:`lock`)."""
        self.huey.enqueue(task)

    def waiting(self) -> int:
        """How many jobs are queued (not counting the ones running)."""
        return int(self.huey.pending_count())

    # -- small values, shared by the processes of this instance ------------------------------

    def get(self, key: str) -> Any:
        """The value kept under ``key``, or None."""
        return self.huey.get(key, peek=True)

    def put(self, key: str, value: Any) -> None:
        """Keep ``value`` (plain values) under ``key``."""
        self.huey.put(key, value)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the queue's values to this thread while it reads and writes them (a ``flock``:
        every process of this instance waits for it; hold it for moments only)."""
        path = self.beside("values")
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # -- the worker's signs of life -------------------------------------------------------

    def alive(self) -> bool:
        """Whether a worker runs this queue (it said so within ``JOB_ALIVE`` seconds);
        always in immediate mode (the jobs run in the process that queues them)."""
        if self.immediate:
            return True
        try:
            said = os.stat(self.beside("alive")).st_mtime
        except OSError:
            return False
        return time.time() - said < float(self.app.config["JOB_ALIVE"])

    def beat(self) -> None:
        """Say that a worker runs this queue (now)."""
        path = self.beside("alive")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        os.utime(path)


def _put_back(huey: Huey, _signal: str, task: Task) -> None:
    """A job interrupted by a stop goes back into the queue: the next start runs it."""
    log.info("job %s interrupted: queued again", task.name)
    huey.enqueue(task)


def init_app(app: Flask) -> None:
    app.extensions[EXTENSION] = Jobs(app)


def jobs(app: Flask | None = None) -> Jobs:
    """The job queue of ``app`` (default: the current app)."""
    found = (app or current_app).extensions[EXTENSION]
    assert isinstance(found, Jobs)
    return found


# -- a running job that is no longer wanted ----------------------------------------------

class Here:
    """What this process is to the queue: a worker process (set as it starts), watching a
    job (:func:`watch`), that job cut off, and whether a fresh process should follow."""

    def __init__(self) -> None:
        self.worker = self.armed = self.fired = self.recycle = False


here = Here()


def abandon(_signum: int, _frame: object) -> None:
    """The handler of ``SIGUSR1`` in a worker process: the watched job is cut off."""
    if here.armed:
        here.armed, here.fired = False, True
        here.recycle = True  # the renderer was cut off mid-way: a fresh process next
        raise Abandoned


@contextlib.contextmanager
def watch(wanted: Callable[[], bool], every: float = WATCH) -> Iterator[None]:
    """Run the block while ``wanted()`` stays true, looked at every ``every`` seconds;
    :class:`Abandoned` in the block once it turns false (and after it, should the block
    have swallowed it: a renderer that logs what it could not load and goes on).

    Only in a worker process (the job's thread is its main thread, where a
    signal's handler runs); elsewhere — huey's immediate mode, a test that runs the
    queue itself — the block runs to its end.
    """
    if not here.worker or threading.current_thread() is not threading.main_thread():
        yield
        return
    stop = threading.Event()

    def look() -> None:
        while not stop.wait(every):
            try:
                still = wanted()
            except Exception:  # a busy queue file: look again
                log.warning("could not look whether a job is still wanted", exc_info=True)
                continue
            if not still:
                os.kill(os.getpid(), signal.SIGUSR1)
                return

    watcher = threading.Thread(target=look, name="job-watch", daemon=True)
    here.armed, here.fired = True, False
    watcher.start()
    try:
        yield
    finally:
        here.armed = False
        stop.set()
        watcher.join()
    if here.fired:
        raise Abandoned


# -- the worker ------------------------------------------------------------------------------


def resident_bytes() -> int:
    """This process's resident memory now (Linux: ``/proc/self/statm``)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


class _Worker(Worker):
    """A process that runs jobs, replaced after a job that grew it past its bound (or cut a
    render off), and ended once its consumer has gone."""

    limit = 0
    consumer = 0

    def loop(self, now: Any = None) -> None:
        before = self.task_count
        super().loop(now)
        if os.getppid() != self.consumer:
            raise WorkerRecycle  # the consumer died: end (nobody starts this one again)
        if self.task_count != before:
            grown = resident_bytes()
            if here.recycle or grown > self.limit:
                log.info("a fresh worker process (this one holds %d MB)", grown >> 20)
                raise WorkerRecycle


class _Consumer(Consumer):
    """huey's consumer that says it lives, keeps its processes' memory bounded and ends with
    the process that started it."""

    def __init__(self, queue: Jobs, parent: int, **options: Any) -> None:
        self._queue, self._parent, self._beaten = queue, parent, 0.0
        super().__init__(queue.huey, **options)

    def _create_worker(self) -> Worker:
        worker = super()._create_worker()
        assert isinstance(worker, _Worker)
        worker.limit = int(self._queue.app.config["JOB_MEMORY_MB"]) << 20
        worker.consumer = os.getpid()
        return worker

    def loop(self, health_check_ts: Any = None) -> Any:
        now = time.monotonic()
        if now - self._beaten >= BEAT:
            self._queue.beat()
            self._beaten = now
        if os.getppid() != self._parent:
            log.info("the process that started the worker has ended: stopping")
            self.stop(graceful=False)
            raise ConsumerStopped
        return super().loop(health_check_ts)


_Consumer.worker_class = _Worker


@contextlib.contextmanager
def _sole(queue: Jobs, parent: int) -> Iterator[bool]:
    """Hold the instance's one worker's lock; False when the starting process ended while
    another worker held it."""
    path = queue.beside("worker")
    path.parent.mkdir(parents=True, exist_ok=True)
    told = False
    with path.open("ab") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if os.getppid() != parent:
                    yield False
                    return
                if not told:
                    log.info("another worker runs this instance's jobs: waiting for it to end")
                    told = True
                time.sleep(1.0)
        yield True


def _started(app: Flask) -> None:
    """In each fresh worker process: its own database connections, the signal that cuts off
    work no longer wanted."""
    here.worker, here.armed, here.recycle = True, False, False
    signal.signal(signal.SIGUSR1, abandon)
    with app.app_context():
        db.engine.dispose(close=False)  # the consumer's pool is not this process's


def consume(app: Flask) -> None:
    """Run ``app``'s queue until the worker is stopped (SIGINT ends it after the job under
    way, SIGTERM at once, that job put back) or the process that started it ends."""
    queue = jobs(app)
    if queue.immediate:
        raise RuntimeError("JOB_IMMEDIATE: the jobs run where they are queued, not here")
    parent = os.getppid()
    with _sole(queue, parent) as held:
        if not held:
            return
        queue.huey.on_startup("scorer")(lambda: _started(app))
        consumer = _Consumer(
            queue,
            parent,
            workers=max(1, int(app.config["JOB_RENDERERS"])),
            worker_type="process",
            periodic=False,
            check_worker_health=True,
            health_check_interval=HEALTH_CHECK,
            max_delay=IDLE_POLL,
        )
        queue.beat()
        consumer.run()
