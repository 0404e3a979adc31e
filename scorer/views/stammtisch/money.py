"""The year's money page and the "bezahlt" taps (docs/rules.md section 14.3).

The page says every number in words, from the rules' own lines: per person what
was open when the year began, each evening with its matches ("3 × 0,10 € für
390 Punkte Rückstand auf Anna"), each payment, what is open now; the year's fewest
transfers, each with its "bezahlt"; the kitty with its payouts and each member's
part.  The taps post plain forms (no script needed) and come back to the page
they were made on; a tap on a list another phone changed meanwhile is refused
and the list shown as it is now.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from flask import Blueprint, flash, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from ...forms.stammtisch import PayoutForm, StrikeForm, TapForm, payout_cents, read_day
from ...rules import RulesError
from ...services import ConflictError
from ...services.stammtisch import groups, payments
from ...services.stammtisch.reading import (
    Night,
    YearView,
    key_of,
    unpaid_on_night,
    year_view,
)
from ...stammtisch_models import Payment, Stammtisch
from ...web import go_to, render, same_site_path
from ...words import money
from .shared import Links, remember, today
from .words import MONEY_MODES, day_short, money_message, stake_line

bp = Blueprint("st_money", __name__)


@dataclass
class Said:
    """One line of a person's account: what it is, and its amount (its sign counted)."""

    text: str
    cents: int | None = None
    parts: list[Said] = field(default_factory=list)


@dataclass
class PersonMoney:
    """A person's money in the year, explained line by line."""

    person: str
    name: str
    guest: bool
    left: date | None
    lines: list[Said]
    open: int
    kitty_lines: list[Said]
    kitty_open: int


def _payment_text(row: Payment, view: YearView, person: str) -> Said:
    day = day_short(row.paid_on)
    if row.kind == "kitty":
        return Said(gettext("paid into the kitty on %(day)s", day=day), row.cents)
    if key_of(row.payer_id) == person:
        name = view.name(key_of(row.payee_id) or "")
        return Said(gettext("paid to %(name)s on %(day)s", name=name, day=day), row.cents)
    name = view.name(key_of(row.payer_id) or "")
    return Said(gettext("received from %(name)s on %(day)s", name=name, day=day), -row.cents)


def _match_lines(view: YearView, night: Night, person: str) -> list[Said]:
    lines = []
    for match in night.money.matches:
        winners = " & ".join(view.name(w) for w in match.winners)
        for line in match.lines:
            if line.person != person:
                continue
            text = stake_line(line, night.money, winners)
            lines.append(
                Said(
                    gettext("match %(number)s: %(what)s", number=match.number, what=text),
                    line.cents if night.money.money == "pay" else -max(0, -line.cents),
                )
            )
    return lines


def person_money(view: YearView) -> list[PersonMoney]:
    """Every person with money in the year's books, explained (members first, by name)."""
    counted = view.counted
    found: list[PersonMoney] = []
    for account in view.ledger.accounts:
        person = account.person
        lines: list[Said] = []
        kitty: list[Said] = []
        if account.carried:
            lines.append(Said(gettext("open from before this year"), account.carried))
        if account.kitty_carried:
            kitty.append(Said(gettext("owed to the kitty from before"), account.kitty_carried))
        for night in view.nights:
            if person not in night.money.results:
                continue
            parts = _match_lines(view, night, person)
            day = day_short(night.row.held_on)
            if night.money.money == "pay":
                lines.append(Said(day, night.money.results[person], parts))
            elif night.money.money == "kitty":
                kitty.append(Said(day, night.money.dues.get(person, 0), parts))
        for row in counted:
            if row.kind == "transfer" and person in (key_of(row.payer_id), key_of(row.payee_id)):
                lines.append(_payment_text(row, view, person))
            elif row.kind == "kitty" and key_of(row.payer_id) == person:
                kitty.append(_payment_text(row, view, person))
        member = view.members.get(person)
        guest = member is None
        found.append(
            PersonMoney(
                person,
                view.name(person),
                guest,
                member.left_on if member is not None else None,
                lines,
                account.open,
                kitty,
                account.kitty_open,
            )
        )
    return sorted(found, key=lambda p: (p.guest, p.name.casefold()))


@dataclass
class NightMoney:
    """An evening's money as its page shows it: the matches in words, the night's
    transfers or dues with what was paid on the night."""

    matches: list[tuple[int, list[tuple[str, str, int]]]]
    transfers: list[dict[str, Any]]
    dues: list[dict[str, Any]]


def night_money(view: YearView, night: Night) -> NightMoney:
    """What the evening's page shows of its money."""
    matches = []
    for match in night.money.matches:
        winners = " & ".join(view.name(w) for w in match.winners)
        said = []
        for line in match.lines:
            text = stake_line(line, night.money, winners)
            said.append((view.name(line.person), text, line.cents))
        matches.append((match.number, said))
    unpaid = unpaid_on_night(view, night)
    transfers = [
        {
            "payer": payer,
            "payee": payee,
            "cents": cents,
            "left": unpaid.transfers.get((payer, payee), 0),
            "key": secrets.token_urlsafe(16),
        }
        for payer, payee, cents in night.money.transfers
    ]
    dues = [
        {
            "person": person,
            "cents": cents,
            "left": unpaid.dues.get(person, 0),
            "key": secrets.token_urlsafe(16),
        }
        for person, cents in night.money.dues.items()
        if cents
    ]
    return NightMoney(matches, transfers, dues)


