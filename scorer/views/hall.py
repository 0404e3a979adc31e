"""The hall's safety pages: its spare laptop and its backup folder; the spare's page.

``/hall`` (on the hall's laptop): pair a spare — the page shows a line, the
hall's address and a code, to type into the spare's page — and see how far
behind the spare is; pick the folder (a USB stick) the continuous backup goes
to.  ``/spare`` (on the spare): take the hall's line, see what this laptop holds
and how far behind it is, and take over with one tap; after the takeover, whether
it serves the address the printed cards carry, and what to do when it does not.

Both pages answer only on a hall (``HALL``: ``python -m scorer.hall`` sets it)
and only to the laptop itself (its own browser: a phone on the hall's Wi-Fi
never sees a pairing code).  The laptops' own requests (``/hall/pair``,
``/spare/hello``, ``/spare/push``) carry no form and no cookie: a signature with
the key of the pairing is their proof (``services.spare``).
"""

from __future__ import annotations

import ipaddress
from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
from ..extensions import csrf
from ..forms.spare import FolderForm, PairForm, TakeoverForm
from ..models import utcnow
from ..rules import RulesError
from ..services.spare import address, folder, pairing, receive, takeover
from ..services.spare import role as roles
from ..services.spare.changes import last_change
from ..services.spare.rows import Refused
from ..services.tournaments import restored as notes
from ..services.wire import Unreachable
from ..web import go_to, render
from ..words import rules_message
from .polls import qr_svg
from .signed import answer, header_number
from .tournaments.links import base_url

bp = Blueprint("hall", __name__)

STATUS_POLL = "every 3s"


def _own_laptop() -> None:
    """404 off a hall; 403 to anything but this laptop's own browser."""
    if not current_app.config.get("HALL"):
        abort(404)
    remote = request.remote_addr or ""
    try:
        local = ipaddress.ip_address(remote).is_loopback
    except ValueError:
        local = False
    if not local or request.headers.get("X-Forwarded-For"):
        abort(403)


def _hall_only() -> None:
    if not current_app.config.get("HALL"):
        abort(404)


# -- the hall's page -----------------------------------------------------------------------


def _hall_context(**extra: Any) -> dict[str, Any]:
    link = pairing.link()
    open_code = (
        link is not None
        and bool(link.code)
        and link.code_until is not None
        and link.code_until > utcnow()
    )
    latest = last_change()
    # the spare lacks something when the hall changed after the state it confirmed
    behind = (
        link is not None
        and latest is not None
        and (link.confirmed_change is None or latest > link.confirmed_change)
    )
    chosen = folder.chosen_folder(str(current_app.config.get("BACKUP_FOLDER") or ""))
    state = roles.state_row()
    return {
        "role": roles.current(),
        "link": link,
        "paired": link is not None and bool(link.address and link.key),
        "line": pairing.Line(base_url(), link.code).text if open_code and link else None,
        "code_until": link.code_until if open_code and link else None,
        "latest": latest,
        "behind": behind,
        "chosen": chosen,
        "from_setting": chosen and not state.folder,
        "state": state,
        "sticks": folder.sticks(),
        "poll": STATUS_POLL,
        **extra,
    }


@bp.get("/hall")
def hall() -> WerkzeugResponse:
    """The hall's page: its spare laptop, its backup folder."""
    _own_laptop()
    form = FolderForm(formdata=None)
    form.folder.data = roles.state_row().folder
    return render("hall/hall.html", "hall/_status.html", **_hall_context(folder_form=form))


@bp.get("/hall/status")
def hall_status() -> WerkzeugResponse:
    """How the spare and the folder are doing (the page asks every few seconds)."""
    _own_laptop()
    return render("hall/_status.html", **_hall_context())


@bp.post("/hall/code")
def new_code() -> WerkzeugResponse:
    """A fresh pairing line (valid for a quarter of an hour)."""
    _own_laptop()
    if not TakeoverForm().validate():
        abort(400)
    pairing.new_code()
    return go_to(url_for(".hall") + "#spare")


@bp.get("/hall/line.svg")
def line_qr() -> Response:
    """The pairing line as a QR code."""
    _own_laptop()
    link = pairing.link()
    if link is None or not link.code:
        abort(404)
    response = qr_svg(pairing.Line(base_url(), link.code).text)
    response.cache_control.no_store = True
    return response


@bp.post("/hall/unpair")
def unpair() -> WerkzeugResponse:
    """Push to the spare no more."""
    _own_laptop()
    if not TakeoverForm().validate():
        abort(400)
    pairing.unpair()
    flash(gettext("This laptop sends nothing to a spare any more."), "ok")
    return go_to(url_for(".hall") + "#spare")


@bp.post("/hall/folder")
def set_folder() -> WerkzeugResponse:
    """The folder the continuous backup goes to."""
    _own_laptop()
    form = FolderForm()
    if form.validate():
        try:
            chosen = folder.set_folder(form.folder.data or "")
        except RulesError as exc:
            form.folder.errors = [rules_message(exc)]
        else:
            if chosen:
                flash(
                    gettext(
                        "From now on every tournament and series is written to %(folder)s, a "
                        "few seconds after every change.",
                        folder=chosen,
                    ),
                    "ok",
                )
            else:
                flash(gettext("No backup to a folder any more."), "ok")
            return go_to(url_for(".hall") + "#folder")
    context = _hall_context(folder_form=form)
    return render("hall/hall.html", status=422, **context)


