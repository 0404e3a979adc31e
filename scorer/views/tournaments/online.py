"""The hall's side of the tournament online: where it goes, whether it got there.

The organiser pastes (or scans) the connection line a hosted copy showed for
this tournament; from then on the hall's pusher (``scorer.online_push``, started
by ``python -m scorer.hall``) sends the public side whenever there is a
connection.  The page says when the hosted copy last confirmed a state, and why
not when it did not; its status part asks again every 5 s.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from ...forms import ConfirmForm
from ...forms.online import OnlineLinkForm
from ...rules import RulesError
from ...services.online import hall
from ...services.tournaments import setup
from ...tournament_models import Tournament
from ...web import go_to, render
from ...words import rules_message

bp = Blueprint("t_online", __name__)

STATUS_POLL = "every 5s"


def _context(tournament: Tournament, **extra: Any) -> dict[str, Any]:
    return {
        "tournament": tournament,
        "online": hall.link_of(tournament),
        "poll": STATUS_POLL,
        "home_url": url_for("t_organiser.home", token=tournament.token),
        **extra,
    }


@bp.route("/t/<token:token>/online", methods=["GET", "POST"])
def index(token: str) -> WerkzeugResponse:
    """Put the tournament online (the connection line), and how it goes."""
    tournament = setup.get_tournament(token)
    form = OnlineLinkForm()
    error = None
    if form.validate_on_submit():
        try:
            hall.link(tournament, form.line.data or "")
        except RulesError as exc:
            error = rules_message(exc)
            form.line.errors = [error]
        else:
            flash(
                gettext(
                    "The tournament goes online: the results are sent whenever this laptop "
                    "reaches the internet."
                ),
                "ok",
            )
            return go_to(url_for("t_online.index", token=token))
    elif form.is_submitted():
        error = gettext("Please correct the marked fields.")
    return render(
        "tournaments/online/index.html",
        "tournaments/online/_status.html",
        status=422 if error else 200,
        **_context(tournament, form=form, error=error, unlink_form=ConfirmForm(formdata=None)),
    )


@bp.get("/t/<token:token>/online/status")
def status(token: str) -> WerkzeugResponse:
    """How the pushes go (asked again every 5 s)."""
    tournament = setup.get_tournament(token)
    return render("tournaments/online/_status.html", **_context(tournament))


@bp.post("/t/<token:token>/online/off")
def unlink(token: str) -> WerkzeugResponse:
    """Send no more (the hosted page keeps what it showed until it is taken down there)."""
    tournament = setup.get_tournament(token)
    if ConfirmForm().validate():
        hall.unlink(tournament)
        flash(gettext("Nothing more is sent. The hosted page keeps the last results."), "info")
    return go_to(url_for("t_online.index", token=token))
