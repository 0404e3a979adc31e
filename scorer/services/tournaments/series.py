"""A series of evenings (Binokel-Cup, docs/rules.md section 13.1) and its overall ranking.

A series is made from a tournament (it becomes evening 1, each of its players
a person of the series); each new evening copies the last one's settings
(rules, rounds, deals, fees, schedule, tie-break, money and prizes, place) and
is a tournament like any other.  The series' settings say how the evenings
add up (``scorer.rules.tournament.SERIES_COUNTING``: all, the best k, or only
players of every evening) and whether the draw counts the earlier evenings'
tables as met; they only count, so they may change at any time.

The ranking reads each evening's totals from its standings
(:func:`.published.fresh_standings`) and ranks the people with
``series_ranking``.  An evening counts once its first round is drawn, and is
provisional until its last round is closed.  The same person across evenings:
:mod:`.series_people`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import select, update

from ...extensions import db
from ...models import utcnow
from ...rules import RulesError
from ...rules.tournament import SERIES_COUNTING, series_lines, series_name
from ...tournament_models import Series, SeriesPlayer, Tournament
from ..errors import ConflictError
from ..starting import storable
from ..unit import LostRace, use_case
from . import setup
from .published import fresh_standings
from .series_people import evenings_of
from .standings import alphabetical

MAX_SERIES_NAME = 80
MAX_EVENINGS = 52
"""The most evenings a series holds (one a week for a year); also the highest "best k"."""

_COPIED = (
    "place",
    "ruleset",
    "rounds",
    "entry_fee_cents",
    "fee_schedule",
    "tie_break",
    "public_url",
    "keep_kind",
    "keep_value",
    "lost_money_to_fund",
    "prize_mode",
    "prize_shares",
    "prize_items",
    "joke_prize",
)
"""What a new evening takes from the last one (the name and the date are its own)."""


def _name(value: str) -> str:
    name = " ".join(str(value).split())
    if not storable(name):
        raise RulesError("the series' name holds control characters")
    if not name:
        raise RulesError("a series needs a name")
    return name[:MAX_SERIES_NAME]


def suggested_name(tournament: Tournament) -> str:
    """The name offered for a series made of ``tournament``: its name without the evening's
    number (the rules: ``series_name``), as long as a series' name may be."""
    return series_name(tournament.name)[:MAX_SERIES_NAME]


@use_case
def create_series(tournament: Tournament, name: str | None = None) -> Series:
    """Make a series of ``tournament`` (its evening 1), committed; its players become people.

    ``name``: the organiser's (None: :func:`suggested_name`).  A tournament in a series
    already answers with that series (a double tap).
    """
    if tournament.series is not None:
        return tournament.series
    chosen = _name(suggested_name(tournament) if name is None else name)
    series = Series(name=chosen, counting="all", best=0, met_across=True)
    db.session.add(series)
    for entrant in tournament.entrants:
        person = SeriesPlayer(name=entrant.name, club=entrant.club)
        series.players.append(person)
    db.session.flush()
    # one UPDATE that finds the tournament only while it has no series: of two taps at
    # once (two requests), the later makes nothing and answers with the first one's series
    table = Tournament.__table__
    joined = (
        db.session.connection()
        .execute(
            update(table)
            .where(table.c.id == tournament.id, table.c.series_id.is_(None))
            .values(series_id=series.id)
        )
        .rowcount
    )
    if joined != 1:
        raise LostRace()  # run again, it finds the other tap's series above
    db.session.expire(tournament, ["series", "series_id"])
    for entrant, person in zip(tournament.entrants, series.players, strict=True):
        entrant.series_player_id = person.id
    setup.bump(tournament)
    return series


def get_series(token: str) -> Series:
    """The series behind an organiser link, or :class:`NotFound`."""
    return setup.by_link(Series, Series.token, token)


def get_series_for_view(view_token: str) -> Series:
    """The series behind a public link, or :class:`NotFound`."""
    return setup.by_link(Series, Series.view_token, view_token)


def _bump(series: Series) -> None:
    series.version = (series.version or 0) + 1
    series.updated_at = utcnow()


def check_best(best: object) -> int:
    """The number of best evenings that count: a whole number of 1 to ``MAX_EVENINGS``."""
    if isinstance(best, bool) or not isinstance(best, int) or not 1 <= best <= MAX_EVENINGS:
        raise RulesError(
            "the best evenings that count: a whole number from 1 to {most}", most=MAX_EVENINGS
        )
    return best


@use_case
def update_settings(
    series: Series,
    *,
    name: str | None = None,
    counting: str,
    best: int | None,
    met_across: bool,
) -> None:
    """Change how the evenings count, committed; checked whole before anything changes.

    ``best`` is needed for ``"best"`` only (kept as it was otherwise, when not given).
    """
    if counting not in SERIES_COUNTING:
        raise RulesError("'{counting}' is no way to count a series", counting=str(counting)[:20])
    if counting == "best" or best is not None:
        best = check_best(best)
    new_name = _name(name) if name is not None else series.name
    series.name = new_name
    series.counting = counting
    if best is not None:
        series.best = best
    series.met_across = bool(met_across)
    _bump(series)


