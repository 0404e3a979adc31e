"""The match as a replay of its hands: docs/rules.md section 6.

Nothing here is stored: the web app keeps the list of hands and recomputes
dealer, leader, running totals, the end and the winners with :func:`replay`
(:func:`advance`, hand by hand).  The seats, parties and who plays a hand are
:mod:`scorer.rules.table`'s.

With ``dealer_sits_out`` (everybody plays alone) the dealer scores nothing:
:func:`scorer.rules.settlement.settle` gets only the parties that play the
hand, and :func:`played_hand` puts the result back at the table's places.

Once the match has ended, further hands are still totalled (``running`` and
``totals`` cover every hand given) but ``finished_after`` stays at the hand
that ended it and the winners are decided by the totals after that hand; the
web layer refuses new hands after the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import RulesError
from .outcomes import OUTCOMES
from .ruleset import Ruleset, hand_size
from .settlement import HandResult
from .table import (
    active_parties,
    check_deals,
    expand_active,
    players_dealt_in,
    seat_index,
    seats_at_table,
    seats_of_party,
)


@dataclass(frozen=True)
class PlayedHand:
    """One saved hand as the match needs it, per party of the table.

    ``declarer`` is the declarer's party (``None`` in open play),
    ``declarer_won`` True for a made game or a won special game (``None`` in
    open play).  ``points`` and ``stars`` have one entry per party of the
    table (a dealer sitting out has 0); ``stars`` may be left empty.
    ``exact_points`` (with ``round_tricks``) holds the points with exact trick
    points when they differ; ``None`` means the same as ``points``.
    ``dealer`` is the seat that dealt, when it was recorded with the hand;
    ``None`` means the rotation from the first dealer.  A recorded dealer lets
    a struck hand leave the rotation of the later hands as it was played.
    """

    declarer: int | None
    outcome: str
    declarer_won: bool | None
    points: tuple[int, ...]
    stars: tuple[int, ...] = ()
    exact_points: tuple[int, ...] | None = None
    dealer: int | None = None


@dataclass(frozen=True)
class MatchProgress:
    """Everything the sheet shows, recomputed from the hands.

    ``running[h]`` are the totals after hand ``h``; ``totals``, ``stars`` and
    ``exact_totals`` are after the last hand given.  ``finished_after`` is the
    index of the hand that ended the match (``None`` while it runs);
    ``winners`` the winning parties (empty while it runs).  ``next_dealer``
    and ``next_leader`` are the seats for the next hand.
    """

    running: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    stars: tuple[int, ...]
    exact_totals: tuple[int, ...]
    finished_after: int | None
    winners: tuple[int, ...]
    next_dealer: int
    next_leader: int
    games_won: tuple[int, ...] = ()

    @property
    def finished(self) -> bool:
        """True once a hand has ended the match."""
        return self.finished_after is not None


def hand_winner(hand: PlayedHand) -> int | None:
    """The party that won a hand: the one that scored more in it than every other
    (the Swiss game's "wer die meisten Augen erhält, gewinnt das Spiel", seed 001);
    ``None`` when the top is shared.

    >>> hand_winner(PlayedHand(None, "open_play", None, (310, 120)))
    0
    >>> hand_winner(PlayedHand(None, "open_play", None, (130, 130))) is None
    True
    """
    top = max(hand.points)
    tops = [p for p, value in enumerate(hand.points) if value == top]
    return tops[0] if len(tops) == 1 else None


def next_dealer_of(ruleset: Ruleset, seats: int, dealer: int, hand: PlayedHand) -> int:
    """The seat that deals after ``hand``, dealt by ``dealer`` (option ``dealer``).

    ``"rotate"``: the next seat.  ``"winner"`` (the Swiss game, seed 001: "bei
    den darauffolgenden Spielen gibt immer der Gewinner des letzten Spieles"):
    the winner of the hand (:func:`hand_winner`) deals; a team's seat that comes
    first after the dealer; a shared top rotates.

    >>> swiss = Ruleset(players=2, open_play=True, deck="piquet", dealer="winner")
    >>> next_dealer_of(swiss, 2, 0, PlayedHand(None, "open_play", None, (310, 120)))
    0
    >>> next_dealer_of(Ruleset(), 3, 0, PlayedHand(0, "played", True, (310, 120, 0)))
    1
    """
    if ruleset.dealer == "winner":
        winner = hand_winner(hand)
        if winner is not None:
            return _first_seat_after(seats, dealer, seats_of_party(ruleset, winner))
    return (dealer + 1) % seats


def _first_seat_after(seats: int, seat: int, candidates: Sequence[int]) -> int:
    """Of ``candidates``, the first seat counting on from the one after ``seat``."""
    return min(candidates, key=lambda s: (s - seat - 1) % seats)


def first_dealer_of_next(
    ruleset: Ruleset, seats: int, first_dealer: int, winners: Sequence[int]
) -> int:
    """Who deals the first hand of the session's next match (option ``first_dealer``).

    ``"rotate"``: one seat on from this match's first dealer.  ``"after_winner"``
    (seed 002: "Nach einem gewonnenen Spiel beginnt immer ein Spieler der
    Gegenpartei mit der ersten Partie im nächsten Spiel"): the winner deals, so
    the seat after him — a player of the losing side — is leader and starts.
    Of a winning team (or of several winners) the seat that comes first after
    this match's first dealer deals.  Without winners it rotates.

    >>> first_dealer_of_next(Ruleset(), 3, 0, [2]), first_dealer_of_next(
    ...     Ruleset(first_dealer="after_winner"), 3, 0, [2])
    (1, 2)
    >>> from scorer.rules.ruleset import PRESETS
    >>> first_dealer_of_next(PRESETS["kreuzbinokel"].replace(first_dealer="after_winner"),
    ...                      4, 1, [0])
    2
    """
    seats = seats_at_table(ruleset, seats)
    seat_index(first_dealer, seats, "first dealer")
    if ruleset.first_dealer == "after_winner" and winners:
        winning = [s for party in winners for s in seats_of_party(ruleset, party)]
        return _first_seat_after(seats, first_dealer, winning)
    return (first_dealer + 1) % seats


def played_hand(ruleset: Ruleset, seats: int, dealer: int, result: HandResult) -> PlayedHand:
    """A settled hand (active parties) as the match keeps it (parties of the table).

    >>> from scorer.rules.ruleset import PRESETS
    >>> from scorer.rules.settlement import settle
    >>> rules = PRESETS["vier_mit_aussetzer"]
    >>> r = settle(rules, players=3, bidder=0, bid=200, melds=[60, 0, 20], tricks=[150, 40, 60])
    >>> played_hand(rules, 4, dealer=0, result=r)
    PlayedHand(declarer=1, outcome='played', declarer_won=True, points=(0, 210, 40, 80), \
stars=(0, 0, 0, 0), exact_points=None, dealer=0)
    """
    active = active_parties(ruleset, seats, dealer)
    declarer = None if result.declarer is None else active[result.declarer]
    points = expand_active(ruleset, seats, dealer, result.points)
    exact = expand_active(ruleset, seats, dealer, result.exact_points)
    return PlayedHand(
        declarer=declarer,
        outcome=result.outcome,
        declarer_won=result.declarer_won,
        points=points,
        stars=expand_active(ruleset, seats, dealer, result.stars),
        exact_points=None if exact == points else exact,
        dealer=dealer,
    )


def check_table(ruleset: Ruleset, players: int) -> None:
    """Whether a table of ``players`` seats can play ``ruleset``; RulesError says why not.

    The one check of a table before its first hand, for the setup form and for
    an imported match alike: the ruleset is for this many seats, open play is
    the two-player game, the active players can be dealt (docs/rules.md section 2),
    a fixed number of deals lets everybody deal equally often, and the table
    replays (teams, a dealer sitting out).

    >>> from scorer.rules.ruleset import PRESETS
    >>> check_table(PRESETS["kreuzbinokel"], 4)
    >>> check_table(PRESETS["zweier"].replace(players=3), 3)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: this game is for two players, not 3
    >>> check_table(Ruleset(players=6), 6)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: 6 players cannot be dealt from the 40-card deck
    >>> check_table(PRESETS["turnier"].replace(deals=10), 3)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: the number of deals (10) must be a multiple of the players (3)
    """
    players = seats_at_table(ruleset, players)
    if ruleset.open_play and ruleset.deck == "piquet" and not 2 <= players <= 4:
        raise RulesError(
            "the Swiss game is for two to four players, not {players}", players=players
        )
    if ruleset.open_play and ruleset.deck != "piquet" and players != 2:
        # open play (melds written during the hand, no bidding) is the two-player game
        raise RulesError("this game is for two players, not {players}", players=players)
    if ruleset.open_play and ruleset.dabb is not None:
        raise RulesError("the two-player games have no Dabb; leave its size empty")
    if not ruleset.open_play or ruleset.deck == "piquet":
        hand_size(ruleset, players_dealt_in(ruleset))
    if ruleset.end == "deals" and ruleset.deals % players:
        raise RulesError(
            "the number of deals ({deals}) must be a multiple of the players ({players})",
            deals=ruleset.deals,
            players=players,
        )
    # the table as the sheet will replay it
    replay(ruleset, players, [])


def reached_target(ruleset: Ruleset, totals: Sequence[int]) -> int | None:
    """The party whose total has reached the target, or None (``end="at_once"``).

    In the Swiss game the Schreiber writes melds one at a time during the
    hand; after every entry the web app calls this with the running totals,
    and the first party to reach the target wins at once.  Should more than
    one be there, the highest total wins, the lower party index on equal
    totals (this cannot happen when checking after every entry).

    >>> from scorer.rules.ruleset import PRESETS
    >>> reached_target(PRESETS["schweizer"], [960, 880]) is None
    True
    >>> reached_target(PRESETS["schweizer"], [960, 1000])
    1
    """
    best: int | None = None
    for party, total in enumerate(totals):
        if total >= ruleset.target and (best is None or total > totals[best]):
            best = party
    return best


def going_on_past_target(ruleset: Ruleset, totals: Sequence[int], finished: bool) -> int | None:
    """The party that has reached the target although the match goes on, or None.

    With ``end = "with_game"`` only a won game ends the match, with
    ``"after_any_hand_but_going_off"`` a hand gone off does not: until then a party
    may stand past the target and the Schreiber should be told why the match goes on.

    >>> from scorer.rules.ruleset import PRESETS
    >>> going_on_past_target(PRESETS["standard"].replace(end="with_game"), [1010, 300, 0], False)
    0
    >>> going_on_past_target(PRESETS["standard"], [1010, 300, 0], True) is None
    True
    """
    if finished or not totals or ruleset.end not in ("with_game", "after_any_hand_but_going_off"):
        return None
    return reached_target(ruleset, totals)


def winners_of(
    totals: Sequence[int],
    *,
    exact_totals: Sequence[int] | None = None,
    last_declarer: int | None = None,
) -> tuple[int, ...]:
    """The winning parties by the totals: the highest total.

    A tie at the top is decided first by the exact totals (with rounded trick
    points), then goes to the last hand's declarer if he is among them;
    otherwise all tied parties win.

    >>> winners_of([1040, 1040, 700], last_declarer=1)
    (1,)
    >>> winners_of([1040, 1040, 700], last_declarer=2)
    (0, 1)
    >>> winners_of([1040, 1040, 700], exact_totals=[1038, 1042, 700], last_declarer=0)
    (1,)
    """
    top = max(totals)
    tied = [p for p, total in enumerate(totals) if total == top]
    if len(tied) > 1 and exact_totals is not None:
        best = max(exact_totals[p] for p in tied)
        tied = [p for p in tied if exact_totals[p] == best]
    if len(tied) > 1 and last_declarer in tied:
        return (last_declarer,)
    return tuple(tied)


def _ends(
    ruleset: Ruleset, hand: PlayedHand, index: int, totals: Sequence[int], games: Sequence[int]
) -> bool:
    reached = max(totals) >= ruleset.target
    if ruleset.end == "games":
        # best of N: over when one side has won more than half, or all N are played
        return max(games) * 2 > ruleset.games or index + 1 >= ruleset.games
    if ruleset.end == "deals":
        return index + 1 == ruleset.deals
    if ruleset.end == "with_game":
        # an open-play hand has no declarer: it ends the match like any hand
        return reached and (hand.declarer is None or hand.declarer_won is True)
    if ruleset.end == "after_any_hand_but_going_off":
        return reached and hand.outcome != "gone_off"
    return reached  # after_any_hand, at_once


def _check_hand(ruleset: Ruleset, index: int, hand: PlayedHand, dealer: int) -> None:
    parties = ruleset.parties
    if not isinstance(hand, PlayedHand):
        raise RulesError("hand {number} is not a played hand", number=index + 1)
    if hand.outcome not in OUTCOMES:
        raise RulesError(
            "hand {number}: '{outcome}' is not an outcome", number=index + 1, outcome=hand.outcome
        )
    if hand.declarer is not None and (
        not isinstance(hand.declarer, int) or not 0 <= hand.declarer < parties
    ):
        raise RulesError(
            "hand {number}: declarer {declarer} is not one of the {parties} parties",
            number=index + 1,
            declarer=hand.declarer,
            parties=parties,
        )
    if hand.declarer_won not in (True, False, None):
        raise RulesError("hand {number}: declarer_won is yes, no or empty", number=index + 1)
    for name in ("points", "stars", "exact_points"):
        values = getattr(hand, name)
        if (name == "exact_points" and values is None) or (name == "stars" and values == ()):
            continue
        if (
            not isinstance(values, tuple | list)
            or len(values) != parties
            or not all(isinstance(v, int) for v in values)
        ):
            raise RulesError(
                "hand {number}: {name} must have a number for each of the {parties} parties",
                number=index + 1,
                name=name,
                parties=parties,
            )
    if ruleset.dealer_sits_out and (
        hand.declarer == dealer
        or hand.points[dealer]
        or (hand.stars and hand.stars[dealer])
        or (hand.exact_points and hand.exact_points[dealer])
    ):
        raise RulesError(
            "hand {number}: the dealer (seat {seat}) sits out and cannot score",
            number=index + 1,
            seat=dealer + 1,
        )


@dataclass(frozen=True)
class Standing:
    """Where a match stands after its first ``hands`` hands: what the next hand builds on.

    ``totals``, ``exact_totals`` and ``stars`` are per party; ``finished_after``
    is the index of the hand that ended the match (``None`` while it runs) and
    ``winners`` the winning parties then.  ``first_dealer`` is the match's, so a
    hand without a recorded dealer is dealt by the rotation.
    """

    seats: int
    first_dealer: int
    hands: int
    totals: tuple[int, ...]
    exact_totals: tuple[int, ...]
    stars: tuple[int, ...]
    finished_after: int | None = None
    winners: tuple[int, ...] = ()
    next_dealer: int = 0
    games_won: tuple[int, ...] = ()

    @classmethod
    def start(cls, ruleset: Ruleset, seats: int, first_dealer: int = 0) -> Standing:
        """A match before its first hand (the table checked).

        >>> Standing.start(Ruleset(), 3, first_dealer=2).next_dealer
        2
        """
        seats = seats_at_table(ruleset, seats)
        seat_index(first_dealer, seats, "first dealer")
        check_deals(ruleset, seats)
        zeros = (0,) * ruleset.parties
        return cls(
            seats, first_dealer, 0, zeros, zeros, zeros, next_dealer=first_dealer, games_won=zeros
        )

    @property
    def finished(self) -> bool:
        """True once a hand has ended the match."""
        return self.finished_after is not None

    @property
    def next_leader(self) -> int:
        """The seat after the next dealer: bids first, leads the first trick."""
        return (self.next_dealer + 1) % self.seats


def advance(ruleset: Ruleset, standing: Standing, hand: PlayedHand) -> Standing:
    """The match one hand on: totals, the end and its winners, the next dealer.

    This is one step of :func:`replay`; the web app calls it for a new hand at
    the end of a match instead of replaying every hand.

    >>> rules = Ruleset()
    >>> now = Standing.start(rules, 3)
    >>> now = advance(rules, now, PlayedHand(0, "played", True, (600, 100, 80)))
    >>> now = advance(rules, now, PlayedHand(2, "played", False, (500, 90, -440)))
    >>> now.totals, now.finished, now.next_dealer
    ((1100, 190, -360), False, 2)
    >>> now = advance(rules, now, PlayedHand(1, "played", True, (0, 190, 30)))
    >>> now.finished_after, now.winners
    (2, (0,))
    """
    seats = standing.seats
    index = standing.hands
    if hand.dealer is None:
        dealer = seat_index(standing.next_dealer, seats, "dealer")
    else:
        dealer = seat_index(hand.dealer, seats, "dealer")
    _check_hand(ruleset, index, hand, dealer)
    exact_points = hand.points if hand.exact_points is None else hand.exact_points
    totals = tuple(t + p for t, p in zip(standing.totals, hand.points, strict=True))
    exact = tuple(t + p for t, p in zip(standing.exact_totals, exact_points, strict=True))
    stars = standing.stars
    if hand.stars:
        stars = tuple(t + p for t, p in zip(stars, hand.stars, strict=True))
    games = standing.games_won or (0,) * ruleset.parties
    winner = hand_winner(hand)
    if winner is not None and standing.finished_after is None:
        games = tuple(n + (p == winner) for p, n in enumerate(games))
    finished_after, winners = standing.finished_after, standing.winners
    if finished_after is None and _ends(ruleset, hand, index, totals, games):
        finished_after = index
        if ruleset.end == "games":
            most = max(games)
            tied = [p for p, n in enumerate(games) if n == most]
            best = max(totals[p] for p in tied)  # equal games: the points decide
            winners = tuple(p for p in tied if totals[p] == best)
        else:
            winners = winners_of(
                totals,
                exact_totals=exact if ruleset.round_tricks else None,
                last_declarer=hand.declarer,
            )
    return Standing(
        seats=seats,
        first_dealer=standing.first_dealer,
        hands=index + 1,
        totals=totals,
        exact_totals=exact,
        stars=stars,
        finished_after=finished_after,
        winners=winners,
        next_dealer=next_dealer_of(ruleset, seats, dealer, hand),
        games_won=games,
    )


def replay(
    ruleset: Ruleset, seats: int, hands: Sequence[PlayedHand], *, first_dealer: int = 0
) -> MatchProgress:
    """Replay a match from its saved hands (:func:`advance`, hand by hand).

    Three players to 1000 with a won game: the third hand takes party 0 over
    the target, but it was lost — the match goes on; the fourth, made by
    party 1, ends it, and party 0 wins with the highest total.

    >>> rules = Ruleset()
    >>> hands = [
    ...     PlayedHand(0, "played", True, (600, 100, 80)),
    ...     PlayedHand(1, "played", True, (120, 400, 60)),
    ...     PlayedHand(2, "played", False, (300, 90, -440)),
    ...     PlayedHand(1, "played", True, (40, 300, 30)),
    ... ]
    >>> p = replay(rules, 3, hands)
    >>> p.running[2], p.totals, p.finished_after, p.winners
    ((1020, 590, -300), (1060, 890, -270), 3, (0,))
    >>> p.next_dealer, p.next_leader
    (1, 2)
    """
    standing = Standing.start(ruleset, seats, first_dealer)
    if isinstance(hands, str | bytes) or not isinstance(hands, Sequence):
        raise RulesError("the hands must be a list of played hands")
    running: list[tuple[int, ...]] = []
    for hand in hands:
        standing = advance(ruleset, standing, hand)
        running.append(standing.totals)
    return MatchProgress(
        running=tuple(running),
        totals=standing.totals,
        stars=standing.stars,
        exact_totals=standing.exact_totals,
        finished_after=standing.finished_after,
        winners=standing.winners,
        next_dealer=standing.next_dealer,
        next_leader=standing.next_leader,
        games_won=standing.games_won,
    )
