"""The hosted copy's pages: making a page for a hall, receiving its pushes, showing them.

Any instance of the app is a hosted copy too (run it on the internet: README,
"The tournament online").  ``/online/new`` makes a page for a tournament and
shows, once, its admin link and the connection line (address and key, as a QR
code for the organiser's phone and as text) to carry to the hall.  The hall
pushes to ``/online/<id>/connect`` and ``…/push`` (signed; no form, no cookie,
no CSRF token: the key is the proof).  The public pages ``/o/<token>`` are the
hall's public pages (:mod:`scorer.views.public_pages`) read from the last
state pushed, with "Stand 21:14 aus der Halle"; the admin page takes the page
down.  Nothing here reaches the hall.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services, slots
from ..extensions import csrf, limiter
from ..forms import ConfirmForm
from ..forms.online import OnlinePageForm, invitations
from ..rules import RulesError
from ..services.online import hosted
from ..services.online.signing import Connection
from ..services.tournaments.money import HUNDRED_PERCENT
from ..services.tournaments.public_pages import Source
from ..web import go_to, render
from ..words import fund_note, percent, rules_message
from .polls import qr_svg, read_only
from .public_pages import PublicSite, add_public_pages
from .signed import answer, header_number

bp = Blueprint("online", __name__, cli_group="online")
bp.cli.help = "The tournament online: push to the hosted copies (the hall does it by itself)."


def _context(now: Source) -> dict[str, Any]:
    assert isinstance(now, hosted.Received)
    return {
        "hosted": True,
        "hall_clock": now.doc.hall_clock,
        "hall_day": now.doc.hall_day,
        "page_name": now.name,
    }


def _found(token: str) -> hosted.Received | None:
    return hosted.received(token, keep=float(current_app.config.get("TOURNAMENT_POLL_KEEP", 0.5)))


SITE = PublicSite("online", _found, _context)
"""The hosted copy's public pages, read from the last state a hall pushed."""


def push_address(page_id: int) -> str:
    return url_for("online.push_base", page_id=page_id, _external=True)


# -- making a page, its admin page -------------------------------------------------------


@bp.route("/online/new", methods=["GET", "POST"])
@limiter.limit(slots.online_pages_limit, methods=["POST"])
def new() -> WerkzeugResponse:
    """Make a page for a tournament on this hosted copy: with an invitation code of its
    operator (``ONLINE_INVITATIONS``; none set, the copy makes no pages), every try
    counted per client address (``LIMIT_ONLINE_PAGES``)."""
    if not invitations():
        return render("online/new.html", status=403 if request.method == "POST" else 200)
    form = OnlinePageForm()
    error = None
    if form.validate_on_submit():
        try:
            page = hosted.make_page(form.name.data or "")
        except RulesError as exc:
            error = rules_message(exc)
        else:
            return go_to(url_for("online.admin", token=page.admin_token, made=1))
    elif form.is_submitted():
        error = gettext("Please correct the marked fields.")
    return render("online/new.html", status=422 if error else 200, form=form, error=error)


def _admin_context(page: Any) -> dict[str, Any]:
    line = Connection(push_address(page.id), page.key).line
    return {
        "online_page": page,
        "line": line,
        "public_url": url_for("online.ranking", view_token=page.token, _external=True),
        "state": hosted.page_state(page),
        "form": ConfirmForm(formdata=None),
        "made": request.args.get("made") == "1",
    }


@bp.get("/online/a/<token:token>")
def admin(token: str) -> WerkzeugResponse:
    """The page's admin page: the connection line for the hall, the public link, its state."""
    page = hosted.page_by_admin(token)
    response = render("online/admin.html", **_admin_context(page))
    response.headers["Cache-Control"] = "private, no-store"
    return response


