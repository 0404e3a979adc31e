"""The forms of the tournament online: a page on the hosted copy, the hall's link to it."""

from __future__ import annotations

import hmac

from flask import current_app
from flask_babel import lazy_gettext as _l
from wtforms import Field, StringField, TextAreaField
from wtforms.validators import InputRequired, Length, ValidationError

from ..services.online.hosted import MAX_NAME
from .base import AppForm


def invitations() -> tuple[str, ...]:
    """The invitation codes this hosted copy takes (``ONLINE_INVITATIONS``); none: it
    makes no pages."""
    return tuple(current_app.config.get("ONLINE_INVITATIONS") or ())


def invited(code: str | None) -> bool:
    """Whether ``code`` is one of this copy's invitation codes (compared in constant time)."""
    typed = (code or "").strip().encode()
    found = False
    for known in invitations():
        found |= hmac.compare_digest(typed, known.encode())
    return bool(typed) and found


class OnlinePageForm(AppForm):
    """A page for a tournament on the hosted copy: the operator's invitation, its name."""

    invitation = StringField(
        _l("Invitation code"),
        [InputRequired(message=_l("Type the invitation code you were given.")), Length(max=200)],
        description=_l("from whoever runs this site: it decides who may make pages here"),
    )
    name = StringField(
        _l("Tournament"),
        [InputRequired(message=_l("Name the tournament the page is for.")), Length(max=MAX_NAME)],
        description=_l("as it is called on the night, e.g. Herbstturnier 2026"),
    )

    def validate_invitation(self, field: Field) -> None:
        if not invited(field.data):
            raise ValidationError(
                _l(
                    "This is not an invitation code of this site. Ask whoever runs it for one "
                    "(or check the code for a typing mistake)."
                )
            )


class OnlineLinkForm(AppForm):
    """The hall's link to a hosted page: the connection line the hosted copy showed."""

    line = TextAreaField(
        _l("Connection line"),
        [InputRequired(message=_l("Paste or scan the connection line.")), Length(max=500)],
        description=_l("the address and the key, as the hosted page shows them (https://…#…)"),
    )
