"""Melds (Meldbilder): what a hand shows, and whether declared melds can be shown.

A package by topic: :mod:`.names` (the melds by name and what each is worth),
:mod:`.groups` (the groups and their counting), :mod:`.best` (the best melds
of a hand), :mod:`.declarations` (the ways to declare one group) and
:mod:`.check` (whether declared melds can be shown together).

The combination rules are those of docs/rules.md section 3.  Melds fall into
*groups* (section 3 calls them kinds): the melds of one suit (pairs and
families of that suit), the melds of one rank (four and eight of a kind), the
Binokel melds and the Diss.  A card may serve in several groups at once but
only once within a group, so every group is a small counting problem of its
own: a hand holds each card of the group 0, 1 or 2 times, and the group's
melds are chosen by trying every count of every meld of the group that those
cards allow.  That is a few dozen tries per group, remembered per ruleset and
trump, so :func:`best_meld` never searches over subsets of cards.

>>> best_meld("HA H10 HK HO HU HK HO", "H").total
190
>>> check_meld(["pair E", "pair G", "pair H", "pair S"], "E").implied
(Meld(name='four K', points=80), Meld(name='four O', points=60))
"""

from .best import best_kept, best_meld, rundgang_totals
from .check import check_meld
from .declarations import Declaration, group_declarations
from .names import (
    BINOKEL,
    DISS,
    DOUBLE_BINOKEL,
    DOUBLE_FAMILY,
    EIGHT,
    FAMILY,
    FOUR,
    GROSS_BINOKEL,
    MELD_KINDS,
    PAIR,
    RUNDGANG_FLAT,
    Meld,
    MeldResult,
    Target,
    Trump,
    available_melds,
    check_shown_meld,
    meld_points,
    offered_points,
    parse_meld_name,
    smallest_meld,
)

__all__ = [
    "BINOKEL",
    "DISS",
    "DOUBLE_BINOKEL",
    "DOUBLE_FAMILY",
    "EIGHT",
    "FAMILY",
    "FOUR",
    "GROSS_BINOKEL",
    "MELD_KINDS",
    "PAIR",
    "RUNDGANG_FLAT",
    "Declaration",
    "Meld",
    "MeldResult",
    "Target",
    "Trump",
    "available_melds",
    "best_kept",
    "best_meld",
    "check_meld",
    "check_shown_meld",
    "group_declarations",
    "meld_points",
    "offered_points",
    "parse_meld_name",
    "rundgang_totals",
    "smallest_meld",
]
