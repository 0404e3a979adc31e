"""A tournament: created, found by its links, its ruleset per table size.

The organiser's link (``token``) may do everything; the public link
(``view_token``) only reads.  ``version`` counts the changes of the
tournament's own rows (players, rounds, tables), so the public pages' polls
know when to render again (the hands are counted by their matches' versions).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, TypeVar
from urllib.parse import urlsplit

from sqlalchemy import bindparam, select, update

from ...extensions import db
from ...models import utcnow
from ...rules import MAX_AMOUNT_CENTS, PRESETS, RulesError, Ruleset
from ...rules.tournament import (
    DEFAULT_SCHEDULE,
    Schedule,
    check_tournament_ruleset,
    table_ruleset,
)
from ...tournament_models import Round, Tournament
from ..errors import NotFound
from ..events import TournamentSettingsChanged
from ..starting import storable
from ..unit import LostRace, announce, use_case

MAX_TOURNAMENT_NAME = 80
MAX_PLACE = 80
Row = TypeVar("Row")

MAX_ENTRANTS = 3000
"""The most players one tournament registers (a region's championship in one hall)."""
MAX_ROUNDS = 12
"""The most rounds a tournament plays (three is usual; a long day has five or six)."""
MAX_ENTRY_FEE_CENTS = MAX_AMOUNT_CENTS
"""The highest entry fee (the rules' highest amount, 1000 €): more is a typing mistake."""
MAX_SCHEDULE = 60
MAX_PUBLIC_URL = 200

# http(s)://host[:port], nothing after it but a slash: the address the phones reach
_PUBLIC_URL = re.compile(
    r"https?://(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]{2,45}\])"
    r"(?::[0-9]{1,5})?/?",
    re.ASCII,
)

_TOURNAMENTS = Tournament.__table__
_BUMP = (
    update(_TOURNAMENTS)
    .where(_TOURNAMENTS.c.id == bindparam("tournament_id"))
    .where(_TOURNAMENTS.c.version == bindparam("read"))
    .values(version=_TOURNAMENTS.c.version + 1, updated_at=bindparam("now"))
)


def default_ruleset() -> Ruleset:
    """A tournament's ruleset before the organiser changes it: preset ``turnier``."""
    return PRESETS["turnier"]


def ruleset_of(tournament: Tournament) -> Ruleset:
    """The tournament's ruleset (of a table of three)."""
    return Ruleset.from_dict(tournament.ruleset)


def schedule_of(tournament: Tournament) -> Schedule:
    """The tournament's lost-game schedule, read once per loaded value of its column (the
    money of hundreds of players is priced on one :class:`~scorer.rules.tournament.Schedule`)."""
    stored = tournament.fee_schedule
    memo = tournament.__dict__.get("_schedule_memo")
    if memo is not None and memo[0] == stored:
        return memo[1]
    schedule = Schedule.parse(stored)
    tournament.__dict__["_schedule_memo"] = (stored, schedule)
    return schedule


def table_ruleset_of(tournament: Tournament, size: int) -> Ruleset:
    """The ruleset a table of ``size`` plays (the rules: ``table_ruleset``)."""
    return table_ruleset(ruleset_of(tournament), size)


def check_ruleset(ruleset: Ruleset) -> Ruleset:
    """A ruleset a tournament can play (the rules: ``check_tournament_ruleset``)."""
    return check_tournament_ruleset(ruleset)


def check_fee_schedule(schedule: str | Schedule) -> str:
    """The lost-game schedule as stored; RulesError when the rules cannot read it.

    The rules read both languages ("0,50; 1,00 ab 5" and "0.50; 1.00 from 5");
    it is kept in the English syntax (``Schedule.write``), so that every backup
    and every earlier release reads it; the pages show it in the user's language.
    """
    text = " ".join(str(schedule).split())
    if len(text) > MAX_SCHEDULE:
        raise RulesError(
            "the lost-game schedule is longer than {most} characters", most=MAX_SCHEDULE
        )
    stored = str(Schedule.parse(text))
    if len(stored) > MAX_SCHEDULE:
        raise RulesError(
            "the lost-game schedule is longer than {most} characters", most=MAX_SCHEDULE
        )
    return stored


def check_public_url(url: str) -> str:
    """The address the phones reach, as ``http(s)://host[:port]`` without a trailing slash.

    Empty is allowed (the app's own or the request's address is used then).

    >>> check_public_url(" http://192.168.4.1:5000/ ")
    'http://192.168.4.1:5000'
    """
    text = str(url).strip()
    if not text:
        return ""
    ok = len(text) <= MAX_PUBLIC_URL and _PUBLIC_URL.fullmatch(text) is not None
    if ok:
        try:
            port = urlsplit(text).port  # ValueError beyond 65535
        except ValueError:
            ok = False
        else:
            ok = port is None or port > 0
    if not ok:
        raise RulesError(
            "'{url}' is not an address the phones can open: write http:// or https://, the "
            "name or number of the machine and, if needed, a colon and the port, e.g. "
            "http://192.168.4.1:5000",
            url=text[:MAX_PUBLIC_URL],
        )
    return text.rstrip("/")


def check_held_on(held_on: str) -> str:
    """The date as ``YYYY-MM-DD`` (empty: no date); RulesError for anything else."""
    text = str(held_on).strip()
    if not text:
        return ""
    try:
        day = date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        day = None
    if day is None or not 2000 <= day.year <= 2100:
        raise RulesError("'{day}' is not a date (year-month-day)", day=text[:20])
    return day.isoformat()


def check_entry_fee(cents: int) -> int:
    """The entry fee in cents, 0 to 1000 €."""
    if (
        isinstance(cents, bool)
        or not isinstance(cents, int)
        or not 0 <= cents <= MAX_ENTRY_FEE_CENTS
    ):
        raise RulesError(
            "the entry fee must be between 0 and {most} €", most=MAX_AMOUNT_CENTS // 100
        )
    return cents


def tournament_name(value: str) -> str:
    """A tournament's name as stored (spaces folded, cut to its length), or RulesError."""
    name = " ".join(str(value).split())
    if not storable(name):
        raise RulesError("the tournament's name holds control characters")
    if not name:
        raise RulesError("a tournament needs a name")
    return name[:MAX_TOURNAMENT_NAME]


def _place(value: str) -> str:
    place = " ".join(str(value).split())
    if not storable(place):
        raise RulesError("the place holds control characters")
    return place[:MAX_PLACE]


@use_case
def create_tournament(
    *,
    name: str,
    held_on: str = "",
    place: str = "",
    ruleset: Ruleset | None = None,
    rounds: int = 3,
    entry_fee_cents: int = 0,
    fee_schedule: str | Schedule = DEFAULT_SCHEDULE,
    tie_break: bool = False,
    public_url: str = "",
    idempotency_key: str | None = None,
) -> Tournament:
    """A new tournament, committed.  The same form sent twice (its key) makes one."""
    if idempotency_key:
        existing = db.session.execute(
            select(Tournament).where(Tournament.idempotency_key == idempotency_key)
        ).scalar_one_or_none()
        if existing is not None:
            return existing
    name = tournament_name(name)
    if not 1 <= rounds <= MAX_ROUNDS:
        raise RulesError("a tournament plays 1 to {most} rounds", most=MAX_ROUNDS)
    tournament = Tournament(
        name=name,
        held_on=check_held_on(held_on),
        place=_place(place),
        ruleset=check_ruleset(ruleset or default_ruleset()).to_dict(),
        rounds=rounds,
        entry_fee_cents=check_entry_fee(entry_fee_cents),
        fee_schedule=check_fee_schedule(fee_schedule),
        tie_break=bool(tie_break),
        public_url=check_public_url(public_url),
        idempotency_key=idempotency_key or None,
    )
    db.session.add(tournament)
    # the same form's twin committed first: its key is taken (an IntegrityError), and the
    # unit of work runs this again, which finds the twin's tournament above
    db.session.flush()
    return tournament


def get_tournament(token: str) -> Tournament:
    """The tournament behind an organiser link, or :class:`NotFound`."""
    return by_link(Tournament, Tournament.token, token)


def get_tournament_for_view(view_token: str) -> Tournament:
    """The tournament behind a public link, or :class:`NotFound`."""
    return by_link(Tournament, Tournament.view_token, view_token)


def by_link(model: type[Row], column: Any, token: str) -> Row:
    """The row of ``model`` (a tournament, a series) whose link ``column`` is ``token``,
    or :class:`NotFound`."""
    found = db.session.execute(select(model).where(column == token)).scalar_one_or_none()
    if found is None:
        raise NotFound()
    return found


def bump(tournament: Tournament) -> None:
    """Count a change of the tournament's rows (no commit): the public pages render again.

    Guarded like a match's ``touch``: the UPDATE finds the row only at the version this
    request read, so of two organiser writes that read the same tournament (a withdrawal
    and the draw of the next round, two check-ins) the later one gets ``LostRace`` and
    its use case runs again on what the first one wrote.
    """
    read = tournament.version
    now = utcnow()
    done = db.session.execute(_BUMP, {"tournament_id": tournament.id, "read": read, "now": now})
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise LostRace()
    db.session.expire(tournament, ["version", "updated_at"])


def current_round(tournament: Tournament) -> Round | None:
    """The last round drawn, or None before the first draw."""
    return tournament.round_rows[-1] if tournament.round_rows else None


def started(tournament: Tournament) -> bool:
    """True once a round has been drawn: the rules may no longer change."""
    return bool(tournament.round_rows)


@use_case
def update_settings(tournament: Tournament, changes: Mapping[str, Any]) -> None:
    """Change name, place, date, rounds, fees or the ruleset; the ruleset only before round 1.

    ``changes`` may hold ``ruleset`` (a :class:`Ruleset`) and the plain columns.
    Everything is checked before anything changes: a refusal leaves the row as it was.
    """
    values: dict[str, Any] = {}
    if "ruleset" in changes:
        ruleset = changes["ruleset"]
        if started(tournament) and ruleset.to_dict() != tournament.ruleset:
            kept = ruleset_of(tournament).deals
            if ruleset.deals != kept:
                raise RulesError(
                    "the deals per round cannot change once the first round is drawn: "
                    "they stay {deals}",
                    deals=kept,
                )
            raise RulesError("the rules cannot change once the first round is drawn")
        values["ruleset"] = check_ruleset(ruleset).to_dict()
    if "name" in changes:
        values["name"] = tournament_name(changes["name"])
    if "place" in changes:
        values["place"] = _place(changes["place"])
    if "held_on" in changes:
        values["held_on"] = check_held_on(str(changes["held_on"]))
    if "fee_schedule" in changes:
        values["fee_schedule"] = check_fee_schedule(str(changes["fee_schedule"]))
    if "public_url" in changes:
        values["public_url"] = check_public_url(str(changes["public_url"]))
    if "entry_fee_cents" in changes:
        values["entry_fee_cents"] = check_entry_fee(changes["entry_fee_cents"])
    if "tie_break" in changes:
        values["tie_break"] = bool(changes["tie_break"])
    if "rounds" in changes:
        rounds = changes["rounds"]
        low = max(1, len(tournament.round_rows))
        if (
            isinstance(rounds, bool)
            or not isinstance(rounds, int)
            or not low <= rounds <= MAX_ROUNDS
        ):
            raise RulesError("a tournament plays {low} to {most} rounds", low=low, most=MAX_ROUNDS)
        values["rounds"] = rounds
    for key, value in values.items():
        setattr(tournament, key, value)
    bump(tournament)
    announce(TournamentSettingsChanged(tournament.id))


def recent_tournaments(tokens: Sequence[str], limit: int = 12) -> list[Tournament]:
    """The tournaments this device organises (their organiser links), newest change first."""
    wanted = [t for t in tokens if isinstance(t, str)][:50]
    if not wanted:
        return []
    return list(
        db.session.execute(
            select(Tournament)
            .where(Tournament.token.in_(wanted))
            .order_by(Tournament.updated_at.desc())
            .limit(limit)
        ).scalars()
    )
