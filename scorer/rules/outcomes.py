"""A hand's outcome and how it went for its declarer: docs/rules.md sections 4, 5 and 12.

The outcome is what the Schreiber enters (played, gone off, forfeit, a special
game, open play).  How the hand went for the declarer — its :class:`Verdict` —
follows from the settlement: :func:`~scorer.rules.settlement.settle` says it in
its result (``HandResult.verdict``), and a saved hand keeps enough of that
result (its outcome, ``made`` and ``won``) for :func:`verdict_of` to say it
again.  Every page that asks who won a hand asks this: the end of the match
(``declarer_won``), the statistics, the hand's own page (a forfeit by an
opponent counts the declarer's game as made), the sheet's words and the
tournament's lost games.
"""

from __future__ import annotations

from enum import StrEnum

from .errors import RulesError
from .ruleset import SPECIAL_GAMES

OUTCOMES: tuple[str, ...] = ("played", "gone_off", "forfeit", *SPECIAL_GAMES, "open_play")
"""Every outcome of docs/rules.md section 4."""

BID_OUTCOMES: tuple[str, ...] = ("played", "gone_off", "forfeit")
"""The outcomes that carry a bid (the special games have their own value, open play none)."""

TRUMP_OUTCOMES: tuple[str, ...] = ("played", "forfeit")
"""The outcomes played in the trump the declarer named (going off ends the hand before play)."""


class Verdict(StrEnum):
    """How a hand went for its declarer (docs/rules.md sections 4, 5 and 12).

    ``FORFEIT`` is a forfeit by the declarer's own party (scored like a failed
    game); ``CAUGHT`` a forfeit by an opposing party (caught signalling): the
    declarer's game counts as made.  ``OPEN`` is open play, which has no
    declarer.
    """

    MADE = "made"
    FAILED = "failed"
    FORFEIT = "forfeit"
    CAUGHT = "caught"
    GONE_OFF = "gone_off"
    WON = "won"
    LOST = "lost"
    OPEN = "open"

    @property
    def declarer_won(self) -> bool | None:
        """Whether the hand went the declarer's way: his game made (a forfeit by an
        opponent counts it as made) or his special game won; ``None`` in open play.
        This is what ends a match played to the target "with a game" (section 6).

        >>> [v.value for v in Verdict if v.declarer_won]
        ['made', 'caught', 'won']
        >>> Verdict.OPEN.declarer_won is None
        True
        """
        if self is Verdict.OPEN:
            return None
        return self in (Verdict.MADE, Verdict.CAUGHT, Verdict.WON)

    @property
    def lost_game(self) -> bool:
        """Whether the declarer lost a game he declared: failed, gone off, or a special
        game lost.  What the tournament's lost-game money counts (section 13); a
        forfeit is a penalty, not a lost game.

        >>> [v.value for v in Verdict if v.lost_game]
        ['failed', 'gone_off', 'lost']
        """
        return self in (Verdict.FAILED, Verdict.GONE_OFF, Verdict.LOST)


def verdict_of(outcome: str, *, made: bool | None, won: bool | None) -> Verdict:
    """The verdict of a hand from what is kept of its settlement: the ``outcome``,
    ``made`` (``HandResult.made``: the bid reached, or for a forfeit whether the
    declarer's game counts as made) and ``won`` (a special game won).

    For every settled hand this gives back the result's own verdict (a property
    of ``tests/rules/test_outcomes.py``).  A ``made`` or ``won`` that was never
    stored reads as not made, not won.

    Bid 300, melds 120, tricks 190: made.  The same hand forfeited by an opposing
    party (``made`` is True then): caught, the declarer's game counts as made.

    >>> verdict_of("played", made=True, won=None), verdict_of("forfeit", made=True, won=None)
    (<Verdict.MADE: 'made'>, <Verdict.CAUGHT: 'caught'>)
    >>> verdict_of("forfeit", made=False, won=None).declarer_won
    False
    >>> verdict_of("durch", made=None, won=False), verdict_of("gone_off", made=None, won=None)
    (<Verdict.LOST: 'lost'>, <Verdict.GONE_OFF: 'gone_off'>)
    >>> verdict_of("schneider", made=None, won=None)
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: 'schneider' is not an outcome
    """
    if outcome == "played":
        return Verdict.MADE if made else Verdict.FAILED
    if outcome == "forfeit":
        return Verdict.CAUGHT if made else Verdict.FORFEIT
    if outcome == "gone_off":
        return Verdict.GONE_OFF
    if outcome in SPECIAL_GAMES:
        return Verdict.WON if won else Verdict.LOST
    if outcome == "open_play":
        return Verdict.OPEN
    raise RulesError("'{outcome}' is not an outcome", outcome=outcome)
