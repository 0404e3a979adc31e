"""The score sheet as a PDF: HTML from ``templates/pdf/`` rendered by WeasyPrint.

The PDF looks like a Binokel block: a header with the date, the table, the
players and the rules; one line per hand with every party's result (losses in
brackets) and the running totals; the winner; signature lines.  A4 portrait,
about 40 hands a page, the table head repeated on every page, page numbers.

Fonts are embedded: DejaVu Sans, read from the system's font directory
(``PDF_FONT_DIR``, default ``/usr/share/fonts/truetype/dejavu``).  The URL
fetcher reads only our own static files and those two font files — a sheet
never touches the network, whatever a player's name says.

A long sheet is expensive (seconds of CPU for 500 hands), so a rendered PDF is
kept as a file under the instance folder, keyed by everything it shows, and
served from there until the match changes (:func:`cached_pdf`); and at most
``PDF_SLOTS`` renders run at once across all worker processes — a request that
finds every slot taken for ``PDF_SLOT_WAIT`` seconds gets a 503 with
``Retry-After`` (:func:`busy_response`) instead of tying up one more worker.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlparse

from flask import Response, current_app, render_template
from flask_babel import format_date, get_locale, gettext
from markupsafe import Markup

from . import services
from .forms import RULE_OPTIONS, preset_name
from .models import GameSession, Match
from .rules import Ruleset, deck_size
from .words import bonus_label, outcome_text, signed, suit_name

log = logging.getLogger(__name__)

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONT_FILES = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSansCondensed.ttf",
    "DejaVuSansCondensed-Bold.ttf",
)


class FetchRefused(ValueError):
    """A URL outside our static files (WeasyPrint logs it and leaves the resource out)."""


# -- words for the sheet (suit and outcome names: scorer.words) ---------------


def _end_text(ruleset: Ruleset) -> str:
    if ruleset.end == "deals":
        return gettext("%(deals)s deals", deals=ruleset.deals)
    if ruleset.end == "at_once":
        return gettext("to %(target)s, at once", target=ruleset.target)
    if ruleset.end == "games":
        return gettext("best of %(games)s hands", games=ruleset.games)
    if ruleset.end == "with_game":
        return gettext("to %(target)s with a won game", target=ruleset.target)
    return gettext("to %(target)s", target=ruleset.target)


def ruleset_line(ruleset: Ruleset) -> str:
    """The rules in one line: preset, table, deck, end, bids."""
    parts = [preset_name(ruleset.preset)]  # the players and cards follow
    if ruleset.teams:
        parts.append(
            gettext(
                "%(players)s players in %(parties)s teams",
                players=ruleset.players,
                parties=ruleset.parties,
            )
        )
    else:
        parts.append(gettext("%(players)s players", players=ruleset.players))
    parts.append(gettext("%(cards)s cards", cards=deck_size(ruleset)))
    parts.append(_end_text(ruleset))
    if not ruleset.open_play:
        parts.append(gettext("bids from %(min)s", min=ruleset.min_bid))
    parts.extend(_variant_texts(ruleset))
    return " · ".join(parts)


def _variant_texts(ruleset: Ruleset) -> list[str]:
    """The variants of RULES.md section 12 that differ from the defaults, one phrase each."""
    default = Ruleset()
    out = []
    if ruleset.dabb is not None:
        out.append(gettext("Dabb %(dabb)s", dabb=ruleset.dabb))
    if ruleset.card_points != default.card_points:
        out.append(gettext("counting %(scheme)s", scheme=ruleset.card_points))
    if ruleset.rundgang != default.rundgang:
        out.append(gettext("Rundgang always 250"))
    if ruleset.eight_ranks is not None:
        ranks = ", ".join(r.value for r in ruleset.eight_ranks) or "—"
        out.append(gettext("Achterle of %(ranks)s", ranks=ranks))
    if not ruleset.diss_pressable and ruleset.has_sevens:
        out.append(gettext("Diss not pressed"))
    if ruleset.dealer == "winner":
        out.append(gettext("the winner deals"))
    if ruleset.first_dealer == "after_winner":
        out.append(gettext("next match: the winner deals"))
    if ruleset.failed_bonus != "none" and not ruleset.open_play:
        out.append(gettext("failed: %(bonus)s", bonus=bonus_label(ruleset.failed_bonus)))
    return out


def _value(value: Any) -> str:
    if value is True:
        return gettext("yes")
    if value is False:
        return gettext("no")
    if value is None:
        return gettext("off")
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def house_rules(ruleset: Ruleset) -> list[str]:
    """The house rules that differ from the ruleset's preset, one short phrase each."""
    labels = {o.name: str(o.label) for o in RULE_OPTIONS}
    choices = {o.name: {k: str(v) for k, v in o.choices} for o in RULE_OPTIONS if o.choices}
    out = []
    for key, value in ruleset.overrides().items():
        if key == "special_values":
            base = dict(Ruleset.from_dict({"preset": ruleset.preset}).special_values)
            for name, amount in value.items():
                if base.get(name) != amount:
                    out.append(f"{labels.get(name, name)}: {_value(amount)}")
        elif key == "team_size":
            out.append(gettext("teams of two") if value == 2 else gettext("everybody alone"))
        elif key == "players":
            continue  # the players are listed on the sheet
        elif key in ("failed_bonus", "going_off_bonus"):
            out.append(f"{labels.get(key, key)}: {bonus_label(value)}")
        elif key in choices and value in choices[key]:
            out.append(f"{labels.get(key, key)}: {choices[key][value]}")
        else:
            out.append(f"{labels.get(key, key)}: {_value(value)}")
    return out


