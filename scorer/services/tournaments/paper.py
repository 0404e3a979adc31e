"""The tournament on paper (docs/rules.md section 13.5): what its printouts show, as plain values.

The hall has one printer and no reception, so the evening keeps a paper
trail: a table card per table and round (its players in seat order, the
Schreiber, the first dealer, the QR code of its phone), a paper slip for a
table whose phone fails (a grid of its deals: who deals, who sits out at a
table of four), the ranking after a round and at the end, and certificates
for the first three places.

This module reads the rows into frozen values and nothing else: no words, no
links, no layout.  :mod:`scorer.pdf.tournament` turns them into PDFs, the
view (:mod:`scorer.views.tournaments.paper`) adds the links the phones
reach.  Who deals which deal and who sits out are the rules'
(``dealer_of``, ``active_seats``); the places are the rules' ``ranking``
with the tournament's tie-break, the same as the beamer's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ...rules import Ruleset, active_seats, dealer_of
from ...rules.tournament import evening_ranking, on_podium
from ...tournament_models import Entrant, Round, Tournament, TournamentTable
from ..errors import NotFound
from ..sheets import ruleset_of
from .board import round_tables
from .tables import deals_of, results


@dataclass(frozen=True)
class Heading:
    """What every printout names at its top: the tournament, where, when."""

    name: str
    place: str
    held_on: str  # YYYY-MM-DD or ""
    first_drawn: datetime | None  # when round 1 was drawn: the evening's date without held_on
    rounds: int


@dataclass(frozen=True)
class SeatLine:
    """A player at a table: seat (1 is the Schreiber and deals first), start number, name."""

    seat: int
    number: int | None
    name: str
    club: str

    @property
    def schreiber(self) -> bool:
        """Seat 1 keeps the score and deals the first deal."""
        return self.seat == 1


@dataclass(frozen=True)
class TableCard:
    """One table of one round as its card shows it; ``token`` is its phone's link."""

    table_id: int
    round: int
    table: int
    seats: tuple[SeatLine, ...]
    deals: int
    token: str
    link_number: int
    dealer_sits_out: bool = False

    @property
    def four(self) -> bool:
        """The dealer sits out each deal (a table of four: its rules say so)."""
        return self.dealer_sits_out


@dataclass(frozen=True)
class Deal:
    """One line of a paper slip: the deal's number, its dealer and who sits out (seat indexes).

    ``dealer`` is None when the winner of a deal deals the next (not known in
    advance); ``sits_out`` is None at a table of three.
    """

    number: int
    dealer: int | None
    sits_out: int | None


@dataclass(frozen=True)
class Slip:
    """A table's paper slip: its card's heads and a line per deal."""

    card: TableCard
    deals: tuple[Deal, ...]


@dataclass(frozen=True)
class RankLine:
    """A player's line of a printed ranking: place, points per round up to it, total, lost games.

    ``rounds`` lines up with :attr:`RankingSheet.rounds`; None is a round the
    player did not play (shown "–", counted 0).
    """

    place: int
    entrant_id: int
    number: int | None
    name: str
    club: str
    rounds: tuple[int | None, ...]
    paper: tuple[bool, ...]
    total: int
    lost: int
    withdrawn: bool


@dataclass(frozen=True)
class RankingSheet:
    """The ranking after round ``after`` (the final one when that is the last round, closed)."""

    heading: Heading
    after: int
    rounds: tuple[int, ...]
    closed: bool
    tie_break: bool
    lines: tuple[RankLine, ...]

    @property
    def provisional(self) -> bool:
        """Round ``after`` is still being played: the places may change ("vorläufig")."""
        return not self.closed

    @property
    def final(self) -> bool:
        """The last round is closed: this is the tournament's result."""
        return self.closed and self.after >= self.heading.rounds

    @property
    def podium(self) -> tuple[RankLine, ...]:
        """The lines of the places called out (:func:`scorer.rules.tournament.on_podium`;
        ties share a place: all of them)."""
        return tuple(line for line in self.lines if on_podium(line.place))


def heading(tournament: Tournament) -> Heading:
    """The tournament's heads for every printout."""
    rows = tournament.round_rows
    return Heading(
        name=tournament.name,
        place=tournament.place,
        held_on=tournament.held_on,
        first_drawn=rows[0].drawn_at if rows else None,
        rounds=tournament.rounds,
    )


def round_row(tournament: Tournament, number: int) -> Round:
    """The tournament's round ``number``, or :class:`NotFound` when it is not drawn."""
    found = next((r for r in tournament.round_rows if r.number == number), None)
    if found is None:
        raise NotFound()
    return found


