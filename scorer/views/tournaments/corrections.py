"""The organiser corrects a table: its sheet, any hand (the same hand form), its paper slip.

Behind the organiser's link, at any time, also after the round was closed:
the hand form is the match's own (``hands/_form.html``, saved by
:func:`scorer.views.hands.save_from_form` with ``via="organiser"``), posted to
the organiser's addresses and going back to the board.  A table whose phone
failed gets its paper slip typed in here (points and lost games per player).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from ... import services
from ...forms import ConfirmForm, hand_form
from ...forms.tournament_rounds import paper_slip_form
from ...models import Hand, Match
from ...rules import RulesError
from ...services import ConflictError
from ...services.tournaments import board as boards
from ...services.tournaments import setup
from ...services.tournaments.board import SlipChangedError
from ...services.tournaments.tables import deals_of, state_of
from ...services.writes import ORGANISER
from ...tournament_models import Tournament, TournamentTable
from ...web import go_to, render
from ...words import rules_message
from ..entry import entry_context, preview_of, version_of
from ..hands import save_from_form
from .shared import page_context

bp = Blueprint("t_corrections", __name__)


def _table(token: str, table_id: int) -> tuple[Tournament, TournamentTable]:
    tournament = setup.get_tournament(token)
    return tournament, boards.table_of(tournament, table_id)


def _table_context(tournament: Tournament, table: TournamentTable, **extra: Any) -> dict[str, Any]:
    return page_context(
        tournament,
        table=table,
        row=table.round,
        names=boards.seat_names(tournament, table),
        **extra,
    )


def _correctable(match: Match, number: int) -> Hand:
    """A hand the correction form can show (a closed, live hand of a played deal), or 404."""
    hand = services.hand_by_number(match, number)
    if not services.correctable(hand):
        abort(404)
    return hand


@bp.get("/t/<token:token>/tables/<int:table_id>")
def table_sheet(token: str, table_id: int) -> WerkzeugResponse:
    """A table's sheet for the organiser: every hand with "correct", struck ones to restore."""
    tournament, table = _table(token, table_id)
    match = table.match
    return render(
        "tournaments/rounds/table.html",
        **_table_context(
            tournament,
            table,
            sheet=services.sheet(match),
            state=state_of(table),
            confirm=ConfirmForm(formdata=None, version=str(match.version)),
        ),
    )


def _correction_context(
    tournament: Tournament, table: TournamentTable, hand: Hand
) -> dict[str, Any]:
    """What the organiser's correction page adds around the match's hand form."""
    token = tournament.token
    return _table_context(
        tournament,
        table,
        form_action=url_for(".update", token=token, table_id=table.id, number=hand.seq),
        cancel_url=url_for(".table_sheet", token=token, table_id=table.id),
        strike_form=ConfirmForm(formdata=None, version=str(table.match.version)),
    )


@bp.get("/t/<token:token>/tables/<int:table_id>/hands/<int:number>/edit")
def edit(token: str, table_id: int, number: int) -> WerkzeugResponse:
    """The correction form of any hand of any table (also of a closed round)."""
    tournament, table = _table(token, table_id)
    match = table.match
    hand = _correctable(match, number)
    sheet = services.sheet(match)
    form = hand_form(match, sheet, hand)
    context = entry_context(
        match, sheet, form, hand=hand, preview=preview_of(match, form, len(sheet.parties), hand)
    )
    context.update(_correction_context(tournament, table, hand))
    return render("tournaments/rounds/correct.html", **context)


@bp.post("/t/<token:token>/tables/<int:table_id>/hands/<int:number>")
def update(token: str, table_id: int, number: int) -> WerkzeugResponse:
    """Save the organiser's correction, then back to the board."""
    tournament, table = _table(token, table_id)
    hand = _correctable(table.match, number)
    return save_from_form(
        table.match,
        hand,
        via=ORGANISER,
        back_to=url_for("t_rounds.board", token=token),
        page="tournaments/rounds/correct.html",
        **_correction_context(tournament, table, hand),
    )


