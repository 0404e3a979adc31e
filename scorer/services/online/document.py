"""What a hall pushes to its hosted copy: the values its public pages show, and nothing else.

A :class:`Document` holds the standings (ranking, round results, progress,
seating, the registered players), the prize list and, for an evening of a
series, the series ranking — the values the hall's public link renders, read
back on the hosted copy into the same classes (``plain``).  It holds no link of
the hall (the series' evenings lose theirs) and no row id: players are numbered
by their place in the list of players.  ``hall_clock`` is the hall's own time of
the state, shown as it is ("Stand 21:14 aus der Halle"); it is never compared
with the hosted copy's clock.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from ..tournaments.money import PrizeList, Winner
from ..tournaments.series import Evening, SeriesStandings
from ..tournaments.standings import Line, Player, Seat, Standings
from .plain import PlainError, from_plain, to_plain

FORMAT = 1
"""The document's shape; a hosted copy refuses another (the hall says which release to run)."""

MAX_COMPRESSED = 4 * 1024 * 1024
MAX_TEXT = 32 * 1024 * 1024
"""A pushed body's limits: 3,000 players take about 0.1 MB compressed."""


class DocumentError(ValueError):
    """A pushed body that is no document of this release."""


@dataclass(frozen=True)
class Document:
    """A tournament's public side at one moment, as its hall sent it."""

    format: int
    standings: Standings
    prizes: PrizeList | None
    series: SeriesStandings | None
    hall_clock: str
    hall_day: str


def _renumber(standings: Standings, prizes: PrizeList | None) -> tuple[Standings, PrizeList | None]:
    """Players numbered by their place in the list of players, not by their row."""
    ids = {p.entrant_id: n for n, p in enumerate(standings.players, start=1)}

    def player(p: Player) -> Player:
        return replace(p, entrant_id=ids.get(p.entrant_id, 0))

    def line(x: Line) -> Line:
        return replace(x, player=player(x.player))

    def seat(s: Seat) -> Seat:
        return replace(s, player=player(s.player))

    def winner(w: Winner) -> Winner:
        return replace(w, player=player(w.player))

    public = replace(
        standings,
        tournament_id=0,
        players=tuple(player(p) for p in standings.players),
        lines=tuple(line(x) for x in standings.lines),
        seats=tuple(seat(s) for s in standings.seats),
        series=None if standings.series is None else (standings.series[0], ""),
    )
    if prizes is not None:
        prizes = replace(
            prizes,
            winners=tuple(winner(w) for w in prizes.winners),
            joke_winners=tuple(winner(w) for w in prizes.joke_winners),
        )
    return public, prizes


def _without_links(series: SeriesStandings) -> SeriesStandings:
    def evening(e: Evening) -> Evening:
        return replace(e, tournament_id=0, token="", view_token="")

    return replace(series, evenings=tuple(evening(e) for e in series.evenings))


def document(
    standings: Standings,
    prizes: PrizeList | None,
    series: SeriesStandings | None,
    now: datetime,
    zone: str,
) -> Document:
    """The document of a hall's state; ``now`` (naive UTC) shown on the hall's ``zone``."""
    public, prizes = _renumber(standings, prizes)
    local = now.replace(tzinfo=UTC).astimezone(ZoneInfo(zone))
    return Document(
        format=FORMAT,
        standings=public,
        prizes=prizes,
        series=_without_links(series) if series is not None else None,
        hall_clock=local.strftime("%H:%M"),
        hall_day=local.strftime("%Y-%m-%d"),
    )


def content_digest(doc: Document) -> str:
    """What the document shows, as a fingerprint (its time aside): nothing new, nothing sent."""
    plain = to_plain(replace(doc, hall_clock="", hall_day=""))
    text = json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def dumps(doc: Document) -> bytes:
    """The document as the body of a push: compressed JSON."""
    text = json.dumps(to_plain(doc), separators=(",", ":"), ensure_ascii=False)
    return zlib.compress(text.encode("utf-8"), 6)


def _strict_number(text: str) -> Any:
    raise DocumentError(f"not a JSON number: {text}")


def loads(body: bytes) -> Document:
    """A pushed body read back, or :class:`DocumentError` (whatever was sent)."""
    if len(body) > MAX_COMPRESSED:
        raise DocumentError("the document is too large")
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(body, MAX_TEXT)
        if inflater.unconsumed_tail or not inflater.eof:
            raise DocumentError("the document is too large, or cut short")
        value = json.loads(raw.decode("utf-8"), parse_constant=_strict_number)
    except (zlib.error, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise DocumentError(f"not a document: {exc.__class__.__name__}") from None
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise DocumentError(f"not a document of format {FORMAT}")
    try:
        doc = from_plain(Document, value)
    except (PlainError, TypeError, ValueError) as exc:
        raise DocumentError(str(exc)[:200]) from None
    assert isinstance(doc, Document)
    return doc
