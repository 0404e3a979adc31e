"""The forms of the tournament online: a page on the hosted copy, the hall's link to it."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms import StringField, TextAreaField
from wtforms.validators import InputRequired, Length

from ..services.online.hosted import MAX_NAME
from .base import AppForm


class OnlinePageForm(AppForm):
    """A page for a tournament on the hosted copy: its name (the organiser's word)."""

    name = StringField(
        _l("Tournament"),
        [InputRequired(message=_l("Name the tournament the page is for.")), Length(max=MAX_NAME)],
        description=_l("as it is called on the night, e.g. Herbstturnier 2026"),
    )


class OnlineLinkForm(AppForm):
    """The hall's link to a hosted page: the connection line the hosted copy showed."""

    line = TextAreaField(
        _l("Connection line"),
        [InputRequired(message=_l("Paste or scan the connection line.")), Length(max=500)],
        description=_l("the address and the key, as the hosted page shows them (https://…#…)"),
    )
