"""Where a table's match meets its tournament: the one door the match's layers use.

A tournament table is an ordinary match.  The match's page and the app's error
handling know of the tournament through these two questions only:

- :func:`table_header`: the tournament's words for the table's page (its round, table,
  deal, players and their confirmations), or None for a match outside a tournament;
- :func:`replaced_link`: the table link the organiser replaced (or a draw made again
  took away) behind a token that names no match any more, or None;
- :func:`restored_lately`: the tournaments brought back on this laptop lately (a
  restore, a spare's takeover), which a link to a table it lacks names.

``.importlinter`` holds the match's views and ``scorer.web`` to this module.
"""

from __future__ import annotations

from ...models import Match
from ...tournament_models import RedrawnLink, RetiredLink
from .restored import Lately, lately
from .rounds import retired
from .tables import TableHeader, header_of


def table_header(match: Match) -> TableHeader | None:
    """The tournament's words for ``match``'s page, or None outside a tournament."""
    return header_of(match)


def replaced_link(token: str) -> RetiredLink | RedrawnLink | None:
    """The replaced or redrawn table link behind ``token``, or None."""
    return retired(token)


def restored_lately() -> list[Lately]:
    """The tournaments brought back on this laptop lately (from a file, by a takeover)."""
    return lately()
