"""The forms of a hand: the hand form of a match and the two-player forms.

:func:`hand_form` builds the :class:`HandForm` of a match, for the views and
for the cached empty form (:mod:`scorer.cache`) alike; a saved hand comes back
into it as the form would post it.  :class:`TricksForm` and
:class:`MeldEntryForm` serve the two-player game, :class:`ConfirmForm` every
button that changes something.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from flask_babel import lazy_gettext as _l
from werkzeug.datastructures import MultiDict
from wtforms import (
    BooleanField,
    Field,
    FieldList,
    Form,
    FormField,
    HiddenField,
    RadioField,
    SelectField,
)
from wtforms.validators import ValidationError

from ..models import Hand, Match
from ..rules import (
    BID_OUTCOMES,
    MAX_BID,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SPECIAL_GAMES,
    TRUMP_OUTCOMES,
    RulesError,
    Ruleset,
    Suit,
    bid_ceiling_of,
    bid_doubt,
    check_bid,
    meld_total_errors,
    smallest_meld,
)
from ..services import HandInput, Sheet, highest_bid, input_of, storable
from ..words import OUTCOME_CHOICES, SUITS, rules_message
from .base import (
    AppForm,
    BidField,
    WholeNumberField,
    choice_list,
    choice_values,
    key_or_none,
    whole_number,
)
from .readings import read_bid, read_melds, tens_readings


class PartyForm(Form):
    """One party's line: melds, trick points, 'took no trick' / 'took a trick worth 0'.

    The three states of "took a trick" (docs/rules.md section 5): unsaid (told by the trick
    points), no trick (``no_trick``: its trick points count as 0), or a trick worth
    nothing (``took_zero`` with 0 trick points: its melds count).
    """

    melds = WholeNumberField(_l("Melds"))
    meld_names = HiddenField()
    tricks = WholeNumberField(_l("Tricks"), high=1000)
    no_trick = BooleanField(_l("took no trick"))
    took_zero = BooleanField(_l("took a trick worth 0"))


class HandForm(AppForm):
    """A hand: declarer, bid, trump, outcome first; then what the outcome needs."""

    declarer = SelectField(_l("Declarer (Spielmacher)"), choices=[], validate_choice=False)
    bid = BidField(_l("Bid (Reizwert)"))
    trump = RadioField(_l("Trump"), choices=choice_list(SUITS.items()), validate_choice=False)
    outcome = RadioField(
        _l("Outcome"),
        choices=choice_list(OUTCOME_CHOICES),
        default="played",
        validate_choice=False,
    )
    won = RadioField(
        _l("Result"),
        choices=choice_list([("1", _l("won")), ("0", _l("lost"))]),
        validate_choice=False,
    )
    # a forfeit: who is at fault ("" = the declarer)
    at_fault = SelectField(_l("At fault"), choices=[], validate_choice=False)
    parties = FieldList(FormField(PartyForm), min_entries=MIN_PLAYERS, max_entries=MAX_PLAYERS)
    version = HiddenField()
    idempotency_key = HiddenField(filters=[key_or_none])
    # the bid the Schreiber confirmed (the button of the question, see asks_bid)
    bid_ok = HiddenField()
    # what asks_bid found: the bid asked about, above this table's ceiling
    bid_question: int | None = None
    bid_ceiling: int | None = None
    bid_highest: int | None = None  # the highest bid saved at this table (None: none yet)
    # the bid as typed when it was read in tens ("140" for 1400), else None
    bid_typed: str | None = None
    # the highest bid saved at this table, asked for only when a bid needs it
    highest_of: Callable[[], int | None] | None = None
    asks_only = False

    def setup(
        self,
        ruleset: Ruleset,
        names: list[str],
        *,
        has_data: bool,
        seat_names: list[str] | None = None,
        seat_parties: list[int] | None = None,
    ) -> None:
        """Fit the form to the match: one line per party, the outcomes this table plays.

        At a table of teams the declarer is chosen as a player (``s<seat>``): the
        party is the player's team, and the player is kept too.
        """
        self.seat_names = seat_names or []
        self.seat_parties = seat_parties or []
        self.teams = (
            ruleset.team_size > 1
            and bool(self.seat_names)
            and len(self.seat_parties) == len(self.seat_names)
        )
        if self.teams:
            declarers = [(f"s{seat}", n) for seat, n in enumerate(self.seat_names)]
        else:
            declarers = [(str(i), n) for i, n in enumerate(names)]
        self.declarer.choices = choice_list([("", "—"), *declarers])
        self.at_fault.choices = choice_list(
            [("", _l("the declarer"))] + [(str(i), n) for i, n in enumerate(names)]
        )
        outcomes = [
            (value, label)
            for value, label in OUTCOME_CHOICES
            if value not in SPECIAL_GAMES or ruleset.special_value(value) is not None
        ]
        self.outcome.choices = choice_list(outcomes)
        self.ruleset = ruleset
        if not has_data:
            while len(self.parties) < len(names):
                self.parties.append_entry()
        self.party_names = names
        # the range a bid has at this table, for its message ("from 150 to 10000")
        self.bid.low, self.bid.high = ruleset.min_bid, MAX_BID
        typed = self.bid.data
        self.bid.data = read_bid(ruleset, typed)
        if self.bid.data != typed:
            self.bid_typed = str(typed)
        self.smallest_meld = smallest_meld(ruleset)
        self.readings = tens_readings(ruleset, self.smallest_meld)
        for line in self.parties:
            line.form.melds.data = read_melds(self.smallest_meld, line.form.melds.data)

    def declarer_of(self) -> tuple[int | None, int | None]:
        """The declaring party and, at a table of teams, the declaring seat."""
        text = str(self.declarer.data or "").strip()
        parties = len(getattr(self, "party_names", []))
        if getattr(self, "teams", False) and text.startswith("s"):
            seat = _party_index(text[1:], len(self.seat_names))
            if seat is None:
                return None, None
            return self.seat_parties[seat], seat
        return _party_index(text, parties), None

    def to_input(self, parties: int) -> HandInput:
        """The entered hand as plain values (ValueError-free: fields are validated)."""
        declarer, declarer_seat = self.declarer_of()
        lines = list(self.parties)[:parties]
        while len(lines) < parties:
            lines.append(None)
        melds = [(line.form.melds.data or 0) if line else 0 for line in lines]
        tricks = [line.form.tricks.data if line else None for line in lines]
        took = [_took(line.form) if line else None for line in lines]
        for i, line in enumerate(lines):
            if line and took[i] is True and tricks[i] is None:
                tricks[i] = 0  # a trick worth nothing: 0 trick points
        names = [_meld_names(line.form.meld_names.data) if line else None for line in lines]
        outcome = self.outcome.data or "played"
        won = None
        if outcome in SPECIAL_GAMES and self.won.data in ("0", "1"):
            won = self.won.data == "1"
        outcome_fault = _party_index(self.at_fault.data, parties) if outcome == "forfeit" else None
        return HandInput(
            declarer=declarer,
            declarer_seat=declarer_seat,
            at_fault=None if outcome_fault == declarer else outcome_fault,
            bid=self.bid.data or 0,
            trump=self.trump.data if self.trump.data in TRUMP_SUITS else None,
            outcome=outcome,
            won=won,
            melds=melds,
            meld_names=names,
            tricks=tricks,
            took_trick=took,
        )

    def validate_declarer(self, field: Field) -> None:
        if self.declarer_of()[0] is None:
            raise ValidationError(_l("Choose the declarer."))

    def outcome_groups(self) -> tuple[list[Any], list[Any]]:
        """The outcome's buttons: those with a bid (rules.BID_OUTCOMES), then the special games."""
        buttons = list(self.outcome)
        return (
            [b for b in buttons if b.data in BID_OUTCOMES],
            [b for b in buttons if b.data not in BID_OUTCOMES],
        )

    def validate_outcome(self, field: Field) -> None:
        if field.data not in choice_values(self.outcome.choices):
            raise ValidationError(_l("Choose how the hand went."))

    def validate_trump(self, field: Field) -> None:
        if self.outcome.data in TRUMP_OUTCOMES and field.data not in TRUMP_SUITS:
            raise ValidationError(_l("Choose the trump suit."))

    def validate_won(self, field: Field) -> None:
        if self.outcome.data in SPECIAL_GAMES and field.data not in ("0", "1"):
            raise ValidationError(_l("Won or lost?"))

    def validate(self, extra_validators: Any = None) -> bool:
        valid = bool(super().validate(extra_validators))
        # ``Optional()`` ends the bid's validation when it is empty, before validate_bid
        if self.outcome.data in BID_OUTCOMES and self.bid.data is None and not self.bid.errors:
            self.bid.errors = [*self.bid.errors, _l("Enter the bid.")]
            valid = False
        asks = self.asks_bid()
        # only the question: the view says nothing about fields to correct
        self.asks_only = asks and valid
        return valid and not asks

    def asks_bid(self) -> bool:
        """A bid above what this table has bid so far, not yet confirmed: ask once.

        ``highest_of`` (set by :func:`hand_form`) gives the table's highest bid, and
        :func:`scorer.rules.bid_ceiling_of` the ceiling; ``bid_ok`` carries the bid the
        Schreiber confirmed with the question's button.  Everything typed stays.
        """
        bid, highest_of = self.bid.data, self.highest_of
        if (
            highest_of is None
            or self.outcome.data not in BID_OUTCOMES
            or self.bid.errors
            or not isinstance(bid, int)
            or str(bid) == (self.bid_ok.data or "").strip()
        ):
            return False
        self.bid_highest = highest_of()
        self.bid_ceiling = bid_ceiling_of(self.ruleset, self.bid_highest)
        if bid <= self.bid_ceiling:
            return False
        self.bid_question = bid
        return True

    def validate_bid(self, field: Field) -> None:
        """The bid is checked here too, so that it is marked with every other mistake."""
        if self.outcome.data not in BID_OUTCOMES:
            return
        if not field.data and field.errors:
            return  # already refused as typed (no whole number, out of range)
        if not field.data:
            raise ValidationError(_l("Enter the bid."))
        ruleset = getattr(self, "ruleset", None)
        if ruleset is not None:
            try:
                check_bid(ruleset, field.data)
            except RulesError as exc:
                raise ValidationError(rules_message(exc)) from None

    def party_said(self, party: int, message: str) -> str:
        """A message about one party, with its name first: "Anna: …"."""
        names = getattr(self, "party_names", [])
        return f"{names[party]}: {message}" if 0 <= party < len(names) else message

    def meld_errors(self, first: RulesError, party: int) -> list[tuple[int, RulesError]]:
        """The meld totals refused, by party: ``first`` (what the save found, for ``party``)
        and those of the other parties that typed a total
        (:func:`scorer.rules.meld_total_errors`)."""
        found: dict[int, RulesError] = {party: first}
        ruleset = getattr(self, "ruleset", None)
        if ruleset is not None:
            melds = [line.form.melds.data or 0 for line in self.parties]
            typed = [i for i, line in enumerate(self.parties) if line.form.melds.data]
            trump = self.trump.data if self.trump.data in TRUMP_SUITS else None
            for error in meld_total_errors(ruleset, trump, melds, typed):
                number = error.params["party"]
                if isinstance(number, int):
                    found.setdefault(number, error)
        return sorted(found.items())

    def bid_doubt(self) -> str | None:
        """Why the bid as typed looks wrong (:func:`scorer.rules.bid_doubt`), in words:
        shown beside the bid while it is typed; None when it looks like a bid."""
        if self.outcome.data not in BID_OUTCOMES or getattr(self, "ruleset", None) is None:
            return None
        typed = self.bid.data if isinstance(self.bid.data, int) else whole_number(self.bid_raw())
        if not isinstance(typed, int) or typed <= 0:
            return None
        highest = self.highest_of() if self.highest_of is not None else None
        doubt = bid_doubt(self.ruleset, typed, highest)
        return rules_message(doubt) if doubt is not None else None

    def bid_raw(self) -> str:
        """The bid as it was typed (before a refusal emptied the field's value)."""
        raw = self.bid.raw_data
        return str(raw[0]).strip() if raw else ""

    def add_rules_error(self, error: RulesError) -> None:
        """Put a rules error on the field it is about (the form keeps every value)."""
        from ..rules import BidError, MeldError, TrickError

        message = rules_message(error)
        target: Field | None = None
        if isinstance(error, BidError):
            target = self.bid
        party = error.params.get("party") if isinstance(error, MeldError) else None
        if isinstance(party, int) and 0 <= party < len(self.parties):
            # every party whose total is wrong, each by its name ("Anna: …")
            for number, other in self.meld_errors(error, party):
                field = self.parties[number].form.melds
                field.errors = [*field.errors, self.party_said(number, rules_message(other))]
            return
        if target is not None:
            target.errors = [*target.errors, message]
        elif isinstance(error, TrickError):
            self.tricks_error = message
        elif isinstance(error, MeldError):
            self.melds_error = message
        else:
            self.form_errors.append(message)


