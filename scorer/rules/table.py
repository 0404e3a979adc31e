"""The table: seats, parties, who deals and who plays a hand (docs/rules.md sections 1, 2, 6).

Seats are numbered 0.. in playing order.  The dealer of hand ``h`` (counted
from 0) is ``(first_dealer + h) % seats``; the leader is the next seat.  With
the option ``dealer = "winner"`` the winner of a hand deals the next instead
(:func:`scorer.rules.match.next_dealer_of`); who deals the first hand of the
session's next match is :func:`scorer.rules.match.first_dealer_of_next`.  In
team play partners sit opposite: seat ``s`` belongs to party ``s % parties``
(four seats: parties (0, 2) and (1, 3); six seats: (0, 3), (1, 4), (2, 5)).

With ``dealer_sits_out`` (four or five at the table, everybody alone) the dealer
gets no cards: :func:`active_parties` lists the parties that play the hand, in
seat order, and :func:`expand_active` puts their values back at the table's
places (0 for the dealer).
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import RulesError
from .ruleset import MAX_PLAYERS, MIN_PLAYERS, Ruleset


def _check_seats(seats: object) -> int:
    if (
        isinstance(seats, bool)
        or not isinstance(seats, int)
        or not MIN_PLAYERS <= seats <= MAX_PLAYERS
    ):
        raise RulesError("a table has 2 to 8 seats, not {seats}", seats=seats)
    return seats


def seat_index(seat: object, seats: int, what: str = "seat") -> int:
    """``seat`` when it is one of the ``seats`` seats (0-based), else RulesError naming ``what``.

    >>> seat_index(2, 3)
    2
    >>> seat_index(3, 3, "dealer")
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: dealer 3 is not one of the 3 seats (0 to 2)
    """
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
        raise RulesError(
            "{what} {seat} is not one of the {seats} seats (0 to {last})",
            what=what,
            seat=seat,
            seats=seats,
            last=seats - 1,
        )
    return seat


def dealer_of(hand_index: int, seats: int, first_dealer: int = 0) -> int:
    """The seat that deals hand ``hand_index`` (counted from 0).

    >>> [dealer_of(h, 3) for h in range(5)]
    [0, 1, 2, 0, 1]
    >>> dealer_of(0, 4, first_dealer=3)
    3
    """
    seats = _check_seats(seats)
    seat_index(first_dealer, seats, "first dealer")
    if not isinstance(hand_index, int) or isinstance(hand_index, bool) or hand_index < 0:
        raise RulesError("'{index}' is not a hand number", index=hand_index)
    return (first_dealer + hand_index) % seats


def leader_of(dealer: int, seats: int) -> int:
    """The leader (Vorhand): the seat after the dealer; bids first, leads the first trick.

    >>> leader_of(0, 3), leader_of(2, 3)
    (1, 0)
    """
    seats = _check_seats(seats)
    return (seat_index(dealer, seats, "dealer") + 1) % seats


def party_of_seat(ruleset: Ruleset, seat: int) -> int:
    """The party a seat plays for; partners sit opposite.

    >>> from scorer.rules.ruleset import PRESETS
    >>> [party_of_seat(PRESETS["kreuzbinokel"], s) for s in range(4)]
    [0, 1, 0, 1]
    >>> [party_of_seat(PRESETS["sechser"], s) for s in range(6)]
    [0, 1, 2, 0, 1, 2]
    """
    return seat_index(seat, ruleset.players) % ruleset.parties


def seats_of_party(ruleset: Ruleset, party: int) -> tuple[int, ...]:
    """The seats of a party, in seat order.

    >>> from scorer.rules.ruleset import PRESETS
    >>> seats_of_party(PRESETS["kreuzbinokel"], 1), seats_of_party(PRESETS["sechser"], 2)
    ((1, 3), (2, 5))
    """
    parties = ruleset.parties
    if not isinstance(party, int) or isinstance(party, bool) or not 0 <= party < parties:
        raise RulesError(
            "party {party} is not one of the {parties} parties", party=party, parties=parties
        )
    return tuple(range(party, ruleset.players, parties))


def seats_at_table(ruleset: Ruleset, seats: int) -> int:
    """The number of seats when ``ruleset`` can be played at a table of that many.

    >>> from scorer.rules.ruleset import PRESETS
    >>> seats_at_table(PRESETS["standard"], 3)
    3
    >>> seats_at_table(PRESETS["standard"], 4)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: the ruleset is for 3 players; this table has 4 seats
    """
    seats = _check_seats(seats)
    if seats != ruleset.players:
        raise RulesError(
            "the ruleset is for {players} players; this table has {seats} seats",
            players=ruleset.players,
            seats=seats,
        )
    if ruleset.dealer_sits_out and ruleset.teams:
        raise RulesError("the dealer can sit out only when everybody plays alone")
    return seats


def players_dealt_in(ruleset: Ruleset) -> int:
    """How many players get cards in a hand: all, or all but the dealer who sits out.

    This is the number the deal sizes (:func:`~scorer.rules.ruleset.hand_size`) go by.

    >>> from scorer.rules.ruleset import PRESETS
    >>> players_dealt_in(PRESETS["vier_mit_aussetzer"]), players_dealt_in(PRESETS["kreuzbinokel"])
    (3, 4)
    """
    return ruleset.players - (1 if ruleset.dealer_sits_out else 0)


def active_seats(ruleset: Ruleset, seats: int, dealer: int) -> tuple[int, ...]:
    """The seats dealt in this hand, in seat order: all, or all but the dealer.

    >>> from scorer.rules.ruleset import PRESETS
    >>> active_seats(PRESETS["vier_mit_aussetzer"], 4, dealer=1)
    (0, 2, 3)
    >>> active_seats(PRESETS["standard"], 3, dealer=1)
    (0, 1, 2)
    """
    seats = seats_at_table(ruleset, seats)
    dealer = seat_index(dealer, seats, "dealer")
    return tuple(s for s in range(seats) if not (ruleset.dealer_sits_out and s == dealer))


def active_parties(ruleset: Ruleset, seats: int, dealer: int) -> tuple[int, ...]:
    """The parties that play this hand, in order: what :func:`settle` gets, one entry each.

    >>> from scorer.rules.ruleset import PRESETS
    >>> active_parties(PRESETS["vier_mit_aussetzer"], 4, dealer=0)
    (1, 2, 3)
    >>> active_parties(PRESETS["kreuzbinokel"], 4, dealer=0)
    (0, 1)
    """
    if not ruleset.dealer_sits_out:
        seats_at_table(ruleset, seats)
        seat_index(dealer, seats, "dealer")
        return tuple(range(ruleset.parties))
    return active_seats(ruleset, seats, dealer)


def expand_active(
    ruleset: Ruleset, seats: int, dealer: int, values: Sequence[int]
) -> tuple[int, ...]:
    """Per-party values of the active parties, put at the table's places (0 for the dealer out).

    >>> from scorer.rules.ruleset import PRESETS
    >>> expand_active(PRESETS["vier_mit_aussetzer"], 4, 2, [120, -300, 90])
    (120, -300, 0, 90)
    """
    active = active_parties(ruleset, seats, dealer)
    if len(values) != len(active):
        raise RulesError(
            "{count} values for {active} parties playing this hand",
            count=len(values),
            active=len(active),
        )
    result = [0] * ruleset.parties
    for party, value in zip(active, values, strict=True):
        result[party] = value
    return tuple(result)


def check_deals(ruleset: Ruleset, seats: int) -> None:
    """With ``end="deals"`` the number of deals must be a multiple of the seats.

    >>> from scorer.rules.ruleset import PRESETS
    >>> check_deals(PRESETS["turnier"].replace(deals=10), 3)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: 10 deals is not a multiple of the 3 seats: \
everybody deals equally often
    """
    if ruleset.end == "deals" and ruleset.deals % seats:
        raise RulesError(
            "{deals} deals is not a multiple of the {seats} seats: everybody deals equally often",
            deals=ruleset.deals,
            seats=seats,
        )


def check_teams(ruleset: Ruleset, parties: Sequence[int]) -> None:
    """Whether ``parties`` (the party of every seat, in seat order) makes the ruleset's
    teams: one entry per seat, and every party holds exactly ``team_size`` seats.

    An entry that names no party (``-1``: no team chosen) leaves its team short.

    >>> from scorer.rules.ruleset import PRESETS
    >>> check_teams(PRESETS["kreuzbinokel"], [0, 1, 0, 1])
    >>> check_teams(PRESETS["kreuzbinokel"], [0, 0, 0, 1])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: every team needs exactly 2 players
    >>> check_teams(PRESETS["sechser"], [0, 1, 2, 0, 1, -1])
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: every team needs exactly 2 players
    """
    counts = [list(parties).count(p) for p in range(ruleset.parties)]
    if len(parties) != ruleset.players or any(c != ruleset.team_size for c in counts):
        raise RulesError("every team needs exactly {size} players", size=ruleset.team_size)
