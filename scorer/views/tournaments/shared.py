"""What the organiser's pages of a tournament share: the device's list of tournaments,
addresses of the other parts, the page frame, the words for a round's tables and the day.

The views of the tournament import these from here, never from each other's blueprint
modules.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import date
from typing import Any

from flask import session, url_for
from flask_babel import format_date, ngettext
from werkzeug.routing import BuildError

from ...tournament_models import Entrant, Tournament

TOURNAMENTS_KEY = "tournaments"
"""The session's list of organiser tokens this device has opened (newest first)."""
FRESH_KEY = "t_fresh"
"""The tournament just created: its home page shows the organiser link large, once."""
MAX_REMEMBERED = 20


def remember(token: str) -> None:
    """Remember a tournament on this device (the home page lists "My tournaments")."""
    current = session.get(TOURNAMENTS_KEY, [])
    if not isinstance(current, list):
        current = []
    wanted = [token, *(t for t in current if t != token)][:MAX_REMEMBERED]
    if wanted != current:
        session[TOURNAMENTS_KEY] = wanted
    if not session.permanent:
        session.permanent = True


def remembered() -> list[str]:
    """The organiser tokens this device remembers."""
    tokens = session.get(TOURNAMENTS_KEY, [])
    return [t for t in tokens if isinstance(t, str)] if isinstance(tokens, list) else []


def url_or_none(endpoint: str, **values: Any) -> str | None:
    """``url_for`` of a page another part of the tournament builds; None while it is missing."""
    try:
        return url_for(endpoint, **values)
    except BuildError:
        return None


class People(Mapping[int, Entrant]):
    """The tournament's players by id, read when a page first looks one up (the board
    of a hall never does: its thousands of players would be read for nothing)."""

    def __init__(self, tournament: Tournament) -> None:
        self.tournament = tournament
        self.found: dict[int, Entrant] | None = None

    def _all(self) -> dict[int, Entrant]:
        if self.found is None:
            self.found = {e.id: e for e in self.tournament.entrants}
        return self.found

    def __getitem__(self, entrant_id: int) -> Entrant:
        return self._all()[entrant_id]

    def __iter__(self) -> Iterator[int]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def page_context(tournament: Tournament, **extra: Any) -> dict[str, Any]:
    """The tournament and the organiser's way around (home, players, board, changes)."""
    return {
        "tournament": tournament,
        "home_url": url_or_none("t_organiser.home", token=tournament.token),
        "players_url": url_or_none("t_players.index", token=tournament.token),
        "people": People(tournament),
        **extra,
    }


def tables_text(sizes: tuple[int, ...]) -> str:
    """A round's tables in words: "2 tables of 4, 3 tables of 3"."""
    fours, threes = sizes.count(4), sizes.count(3)
    parts = []
    if fours:
        parts.append(ngettext("%(num)s table of 4", "%(num)s tables of 4", fours))
    if threes:
        parts.append(ngettext("%(num)s table of 3", "%(num)s tables of 3", threes))
    return ", ".join(parts)


def day_text(held_on: str) -> str:
    """The tournament's date as people write it ("Samstag, 8. November 2025")."""
    try:
        return str(format_date(date.fromisoformat(held_on), "full")) if held_on else ""
    except ValueError:
        return held_on
