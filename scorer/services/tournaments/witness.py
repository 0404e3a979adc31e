"""The table phones are the last witness: what this laptop holds of a table, and the deals a
phone keeps taken in again, each once, at the place it was played.

A table phone keeps every deal of its round it sent (``static/witness.js``): the hand
form's fields, the idempotency key it was sent with, and its place in the match (its
``seq``: the hand after hand ``seq - 1``).  It asks the laptop what it holds of the
table (:func:`held`: the keys of the table's hands, whether the round is closed); when
the laptop lacks deals the phone holds — after a takeover by a spare, after a restore
of an older backup — it sends them again, in order (:func:`resend`).

Decisions:

* **Each deal is stored once.**  The key is looked for first: a deal already here is
  answered as held, wherever it is (``save_hand``'s idempotency); the same key with
  another deal is refused (``KeyReusedError``), never stored twice.  The keys travel
  in the tournament's backup (``services.backup_format``), so a laptop restored
  from a file recognises the deals the file holds.
* **Only at its own place.**  A missing deal is stored only where it was played: right
  after the match's last hand, when that hand is the one before it
  (``save_hand(seq=...)``) — and when the phone kept the deal before it too, only when
  that is the hand there (another phone's deal 1 never takes the phone's deal 2).  So
  it is counted with the dealer it was played with, and the next draw is the one the
  old laptop would have made.  Another hand in its place (entered on this laptop
  meanwhile) or a hand missing before it (that no phone held) refuses it: the phone
  reports it and the organiser decides (:mod:`.phone_reports`).
* **A deal the phone saw struck** is stored struck (the same use case): a resend never
  brings back a hand the table took back.  A correction is the laptop's: the phone keeps
  what it entered, and a laptop that has the deal keeps its own version of it.
* **Until the round is closed.**  A closed round's table takes no deal from its phone
  (``LockedError``): what the laptop lacks then is reported, and the organiser takes it
  in (``via="organiser"`` passes the lock).  A phone whose deals are all here once the
  round is closed forgets them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy import bindparam, func, select

from ...extensions import db
from ...models import Hand, Match
from ...rules import RulesError
from ..errors import (
    ConflictError,
    KeyReusedError,
    LockedError,
    MatchOverError,
    OutOfPlaceError,
)
from ..hands import HandInput, delete_hand, save_hand
from ..unit import use_case

MAX_DEALS = 60
"""Deals one phone sends or reports at once: a round's table plays 12 to 16, and a phone
that also kept a few it could not send has room."""

_HANDS = Hand.__table__
_KEYED = (
    select(_HANDS.c.seq, _HANDS.c.idempotency_key, _HANDS.c.deleted_at)
    .where(_HANDS.c.match_id == bindparam("match_id"), _HANDS.c.idempotency_key.is_not(None))
    .order_by(_HANDS.c.seq)
)
# whether the key is here, and the key of the hand at a place (the one before a deal's)
_BEFORE = select(
    select(_HANDS.c.id)
    .where(_HANDS.c.match_id == bindparam("match_id"), _HANDS.c.idempotency_key == bindparam("key"))
    .scalar_subquery()
    .label("held"),
    select(func.coalesce(_HANDS.c.idempotency_key, ""))
    .where(_HANDS.c.match_id == bindparam("match_id"), _HANDS.c.seq == bindparam("seq"))
    .scalar_subquery()
    .label("before"),
)


@dataclass(frozen=True)
class Held:
    """What this laptop holds of a table: its version, whether it takes no more deals from
    its phone (the round closed), and the hands that came with a key: ``(seq, key, struck)``.
    """

    version: int
    closed: bool
    hands: tuple[tuple[int, str, bool], ...]

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(key for _seq, key, _struck in self.hands)


def held(match: Match) -> Held:
    """What the laptop holds of ``match`` (one statement besides the match's row)."""
    rows = db.session.connection().execute(_KEYED, {"match_id": match.id})
    return Held(
        version=match.version,
        closed=match.locked is not None,
        hands=tuple((seq, key, deleted is not None) for seq, key, deleted in rows),
    )


@dataclass(frozen=True)
class Deal:
    """A deal a phone kept: its key, its place (``seq``), what was entered, whether the
    phone last saw it struck, and the key of the deal the phone kept before it."""

    key: str
    seq: int
    entry: HandInput
    struck: bool = False
    after: str | None = None
    """The key of the phone's own deal before it (None: the phone has none there)."""


class Answer(StrEnum):
    """What became of one deal sent again."""

    STORED = "stored"
    """It was missing and is stored now, at its place."""
    HELD = "held"
    """The laptop has it already (its key)."""
    TAKEN = "taken"
    """Another hand is in its place."""
    BEFORE = "before"
    """The hand before it here is not the one the phone had before it."""
    GAP = "gap"
    """A hand before it is missing here; it waits for that one."""
    REUSED = "reused"
    """Its key saved another deal here."""
    CLOSED = "closed"
    """The round is closed: the table takes no more deals from its phone."""
    OVER = "over"
    """The table has played all its deals without it."""
    REFUSED = "refused"
    """The rules refuse it here (or what was sent is no deal)."""
    BUSY = "busy"
    """Other writes kept coming first: the phone sends it again later."""


ACCEPTED = frozenset({Answer.STORED, Answer.HELD})
"""The answers after which the laptop holds the deal."""


@dataclass(frozen=True)
class Outcome:
    """A deal's answer, with the seq of the match's last hand for a deal out of place."""

    key: str
    seq: int
    answer: Answer
    last: int | None = None


@use_case
def take_in(match: Match, deal: Deal, *, via: str | None = None) -> bool:
    """Store ``deal`` at its place unless the laptop holds its key; whether it was stored.

    ``via``: the organiser's take-in of a phone's report passes a closed round's lock.
    Raises what ``save_hand`` raises (``OutOfPlaceError``, ``KeyReusedError``,
    ``LockedError``, ``MatchOverError``, ``RulesError``).
    """
    if deal.after is not None and deal.seq > 1:
        found = (
            db.session.connection()
            .execute(_BEFORE, {"match_id": match.id, "key": deal.key, "seq": deal.seq - 1})
            .one()
        )
        if found.held is None and found.before is not None and found.before != deal.after:
            # the place is free, but the hand before it is another than the phone's
            raise OutOfPlaceError(deal.seq, deal.seq - 1)
    before = match.version
    hand = save_hand(match, deal.entry, idempotency_key=deal.key, seq=deal.seq, via=via)
    stored = match.version != before
    if stored and deal.struck:
        delete_hand(match, db.session.get_one(Hand, hand.id), via=via)
    return stored


def resend(match: Match, deals: Sequence[Deal], *, via: str | None = None) -> list[Outcome]:
    """Take each of ``deals`` in, in the order given (one use case each): what became of each.

    A deal refused leaves the others alone: a later one is refused by its own place.
    """
    outcomes = []
    for deal in deals[:MAX_DEALS]:
        outcomes.append(_one(match, deal, via))
    return outcomes


def _one(match: Match, deal: Deal, via: str | None) -> Outcome:
    try:
        stored = take_in(match, deal, via=via)
    except OutOfPlaceError as exc:
        if exc.last == deal.seq - 1:
            answer = Answer.BEFORE
        else:
            answer = Answer.TAKEN if exc.last >= deal.seq else Answer.GAP
        return Outcome(deal.key, deal.seq, answer, exc.last)
    except KeyReusedError:
        return Outcome(deal.key, deal.seq, Answer.REUSED)
    except LockedError:
        return Outcome(deal.key, deal.seq, Answer.CLOSED)
    except MatchOverError:
        return Outcome(deal.key, deal.seq, Answer.OVER)
    except RulesError:
        return Outcome(deal.key, deal.seq, Answer.REFUSED)
    except ConflictError:
        return Outcome(deal.key, deal.seq, Answer.BUSY)
    finally:
        # a refusal rolled back: the next deal reads the match as it is
        db.session.expire(match)
    return Outcome(deal.key, deal.seq, Answer.STORED if stored else Answer.HELD)
