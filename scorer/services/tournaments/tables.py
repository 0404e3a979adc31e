"""A round's tables as the tournament sees them: progress, results, confirmations.

The hands live in the tables' matches; this module reads them back per
player: a player's points in a round are their party's total on the table's
sheet (the stored standing), their lost games the hands they declared and
lost (``scorer.rules.tournament.lost_game``).  A table whose phone failed has
a paper slip instead (points and lost games per player, typed by the
organiser), which then counts.

A confirmation counts for the result as it stood when it was given: a hand
corrected, struck or restored after it (by the organiser or the table) leaves
it stale, and the table shows "changed: confirm again" until each player whose
confirmation went stale confirms again (:func:`confirm` renews it).  Nothing is
stored for it: the time of the match's newest hand event against each
confirmation's time says it (both travel in a tournament's backup).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy import bindparam, func, select

from ...extensions import db
from ...models import Hand, HandEvent, Match, utcnow
from ...rules.tournament import TableResult, check_confirm, lost_game, table_results
from ...tournament_models import Confirmation, Entrant, Round, Tournament, TournamentTable
from ..sheets import standing
from ..unit import use_case
from ..writes import touch

Result = TableResult
"""One player's result at one table (the rules' :class:`TableResult`)."""


@dataclass(frozen=True)
class TableState:
    """How far a table is: deal ``played`` of ``deals``, done, confirmed by whom.

    ``confirmed``: the players whose confirmation stands; ``stale``: those who
    confirmed before a hand was changed, and are asked to confirm again.
    """

    players: tuple[int, ...]
    played: int
    deals: int
    done: bool
    paper: bool
    confirmed: frozenset[int]
    last_change: datetime
    stale: frozenset[int] = frozenset()

    @property
    def finished(self) -> bool:
        """Played out or typed in from paper: the round may be closed as far as it goes."""
        return self.done or self.paper

    @property
    def signed(self) -> bool:
        """Every player of the table has confirmed the result (or it came on paper)."""
        return self.paper or (self.done and self.confirmed.issuperset(self.players))

    @property
    def changed(self) -> bool:
        """Changed after a player confirmed it: to be confirmed again (a slip needs none)."""
        return bool(self.stale) and not self.paper


def deals_of(match: Match) -> int:
    """The deals the table's match plays (its ruleset's fixed number)."""
    return int(match.ruleset.get("deals", 12))


def hands_changed(match_ids: Iterable[int]) -> dict[int, datetime]:
    """When each match's hands last changed (its newest hand event), by match id.

    One statement for any number of matches; a match without hands is absent.
    """
    ids = list(match_ids)
    if not ids:
        return {}
    rows = db.session.execute(
        select(Hand.match_id, func.max(HandEvent.created_at))
        .join(HandEvent, HandEvent.hand_id == Hand.id)
        .where(Hand.match_id.in_(ids))
        .group_by(Hand.match_id)
    )
    return {match_id: when for match_id, when in rows}


class Given(Protocol):
    """A confirmation as given: by whom, when (a row of either kind)."""

    @property
    def entrant_id(self) -> int: ...

    @property
    def created_at(self) -> datetime: ...


def split_confirmations(
    given: Iterable[Given], changed: datetime | None
) -> tuple[frozenset[int], frozenset[int]]:
    """The players whose confirmation stands, and those whose went stale: given before
    the hands last ``changed`` (a confirmation in the same instant stands)."""
    standing_: set[int] = set()
    stale: set[int] = set()
    for c in given:
        (stale if changed is not None and c.created_at < changed else standing_).add(c.entrant_id)
    return frozenset(standing_), frozenset(stale)


def state_of(table: TournamentTable, changed: Mapping[int, datetime] | None = None) -> TableState:
    """The table's progress from its match's stored standing (no hands are read).

    ``changed``: :func:`hands_changed` of the round's matches, read once for a
    board; without it the table's own is read (only when someone confirmed).
    """
    match = table.match
    played = standing(match).hand_count
    if changed is None:
        changed = hands_changed([match.id]) if table.confirmations else {}
    confirmed, stale = split_confirmations(table.confirmations, changed.get(match.id))
    return TableState(
        players=tuple(table.players),
        played=played,
        deals=deals_of(match),
        done=match.finished_at is not None,
        paper=table.paper is not None,
        confirmed=confirmed,
        last_change=match.updated_at,
        stale=stale,
    )


def lost_games(match_ids: Iterable[int]) -> Counter[tuple[int, int]]:
    """Lost games per (match id, declaring seat), over the live hands of the matches."""
    ids = list(match_ids)
    counts: Counter[tuple[int, int]] = Counter()
    if not ids:
        return counts
    rows = db.session.execute(
        select(Hand.match_id, Hand.declarer_party, Hand.outcome, Hand.made, Hand.won).where(
            Hand.match_id.in_(ids),
            Hand.deleted_at.is_(None),
            Hand.status == "closed",
            Hand.declarer_party.is_not(None),
        )
    )
    for match_id, declarer, outcome, made, won in rows:
        if declarer is not None and lost_game(outcome, made=made, won=won):
            counts[(match_id, declarer)] += 1
    return counts


def results(row: Round) -> dict[int, Result]:
    """Every player's result in ``row`` by entrant id (a table in play: so far)."""
    lost = lost_games(t.match_id for t in row.tables)
    out: dict[int, Result] = {}
    for table in row.tables:
        slip = None
        if table.paper is not None:
            slip = {int(key): (points, games) for key, (points, games) in table.paper.items()}
            totals: Sequence[int] = ()
        else:
            totals = standing(table.match).totals
        seats = range(len(table.players))
        out.update(
            table_results(table.players, totals, [lost[(table.match_id, s)] for s in seats], slip)
        )
    return out


