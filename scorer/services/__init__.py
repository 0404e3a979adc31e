"""Use cases of the score sheet: load rows, call ``scorer.rules``, save.

This package is the one place that commits.  Views call these functions with
plain values (parsed by the forms) and render what comes back; every number
comes from ``scorer.rules``.  Nothing here knows the web: a missing row is
:class:`NotFound` (the web layer answers 404), a refusal a ``RulesError`` or
one of the errors below, worded for the user by the web layer.

``from scorer import services`` is the public face; the modules hold:

``errors``
    NotFound, ConflictError (KeyReusedError, OutOfPlaceError, HandClosedError), MatchOverError
    (LockedError),
    BackupError.
``lookup``
    Rows behind links and ids (get_match, match_state, get_match_for_view,
    get_session, get_session_for_view, get_hand), the home page's recent
    sessions, the autocomplete's known players, the device's sessions for the
    export, and the share links' poll state.
``sheets``
    Sheet and SheetRow, sheet, standing (from the stored standing), last_row,
    load_hands, live_hands, party_names, ruleset_of, verdict (how a saved hand
    went for its declarer); the standing's cache.
``starting``
    start_match, next_match, default_parties, clean_name, storable; the names
    the autocomplete offers.
``writes``
    The mechanics every write shares: the guarded version bump, the room left
    in a match, the stored end, the history's snapshots and party lines.
``hands``
    HandInput, Settled, settle_input, preview, save_hand, delete_hand,
    restore_hand, correctable, input_of, saved_with_key.
``two_player``
    The hand in play of a two-player match: open_hand, set_trump, write_meld,
    remove_meld, finish_open_hand, open_hand_melds, live_totals, live_sheet.
``money``
    settlement (MatchMoney, Settlement, match_payments) and set_stake.
``backup_format``
    The backup file: its limits, dumps, the export of sessions, parse.
``backup``
    export_all, and import_backup: a file checked against the rules and
    imported all or nothing.
``bulk``
    insert: the checked rows of an import (built outside the session) written
    with one Core statement per table, parents first, their ids read back.
``bids``
    bid_ceiling, highest_bid: a bid above what the table has seen is asked about.
``stats``
    The evening at a glance: Stats and PlayerStats per player, session_stats,
    device_stats.
"""

from __future__ import annotations

from ..rules import RulesError
from .backup import export_all, import_backup
from .backup_format import MAX_FILE_HANDS, MAX_SESSION_HANDS, dumps, export_sessions
from .bids import bid_ceiling, highest_bid
from .errors import (
    BackupError,
    ConflictError,
    HandClosedError,
    KeyReusedError,
    LockedError,
    MatchOverError,
    NotFound,
    OutOfPlaceError,
)
from .hands import (
    HandInput,
    Settled,
    correctable,
    delete_hand,
    input_of,
    preview,
    restore_hand,
    save_hand,
    saved_with_key,
    settle_input,
)
from .lookup import (
    device_sessions,
    get_hand,
    get_match,
    get_match_for_view,
    get_session,
    get_session_for_view,
    hand_by_number,
    known_players,
    match_state,
    poll_state,
    recent_sessions,
)
from .money import MatchMoney, Settlement, match_payments, set_stake, settlement
from .sheets import (
    Sheet,
    SheetRow,
    last_row,
    live_hands,
    load_hands,
    party_names,
    ruleset_of,
    sheet,
    standing,
    verdict,
)
from .starting import clean_name, default_parties, next_match, start_match, storable
from .stats import PlayerStats, Stats, device_stats, session_stats
from .two_player import (
    finish_open_hand,
    live_sheet,
    live_totals,
    open_hand,
    open_hand_melds,
    remove_meld,
    set_trump,
    write_meld,
)
from .writes import party_lines

__all__ = [
    "MAX_FILE_HANDS",
    "MAX_SESSION_HANDS",
    "BackupError",
    "ConflictError",
    "HandClosedError",
    "HandInput",
    "KeyReusedError",
    "LockedError",
    "MatchMoney",
    "MatchOverError",
    "NotFound",
    "OutOfPlaceError",
    "PlayerStats",
    "RulesError",
    "Settled",
    "Settlement",
    "Sheet",
    "SheetRow",
    "Stats",
    "bid_ceiling",
    "clean_name",
    "correctable",
    "default_parties",
    "delete_hand",
    "device_sessions",
    "device_stats",
    "dumps",
    "export_all",
    "export_sessions",
    "finish_open_hand",
    "get_hand",
    "get_match",
    "get_match_for_view",
    "get_session",
    "get_session_for_view",
    "hand_by_number",
    "highest_bid",
    "import_backup",
    "input_of",
    "known_players",
    "last_row",
    "live_hands",
    "live_sheet",
    "live_totals",
    "load_hands",
    "match_payments",
    "match_state",
    "next_match",
    "open_hand",
    "open_hand_melds",
    "party_lines",
    "party_names",
    "poll_state",
    "preview",
    "recent_sessions",
    "remove_meld",
    "restore_hand",
    "ruleset_of",
    "save_hand",
    "saved_with_key",
    "session_stats",
    "set_stake",
    "set_trump",
    "settle_input",
    "settlement",
    "sheet",
    "standing",
    "start_match",
    "storable",
    "verdict",
    "write_meld",
]