# -- rendering -----------------------------------------------------------------


def _allowed_files() -> list[Path]:
    font_dir = Path(current_app.config.get("PDF_FONT_DIR", FONT_DIR))
    return [font_dir / name for name in FONT_FILES]


def font_urls() -> dict[str, str]:
    """The font file URLs for ``@font-face``: regular, bold and their condensed cuts."""
    regular, bold, condensed, condensed_bold = _allowed_files()
    return {
        "regular": regular.as_uri(),
        "bold": bold.as_uri(),
        "condensed": condensed.as_uri(),
        "condensed_bold": condensed_bold.as_uri(),
    }


def table_layout(parties: int, teams: bool) -> dict[str, Any]:
    """Font size (pt) and the widths (mm) of the six hand columns, by the number of parties.

    The page is 186 mm wide; what the hand columns leave is shared by the
    parties' two columns each (result and running total), which must hold
    ``(−2.000)`` without clipping.
    """
    if parties <= 3:
        widths = [6, 16, 30 if teams else 21, 15, 14, 25]
        return {"font": 8.5, "head": 7.5, "widths": widths}
    if parties == 4:
        return {"font": 7.5, "head": 6.5, "widths": [5, 13, 16, 11, 13, 19]}
    return {"font": 6, "head": 5.5, "widths": [5.5, 10, 11, 7, 9.5, 14]}


def fetch_file(url: str) -> tuple[bytes, str | None]:
    """The bytes and type of a file of our static folder or one of the sheet's fonts.

    Everything else is refused with :class:`FetchRefused` (other schemes,
    other files, paths that climb out of the static folder).
    """
    parsed = urlparse(url)
    if parsed.scheme != "file":
        raise FetchRefused(f"the PDF reads no {parsed.scheme!r} URLs: {url}")
    path = Path(unquote(parsed.path)).resolve()
    static = Path(current_app.static_folder or "").resolve()
    allowed = path.is_file() and (
        path.is_relative_to(static) or path in [p.resolve() for p in _allowed_files()]
    )
    if not allowed:
        raise FetchRefused(f"the PDF reads only our static files, not {url}")
    mime = "font/ttf" if path.suffix == ".ttf" else None
    return path.read_bytes(), mime


def url_fetcher() -> Any:
    """A WeasyPrint URL fetcher that reads only through :func:`fetch_file`."""
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class StaticOnly(URLFetcher):
        def fetch(self, url: str, headers: Any = None) -> Any:
            body, mime = fetch_file(url)
            return URLFetcherResponse(url, body, {"Content-Type": mime} if mime else None)

    return StaticOnly(allowed_protocols=("file",))


def render_pdf(html: str) -> bytes:
    """HTML to PDF bytes, resources only through :func:`url_fetcher`."""
    from weasyprint import HTML

    static = Path(current_app.static_folder or "").resolve()
    document = HTML(string=html, base_url=static.as_uri() + "/", url_fetcher=url_fetcher())
    return bytes(document.write_pdf())


CHUNK = 20  # hands per table row of the sheet (a row breaks between its lines at a page end)


def _line(text: str) -> str:
    # a line of a ``white-space: pre`` cell: a newline in a name would start a new hand
    return " ".join(str(text).splitlines())


TAIL = 3  # the last hands, kept on the page of the totals (never the totals alone)


