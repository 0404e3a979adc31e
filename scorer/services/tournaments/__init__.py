"""The tournament's use cases (TOURNAMENT.md), one module per family.

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
    The ranking, the round's progress, the seating and a player's page, and
    the public pages' poll state.

The views import the module they need (``from ..services.tournaments import rounds``).
"""
