"""What the Stammtisch's pages share: the device's list of groups, today, the way around.

A page is shown through the members' link (it can start evenings and tap
"bezahlt") or through the read-only twin; :class:`Links` builds every address a
page shows for the one it was reached by, so the twin never shows an address
that can edit (its matches and hands open read-only).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from flask import current_app, session, url_for

from ...services.stammtisch.reading import MatchLink
from ...stammtisch_models import Stammtisch

GROUPS_KEY = "stammtische"
"""The session's list of group links this device has opened (newest first)."""
VIEWS_KEY = "stammtische_v"
"""The same for the read-only twins."""
MAX_REMEMBERED = 12


def _remember(key: str, token: str) -> None:
    current = session.get(key, [])
    if not isinstance(current, list):
        current = []
    wanted = [token, *(t for t in current if t != token)][:MAX_REMEMBERED]
    if wanted != current:
        session[key] = wanted
    if not session.permanent:
        session.permanent = True


def remember(group: Stammtisch, *, edit: bool) -> None:
    """Remember a group on this device: the home page lists it under "Stammtisch"."""
    _remember(GROUPS_KEY if edit else VIEWS_KEY, group.token if edit else group.view_token)


def remembered(key: str = GROUPS_KEY) -> list[str]:
    """The tokens (or, with ``VIEWS_KEY``, view tokens) this device remembers."""
    tokens = session.get(key, [])
    return [t for t in tokens if isinstance(t, str)] if isinstance(tokens, list) else []


def today() -> date:
    """Today on the table's clock (``TIMEZONE``)."""
    zone = ZoneInfo(str(current_app.config.get("TIMEZONE") or "Europe/Berlin"))
    return datetime.now(zone).date()


@dataclass(frozen=True)
class Links:
    """The addresses of a group's pages, through its link (``edit``) or its twin."""

    group: Stammtisch
    edit: bool

    @property
    def token(self) -> str:
        return self.group.token if self.edit else self.group.view_token

    def _url(self, endpoint: str, **values: Any) -> str:
        if self.edit:
            return url_for(f"{endpoint}", token=self.group.token, **values)
        return url_for(f"{endpoint}_view", view_token=self.group.view_token, **values)

    def home(self) -> str:
        return self._url("st_group.home")

    def year(self, number: int) -> str:
        return self._url("st_group.year", number=number)

    def money(self, number: int) -> str:
        return self._url("st_money.show", number=number)

    def evening(self, number: int) -> str:
        return self._url("st_evening.show", number=number)

    def file(self, number: int, ext: str) -> str:
        return self._url(f"st_files.{ext}", number=number)

    def match(self, link: MatchLink) -> str:
        if self.edit:
            return url_for("matches.show", token=link.token)
        return url_for("live.match", view_token=link.view_token)

    def hand(self, link: MatchLink, number: int) -> str:
        if self.edit:
            return url_for("hands.detail", token=link.token, number=number)
        return url_for("live.match", view_token=link.view_token, _anchor=f"hand-{number}")

    def session(self, token: str, view_token: str) -> str:
        if self.edit:
            return url_for("sessions.show", token=token)
        return url_for("live.session", view_token=view_token)

    def view_link(self) -> str:
        """The twin's address as others reach it (to pass on)."""
        return url_for("st_group.home_view", view_token=self.group.view_token, _external=True)

    def edit_link(self) -> str:
        """The members' link as others reach it (to pass on to a member)."""
        return url_for("st_group.home", token=self.group.token, _external=True)