@bp.get("/online/a/<token:token>/line.svg")
def line_qr(token: str) -> Response:
    """The connection line as a QR code (a phone carries it to the hall's laptop)."""
    page = hosted.page_by_admin(token)
    response = qr_svg(Connection(push_address(page.id), page.key).line)
    response.cache_control.max_age = 0
    response.cache_control.no_store = True
    return response


@bp.post("/online/a/<token:token>/down")
def take_down(token: str) -> WerkzeugResponse:
    """Take the page down (asked first): it shows nothing and takes no push any more."""
    page = hosted.page_by_admin(token)
    if not ConfirmForm().validate():
        abort(400)
    hosted.take_down(page)
    return go_to(url_for("online.admin", token=token))


# -- what a hall sends ------------------------------------------------------------------


@bp.post("/online/<int:page_id>")
def push_base(page_id: int) -> Response:
    """The page's address (what the connection line names): the hall adds connect/push."""
    return answer(404, why="connect or push")


@bp.post("/online/<int:page_id>/connect")
@csrf.exempt
def connect(page_id: int) -> Response:
    """A hall connects (signed): the page's new generation, for its pushes to carry."""
    try:
        generation, seq = hosted.connect(
            page_id, request.get_data(), request.headers.get("X-Scorer-Signature", "")
        )
    except hosted.Refused as refused:
        return answer(refused.status, why=refused.why, generation=refused.generation)
    except services.ConflictError:
        return answer(409, why="busy, try again")
    return answer(200, generation=generation, seq=seq)


@bp.post("/online/<int:page_id>/push")
@csrf.exempt
def push(page_id: int) -> Response:
    """A hall's state (signed, numbered): taken when it is newer than what the page shows."""
    generation = header_number("X-Scorer-Generation")
    seq = header_number("X-Scorer-Seq")
    if generation is None or seq is None:
        return answer(400, why="no generation or sequence number")
    try:
        new_state = hosted.receive(
            page_id,
            generation,
            seq,
            request.get_data(),
            request.headers.get("X-Scorer-Signature", ""),
        )
    except hosted.Refused as refused:
        return answer(
            refused.status, why=refused.why, generation=refused.generation, seq=refused.seq
        )
    except services.ConflictError:
        return answer(409, why="busy, try again")
    return answer(200, taken=new_state, seq=seq)


# -- the public pages -------------------------------------------------------------------


add_public_pages(bp, "o", SITE)


def _received(view_token: str) -> hosted.Received:
    now = _found(view_token)
    if now is None:
        abort(404)
    return now


@bp.get("/o/<token:view_token>/prizes")
def prizes(view_token: str) -> WerkzeugResponse:
    """The prize list as the hall last sent it."""
    now = _received(view_token)
    plist = now.prizes
    context = {
        "plist": plist,
        "share_words": [percent(int(s * HUNDRED_PERCENT)) for s in plist.shares] if plist else [],
        "fund_note": fund_note(plist.fund) if plist else "",
        "view_token": view_token,
        "name": now.standings.name,
        **_context(now),
    }
    return read_only(render("online/prizes.html", **context))


@bp.get("/o/<token:view_token>/series")
def series(view_token: str) -> WerkzeugResponse:
    """The series ranking as the hall last sent it (an evening of a series)."""
    now = _received(view_token)
    if now.series is None:
        abort(404)
    context = {"standing": now.series, "view_token": view_token, **_context(now)}
    return read_only(render("online/series.html", **context))


@bp.get("/o/<token:view_token>/qr.svg")
def qr(view_token: str) -> Response:
    """The QR code the beamer shows: this page's "find me", as phones reach it."""
    _received(view_token)
    return qr_svg(url_for("online.find", view_token=view_token, _external=True))


@bp.cli.command("push")
def push_command() -> None:
    """Send the tournaments put online to their hosted copies, every 2 s, until stopped
    (``python -m scorer.hall`` starts this by itself)."""
    from ..services.online.pusher import run

    run(current_app._get_current_object())  # type: ignore[attr-defined]