def hand_chunks(
    sheet: services.Sheet, chunk: int = CHUNK, tail: int = TAIL
) -> list[list[tuple[str, str]]]:
    """The sheet's hands as table rows of ``chunk`` hands: per cell its class and its lines.

    WeasyPrint spends most of a long sheet on the boxes, text layouts and
    borders of its cells; twelve cells for ``chunk`` hands instead of twelve
    per hand make a 500-hand sheet several times faster.  Every line is one
    hand, so the columns stay aligned and a row breaks cleanly between hands.
    The last ``tail`` hands are a row of their own, the last one: the template
    keeps it with the totals, so a page never starts with the totals alone.
    """
    rows = sheet.rows
    body = rows[: max(0, len(rows) - tail)]
    parts = [body[start : start + chunk] for start in range(0, len(body), chunk)]
    if len(rows) > len(body):
        parts.append(rows[len(body) :])
    classes = ["l n", "l", "l", "", "l", "l"] + ["pts", "run"] * len(sheet.parties)
    chunks = []
    for part in parts:
        columns: list[list[str]] = [[] for _ in classes]
        for row in part:
            hand = row.hand
            cells = [
                str(row.number),
                row.dealer,
                row.declarer or "",
                str(hand.bid or ""),
                suit_name(hand.trump),
                outcome_text(hand),
            ]
            for i, points in enumerate(row.points):
                if row.sits_out[i]:
                    cells.append("–")
                else:
                    cells.append(signed(points) + (" ★" if row.stars[i] else ""))
                cells.append(signed(row.totals[i]))
            for column, cell in zip(columns, cells, strict=True):
                column.append(_line(cell))
        chunks.append([(c, "\n".join(lines)) for c, lines in zip(classes, columns, strict=True)])
    return chunks


def _match_context(match: Match) -> dict[str, Any]:
    sheet = services.sheet(match)
    ruleset = sheet.ruleset
    teams = [[s.name for s in match.seats if s.party == party] for party in range(ruleset.parties)]
    return {
        "match": match,
        "sheet": sheet,
        "date": format_date(match.created_at, "medium"),
        "rules_line": ruleset_line(ruleset),
        "house_rules": house_rules(ruleset),
        "teams": teams if ruleset.teams else [],
        "layout": table_layout(ruleset.parties, ruleset.teams),
        "seat_names": [s.name for s in match.seats],
        "chunks": hand_chunks(sheet),
    }


def css_string(text: str) -> Markup:
    """Text as a quoted CSS string, safe inside ``<style>`` (for ``content:`` in ``@page``)."""
    out = []
    for char in str(text):
        if char in '\\"<>&' or ord(char) < 32:
            out.append(f"\\{ord(char):x} ")
        else:
            out.append(char)
    return Markup('"' + "".join(out) + '"')


def _page_numbers() -> Markup:
    """``"Page " counter(page) " of " counter(pages)`` in the user's language."""
    text = gettext("Page %(page)s of %(pages)s", page="\x01", pages="\x02")
    parts = []
    for piece in re.split("([\x01\x02])", text):
        if piece == "\x01":
            parts.append("counter(page)")
        elif piece == "\x02":
            parts.append("counter(pages)")
        elif piece:
            parts.append(str(css_string(piece)))
    return Markup(" ".join(parts))


def _render(template: str, **context: Any) -> bytes:
    html = render_template(
        template,
        fonts=font_urls(),
        page_numbers=_page_numbers(),
        css_title=css_string(context.get("title", "")),
        suit_name=suit_name,
        outcome_text=outcome_text,
        **context,
    )
    return render_pdf(html)


def match_pdf(match: Match) -> bytes:
    """The sheet of one match."""
    return _render("pdf/match.html", blocks=[_match_context(match)], title=_title(match.session))


def session_pdf(row: GameSession) -> bytes:
    """Every match of a session, each from a new page, and the settlement at the end."""
    return _render(
        "pdf/session.html",
        blocks=[_match_context(m) for m in row.matches],
        settlement=services.settlement(row),
        session=row,
        title=_title(row),
        date=format_date(row.created_at, "medium"),
    )


def _title(row: GameSession) -> str:
    return row.title or gettext("Binokel")


# -- the cache and the render slots ------------------------------------------------


class PdfBusy(Exception):
    """Every render slot stayed taken for the whole wait."""


def _folder(setting: str, default: str) -> Path:
    configured = current_app.config.get(setting)
    return Path(configured) if configured else Path(current_app.instance_path) / default


@functools.lru_cache(maxsize=8)
def _code_fingerprint(template_folder: str) -> str:
    """A hash of what turns data into the PDF: our templates, this module, translations.

    An upgrade that changes the sheet's look or words must not serve PDFs of
    the old one; read once per process.
    """
    templates = Path(template_folder)
    sources = sorted((templates / "pdf").glob("*.html"))
    sources += [
        templates / "sessions" / "_settlement.html",
        templates / "sessions" / "_stake_text.html",
    ]
    sources += sorted((Path(__file__).parent / "translations").glob("*/LC_MESSAGES/*.mo"))
    sources.append(Path(__file__))
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes() if path.is_file() else b"")
    return digest.hexdigest()


