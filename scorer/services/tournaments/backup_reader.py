"""Reading a tournament's (or a series') backup file back into rows, every value checked.

:class:`Loader` builds the rows of one file and checks every value, writing nothing:
the rows never join the database session (:mod:`scorer.services.tournaments.restoring`
writes them once the whole file is checked).  Every refusal is a
:class:`~scorer.services.errors.BackupError` naming the place in the file
("tournament, round 2, table 3: …"); a refusal by the rules keeps their
``RulesError`` for the web layer to word.

Built outside the database, the rows have no ids yet: the players (and a
series' people) get stand-in ids, negative numbers, which the tables, their
paper slips and confirmations name until the players are written
(:func:`~scorer.services.tournaments.restoring.renumber`); every link gets a
stand-in token, the file's own kept aside in :attr:`Loader.links` for the last
step of the restore.

What is checked besides each value's type and range: the ruleset is one a
tournament can play (``check_ruleset``) and every table's match plays the
tournament's ruleset for its size; start numbers are unique; the rounds are
numbered 1, 2, 3 … with every round but the last closed; the players of a round
are exactly those checked in for it (a late arrival from their round on, a
withdrawn player until their withdrawal), each at one table; the tables'
players are the match's seats, in order; paper slips, confirmations and
replaced links name the table's own players and links; a series' evenings name
its players at most once each.  The limits: :data:`MAX_FILE_HANDS` hands in
a file, the app's own limits of players, rounds and tables.
"""

from __future__ import annotations

import re
from itertools import count
from typing import Any, NamedTuple

from ...models import GameSession, Match, new_token
from ...rules import RulesError, Ruleset
from ...rules.tournament import series_evenings
from ...tournament_models import (
    Confirmation,
    Entrant,
    RetiredLink,
    Round,
    Series,
    SeriesPlayer,
    Tournament,
    TournamentTable,
)
from ..backup import Tokens, finish_match, load_match
from ..backup_format import MAX_HANDS, MAX_LOG, TOKEN_RE, Reader
from ..errors import BackupError, Said
from ..errors import Said as _
from ..starting import storable
from .board import MAX_SLIP_POINTS, check_slip
from .entrants import MAX_CLUB, MAX_ENTRANTS, MAX_NUMBER, clean_entry
from .money import (
    HUNDRED_PERCENT,
    KEEP_KINDS,
    MAX_ITEM,
    MAX_KEEP_CENTS,
    MAX_PRIZE_ITEMS,
    PRIZE_MODES,
)
from .rounds import in_round
from .setup import (
    MAX_ENTRY_FEE_CENTS,
    MAX_PLACE,
    MAX_ROUNDS,
    MAX_SCHEDULE,
    MAX_TOURNAMENT_NAME,
    check_fee_schedule,
    check_held_on,
    check_public_url,
    check_ruleset,
    table_ruleset_of,
)

TOURNAMENT_FORMAT = "scorer-tournament"
MAX_TABLES = MAX_ENTRANTS // 3
"""Tables of one round (every player at a table of three)."""
MAX_FILE_HANDS = 40_000
"""Hands of one file: a tournament of 1,000 tables over 3 rounds, or a season of small ones."""
MAX_EVENINGS = 60
MAX_SERIES_PLAYERS = 10_000
MAX_LINKS = 1000
"""How often one table's link may have been replaced."""
MAX_PAID_CENTS = 10_000_000
_SEED = re.compile(r"[A-Za-z0-9]{1,16}")
_ROUND_SEED = re.compile(r"[A-Za-z0-9-]{1,64}")


def _folded(r: Reader, key: str, longest: int, *, empty: bool = False) -> str:
    """A one-line text as the app stores it (spaces folded), or the file is refused."""
    value: str = r.get_str(key, longest)
    if not storable(value) or " ".join(value.split()) != value or not (value or empty):
        raise r.fail(key)
    return value


class Link(NamedTuple):
    """A link of the file: the column it goes to, the stand-in written first, the file's token."""

    column: Any
    stand_in: str
    token: str


