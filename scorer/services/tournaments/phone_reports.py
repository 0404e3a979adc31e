"""What the table phones hold that this laptop lacks: their reports, listed for the organiser.

A phone reports the deals it keeps when this laptop does not have its table (its link
names nothing here: a restore of a file from before the round's draw), when the
organiser gave the table another link, or when the laptop refused deals it sent again
(another hand in their place, a hand missing before them, a closed round) —
:mod:`.witness`.  The organiser's page lists the open reports per round and table,
each deal in words, with what the laptop has of it.

Decisions:

* **Taken in automatically** only through the table's own link (the phone's resend,
  :func:`.witness.resend`): whoever holds the link may write at the table anyway.  A
  report is never written into a table by itself — anybody in the hall can claim a
  round, a table and names — the organiser takes it in (:func:`take_in`) or sets it
  aside (:func:`set_aside`).
* **Where it goes**: the table the report's link names here; else a table of the same
  round with the same players in the same seats (a round drawn again with the same
  seed after a restore seats them so) — :func:`targets`.  Its deals go in as the
  phone's resend does, each at its place, with their keys (``via="organiser"``: a
  closed round takes them too).  A report without such a table stays listed: the
  organiser types the table's result from it (a paper slip) and sets it aside.
* **Bounded**: one report per table link (a phone reporting again replaces what it
  said), at most :data:`MAX_REPORTS` open ones per tournament, the deals' count and
  texts bounded (:data:`.witness.MAX_DEALS`, :data:`MAX_FIELDS`, :data:`MAX_TEXT`).
* A report whose deals the laptop holds by now (the phone sent them again after all)
  is no longer listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from ...extensions import db
from ...models import Match, utcnow
from ...tournament_models import PhoneReport, Round, Tournament, TournamentTable
from ..errors import NotFound
from ..unit import use_case
from ..writes import ORGANISER
from .tables import names_of, table_of_match
from .witness import MAX_DEALS, Deal, Outcome, held, resend

MAX_REPORTS = 500
"""Open reports of one tournament: a phone per table of a big hall, twice over."""
MAX_FIELDS = 80
"""Fields of one deal as the hand form sends them (a table of four: about 30)."""
MAX_TEXT = 200
"""Characters of one field's name or value."""
WHY = ("missing", "refused", "replaced")


class TooManyReports(Exception):
    """The tournament has :data:`MAX_REPORTS` open reports: this one is not kept."""


@dataclass(frozen=True)
class Reported:
    """One deal of a report as it is kept: key, place (0: not known), the deal's number on
    the phone, whether the phone saw it struck, whether the phone was told it was saved,
    why the laptop refused it (or ""), the hand form's fields, and the key of the phone's
    deal before it (or "")."""

    key: str
    seq: int
    deal: int
    struck: bool
    told: bool
    why: str
    fields: tuple[tuple[str, str], ...]
    after: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "seq": self.seq,
            "deal": self.deal,
            "struck": self.struck,
            "told": self.told,
            "why": self.why,
            "fields": [list(pair) for pair in self.fields],
            "after": self.after,
        }

    @classmethod
    def of(cls, value: dict[str, Any]) -> Reported:
        return cls(
            key=str(value["key"]),
            seq=int(value["seq"]),
            deal=int(value.get("deal") or value["seq"]),
            struck=bool(value.get("struck")),
            told=bool(value.get("told")),
            why=str(value.get("why") or ""),
            fields=tuple((str(n), str(v)) for n, v in value.get("fields") or []),
            after=str(value.get("after") or ""),
        )


def deals_of(report: PhoneReport) -> list[Reported]:
    """A report's deals, in the order the phone played them."""
    return [Reported.of(item) for item in report.deals]


def get_tournament_by_view(view_token: str) -> Tournament | None:
    """The tournament behind a public link (the one a phone knows), or None."""
    return db.session.execute(
        select(Tournament).where(
            Tournament.view_token == view_token, Tournament.restoring.is_(None)
        )
    ).scalar_one_or_none()


@use_case
def report(
    tournament: Tournament,
    *,
    token: str,
    round_number: int,
    table_number: int,
    players: Sequence[str],
    deals: Sequence[Reported],
    why: str,
) -> PhoneReport:
    """Keep (or renew) what the phone at link ``token`` reports; :class:`TooManyReports`
    when the tournament has too many open ones.  A report the organiser settled is opened
    again only when the phone holds a deal the settled one did not list."""
    assert why in WHY
    found = db.session.execute(
        select(PhoneReport).where(
            PhoneReport.tournament_id == tournament.id, PhoneReport.token == token
        )
    ).scalar_one_or_none()
    kept = [deal.as_json() for deal in deals[:MAX_DEALS]]
    now = utcnow()
    if found is None:
        if open_count(tournament) >= MAX_REPORTS:
            raise TooManyReports()
        found = PhoneReport(
            tournament_id=tournament.id,
            token=token,
            received_at=now,
        )
        db.session.add(found)
    elif found.settled_at is not None:
        before = {item.get("key") for item in found.deals}
        if all(deal.key in before for deal in deals):
            return found  # nothing new since the organiser settled it
        found.settled_at = None
        found.settled = None
    found.round_number = round_number
    found.table_number = table_number
    found.players = list(players)
    found.deals = kept
    found.why = why
    found.updated_at = now
    db.session.flush()
    return found


