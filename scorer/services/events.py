"""What happened, announced by the use cases and handled once after their commit.

Each event is a frozen dataclass of plain values (ids and numbers, never a row:
the handler runs after the commit, on rows read anew).  A use case announces
it with :func:`scorer.services.unit.announce`; the app factory registers the
handlers (:func:`scorer.services.bus.register`).  The services know that
something follows, not what: today a round's paper made ahead in the job queue
(:mod:`scorer.paper.ahead`) follows every event here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RoundDrawn:
    """Round ``round`` of tournament ``tournament`` (its id) was drawn: its tables are set."""

    tournament: int
    round: int


@dataclass(frozen=True)
class RoundRedrawn:
    """Round ``round`` was drawn again: new seats, new links."""

    tournament: int
    round: int


@dataclass(frozen=True)
class TableLinkReplaced:
    """Table ``table`` of round ``round`` got a new link (its card a new QR code)."""

    tournament: int
    round: int
    table: int


@dataclass(frozen=True)
class RoundClosed:
    """Round ``round`` was closed: its tables write no more, its paper is printed."""

    tournament: int
    round: int


@dataclass(frozen=True)
class PlayerRenamed:
    """A player's name or club was corrected (the cards and slips of the open round show it)."""

    tournament: int
    entrant: int


@dataclass(frozen=True)
class TournamentSettingsChanged:
    """The tournament's settings were saved (its name, place and day head every printout;
    its address is in the QR codes)."""

    tournament: int


ROUND_PAPER_CHANGED = (
    RoundDrawn,
    RoundRedrawn,
    TableLinkReplaced,
    PlayerRenamed,
    TournamentSettingsChanged,
)
"""The events after which a round's cards and slips show something new."""
