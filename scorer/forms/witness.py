"""A table phone's kept deals read again: the hand form's fields, checked, as a hand.

A phone keeps each deal it sent as the hand form's fields (``static/witness.js``) and
sends them again, or reports them, as form fields of their own: for deal ``i`` its key
``key<i>``, its place ``seq<i>``, its number on the phone ``deal<i>``, the key of the
phone's deal before it ``after<i>`` (empty: none), ``struck<i>`` and ``told<i>``
(``1`` or empty), and the hand form's fields named ``d<i>.<field>``.
:func:`kept_deals` reads them into :class:`KeptDeal` values (only the hand form's own
fields, each bounded); :func:`entry_of` (:func:`entry_at` for a table here) reads one
deal with the hand form of the table it goes to, as the form's own save would — no bid
question (the table answered it, or was not asked, when the deal was first saved).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from werkzeug.datastructures import MultiDict

from ..models import Match
from ..rules import Ruleset
from ..services import HandInput, Sheet, storable
from .base import whole_number
from .hand import HandForm

MAX_DEALS = 60
"""Deals in one request (``services.tournaments.witness.MAX_DEALS``)."""
MAX_FIELDS = 80
"""Fields of one deal (a table of four sends about 30)."""
MAX_TEXT = 200
"""Characters of one field's value (meld names of a party are the longest)."""
MAX_SEQ = 1_000_000
_FIELD = re.compile(
    r"(declarer|bid|bid_ok|trump|outcome|won|at_fault"
    r"|parties-[0-7]-(melds|meld_names|tricks|no_trick|took_zero))"
)
_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NUMBERED = re.compile(r"(key|seq|deal|after|struck|told|d)(\d{1,2})(\..+)?")


class NotDeals(ValueError):
    """What was sent is not a phone's kept deals (too many, a bad key, a text too long)."""


@dataclass(frozen=True)
class KeptDeal:
    """One deal a phone sent again or reports: key, place (0: not known), its number on
    the phone, the key of the phone's deal before it, struck, told it was saved, and the
    hand form's fields."""

    key: str
    seq: int
    deal: int
    after: str | None
    struck: bool
    told: bool
    fields: tuple[tuple[str, str], ...]


def kept_deals(form: MultiDict[str, str]) -> list[KeptDeal]:
    """The deals in a request's form, in order of their number; :class:`NotDeals` when
    anything of them is not what a phone sends."""
    keys: dict[int, dict[str, str]] = {}
    fields: dict[int, list[tuple[str, str]]] = {}
    for name, value in form.items(multi=True):
        found = _NUMBERED.fullmatch(name)
        if found is None:
            continue
        kind, index = found.group(1), int(found.group(2))
        if index >= MAX_DEALS or len(value) > MAX_TEXT or not storable(value):
            raise NotDeals(name)
        if kind == "d":
            field = (found.group(3) or ".")[1:]
            if _FIELD.fullmatch(field):
                fields.setdefault(index, []).append((field, value))
                if len(fields[index]) > MAX_FIELDS:
                    raise NotDeals(name)
        elif found.group(3) is None:
            keys.setdefault(index, {})[kind] = value
    deals = []
    for index in sorted(keys):
        given = keys[index]
        key = given.get("key", "")
        seq = whole_number(given.get("seq", ""))
        deal = whole_number(given.get("deal", "")) or seq
        after = given.get("after") or None
        if not _KEY.fullmatch(key) or seq is None or not 0 <= seq <= MAX_SEQ:
            raise NotDeals(f"key{index}")
        if after is not None and not _KEY.fullmatch(after):
            raise NotDeals(f"after{index}")
        deals.append(
            KeptDeal(
                key=key,
                seq=seq,
                deal=deal if deal and 0 < deal <= MAX_SEQ else seq,
                after=after,
                struck=given.get("struck") == "1",
                told=given.get("told") == "1",
                fields=tuple(fields.get(index, ())),
            )
        )
    if len({d.key for d in deals}) != len(deals):
        raise NotDeals("key")
    return deals


def entry_of(
    fields: Sequence[tuple[str, str]],
    ruleset: Ruleset,
    parties: list[str],
    *,
    seat_names: list[str] | None = None,
    seat_parties: list[int] | None = None,
) -> HandInput | None:
    """The hand ``fields`` enter at a table of ``ruleset`` (None: the form refuses them).

    The rules' own checks (the 250, the melds a hand can hold) come with the save.
    """
    form = HandForm(formdata=MultiDict(list(fields)), meta={"csrf": False})
    form.setup(
        ruleset,
        parties,
        has_data=True,
        seat_names=seat_names,
        seat_parties=seat_parties,
    )
    form.highest_of = None  # no bid question: the table saw the deal saved before
    if not form.validate():
        return None
    return form.to_input(len(parties))


def entry_at(fields: Sequence[tuple[str, str]], match: Match, sheet: Sheet) -> HandInput | None:
    """:func:`entry_of` at the table of ``match`` (its standing ``sheet``): its rules, its
    parties, and at a table of teams its players."""
    return entry_of(
        fields,
        sheet.ruleset,
        sheet.parties,
        seat_names=sheet.seat_names,
        seat_parties=[seat.party for seat in match.seats],
    )
