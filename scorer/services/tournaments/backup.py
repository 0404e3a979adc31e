"""A tournament (or a whole series) as one backup file, and restoring it: all or nothing.

The file (``dumps`` of :func:`export_tournament` / :func:`export_series`)::

    {"format": "scorer-tournament", "version": 1, "exported_at": "...",
     "tournament": {...every setting, the money and the prizes, "rounds_planned": 3...,
                    "entrants": [{name, club, household, number, from_round, ...}],
                    "rounds": [{number, seed, attempt, drawn_at, closed_at,
                                "tables": [{number, players (start numbers, seat order),
                                            link_number, retired_links, done_at, paper,
                                            paper_log, confirmations,
                                            "match": <a match of the match backups>}]}]}}

    {"format": "scorer-series", "version": 1, "exported_at": "...",
     "series": {...its settings..., "players": [...], "evenings": [<tournament>, ...]}}

Players are named by their start number (tables, slips, confirmations) and a
series' people by their place in ``players`` (1, 2, 3 …), never by a database
id.  Each table's match is written and read by the match backups
(:func:`scorer.services.backup_format.export_match`,
:func:`scorer.services.backup.load_match`): its hands are settled again by the
rules and their history (with ``via``) travels with them — nothing about a hand
is written twice.

Decisions:

* **The links.**  On the night the laptop dies and the organiser restores the
  file on another one: the printed table cards' QR codes, the public link on
  the beamer and the organiser's own link must keep working.  So the file's
  tokens are kept when *none* of them is in use in this database.  When one is
  (the same file imported a second time, or into the server it came from),
  the file is restored as a **copy with new links** for everything — never a
  mix of old and new links, which would leave some table cards leading to the
  other copy.  The import page says which of the two happened.
* **An evening's file is whole.**  An evening of a series is exported as its
  series' file (every evening: what the series ranking and the draw across the
  evenings need) with ``"evening"``: the place of the evening it was downloaded
  for; restoring it restores the evening inside its series and opens that
  evening.  A tournament alone is a ``scorer-tournament`` file (``series_player``
  null) as before.
* **The online connection travels.**  A tournament put online carries
  ``"online": {"address", "key"}`` (the hosted page's connection line): restored
  with its links, it connects anew, and the hosted copy follows the new laptop
  and refuses the old one (a new generation there).  A copy with new links does
  not take it over (the hosted page stays with the original).
* **A restore says what it restored**: the file's time (``exported_at``), its last
  round and its deals, kept on each restored tournament (``restored``, shown on
  its organiser's and public pages).
* **Nothing from the file is trusted**: every value is checked for its type and
  range (:mod:`scorer.services.tournaments.backup_reader`), the ruleset by
  ``check_ruleset``, the references (players at the tables, start numbers,
  round numbers, the one open round, the seats, the series' players), the
  limits (:data:`MAX_FILE_HANDS`), and the text of the whole file by
  :func:`scorer.services.backup_format.parse` (nesting, NUL, control
  characters, lone surrogates, numbers JSON does not know).
* **All or nothing, checked first**: the whole file is read and checked before
  anything is written, so a refused file leaves the database as it was.  Then
  it is written in short transactions (:mod:`scorer.services.tournaments.restoring`),
  so that a big file does not hold SQLite's write lock for seconds while the
  tables of the hall save their hands; the restored rows become visible with
  the last one, all at once.  A write that fails halfway removes what it wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from ...extensions import db
from ...online_models import OnlineLink
from ...resources import RELEASE
from ...tournament_models import RetiredLink, Series, Tournament
from ..backup_format import FORMAT as MATCH_FORMAT
from ..backup_format import VERSION, compact_rules, parse
from ..errors import BackupError
from ..errors import Said as _
from . import restoring
from .backup_loading import Kept, match_exports
from .backup_reader import MAX_EVENINGS, MAX_FILE_HANDS, TOURNAMENT_FORMAT, Loader
from .restored import Contents, loaded_contents, mark

SERIES_FORMAT = "scorer-series"
FORMATS = (TOURNAMENT_FORMAT, SERIES_FORMAT)

__all__ = [
    "FORMATS",
    "SERIES_FORMAT",
    "TOURNAMENT_FORMAT",
    "Restored",
    "count_hands",
    "export_series",
    "export_tournament",
    "restore",
]


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds")


def _now() -> str | None:
    return _time(datetime.now(UTC).replace(tzinfo=None))


# -- export --------------------------------------------------------------------------------


def export_tournament(tournament: Tournament, kept: Kept | None = None) -> dict[str, Any]:
    """The backup file of one tournament, as plain JSON values; an evening of a series is
    its series' file (with every evening), naming the evening (``"evening"``).

    ``kept``: the matches exported before, reused while unchanged (:mod:`.backup_loading`).
    """
    if tournament.series is not None:
        data = export_series(tournament.series, kept)
        data["evening"] = [t.id for t in tournament.series.tournaments].index(tournament.id) + 1
        return data
    return {
        "format": TOURNAMENT_FORMAT,
        "version": VERSION,
        "release": RELEASE,
        "exported_at": _now(),
        "tournament": tournament_data(tournament, None, kept),
    }


def export_series(series: Series, kept: Kept | None = None) -> dict[str, Any]:
    """The backup file of a series with all its evenings, as plain JSON values."""
    index = {p.id: position for position, p in enumerate(series.players, 1)}
    return {
        "format": SERIES_FORMAT,
        "version": VERSION,
        "release": RELEASE,
        "exported_at": _now(),
        "series": {
            "token": series.token,
            "view_token": series.view_token,
            "name": series.name,
            "counting": series.counting,
            "best": series.best,
            "met_across": series.met_across,
            "created_at": _time(series.created_at),
            "updated_at": _time(series.updated_at),
            "players": [
                {"name": p.name, "club": p.club, "created_at": _time(p.created_at)}
                for p in series.players
            ],
            "evenings": [tournament_data(t, index, kept) for t in series.tournaments],
        },
    }


def _retired(tournament: Tournament) -> dict[int, list[RetiredLink]]:
    """The replaced links of the tournament's tables, by match, oldest first (one query)."""
    ids = [table.match_id for row in tournament.round_rows for table in row.tables]
    found: dict[int, list[RetiredLink]] = {}
    for start in range(0, len(ids), 500):
        rows = db.session.execute(
            select(RetiredLink)
            .where(RetiredLink.match_id.in_(ids[start : start + 500]))
            .order_by(RetiredLink.link_number, RetiredLink.id)
        ).scalars()
        for link in rows:
            found.setdefault(link.match_id, []).append(link)
    return found