def open_count(tournament: Tournament) -> int:
    """How many reports of ``tournament`` are still listed."""
    return int(
        db.session.execute(
            select(func.count())
            .select_from(PhoneReport)
            .where(PhoneReport.tournament_id == tournament.id, PhoneReport.settled_at.is_(None))
        ).scalar_one()
    )


def state_of_link(token: str) -> str | None:
    """What became of the report of the phone at ``token``: "open", "taken", "set_aside",
    or None (none kept)."""
    found = db.session.execute(
        select(PhoneReport.settled, PhoneReport.settled_at)
        .where(PhoneReport.token == token)
        .order_by(PhoneReport.updated_at.desc())
        .limit(1)
    ).first()
    if found is None:
        return None
    return "open" if found.settled_at is None else str(found.settled)


# -- the organiser's list -------------------------------------------------------------


@dataclass(frozen=True)
class Listed:
    """An open report as the organiser's page shows it: the report, its deals, the
    table here its link names (or None), the tables it could go to, and the keys of its
    deals this laptop holds already."""

    report: PhoneReport
    deals: list[Reported]
    here: TournamentTable | None
    targets: list[TournamentTable]
    holds: frozenset[str]

    @property
    def missing(self) -> list[Reported]:
        """The deals the laptop lacks."""
        return [d for d in self.deals if d.key not in self.holds]


def listed(tournament: Tournament) -> list[Listed]:
    """The tournament's open reports by round and table; a report whose deals the laptop
    holds by now (the phone sent them again after all) is left out."""
    reports = db.session.execute(
        select(PhoneReport)
        .where(PhoneReport.tournament_id == tournament.id, PhoneReport.settled_at.is_(None))
        .order_by(PhoneReport.round_number, PhoneReport.table_number, PhoneReport.id)
    ).scalars()
    out: list[Listed] = []
    for found in reports:
        here = _table_by_link(tournament, found.token)
        options = [here] if here is not None else targets(tournament, found)
        holds: frozenset[str] = frozenset()
        for table in options[:1]:
            holds = held(table.match).keys
        deals = deals_of(found)
        if options and deals and all(d.key in holds for d in deals):
            continue
        out.append(Listed(found, deals, here, options, holds))
    return out


@use_case
def _settle(reports: Sequence[PhoneReport], how: str) -> None:
    now = utcnow()
    for found in reports:
        found.settled_at = now
        found.settled = how


def _table_by_link(tournament: Tournament, token: str) -> TournamentTable | None:
    """The table of ``tournament`` whose match has the link ``token`` here, or None."""
    match_id = db.session.execute(select(Match.id).where(Match.token == token)).scalar()
    if match_id is None:
        return None
    table = table_of_match(match_id)
    if table is None or table.round.tournament_id != tournament.id:
        return None
    return table


def targets(tournament: Tournament, found: PhoneReport) -> list[TournamentTable]:
    """The tables of the report's round here with its players in the same seats."""
    row = db.session.execute(
        select(Round).where(
            Round.tournament_id == tournament.id, Round.number == found.round_number
        )
    ).scalar_one_or_none()
    if row is None:
        return []
    wanted = [name.casefold() for name in found.players]
    fitting = []
    for table in row.tables:
        names = names_of(table)
        seated = [names[p].name.casefold() for p in table.players if p in names]
        if seated == wanted:
            fitting.append(table)
    return fitting


def get_report(tournament: Tournament, report_id: int) -> PhoneReport:
    """An open report of ``tournament``, or :class:`NotFound`."""
    found = db.session.get(PhoneReport, report_id)
    if found is None or found.tournament_id != tournament.id or found.settled_at is not None:
        raise NotFound()
    return found


def take_in(
    tournament: Tournament, found: PhoneReport, table: TournamentTable, deals: Sequence[Deal]
) -> list[Outcome]:
    """The organiser takes the report's ``deals`` (read by the hand form of ``table``'s
    match) in, each at its place; the report is settled once the table holds all of them.
    """
    if table.round.tournament_id != tournament.id:
        raise NotFound()
    outcomes = resend(table.match, deals, via=ORGANISER)
    holds = held(table.match).keys
    if all(item.key in holds for item in deals_of(found)):
        _settle([found], "taken")
    return outcomes


def set_aside(found: PhoneReport) -> None:
    """The organiser has dealt with the report otherwise (a paper slip, typed by hand)."""
    _settle([found], "set_aside")
