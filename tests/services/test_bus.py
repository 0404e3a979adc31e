"""What follows a commit (services.bus, services.unit.announce): handled once, after it.

The unit of work keeps the events of the attempt that commits; an attempt that is
rolled back — a refusal, or a lost race run again — takes its events with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from flask import Flask
from sqlalchemy import func, select

from scorer.extensions import db
from scorer.models import GameSession
from scorer.services import bus
from scorer.services.unit import LostRace, announce, in_unit, use_case


@dataclass(frozen=True)
class Saved:
    title: str


@pytest.fixture
def heard() -> Iterator[list[tuple[Saved, bool, int]]]:
    """What the handler saw: the event, whether a unit was open, the sessions committed."""
    seen: list[tuple[Saved, bool, int]] = []

    def handler(event: Saved) -> None:
        count = db.session.execute(select(func.count()).select_from(GameSession)).scalar_one()
        seen.append((event, in_unit(), int(count)))

    bus.register(Saved, handler)
    yield seen
    bus.unregister(Saved, handler)


def add_session(title: str) -> None:
    db.session.add(GameSession(title=title))
    db.session.flush()


def test_an_event_is_handled_after_the_commit_outside_the_unit(
    in_app: Flask, heard: list[tuple[Saved, bool, int]]
) -> None:
    @use_case
    def start(title: str) -> None:
        add_session(title)
        announce(Saved(title))
        assert heard == []  # nothing before the commit

    start("Krone")
    assert heard == [(Saved("Krone"), False, 1)]


def test_the_same_event_announced_twice_is_handled_once(
    in_app: Flask, heard: list[tuple[Saved, bool, int]]
) -> None:
    @use_case
    def inner(title: str) -> None:
        announce(Saved(title))

    @use_case
    def outer() -> None:
        add_session("Krone")
        inner("Krone")  # part of the outer unit: its event waits for the outer commit
        announce(Saved("Krone"))
        announce(Saved("Linde"))

    outer()
    assert [event.title for event, _, _ in heard] == ["Krone", "Linde"]


def test_a_refused_use_case_announces_nothing(
    in_app: Flask, heard: list[tuple[Saved, bool, int]]
) -> None:
    @use_case
    def refused() -> None:
        add_session("Krone")
        announce(Saved("Krone"))
        raise ValueError("no")

    with pytest.raises(ValueError):
        refused()
    assert heard == []


def test_a_lost_race_run_again_is_handled_for_the_attempt_that_committed(
    in_app: Flask, heard: list[tuple[Saved, bool, int]]
) -> None:
    attempts: list[int] = []

    @use_case
    def racing() -> None:
        attempts.append(1)
        add_session(f"try {len(attempts)}")
        announce(Saved(f"try {len(attempts)}"))
        if len(attempts) == 1:
            raise LostRace()

    racing()
    assert len(attempts) == 2
    assert heard == [(Saved("try 2"), False, 1)]


def test_a_failing_handler_leaves_the_commit_and_the_other_handlers(
    in_app: Flask, heard: list[tuple[Saved, bool, int]]
) -> None:
    def broken(event: Saved) -> None:
        raise RuntimeError("the printer is on fire")

    bus.register(Saved, broken)
    try:

        @use_case
        def start() -> None:
            add_session("Krone")
            announce(Saved("Krone"))

        start()
    finally:
        bus.unregister(Saved, broken)
    assert [event for event, _, _ in heard] == [Saved("Krone")]
    assert db.session.execute(select(func.count()).select_from(GameSession)).scalar_one() == 1


def test_outside_a_unit_an_event_is_handled_at_once(
    in_app: Flask, heard: list[tuple[Saved, bool, int]]
) -> None:
    announce(Saved("Krone"))
    assert heard == [(Saved("Krone"), False, 0)]
