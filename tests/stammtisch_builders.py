"""Builders of a Stammtisch and its evenings, through the use cases (fast, no forms).

For the service tests, the pages' tests, the browser tests, the screenshots and the
bench.  Call them inside an app context; every hand is a valid hand of the table
(``tests.builders.hand_input``), varied by a seeded random generator, so a match
is played to its end by the rules as it would be at the table.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from scorer import services
from scorer.extensions import db
from scorer.rules import PRESETS
from scorer.services.stammtisch import evenings as evening_cases
from scorer.services.stammtisch import groups
from scorer.services.stammtisch.evenings import Seat
from scorer.services.stammtisch.people import find_person
from scorer.stammtisch_models import Evening, Stammtisch
from tests.builders import hand_input

MEMBERS = ("Anna", "Bert", "Carla", "Dieter")
THURSDAY = date(2025, 1, 2)


def a_group(
    names: Sequence[str] = MEMBERS,
    *,
    name: str = "Krone",
    money: str = "pay",
    stake_cents: int = 10,
    basis: str = "full",
    preset: str = "standard",
    ranking: str = "points",
    season: str = "01-01",
    day: date = THURSDAY,
    **rules: Any,
) -> Stammtisch:
    """A new group with its first year (committed)."""
    return groups.create_group(
        name=name,
        members=list(names),
        ruleset=PRESETS[preset].replace(**rules),
        stake_cents=stake_cents,
        stake_basis=basis,
        money_mode=money,
        ranking_by=ranking,
        season_start=season,
        day=day,
    )


def play_match(match: Any, rng: random.Random, most: int = 60) -> None:
    """Hands until the match ends (at most ``most``): varied declarers, made or failed."""
    ruleset = services.ruleset_of(match)
    for number in range(most):
        if services.sheet(match).finished:
            return
        sits_out = None
        if ruleset.dealer_sits_out:
            sits_out = services.sheet(match).next_sits_out
        active = [p for p in range(ruleset.parties) if p != sits_out]
        data = hand_input(
            ruleset.parties,
            number + rng.randrange(1000),
            declarer=rng.choice(active),
            made=rng.random() < 0.75,
            sits_out=sits_out,
        )
        services.save_hand(match, data)


def play_evening(
    group: Stammtisch,
    here: Sequence[str],
    *,
    guests: Sequence[str] = (),
    matches: int = 1,
    day: date = THURSDAY,
    seed: int = 1,
    finish_last: bool = True,
) -> Evening:
    """An evening of the current year with these members (names) and guests, its matches
    played (the last one left running unless ``finish_last``)."""
    rng = random.Random(seed)
    seats = []
    for name in here:
        person = find_person(group, name)
        assert person is not None, name
        seats.append(Seat(person_id=person.id))
    seats += [Seat(guest=g) for g in guests]
    evening = evening_cases.start_evening(group, seats=seats, day=day)
    match = evening.session.matches[0]
    for number in range(1, matches + 1):
        if number < matches or finish_last:
            play_match(match, rng)
        if number < matches:
            match = services.next_match(match)
    db.session.refresh(evening)
    return evening


def played_year(
    group: Stammtisch,
    evenings: int = 40,
    matches: int = 10,
    *,
    start: date = THURSDAY,
    seed: int = 7,
) -> list[Evening]:
    """A year of Thursdays: three or four of the members each week (a guest now and then)."""
    rng = random.Random(seed)
    members = [m.person.name for m in groups.current_year(group).members if m.left_on is None]
    made = []
    for week in range(evenings):
        here = rng.sample(members, min(len(members), rng.choice((3, 3, 4))))
        guests = ["Gustav"] if week % 9 == 4 and len(here) == 3 and len(members) > 3 else []
        if guests:
            here = here[:2]
        made.append(
            play_evening(
                group,
                here,
                guests=guests,
                matches=matches,
                day=start + timedelta(days=7 * week),
                seed=rng.randrange(10**6),
            )
        )
    return made
