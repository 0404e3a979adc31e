"""The tournament's money (docs/rules.md section 13): what each player owes, the fund, prizes.

Each player checked in owes the entry fee and the lost-game money: the
organiser's schedule (``scorer.rules.tournament.lost_game_fee``) applied to the
player's lost games **of the whole evening**, not round by round — "€1.00 from
the fifth" counts the fifth lost game of the evening (a round of 12 deals
rarely brings five, so per round the step would hardly ever apply, and the
tally on the tournament sheet runs over the evening).  Per round the page shows
what that round's lost games added; the rounds add up to the total.  The lost
games are the tables' (a paper slip's count where there is one:
:func:`.tables.results`).

The prize fund is the entry fees and, unless the organiser says not, the
lost-game money, less what the organiser keeps (an amount or a percentage:
``prize_fund``).  The prizes are shares of the fund per place
(``scorer.rules.tournament.prizes``: tied players share the prizes of their
places to the cent), or items picked in ranking order (``item_prizes``), and
optionally a joke prize for the last place (``last_place``).

A tap "paid" records what the player paid; it carries the amount the page
showed, so a tap on an amount that changed since (a corrected hand) is told,
and a second tap changes nothing (one conditional UPDATE).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from sqlalchemy import or_, select, update
from sqlalchemy.orm import selectinload

from ...extensions import db
from ...models import Match, utcnow
from ...rules import RulesError
from ...rules.tournament import (
    Schedule,
    check_shares,
    item_prizes,
    last_place,
    pick_order,
    place_prizes,
    prize_fund,
    prizes,
    round_fees,
)
from ...tournament_models import Entrant, Round, Tournament, TournamentTable
from ..errors import ConflictError
from ..starting import storable
from ..unit import use_case
from .entrants import entrant_of
from .setup import bump, schedule_of
from .standings import Player, Standings
from .tables import Result, results

KEEP_KINDS = ("amount", "percent")
PRIZE_MODES = ("money", "items")
MAX_KEEP_CENTS = 10_000_000
"""The most the organiser keeps as an amount (100,000 €): more is a typing mistake."""
MAX_PRIZE_ITEMS = 300
"""The most items a prize table lists (one per place)."""
MAX_ITEM = 100
"""The longest name of an item prize, and of the joke prize."""
HUNDRED_PERCENT = 10_000
"""A share as stored: hundredths of a per cent (3000 = 30 %)."""


def cents_of(amount: Decimal) -> int:
    """An amount of euros (to the cent, as the rules give it) in cents."""
    return int(amount * 100)


# -- the settings ------------------------------------------------------------------------


@dataclass(frozen=True)
class PrizeSettings:
    """The organiser's money settings: what is kept, where the lost-game money goes, the prizes.

    ``keep_value`` is cents (``keep_kind == "amount"``) or hundredths of a per
    cent (``"percent"``); ``shares`` are fractions of the fund per place.
    """

    keep_kind: str = "amount"
    keep_value: int = 0
    lost_to_fund: bool = True
    mode: str = "money"
    shares: tuple[Decimal, ...] = ()
    items: tuple[str, ...] = ()
    joke: str = ""


def settings_of(tournament: Tournament) -> PrizeSettings:
    """The tournament's money settings as stored."""
    return PrizeSettings(
        keep_kind=tournament.keep_kind,
        keep_value=tournament.keep_value,
        lost_to_fund=tournament.lost_money_to_fund,
        mode=tournament.prize_mode,
        shares=tuple(Decimal(bp) / HUNDRED_PERCENT for bp in tournament.prize_shares or ()),
        items=tuple(tournament.prize_items or ()),
        joke=tournament.joke_prize,
    )