def evening_name(series: Series, number: int) -> str:
    """A new evening's name before the organiser changes it: "<series> · <n>"."""
    return f"{series.name} · {number}"[: setup.MAX_TOURNAMENT_NAME]


@use_case
def new_evening(series: Series, *, name: str | None = None, idempotency_key: str) -> Tournament:
    """The series' next evening, committed: a tournament with the last evening's settings.

    The same form sent twice (its ``idempotency_key``) makes one evening.
    """
    existing = db.session.execute(
        select(Tournament).where(Tournament.idempotency_key == idempotency_key)
    ).scalar_one_or_none()
    if existing is not None:
        if existing.series_id != series.id:
            raise ConflictError()
        return existing
    evenings = evenings_of(series)
    if len(evenings) >= MAX_EVENINGS:
        raise RulesError("a series holds at most {most} evenings", most=MAX_EVENINGS)
    last = evenings[-1]
    tournament = Tournament(
        name=setup.tournament_name(name or evening_name(series, len(evenings) + 1)),
        held_on=date.today().isoformat(),
        idempotency_key=idempotency_key,
        **{column: getattr(last, column) for column in _COPIED},
    )
    tournament.series = series
    db.session.add(tournament)
    _bump(series)
    # the same form's other tap committed first: its key makes this an IntegrityError, and
    # run again this answers with that evening (above)
    db.session.flush()
    return tournament


# -- the ranking ------------------------------------------------------------------------


@dataclass(frozen=True)
class Evening:
    """An evening of the series as its pages show it: number, name, state, links' tokens."""

    number: int
    tournament_id: int
    name: str
    held_on: str
    token: str
    view_token: str
    started: bool
    final: bool
    players: int

    @property
    def provisional(self) -> bool:
        """Drawn, but its last round is not closed: its points may still change."""
        return self.started and not self.final


@dataclass(frozen=True)
class SeriesLine:
    """A person's line: place (None: not ranked), points per counted evening, total.

    ``evenings`` lines up with the evenings that count (started ones);
    ``counted`` holds the indices of those that add up to ``total``.
    ``undecided`` marks an evening's player whose person the organiser has
    not chosen yet (counted as a person of their own meanwhile).
    """

    key: str
    name: str
    club: str
    place: int | None
    evenings: tuple[int | None, ...]
    counted: tuple[int, ...]
    total: int
    undecided: bool


@dataclass(frozen=True)
class SeriesStandings:
    """The series ranking at one moment: the evenings, the lines (ranked first), the rule."""

    name: str
    counting: str
    best: int
    evenings: tuple[Evening, ...]
    lines: tuple[SeriesLine, ...]

    @property
    def held(self) -> tuple[Evening, ...]:
        """The evenings that count (their first round is drawn)."""
        return tuple(e for e in self.evenings if e.started)

    @property
    def provisional(self) -> bool:
        """Whether an evening that counts is still being played."""
        return any(e.provisional for e in self.held)


def series_standings(series: Series) -> SeriesStandings:
    """The series ranking: each evening's totals (its standings) per person, ranked.

    An evening's player not linked to a person is one of their own
    (``undecided``).  Players the rule does not rank (``"every"`` with an
    evening missed) follow the ranked ones without a place.
    """
    evenings: list[Evening] = []
    points: dict[str, dict[int, int]] = {}
    who: dict[str, tuple[str, str, bool]] = {}
    people = {p.id: p for p in series.players}
    held = 0
    for number, tournament in enumerate(evenings_of(series), start=1):
        shown = fresh_standings(tournament.id)
        person_of = {e.id: e.series_player_id for e in tournament.entrants}
        evenings.append(
            Evening(
                number=number,
                tournament_id=tournament.id,
                name=tournament.name,
                held_on=tournament.held_on,
                token=tournament.token,
                view_token=tournament.view_token,
                started=shown.drawn,
                final=shown.final,
                players=len(shown.lines),
            )
        )
        if not shown.drawn:
            continue
        for line in shown.lines:
            person_id = person_of.get(line.player.entrant_id)
            if person_id is not None and person_id in people:
                key = f"p{person_id}"
                person = people[person_id]
                who.setdefault(key, (person.name, person.club, False))
            else:
                key = f"e{line.player.entrant_id}"
                who[key] = (line.player.name, line.player.club, True)
            points.setdefault(key, {})[held] = line.total
        held += 1
    table = {key: [got.get(i) for i in range(held)] for key, got in points.items()}
    # the rules list them: by place (a shared place by name), then those the counting
    # leaves out (an evening missed)
    name_of = {key: alphabetical(who[key][0]) for key in table}
    lines = []
    for placed in series_lines(table, name_of, series.counting, series.best) if table else ():
        name, club, undecided = who[placed.player]
        values = tuple(table[placed.player])
        lines.append(
            SeriesLine(
                placed.player,
                name,
                club,
                placed.place,
                values,
                placed.counted,
                placed.total,
                undecided,
            )
        )
    return SeriesStandings(
        name=series.name,
        counting=series.counting,
        best=series.best,
        evenings=tuple(evenings),
        lines=tuple(lines),
    )


def series_of(tournament: Tournament) -> Series | None:
    """The series an evening belongs to, if any."""
    return tournament.series
