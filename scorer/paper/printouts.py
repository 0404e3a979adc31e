"""What each of the tournament's printouts shows: its values, its cache key and its render.

A :class:`Printout` is what one PDF shows, read from the database (the plain
values of :mod:`scorer.services.tournaments.paper`), its cache key — the
digest of exactly those values, the language and the code
(:func:`scorer.pdf.tournament.document_key`) — and how to render it from those
values alone (no database: a render holds no transaction).  A round's table
cards and slips show its draw: a saved hand leaves their key alone, a replaced
link or a renamed player makes a new one.  Read in a request (or a request like
it: the worker's, :mod:`.ahead`), since the cards' QR codes carry the address the
phones reach (:mod:`scorer.addresses`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ..addresses import external_url
from ..pdf import tournament as documents
from ..services.tournaments import paper
from ..tournament_models import Round, Tournament


@dataclass(frozen=True)
class Printout:
    """One PDF: its kind and part (``"cards"``, ``"round-2"``), key, expected render time.

    ``round`` is set for a round's cards or slips: those may be made ahead
    (:data:`ROUND_PRINTOUTS` makes them again in the job queue's worker).
    """

    kind: str
    label: str
    key: str
    seconds: float
    render: Callable[[], bytes]
    round: int | None = None


# -- what each printout shows ----------------------------------------------------------


def _cards(tournament: Tournament, rows: Sequence[Round], label: str) -> Printout:
    heading = paper.heading(tournament)
    found = paper.cards(tournament, rows)
    urls = {
        card.table_id: external_url(tournament, "matches.show", token=card.token) for card in found
    }
    return Printout(
        "cards",
        label,
        documents.document_key("cards", label, heading, found, urls),
        len(found) * documents.CARD_SECONDS,
        lambda: documents.table_cards(heading, found, urls),
        rows[0].number if len(rows) == 1 else None,
    )


def round_cards(tournament: Tournament, row: Round) -> Printout:
    """The table cards of one round: its draw (seats, names, start numbers, links, deals)."""
    return _cards(tournament, [row], f"round-{row.number}")


def all_cards(tournament: Tournament) -> Printout:
    """The table cards of every round drawn so far, round after round."""
    return _cards(tournament, list(tournament.round_rows), "")


def round_slips(tournament: Tournament, row: Round, table: int | None = None) -> Printout:
    """The paper slips of one round (``table``: that table's alone).

    A slip shows no link: its values carry none, so a replaced link keeps it.
    """
    heading = paper.heading(tournament)
    found = [
        replace(slip, card=replace(slip.card, table_id=0, token="", link_number=0))
        for slip in paper.slips(tournament, row)
        if table is None or slip.card.table == table
    ]
    label = f"round-{row.number}" + (f"-table-{table}" if table is not None else "")
    return Printout(
        "slips",
        label,
        documents.document_key("slips", label, heading, found),
        len(found) * documents.SLIP_SECONDS,
        lambda: documents.paper_slips(heading, found),
        row.number if table is None else None,
    )


ROUND_PRINTOUTS: Mapping[str, Callable[[Tournament, Round], Printout]] = {
    "cards": round_cards,
    "slips": round_slips,
}
"""The printouts made ahead, by kind: a round's cards, then its slips."""
