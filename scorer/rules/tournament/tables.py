"""A tournament's tables (docs/rules.md section 13): the ruleset of a table of three and four."""

from __future__ import annotations

from ..errors import RulesError
from ..match import check_table
from ..ruleset import Ruleset


def table_ruleset(ruleset: Ruleset, size: int) -> Ruleset:
    """The tournament's ruleset for a table of ``size`` (docs/rules.md section 13).

    A table of three plays the tournament's deals; at a table of four the dealer
    sits out each deal and the table plays ``deals × 4 / 3`` deals, so that
    everybody plays as many as at a table of three.

    >>> from scorer.rules.ruleset import PRESETS
    >>> four = table_ruleset(PRESETS["turnier"], 4)
    >>> four.players, four.dealer_sits_out, four.deals, four.end
    (4, True, 16, 'deals')
    >>> table_ruleset(PRESETS["turnier"], 3).deals
    12
    """
    if size not in (3, 4):
        raise RulesError("a tournament table seats 3 or 4 players, not {size}", size=size)
    if ruleset.deals % 3:
        raise RulesError(
            "a round of {deals} deals cannot be played at a table of four (they play "
            "4/3 as many): choose a multiple of 3, e.g. 9 or 12",
            deals=ruleset.deals,
        )
    deals = ruleset.deals if size == 3 else ruleset.deals * 4 // 3
    return ruleset.replace(
        players=size, team_size=1, dealer_sits_out=size == 4, end="deals", deals=deals
    )


def tournament_ruleset(ruleset: Ruleset, deals: int | None = None) -> Ruleset:
    """``ruleset`` as a tournament plays it (docs/rules.md section 13): tables of three,
    each for themselves, closed play, a fixed number of ``deals`` (the ruleset's when None).

    This is the tournament's ruleset (of a table of three); :func:`table_ruleset` makes
    the table of four from it.  Refused (``RulesError``) when the deals do not suit both.

    >>> from scorer.rules.ruleset import PRESETS
    >>> made = tournament_ruleset(PRESETS["standard"], 9)
    >>> made.players, made.team_size, made.end, made.deals
    (3, 1, 'deals', 9)
    >>> tournament_ruleset(PRESETS["turnier"], 10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: a round of 10 deals cannot be played at a table of four ...
    """
    made = ruleset.replace(
        players=3,
        team_size=1,
        open_play=False,
        dealer_sits_out=False,
        end="deals",
        deals=ruleset.deals if deals is None else deals,
    )
    return check_tournament_ruleset(made)


def check_tournament_ruleset(ruleset: Ruleset) -> Ruleset:
    """``ruleset`` when a tournament can play it (as :func:`tournament_ruleset` makes one),
    else ``RulesError`` saying what is not.

    >>> from scorer.rules.ruleset import PRESETS
    >>> check_tournament_ruleset(PRESETS["kreuzbinokel"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: a tournament is played at tables of three, each for themselves
    """
    if ruleset.players != 3 or ruleset.team_size != 1 or ruleset.open_play:
        raise RulesError("a tournament is played at tables of three, each for themselves")
    if ruleset.end != "deals":
        raise RulesError("a tournament round is a fixed number of deals")
    for size in (3, 4):
        # the deals must suit a table of four too, and both tables must be dealt
        check_table(table_ruleset(ruleset, size), size)
    return ruleset
