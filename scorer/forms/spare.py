"""The forms of the hall's safety: pairing a spare, its takeover, the backup folder."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms import HiddenField, StringField
from wtforms.validators import InputRequired, Length

from ..services.spare.folder import MOST_FOLDER
from .base import AppForm


class PairForm(AppForm):
    """On the spare: the pairing line the hall's page shows."""

    line = StringField(
        _l("The hall's pairing line"),
        [InputRequired(message=_l("Type the line the hall's page shows.")), Length(max=300)],
        description=_l(
            "as the hall's page “Spare laptop” shows it: its address, /hall, # and the code"
        ),
    )


class TakeoverForm(AppForm):
    """On the spare: take over (``sure``: the hall was heard of a moment ago, asked first)."""

    sure = HiddenField()


class FolderForm(AppForm):
    """On the hall: the folder the continuous backup goes to (empty: none)."""

    folder = StringField(
        _l("Folder"),
        [Length(max=MOST_FOLDER)],
        description=_l("the whole path, e.g. /media/anna/STICK (empty: no backup to a folder)"),
    )
