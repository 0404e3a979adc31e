"""The money of a session: what each finished match costs, the balances, who pays whom.

The amounts come from ``scorer.rules`` (:func:`scorer.rules.stake_payments`,
:func:`scorer.rules.minimal_transfers`); the totals from the stored standings.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..models import GameSession, Match, utcnow
from ..rules import BASES, MAX_AMOUNT_CENTS, RulesError, minimal_transfers, stake_payments
from .sheets import Sheet, standing
from .unit import use_case


@dataclass
class MatchMoney:
    """One match of a session with what it costs every player (finished matches only)."""

    match: Match
    sheet: Sheet
    payments: dict[str, int]
    error: str | None = None


@dataclass
class Settlement:
    """The money of a session: per match, per player, and the fewest transfers."""

    session: GameSession
    matches: list[MatchMoney]
    balances: dict[str, int]
    transfers: list[tuple[str, str, int]]
    error: RulesError | None = None

    @property
    def open_matches(self) -> int:
        return sum(1 for m in self.matches if not m.sheet.finished)


def match_payments(match: Match, current: Sheet, stake_cents: int, basis: str) -> dict[str, int]:
    """Net cents per player for one finished match.

    Every player gets the total of his party; in team play both partners of
    the winning team are winners, so each partner pays or receives the team's
    amount (docs/rules.md section 7).
    """
    totals = {seat.name: current.totals[seat.party] for seat in match.seats}
    winners = [seat.name for seat in match.seats if seat.party in current.winners]
    return stake_payments(totals, winners, stake_cents, basis)


def settlement(row: GameSession) -> Settlement:
    """Balances over the session's finished matches and the fewest transfers that settle them."""
    balances: dict[str, int] = {}
    matches: list[MatchMoney] = []
    # every match with its seats in two queries; the totals come from the standings (no rows)
    in_session = db.session.execute(
        select(Match)
        .where(Match.session_id == row.id)
        .order_by(Match.number)
        .options(selectinload(Match.seats))
    ).scalars()
    for match in in_session:
        current = standing(match)
        for seat in match.seats:
            balances.setdefault(seat.name, 0)
        payments: dict[str, int] = {}
        problem: str | None = None
        if current.finished:
            try:
                payments = match_payments(match, current, row.stake_cents, row.stake_basis)
            except RulesError as exc:
                problem = str(exc)
            for name, cents in payments.items():
                balances[name] += cents
        matches.append(MatchMoney(match=match, sheet=current, payments=payments, error=problem))
    try:
        transfers = minimal_transfers(balances)
    except RulesError as exc:
        return Settlement(row, matches, balances, [], error=exc)
    return Settlement(row, matches, balances, transfers)


@use_case
def set_stake(row: GameSession, stake_cents: int, basis: str) -> None:
    """Change the session's stake; the settlement follows (committed)."""
    if basis not in BASES or not 0 <= stake_cents <= MAX_AMOUNT_CENTS:
        raise RulesError(
            "the stake must be 0 to {most} € per {basis}",
            most=MAX_AMOUNT_CENTS // 100,
            basis=basis,
        )
    row.stake_cents = stake_cents
    row.stake_basis = basis
    row.updated_at = utcnow()
