"""The "bezahlt" taps and the kitty's payouts: the only money of the year that is typed.

Every payment is checked by the rules (:func:`scorer.rules.year.check_payment`)
and against the year's books as they are now, so nothing is paid twice:

- a tap sent twice (a double tap, a form sent again) is one payment (its key);
- a tap on the night pays at most what of that transfer (or those dues) is still
  unpaid on that night: a second phone tapping the same transfer is told it is paid;
- a later tap pays one of the year's transfers as they are now (or a person's
  dues to the kitty, at most what he owes): a list another phone settled since is
  refused, and shown again as it is;
- a payout the kitty does not hold on its day, and a struck payment-in that a
  payout needed, are refused; two phones recording payouts at once are told by
  the group's version.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from ...extensions import db
from ...models import utcnow
from ...rules import RulesError
from ...rules.year import check_payment
from ...stammtisch_models import Evening, Payment, Stammtisch
from ..errors import ConflictError, NotFound
from ..unit import use_case
from .evenings import get_evening
from .groups import bump, current_year
from .people import person_by_id
from .reading import Unpaid, evening_view, payment_value, unpaid_on_night, year_view

MAX_NOTE = 80


def _twin(group: Stammtisch, key: str | None) -> Payment | None:
    if not key:
        return None
    return db.session.execute(
        select(Payment).where(Payment.group_id == group.id, Payment.idempotency_key == key)
    ).scalar_one_or_none()


def _books_add_up(group: Stammtisch) -> None:
    """Refuse a change (written, not committed) after which the current year's books would
    not add up: a payout of more than the kitty held on its day."""
    db.session.flush()
    year_view(group, hands=False)


def _record(
    group: Stammtisch,
    payment: Payment,
    version: int | None,
) -> Payment:
    check_payment(payment_value(payment, {}))
    bump(group, version)
    db.session.add(payment)
    db.session.flush()
    return payment


class AlreadyPaid(ConflictError):
    """What a tap was for is paid already (another phone was first, or the list has changed
    since it was shown): nothing is recorded, and the page shows the list as it is."""


def _unpaid_tonight(group: Stammtisch, number: int) -> tuple[Evening, Unpaid]:
    row = get_evening(group, number)
    view, night = evening_view(group, row)
    return row, unpaid_on_night(view, night)


def _still_open(
    group: Stammtisch, payer: str, payee: str | None, cents: int, evening: int | None
) -> Evening | None:
    """The evening a tap on the night is for; :class:`AlreadyPaid` unless ``cents`` is at
    most what is still unpaid — of that night's transfer (or dues), or of the year's."""
    if evening is not None:
        night, unpaid = _unpaid_tonight(group, evening)
        left = (
            unpaid.dues.get(payer, 0) if payee is None else unpaid.transfers.get((payer, payee), 0)
        )
        if not 0 < cents <= left:
            raise AlreadyPaid()
        return night
    ledger = year_view(group, hands=False).ledger
    if payee is None:
        if not 0 < cents <= ledger.account(payer).kitty_open:
            raise AlreadyPaid()
    elif (payer, payee, cents) not in ledger.transfers:
        raise AlreadyPaid()
    return None


def _tap(
    group: Stammtisch,
    *,
    payer_id: int,
    payee_id: int | None,
    cents: int,
    day: date,
    evening: int | None,
    key: str | None,
) -> Payment:
    twin = _twin(group, key)
    if twin is not None:
        return twin
    payer = person_by_id(group, payer_id)
    payee = None if payee_id is None else person_by_id(group, payee_id)
    night = _still_open(
        group, str(payer.id), None if payee is None else str(payee.id), cents, evening
    )
    row = Payment(
        group_id=group.id,
        kind="kitty" if payee is None else "transfer",
        payer_id=payer.id,
        payee_id=None if payee is None else payee.id,
        cents=cents,
        paid_on=day,
        evening_id=None if night is None else night.id,
        idempotency_key=key,
    )
    return _record(group, row, None)


@use_case
def pay(
    group: Stammtisch,
    *,
    payer_id: int,
    payee_id: int,
    cents: int,
    day: date,
    evening: int | None = None,
    key: str | None = None,
) -> Payment:
    """``payer`` paid ``payee`` (a "bezahlt" tap, on the night of ``evening`` or later: one
    of the year's transfers); committed.  :class:`AlreadyPaid` when it is paid already."""
    return _tap(
        group,
        payer_id=payer_id,
        payee_id=payee_id,
        cents=cents,
        day=day,
        evening=evening,
        key=key,
    )


@use_case
def pay_kitty(
    group: Stammtisch,
    *,
    payer_id: int,
    cents: int,
    day: date,
    evening: int | None = None,
    key: str | None = None,
) -> Payment:
    """``payer`` paid ``cents`` into the kitty (at most what he owes it: on the night of
    ``evening``, or in all); committed.  :class:`AlreadyPaid` when it is paid already."""
    return _tap(
        group, payer_id=payer_id, payee_id=None, cents=cents, day=day, evening=evening, key=key
    )


@use_case
def payout(
    group: Stammtisch,
    *,
    cents: int,
    day: date,
    note: str,
    today: date,
    version: int | None = None,
    key: str | None = None,
) -> Payment:
    """The kitty paid ``cents`` on ``day`` for ``note`` (the annual outing); refused when the
    kitty does not hold it then, or the day is outside the current year; committed."""
    twin = _twin(group, key)
    if twin is not None:
        return twin
    year = current_year(group)
    if not year.starts_on <= day <= today:
        raise RulesError(
            "a payout is dated in this year, from {first} to today",
            first=year.starts_on.isoformat(),
            field="day",
        )
    text = " ".join(note.split())[:MAX_NOTE]
    row = Payment(
        group_id=group.id,
        kind="payout",
        cents=cents,
        paid_on=day,
        note=text,
        idempotency_key=key,
    )
    recorded = _record(group, row, version)
    _books_add_up(group)
    return recorded


@use_case
def strike(group: Stammtisch, payment_id: int) -> Payment:
    """A payment tapped by mistake is struck (kept, not counted); refused when the kitty then
    would have paid out more than it held; committed."""
    row = db.session.get(Payment, payment_id) if 0 < payment_id < 2**31 else None
    if row is None or row.group_id != group.id:
        raise NotFound()
    if row.struck_at is None:
        bump(group)
        row.struck_at = utcnow()
        _books_add_up(group)
    return row
