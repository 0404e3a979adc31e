"""The tournament's use cases (docs/rules.md section 13), one module per family.

``setup``
    create_tournament, get_tournament (organiser link), get_tournament_for_view
    (public link), ruleset_of / table_ruleset_of, bump, current_round.
``entrants``
    Registration, check-in with start numbers, late arrivals and withdrawals.
``importing``
    A list of names from pasted text, a CSV file or an Excel sheet.
``rounds``
    The draw (one per round, however many tabs ask), drawing again, the tables'
    matches, closing a round, replacing a table's link.
``tables``
    What a table phone shows of its tournament, the players' confirmations,
    each table's progress and results (a paper slip counts in place of the sheet).
``board``
    The organiser's board (every table of the round, live; its poll state in
    one statement), tables by the organiser's address, paper slips.
``changes``
    The list of every change made to a table after it was done.
``standings``
    The ranking, the round's progress and seating, the public pages' poll
    state (a state built at most every ``TOURNAMENT_FRESH`` seconds).
``counting``
    The tournament's change count: one per transaction that changed a table,
    written as its last statement; what the polls compare (a few rows, any hall).
``polls``
    The public pages' poll state, read at most every half second per link and
    process (``TOURNAMENT_POLL_KEEP``).
``seating``
    Where everybody sits (by name, by table), the name list, a player's page.
``money``
    What each player owes (entry fee, lost-game money per round and in total),
    the cash desk's "paid", the prize fund, the prize settings and the prize list.

The views import the module they need (``from ..services.tournaments import rounds``).
"""
