"""What a table phone adds to the match page: the players confirm the table's result.

The table phone is the match page itself (``views.matches``): the same hand
form, meld calculator and offline queue.  The match page asks
``services.tournaments.tables.header_of`` for the round, the table and the
deal, and once the deals are played it shows the result with a tap per player
(the paper slip's signature), which posts here.
"""

from __future__ import annotations

from flask import Blueprint, abort, request, url_for
from werkzeug.wrappers import Response as WerkzeugResponse

from ... import services
from ...forms import ConfirmForm, whole_number
from ...rules import RulesError
from ...services.tournaments import tables
from ...web import go_to, render
from ...words import rules_message
from ..entry import entry_context

bp = Blueprint("t_table", __name__)


@bp.post("/m/<token:token>/confirm")
def confirm(token: str) -> WerkzeugResponse:
    """A player of a finished table confirms its result; a second tap changes nothing."""
    match = services.get_match(token)
    table = tables.table_of_match(match.id)
    if table is None:
        abort(404)
    form = ConfirmForm()
    if not form.validate():
        abort(400)
    entrant = whole_number(request.form.get("entrant", ""))
    if entrant is None or entrant not in table.players:
        abort(400)
    try:
        tables.confirm(table, entrant)
    except RulesError as exc:
        sheet = services.sheet(match)
        return render(
            "matches/show.html",
            "matches/_content.html",
            status=409,
            **entry_context(match, sheet, error=rules_message(exc)),
        )
    return go_to(url_for("matches.show", token=match.token))
