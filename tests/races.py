"""Two requests forced into the order that loses an update, on SQLite and PostgreSQL.

:func:`interleave` runs ``late`` in a thread of its own until it is about to
make its first write (the first INSERT, UPDATE or DELETE it sends), holds it
there, runs ``early`` to its end (its commit), then lets ``late`` go on.  That
is the order in which two requests overlapping in time go wrong when a
request acts on what it read without the database deciding: ``late`` read the
state before ``early`` changed it, and writes after.

Each side runs in its own app context, so each has a database session (and
connection) of its own, as two requests served by two threads or processes do.
Whatever a side raises comes back as its result (a 500 of the test client is
an exception), so a test can assert that neither side failed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import Engine

T = TypeVar("T")
U = TypeVar("U")

WRITES = ("INSERT", "UPDATE", "DELETE")
WAIT = 30  # seconds: only reached when a side hangs (then the test fails, it does not stall)


class HeldThread(threading.Thread):
    """``run`` in a thread that stops before its first write until it is released."""

    def __init__(self, run: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.work = run
        self.result: Any = None
        self.at_write = threading.Event()  # reached its first write, or ended without one
        self.go_on = threading.Event()
        self.wrote = False

    def run(self) -> None:
        try:
            self.result = self.work()
        except BaseException as exc:  # the other side of the race must still run
            self.result = exc
        finally:
            self.at_write.set()

    def hold(self, statement: str) -> None:
        """Called on every statement this thread sends: the first write waits."""
        if self.wrote or not statement.lstrip().upper().startswith(WRITES):
            return
        self.wrote = True
        self.at_write.set()
        if not self.go_on.wait(WAIT):
            raise AssertionError("the held request was never released")


@contextmanager
def _holding(thread: HeldThread) -> Iterator[None]:
    def before(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if threading.current_thread() is thread:
            thread.hold(statement)

    event.listen(Engine, "before_cursor_execute", before)
    try:
        yield
    finally:
        event.remove(Engine, "before_cursor_execute", before)


def interleave(late: Callable[[], T], early: Callable[[], U]) -> tuple[T | Any, U | Any]:
    """``late`` reads, ``early`` runs whole and commits, then ``late`` writes.

    Returns both results (an exception a side raised is its result).  When
    ``late`` ends without writing anything, ``early`` runs after it.
    """
    thread = HeldThread(late)
    with _holding(thread):
        thread.start()
        if not thread.at_write.wait(WAIT):
            raise AssertionError("the late request never reached a write")
        try:
            first: Any = early()
        except BaseException as exc:
            first = exc
        finally:
            thread.go_on.set()
        thread.join(WAIT)
        if thread.is_alive():
            raise AssertionError("the late request hangs after the early one committed")
    return thread.result, first


def in_context(app: Any, work: Callable[[], T]) -> Callable[[], T]:
    """``work`` in an app context of its own (its own database session), then closed."""

    def run() -> T:
        with app.app_context():
            try:
                return work()
            finally:
                from scorer.extensions import db

                db.session.remove()

    return run
