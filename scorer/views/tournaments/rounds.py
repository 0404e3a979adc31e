"""The organiser's rounds: the draw, the seating with every table's link and QR, the board.

Every page here is behind the organiser's link.  The draw is one POST whose
round number makes it idempotent (two tabs, one draw); a refusal (too few
players, the round before still open) goes back as a message to the page the
button was on.  The board polls its fragment every 5 s and costs a 204/304
while nothing changed (:mod:`scorer.views.polls`).  The corrections and paper
slips are in :mod:`.corrections`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, abort, flash, request, url_for
from flask_babel import gettext, ngettext
from werkzeug.wrappers import Response as WerkzeugResponse

from ...forms.tournament_rounds import (
    CloseForm,
    DrawForm,
    RedrawForm,
    ReplaceLinkForm,
    table_numbers,
)
from ...rules import RulesError
from ...rules.tournament import table_sizes
from ...services import ConflictError
from ...services.tournaments import board as boards
from ...services.tournaments import changes as change_list
from ...services.tournaments import rounds, series_people, setup
from ...tournament_models import Round, Tournament, TournamentTable
from ...web import go_to, render, same_site_path
from ...words import rules_message
from ..polls import conditional, etag, utc
from . import links
from .shared import page_context

bp = Blueprint("t_rounds", __name__)

POLL = "every 5s"
"""How often the board asks for news (its fragment's hx-trigger)."""


# -- what every organiser page of a round shares ---------------------------------------


def came_from() -> str | None:
    """The page of this site the form was sent from (its ``Referer``), or None."""
    referrer = request.referrer
    if not referrer:
        return None
    parts = urlsplit(referrer)
    if parts.netloc != request.host:
        return None
    return same_site_path(parts.path + (f"?{parts.query}" if parts.query else ""))


def round_of(tournament: Tournament, number: int) -> Round:
    """The tournament's round ``number``, or 404."""
    found = next((r for r in tournament.round_rows if r.number == number), None)
    if found is None:
        abort(404)
    return found


def table_link(tournament: Tournament, table: TournamentTable) -> str:
    """The address the table phone opens (its QR code), reachable in the hall."""
    return links.external_url(tournament, "matches.show", token=table.match.token)


def draw_form(number: int, back: str) -> DrawForm:
    """The button that draws round ``number``; a refusal goes back to ``back``."""
    return DrawForm(formdata=None, number=number, back=back)


# -- the draw --------------------------------------------------------------------------


@bp.post("/t/<token:token>/rounds")
def draw(token: str) -> WerkzeugResponse:
    """Draw the round the page offered; the same round again answers with its seating."""
    tournament = setup.get_tournament(token)
    form = DrawForm()
    back = same_site_path(form.back.data) or came_from() or url_for(".board", token=token)
    number = form.number.data if form.validate() else None
    if number is None:
        flash(gettext("This round cannot be drawn. Reload the page and try again."), "error")
        return go_to(back)
    try:
        row = rounds.draw_round(tournament, number)
    except RulesError as exc:
        flash(rules_message(exc), "error")
        return go_to(back)
    except ConflictError:
        flash(gettext("Another tab changed the rounds at the same moment. Try again."), "error")
        return go_to(back)
    return go_to(url_for(".round_page", token=token, number=row.number))


@bp.get("/t/<token:token>/rounds/<int:number>")
def round_page(token: str, number: int) -> WerkzeugResponse:
    """The seating of a round: every table's players in seat order, link and QR code."""
    tournament = setup.get_tournament(token)
    row = round_of(tournament, number)
    tables = boards.round_tables(row)
    frozen = row.closed_at is not None or rounds.has_hands(row)
    # the rules say at which tables the dealer sits out (a table of four)
    rules_of = {
        size: setup.table_ruleset_of(tournament, size) for size in {len(t.players) for t in tables}
    }
    sits_out = {t.id: rules_of[len(t.players)].dealer_sits_out for t in tables}
    return render(
        "tournaments/rounds/round.html",
        **page_context(
            tournament,
            row=row,
            tables=tables,
            links={t.id: table_link(tournament, t) for t in tables},
            repeated=rounds.repeated_pairs(tournament, row),
            # what the draw counted: this evening's earlier rounds, the series' evenings before
            earlier=series_people.earlier_counted(tournament),
            sits_out=sits_out,
            fours=sum(sits_out.values()),
            frozen=frozen,
            redraw_form=None if frozen else RedrawForm(formdata=None, attempt=row.attempt),
        ),
    )


@bp.post("/t/<token:token>/rounds/<int:number>/redraw")
def redraw(token: str, number: int) -> WerkzeugResponse:
    """Draw the round again (new seed), while no table has entered a hand."""
    tournament = setup.get_tournament(token)
    row = round_of(tournament, number)
    form = RedrawForm()
    here = url_for(".round_page", token=token, number=number)
    attempt = form.attempt.data if form.validate() else None
    if attempt is None:
        flash(gettext("The seating has changed meanwhile: here it is as it stands."), "error")
        return go_to(here)
    try:
        rounds.redraw(tournament, row, attempt)
    except RulesError as exc:
        flash(rules_message(exc), "error")
    except ConflictError:
        flash(
            gettext("This round was drawn again in another tab meanwhile: here is its seating."),
            "info",
        )
    else:
        flash(gettext("Round %(number)s drawn again.", number=number), "info")
    return go_to(here)


@bp.get("/t/<token:token>/rounds/<int:number>/qr")
def qr_sheet(token: str, number: int) -> WerkzeugResponse:
    """Every table's QR code with its number, round and players, to print."""
    tournament = setup.get_tournament(token)
    row = round_of(tournament, number)
    tables = boards.round_tables(row)
    return render(
        "tournaments/rounds/qr_sheet.html",
        **page_context(
            tournament,
            row=row,
            tables=tables,
            links={t.id: table_link(tournament, t) for t in tables},
        ),
    )


@bp.get("/t/<token:token>/tables/<int:table_id>/qr.svg")
def table_qr(token: str, table_id: int) -> Response:
    """The QR code of a table's link (``?link=`` its number: a new link, a new picture)."""
    tournament = setup.get_tournament(token)
    table = boards.table_of(tournament, table_id)
    return links.qr_svg(table_link(tournament, table))


@bp.route("/t/<token:token>/tables/<int:table_id>/link", methods=["GET", "POST"])
def replace_link(token: str, table_id: int) -> WerkzeugResponse:
    """Give a table a new link (asked first): the old phone then writes nothing."""
    tournament = setup.get_tournament(token)
    table = boards.table_of(tournament, table_id)
    row = table.round
    here = url_for(".round_page", token=token, number=row.number, _anchor=f"table-{table.number}")
    form = ReplaceLinkForm()
    if form.is_submitted():
        shown = form.link.data if form.validate() else None
        new = None
        try:
            # None: another tab replaced the link the page showed a moment before
            new = rounds.replace_link(tournament, table, shown) if shown is not None else None
        except RulesError as exc:
            flash(rules_message(exc), "error")
            return go_to(here)
        if new is None:
            flash(
                gettext(
                    "Table %(table)s already has a new link: this is the one that counts.",
                    table=table.number,
                ),
                "info",
            )
        else:
                flash(
                gettext(
                    "Table %(table)s has a new link (link %(link)s). Scan its new QR code with "
                    "the phone that goes on; the old phone writes nothing any more.",
                    table=table.number,
                    link=table.link_number,
                ),
                "info",
            )
        return go_to(here)
    return render(
        "tournaments/rounds/replace_link.html",
        **page_context(
            tournament,
            row=row,
            table=table,
            link=table_link(tournament, table),
            form=ReplaceLinkForm(formdata=None, link=table.link_number),
            back=here,
        ),
    )


# -- the board -------------------------------------------------------------------------


def _board_context(tournament: Tournament, tag: str) -> dict[str, Any]:
    shown = boards.board(tournament)
    page = boards.page_of(shown, request.args.get("page", 1, type=int) or 1)
    row = shown.row
    following = rounds.next_number(tournament)
    here = url_for(".board", token=tournament.token)
    players = len(rounds.drawn_for(tournament, following)) if following else 0
    try:
        sizes = table_sizes(players) if following else ()
    except RulesError:
        sizes = ()
    return page_context(
        tournament,
        board=shown,
        board_page=page,
        row=row,
        poll=POLL,
        shown=etag(tag),
        following=following,
        following_players=players,
        following_sizes=sizes,
        draw_form=draw_form(following, here) if following else None,
        close_form=CloseForm(formdata=None, warned=",".join(map(str, shown.unsigned))),
    )


@bp.get("/t/<token:token>/board")
def board(token: str) -> WerkzeugResponse:
    """Every table of the current round, live: deal n of N, done, signed, quiet."""
    tournament = setup.get_tournament(token)
    state = boards.poll_state(token)
    if state is None:
        abort(404)
    return render("tournaments/rounds/board.html", **_board_context(tournament, state[0]))


@bp.get("/t/<token:token>/board/live")
def board_live(token: str) -> WerkzeugResponse:
    """The board's changing part (polled every 5 s; 204/304 while nothing changed)."""
    state = boards.poll_state(token)
    if state is None:
        abort(404)
    tag, changed = state

    def build() -> WerkzeugResponse:
        tournament = setup.get_tournament(token)
        return render("tournaments/rounds/_board.html", **_board_context(tournament, tag))

    return conditional(tag, utc(changed), build)


@bp.post("/t/<token:token>/rounds/<int:number>/close")
def close(token: str, number: int) -> WerkzeugResponse:
    """Close the round, asked once first ("Close round n?", naming the unsigned tables);
    refused while a table plays.  The answer goes back to the page the button was on."""
    tournament = setup.get_tournament(token)
    row = round_of(tournament, number)
    form = CloseForm()
    if not form.validate():
        abort(400)
    here = same_site_path(form.back.data) or url_for(".board", token=token)
    if row.closed_at is not None:
        flash(gettext("Round %(number)s is closed.", number=number), "info")
        return go_to(here)
    shown = boards.board(tournament)
    unsigned = shown.unsigned if shown.row is row else []
    warned = table_numbers(form.warned.data)
    if not shown.unfinished and (form.sure.data != "1" or set(unsigned) - warned):
        # asked once; again when tables went unsigned that the question did not name
        return _close_question(tournament, row, unsigned, here)
    try:
        rounds.close_round(tournament, row)
    except RulesError as exc:
        flash(rules_message(exc), "error")
        return go_to(here)
    flash(gettext("Round %(number)s is closed.", number=number), "info")
    return go_to(here)


def _close_question(
    tournament: Tournament, row: Round, unsigned: list[int], here: str
) -> WerkzeugResponse:
    """ "Close round n?", naming the tables not signed; the answer goes back to ``here``."""
    return render(
        "tournaments/rounds/close.html",
        **page_context(
            tournament,
            row=row,
            unsigned=unsigned,
            back=here,
            form=CloseForm(formdata=None, warned=",".join(map(str, unsigned)), sure="1", back=here),
        ),
    )


@bp.get("/t/<token:token>/rounds/<int:number>/close")
def close_again(token: str, number: int) -> WerkzeugResponse:
    """The question's address opened again (a reload, the back button, a link kept): the
    question as it stands now, not 405.  A round closed meanwhile, or with a table still
    playing, goes where the organiser closes rounds (the board), which says why."""
    tournament = setup.get_tournament(token)
    row = round_of(tournament, number)
    here = same_site_path(request.args.get("back")) or url_for(".board", token=token)
    if row.closed_at is not None:
        flash(gettext("Round %(number)s is closed.", number=number), "info")
        return go_to(here)
    shown = boards.board(tournament)
    if shown.row is not row:
        return go_to(here)
    if shown.unfinished:
        flash(
            ngettext(
                "Table %(tables)s is still playing: the round closes once it is done or its "
                "paper slip is typed in.",
                "Tables %(tables)s are still playing: the round closes once they are done or "
                "their paper slips are typed in.",
                len(shown.unfinished),
                tables=", ".join(map(str, shown.unfinished)),
            ),
            "info",
        )
        return go_to(here)
    return _close_question(tournament, row, shown.unsigned, here)


@bp.get("/t/<token:token>/changes")
def changes(token: str) -> WerkzeugResponse:
    """Every change made to a table after it was done: when, from which link, before, after."""
    tournament = setup.get_tournament(token)
    return render(
        "tournaments/rounds/changes.html",
        **page_context(tournament, changes=change_list.changes(tournament)),
    )
