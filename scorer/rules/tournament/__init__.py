"""The tournament's pure part: docs/rules.md section 13.6.  Players are start numbers.

A package by topic: :mod:`.draw` (:func:`table_sizes` splits a round into
tables of four and three; :func:`draw` seats the next round so that as few
pairs as possible meet again; :func:`repeats` counts such pairs),
:mod:`.ranking` (:func:`rank` gives shared places, 1, 1, 3; :func:`ranking`
with the tie-break; :func:`lost_game`), :mod:`.money` (:func:`lost_game_fee`
prices a player's lost games on the organiser's schedule; :func:`prizes`
shares the prize fund among the places), :mod:`.results` (a table's result:
the paper slip, who may sign, the order of the places), :mod:`.tables` (the ruleset of a
tournament's tables), :mod:`.series` (the Binokel-Cup), :mod:`.names` (the
same person across evenings) and :mod:`.numbers` (:func:`start_numbers`: the lowest
free start numbers, in the order of the check-in).  Every public name is here, as the
contract names it.

>>> table_sizes(10)
(4, 3, 3)
>>> rank({"a": 300, "b": 300, "c": 200})
{'a': 1, 'b': 1, 'c': 3}
"""

from .draw import (
    CANDIDATES,
    EXACT_DRAW_PLAYERS,
    EXACT_SEARCH_BUDGET,
    SEARCH_ATTEMPTS,
    SEARCH_BUDGET,
    draw,
    households_apart,
    met_again,
    repeats,
    table_sizes,
)
from .money import (
    CENT,
    DEFAULT_SCHEDULE,
    MAX_SHARES,
    SCHEDULE_SYNTAX,
    Schedule,
    check_shares,
    item_prizes,
    last_place,
    lost_game_fee,
    pick_order,
    place_prizes,
    prize_fund,
    prize_shares,
    prizes,
    round_fees,
    write_schedule,
)
from .names import alike_names, name_key
from .numbers import plays_round, start_numbers
from .ranking import lost_game, rank, ranking
from .results import (
    MAX_SLIP_POINTS,
    PODIUM,
    Placed,
    TableResult,
    check_confirm,
    check_slip,
    evening_ranking,
    listed,
    on_podium,
    table_results,
)
from .series import (
    SERIES_COUNTING,
    SeriesPlaced,
    series_evenings,
    series_lines,
    series_name,
    series_ranking,
)
from .tables import check_tournament_ruleset, table_ruleset, tournament_ruleset

__all__ = [
    "CANDIDATES",
    "CENT",
    "DEFAULT_SCHEDULE",
    "EXACT_DRAW_PLAYERS",
    "EXACT_SEARCH_BUDGET",
    "MAX_SHARES",
    "MAX_SLIP_POINTS",
    "PODIUM",
    "SCHEDULE_SYNTAX",
    "SEARCH_ATTEMPTS",
    "SEARCH_BUDGET",
    "SERIES_COUNTING",
    "Placed",
    "Schedule",
    "SeriesPlaced",
    "TableResult",
    "alike_names",
    "check_confirm",
    "check_shares",
    "check_slip",
    "check_tournament_ruleset",
    "draw",
    "evening_ranking",
    "households_apart",
    "item_prizes",
    "last_place",
    "listed",
    "lost_game",
    "lost_game_fee",
    "met_again",
    "name_key",
    "on_podium",
    "pick_order",
    "place_prizes",
    "plays_round",
    "prize_fund",
    "prize_shares",
    "prizes",
    "rank",
    "ranking",
    "repeats",
    "round_fees",
    "series_evenings",
    "series_lines",
    "series_name",
    "series_ranking",
    "start_numbers",
    "table_results",
    "table_ruleset",
    "table_sizes",
    "tournament_ruleset",
    "write_schedule",
]
