"""Builders of the tournament tests: a tournament with players checked in, rounds, hands.

Used by the service, web and browser tests alike; everything goes through
``scorer.services`` as the pages do.
"""

from __future__ import annotations

from collections.abc import Sequence

from scorer import services
from scorer.extensions import db
from scorer.models import Match
from scorer.services.tournaments import board, rounds, setup, tables
from scorer.tournament_models import Entrant, Round, Tournament, TournamentTable

NAMES = (
    "Anna",
    "Bertl",
    "Christa",
    "Done",
    "Egon",
    "Frieda",
    "Gustl",
    "Hanne",
    "Ilse",
    "Jockel",
    "Karle",
    "Liesl",
    "Mane",
    "Nane",
    "Otto",
    "Paule",
    "Resi",
    "Sepp",
    "Traudl",
    "Ulla",
)


def tournament_with(
    players: int | Sequence[str] = 9,
    *,
    deals: int = 3,
    rounds_: int = 2,
    name: str = "Herbstturnier",
) -> Tournament:
    """A tournament with ``players`` registered and checked in (start numbers 1, 2, 3 …)."""
    ruleset = setup.default_ruleset().replace(deals=deals)
    tournament = setup.create_tournament(name=name, ruleset=ruleset, rounds=rounds_)
    names = list(NAMES[:players]) if isinstance(players, int) else list(players)
    if isinstance(players, int) and players > len(NAMES):
        names = [f"Spieler {i}" for i in range(1, players + 1)]
    for number, player in enumerate(names, start=1):
        tournament.entrants.append(Entrant(name=player, number=number, from_round=1))
    db.session.commit()
    return tournament


def a_hand(match: Match, declarer: int = 0) -> services.HandInput:
    """A played hand the tournament rules accept: bid 150, made with 100 melds + 130 tricks.

    At a table of four the dealer sits out: that party's line is left empty.
    """
    sheet = services.standing(match)
    seats = len(match.seats)
    out = sheet.next_sits_out
    active = [p for p in range(seats) if p != out]
    if declarer not in active:
        declarer = active[0]
    melds = [0] * seats
    tricks: list[int | None] = [None] * seats
    melds[declarer] = 100
    rest = [p for p in active if p != declarer]
    tricks[declarer] = 130
    tricks[rest[0]] = 60
    tricks[rest[1]] = 60
    return services.HandInput(
        declarer=declarer, bid=150, trump="E", outcome="played", melds=melds, tricks=tricks
    )


def play_table(table: TournamentTable, hands: int | None = None) -> None:
    """Enter ``hands`` more hands at ``table`` (up to its last deal when None)."""
    match = table.match
    played = services.standing(match).hand_count
    left = int(match.ruleset["deals"]) - played
    for k in range(left if hands is None else min(hands, left)):
        services.save_hand(match, a_hand(match, declarer=(played + k) % len(match.seats)))


def play_round(row: Round, hands: int | None = None) -> None:
    """Enter ``hands`` hands (all the deals when None) at every table of ``row``."""
    for table in row.tables:
        play_table(table, hands)


def drawn(tournament: Tournament, number: int = 1) -> Round:
    """Round ``number`` drawn."""
    return rounds.draw_round(tournament, number)


HALL_NAMES = [
    "Jörg Müller",
    "Anna Maier",
    "Ümit Öztürk",
    "Hans Mayer",
    "Zenzi Huber",
    "Otto Bauer",
    "Resi Strauß",
    "Karl Fischer",
    "Liesl Wagner",
]
"""Nine players whose names a search must find however they are typed (umlauts, ß)."""

TABLE_HAND = {
    "declarer": 0,
    "bid": 150,
    "trump": "E",
    "outcome": "played",
    "melds": [100, 0, 0],
    "tricks": [130, 60, 60],
}
"""A hand a tournament table's phone enters (the form's fields, tests.builders.enter_hand)."""


def signed_and_paper_round(names: Sequence[str] = HALL_NAMES) -> tuple[Tournament, Round]:
    """Round 1 of nine played out (3 deals): table 1 signed by its three players, table 2
    typed in from a paper slip (420, -150 with 2 lost games, 90 with 1)."""
    tournament = tournament_with(list(names), deals=3)
    row = drawn(tournament)
    play_round(row, None)
    first, second = row.tables[0], row.tables[1]
    for player in first.players:
        tables.confirm(first, player)
    slip = dict(zip(second.players, [(420, 0), (-150, 2), (90, 1)], strict=True))
    board.set_paper(tournament, second, slip)
    return tournament, row
