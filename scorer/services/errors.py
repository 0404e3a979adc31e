"""What the use cases raise besides ``RulesError``: the web layer turns each into its answer.

:class:`NotFound` becomes the 404 page (``scorer.web``); the conflicts become a
409 or the form again with why; :class:`BackupError` the import page with the reason.
"""

from __future__ import annotations

from ..rules import RulesError


class Said:
    """Words the web layer says in the user's language: an English template and its values.

    The template is the message catalogue's msgid (``scorer/translations``); a value
    may be a :class:`Said` itself (a place in a file: "session 2, match 1").  The
    services never word a message: ``str()`` gives the English, the web layer the
    user's language (``scorer.words.said``).
    """

    def __init__(self, template: str, **params: object) -> None:
        self.template = template
        self.params = params

    def __str__(self) -> str:
        if not self.params:
            return self.template
        return self.template % {k: str(v) for k, v in self.params.items()}

    def __repr__(self) -> str:
        return f"Said({str(self)!r})"


class NotFound(LookupError):
    """No row behind a link or an id (the web layer answers 404)."""


class ConflictError(Exception):
    """The match changed since the form was loaded (another phone saved first)."""


class KeyReusedError(ConflictError):
    """An idempotency key came again with something else than it first saved.

    A repeated key means "the same form again": another hand (or another table)
    under it is not saved, and not silently dropped either.
    """


class OutOfPlaceError(ConflictError):
    """A hand sent again for its place in the match (its ``seq``) finds another place free.

    ``last``: the seq of the match's last hand.  Another hand has taken the place
    (``last >= seq``), or a hand before it is missing (``last < seq - 1``): the hand
    would be counted with another dealer than the one it was played with.
    """

    def __init__(self, seq: int, last: int) -> None:
        self.seq = seq
        self.last = last
        super().__init__(f"hand {seq} sent again after hand {last}")


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
    """The file cannot be imported: ``said`` says why (the web layer words it).

    When the rules refused a value, ``cause`` keeps their ``RulesError`` and
    ``where`` the place in the file; ``str()`` gives it all in English.
    """

    def __init__(
        self,
        said: Said | str = "",
        *,
        where: Said | str | None = None,
        cause: RulesError | None = None,
    ) -> None:
        self.said = said
        self.where = where
        self.cause = cause
        message = str(said)
        if cause is not None:
            message = f"{where}: {cause}" if where else str(cause)
        super().__init__(message)