def _checked(settings: PrizeSettings) -> dict[str, object]:
    """The columns of ``settings``, or RulesError: everything is checked before anything changes."""
    if settings.keep_kind not in KEEP_KINDS or settings.mode not in PRIZE_MODES:
        raise RulesError("these prize settings are not known")
    high = MAX_KEEP_CENTS if settings.keep_kind == "amount" else HUNDRED_PERCENT
    value = settings.keep_value
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise RulesError("what the organiser keeps is out of range")
    # the rules' shares are hundredths of a per cent, which is how they are kept
    stored = [int(share * HUNDRED_PERCENT) for share in check_shares(settings.shares)]
    items = [" ".join(item.split()) for item in settings.items]
    items = [item for item in items if item]
    if len(items) > MAX_PRIZE_ITEMS:
        raise RulesError("a prize table lists at most {most} items", most=MAX_PRIZE_ITEMS)
    joke = " ".join(settings.joke.split())
    for text in (*items, joke):
        if len(text) > MAX_ITEM or not storable(text):
            raise RulesError(
                "a prize is named in at most {most} characters, without control characters",
                most=MAX_ITEM,
            )
    return {
        "keep_kind": settings.keep_kind,
        "keep_value": value,
        "lost_money_to_fund": bool(settings.lost_to_fund),
        "prize_mode": settings.mode,
        "prize_shares": stored,
        "prize_items": items,
        "joke_prize": joke,
    }


@use_case
def update_prizes(tournament: Tournament, settings: PrizeSettings) -> None:
    """Save the money settings, committed; a refusal (RulesError) leaves the row as it was.

    Counts as a change of the tournament: the public prize list shows it.
    """
    for column, value in _checked(settings).items():
        setattr(tournament, column, value)
    bump(tournament)


# -- the fund ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Fund:
    """The evening's takings and where they go (cents)."""

    entry_cents: int
    lost_cents: int
    lost_to_fund: bool
    keep_kind: str
    keep_value: int
    fund_cents: int

    @property
    def takings_cents(self) -> int:
        """Everything the players owe together."""
        return self.entry_cents + self.lost_cents

    @property
    def kept_cents(self) -> int:
        """What the organiser keeps: the takings less the fund (the lost-game money too,
        when it does not go to the fund)."""
        return self.takings_cents - self.fund_cents


def fee_cents(lost: int, schedule: Schedule) -> int:
    """What ``lost`` lost games of the evening cost on ``schedule`` (cents; the rules price)."""
    return cents_of(schedule.fee(lost))


def fee_examples(tournament: Tournament, counts: Sequence[int]) -> list[tuple[int, int]]:
    """What each of ``counts`` lost games of an evening cost on the tournament's schedule
    (cents), for the pages' notes; none when the stored schedule cannot be read."""
    try:
        schedule = schedule_of(tournament)
    except RulesError:
        return []
    return [(lost, fee_cents(lost, schedule)) for lost in counts]


def fund_of(tournament: Tournament, lost: Mapping[int, int]) -> Fund:
    """The fund from the players checked in and their lost games of the evening (by entrant id)."""
    checked_in = [e for e in tournament.entrants if e.number is not None]
    entry = tournament.entry_fee_cents * len(checked_in)
    schedule = schedule_of(tournament)
    lost_money = sum(fee_cents(lost.get(e.id, 0), schedule) for e in checked_in)
    takings = entry + (lost_money if tournament.lost_money_to_fund else 0)
    percent = tournament.keep_kind == "percent"
    keep = Decimal(tournament.keep_value) / (HUNDRED_PERCENT if percent else 100)
    fund = prize_fund(Decimal(takings) / 100, keep, share=percent)
    return Fund(
        entry_cents=entry,
        lost_cents=lost_money,
        lost_to_fund=tournament.lost_money_to_fund,
        keep_kind=tournament.keep_kind,
        keep_value=tournament.keep_value,
        fund_cents=cents_of(fund),
    )


# -- what each player owes ----------------------------------------------------------------


@dataclass(frozen=True)
class Account:
    """One player's money: entry fee, lost games and their money per round, what was paid.

    ``lost`` and ``fees`` line up with :attr:`Ledger.rounds`; ``None`` is a
    round the player did not play.  A round's fee is what its lost games added
    to the evening's lost-game money.
    """

    entrant_id: int
    number: int
    name: str
    club: str
    withdrawn: bool
    lost: tuple[int | None, ...]
    fees: tuple[int | None, ...]
    paper: tuple[bool, ...]
    entry_cents: int
    paid_cents: int | None
    paid_at: datetime | None

    @property
    def lost_total(self) -> int:
        """Lost games of the evening."""
        return sum(n for n in self.lost if n is not None)

    @property
    def lost_cents(self) -> int:
        """Lost-game money of the evening (the schedule on :attr:`lost_total`)."""
        return sum(f for f in self.fees if f is not None)

    @property
    def owed_cents(self) -> int:
        """Entry fee and lost-game money."""
        return self.entry_cents + self.lost_cents

    @property
    def paid(self) -> bool:
        """Paid exactly what is owed now."""
        return self.paid_cents == self.owed_cents

    @property
    def outstanding_cents(self) -> int:
        """What is still to pay (0 when paid, or paid more)."""
        return max(self.owed_cents - (self.paid_cents or 0), 0)

    @property
    def refund_cents(self) -> int:
        """What was paid too much (a hand corrected after paying)."""
        return max((self.paid_cents or 0) - self.owed_cents, 0)


