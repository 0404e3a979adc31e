"""A tournament: created, found by its links, its ruleset per table size.

The organiser's link (``token``) may do everything; the public link
(``view_token``) only reads.  ``version`` counts the changes of the
tournament's own rows (players, rounds, tables), so the public pages' polls
know when to render again (the hands are counted by their matches' versions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.exc import IntegrityError

from ...extensions import db
from ...models import utcnow
from ...rules import PRESETS, RulesError, Ruleset
from ...rules.tournament import table_ruleset
from ...tournament_models import Round, Tournament
from ..errors import ConflictError, NotFound
from ..starting import storable

MAX_TOURNAMENT_NAME = 80
MAX_PLACE = 80
MAX_ROUNDS = 12
"""The most rounds a tournament plays (three is usual; a long day has five or six)."""

_TOURNAMENTS = Tournament.__table__
_BUMP = (
    update(_TOURNAMENTS)
    .where(_TOURNAMENTS.c.id == bindparam("tournament_id"))
    .values(version=_TOURNAMENTS.c.version + 1, updated_at=bindparam("now"))
)


def default_ruleset() -> Ruleset:
    """A tournament's ruleset before the organiser changes it: preset ``turnier``."""
    return PRESETS["turnier"]


def ruleset_of(tournament: Tournament) -> Ruleset:
    """The tournament's ruleset (of a table of three)."""
    return Ruleset.from_dict(tournament.ruleset)


def table_ruleset_of(tournament: Tournament, size: int) -> Ruleset:
    """The ruleset a table of ``size`` plays (the rules: ``table_ruleset``)."""
    return table_ruleset(ruleset_of(tournament), size)


def check_ruleset(ruleset: Ruleset) -> Ruleset:
    """A ruleset a tournament can play: three players each, fixed deals, a multiple of 3."""
    if ruleset.players != 3 or ruleset.team_size != 1 or ruleset.open_play:
        raise RulesError("a tournament is played at tables of three, each for themselves")
    if ruleset.end != "deals":
        raise RulesError("a tournament round is a fixed number of deals")
    table_ruleset(ruleset, 4)  # the deals must suit a table of four too
    return ruleset


def _text(value: str, limit: int, what: str) -> str:
    text = " ".join(value.split())
    if not storable(text):
        raise RulesError("{what} holds characters that cannot be stored", what=what)
    return text[:limit]


def create_tournament(
    *,
    name: str,
    held_on: str = "",
    place: str = "",
    ruleset: Ruleset | None = None,
    rounds: int = 3,
    entry_fee_cents: int = 0,
    fee_schedule: str = "0.50; 1.00 from 5",
    tie_break: bool = True,
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
    name = _text(name, MAX_TOURNAMENT_NAME, "the name")
    if not name:
        raise RulesError("a tournament needs a name")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise RulesError("a tournament plays 1 to {most} rounds", most=MAX_ROUNDS)
    tournament = Tournament(
        name=name,
        held_on=held_on[:10],
        place=_text(place, MAX_PLACE, "the place"),
        ruleset=check_ruleset(ruleset or default_ruleset()).to_dict(),
        rounds=rounds,
        entry_fee_cents=entry_fee_cents,
        fee_schedule=fee_schedule,
        tie_break=tie_break,
        public_url=public_url,
        idempotency_key=idempotency_key or None,
    )
    db.session.add(tournament)
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        again = db.session.execute(
            select(Tournament).where(Tournament.idempotency_key == idempotency_key)
        ).scalar_one_or_none()
        if again is None:
            raise ConflictError() from None
        return again
    return tournament


def get_tournament(token: str) -> Tournament:
    """The tournament behind an organiser link, or :class:`NotFound`."""
    return _by(Tournament.token, token)


def get_tournament_for_view(view_token: str) -> Tournament:
    """The tournament behind a public link, or :class:`NotFound`."""
    return _by(Tournament.view_token, view_token)


def _by(column: Any, token: str) -> Tournament:
    found = db.session.execute(select(Tournament).where(column == token)).scalar_one_or_none()
    if found is None:
        raise NotFound()
    return found


def bump(tournament: Tournament) -> None:
    """Count a change of the tournament's rows (no commit): the public pages render again."""
    now = utcnow()
    db.session.execute(_BUMP, {"tournament_id": tournament.id, "now": now})
    db.session.expire(tournament, ["version", "updated_at"])


def current_round(tournament: Tournament) -> Round | None:
    """The last round drawn, or None before the first draw."""
    return tournament.round_rows[-1] if tournament.round_rows else None


def started(tournament: Tournament) -> bool:
    """True once a round has been drawn: the rules may no longer change."""
    return bool(tournament.round_rows)


def update_settings(tournament: Tournament, changes: Mapping[str, Any]) -> None:
    """Change name, place, date, rounds, fees or the ruleset; the ruleset only before round 1.

    ``changes`` may hold ``ruleset`` (a :class:`Ruleset`) and the plain columns.
    """
    if "ruleset" in changes:
        ruleset = changes["ruleset"]
        if started(tournament) and ruleset.to_dict() != tournament.ruleset:
            raise RulesError("the rules cannot change once the first round is drawn")
        tournament.ruleset = check_ruleset(ruleset).to_dict()
    for key in ("held_on", "fee_schedule", "public_url"):
        if key in changes:
            setattr(tournament, key, str(changes[key]))
    if "name" in changes:
        name = _text(str(changes["name"]), MAX_TOURNAMENT_NAME, "the name")
        if not name:
            raise RulesError("a tournament needs a name")
        tournament.name = name
    if "place" in changes:
        tournament.place = _text(str(changes["place"]), MAX_PLACE, "the place")
    if "rounds" in changes:
        rounds = int(changes["rounds"])
        if not max(1, len(tournament.round_rows)) <= rounds <= MAX_ROUNDS:
            raise RulesError(
                "a tournament plays {low} to {most} rounds",
                low=max(1, len(tournament.round_rows)),
                most=MAX_ROUNDS,
            )
        tournament.rounds = rounds
    for key in ("entry_fee_cents", "tie_break"):
        if key in changes:
            setattr(tournament, key, changes[key])
    bump(tournament)
    db.session.commit()