def _slip(paper: dict[str, list[int]] | None, numbers: dict[int, int | None]) -> Any:
    """A paper slip with start numbers for the entrant ids it is stored with."""
    if paper is None:
        return None
    return {str(numbers.get(int(key))): list(value) for key, value in paper.items()}


def tournament_data(
    tournament: Tournament, series_index: dict[int, int] | None, kept: Kept | None = None
) -> dict[str, Any]:
    """One tournament's object of a backup file (``series_index``: its series' people)."""
    t = tournament
    numbers = {e.id: e.number for e in t.entrants}
    retired = _retired(t)
    matches = match_exports(t, kept)
    online = db.session.get(OnlineLink, t.id)
    return {
        "token": t.token,
        "view_token": t.view_token,
        "name": t.name,
        "held_on": t.held_on,
        "place": t.place,
        "ruleset": compact_rules(t.ruleset),
        "rounds_planned": t.rounds,
        "entry_fee_cents": t.entry_fee_cents,
        "fee_schedule": t.fee_schedule,
        "tie_break": t.tie_break,
        "seed": t.seed,
        "public_url": t.public_url,
        "keep_kind": t.keep_kind,
        "keep_value": t.keep_value,
        "lost_money_to_fund": t.lost_money_to_fund,
        "prize_mode": t.prize_mode,
        "prize_shares": list(t.prize_shares or []),
        "prize_items": list(t.prize_items or []),
        "joke_prize": t.joke_prize,
        "online": None if online is None else {"address": online.address, "key": online.key},
        "created_at": _time(t.created_at),
        "updated_at": _time(t.updated_at),
        "entrants": [
            {
                "name": e.name,
                "club": e.club,
                "household": e.household,
                "number": e.number,
                "from_round": e.from_round,
                "withdrawn_before": e.withdrawn_before,
                "paid_cents": e.paid_cents,
                "paid_at": _time(e.paid_at),
                "created_at": _time(e.created_at),
                "series_player": None
                if series_index is None or e.series_player_id is None
                else series_index.get(e.series_player_id),
            }
            for e in t.entrants
        ],
        "rounds": [
            {
                "number": row.number,
                "seed": row.seed,
                "attempt": row.attempt,
                "drawn_at": _time(row.drawn_at),
                "closed_at": _time(row.closed_at),
                "tables": [
                    {
                        "number": table.number,
                        "players": [numbers.get(p) for p in table.players],
                        "link_number": table.link_number,
                        "retired_links": [
                            {
                                "token": link.token,
                                "link_number": link.link_number,
                                "retired_at": _time(link.retired_at),
                            }
                            for link in retired.get(table.match_id, [])
                        ],
                        "done_at": _time(table.done_at),
                        "paper": _slip(table.paper, numbers),
                        "paper_log": None
                        if table.paper_log is None
                        else [
                            {
                                "at": entry.get("at"),
                                "before": _slip(entry.get("before"), numbers),
                                "after": _slip(entry.get("after"), numbers),
                            }
                            for entry in table.paper_log
                        ],
                        "confirmations": [
                            {"player": numbers.get(c.entrant_id), "at": _time(c.created_at)}
                            for c in table.confirmations
                        ],
                        "match": matches[table.match_id],
                    }
                    for table in row.tables
                ],
            }
            for row in t.round_rows
        ],
    }