def table_of_match(match_id: int) -> TournamentTable | None:
    """The tournament table whose match this is, or None for a match outside a tournament."""
    return db.session.execute(
        select(TournamentTable).where(TournamentTable.match_id == match_id)
    ).scalar_one_or_none()


def names_of(table: TournamentTable) -> dict[int, Entrant]:
    """The players of ``table`` by id (read alone: a hall holds thousands)."""
    found = db.session.execute(select(Entrant).where(Entrant.id.in_(table.players))).scalars()
    return {e.id: e for e in found}


@use_case
def confirm(table: TournamentTable, entrant_id: int) -> None:
    """A player of a finished table confirms its result (a second tap changes nothing).

    A confirmation given before a hand was changed is renewed: the player has
    seen the result as it stands now.
    """
    match = table.match
    check_confirm(
        entrant_id, table.players, finished=match.finished_at is not None, closed=bool(match.locked)
    )
    given = next((c for c in table.confirmations if c.entrant_id == entrant_id), None)
    if given is not None:
        _, stale = split_confirmations(table.confirmations, hands_changed([match.id]).get(match.id))
        if entrant_id not in stale:
            return
    # a change of the table (its page and the organiser's board show it), guarded: the
    # same tap twice at once, or the round closed at this moment, runs this again, and
    # it finds the first tap, or refuses with the closed round
    touch(match)
    if given is not None:
        given.created_at = utcnow()
    else:
        table.confirmations.append(Confirmation(entrant_id=entrant_id))
    db.session.flush()


@dataclass(frozen=True)
class Seated:
    """A player at the table as its phone shows them: seat, start number, name, confirmed
    (``again``: confirmed before a hand was changed, asked to confirm again)."""

    entrant_id: int
    seat: int
    number: int | None
    name: str
    confirmed: bool
    again: bool = False


@dataclass(frozen=True)
class TableHeader:
    """What a table phone's match page says of its tournament (above the sheet)."""

    tournament: str
    view_token: str
    round: int
    table: int
    deals: int
    played: int
    done: bool
    closed: bool
    players: tuple[Seated, ...]
    results: tuple[Result, ...]
    # the seq the next new hand gets (the match's last hand's + 1): the table phone keeps
    # it with each deal it sends, its place should a laptop lack it (services.tournaments.witness)
    next_seq: int = 1

    @property
    def next_deal(self) -> int:
        """The number of the deal being entered (the last one once done)."""
        return min(self.played + 1, self.deals)

    @property
    def signed(self) -> bool:
        """Every player of the table has confirmed its result."""
        return all(p.confirmed for p in self.players)

    @property
    def changed(self) -> bool:
        """A hand was changed after a player confirmed: the table confirms again."""
        return any(p.again for p in self.players)


_TT = TournamentTable.__table__
_R = Round.__table__
_T = Tournament.__table__
_E = Entrant.__table__
_CF = Confirmation.__table__
# the table of a match with its round and tournament: one indexed lookup (the match's key
# is unique among the tables), nothing found for a match outside a tournament
_HEADER = (
    select(
        _TT.c.id,
        _TT.c.number,
        _TT.c.players,
        _R.c.number,
        _R.c.closed_at,
        _T.c.name,
        _T.c.view_token,
    )
    .select_from(_TT.join(_R, _R.c.id == _TT.c.round_id).join(_T, _T.c.id == _R.c.tournament_id))
    .where(_TT.c.match_id == bindparam("match_id"))
)
_SEATED = select(_E.c.id, _E.c.number, _E.c.name).where(
    _E.c.id.in_(bindparam("ids", expanding=True))
)
_GIVEN = select(_CF.c.entrant_id, _CF.c.created_at).where(_CF.c.table_id == bindparam("table_id"))


def header_of(match: Match) -> TableHeader | None:
    """The tournament's words for a table's match page, or None outside a tournament.

    One indexed lookup for a match outside a tournament (nearly every match); for a
    table, plain rows (every save at a hall answers with it): its round and
    tournament, its players, their confirmations.
    """
    found = db.session.execute(_HEADER, {"match_id": match.id}).first()
    if found is None:
        return None
    table_id, table_number, seated, round_number, closed_at, name, view_token = found
    players = [int(p) for p in seated]
    entrants = {i: (number, n) for i, number, n in db.session.execute(_SEATED, {"ids": players})}
    given = db.session.execute(_GIVEN, {"table_id": table_id}).all()
    confirmed, stale = split_confirmations(
        given, hands_changed([match.id]).get(match.id) if given else None
    )
    state = standing(match)
    lost = lost_games([match.id]) if match.finished_at is not None else Counter()
    return TableHeader(
        tournament=name,
        view_token=view_token,
        round=round_number,
        table=table_number,
        deals=deals_of(match),
        played=state.hand_count,
        done=match.finished_at is not None,
        closed=closed_at is not None,
        players=tuple(
            Seated(
                entrant_id=entrant_id,
                seat=seat,
                number=entrants[entrant_id][0],
                name=entrants[entrant_id][1],
                confirmed=entrant_id in confirmed,
                again=entrant_id in stale,
            )
            for seat, entrant_id in enumerate(players)
        ),
        results=tuple(
            Result(state.totals[seat], lost[(match.id, seat)]) for seat in range(len(players))
        ),
        next_seq=int(
            db.session.execute(select(func.max(Hand.seq)).where(Hand.match_id == match.id)).scalar()
            or 0
        )
        + 1,
    )