# -- table cards and paper slips -------------------------------------------------------


def _seats(table: TournamentTable, people: dict[int, Entrant]) -> tuple[SeatLine, ...]:
    return tuple(
        SeatLine(seat, people[p].number, people[p].name, people[p].club)
        for seat, p in enumerate(table.players, start=1)
    )


def _card(row: Round, table: TournamentTable, people: dict[int, Entrant]) -> TableCard:
    return TableCard(
        table_id=table.id,
        round=row.number,
        table=table.number,
        seats=_seats(table, people),
        deals=deals_of(table.match),
        token=table.match.token,
        link_number=table.link_number,
        dealer_sits_out=ruleset_of(table.match).dealer_sits_out,
    )


def cards(tournament: Tournament, rows: Sequence[Round]) -> list[TableCard]:
    """The table cards of ``rows`` (one round, or every round drawn), round by round."""
    people = {e.id: e for e in tournament.entrants}
    return [_card(row, table, people) for row in rows for table in round_tables(row)]


def deal_lines(ruleset: Ruleset, seats: int, first_dealer: int = 0) -> tuple[Deal, ...]:
    """Every deal of a table: its dealer and, at a table of four, who sits out.

    The deal goes round from the first dealer (seat 1 at a tournament table);
    when the winner of a deal deals next, the dealer is left for the slip's
    writer.

    >>> from scorer.rules.tournament import table_ruleset
    >>> from scorer.rules import PRESETS
    >>> four = deal_lines(table_ruleset(PRESETS["turnier"], 4), 4)
    >>> len(four), [(d.number, d.dealer, d.sits_out) for d in four[:5]]
    (16, [(1, 0, 0), (2, 1, 1), (3, 2, 2), (4, 3, 3), (5, 0, 0)])
    >>> [d.sits_out for d in deal_lines(table_ruleset(PRESETS["turnier"], 3), 3)][:3]
    [None, None, None]
    """
    lines = []
    for index in range(ruleset.deals):
        if ruleset.dealer != "rotate":
            lines.append(Deal(index + 1, None, None))
            continue
        dealer = dealer_of(index, seats, first_dealer)
        playing = active_seats(ruleset, seats, dealer)
        out = next((s for s in range(seats) if s not in playing), None)
        lines.append(Deal(index + 1, dealer, out))
    return tuple(lines)


def slips(tournament: Tournament, row: Round) -> list[Slip]:
    """The paper slips of ``row``'s tables: the heads of the card and a line per deal."""
    people = {e.id: e for e in tournament.entrants}
    found = []
    for table in round_tables(row):
        match = table.match
        ruleset = ruleset_of(match)
        deals = deal_lines(ruleset, len(table.players), match.first_dealer)
        found.append(Slip(_card(row, table, people), deals))
    return found


# -- rankings and certificates ---------------------------------------------------------


def _withdrawn(entrant: Entrant, after: int) -> bool:
    """Whether the player had left by the ranking after round ``after`` (plays no next round)."""
    return entrant.withdrawn_before is not None and entrant.withdrawn_before <= after + 1


def ranking_after(tournament: Tournament, number: int | None = None) -> RankingSheet:
    """The ranking after round ``number`` (None: the last round drawn), or NotFound.

    Each round's results are read as the beamer's are (:func:`.tables.results`:
    the tables' sheets, or their paper slips); the places are the rules'
    ``ranking`` over the rounds up to ``number`` and the lost games in them,
    ties listed by start number.
    """
    drawn = tournament.round_rows
    if not drawn:
        raise NotFound()
    after = drawn[-1].number if number is None else round_row(tournament, number).number
    rows = [r for r in drawn if r.number <= after]
    people = {e.id: e for e in tournament.entrants}
    results_of = []
    for row in rows:
        round_tables(row)  # tables and matches in one statement; results() reads them
        results_of.append(results(row))
    start = {i: (e.number or 0, i) for i, e in people.items()}
    lines = tuple(
        RankLine(
            place=line.place,
            entrant_id=line.player,
            number=people[line.player].number,
            name=people[line.player].name,
            club=people[line.player].club,
            rounds=line.rounds,
            paper=line.paper,
            total=line.total,
            lost=line.lost,
            withdrawn=_withdrawn(people[line.player], after),
        )
        for line in evening_ranking(results_of, start, tie_break=tournament.tie_break)
    )
    return RankingSheet(
        heading=heading(tournament),
        after=after,
        rounds=tuple(r.number for r in rows),
        closed=rows[-1].closed_at is not None,
        tie_break=tournament.tie_break,
        lines=lines,
    )
