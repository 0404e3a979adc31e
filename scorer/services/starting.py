"""Starting a match: the table, the names as stored, a new session or the next match.

A setup form sent twice starts one session (its idempotency key); two requests
for the next match make one match (the match numbers of a session are unique).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from ..extensions import db
from ..models import GameSession, Match, Player, Seat, utcnow
from ..rules import RulesError, Ruleset, first_dealer_of_next, party_of_seat
from .errors import KeyReusedError
from .sheets import ruleset_of, standing
from .unit import use_case

MAX_NAME = 40
MAX_TITLE = 80
MAX_SESSION_HANDS = 1000
"""Hands of one session, over all its matches, that a backup file takes."""
NEW_MATCH_BELOW = MAX_SESSION_HANDS // 2
"""A session starts another match only while it holds fewer hands than this (500), so
that the session, its last match played out, stays under the hands a backup import takes
(a storage limit, not a rule of the game)."""
# control characters (PostgreSQL refuses NUL in text, the others are no part of a name)
# and lone surrogates (not encodable as UTF-8); tab, line feed and carriage return are
# allowed where free text may hold them (a backup's history)
_UNSTORABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_UNSTORABLE_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def storable(text: str, *, line_breaks: bool = False) -> bool:
    """True when ``text`` holds no control character and no lone surrogate.

    ``line_breaks`` lets tab, line feed and carriage return pass.

    >>> storable("Anna Maria"), storable("An\\x00na"), storable("Anna\\t")
    (True, False, False)
    >>> storable("Anna\\t", line_breaks=True), storable("\\ud800", line_breaks=True)
    (True, False)
    """
    return (_UNSTORABLE_TEXT if line_breaks else _UNSTORABLE).search(text) is None


def clean_name(name: str) -> str:
    """A player's name as stored: trimmed, inner spaces folded."""
    return " ".join(name.split())[:MAX_NAME]


def default_parties(ruleset: Ruleset, seats: int) -> list[int]:
    """The party of every seat: partners sit opposite."""
    return [party_of_seat(ruleset, seat) for seat in range(seats)]


@use_case
def start_match(
    *,
    names: Sequence[str],
    ruleset: Ruleset,
    title: str = "",
    parties: Sequence[int] | None = None,
    first_dealer: int = 0,
    stake_cents: int = 0,
    stake_basis: str = "full",
    session: GameSession | None = None,
    idempotency_key: str | None = None,
    number: int | None = None,
) -> Match:
    """A new match (in a new session unless one is given), committed.

    Its ``number`` in the session is the one after the highest unless given (the
    next match of match N is number N + 1: see :func:`next_match`).

    A new session remembers ``idempotency_key`` (the setup form's): the same form
    sent again gets the match it started the first time, a form sent again with
    another table or other rules ``KeyReusedError``.  A request that loses a race
    with its twin for the key or for the match's number gets ``ConflictError``
    unless the key tells which match its twin made.
    """
    names = [clean_name(n) for n in names]
    if len(names) != ruleset.players:
        raise RulesError(
            "this ruleset is for {players} players, not {count}",
            players=ruleset.players,
            count=len(names),
        )
    if parties is None:
        parties = default_parties(ruleset, len(names))
    title = title.strip()[:MAX_TITLE]
    first_dealer %= len(names)
    wanted = (names, list(parties), ruleset, first_dealer, title, stake_cents, stake_basis)
    key = idempotency_key if session is None and idempotency_key else None
    if key is not None:
        started = _started_with(key, wanted)
        if started is not None:
            return started
    if session is None:
        session = GameSession(
            title=title,
            stake_cents=stake_cents,
            stake_basis=stake_basis,
            idempotency_key=key,
        )
        db.session.add(session)
    if number is None:
        number = max((m.number for m in session.matches), default=0) + 1
    match = Match(
        session=session,
        number=number,
        ruleset=ruleset.to_dict(),
        first_dealer=first_dealer,
    )
    for position, (name, party) in enumerate(zip(names, parties, strict=True)):
        match.seats.append(Seat(position=position, party=party, name=name))
    session.updated_at = utcnow()
    db.session.add(match)
    # its query flushes the new rows: a twin request that committed the same key or the
    # same match number first makes it an IntegrityError, and the unit of work runs this
    # again (the key then finds the twin's match)
    remember_players(names)
    return match


def _started_with(key: str, wanted: tuple[Any, ...]) -> Match | None:
    """The first match of the session the setup form with ``key`` started, or None.

    ``KeyReusedError`` when it was started with another table, other rules or stakes
    (the form came back, say by the back button, and was changed).
    """
    match = db.session.execute(
        select(Match)
        .join(GameSession, GameSession.id == Match.session_id)
        .where(GameSession.idempotency_key == key)
        .order_by(Match.number)
        .limit(1)
    ).scalar_one_or_none()
    if match is None:
        return None
    row = match.session
    started = (
        [s.name for s in match.seats],
        [s.party for s in match.seats],
        ruleset_of(match),
        match.first_dealer,
        row.title,
        row.stake_cents,
        row.stake_basis,
    )
    if started != wanted:
        raise KeyReusedError()
    return match


def _later_match(match: Match) -> Match | None:
    """The match after ``match`` in its session, if there is one."""
    return db.session.execute(
        select(Match)
        .where(Match.session_id == match.session_id, Match.number > match.number)
        .order_by(Match.number)
        .limit(1)
    ).scalar_one_or_none()


@use_case
def next_match(match: Match) -> Match:
    """The next match of the session with the same table and rules; the deal moves on.

    Asked again (a double tap, a second phone, two requests at once) it is the
    same match: it is numbered from ``match`` itself (N + 1, never "the highest
    number seen + 1", which a twin committing in between moves on), and the match
    numbers of a session are unique, so of two requests racing to make it the
    second one's insert fails in the database and it answers the first's match.
    """
    later = _later_match(match)
    if later is not None:
        return later
    if match.session.kind == "tournament":
        raise RulesError(
            "a tournament table plays one match a round; the organiser draws the next round"
        )
    held = sum(standing(m).hand_count for m in match.session.matches)
    if held >= NEW_MATCH_BELOW:
        raise RulesError(
            "this session holds {hands} hands; start a new session for the next match",
            hands=held,
        )
    names = [s.name for s in match.seats]
    parties = [s.party for s in match.seats]
    ruleset = ruleset_of(match)
    done = standing(match)
    # who deals the first hand: the rules decide (option first_dealer)
    first = first_dealer_of_next(ruleset, len(names), match.first_dealer, done.winners)
    # a twin that made match N + 1 first: the unit of work runs this again, and it is found
    return start_match(
        names=names,
        ruleset=ruleset,
        parties=parties,
        first_dealer=first,
        session=match.session,
        number=match.number + 1,
    )


def remember_players(names: Sequence[str]) -> None:
    """Offer these names again in the autocomplete (no commit)."""
    now = utcnow()
    existing = {
        p.name: p
        for p in db.session.execute(select(Player).where(Player.name.in_(list(names)))).scalars()
    }
    for name in names:
        if name in existing:
            existing[name].last_used_at = now
        else:
            player = Player(name=name, last_used_at=now)
            existing[name] = player
            db.session.add(player)
