"""The Stammtisch's pages (docs/rules.md section 14), one blueprint per part.

``groups``
    Making a group, its year (ranking, chart, records, evenings) through its link
    or its read-only twin, the members, the settings, "Neues Jahr"; the home
    page's list of groups and the session page's way back (template globals).
``evenings``
    Tonight's evening (who is here, the seats), an evening's page with its money.
``money``
    The year's money in words, the "bezahlt" taps, the kitty's payouts.
``files``
    The year sheet as PDF, the ranking as CSV, the year as Excel.
``backup``
    The group's backup file and restoring it (also on the command line).
"""

from flask import Blueprint

from . import backup, evenings, files, groups, money

BLUEPRINTS: tuple[Blueprint, ...] = (groups.bp, evenings.bp, money.bp, files.bp, backup.bp)
