"""The Stammtisch's year (docs/rules.md section 14): the same table, evening after evening.

A package by topic: :mod:`.evenings` (the evenings as the year reads them:
:class:`Evening`, :class:`MatchPlayed`, :class:`HandPlayed`), :mod:`.season`
(a calendar year or the group's season, and their names), :mod:`.ranking`
(:func:`year_ranking`: every member's numbers, ranked by what the group picks),
:mod:`.money` (:func:`evening_money`: an evening's money line by line, paid to
each other or into the kitty), :mod:`.ledger` (:func:`year_ledger`: the open
balances carried until paid, the year's fewest transfers, the kitty) and
:mod:`.records` (:func:`year_records`).  Pure Python, like the rest of
``scorer.rules``: the year is computed from the evenings, never typed.
"""

from .evenings import MONEY_MODES, Evening, HandPlayed, MatchPlayed, check_evening
from .ledger import (
    MAX_PAYMENT_CENTS,
    PAYMENT_KINDS,
    Account,
    Kitty,
    Ledger,
    Payment,
    check_payment,
    check_payout,
    paid_when,
    settle_open,
    shares_of,
    year_ledger,
)
from .money import EveningMoney, MatchMoney, StakeLine, evening_money, match_money
from .ranking import RANKING_BY, YearLine, YearRanking, year_ranking
from .records import RECORDS, HandRef, Holder, Record, won_game, year_records
from .season import (
    EARLY_DAYS,
    SeasonStart,
    next_season,
    season_label,
    season_of,
    season_over,
    season_started,
)

__all__ = [
    "EARLY_DAYS",
    "MAX_PAYMENT_CENTS",
    "MONEY_MODES",
    "PAYMENT_KINDS",
    "RANKING_BY",
    "RECORDS",
    "Account",
    "Evening",
    "EveningMoney",
    "HandPlayed",
    "HandRef",
    "Holder",
    "Kitty",
    "Ledger",
    "MatchMoney",
    "MatchPlayed",
    "Payment",
    "Record",
    "SeasonStart",
    "StakeLine",
    "YearLine",
    "YearRanking",
    "check_evening",
    "check_payment",
    "check_payout",
    "evening_money",
    "match_money",
    "next_season",
    "paid_when",
    "season_label",
    "season_of",
    "season_over",
    "season_started",
    "settle_open",
    "shares_of",
    "won_game",
    "year_ledger",
    "year_ranking",
    "year_records",
]
