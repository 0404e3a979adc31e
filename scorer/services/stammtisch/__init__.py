"""The Stammtisch's use cases (docs/rules.md section 14), one module per family.

``groups``
    create_group, get_group (the members' link), get_group_for_view (the
    read-only twin), recent_groups, group_of_session, current_year,
    year_by_number, update_group, bump (the money's version).
``people``
    Members joining, leaving and coming back, a name changed; the guests as people.
``evenings``
    start_evening (a session of the table with the year's rules and stakes),
    get_evening, evenings_of.
``played``
    An evening as the rules read it (its matches, hands, money), kept per process
    while it does not change.
``reading``
    year_view: the year's evenings handed to ``scorer.rules.year`` (ranking,
    records, the books), kept while nothing changes; evening_view; unpaid_on_night.
``payments``
    The "bezahlt" taps (to each other, into the kitty), the kitty's payouts,
    striking a payment tapped by mistake.
``new_year``
    "Neues Jahr": the next year with the members, rules and stakes carried over.
``backup`` / ``backup_reader`` / ``restoring``
    The group with all its evenings as one file; that file read and checked; restored.
"""
