"""The tournament's pages, one blueprint per part (docs/rules.md section 13.3).

``organiser``
    Creating a tournament, its settings and rules, its home page (links, QR).
``players``
    Registration (typed, pasted, CSV or Excel), check-in with start numbers,
    late arrivals and withdrawals.
``rounds``
    The draw, the round's seating with every table's link and QR, drawing
    again, replacing a table's link, the board (every table's progress),
    closing a round, and the list of changes.
``corrections``
    The organiser's corrections of a table: its sheet, any hand (the match's
    hand form), striking and restoring, its paper slip.
``public``
    The public link: the live ranking (the beamer), where everybody sits, and
    each player's own page; their polls answer 204/304 when nothing changed.
``table``
    What the table phone adds to the match page: the players' confirmations.
``phones``
    The table phone and the laptop that serves it now: what the laptop holds of the
    table, the deals the phone keeps sent again, a phone's report of a table this
    laptop lacks.
``phone_reports``
    The organiser's list of what the phones hold that the laptop lacks: taken in, or
    set aside.
``money``
    Who owes what (entry fee, lost-game money) and the cash desk's "paid";
    the prize fund, the prizes and the prize list (also public).
``paper``
    The printouts (PDF): table cards, paper slips, rankings, certificates.
``series``
    The series (Binokel-Cup): made from a tournament, its organiser page (the
    evenings, how they count, the ranking, the next evening), the same person
    across evenings, the public series ranking and its PDF.
``backup``
    A tournament's (or a series') backup file, and restoring one: links kept,
    or a copy with new links when they are in use here.
``exports``
    The ranking as CSV and as an Excel sheet (organiser's and public link).
``online``
    Putting the tournament online: the hosted page's connection line, and how
    the pushes go.
"""

from flask import Blueprint

from . import (
    backup,
    corrections,
    exports,
    money,
    online,
    organiser,
    paper,
    phone_reports,
    phones,
    players,
    public,
    rounds,
    series,
    table,
)

BLUEPRINTS: tuple[Blueprint, ...] = (
    organiser.bp,
    online.bp,
    players.bp,
    rounds.bp,
    corrections.bp,
    public.bp,
    table.bp,
    phones.bp,
    phone_reports.bp,
    money.bp,
    paper.bp,
    series.bp,
    backup.bp,
    exports.bp,
)