def _page(
    group: Stammtisch,
    number: int | None,
    edit: bool,
    *,
    payout: PayoutForm | None = None,
    status: int = 200,
    error: str = "",
) -> WerkzeugResponse:
    view = year_view(group, number, hands=False)
    links = Links(group, edit)
    remember(group, edit=edit)
    if payout is None:
        payout = PayoutForm(formdata=None)
        payout.day.data = today().strftime("%d.%m.%Y")
    keys = [
        {"payer": p, "payee": q, "cents": c, "key": secrets.token_urlsafe(16)}
        for p, q, c in view.ledger.transfers
    ]
    return render(
        "stammtisch/money.html",
        status=status,
        view=view,
        links=links,
        people=person_money(view),
        transfers=keys,
        payments=view.counted,
        payout=payout,
        tap=TapForm(formdata=None),
        strike=StrikeForm(formdata=None),
        money_modes=MONEY_MODES,
        new_key=secrets.token_urlsafe,
        error=error,
    )


@bp.get("/st/<token:token>/year/<int:number>/money")
def show(token: str, number: int) -> WerkzeugResponse:
    """The money of one of the group's years."""
    return _page(groups.get_group(token), number, True)


@bp.get("/st/<token:token>/money")
def current(token: str) -> WerkzeugResponse:
    """The money of the current year."""
    return _page(groups.get_group(token), None, True)


@bp.get("/sv/<token:view_token>/year/<int:number>/money", endpoint="show_view")
def show_of_view(view_token: str, number: int) -> WerkzeugResponse:
    """The money through the read-only twin (nothing to tap)."""
    return _page(groups.get_group_for_view(view_token), number, False)


def _back(group: Stammtisch) -> WerkzeugResponse:
    target = same_site_path(request.form.get("next"))
    return go_to(target or url_for("st_money.current", token=group.token))


def _tapped(group: Stammtisch, action: Any) -> WerkzeugResponse:
    try:
        action()
    except payments.AlreadyPaid:
        flash(
            gettext(
                "That is paid already (another phone was first, or the list changed): here is "
                "the money as it is now."
            ),
            "error",
        )
    except ConflictError:
        flash(
            gettext(
                "Another phone changed the money meanwhile: here it is as it is now. "
                "Tap again if it still applies."
            ),
            "error",
        )
    except RulesError as exc:
        flash(money_message(exc), "error")
    return _back(group)


def _tap(token: str, into_kitty: bool) -> WerkzeugResponse:
    group = groups.get_group(token)
    form = TapForm()
    if not form.validate() or (form.payee.data is None) != into_kitty:
        flash(gettext("That tap was not understood; nothing was recorded."), "error")
        return _back(group)
    payer, cents = int(form.payer.data or 0), int(form.cents.data or 0)
    where = {"day": today(), "evening": form.evening.data, "key": form.key.data}
    if into_kitty:
        return _tapped(
            group, lambda: payments.pay_kitty(group, payer_id=payer, cents=cents, **where)
        )
    payee = int(form.payee.data or 0)
    return _tapped(
        group,
        lambda: payments.pay(group, payer_id=payer, payee_id=payee, cents=cents, **where),
    )


@bp.post("/st/<token:token>/paid")
def paid(token: str) -> WerkzeugResponse:
    """ "bezahlt": one person paid another (on the night of an evening, or later)."""
    return _tap(token, into_kitty=False)


@bp.post("/st/<token:token>/kitty")
def kitty(token: str) -> WerkzeugResponse:
    """ "in die Kasse bezahlt": a person paid his dues into the kitty."""
    return _tap(token, into_kitty=True)


@bp.post("/st/<token:token>/payout")
def payout(token: str) -> WerkzeugResponse:
    """A payout from the kitty (the annual outing): amount, day, note."""
    group = groups.get_group(token)
    form = PayoutForm()
    if not form.validate():
        return _page(group, None, True, payout=form, status=422)
    try:
        payments.payout(
            group,
            cents=payout_cents(form.amount.data),
            day=read_day(form.day.data),
            note=form.note.data or "",
            today=today(),
            version=form.version.data,
            key=form.key.data,
        )
    except ConflictError:
        return _page(
            group,
            None,
            True,
            payout=form,
            status=409,
            error=gettext(
                "Another phone changed the money meanwhile. Please check and save again."
            ),
        )
    except RulesError as exc:
        message = money_message(exc)
        if exc.params.get("field") == "day":
            form.day.errors = [*form.day.errors, message]
        else:
            form.amount.errors = [*form.amount.errors, message]
        return _page(group, None, True, payout=form, status=422)
    flash(
        gettext(
            "The payout of %(amount)s is recorded.", amount=money(payout_cents(form.amount.data))
        ),
        "ok",
    )
    return go_to(url_for("st_money.current", token=group.token))


@bp.post("/st/<token:token>/payments/<int:payment>/strike")
def strike(token: str, payment: int) -> WerkzeugResponse:
    """A payment tapped by mistake is struck (kept in the list, no longer counted)."""
    group = groups.get_group(token)
    return _tapped(group, lambda: payments.strike(group, payment))
