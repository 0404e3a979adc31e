"""The public pages of a tournament — ranking, seating, a player's page — wherever they are served.

The hall serves them under its public link (``views.tournaments.public``, read
from the hall's shared build); a hosted copy on the internet serves the same
pages from the last state a hall pushed (``views.online``).  Both are a
:class:`PublicSite`: the same templates, the same polls, each answered by what
changed in the page (its :func:`~scorer.services.tournaments.public_pages.digest`):
a 204 while the page reads the same (``?shown=``), a 304 to a conditional GET,
and a page that changed rendered once per build, process and language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Response, abort, current_app, request, url_for
from flask_babel import get_locale
from werkzeug.wrappers import Response as WerkzeugResponse

from ..services.tournaments import public_pages, published
from ..services.tournaments import seating as seats
from ..services.tournaments.public_pages import Source
from ..web import go_to, render
from .polls import conditional, etag, read_only, utc

BEAMER_POLL = "every 3s"
"""How often the beamer and the ranking ask (a saved hand must show within 5 s)."""

PHONE_POLL = "every 30s"
"""How often a player's phone asks (seating and own page change once a round, mostly)."""

RANKING = "tournaments/public/ranking"
SEATING = "tournaments/public/seating"
PLAYER = "tournaments/public/player"
FIND = "tournaments/public/find.html"

View = Callable[[Source], Any]
"""A page's value (``public_pages``) from the source."""


def _whole_number(name: str) -> int | None:
    raw = request.args.get(name, "")
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else None


def _fragment(template: str) -> str:
    head, _, name = template.rpartition("/")
    return f"{head}/_{name}.html"


def _printable(typed: str) -> str:
    """What was typed, as the form shows it again (no control characters, not too long)."""
    return "".join(c for c in typed if c.isprintable())[:20]


def hall_shown(view_token: str) -> published.Shown | None:
    """What the hall's public link shows now, as fresh as the app's settings say."""
    config = current_app.config
    return published.shown(
        view_token,
        keep=float(config.get("TOURNAMENT_POLL_KEEP", published.POLL_KEEP)),
        fresh=float(config.get("TOURNAMENT_FRESH", published.FRESH)),
    )