# -- restore --------------------------------------------------------------------------------


def _list(value: Any, key: str) -> list[Any]:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, list) else []


def count_hands(evenings: list[Any]) -> None:
    """Refuse a file with more hands than one import takes, before anything is checked."""
    total = 0
    for evening in evenings:
        for row in _list(evening, "rounds"):
            for table in _list(row, "tables"):
                match = table.get("match") if isinstance(table, dict) else None
                total += len(_list(match, "hands"))
    if total > MAX_FILE_HANDS:
        raise BackupError(
            _(
                "This file has %(count)s hands; one import takes at most %(limit)s.",
                count=total,
                limit=MAX_FILE_HANDS,
            )
        )


@dataclass(frozen=True)
class Restored:
    """What a file restored: a tournament, or a series with its evenings (``tournament``:
    the evening the file was downloaded for, if it names one).

    ``copy``: the file's links were in use here, so everything got new ones.  ``stand``:
    the file's time; ``held``: what the tournament (or the series' last evening) held —
    its last round and its deals.  ``online``: tournaments that connect anew to their
    hosted copies.
    """

    tournament: Tournament | None
    series: Series | None
    copy: bool
    stand: datetime | None = None
    held: Contents | None = None
    online: int = 0


_ONLINE_ADDRESS = re.compile(r"https?://[^\s#?/]+(?:/[^\s#?]*)?/online/[0-9]{1,12}")
_ONLINE_KEY = re.compile(r"[0-9a-f]{64}")


