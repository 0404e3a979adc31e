"""The players of a tournament: registration at the door, lists, check-in, late arrivals, leaving.

One page (``/t/<token>/players``) for the organiser's phone at the door and
the laptop alike: a form to register (and check in at once), the count of
who is there with the tables it makes (the rules' ``table_sizes``), the list
of players with a tap per row (present, not present, withdraw, back again),
a search by name or start number, and a pasted list or a CSV or Excel file.

Every form works without JavaScript (POST, redirect, GET, back at the row);
with htmx a tap swaps only its row and the count, and the search only the list.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, flash, request, session, url_for
from flask_babel import gettext, ngettext
from flask_babel import lazy_gettext as _l
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Response as WerkzeugResponse

from ... import services
from ...forms.tournament import (
    EveryonePresentForm,
    ImportForm,
    PlayerActionForm,
    PlayerForm,
)
from ...rules import RulesError
from ...services.tournaments import entrants, importing, list_encoding, series_people, setup
from ...tournament_models import Entrant, Tournament
from ...web import go_to, is_htmx, render
from ...words import rules_message
from .shared import remembered, tables_text

bp = Blueprint("t_players", __name__)

MAX_SKIPPED_SHOWN = 12
"""Skipped lines listed after an import (the rest are counted)."""
SORTS = ("name", "number")


def _sorted(rows: list[Entrant], sort: str) -> list[Entrant]:
    if sort == "number":
        return sorted(rows, key=lambda e: (e.number is None, e.number or 0, e.name.casefold()))
    return sorted(rows, key=lambda e: (e.name.casefold(), e.club.casefold(), e.id))


def _suggestions(tournament: Tournament) -> list[str]:
    """Names typed before on this device: earlier tournaments and the matches' players."""
    others = [t for t in setup.recent_tournaments(remembered()) if t.id != tournament.id]
    names = entrants.known_names(others) + services.known_players(session.get("recent", []))
    here = {e.name.casefold() for e in tournament.entrants}
    seen: set[str] = set()
    out = []
    for name in names:
        key = name.casefold()
        if key not in here and key not in seen:
            seen.add(key)
            out.append(name)
    return sorted(out, key=str.casefold)


def _asked() -> int | str | None:
    """What the page asks about (``?ask=``): a player's withdrawal (its id) or "all"."""
    ask = request.args.get("ask", "")[:12]
    if ask == "all":
        return ask
    return int(ask) if ask.isdecimal() else None


def _context(tournament: Tournament, **extra: Any) -> dict[str, Any]:
    query = request.args.get("q", "")[: entrants.MAX_NAME]
    sort = request.args.get("sort", "name")
    sort = sort if sort in SORTS else "name"
    counted = entrants.count(tournament)
    shown = _sorted(entrants.search(tournament.entrants, query), sort)
    return {
        "tournament": tournament,
        "counted": counted,
        "tables": tables_text(counted.tables) if counted.tables else "",
        "problem": rules_message(counted.problem) if counted.problem else "",
        "players": shown,
        "query": query,
        "sort": sort,
        "drawn": entrants.drawn_rounds(tournament),
        "was_drawn": lambda e: entrants.was_drawn(tournament, e),
        "state_of": lambda e: entrants.status(tournament, e),
        "next_number": entrants.next_free_number(tournament),
        "following": entrants.next_round(tournament),
        "absent": len(entrants.absent(tournament)),
        "asking": _asked(),
        "max_lines": importing.MAX_LINES,
        # a series evening: the players whose person is still to be chosen, and the links made
        "series_choices": series_people.choices(tournament),
        "series_linked": series_people.linked(tournament),
        "series_absent": series_people.absent_people(tournament),
        **extra,
    }


def _page(
    tournament: Tournament,
    *,
    form: PlayerForm | None = None,
    import_form: ImportForm | None = None,
    status: int = 200,
    **extra: Any,
) -> WerkzeugResponse:
    context = _context(tournament, **extra)
    return render(
        "tournaments/players/index.html",
        "tournaments/players/_list.html",
        status=status,
        form=form or PlayerForm(formdata=None),
        import_form=import_form or ImportForm(formdata=None),
        suggestions=_suggestions(tournament),
        **context,
    )


def _back(tournament: Tournament, anchor: str = "", **more: Any) -> str:
    """The players page again, with the search and order the organiser had."""
    args: dict[str, Any] = {k: v[:40] for k in ("q", "sort") if (v := request.args.get(k))}
    return url_for("t_players.index", token=tournament.token, **args, **more) + anchor


@bp.get("/t/<token:token>/players")
def index(token: str) -> WerkzeugResponse:
    """Registration and check-in; an htmx search gets the list alone."""
    tournament = setup.get_tournament(token)
    return _page(tournament, focus=request.args.get("added") == "1")


