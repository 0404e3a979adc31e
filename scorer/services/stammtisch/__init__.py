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
``reading``
    year_view: the year's evenings read and handed to ``scorer.rules.year``
    (ranking, records, the books); evening_view.
``payments``
    The "bezahlt" taps (to each other, into the kitty), the kitty's payouts,
    striking a payment tapped by mistake.
``new_year``
    "Neues Jahr": the next year with the members, rules and stakes carried over.
``backup`` / ``restoring``
    The group with all its evenings as one file, and that file restored.
"""