def _online(body: Any, where: Any) -> tuple[str, str] | None:
    """A tournament's online connection in the file (the hosted page's address and key, as
    its connection line has them), checked; None: none."""
    value = body.get("online") if isinstance(body, dict) else None
    if value is None:
        return None
    address = value.get("address") if isinstance(value, dict) else None
    key = value.get("key") if isinstance(value, dict) else None
    if (
        not isinstance(address, str)
        or len(address) > 300
        or not _ONLINE_ADDRESS.fullmatch(address)
        or not isinstance(key, str)
        or not _ONLINE_KEY.fullmatch(key)
    ):
        raise BackupError(
            _(
                "%(where)s: the online connection is not a hosted page's address and key",
                where=_("%(where)s, online", where=where),
            )
        )
    return address, key


def _stand(data: dict[str, Any]) -> datetime | None:
    value = data.get("exported_at")
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return moment.replace(tzinfo=None) if moment is not None else None


def restore(raw: bytes | str) -> Restored:
    """Restore a tournament or a series file: all of it, or nothing.

    Raises :class:`BackupError` with a message in the user's language (where
    in the file, and what is wrong) before anything is written;
    :class:`~scorer.services.errors.ConflictError` only if concurrent restores
    keep taking the file's links, which no pair of uploads can cause, or if
    this one stood still so long that another took its parts for a dead
    restore's (:data:`~scorer.services.tournaments.restoring.STALE`).
    """
    data = parse(raw, (*FORMATS, MATCH_FORMAT))
    if data.get("format") == MATCH_FORMAT:
        raise BackupError(
            _(
                "This is a backup of matches, not of a tournament: import it on the page "
                "“Import a backup”."
            )
        )
    kind = "series" if data.get("format") == SERIES_FORMAT else "tournament"
    body = data.get(kind)
    count_hands(_list(body, "evenings")[:MAX_EVENINGS] if kind == "series" else [body])
    restoring.discard_stale()
    # built and checked outside the database session: nothing is written until all is
    loader = Loader()
    series, tournament = None, None
    try:
        if kind == "series":
            series = loader.series(body)
            evenings = list(series.tournaments)
            bodies = _list(body, "evenings")
        else:
            tournament = loader.tournament(body, _("tournament"))
            evenings = [tournament]
            bodies = [body]
    finally:
        db.session.rollback()  # the reads' transaction (PostgreSQL) ends before the writes
    online = [_online(item, _("evening %(number)s", number=i)) for i, item in enumerate(bodies, 1)]
    focus = _focus(data, evenings) if kind == "series" else tournament
    stand = _stand(data)
    held = [loaded_contents(evening) for evening in evenings]
    for evening, contents in zip(evenings, held, strict=True):
        evening.restored = mark("file", stand, contents)
    copy = restoring.write(loader, series, evenings)
    connected = 0 if copy else _connect(evenings, online)
    found = None if focus is None else db.session.get(Tournament, focus.id)
    shown = held[evenings.index(focus)] if focus is not None else (held[-1] if held else None)
    return Restored(
        tournament=found,
        series=None if series is None else db.session.get(Series, series.id),
        copy=copy,
        stand=stand,
        held=shown,
        online=connected,
    )


def _focus(data: dict[str, Any], evenings: list[Tournament]) -> Tournament | None:
    """The evening a series file was downloaded for (its ``"evening"``), if it names one."""
    number = data.get("evening")
    if type(number) is int and 1 <= number <= len(evenings):
        return evenings[number - 1]
    if number is not None:
        raise BackupError(_("This file names an evening the series does not have."))
    return None


def _connect(evenings: list[Tournament], online: list[tuple[str, str] | None]) -> int:
    """Connect the restored tournaments to their hosted copies anew (committed): the
    pusher's next round starts a new generation there, and the old laptop is refused."""
    count = 0
    for evening, found in zip(evenings, online, strict=True):
        if found is not None:
            db.session.add(OnlineLink(tournament_id=evening.id, address=found[0], key=found[1]))
            count += 1
    if count:
        db.session.commit()
    return count