@bp.post("/t/<token:token>/players")
def add(token: str) -> WerkzeugResponse:
    """Register a player typed at the door; "present" checks them in at once."""
    tournament = setup.get_tournament(token)
    form = PlayerForm()
    if not form.validate():
        return _page(tournament, form=form, status=422, form_error=_fix_marked())
    present = form.action.data == "present"
    name, club = form.name.data or "", form.club.data or ""
    namesakes = entrants.namesakes(tournament, name)
    try:
        entrant = entrants.register(
            tournament,
            name,
            club,
            form.household.data or "",
            present=present,
            number=form.number.data if present else None,
        )
    except RulesError as exc:
        message = rules_message(exc)
        field = form.number if "start number" in exc.template else form.name
        field.errors = [*field.errors, message]
        return _page(tournament, form=form, status=422, form_error=_fix_marked())
    if entrant.number is not None:
        flash(
            gettext(
                "%(name)s is registered and present: start number %(number)s.",
                name=entrant.name,
                number=entrant.number,
            ),
            "ok",
        )
    else:
        flash(gettext("%(name)s is registered.", name=entrant.name), "ok")
    if namesakes:
        flash(
            gettext(
                "There is another %(name)s (%(club)s): check that these are two players.",
                name=entrant.name,
                club=namesakes[0].club or gettext("no club"),
            ),
            "warning",
        )
    return go_to(url_for("t_players.index", token=tournament.token, added=1) + "#register")


def _fix_marked() -> str:
    return gettext("Please correct the marked fields.")


def _do(tournament: Tournament, entrant: Entrant, form: PlayerActionForm) -> None:
    action = form.action.data
    if action == "check_in":
        entrants.check_in(tournament, entrant, form.number.data)
    elif action == "check_out":
        entrants.check_out(tournament, entrant)
    elif action == "withdraw":
        entrants.withdraw(tournament, entrant)
    elif action == "rejoin":
        entrants.undo_withdrawal(tournament, entrant)


@bp.post("/t/<token:token>/players/<int:entrant_id>")
def act(token: str, entrant_id: int) -> WerkzeugResponse:
    """A tap on a player's row: present (with a typed number or the next free one),
    not present, withdrawn, back again.  htmx gets the row and the count."""
    tournament = setup.get_tournament(token)
    entrant = entrants.entrant_of(tournament, entrant_id)
    form = PlayerActionForm()
    error = None
    asking = None
    if form.validate():
        if form.action.data == "withdraw" and form.sure.data != "1":
            asking = entrant.id  # asked once before a player is signed off
        else:
            try:
                _do(tournament, entrant, form)
            except RulesError as exc:
                error = rules_message(exc)
    else:
        error = " ".join(str(e) for errors in form.errors.values() for e in errors)
    if asking is not None and not is_htmx():
        return go_to(_back(tournament, f"#p-{entrant.id}", ask=asking))
    if is_htmx():
        context = _context(tournament, row_error=error, typed=request.form.get("number", "")[:6])
        context["asking"] = asking
        return render(
            "tournaments/players/_row_swap.html",
            status=422 if error else 200,
            entrant=entrant,
            **context,
        )
    if error:
        flash(f"{entrant.name}: {error}", "error")
    return go_to(_back(tournament, f"#p-{entrant.id}"))


@bp.post("/t/<token:token>/players/present")
def everyone_present(token: str) -> WerkzeugResponse:
    """Check in every player registered and not present, asked once; the start numbers
    follow the order of registration (a list's order)."""
    tournament = setup.get_tournament(token)
    form = EveryonePresentForm()
    if not form.validate() or form.sure.data != "1":
        return go_to(_back(tournament, "#everyone", ask="all"))
    try:
        done = entrants.check_in_all(tournament)
    except RulesError as exc:
        flash(rules_message(exc), "error")
        return go_to(_back(tournament))
    if done:
        flash(
            ngettext(
                "%(num)s player is present now (start number %(first)s).",
                "%(num)s players are present now, numbered in the order of the list "
                "from %(first)s on.",
                len(done),
                first=done[0].number,
            ),
            "ok",
        )
    else:
        flash(gettext("Everyone registered is present already."), "info")
    return go_to(_back(tournament, "#list"))


@bp.route("/t/<token:token>/players/<int:entrant_id>/edit", methods=["GET", "POST"])
def edit(token: str, entrant_id: int) -> WerkzeugResponse:
    """Correct a player's name, club or household."""
    tournament = setup.get_tournament(token)
    entrant = entrants.entrant_of(tournament, entrant_id)
    posted = request.method == "POST"
    form = PlayerForm() if posted else PlayerForm(formdata=None, obj=entrant)
    error = None
    if posted:
        if form.validate():
            try:
                entrants.edit(
                    tournament,
                    entrant,
                    form.name.data or "",
                    form.club.data or "",
                    form.household.data or "",
                )
            except RulesError as exc:
                form.name.errors = [*form.name.errors, rules_message(exc)]
            else:
                flash(gettext("%(name)s is saved.", name=entrant.name), "ok")
                return go_to(_back(tournament, f"#p-{entrant.id}"))
        error = _fix_marked()
    return _edit_page(tournament, entrant, form, error)


