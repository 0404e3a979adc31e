"""The money over the year: open balances between people, the kitty (docs/rules.md section 14.3).

Two books, both kept in whole cents:

- **Between people** (evenings that ``pay``): each evening's balances are owed
  until paid.  A payment (a "bezahlt" tap, on the night or later) moves money
  from payer to payee.  A person's *open balance* is the sum of his evenings'
  balances plus what he paid minus what he received; the open balances of
  everybody add up to 0 at every moment, and the year's transfers are the
  fewest that settle them (:func:`settle_open`).  Balances stay open until
  paid, whoever leaves the group, and they are carried into the next year.
- **The kitty** (evenings that pay into the ``kitty``): each person owes the
  kitty his dues until he pays them in; the kitty holds what was paid in less
  what was paid out (the annual outing).  Nothing is paid out that the kitty
  does not hold.

The year is a window on these books: what was open when it began
(``carried``), what its evenings and payments added, what is open at its end.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from .. import MAX_AMOUNT_CENTS, MAX_TRANSFER_PEOPLE, RulesError, minimal_transfers
from .money import EveningMoney

PAYMENT_KINDS: tuple[str, ...] = ("transfer", "kitty", "payout")
"""A payment between two people, a payment into the kitty, a payout from the kitty."""

MAX_PAYMENT_CENTS = 100 * MAX_AMOUNT_CENTS
"""The most one payment or payout may be (100,000 €): a year's debts between friends,
or the kitty of the annual outing, stay far below it."""


@dataclass(frozen=True)
class Payment:
    """Money that changed hands, as tapped: who paid whom (or the kitty), how much, when.

    ``kind`` is one of :data:`PAYMENT_KINDS`: ``transfer`` from ``payer`` to
    ``payee``; ``kitty`` from ``payer`` into the kitty; ``payout`` from the kitty
    (``note`` says what for).  ``evening`` names the evening a payment on the night
    belongs to (its year is that evening's); ``None`` for a payment made later,
    whose year is the one its ``day`` falls in.
    """

    number: int
    kind: str
    day: date
    cents: int
    payer: str | None = None
    payee: str | None = None
    evening: int | None = None
    note: str = ""


def check_payment(payment: Payment) -> Payment:
    """``payment`` when it is one, else :class:`RulesError` saying why.

    >>> check_payment(Payment(1, "transfer", date(2025, 3, 14), 40, "B", "A")).cents
    40
    >>> check_payment(Payment(1, "transfer", date(2025, 3, 14), 40, "A", "A"))
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: a payment goes from one person to another
    """
    if payment.kind not in PAYMENT_KINDS:
        raise RulesError("'{kind}' is not a kind of payment", kind=payment.kind)
    cents = payment.cents
    if not isinstance(cents, int) or isinstance(cents, bool) or not 0 < cents <= MAX_PAYMENT_CENTS:
        raise RulesError(
            "a payment is more than nothing and at most {most}, not {cents}",
            most=MAX_PAYMENT_CENTS,
            cents=cents,
        )
    if payment.kind == "transfer" and (
        payment.payer is None or payment.payee is None or payment.payer == payment.payee
    ):
        raise RulesError("a payment goes from one person to another")
    if payment.kind == "kitty" and (payment.payer is None or payment.payee is not None):
        raise RulesError("a payment into the kitty comes from one person")
    if payment.kind == "payout" and (payment.payer is not None or payment.payee is not None):
        raise RulesError("a payout leaves the kitty for what its note says")
    return payment


def settle_open(balances: Mapping[str, int]) -> tuple[tuple[tuple[str, str, int], ...], bool]:
    """Transfers ``(payer, payee, cents)`` that settle open balances, and whether they
    are the fewest possible.

    Up to :data:`scorer.rules.MAX_TRANSFER_PEOPLE` people with an open balance: the
    exact minimum (:func:`scorer.rules.minimal_transfers`, section 7).  Beyond, the
    largest debt is paid to the largest credit until all are settled (at most one
    transfer fewer than there are people; not always the fewest).

    >>> settle_open({"A": 300, "B": 200, "C": -300, "D": -200})
    ((('C', 'A', 300), ('D', 'B', 200)), True)
    """
    open_ = {person: cents for person, cents in balances.items() if cents}
    if sum(open_.values()):
        raise RulesError(
            "the open balances add up to {total} cents, not 0", total=sum(open_.values())
        )
    if len(open_) <= MAX_TRANSFER_PEOPLE:
        return tuple(minimal_transfers(open_)), True
    debts = {person: -cents for person, cents in open_.items() if cents < 0}
    credits = {person: cents for person, cents in open_.items() if cents > 0}
    transfers = []
    while debts:
        payer = min(debts, key=lambda person: (-debts[person], person))
        payee = min(credits, key=lambda person: (-credits[person], person))
        cents = min(debts[payer], credits[payee])
        transfers.append((payer, payee, cents))
        for left, person in ((debts, payer), (credits, payee)):
            left[person] -= cents
            if not left[person]:
                del left[person]
    return tuple(sorted(transfers)), False


@dataclass(frozen=True)
class Account:
    """One person's money in the year.

    Between people: ``carried`` (open when the year began), ``evenings`` (what
    this year's evenings added), ``paid`` and ``received`` (this year's
    payments), ``open`` (at the year's end: the sum of them, paid counting up and
    received counting down).  Towards the kitty: ``kitty_carried`` (owed when the
    year began), ``dues`` (this year's), ``kitty_paid`` (paid in this year),
    ``kitty_open`` (still owed).
    """

    person: str
    carried: int = 0
    evenings: int = 0
    paid: int = 0
    received: int = 0
    kitty_carried: int = 0
    dues: int = 0
    kitty_paid: int = 0

    @property
    def open(self) -> int:
        return self.carried + self.evenings + self.paid - self.received

    @property
    def kitty_open(self) -> int:
        return self.kitty_carried + self.dues - self.kitty_paid


@dataclass(frozen=True)
class Kitty:
    """The kitty in the year: what it held when the year began, what came in and went out.

    ``parts`` is each person's part of what was paid in this year, and ``shares``
    the same in tenths of a per cent (adding up to 1000 when anything was paid in).
    """

    carried: int
    paid_in: int
    paid_out: int
    parts: tuple[tuple[str, int], ...]
    shares: tuple[tuple[str, int], ...]

    @property
    def balance(self) -> int:
        return self.carried + self.paid_in - self.paid_out


@dataclass(frozen=True)
class Ledger:
    """The year's money: an account per person, the fewest transfers, the kitty."""

    accounts: tuple[Account, ...]
    transfers: tuple[tuple[str, str, int], ...]
    fewest: bool
    kitty: Kitty

    def account(self, person: str) -> Account:
        """The account of ``person`` (an empty one when he has no money in the books)."""
        return next((a for a in self.accounts if a.person == person), Account(person))

    @property
    def outstanding(self) -> int:
        """What is owed to the kitty and not paid in yet, by everybody together."""
        return sum(a.kitty_open for a in self.accounts)


def shares_of(parts: Sequence[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """Each part of a whole in tenths of a per cent, adding up to exactly 1000
    (largest remainders; of equal remainders the earlier part gets the tenth).

    >>> shares_of([("A", 100), ("B", 100), ("C", 100)])
    (('A', 334), ('B', 333), ('C', 333))
    """
    whole = sum(cents for _, cents in parts)
    if whole <= 0:
        return tuple((person, 0) for person, _ in parts)
    floors = [(cents * 1000) // whole for _, cents in parts]
    rests = [(cents * 1000) % whole for _, cents in parts]
    left = 1000 - sum(floors)
    order = sorted(range(len(parts)), key=lambda i: (-rests[i], i))
    for i in order[:left]:
        floors[i] += 1
    return tuple((person, floors[i]) for i, (person, _) in enumerate(parts))


def paid_when(
    payment: Payment,
    during: Collection[int],
    before: Collection[int],
    start: date,
    end: date | None = None,
) -> str:
    """``"before"``, ``"during"`` or ``"after"`` the year, for one payment: a payment on the
    night goes with its evening (``during``: this year's evening numbers, ``before``: the
    earlier years'), any other by its day (the year runs from ``start`` until ``end``).

    >>> paid_when(Payment(1, "kitty", date(2026, 1, 8), 50, "A", evening=3), {3}, {1, 2},
    ...           date(2026, 1, 1))
    'during'
    >>> paid_when(Payment(2, "kitty", date(2025, 12, 1), 50, "A"), {3}, {1, 2}, date(2026, 1, 1))
    'before'
    """
    if payment.evening is not None:
        if payment.evening in during:
            return "during"
        return "before" if payment.evening in before else "after"
    if payment.day < start:
        return "before"
    return "after" if end is not None and payment.day >= end else "during"


def year_ledger(
    earlier: Sequence[EveningMoney],
    this_year: Sequence[EveningMoney],
    payments: Sequence[Payment],
    start: date,
    end: date | None = None,
) -> Ledger:
    """The books of one year: ``earlier`` evenings (every earlier year), ``this_year``'s,
    and every payment of the group; the year runs from ``start`` until ``end``
    (``None``: the current year).  Payments after the year are not in it.

    Anna won 40 ct from Bert on the 14th of March and Bert paid 20 of it the week
    after; Carla paid 50 ct into the kitty, and 30 went to the outing:

    >>> from .money import EveningMoney
    >>> pay = EveningMoney(1, date(2025, 3, 14), "pay", 20, "full", (), {"A": 40, "B": -40},
    ...                    (("B", "A", 40),), {})
    >>> kitty = EveningMoney(2, date(2025, 3, 21), "kitty", 10, "full", (), {"C": -50, "A": 50},
    ...                      (), {"C": 50, "A": 0})
    >>> paid = [Payment(1, "transfer", date(2025, 3, 21), 20, "B", "A"),
    ...         Payment(2, "kitty", date(2025, 3, 21), 50, "C", None, evening=2),
    ...         Payment(3, "payout", date(2025, 6, 1), 30, note="Ausflug")]
    >>> books = year_ledger([], [pay, kitty], paid, date(2025, 1, 1))
    >>> [(a.person, a.open, a.kitty_open) for a in books.accounts]
    [('A', 20, 0), ('B', -20, 0), ('C', 0, 0)]
    >>> books.transfers, books.kitty.balance, books.kitty.parts
    ((('B', 'A', 20),), 20, (('C', 50),))
    """
    this_numbers = {e.number for e in this_year}
    earlier_numbers = {e.number for e in earlier}
    if this_numbers & earlier_numbers:
        raise RulesError("an evening cannot be in two years")
    accounts: dict[str, dict[str, int]] = {}

    def book(person: str) -> dict[str, int]:
        return accounts.setdefault(person, dict.fromkeys(_FIELDS, 0))

    for evening, part in [(e, "carried") for e in earlier] + [(e, "evenings") for e in this_year]:
        if evening.money == "pay":
            for person, cents in evening.results.items():
                book(person)[part] += cents
        elif evening.money == "kitty":
            due = "kitty_carried" if part == "carried" else "dues"
            for person, cents in evening.dues.items():
                book(person)[due] += cents
    kitty_carried = paid_in = paid_out = 0
    parts: dict[str, int] = {}
    ordered = sorted(payments, key=lambda p: (p.day, p.number))
    for payment in ordered:
        check_payment(payment)
        when = paid_when(payment, this_numbers, earlier_numbers, start, end)
        if when == "after":
            continue
        before = when == "before"
        if payment.kind == "transfer":
            assert payment.payer is not None and payment.payee is not None
            if before:
                book(payment.payer)["carried"] += payment.cents
                book(payment.payee)["carried"] -= payment.cents
            else:
                book(payment.payer)["paid"] += payment.cents
                book(payment.payee)["received"] += payment.cents
        elif payment.kind == "kitty":
            assert payment.payer is not None
            if before:
                book(payment.payer)["kitty_carried"] -= payment.cents
                kitty_carried += payment.cents
            else:
                book(payment.payer)["kitty_paid"] += payment.cents
                paid_in += payment.cents
                parts[payment.payer] = parts.get(payment.payer, 0) + payment.cents
        else:
            if before:
                kitty_carried -= payment.cents
            else:
                paid_out += payment.cents
        if kitty_carried + paid_in - paid_out < 0:
            raise RulesError(
                "the payout of {cents} on {day} is more than the kitty held",
                cents=payment.cents,
                day=payment.day.isoformat(),
            )
    rows = tuple(Account(person, **values) for person, values in sorted(accounts.items()))
    transfers, fewest = settle_open({a.person: a.open for a in rows})
    part_list = sorted(parts.items(), key=lambda item: (-item[1], item[0]))
    kitty = Kitty(
        carried=kitty_carried,
        paid_in=paid_in,
        paid_out=paid_out,
        parts=tuple(part_list),
        shares=shares_of(part_list),
    )
    return Ledger(rows, transfers, fewest, kitty)


_FIELDS = ("carried", "evenings", "paid", "received", "kitty_carried", "dues", "kitty_paid")


def check_payout(kitty: Kitty, cents: int) -> None:
    """A payout the kitty can make, else :class:`RulesError` naming what it holds.

    >>> check_payout(Kitty(0, 1240, 0, (), ()), 1500)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: the kitty holds 1240, not 1500
    """
    if not isinstance(cents, int) or isinstance(cents, bool) or not 0 < cents <= MAX_PAYMENT_CENTS:
        raise RulesError(
            "a payment is more than nothing and at most {most}, not {cents}",
            most=MAX_PAYMENT_CENTS,
            cents=cents,
        )
    if cents > kitty.balance:
        raise RulesError("the kitty holds {held}, not {cents}", held=kitty.balance, cents=cents)
