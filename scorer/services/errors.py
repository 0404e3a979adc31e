"""What the use cases raise besides ``RulesError``: the web layer turns each into its answer.

:class:`NotFound` becomes the 404 page (``scorer.web``); the conflicts become a
409 or the form again with why; :class:`BackupError` the import page with the reason.
"""

from __future__ import annotations

from ..rules import RulesError


class NotFound(LookupError):
    """No row behind a link or an id (the web layer answers 404)."""


class ConflictError(Exception):
    """The match changed since the form was loaded (another phone saved first)."""


class KeyReusedError(ConflictError):
    """An idempotency key came again with something else than it first saved.

    A repeated key means "the same form again": another hand (or another table)
    under it is not saved, and not silently dropped either.
    """


class HandClosedError(ConflictError):
    """A two-player form was for a hand that is no longer the one in play."""


class MatchOverError(Exception):
    """The match has ended; no more hands can be entered."""


class LockedError(MatchOverError):
    """The match takes no more changes from its link: its tournament round was closed.

    ``reason`` is the match's ``locked`` value; only the organiser still corrects.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class BackupError(ValueError):
    """The file cannot be imported; the message is in the user's language.

    When the rules refused a value, ``cause`` keeps their ``RulesError`` and
    ``where`` the place in the file: the web layer words the rules' message in
    the user's language (``scorer.words.rules_message``); ``str()`` gives it in
    the rules' own English.
    """

    def __init__(
        self, message: str = "", *, where: str | None = None, cause: RulesError | None = None
    ) -> None:
        self.where = where
        self.cause = cause
        if cause is not None:
            message = f"{where}: {cause}" if where else str(cause)
        super().__init__(message)