# -- the spare's page ------------------------------------------------------------------------


def _spare_context(**extra: Any) -> dict[str, Any]:
    role = roles.current()
    follow = receive.following()
    held = [(t, notes.contents(t)) for t in receive.held_tournaments()]
    checks: list[address.Check] = []
    if role.is_hall and follow is not None:
        port = _serving_port()
        wanted = address.cards(follow.cards, [(t.name, t.public_url) for t, _ in held])
        for where, names in wanted.items():
            found = address.check(where, port, names)
            if found is not None:
                checks.append(found)
    behind = None
    if follow is not None and follow.received_at is not None:
        behind = max(0.0, (utcnow() - follow.received_at).total_seconds())
    return {
        "role": role,
        "follow": follow,
        "held": held,
        "behind": behind,
        "checks": checks,
        "before": takeover.before(),
        "poll": STATUS_POLL,
        **extra,
    }


def _serving_port() -> int | None:
    raw = str(request.environ.get("SERVER_PORT") or "")
    return int(raw) if raw.isdigit() else None


@bp.get("/spare")
def spare() -> WerkzeugResponse:
    """The spare's page: pair with the hall, what it holds, take over."""
    _own_laptop()
    context = _spare_context(pair_form=PairForm(formdata=None), takeover_form=TakeoverForm())
    return render("hall/spare.html", "hall/_held.html", **context)


@bp.get("/spare/status")
def spare_status() -> WerkzeugResponse:
    _own_laptop()
    return render("hall/_held.html", **_spare_context(takeover_form=TakeoverForm()))


@bp.post("/spare/follow")
def follow() -> WerkzeugResponse:
    """Become the spare of the hall whose line was typed."""
    _own_laptop()
    form = PairForm()
    error = None
    if form.validate():
        try:
            if not roles.current().is_hall or receive.following() is not None:
                raise RulesError("this laptop follows a hall already")
            if receive.holds_anything():
                raise RulesError(
                    "this laptop holds matches or tournaments of its own: a spare starts "
                    "with an empty database"
                )
            line = pairing.parse_line(form.line.data or "")
            paired = pairing.pair(line, base_url())
        except RulesError as exc:
            error = rules_message(exc)
        except Unreachable:
            error = gettext(
                "The hall does not answer at this address: are both laptops on the same Wi-Fi?"
            )
        else:
            receive.follow(
                paired.hall_address, paired.hall_token, paired.key, paired.generation, paired.cards
            )
            flash(
                gettext(
                    "This laptop follows the hall now: in a few seconds it holds every "
                    "tournament and series of it."
                ),
                "ok",
            )
            return go_to(url_for(".spare"))
        form.line.errors = [error]
    context = _spare_context(pair_form=form, takeover_form=TakeoverForm(), error=error)
    return render("hall/spare.html", status=422, **context)


@bp.post("/spare/takeover")
def take_over() -> WerkzeugResponse:
    """One tap: this spare becomes the hall (asked first while the hall seems alive)."""
    _own_laptop()
    form = TakeoverForm()
    if not form.validate():
        abort(400)
    if takeover.before().alive and form.sure.data != "1":
        context = _spare_context(pair_form=PairForm(formdata=None), takeover_form=form, ask=True)
        return render("hall/spare.html", status=409, **context)
    try:
        done = takeover.take_over()
    except RulesError as exc:
        flash(rules_message(exc), "error")
        return go_to(url_for(".spare"))
    flash(
        gettext(
            "This laptop is the hall now (generation %(generation)s). The old laptop, should it "
            "come back, writes nothing any more.",
            generation=done.generation,
        ),
        "ok",
    )
    return go_to(url_for(".spare") + "#address")


# -- what the laptops send each other -------------------------------------------------------


@bp.post("/hall/pair")
@csrf.exempt
def pair() -> Response:
    """A spare proves it knows the hall's code: the hall's answer, signed."""
    _hall_only()
    done = pairing.accept(
        request.get_data(), request.headers.get("X-Scorer-Signature", ""), base_url()
    )
    if done.refused is not None:
        return answer(done.refused.status, why=done.refused.why)
    response = Response(done.body, status=200, mimetype="application/json")
    response.headers["X-Scorer-Signature"] = done.signature
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/spare/hello")
@csrf.exempt
def hello() -> Response:
    """The hall asks what this spare holds."""
    _hall_only()
    generation = header_number("X-Scorer-Generation") or 0
    try:
        held = receive.hello(
            generation, request.get_data(), request.headers.get("X-Scorer-Signature", "")
        )
    except receive.Rejected as rejected:
        return answer(rejected.status, **rejected.answer())
    return answer(200, **held)


@bp.post("/spare/push")
@csrf.exempt
def push() -> Response:
    """The hall's changes (signed, numbered): taken whole, or refused whole."""
    _hall_only()
    generation = header_number("X-Scorer-Generation")
    seq = header_number("X-Scorer-Seq")
    if generation is None or seq is None:
        return answer(400, why="no generation or sequence number")
    try:
        taken = receive.take(
            generation, seq, request.get_data(), request.headers.get("X-Scorer-Signature", "")
        )
    except receive.Rejected as rejected:
        return answer(rejected.status, **rejected.answer())
    except Refused as refused:
        return answer(400, why=refused.why)
    except services.ConflictError:
        return answer(409, why="busy, try again")
    return answer(200, seq=taken.seq, units=taken.units, fresh=taken.fresh)
