"""The hall's side: where a tournament goes online, and pushing its public side there.

The organiser carries the hosted page's connection line to the hall
(:func:`link`).  From then on the hall's pusher (``scorer.online_push``, a
process of its own: a push never holds a phone's request or the beamer's)
calls :func:`push` every few seconds: whenever the public side shows something
new, it connects if it has not (a new generation at the hosted copy) and sends
the newest state whole, signed, numbered one more than the last.  A push the
hosted copy did not confirm (no reception, a cut, a restart) is simply sent again
with the next state — there is nothing to resume but the newest.  When another
hall has connected since (a new laptop on the night), this one stops and says so.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

from sqlalchemy import select

from ...extensions import db
from ...hall_models import HallState
from ...models import utcnow
from ...online_models import OnlineLink
from ...tournament_models import Tournament
from ..tournaments.money import prize_list
from ..tournaments.public_state import Built, build
from ..tournaments.series import series_standings
from ..unit import use_case
from ..wire import Post, Unreachable, post
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


# -- pushing ----------------------------------------------------------------------------


def _connect(row: OnlineLink, post: Post) -> None:
    body = json.dumps({"hall": row.hall, "nonce": secrets.token_hex(16)}).encode()
    page = int(row.address.rsplit("/", 1)[-1])
    sent = {
        # (not application/json: the app takes no JSON body on any POST route)
        "Content-Type": "application/octet-stream",
        "User-Agent": USER_AGENT,
        "X-Scorer-Signature": signature(row.key, "connect", page, body_hash(body)),
    }
    answer = post(f"{row.address}/connect", body, sent)
    if answer.status != 200 or not isinstance(answer.body.get("generation"), int):
        raise Unreachable(f"connect: {answer.status} {answer.body.get('why', '')}"[:200])
    row.generation = answer.body["generation"]
    row.seq = int(answer.body.get("seq") or 0)


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


@use_case
def _send(row: OnlineLink, body: bytes, digest: str, post: Post) -> str:
    row.tried_at = utcnow()
    try:
        if row.generation is None:
            _connect(row, post)
        seq = row.seq = row.seq + 1  # used up once sent, answered or not
        page = int(row.address.rsplit("/", 1)[-1])
        sent = {
            "Content-Type": "application/octet-stream",
            "User-Agent": USER_AGENT,
            "X-Scorer-Generation": str(row.generation),
            "X-Scorer-Seq": str(seq),
            "X-Scorer-Signature": signature(
                row.key, "push", page, row.generation, seq, body_hash(body)
            ),
        }
        answer = post(f"{row.address}/push", body, sent)
    except Unreachable as error:
        row.error = str(error)[:300] or "unreachable"
        return "unreachable"
    if answer.status == 200:
        row.confirmed, row.confirmed_digest, row.confirmed_at = seq, digest, utcnow()
        row.error = ""
        return "sent"
    why = str(answer.body.get("why", ""))[:200]
    if answer.status == 409 and answer.body.get("generation") != row.generation:
        row.error = "taken over"  # another hall pushes to this page now: this one stops
        return "stopped"
    if answer.status == 409:
        row.seq = max(row.seq, int(answer.body.get("seq") or 0))  # newer than ours: go past it
    row.error = f"{answer.status} {why}"[:300]
    return "refused"


def links() -> list[OnlineLink]:
    """Every tournament this hall pushes, but those another hall has taken over (none on a
    laptop that is not the hall: a spare holds the hall's links, and must not connect)."""
    role = db.session.execute(select(HallState.role).where(HallState.id == 1)).scalar()
    if role not in (None, "hall"):
        return []
    rows = db.session.execute(select(OnlineLink).where(OnlineLink.error != "taken over"))
    return list(rows.scalars())