@dataclass(frozen=True)
class Ledger:
    """Every checked-in player's account (by start number) and the evening's fund."""

    rounds: tuple[int, ...]
    accounts: tuple[Account, ...]
    fund: Fund
    schedule: str

    @property
    def collected_cents(self) -> int:
        """What the cash desk took."""
        return sum(a.paid_cents or 0 for a in self.accounts)

    @property
    def outstanding_cents(self) -> int:
        """What is still to collect."""
        return sum(a.outstanding_cents for a in self.accounts)

    @property
    def refund_cents(self) -> int:
        """What is to give back (paid before a correction lowered the amount)."""
        return sum(a.refund_cents for a in self.accounts)

    @property
    def paid_count(self) -> int:
        """How many players have paid what they owe."""
        return sum(1 for a in self.accounts if a.paid)

    def account(self, entrant_id: int) -> Account | None:
        """The account of ``entrant_id``, or None when the player is not checked in."""
        return next((a for a in self.accounts if a.entrant_id == entrant_id), None)


def _round_results(tournament: Tournament) -> list[tuple[int, dict[int, Result]]]:
    """Every drawn round's results by entrant id; tables and matches loaded at once."""
    tables = selectinload(Round.tables)
    rows = db.session.execute(
        select(Round)
        .where(Round.tournament_id == tournament.id)
        .order_by(Round.number)
        .options(tables.selectinload(TournamentTable.match).selectinload(Match.seats))
    ).scalars()
    return [(row.number, results(row)) for row in rows]


def ledger(tournament: Tournament) -> Ledger:
    """What every player checked in owes, has paid, and the fund, as the database holds it now."""
    drawn = _round_results(tournament)
    checked_in = sorted(
        (e for e in tournament.entrants if e.number is not None), key=lambda e: e.number or 0
    )
    accounts = []
    lost_of: dict[int, int] = {}
    schedule = schedule_of(tournament)
    for entrant in checked_in:
        played = [found.get(entrant.id) for _, found in drawn]
        lost = tuple(r.lost if r is not None else None for r in played)
        account = Account(
            entrant_id=entrant.id,
            number=entrant.number or 0,
            name=entrant.name,
            club=entrant.club,
            withdrawn=entrant.withdrawn_before is not None,
            lost=lost,
            fees=tuple(
                None if fee is None else cents_of(fee)
                for fee in round_fees(lost, schedule)
            ),
            paper=tuple(r is not None and r.paper for r in played),
            entry_cents=tournament.entry_fee_cents,
            paid_cents=entrant.paid_cents,
            paid_at=entrant.paid_at,
        )
        accounts.append(account)
        lost_of[entrant.id] = account.lost_total
    return Ledger(
        rounds=tuple(number for number, _ in drawn),
        accounts=tuple(accounts),
        fund=fund_of(tournament, lost_of),
        schedule=tournament.fee_schedule,
    )


class AmountChanged(ConflictError):
    """The page showed another amount than the player owes now (a hand was corrected)."""

    def __init__(self, owed_cents: int, shown_cents: int) -> None:
        super().__init__(owed_cents, shown_cents)
        self.owed_cents = owed_cents
        self.shown_cents = shown_cents


def _set_paid(tournament: Tournament, entrant: Entrant, cents: int | None) -> bool:
    """One UPDATE that finds the row only while it differs: two taps at once write once."""
    table = Entrant.__table__
    differs = table.c.paid_cents.is_not(None)
    if cents is not None:
        differs = or_(table.c.paid_cents.is_(None), table.c.paid_cents != cents)
    done = (
        db.session.connection()
        .execute(
            update(table)
            .where(table.c.id == entrant.id, table.c.tournament_id == tournament.id, differs)
            .values(paid_cents=cents, paid_at=utcnow() if cents is not None else None)
        )
        .rowcount
    )
    db.session.expire(entrant, ["paid_cents", "paid_at"])
    return bool(done)