@bp.get("/t/<token:token>/tables/<int:table_id>/hands/<int:number>")
def correction_address(token: str, table_id: int, number: int) -> WerkzeugResponse:
    """The address a correction is posted to, opened (a reload of a refused correction, a
    link kept): the correction's page (redirect after POST; never a page of its own here)."""
    _table(token, table_id)
    return go_to(url_for(".edit", token=token, table_id=table_id, number=number))


@bp.get("/t/<token:token>/tables/<int:table_id>/hands/<int:number>/<any(strike, restore):change>")
def change_address(token: str, table_id: int, number: int, change: str) -> WerkzeugResponse:
    """The address a strike or a restore is posted to, opened: the table's sheet."""
    _table(token, table_id)
    return go_to(url_for(".table_sheet", token=token, table_id=table_id))


def _strike_or_restore(token: str, table_id: int, number: int, action: str) -> WerkzeugResponse:
    _, table = _table(token, table_id)
    match = table.match
    hand = services.hand_by_number(match, number)
    here = url_for(".table_sheet", token=token, table_id=table.id)
    form = ConfirmForm()
    if not form.validate():
        abort(400)
    try:
        if action == "strike" and hand.deleted_at is None:
            services.delete_hand(match, hand, version_of(form), via=ORGANISER)
        elif action == "restore" and hand.deleted_at is not None:
            services.restore_hand(match, hand, version_of(form), via=ORGANISER)
    except ConflictError:
        flash(
            gettext("The table changed this sheet meanwhile: here it is as it stands now."),
            "error",
        )
    return go_to(here)


@bp.post("/t/<token:token>/tables/<int:table_id>/hands/<int:number>/strike")
def strike(token: str, table_id: int, number: int) -> WerkzeugResponse:
    """Strike a hand of a table (it stays in the history and the change list)."""
    return _strike_or_restore(token, table_id, number, "strike")


@bp.post("/t/<token:token>/tables/<int:table_id>/hands/<int:number>/restore")
def restore(token: str, table_id: int, number: int) -> WerkzeugResponse:
    """Bring a struck hand of a table back."""
    return _strike_or_restore(token, table_id, number, "restore")


@bp.route("/t/<token:token>/tables/<int:table_id>/paper", methods=["GET", "POST"])
def paper(token: str, table_id: int) -> WerkzeugResponse:
    """Type in, change or remove a table's paper slip: points and lost games per player."""
    tournament, table = _table(token, table_id)
    seats, deals = len(table.players), deals_of(table.match)
    form = paper_slip_form(seats, deals)
    status, error = 200, None
    if form.is_submitted():
        status = 422
        remove = form.remove.data
        if remove or form.validate():
            slip = None if remove else dict(zip(table.players, form.values(), strict=True))
            try:
                boards.set_paper(tournament, table, slip, shown=form.shown.data or None)
            except SlipChangedError:
                status = 409
                error = gettext(
                    "The slip was changed in another tab meanwhile. What you typed is kept "
                    "below; the slip now reads as shown above it. Save again to replace it."
                )
            except ConflictError:
                status = 409
                error = gettext("The table changed meanwhile. Save again.")
            except RulesError as exc:
                error = rules_message(exc)
            else:
                message = (
                    gettext("Table %(table)s: paper slip removed.", table=table.number)
                    if remove
                    else gettext("Table %(table)s: paper slip saved.", table=table.number)
                )
                flash(message, "info")
                return go_to(url_for("t_rounds.board", token=token))
        else:
            error = gettext("Please correct the marked fields.")
        # a 409 shows the slip as it is now and takes the next save as meant
        form.shown.data = boards.slip_digest(table.paper)
    else:
        if table.paper is not None:
            for seat, player in enumerate(table.players):
                points, lost = table.paper[str(player)]
                form[f"points_{seat}"].data = points
                form[f"lost_{seat}"].data = lost
        form.shown.data = boards.slip_digest(table.paper)
    return render(
        "tournaments/rounds/paper.html",
        status=status,
        **_table_context(
            tournament,
            table,
            form=form,
            error=error,
            changed=status == 409,
            deals=deals,
            state=state_of(table),
        ),
    )