def _match_key(match: Match) -> list[Any]:
    return [
        match.token,
        match.version,
        match.updated_at,
        match.number,
        match.created_at,
        match.first_dealer,
        match.ruleset,
        [(seat.name, seat.party) for seat in match.seats],
        match.session.title,
    ]


def match_key(match: Match) -> str:
    """The cache key of a match's PDF: the match as of its version, the language, the code."""
    return _digest(["match", _match_key(match)])


def session_key(row: GameSession) -> str:
    """The cache key of a session's PDF: the session, the versions of all its matches, …"""
    head = [row.token, row.title, row.created_at, row.updated_at, row.stake_cents, row.stake_basis]
    return _digest(["session", head, [_match_key(m) for m in row.matches]])


def _digest(parts: list[Any]) -> str:
    parts += [str(get_locale()), _code_fingerprint(str(current_app.template_folder or ""))]
    text = json.dumps(parts, default=str, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _read_cached(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
        os.utime(path)  # recently used: pruned last
    except OSError:
        return None
    return data if data.startswith(b"%PDF") else None


def _store(folder: Path, path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a reader sees all of it or no file), then prune."""
    config = current_app.config
    if len(data) > config["PDF_CACHE_BYTES"]:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".pdf")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        _prune(folder, config["PDF_CACHE_FILES"], config["PDF_CACHE_BYTES"])
    except OSError:
        log.warning("could not keep a PDF in %s", folder, exc_info=True)


def _prune(folder: Path, max_files: int, max_bytes: int) -> None:
    """Drop the least recently used PDFs beyond ``max_files`` files or ``max_bytes`` bytes."""
    entries = []
    for path in folder.glob("*.pdf"):
        try:
            stat = path.stat()
        except OSError:
            continue  # another worker pruned it
        if path.name.startswith(".tmp-"):
            if stat.st_mtime < time.time() - 3600:  # left by a killed worker
                path.unlink(missing_ok=True)
            continue
        entries.append((stat.st_mtime, stat.st_size, path))
    entries.sort(reverse=True)
    size = 0
    for count, (_mtime, bytes_, path) in enumerate(entries, 1):
        size += bytes_
        if count > max_files or size > max_bytes:
            path.unlink(missing_ok=True)


@contextmanager
def render_slot() -> Iterator[None]:
    """Hold one of ``PDF_SLOTS`` render slots, shared by every process of this instance.

    A slot is an exclusive ``flock`` on a file of ``PDF_SLOT_DIR``; the kernel
    lets go of it when its process dies, so a worker killed mid-render frees
    its slot.  Raises :class:`PdfBusy` when no slot came free in ``PDF_SLOT_WAIT``
    seconds.
    """
    config = current_app.config
    folder = _folder("PDF_SLOT_DIR", "pdf-slots")
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"slot-{n}.lock" for n in range(max(1, int(config["PDF_SLOTS"])))]
    deadline = time.monotonic() + float(config["PDF_SLOT_WAIT"])
    held: IO[bytes] | None = None
    while held is None:
        for path in paths:
            handle = path.open("ab")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            held = handle
            break
        else:
            if time.monotonic() >= deadline:
                raise PdfBusy
            time.sleep(0.05)
    try:
        yield
    finally:
        fcntl.flock(held, fcntl.LOCK_UN)
        held.close()


def cached_pdf(key: str, render: Callable[[], bytes]) -> bytes:
    """The PDF of ``key`` from the cache, else ``render()``'d in a slot and kept.

    Raises :class:`PdfBusy` when it had to be rendered and no slot came free.
    """
    config = current_app.config
    if not config["PDF_CACHE"]:
        with render_slot():
            return render()
    folder = _folder("PDF_CACHE_DIR", "pdf-cache")
    path = folder / f"{key}.pdf"
    data = _read_cached(path)
    if data is not None:
        return data
    with render_slot():
        # the same PDF may have been made while this request waited for the slot
        data = _read_cached(path)
        if data is None:
            data = render()
            _store(folder, path, data)
    return data


def sheet_pdf(match: Match) -> bytes:
    """The PDF of one match, from the cache when it has not changed (see :func:`cached_pdf`)."""
    return cached_pdf(match_key(match), lambda: match_pdf(match))


def sheets_pdf(row: GameSession) -> bytes:
    """The PDF of a whole session, from the cache when nothing in it has changed."""
    return cached_pdf(session_key(row), lambda: session_pdf(row))


def busy_response() -> Response:
    """503 with ``Retry-After``: every render slot is taken (the user's language)."""
    message = gettext(
        "Other score sheets are being printed right now. Please try again in a few seconds."
    )
    html = render_template("errors/error.html", code=503, message=message)
    response = Response(html, status=503, mimetype="text/html")
    response.headers["Retry-After"] = str(current_app.config["PDF_RETRY_AFTER"])
    response.headers["Cache-Control"] = "no-store"
    return response
