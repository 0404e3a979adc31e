"""The change list: every change made to a table after it was done (docs/rules.md section 13.3).

A table is done at the moment its match first had all its deals, found by
replaying its hands' history (created and restored count one more hand,
deleted one less) — no column is trusted for it.  Every later event of the
table's hands is a change: when, by whom (the table phone with the number of
its link then, from the replaced links' times; or the organiser, from the
event's ``via``), which deal, and what before (the hand's previous event) and
after; a correction saved unchanged is none.  The paper slips' changes come
from their log.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import contains_eager, joinedload, selectinload

from ...extensions import db
from ...models import Hand, HandEvent
from ...tournament_models import RetiredLink, Round, Tournament, TournamentTable
from ..sheets import ruleset_of
from ..writes import ORGANISER
from .tables import deals_of, split_confirmations


def done_index(actions: Sequence[str], deals: int) -> int | None:
    """The place in a match's hand history where it first had all ``deals`` hands.

    Created and restored hands count one more, deleted ones one less;
    corrections none.

    >>> done_index(["created", "created", "corrected", "created"], 3)
    3
    >>> done_index(["created", "deleted", "created", "created"], 2)
    3
    >>> done_index(["created", "created"], 3) is None
    True
    """
    live = 0
    for index, action in enumerate(actions):
        if action in ("created", "restored"):
            live += 1
        elif action == "deleted":
            live -= 1
        if live >= deals:
            return index
    return None


def link_then(retired: Sequence[datetime], moment: datetime) -> int:
    """The number of the table's link at ``moment``: one more than the links retired by then.

    >>> link_then([datetime(2025, 11, 8, 21, 0)], datetime(2025, 11, 8, 21, 30))
    2
    >>> link_then([datetime(2025, 11, 8, 21, 0)], datetime(2025, 11, 8, 20, 30))
    1
    """
    return 1 + sum(1 for when in retired if when <= moment)


@dataclass(frozen=True)
class HandShot:
    """What a hand said at a moment of its history (a hand event's snapshot)."""

    declarer: int | None
    bid: int
    trump: str | None
    outcome: str
    made: bool | None
    won: bool | None
    points: tuple[int | None, ...]

    @classmethod
    def of(cls, snapshot: Mapping[str, Any]) -> HandShot:
        lines = sorted(snapshot.get("parties") or [], key=lambda p: p.get("party", 0))
        return cls(
            declarer=snapshot.get("declarer"),
            bid=int(snapshot.get("bid") or 0),
            trump=snapshot.get("trump"),
            outcome=str(snapshot.get("outcome") or ""),
            made=snapshot.get("made"),
            won=snapshot.get("won"),
            points=tuple(line.get("points") for line in lines),
        )


@dataclass(frozen=True)
class Change:
    """One change made to a table after it was done.

    ``action``: created, corrected, deleted, restored (a hand, ``deal`` its
    number), or paper (the slip).  ``link``: the table phone's link then, None
    when the organiser made it.  ``before``/``after``: a :class:`HandShot` of a
    hand, a tuple of (points, lost) per seat of a slip, None for nothing.
    """

    at: datetime
    round: int
    table: TournamentTable
    names: tuple[str, ...]
    action: str
    deal: int | None
    link: int | None
    before: Any
    after: Any
    # the seat that sat the deal out (the dealer at a table of four), None at a table of three
    sits_out: int | None = None
    # the table was changed after a player confirmed and waits for them to confirm again
    reconfirm: bool = False

    @property
    def by_organiser(self) -> bool:
        return self.link is None


def _slip_seats(table: TournamentTable, paper: Mapping[str, Any] | None) -> Any:
    if paper is None:
        return None
    return tuple(tuple(paper.get(str(p)) or (None, None)) for p in table.players)


def _hand_changes(
    table: TournamentTable,
    names: tuple[str, ...],
    events: Sequence[tuple[HandEvent, int, int]],
    retired: Sequence[datetime],
) -> list[Change]:
    done = done_index([event.action for event, _, _ in events], deals_of(table.match))
    if done is None:
        return []
    last: dict[int, Mapping[str, Any]] = {}
    changes = []
    # the table's rules say whether the dealer sits out (a table of four)
    sits_out = ruleset_of(table.match).dealer_sits_out
    for index, (event, seq, dealer) in enumerate(events):
        before = last.get(event.hand_id)
        last[event.hand_id] = event.snapshot
        if index <= done or (event.action == "corrected" and event.snapshot == before):
            continue  # before the table was done, or a correction saved unchanged
        shot = HandShot.of(event.snapshot)
        had = HandShot.of(before) if before is not None else None
        changes.append(
            Change(
                at=event.created_at,
                round=table.round.number,
                table=table,
                names=names,
                action=event.action,
                deal=seq,
                link=None if event.via == ORGANISER else link_then(retired, event.created_at),
                before=None if event.action in ("created", "restored") else had,
                after=None if event.action == "deleted" else shot,
                sits_out=dealer if sits_out else None,
            )
        )
    return changes


def _paper_changes(table: TournamentTable, names: tuple[str, ...]) -> list[Change]:
    return [
        Change(
            at=datetime.fromisoformat(entry["at"]),
            round=table.round.number,
            table=table,
            names=names,
            action="paper",
            deal=None,
            link=None,
            before=_slip_seats(table, entry.get("before")),
            after=_slip_seats(table, entry.get("after")),
        )
        for entry in table.paper_log or []
    ]


def changes(tournament: Tournament) -> list[Change]:
    """Every change made to a table of the tournament after it was done, newest first.

    Hands corrected, struck or restored by the table phone (with the number of
    its link then) or by the organiser, and every change of a paper slip.
    """
    tables = list(
        db.session.execute(
            select(TournamentTable)
            .join(Round, TournamentTable.round_id == Round.id)
            .where(Round.tournament_id == tournament.id)
            .options(
                joinedload(TournamentTable.match),
                contains_eager(TournamentTable.round),
                selectinload(TournamentTable.confirmations),
            )
            .order_by(Round.number, TournamentTable.number)
        )
        .unique()
        .scalars()
    )
    by_match = {t.match_id: t for t in tables}
    if not by_match:
        return []
    history: dict[int, list[tuple[HandEvent, int, int]]] = defaultdict(list)
    rows = db.session.execute(
        select(HandEvent, Hand.match_id, Hand.seq, Hand.dealer_seat)
        .join(Hand, HandEvent.hand_id == Hand.id)
        .where(Hand.match_id.in_(list(by_match)))
        .order_by(HandEvent.id)
    )
    for event, match_id, seq, dealer in rows:
        history[match_id].append((event, seq, dealer))
    retired: dict[int, list[datetime]] = defaultdict(list)
    for match_id, when in db.session.execute(
        select(RetiredLink.match_id, RetiredLink.retired_at).where(
            RetiredLink.match_id.in_(list(by_match))
        )
    ):
        retired[match_id].append(when)
    people = {e.id: e.name for e in tournament.entrants}
    found: list[Change] = []
    for table in tables:
        names = tuple(people[p] for p in table.players)
        events = history[table.match_id]
        hands = _hand_changes(table, names, events, retired[table.match_id])
        last = max((event.created_at for event, _, _ in events), default=None)
        if table.paper is None and split_confirmations(table.confirmations, last)[1]:
            hands = [replace(change, reconfirm=True) for change in hands]
        found += hands
        found += _paper_changes(table, names)
    # newest first; of two at the same moment the later written (the list's order)
    order = {id(change): index for index, change in enumerate(found)}
    found.sort(key=lambda c: (c.at, order[id(c)]), reverse=True)
    return found
