"""The organiser's forms of a round: draw, draw again, replace a link, close, a paper slip.

Each carries what the page showed (the round's number, the draw's attempt, the
table's link, the tables warned of, the slip's fingerprint), so a second tab or
a double tap acts on what it saw or is told that things moved on.  Numbers are
:class:`~scorer.forms.base.WholeNumberField`: junk, NUL bytes and 10**309 are
refused in the user's language.
"""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l
from wtforms import HiddenField, SubmitField

from ..rules.tournament import MAX_SLIP_POINTS
from ..services.tournaments.setup import MAX_ROUNDS
from .base import AppForm, WholeNumberField


class DrawForm(AppForm):
    """Draw round ``number`` (the page's next round); ``back``: the page it came from."""

    number = WholeNumberField(_l("Round"), low=1, high=MAX_ROUNDS, required=True)
    back = HiddenField()


class RedrawForm(AppForm):
    """Draw the round again; ``attempt`` is the draw the page showed."""

    attempt = WholeNumberField(low=1, high=10_000, required=True)


class ReplaceLinkForm(AppForm):
    """Give a table a new link; ``link`` is the link number the page showed."""

    link = WholeNumberField(low=1, high=10_000, required=True)


class CloseForm(AppForm):
    """Close the round; ``warned``: the unsigned tables the page warned of ("4,7").

    ``sure`` is "1" on the page that asked "Close round n?" (a round is closed only
    after that question, answered); ``back``: the page the organiser came from (the
    board or the tournament's page), where the answer goes.
    """

    warned = HiddenField()
    sure = HiddenField()
    back = HiddenField()


def table_numbers(text: str | None) -> set[int]:
    """The table numbers of a ``warned`` field ("4,7"); anything else is left out.

    >>> sorted(table_numbers("4, 7,x,,99999999999999999999,²"))
    [4, 7]
    """
    return {
        int(part)
        for part in (text or "").split(",")
        if part.strip().isdecimal() and len(part.strip()) < 7
    }


class PaperSlipForm(AppForm):
    """A paper slip: per seat points and lost games (the fields are made per table)."""

    shown = HiddenField()
    # the second button: the slip goes, the table's own sheet counts again
    remove = SubmitField()
    seats = 0

    def lines(self) -> list[tuple[Any, Any]]:
        """(points, lost) field pairs in seat order."""
        return [(self[f"points_{seat}"], self[f"lost_{seat}"]) for seat in range(self.seats)]

    def values(self) -> list[tuple[int, int]]:
        """What was typed, in seat order (after ``validate``)."""
        return [(points.data, lost.data) for points, lost in self.lines()]


def paper_slip_form(seats: int, deals: int, **kwargs: Any) -> PaperSlipForm:
    """The slip form of a table of ``seats`` players playing ``deals`` deals."""

    class TableSlip(PaperSlipForm):
        pass

    TableSlip.seats = seats
    for seat in range(seats):
        setattr(
            TableSlip,
            f"points_{seat}",
            WholeNumberField(
                _l("Points"), low=-MAX_SLIP_POINTS, high=MAX_SLIP_POINTS, required=True
            ),
        )
        setattr(
            TableSlip, f"lost_{seat}", WholeNumberField(_l("Lost games"), high=deals, required=True)
        )
    return TableSlip(**kwargs)
