"""The hall's side: where a tournament goes online, and pushing its public side there.

The organiser carries the hosted page's connection line to the hall
(:func:`link`).  From then on the hall's pusher (``scorer.online_push``, a
process of its own: a push never holds a phone's request or the beamer's)
calls :func:`push` every few seconds: whenever the public side shows something
new, it connects if it has not (a new generation at the hosted copy) and sends
the newest state whole, signed, numbered one more than the last.  Every request
goes out between two units of work, never inside one: the number is reserved
and committed first, the answer recorded in another unit after (a unit run
again after a lost race never sends twice, and no transaction waits for the
network).  A push the
hosted copy did not confirm (no reception, a cut, a restart) is simply sent again
with the next state — there is nothing to resume but the newest.  When another
hall has connected since (a new laptop on the night), this one stops and says so.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select

from ...extensions import db
from ...hall_models import HallState
from ...models import utcnow
from ...online_models import OnlineLink
from ...tournament_models import Tournament
from .. import trouble
from ..tournaments.money import prize_list
from ..tournaments.public_state import Built, build
from ..tournaments.series import series_standings
from ..unit import use_case
from ..wire import Answer, Post, Unreachable, post
from .document import content_digest, document, dumps
from .signing import body_hash, parse_line, signature

USER_AGENT = "scorer-hall"


@use_case
def link(tournament: Tournament, line: str) -> OnlineLink:
    """Put ``tournament`` online at the hosted page of ``line`` (replacing an earlier link)."""
    connection = parse_line(line)
    found = db.session.get(OnlineLink, tournament.id)
    if found is None:
        found = OnlineLink(tournament_id=tournament.id)
        db.session.add(found)
    found.address, found.key = connection.address, connection.key
    found.hall = secrets.token_urlsafe(16)
    found.generation = None
    found.seq = found.confirmed = 0
    found.confirmed_digest = found.error = ""
    found.confirmed_at = found.tried_at = None
    db.session.flush()
    return found


@use_case
def unlink(tournament: Tournament) -> None:
    """Push no more (the hosted page keeps what it showed until it is taken down there)."""
    found = db.session.get(OnlineLink, tournament.id)
    if found is not None:
        db.session.delete(found)


def link_of(tournament: Tournament) -> OnlineLink | None:
    return db.session.get(OnlineLink, tournament.id)


def links_of(tournament_ids: Sequence[int]) -> dict[int, OnlineLink]:
    """The links of the tournaments ``tournament_ids`` that are online, by tournament (one
    query: the organiser's list of tournaments says which are online and how it goes)."""
    if not tournament_ids:
        return {}
    rows = db.session.execute(
        select(OnlineLink).where(OnlineLink.tournament_id.in_(list(tournament_ids)))
    ).scalars()
    return {row.tournament_id: row for row in rows}


# -- pushing ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sending:
    """What one request to the hosted copy needs, read from the link row before it is sent
    (no row and no transaction is held while it travels)."""

    tournament: int
    address: str
    key: str
    hall: str
    generation: int | None
    seq: int

    @property
    def page(self) -> int:
        return int(self.address.rsplit("/", 1)[-1])


def _sending(row: OnlineLink) -> Sending:
    return Sending(row.tournament_id, row.address, row.key, row.hall, row.generation, row.seq)


def _connect(sending: Sending, post: Post) -> Sending:
    """Connect (a new generation at the hosted copy), posted outside any unit of work, the
    answer recorded in one; the link as it stands then.  Unreachable when refused."""
    body = json.dumps({"hall": sending.hall, "nonce": secrets.token_hex(16)}).encode()
    sent = {
        # (not application/json: the app takes no JSON body on any POST route)
        "Content-Type": "application/octet-stream",
        "User-Agent": USER_AGENT,
        "X-Scorer-Signature": signature(sending.key, "connect", sending.page, body_hash(body)),
    }
    answer = post(f"{sending.address}/connect", body, sent)
    if answer.status != 200 or not isinstance(answer.body.get("generation"), int):
        raise Unreachable(trouble.http_reason(answer.status if answer.status != 200 else 502))
    return _connected(sending, answer.body["generation"], int(answer.body.get("seq") or 0))


@use_case
def _connected(sending: Sending, generation: int, seq: int) -> Sending:
    """The hosted copy's new generation kept in the link (the one of ``sending``: a link
    made again meanwhile, with a new hall id, is left alone)."""
    row = db.session.get(OnlineLink, sending.tournament)
    if row is None or row.hall != sending.hall:
        raise Unreachable(trouble.OTHER)  # the link was changed meanwhile (never stored)
    row.generation, row.seq = generation, seq
    return _sending(row)


@use_case
def _reserve(sending: Sending) -> Sending:
    """The next number, used up whether the push is answered or not (a retry of this unit
    reserves again: nothing has been sent yet)."""
    row = db.session.get(OnlineLink, sending.tournament)
    if row is None or row.hall != sending.hall:
        raise Unreachable(trouble.OTHER)  # the link was changed meanwhile (never stored)
    row.tried_at = utcnow()
    row.seq = row.seq + 1
    return _sending(row)


@use_case
def _record(sending: Sending, digest: str, answer: Answer | None, error: str = "") -> str:
    """What the hosted copy answered to push ``sending.seq`` (``answer`` None: no answer,
    ``error`` is why, a reason code of :mod:`.trouble`), kept in the link; the push's
    outcome."""
    row = db.session.get(OnlineLink, sending.tournament)
    if row is None or row.hall != sending.hall:
        return "stopped"
    row.tried_at = utcnow()
    if answer is None:
        row.error = error[:300] or trouble.OTHER
        return "unreachable"
    if answer.status == 200:
        row.confirmed, row.confirmed_digest, row.confirmed_at = sending.seq, digest, utcnow()
        row.error = ""
        return "sent"
    if answer.status == 409 and answer.body.get("generation") != row.generation:
        row.error = trouble.TAKEN_OVER  # another hall pushes to this page now: this one stops
        return "stopped"
    if answer.status == 409:
        row.seq = max(row.seq, int(answer.body.get("seq") or 0))  # newer than ours: go past it
    row.error = trouble.http_reason(answer.status)
    return "refused"


@dataclass
class Pusher:
    """The pusher's memory between rounds: the last build per tournament (to go on from)."""

    zone: str = "Europe/Berlin"
    post: Post = post
    built: dict[int, Built] | None = None

    def push(self, row: OnlineLink) -> str:
        """One round for one linked tournament: "sent", "same" (nothing new), "stopped",
        or "unreachable"; the link row says how far it got (committed)."""
        self.built = self.built if self.built is not None else {}
        tournament = db.session.get(Tournament, row.tournament_id)
        if tournament is None:
            return "stopped"
        made = build(tournament.id, self.built.get(tournament.id))
        if made is None:
            return "stopped"
        self.built[tournament.id] = made
        series = tournament.series
        doc = document(
            made.standings,
            prize_list(tournament, made.standings),
            series_standings(series) if series is not None else None,
            utcnow(),
            self.zone,
        )
        digest = content_digest(doc)
        if digest == row.confirmed_digest and row.generation is not None:
            return "same"
        return _send(row, dumps(doc), digest, self.post)


def _send(row: OnlineLink, body: bytes, digest: str, post: Post) -> str:
    """Send ``body`` to the hosted copy: each request outside any unit of work, between two
    units — the number reserved before, the answer recorded after — so that a unit run
    again after a lost race never sends twice, and no transaction waits for the network."""
    sending = _sending(row)
    db.session.rollback()  # the reads' transaction ends: none is held while the push travels
    try:
        if sending.generation is None:
            sending = _connect(sending, post)
        sending = _reserve(sending)
        headers = {
            "Content-Type": "application/octet-stream",
            "User-Agent": USER_AGENT,
            "X-Scorer-Generation": str(sending.generation),
            "X-Scorer-Seq": str(sending.seq),
            "X-Scorer-Signature": signature(
                sending.key,
                "push",
                sending.page,
                sending.generation,
                sending.seq,
                body_hash(body),
            ),
        }
        answer = post(f"{sending.address}/push", body, headers)
    except Unreachable as error:
        return _record(sending, digest, None, error.reason)
    return _record(sending, digest, answer)


def links() -> list[OnlineLink]:
    """Every tournament this hall pushes, but those another hall has taken over (none on a
    laptop that is not the hall: a spare holds the hall's links, and must not connect)."""
    role = db.session.execute(select(HallState.role).where(HallState.id == 1)).scalar()
    if role not in (None, "hall"):
        return []
    rows = db.session.execute(select(OnlineLink).where(OnlineLink.error != trouble.TAKEN_OVER))
    return list(rows.scalars())