class Loader:
    """Builds the rows of a backup file outside the database session, every value checked."""

    def __init__(self) -> None:
        self.tokens = Tokens()
        self.seen: set[str] = set()
        self.links: list[Link] = []
        self.retired: dict[TournamentTable, list[RetiredLink]] = {}
        self.stand_in_ids = count(-1, -1)

    def token(self, r: Reader, key: str, column: Any) -> str:
        """A stand-in for the file's token in ``column`` (checked, unique in the file)."""
        value = r.data.get(key)
        if not isinstance(value, str) or not TOKEN_RE.fullmatch(value) or value in self.seen:
            raise r.fail(key)
        self.seen.add(value)
        stand_in = new_token()
        self.links.append(Link(column, stand_in, value))
        return stand_in

    # -- a series ------------------------------------------------------------------------

    def series(self, body: Any) -> Series:
        """A series with its people and evenings."""
        r = Reader(body, _("series"))
        counting = r.get_str("counting", 8)
        best = r.get_int("best", 0, MAX_EVENINGS)
        try:
            series_evenings([], counting, best)
        except RulesError as exc:
            raise BackupError(where=r.where, cause=exc) from None
        series = Series(
            token=self.token(r, "token", Series.token),
            view_token=self.token(r, "view_token", Series.view_token),
            name=_folded(r, "name", 80),
            counting=counting,
            best=best,
            met_across=r.get_bool("met_across"),
            created_at=r.get_time("created_at"),
            updated_at=r.get_time("updated_at"),
        )
        for index, item in enumerate(r.get_list("players", MAX_SERIES_PLAYERS), 1):
            p = Reader(item, _("%(where)s, player %(number)s", where=r.where, number=index))
            series.players.append(
                SeriesPlayer(
                    id=next(self.stand_in_ids),
                    name=_folded(p, "name", 40),
                    club=_folded(p, "club", MAX_CLUB, empty=True),
                    created_at=p.get_time("created_at"),
                )
            )
        evenings = r.get_list("evenings", MAX_EVENINGS)
        for index, item in enumerate(evenings, 1):
            where = _("%(where)s, evening %(number)s", where=r.where, number=index)
            self.tournament(item, where, series)
        return series

    # -- a tournament --------------------------------------------------------------------

    def tournament(self, body: Any, where: Said | str, series: Series | None = None) -> Tournament:
        """One tournament with its players, rounds and tables (``series``: the evening's)."""
        r = Reader(body, where)
        raw_rules = r.data.get("ruleset")
        if not isinstance(raw_rules, dict):
            raise r.fail("ruleset")
        try:
            ruleset = check_ruleset(Ruleset.from_dict(raw_rules))
            fee_schedule = r.get_str("fee_schedule", MAX_SCHEDULE)
            if check_fee_schedule(fee_schedule) != fee_schedule:
                raise r.fail("fee_schedule")
            held_on = r.get_str("held_on", 10)
            public_url = r.get_str("public_url", 200)
            if check_held_on(held_on) != held_on:
                raise r.fail("held_on")
            if check_public_url(public_url) != public_url:
                raise r.fail("public_url")
        except RulesError as exc:
            raise BackupError(where=r.where, cause=exc) from None
        tournament = Tournament(
            token=self.token(r, "token", Tournament.token),
            view_token=self.token(r, "view_token", Tournament.view_token),
            name=_folded(r, "name", MAX_TOURNAMENT_NAME),
            held_on=held_on,
            place=_folded(r, "place", MAX_PLACE, empty=True),
            ruleset=ruleset.to_dict(),
            rounds=r.get_int("rounds_planned", 1, MAX_ROUNDS),
            entry_fee_cents=r.get_int("entry_fee_cents", 0, MAX_ENTRY_FEE_CENTS),
            fee_schedule=fee_schedule,
            tie_break=r.get_bool("tie_break"),
            seed=r.get_str("seed", 16),
            public_url=public_url,
            created_at=r.get_time("created_at"),
            updated_at=r.get_time("updated_at"),
            series=series,
            **self._money(r),
        )
        if not _SEED.fullmatch(tournament.seed):
            raise r.fail("seed")
        self._entrants(r, tournament, series)
        self._rounds(r, tournament)
        return tournament

    @staticmethod
    def _money(r: Reader) -> dict[str, Any]:
        keep_kind = r.get_str("keep_kind", 8, choices=KEEP_KINDS)
        high = MAX_KEEP_CENTS if keep_kind == "amount" else HUNDRED_PERCENT
        shares = r.get_list("prize_shares", MAX_PRIZE_ITEMS)
        if not all(type(s) is int and 0 <= s <= HUNDRED_PERCENT for s in shares) or (
            sum(shares) > HUNDRED_PERCENT
        ):
            raise r.fail("prize_shares")
        items = r.get_list("prize_items", MAX_PRIZE_ITEMS)
        if not all(
            isinstance(i, str) and 0 < len(i) <= MAX_ITEM and " ".join(i.split()) == i
            for i in items
        ):
            raise r.fail("prize_items")
        return {
            "keep_kind": keep_kind,
            "keep_value": r.get_int("keep_value", 0, high),
            "lost_money_to_fund": r.get_bool("lost_money_to_fund"),
            "prize_mode": r.get_str("prize_mode", 8, choices=PRIZE_MODES),
            "prize_shares": shares,
            "prize_items": items,
            "joke_prize": _folded(r, "joke_prize", MAX_ITEM, empty=True),
        }

    def _entrants(self, r: Reader, tournament: Tournament, series: Series | None) -> None:
        numbers: set[int] = set()
        people: set[int] = set()
        last = tournament.rounds
        for index, item in enumerate(r.get_list("entrants", MAX_ENTRANTS), 1):
            e = Reader(item, _("%(where)s, player %(number)s", where=r.where, number=index))
            name, club, household = e.get_str("name", 40), e.get_str("club", 60), ""
            household = e.get_str("household", 40)
            try:
                cleaned = clean_entry(name, club, household)
            except RulesError as exc:
                raise BackupError(where=e.where, cause=exc) from None
            if cleaned != (name, club, household):
                raise e.fail("name")
            number = e.get_int("number", 1, MAX_NUMBER, optional=True)
            from_round = e.get_int("from_round", 1, last, optional=True)
            withdrawn = e.get_int("withdrawn_before", 2, last + 1, optional=True)
            if (number is None) != (from_round is None):
                raise e.fail("from_round")
            if withdrawn is not None and (from_round is None or withdrawn <= from_round):
                raise e.fail("withdrawn_before")
            if number is not None:
                if number in numbers:
                    raise BackupError(
                        _(
                            "%(where)s: start number %(number)s is given twice",
                            where=e.where,
                            number=number,
                        )
                    )
                numbers.add(number)
            person = None
            if series is not None:
                index_ = e.get_int("series_player", 1, len(series.players), optional=True)
                if index_ is not None:
                    if index_ in people:
                        raise e.fail("series_player")
                    people.add(index_)
                    person = series.players[index_ - 1]
            elif e.data.get("series_player") is not None:
                raise e.fail("series_player")
            tournament.entrants.append(
                Entrant(
                    id=next(self.stand_in_ids),  # the tables name it by this until it is written
                    name=name,
                    club=club,
                    household=household,
                    number=number,
                    from_round=from_round,
                    withdrawn_before=withdrawn,
                    paid_cents=e.get_int("paid_cents", 0, MAX_PAID_CENTS, optional=True),
                    paid_at=e.get_time("paid_at", optional=True),
                    created_at=e.get_time("created_at"),
                    series_player_id=None if person is None else person.id,
                )
            )

    def _rounds(self, r: Reader, tournament: Tournament) -> None:
        rows = r.get_list("rounds", tournament.rounds)
        by_number = {e.number: e for e in tournament.entrants if e.number is not None}
        for index, item in enumerate(rows, 1):
            w = Reader(item, _("%(where)s, round %(number)s", where=r.where, number=index))
            if w.get_int("number", 1, MAX_ROUNDS) != index:
                raise BackupError(
                    _("%(where)s: the rounds are not numbered 1, 2, 3 …", where=w.where)
                )
            closed_at = w.get_time("closed_at", optional=True)
            if closed_at is None and index != len(rows):
                raise BackupError(
                    _("%(where)s: only the last round can still be open", where=w.where)
                )
            seed = w.get_str("seed", 64)
            if not _ROUND_SEED.fullmatch(seed):
                raise w.fail("seed")
            row = Round(
                number=index,
                seed=seed,
                attempt=w.get_int("attempt", 1, 10_000),
                drawn_at=w.get_time("drawn_at"),
                closed_at=closed_at,
            )
            tournament.round_rows.append(row)
            expected = {e.number for e in tournament.entrants if in_round(e, index)}
            seated: set[int] = set()
            for number, table_item in enumerate(w.get_list("tables", MAX_TABLES), 1):
                self._table(tournament, row, table_item, w.where, number, by_number, seated)
            if seated != expected:
                raise BackupError(
                    _(
                        "%(where)s: the players at the tables are not those checked in for "
                        "the round",
                        where=w.where,
                    )
                )

    def _table(
        self,
        tournament: Tournament,
        row: Round,
        item: Any,
        where: Said | str,
        number: int,
        by_number: dict[int, Entrant],
        seated: set[int],
    ) -> None:
        t = Reader(item, _("%(where)s, table %(number)s", where=where, number=number))
        if t.get_int("number", 1, MAX_TABLES) != number:
            raise BackupError(_("%(where)s: the tables are not numbered 1, 2, 3 …", where=t.where))
        starts = t.get_list("players", 4)
        if len(starts) not in (3, 4) or not all(type(n) is int for n in starts):
            raise t.fail("players")
        for start in starts:
            if start not in by_number:
                raise BackupError(
                    _(
                        "%(where)s: start number %(number)s is no player of this tournament",
                        where=t.where,
                        number=start,
                    )
                )
            if start in seated:
                raise BackupError(
                    _(
                        "%(where)s: start number %(number)s sits at two tables",
                        where=t.where,
                        number=start,
                    )
                )
            seated.add(start)
        players = [by_number[n] for n in starts]
        match_item = t.data.get("match")
        if isinstance(match_item, dict):
            # the file's links are checked and kept aside; the match gets the stand-ins
            m = Reader(match_item, _("%(where)s, match", where=t.where))
            match_item = {
                **match_item,
                "token": self.token(m, "token", Match.token),
                "view_token": self.token(m, "view_token", Match.view_token),
            }
        match = load_match(match_item, t.where, 1, self.tokens)
        if match.ruleset != table_ruleset_of(tournament, len(players)).to_dict():
            raise BackupError(
                _(
                    "%(where)s: the table's match does not play the tournament's rules for "
                    "%(count)s players",
                    where=t.where,
                    count=len(players),
                )
            )
        # (the seats' names may differ from the players': a player renamed after the draw
        # keeps the old name at the tables already drawn; the ruleset fixed their count)
        link_number = t.get_int("link_number", 1, MAX_LINKS)
        table = TournamentTable(
            number=number,
            match=match,
            players=[p.id for p in players],
            done_at=t.get_time("done_at", optional=True),
            link_number=link_number,
        )
        session = GameSession(
            title=f"{tournament.name} · {row.number}/{number}"[:80],
            kind="tournament",
            created_at=match.created_at,
        )
        match.session = session
        if row.closed_at is not None:
            match.locked = "closed"
        row.tables.append(table)
        numbers = {str(n): e.id for n, e in by_number.items()}
        self._paper(t, table, numbers)
        self._confirmations(t, table, by_number)
        finish_match(match)
        self.retired[table] = self._links(t, match, link_number)

    @staticmethod
    def _slip(
        r: Reader, key: str, value: Any, table: TournamentTable, numbers: dict[str, int]
    ) -> Any:
        """A slip of the file (start numbers) as stored (entrant ids, seat order), or None."""
        if value is None:
            return None
        if not isinstance(value, dict) or len(value) > 4:
            raise r.fail(key)
        slip: dict[int, tuple[int, int]] = {}
        for start, line in value.items():
            if start not in numbers or not isinstance(line, list) or len(line) != 2:
                raise r.fail(key)
            points, lost = line
            if type(points) is not int or type(lost) is not int:
                raise r.fail(key)
            if abs(points) > MAX_SLIP_POINTS:
                raise r.fail(key)
            slip[numbers[start]] = (points, lost)
        try:
            return check_slip(table, slip)
        except RulesError as exc:
            raise BackupError(where=r.where, cause=exc) from None

    def _paper(self, t: Reader, table: TournamentTable, numbers: dict[str, int]) -> None:
        table.paper = self._slip(t, "paper", t.data.get("paper"), table, numbers)
        log = t.data.get("paper_log")
        if log is None:
            return
        if not isinstance(log, list) or len(log) > MAX_LOG:
            raise t.fail("paper_log")
        entries = []
        for item in log:
            e = Reader(item, _("%(where)s, paper slip history", where=t.where))
            at = e.get_time("at")
            entries.append(
                {
                    "at": at.isoformat(),
                    "before": self._slip(e, "before", e.data.get("before"), table, numbers),
                    "after": self._slip(e, "after", e.data.get("after"), table, numbers),
                }
            )
        table.paper_log = entries

    @staticmethod
    def _confirmations(t: Reader, table: TournamentTable, by_number: dict[int, Entrant]) -> None:
        seen: set[int] = set()
        for item in t.get_list("confirmations", 4):
            c = Reader(item, _("%(where)s, confirmation", where=t.where))
            start = c.get_int("player", 1, MAX_NUMBER)
            entrant = by_number.get(start)
            if entrant is None or entrant.id not in table.players or start in seen:
                raise c.fail("player")
            seen.add(start)
            table.confirmations.append(
                Confirmation(entrant_id=entrant.id, created_at=c.get_time("at"))
            )

    def _links(self, t: Reader, match: Match, link_number: int) -> list[RetiredLink]:
        retired = t.get_list("retired_links", MAX_LINKS)
        if len(retired) != link_number - 1:
            raise t.fail("retired_links")
        links = []
        for position, item in enumerate(retired, 1):
            k = Reader(
                item, _("%(where)s, replaced link %(number)s", where=t.where, number=position)
            )
            if k.get_int("link_number", 1, MAX_LINKS) != position:
                raise k.fail("link_number")
            links.append(
                RetiredLink(
                    token=self.token(k, "token", RetiredLink.token),
                    match=match,
                    link_number=position,
                    retired_at=k.get_time("retired_at"),
                )
            )
        return links


__all__ = ["MAX_EVENINGS", "MAX_FILE_HANDS", "MAX_HANDS", "TOURNAMENT_FORMAT", "Link", "Loader"]