def _edit_page(
    tournament: Tournament, entrant: Entrant, form: PlayerForm, error: str | None
) -> WerkzeugResponse:
    return render(
        "tournaments/players/edit.html",
        status=422 if error else 200,
        tournament=tournament,
        entrant=entrant,
        form=form,
        error=error,
        removable=not entrants.was_drawn(tournament, entrant),
    )


@bp.post("/t/<token:token>/players/<int:entrant_id>/remove")
def remove(token: str, entrant_id: int) -> WerkzeugResponse:
    """Remove a registration made by mistake (a player never drawn)."""
    tournament = setup.get_tournament(token)
    entrant = entrants.entrant_of(tournament, entrant_id)
    name = entrant.name
    try:
        entrants.remove(tournament, entrant)
    except RulesError as exc:
        return _edit_page(
            tournament, entrant, PlayerForm(formdata=None, obj=entrant), rules_message(exc)
        )
    flash(gettext("%(name)s is removed.", name=name), "ok")
    return go_to(_back(tournament))


@bp.post("/t/<token:token>/players/import")
def import_list(token: str) -> WerkzeugResponse:
    """A pasted list or a CSV or Excel file: the good lines come in, the others are named."""
    tournament = setup.get_tournament(token)
    form = ImportForm()
    upload = form.file.data
    has_file = bool(upload is not None and getattr(upload, "filename", None))
    if not form.validate() or not (has_file or (form.text.data or "").strip()):
        return _page(
            tournament,
            import_form=form,
            status=422,
            import_error=None if form.errors else gettext("Paste names or choose a file."),
        )
    try:
        if has_file:
            try:
                data = upload.read(importing.MAX_BYTES + 1)
            finally:
                upload.close()
            parsed = importing.from_file(upload.filename or "", data)
            if parsed.check_first:
                # read as Windows-1252: the names are shown, and stored when confirmed
                return _page(tournament, import_form=form, import_check=_check(parsed))
        else:
            parsed = importing.from_text(form.text.data or "")
        result = entrants.register_many(tournament, [(r.name, r.club) for r in parsed.rows])
    except RulesError as exc:
        return _page(tournament, import_form=form, status=422, import_error=rules_message(exc))
    _report(parsed, result)
    return go_to(_back(tournament))


ENCODING_NAMES = {list_encoding.WINDOWS_1252: _l("Windows-1252 (Western European)")}
CHECK_SHOWN = 40
"""Names shown before a file read as Windows-1252 is stored (the rest are counted)."""


def _check(parsed: importing.Parsed) -> dict[str, Any]:
    """What the organiser sees before a list read as Windows-1252 is stored: the encoding,
    the names (those no name could be marked), the lines left out, and the names as read
    for the confirming form to send (``importing.as_text``)."""
    names = [(r.name, r.club, list_encoding.garbled(f"{r.name}{r.club}")) for r in parsed.rows]
    return {
        "encoding": str(ENCODING_NAMES.get(parsed.encoding, parsed.encoding)),
        "count": len(names),
        "shown": names[:CHECK_SHOWN],
        "more": max(0, len(names) - CHECK_SHOWN),
        "garbled": sum(1 for *_, bad in names if bad),
        "skipped": [rules_message(j.problem) for j in parsed.junk][:MAX_SKIPPED_SHOWN],
        "text": importing.as_text(parsed.rows),
    }


def _report(parsed: importing.Parsed, result: entrants.Added) -> None:
    """What came in and what not, as messages on the players page."""
    added = len(result.added)
    flash(
        ngettext("%(num)s player registered.", "%(num)s players registered.", added),
        "ok" if added else "warning",
    )
    skipped = [rules_message(j.problem) for j in parsed.junk]
    skipped += [f"{name}: {rules_message(error)}" for name, error in result.skipped]
    if not skipped:
        return
    flash(
        ngettext("%(num)s line was skipped:", "%(num)s lines were skipped:", len(skipped)),
        "warning",
    )
    for line in skipped[:MAX_SKIPPED_SHOWN]:
        flash(line, "warning")
    if len(skipped) > MAX_SKIPPED_SHOWN:
        flash(gettext("… and %(count)s more.", count=len(skipped) - MAX_SKIPPED_SHOWN), "warning")


def _too_large(error: RequestEntityTooLarge) -> Any:
    """A file over the app's upload limit: the players page says so (nothing imported)."""
    token = (request.view_args or {}).get("token", "")
    try:
        tournament = setup.get_tournament(str(token))
    except services.NotFound:
        return error
    limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
    return _page(
        tournament,
        status=413,
        import_error=gettext(
            "Nothing was imported: the file is larger than %(size)s MB.",
            size=f"{limit / (1024 * 1024):g}",
        ),
    )


bp.register_error_handler(RequestEntityTooLarge, _too_large)
