"""The matches this device has opened: the signed session cookie's list (the home page shows it)."""

from __future__ import annotations

from datetime import date

from flask import session

RECENT_KEY = "recent"
SEEN_KEY = "seen"  # the day the cookie was last sent (it lives a year from then)
MAX_RECENT = 20


def remember(token: str) -> None:
    """Remember a session on this device (the home page lists them).

    The cookie is signed and sent again only when the list changes or once a day
    (``SESSION_REFRESH_EACH_REQUEST`` is off): that keeps its year of life rolling
    without re-signing it on every load of a match page.
    """
    current = session.get(RECENT_KEY, [])
    wanted = [token, *(t for t in current if t != token)][:MAX_RECENT]
    today = date.today().isoformat()
    if wanted != current:
        session[RECENT_KEY] = wanted
    if not session.permanent:
        session.permanent = True
    if session.get(SEEN_KEY) != today:
        session[SEEN_KEY] = today


def recent() -> list[str]:
    """The tokens of the sessions this device has opened, newest first."""
    tokens = session.get(RECENT_KEY, [])
    return [t for t in tokens if isinstance(t, str)] if isinstance(tokens, list) else []