@use_case
def mark_paid(tournament: Tournament, entrant_id: int, shown_cents: int) -> bool:
    """Record that the player paid what they owe, committed; False when it was recorded already.

    ``shown_cents`` is the amount the page showed: when the player owes another
    amount now, :class:`AmountChanged` says so and nothing changes.
    """
    entrant = entrant_of(tournament, entrant_id)
    account = ledger(tournament).account(entrant.id)
    if account is None:
        raise RulesError("{name} is not checked in: nothing to pay", name=entrant.name)
    if shown_cents != account.owed_cents:
        raise AmountChanged(account.owed_cents, shown_cents)
    return _set_paid(tournament, entrant, account.owed_cents)


@use_case
def mark_unpaid(tournament: Tournament, entrant_id: int) -> bool:
    """Take a "paid" back (a wrong tap), committed; False when nothing was recorded."""
    return _set_paid(tournament, entrant_of(tournament, entrant_id), None)


# -- the prize list -----------------------------------------------------------------------


@dataclass(frozen=True)
class Winner:
    """A line of the prize list: a player, their place (shared by ``tied``), their prize."""

    place: int
    tied: int
    player: Player
    total: int
    cents: int | None = None
    item: str | None = None
    pick: int | None = None


@dataclass(frozen=True)
class PrizeList:
    """The prizes as the ranking gives them now (``final`` once the last round is closed)."""

    mode: str
    final: bool
    drawn: bool
    fund: Fund
    shares: tuple[Decimal, ...]
    place_cents: tuple[int, ...]
    winners: tuple[Winner, ...]
    items: tuple[str, ...]
    joke: str
    joke_winners: tuple[Winner, ...]
    ranked: int

    @property
    def given_cents(self) -> int:
        """The money prizes together."""
        return sum(w.cents or 0 for w in self.winners)

    @property
    def rest_cents(self) -> int:
        """What of the fund no prize takes (shares under 100 %, places not reached, cents)."""
        return self.fund.fund_cents - self.given_cents if self.mode == "money" else 0

    @property
    def items_left(self) -> tuple[str, ...]:
        """Items nobody picks (fewer players than items)."""
        return self.items[len(self.winners) :] if self.mode == "items" else ()


def prize_list(tournament: Tournament, current: Standings) -> PrizeList:
    """The prizes of ``current``'s ranking with the tournament's settings.

    Players who share a place are listed by start number: with money, the
    first of them get the cent that does not divide; with items, the lower
    start number picks first.
    """
    settings = settings_of(tournament)
    lines = {line.player.entrant_id: line for line in current.lines}
    places = {entrant_id: line.place for entrant_id, line in lines.items()}
    tied: dict[int, int] = {}
    for place in places.values():
        tied[place] = tied.get(place, 0) + 1
    fund = fund_of(tournament, {i: line.lost for i, line in lines.items()})
    amount = Decimal(fund.fund_cents) / 100
    place_cents = tuple(cents_of(p) for p in place_prizes(amount, settings.shares))

    def winner(
        entrant_id: int, cents: int | None = None, item: str | None = None, pick: int | None = None
    ) -> Winner:
        line = lines[entrant_id]
        return Winner(line.place, tied[line.place], line.player, line.total, cents, item, pick)

    if settings.mode == "money":
        money = prizes(amount, settings.shares, places)
        winners = tuple(
            winner(i, cents=cents_of(money[i])) for i in pick_order(places) if i in money
        )
    else:
        picked = item_prizes(settings.items, places)
        winners = tuple(
            winner(i, item=item, pick=pick) for pick, (i, item) in enumerate(picked.items(), 1)
        )
    staying = {i: place for i, place in places.items() if not lines[i].player.withdrawn}
    jokers = tuple(winner(i) for i in last_place(staying)) if settings.joke else ()
    return PrizeList(
        mode=settings.mode,
        final=current.final,
        drawn=current.drawn,
        fund=fund,
        shares=settings.shares,
        place_cents=place_cents,
        winners=winners,
        items=settings.items,
        joke=settings.joke,
        joke_winners=jokers,
        ranked=len(places),
    )