@dataclass(frozen=True)
class PublicSite:
    """The public pages of one blueprint (``endpoint``), their values read by ``find``.

    ``context`` adds what the site's templates say besides the page (a hosted copy:
    when the hall sent its state).
    """

    endpoint: str
    find: Callable[[str], Source | None]
    context: Callable[[Source], dict[str, Any]] = field(default=lambda _: {})

    def source(self, token: str) -> Source:
        found = self.find(token)
        if found is None:
            abort(404)
        return found

    def _context(self, token: str, now: Source, key: tuple[Any, ...], view: Any) -> dict[str, Any]:
        extra = self.context(now)
        # what the site says besides the page is shown too (a hosted copy: the hall's time)
        told = public_pages.digest(sorted(extra.items())) if extra else ""
        tag = f"{key}/{now.once(('digest', key), lambda: public_pages.digest(view))}/{told}"
        return {
            "view": view,
            "series": now.standings.series,
            "name": now.standings.name,
            "view_token": token,
            "pub": self.endpoint,
            "tag": tag,
            # what the page shows, in the URL it polls: the same again is a 204
            "shown": etag(tag),
            **extra,
        }

    def page(
        self, token: str, key: tuple[Any, ...], make: View, template: str, **extra: Any
    ) -> WerkzeugResponse:
        """A whole public page (or its fragment for htmx) as it is now."""
        now = self.source(token)
        view = now.once(("view", key), lambda: make(now))
        context = self._context(token, now, key, view)
        return read_only(render(f"{template}.html", _fragment(template), **context, **extra))

    def poll(
        self, token: str, key: tuple[Any, ...], make: View, template: str, **extra: Any
    ) -> WerkzeugResponse:
        """The page's changing part, or 204/304 when the page already shows what it would."""
        now = self.source(token)
        view = now.once(("view", key), lambda: make(now))
        context = self._context(token, now, key, view)

        def build() -> WerkzeugResponse:
            html = now.once(
                ("html", key, str(get_locale())),
                lambda: render(_fragment(template), **context, **extra).get_data(as_text=True),
            )
            return Response(html, mimetype="text/html")

        return conditional(context["tag"], utc(now.built_at), build)

    # -- the ranking (the beamer, and the phones) -------------------------------------

    def _ranking_key(self) -> tuple[Any, ...]:
        """Which page, how many lines to a page, and whether the beamer asks (``rows``)."""
        rows = _whole_number("rows")
        phone = int(current_app.config.get("PUBLIC_PAGE_ROWS", public_pages.PHONE_ROWS))
        size = public_pages.clamp_rows(rows if rows is not None else phone)
        return ("ranking", _whole_number("page") or 1, size, rows is not None)

    @staticmethod
    def _ranking(key: tuple[Any, ...]) -> View:
        _, page, rows, beamer = key
        return lambda now: public_pages.ranking_view(now.standings, page, rows, beamer=beamer)

    def ranking(self, token: str) -> WerkzeugResponse:
        key = self._ranking_key()
        return self.page(token, key, self._ranking(key), RANKING, poll=BEAMER_POLL)

    def ranking_live(self, token: str) -> WerkzeugResponse:
        key = self._ranking_key()
        return self.poll(token, key, self._ranking(key), RANKING, poll=BEAMER_POLL)

    # -- where do I sit? -----------------------------------------------------------------

    @staticmethod
    def _seating_key() -> tuple[Any, ...]:
        """The seating, searched for what was typed (``?q=``: a name or a start number)."""
        raw = request.args.get("q", "")
        typed = "".join(c for c in raw if c.isprintable())[: seats.MAX_QUERY].strip()
        return ("seating", typed)

    @staticmethod
    def _seating(key: tuple[Any, ...]) -> View:
        return lambda now: public_pages.seating_view(now.standings, key[1])

    def seating(self, token: str) -> WerkzeugResponse:
        key = self._seating_key()
        return self.page(token, key, self._seating(key), SEATING, poll=PHONE_POLL)

    def seating_live(self, token: str) -> WerkzeugResponse:
        key = self._seating_key()
        return self.poll(token, key, self._seating(key), SEATING, poll=PHONE_POLL)

    # -- a player's page, and finding it -----------------------------------------------

    @staticmethod
    def _player(number: int) -> View:
        return lambda now: public_pages.player_view(now.standings, number)

    def find_page(self, token: str, typed: str, status: int) -> WerkzeugResponse:
        """The name list with the start-number form; ``typed`` and status 4xx: nobody has it."""
        now = self.source(token)
        context = {
            "name": now.standings.name,
            "view_token": token,
            "pub": self.endpoint,
            "players": now.once(("listed",), lambda: seats.listed(now.standings)),
            "typed": typed,
            "unknown": status != 200,
            **self.context(now),
        }
        return read_only(render(FIND, status=status, **context))

    def player(self, token: str, number: int) -> WerkzeugResponse:
        """A player's own page; a start number nobody has: the name list, saying so (404)."""
        if public_pages.player_view(self.source(token).standings, number).me is None:
            return self.find_page(token, _printable(str(number)), 404)
        key = ("player", number)
        return self.page(token, key, self._player(number), PLAYER, poll=PHONE_POLL, number=number)

    def player_live(self, token: str, number: int) -> WerkzeugResponse:
        key = ("player", number)
        return self.poll(token, key, self._player(number), PLAYER, poll=PHONE_POLL, number=number)

    def find_me(self, token: str) -> WerkzeugResponse:
        """Pick your name or type your start number; a number nobody has keeps it (422)."""
        typed = request.args.get("number")
        if typed is None:
            return self.find_page(token, "", 200)
        number = seats.start_number(typed)
        if number is not None and seats.player_page(self.source(token).standings, number):
            return go_to(url_for(f"{self.endpoint}.player", view_token=token, number=number))
        return self.find_page(token, _printable(typed), 422)


def add_public_pages(bp: Blueprint, prefix: str, site: PublicSite) -> None:
    """The public pages on ``bp`` under ``/<prefix>/<view_token>``: the ranking, where
    everybody sits, a player's page, finding it, and their polls (``…/live``)."""
    base = f"/{prefix}/<token:view_token>"
    routes: list[tuple[str, str, Callable[..., WerkzeugResponse]]] = [
        ("", "ranking", site.ranking),
        ("/live", "ranking_live", site.ranking_live),
        ("/seats", "seating", site.seating),
        ("/seats/live", "seating_live", site.seating_live),
        ("/players/<int:number>", "player", site.player),
        ("/players/<int:number>/live", "player_live", site.player_live),
        ("/me", "find", site.find_me),
    ]
    for path, endpoint, answer in routes:
        bp.add_url_rule(base + path, endpoint, _route(answer), methods=["GET"])


def _route(answer: Callable[..., WerkzeugResponse]) -> Callable[..., WerkzeugResponse]:
    def view(view_token: str, **values: Any) -> WerkzeugResponse:
        return answer(view_token, **values)

    view.__doc__ = answer.__doc__
    return view
