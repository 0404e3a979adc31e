"""Where a table's match meets its tournament: the one door the match's layers use.

A tournament table is an ordinary match.  The match's page and the app's error
handling know of the tournament through these two questions only:

- :func:`table_header`: the tournament's words for the table's page (its round, table,
  deal, players and their confirmations), or None for a match outside a tournament;
- :func:`replaced_link`: the table link the organiser replaced (or a draw made again
  took away) behind a token that names no match any more, or None;
- :func:`replaced_by_organiser`: a replaced link with the match it wrote to (a save
  resent through it is answered from there: :func:`scorer.views.entry.resent_save`);
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


def replaced_by_organiser(token: str) -> RetiredLink | None:
    """The table link the organiser replaced behind ``token`` (its match: ``.match``), or
    None: any other token, and a link of a draw made again (it never saved a hand: a
    round is drawn again only before any table has begun)."""
    old = retired(token)
    return old if isinstance(old, RetiredLink) else None


def restored_lately() -> list[Lately]:
    """The tournaments brought back on this laptop lately (from a file, by a takeover)."""
    return lately()