def hand_form(
    match: Match, sheet: Sheet, hand: Hand | None = None, *, posted: bool = False
) -> HandForm:
    """The hand form for this match: as posted, prefilled from ``hand``, or empty.

    An empty form gets a fresh idempotency key; every form not read from the
    request carries the match's version.
    """
    if posted:
        form = HandForm()
    elif hand is not None:
        form = HandForm(formdata=_formdata(input_of(hand)))
    else:
        form = HandForm(formdata=None)
        form.idempotency_key.data = secrets.token_urlsafe(16)
    form.setup(
        sheet.ruleset,
        sheet.parties,
        has_data=posted or hand is not None,
        seat_names=sheet.seat_names,
        seat_parties=[seat.party for seat in match.seats],
    )
    if not posted:
        form.version.data = str(match.version)
    form.highest_of = lambda: highest_bid(match)
    return form


def _formdata(data: HandInput) -> MultiDict[str, Any]:
    """A saved hand as the hand form would post it (the correction form starts from it)."""
    declarer = "" if data.declarer is None else str(data.declarer)
    if data.declarer_seat is not None:
        declarer = f"s{data.declarer_seat}"
    pairs: list[tuple[str, Any]] = [
        ("declarer", declarer),
        ("at_fault", "" if data.at_fault is None else str(data.at_fault)),
        ("bid", str(data.bid or "")),
        ("trump", data.trump or ""),
        ("outcome", data.outcome),
        ("won", "" if data.won is None else ("1" if data.won else "0")),
    ]
    for i, melds in enumerate(data.melds):
        pairs.append((f"parties-{i}-melds", str(melds) if melds else ""))
        names = data.meld_names[i] if i < len(data.meld_names) else None
        pairs.append((f"parties-{i}-meld_names", ",".join(names or [])))
        tricks = data.tricks[i] if i < len(data.tricks) else None
        pairs.append((f"parties-{i}-tricks", "" if tricks is None else str(tricks)))
        took = data.took_trick[i] if i < len(data.took_trick) else None
        if took is False:
            pairs.append((f"parties-{i}-no_trick", "y"))
        elif took is True and not tricks:
            pairs.append((f"parties-{i}-took_zero", "y"))
    return MultiDict(pairs)


