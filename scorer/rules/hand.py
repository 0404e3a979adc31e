"""One hand as the Schreiber enters it at the table, settled: docs/rules.md sections 5 and 6.

The form has a line per party of the table.  With ``dealer_sits_out`` the
dealer's party plays no part in the hand: :func:`settle_at_table` settles the
parties that played (:func:`~scorer.rules.table.active_parties`) and puts the
result back at the table's places (:func:`~scorer.rules.match.played_hand`),
the dealer's party with 0.  Trick points of a played hand may leave exactly one
party empty: it is filled in from the trick total
(:func:`~scorer.rules.tricks.complete_tricks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from .cards import Suit
from .errors import MeldError, RulesError
from .match import PlayedHand, played_hand
from .outcomes import BID_OUTCOMES
from .reach import check_meld_total, party_meld_totals
from .ruleset import SPECIAL_GAMES, Ruleset
from .settlement import HandResult, settle
from .table import active_parties
from .tricks import complete_tricks

T = TypeVar("T")

# outcomes whose trick points are played out and checked against the trick total
TRICKS_PLAYED = ("played", "forfeit", "open_play")


def kept_entry(
    outcome: str, *, bid: int, won: bool | None, at_fault: int | None
) -> tuple[int, bool | None, int | None]:
    """What of the bid, the won/lost and the party at fault this outcome keeps.

    A bid only where the outcome has one, won or lost only for a special game, a
    party at fault only for a forfeit; the rest is left empty, whatever was typed.

    >>> kept_entry("durch", bid=300, won=True, at_fault=1)
    (0, True, None)
    >>> kept_entry("forfeit", bid=300, won=True, at_fault=1)
    (300, None, 1)
    """
    return (
        bid if outcome in BID_OUTCOMES else 0,
        won if outcome in SPECIAL_GAMES else None,
        at_fault if outcome == "forfeit" else None,
    )


@dataclass(frozen=True)
class HandEntry:
    """One hand as the Schreiber entered it, per party of the table, before the rules
    checked it: from the form through the services to :func:`settle_entry`.

    ``melds``, ``tricks`` and ``took_trick`` have one entry per party of the table
    (fewer: the rest empty); ``meld_names`` the melds named by the calculator;
    ``at_fault`` the party at fault of a forfeit (None: the declarer);
    ``declarer_seat`` the player who declared where a party is a team.
    """

    declarer: int | None = None
    bid: int = 0
    trump: str | None = None
    outcome: str = "played"
    won: bool | None = None
    melds: Sequence[int] = ()
    meld_names: Sequence[Sequence[str] | None] = ()
    tricks: Sequence[int | None] = ()
    took_trick: Sequence[bool | None] = ()
    at_fault: int | None = None
    declarer_seat: int | None = None


@dataclass(frozen=True)
class TableHand:
    """A hand settled at the table.

    ``result`` is the settlement of the parties that played, in their order
    (``result.declarer`` counts among them); ``played`` the same per party of
    the table, as the match keeps it; ``tricks`` the trick points per party of
    the table, the filled-in one included (``None`` for a party that sat out).
    """

    result: HandResult
    played: PlayedHand
    active: tuple[int, ...]
    tricks: tuple[int | None, ...]

    @property
    def points(self) -> tuple[int, ...]:
        return self.played.points

    @property
    def tricks_sum(self) -> int:
        """The trick points of the hand added up (the filled-in one included)."""
        return sum(t for t in self.tricks if t is not None)

    @property
    def exact_points(self) -> tuple[int, ...]:
        exact = self.played.exact_points
        return self.played.points if exact is None else exact

    @property
    def stars(self) -> tuple[int, ...]:
        return self.played.stars


def _at(values: Sequence[T], places: Sequence[int], default: T) -> list[T]:
    """``values`` (one per party of the table, maybe fewer) at ``places``."""
    return [values[p] if p < len(values) else default for p in places]


def settle_at_table(
    ruleset: Ruleset,
    seats: int,
    dealer: int,
    *,
    declarer: int | None,
    bid: int = 0,
    outcome: str = "played",
    won: bool | None = None,
    melds: Sequence[int] = (),
    tricks: Sequence[int | None] = (),
    took_trick: Sequence[bool | None] = (),
    ended_early: bool = False,
    scheme_checked: bool = True,
    at_fault: int | None = None,
    trump: str | None = None,
    melds_checked: bool = True,
) -> TableHand:
    """Settle a hand from what was entered per party of the table.

    ``declarer`` is a party of the table; ``tricks`` may leave one party of a
    played hand empty (``None``); ``took_trick`` says per party whether it took
    a trick where that is not told by its trick points (``None``: more than 0).
    ``scheme_checked=False`` accepts trick points the counting scheme cannot
    make (a hand restored from a backup as it was saved); the other checks stay.
    ``ended_early``: an open-play hand closed in the middle because a party
    reached the target at once (the Swiss game); the tricks were not played out,
    so nothing is filled in and no trick total is checked when none were taken.
    ``at_fault``: the party of the table at fault of a ``forfeit`` (``None``: the
    declarer); an opposing party caught signalling scores as a failed declarer and
    the declarer's game counts as made (:func:`~scorer.rules.settlement.settle`).
    A forfeit whose trick points are all left empty was called before play.
    ``melds_checked``: every party's meld total must be one a party of this table
    can show under ``trump`` (any trump when None; :func:`~scorer.rules.reach.check_meld_total`);
    the MeldError names the party (``params["party"]``, a party of the table).
    ``False`` for hands restored as they were saved.

    Four at the table, the dealer (seat 0) sits out; party 2 declared 200 and
    made it, the third trick value is filled in from 250:

    >>> from scorer.rules.ruleset import PRESETS
    >>> hand = settle_at_table(PRESETS["vier_mit_aussetzer"], 4, 0, declarer=2, bid=200,
    ...                        melds=[0, 20, 60, 0], tricks=[None, 40, 150, None])
    >>> hand.points, hand.tricks, hand.active
    ((0, 60, 210, 60), (None, 40, 150, 60), (1, 2, 3))
    >>> settle_at_table(PRESETS["standard"], 3, 0, declarer=1, bid=200, trump="H",
    ...                 melds=[0, 5000, 0], tricks=[50, 150, None])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.MeldError: a hand of 12 cards melds at most 1800, not 5000
    >>> settle_at_table(PRESETS["vier_mit_aussetzer"], 4, 0, declarer=0, bid=200)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: the dealer sits out this hand and cannot be the declarer

    The Swiss game ended by a meld in the middle of the hand: the melds count.

    >>> settle_at_table(PRESETS["schweizer"], 2, 0, declarer=None, outcome="open_play",
    ...                 melds=[1010, 240], ended_early=True).points
    (1010, 240)
    """
    active = active_parties(ruleset, seats, dealer)
    if declarer is not None and declarer not in active:
        raise RulesError("the dealer sits out this hand and cannot be the declarer")
    if at_fault is not None and outcome == "forfeit" and at_fault not in active:
        raise RulesError("the dealer sits out this hand and cannot be at fault")
    if melds_checked:
        _check_melds(ruleset, trump, melds, active)
    entered: list[int | None] = _at(tricks, active, None)
    before_play = outcome == "forfeit" and all(t is None for t in entered)
    if outcome in TRICKS_PLAYED and not ended_early and not before_play:
        played_tricks = list(
            complete_tricks(
                ruleset, entered, _at(took_trick, active, None), scheme_checked=scheme_checked
            )
        )
    else:
        played_tricks = [t or 0 for t in entered]
    took = _at(took_trick, active, None)
    took_trick_ = (
        None
        if all(t is None for t in took)
        else [t if t is not None else p > 0 for t, p in zip(took, played_tricks, strict=True)]
    )
    result = settle(
        ruleset,
        players=len(active) * ruleset.team_size,
        bidder=None if declarer is None else active.index(declarer),
        bid=bid,
        outcome=outcome,
        won=won,
        melds=_at(melds, active, 0),
        tricks=[] if before_play or (ended_early and not any(played_tricks)) else played_tricks,
        took_trick=took_trick_,
        ended_early=ended_early,
        at_fault=active.index(at_fault) if at_fault is not None and outcome == "forfeit" else None,
        scheme_checked=scheme_checked,
    )
    at_table: list[int | None] = [None] * ruleset.parties
    # closed early or forfeited before play: what was entered stays as it was (empty
    # stays empty, so the hand reads back, and restores from a backup, the same way)
    kept = entered if ended_early or before_play else played_tricks
    for party, value in zip(active, kept, strict=True):
        at_table[party] = value
    return TableHand(
        result=result,
        played=played_hand(ruleset, seats, dealer, result),
        active=active,
        tricks=tuple(at_table),
    )


def _check_melds(
    ruleset: Ruleset, trump: str | None, melds: Sequence[int], active: Sequence[int]
) -> None:
    """MeldError for the first party whose meld total no party of this table can show."""
    errors = meld_total_errors(ruleset, trump, melds, active)
    if errors:
        raise errors[0]


def meld_total_errors(
    ruleset: Ruleset, trump: str | None, melds: Sequence[int], active: Sequence[int]
) -> list[MeldError]:
    """A MeldError for every party of ``active`` whose meld total no party of this table
    can show under ``trump`` (any trump when None), each naming its party
    (``params["party"]``): a form marks every wrong total at once.

    >>> from scorer.rules.ruleset import PRESETS
    >>> errors = meld_total_errors(PRESETS["standard"], "H", [30, 20, 5000], [0, 1, 2])
    >>> [(e.params["party"], str(e)) for e in errors]  # doctest: +NORMALIZE_WHITESPACE
    [(0, 'no melds add up to 30 here: the nearest totals are 20 and 40'),
     (2, 'a hand of 12 cards melds at most 1800, not 5000')]
    """
    suit = trump if trump in {s.value for s in Suit} else None
    totals = party_meld_totals(ruleset, suit)
    if totals is None:
        return []
    errors = []
    for party in active:
        total = melds[party] if party < len(melds) else 0
        try:
            check_meld_total(ruleset, total, suit, totals)
        except MeldError as exc:
            errors.append(MeldError(exc.template, party=party, **exc.params))
    return errors


def settle_entry(
    ruleset: Ruleset,
    seats: int,
    dealer: int,
    entry: HandEntry,
    *,
    ended_early: bool = False,
    restoring: bool = False,
) -> TableHand:
    """Settle an entered hand at the table (:func:`settle_at_table`).

    ``restoring``: a hand from a backup, taken as it was saved: its trick points
    are not checked against the counting scheme, nor its meld totals.

    >>> from scorer.rules.ruleset import PRESETS
    >>> entry = HandEntry(declarer=0, bid=200, trump="H", melds=[190, 20, 0],
    ...                   tricks=[150, 60, None])
    >>> settle_entry(PRESETS["standard"], 3, 1, entry).points
    (340, 80, 40)
    """
    return settle_at_table(
        ruleset,
        seats,
        dealer,
        declarer=entry.declarer,
        bid=entry.bid,
        outcome=entry.outcome,
        won=entry.won,
        melds=entry.melds,
        tricks=entry.tricks,
        took_trick=entry.took_trick,
        ended_early=ended_early,
        at_fault=entry.at_fault if entry.outcome == "forfeit" else None,
        scheme_checked=not restoring,
        trump=entry.trump,
        melds_checked=not restoring,
    )