TRUMP_SUITS = tuple(suit.value for suit in Suit)
"""The trump as the form sends it: a suit's letter (rules.Suit)."""


def _took(line: Any) -> bool | None:
    """'Took a trick' of a party line: no (ticked), yes at 0 points (ticked), or unsaid."""
    if line.no_trick.data:
        return False
    if line.took_zero.data and not line.tricks.data:
        return True
    return None


def _party_index(value: Any, parties: int) -> int | None:
    """A party index from the form, or None (the live preview runs on unvalidated input)."""
    text = str(value).strip() if value is not None else ""
    # compared as text: int() of 5000 digits raises, and "٣" or "01" name no party
    indices = [str(i) for i in range(parties)]
    return indices.index(text) if text in indices else None


def _meld_names(text: str | None) -> list[str] | None:
    if not text:
        return None
    # at most 40 names of at most 40 characters: a hidden field is still user input
    names = [n.strip()[:40] for n in text.split(",", 40)[:40] if n.strip() and storable(n)]
    return names or None


class TricksForm(AppForm):
    """Closing a two-player hand: trick points per party."""

    parties = FieldList(FormField(PartyForm), min_entries=2, max_entries=4)  # Swiss: 2-4 alone
    version = HiddenField()
    # the hand in play the page showed (a second "close" never closes the next hand)
    hand = HiddenField()
    # the Swiss game: a party reached the target by a trick, the hand is closed at once
    ended_early = BooleanField(_l("Someone reached the target: close the hand now"))


class MeldEntryForm(AppForm):
    """One meld written during a two-player hand."""

    party = SelectField(_l("Player"), choices=choice_list([("0", "1"), ("1", "2")]))
    trump = RadioField(_l("Trump"), choices=choice_list(SUITS.items()), validate_choice=False)
    meld = SelectField(_l("Meld"), choices=[], validate_choice=False)
    # no points field: a meld's value comes from the rules (scorer.rules.offered_points)
    version = HiddenField()
    # the number of the hand in play the page shows: a meld is written to that hand
    hand = HiddenField()


class ConfirmForm(AppForm):
    """A bare form for buttons that change something (delete, next match): CSRF only."""

    version = HiddenField()
