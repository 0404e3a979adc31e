"""The players of a tournament: registration, check-in, late arrivals, withdrawals, lists.

``services.tournaments.entrants`` and ``services.tournaments.importing``, called
as the players page calls them, on a real database; the race of two organiser
tabs giving one start number is forced into the bad order.
"""

from __future__ import annotations

import codecs
import io
import zipfile

import pytest
from flask import Flask
from openpyxl import Workbook
from sqlalchemy import update

from scorer.extensions import db
from scorer.rules import RulesError
from scorer.services.tournaments import entrants, importing, rounds, setup
from scorer.tournament_models import Entrant, Tournament
from tests.tournament_builders import drawn, play_round, tournament_with


def empty(rounds_: int = 3) -> Tournament:
    return setup.create_tournament(name="Herbstturnier", rounds=rounds_)


def named(tournament: Tournament, name: str) -> Entrant:
    return next(e for e in tournament.entrants if e.name == name)


# -- registration ---------------------------------------------------------------------------


def test_register_and_check_in_at_the_door(in_app: Flask) -> None:
    tournament = empty()
    version = tournament.version
    anna = entrants.register(tournament, " Anna  Maier ", "TSV", "Maier")
    assert (anna.name, anna.club, anna.household, anna.number) == (
        "Anna Maier",
        "TSV",
        "Maier",
        None,
    )
    bert = entrants.register(tournament, "Bert", present=True)
    assert bert.number == 1 and bert.from_round == 1
    carl = entrants.register(tournament, "Carl", present=True, number=12)
    assert carl.number == 12
    # every change counts once (a registration, one at the door with its check-in: the
    # public pages render again)
    assert tournament.version == version + 3


@pytest.mark.parametrize(
    ("name", "club", "words"),
    [
        ("", "", "needs a name"),
        ("   ", "", "needs a name"),
        ("A" * 41, "", "at most 40"),
        ("A" * 5000, "", "at most 40"),
        ("An\x00na", "", "control characters"),
        ("Anna", "T" * 61, "at most 60"),
        ("Anna", "TSV\x1b", "control characters"),
    ],
)
def test_register_refuses_junk(in_app: Flask, name: str, club: str, words: str) -> None:
    tournament = empty()
    with pytest.raises(RulesError, match=words):
        entrants.register(tournament, name, club)
    db.session.expire_all()
    assert tournament.entrants == []


def test_the_same_name_twice_only_with_another_club(in_app: Flask) -> None:
    tournament = empty()
    entrants.register(tournament, "Anna Maier", "TSV")
    with pytest.raises(RulesError, match=r"Anna Maier \(TSV\) is registered already"):
        entrants.register(tournament, "anna maier", "tsv")
    other = entrants.register(tournament, "Anna Maier", "SV Oberdorf")
    assert entrants.namesakes(tournament, "ANNA MAIER", besides=other)[0].club == "TSV"
    entrants.register(tournament, "Bert")
    with pytest.raises(RulesError, match="Bert is registered already"):
        entrants.register(tournament, "Bert")


def test_edit_and_remove(in_app: Flask) -> None:
    tournament = empty()
    anna = entrants.register(tournament, "Ana", present=True)
    bert = entrants.register(tournament, "Bert")
    entrants.edit(tournament, anna, "Anna", "TSV", "Maier")
    assert (anna.name, anna.club, anna.household) == ("Anna", "TSV", "Maier")
    with pytest.raises(RulesError, match="registered already"):
        entrants.edit(tournament, bert, "Anna", "TSV", "")
    entrants.remove(tournament, bert)
    assert [e.name for e in tournament.entrants] == ["Anna"]


def test_a_drawn_player_cannot_be_removed(in_app: Flask) -> None:
    tournament = tournament_with(3)
    drawn(tournament)
    with pytest.raises(RulesError, match="drawn already"):
        entrants.remove(tournament, tournament.entrants[0])
    assert len(tournament.entrants) == 3


# -- check-in and start numbers ---------------------------------------------------------------


def test_next_free_number_fills_gaps(in_app: Flask) -> None:
    tournament = empty()
    players = [entrants.register(tournament, name) for name in ("A", "B", "C", "D")]
    entrants.check_in(tournament, players[0], 1)
    entrants.check_in(tournament, players[1], 3)
    assert entrants.check_in(tournament, players[2]).number == 2
    assert entrants.check_in(tournament, players[3]).number == 4


def test_everyone_present_numbers_a_list_in_its_order(in_app: Flask) -> None:
    """Issue 30: a list checked in at once keeps the file's order for the start numbers,
    whatever order the names sort in and whoever came to the door first."""
    tournament = empty()
    door = entrants.register(tournament, "Zora", present=True)  # came first: number 1
    names = ["Xaver Ott", "Berta Alt", "Martin Kern", "Anna Zeh", "Carl Bühler"]
    entrants.register_many(tournament, [(name, "") for name in names])
    entrants.check_in(tournament, named(tournament, "Martin Kern"), 7)  # a typed number
    entrants.withdraw(tournament, door)  # not drawn yet: checked out, number 1 free again
    version = tournament.version
    done = entrants.check_in_all(tournament)
    assert [e.name for e in done] == ["Zora", "Xaver Ott", "Berta Alt", "Anna Zeh", "Carl Bühler"]
    assert [e.number for e in done] == [1, 2, 3, 4, 5]
    assert named(tournament, "Martin Kern").number == 7
    assert all(e.from_round == 1 for e in tournament.entrants)
    assert tournament.version == version + 1
    assert entrants.check_in_all(tournament) == []  # a second tap changes nothing
    assert tournament.version == version + 1
    assert entrants.count(tournament).present == 6


def test_everyone_present_after_round_1_are_late_arrivals(in_app: Flask) -> None:
    tournament = tournament_with(6, rounds_=2)
    drawn(tournament, 1)
    entrants.register_many(tournament, [("Paul", ""), ("Olga", ""), ("Nina", "")])
    done = entrants.check_in_all(tournament)
    assert [(e.name, e.number, e.from_round) for e in done] == [
        ("Paul", 7, 2),
        ("Olga", 8, 2),
        ("Nina", 9, 2),
    ]
    last = tournament_with(3, rounds_=1, name="Kurz")
    drawn(last, 1)
    entrants.register(last, "Spät")
    with pytest.raises(RulesError, match="all 1 rounds are drawn"):
        entrants.check_in_all(last)
    assert named(last, "Spät").number is None


def test_a_number_typed_twice_says_who_has_it(in_app: Flask) -> None:
    tournament = empty()
    anna = entrants.register(tournament, "Anna Maier", present=True, number=12)
    bert = entrants.register(tournament, "Bert")
    with pytest.raises(RulesError, match="start number 12 already belongs to Anna Maier"):
        entrants.check_in(tournament, bert, 12)
    with pytest.raises(RulesError, match="12 already belongs to Anna Maier"):
        entrants.register(tournament, "Carl", present=True, number=12)
    db.session.expire_all()
    assert bert.number is None and anna.number == 12
    assert [e.name for e in tournament.entrants] == ["Anna Maier", "Bert"]


@pytest.mark.parametrize("number", [0, -3, 10_000, 10**309])
def test_numbers_out_of_range(in_app: Flask, number: int) -> None:
    tournament = empty()
    bert = entrants.register(tournament, "Bert")
    with pytest.raises(RulesError, match="from 1 to 9999"):
        entrants.check_in(tournament, bert, number)


def test_checking_in_twice_is_one_check_in(in_app: Flask) -> None:
    tournament = empty()
    anna = entrants.register(tournament, "Anna", present=True)
    version = tournament.version
    assert entrants.check_in(tournament, anna).number == 1
    assert entrants.check_in(tournament, anna, 1).number == 1
    assert tournament.version == version
    with pytest.raises(RulesError, match="has start number 1 already"):
        entrants.check_in(tournament, anna, 5)


def test_two_tabs_typing_one_number_one_wins(in_app: Flask) -> None:
    """The other tab's check-in commits between this tab's look and its write."""
    tournament = empty()
    anna = entrants.register(tournament, "Anna")
    bert = entrants.register(tournament, "Bert")
    with db.engine.begin() as other_tab:
        other_tab.execute(
            update(Entrant).where(Entrant.id == anna.id).values(number=7, from_round=1)
        )
    # this tab still sees Anna without a number
    assert anna.number is None
    with pytest.raises(RulesError, match="start number 7 already belongs to Anna"):
        entrants.check_in(tournament, bert, 7)
    db.session.expire_all()
    assert (named(tournament, "Anna").number, named(tournament, "Bert").number) == (7, None)


def test_two_tabs_tapping_present_get_two_numbers(in_app: Flask) -> None:
    tournament = empty()
    anna = entrants.register(tournament, "Anna")
    bert = entrants.register(tournament, "Bert")
    with db.engine.begin() as other_tab:
        other_tab.execute(
            update(Entrant).where(Entrant.id == anna.id).values(number=1, from_round=1)
        )
    assert entrants.check_in(tournament, bert).number == 2
    db.session.expire_all()
    assert sorted(e.number or 0 for e in tournament.entrants) == [1, 2]


def test_check_out_before_the_draw_frees_the_number(in_app: Flask) -> None:
    tournament = empty()
    anna = entrants.register(tournament, "Anna", present=True)
    entrants.check_out(tournament, anna)
    assert (anna.number, anna.from_round) == (None, None)
    bert = entrants.register(tournament, "Bert", present=True)
    assert bert.number == 1


def test_late_arrival_plays_from_the_next_round(in_app: Flask) -> None:
    tournament = tournament_with(6, rounds_=3)
    drawn(tournament)
    late = entrants.register(tournament, "Zenzi", present=True)
    assert late.number == 7 and late.from_round == 2
    assert entrants.status(tournament, late) == "late"
    assert not rounds.in_round(late, 1) and rounds.in_round(late, 2)
    assert not entrants.was_drawn(tournament, late)
    # not drawn yet: the check-in can still be undone
    entrants.check_out(tournament, late)
    assert late.number is None
    # a player drawn in round 1 cannot be checked out, only withdrawn
    with pytest.raises(RulesError, match="withdraw the player instead"):
        entrants.check_out(tournament, tournament.entrants[0])


def test_nobody_joins_after_the_last_round_is_drawn(in_app: Flask) -> None:
    tournament = tournament_with(3, rounds_=1)
    drawn(tournament)
    with pytest.raises(RulesError, match="all 1 rounds are drawn"):
        entrants.register(tournament, "Zenzi", present=True)


def test_withdraw_between_rounds_and_undo(in_app: Flask) -> None:
    tournament = tournament_with(7, rounds_=3)
    row = drawn(tournament)
    anna = named(tournament, "Anna")
    entrants.withdraw(tournament, anna)
    assert anna.withdrawn_before == 2
    assert entrants.status(tournament, anna) == "withdrawn"
    assert rounds.in_round(anna, 1) and not rounds.in_round(anna, 2)
    assert entrants.count(tournament).playing == 6
    entrants.withdraw(tournament, anna)  # a double tap
    assert anna.withdrawn_before == 2
    entrants.undo_withdrawal(tournament, anna)
    assert anna.withdrawn_before is None
    entrants.withdraw(tournament, anna)
    play_round(row)
    rounds.close_round(tournament, row)
    drawn(tournament, 2)
    assert anna.id not in {p for t in tournament.round_rows[1].tables for p in t.players}
    with pytest.raises(RulesError, match="round 2 is drawn without Anna"):
        entrants.undo_withdrawal(tournament, anna)
    with pytest.raises(RulesError, match="undo the withdrawal"):
        entrants.check_in(tournament, anna)


def test_withdrawing_a_player_never_drawn_checks_them_out(in_app: Flask) -> None:
    tournament = empty()
    anna = entrants.register(tournament, "Anna", present=True)
    entrants.withdraw(tournament, anna)
    assert (anna.number, anna.withdrawn_before) == (None, None)
    with pytest.raises(RulesError, match="not checked in"):
        entrants.withdraw(tournament, anna)


@pytest.mark.parametrize(
    ("present", "tables", "words"),
    [
        (0, None, "at least 3 players, not 0"),
        (1, None, "at least 3 players, not 1"),
        (2, None, "at least 3 players, not 2"),
        (5, None, "5 players do not fit"),
        (3, (3,), None),
        (10, (4, 3, 3), None),
        (11, (4, 4, 3), None),
    ],
)
def test_count_says_whether_the_players_make_a_round(
    in_app: Flask, present: int, tables: tuple[int, ...] | None, words: str | None
) -> None:
    tournament = empty()
    for i in range(present):
        entrants.register(tournament, f"Spieler {i}", present=True)
    entrants.register(tournament, "Noch nicht da")
    counted = entrants.count(tournament)
    assert (counted.registered, counted.present, counted.playing) == (present + 1, present, present)
    assert counted.tables == tables
    assert (counted.problem is None) == (words is None)
    if words:
        assert words in str(counted.problem)


def test_search_by_name_club_or_number(in_app: Flask) -> None:
    tournament = empty()
    entrants.register(tournament, "Anna Maier", "TSV", present=True)
    entrants.register(tournament, "Bert Huber", "SV Maierhofen", present=True)
    entrants.register(tournament, "Carl", present=True, number=12)
    found = entrants.search(tournament.entrants, " maier ")
    assert [e.name for e in found] == ["Anna Maier", "Bert Huber"]
    assert [e.name for e in entrants.search(tournament.entrants, "12")] == ["Carl"]
    assert len(entrants.search(tournament.entrants, "")) == 3
    assert entrants.search(tournament.entrants, "9" * 400) == []


def test_names_of_earlier_tournaments(in_app: Flask) -> None:
    last_year = empty()
    entrants.register(last_year, "Anna Maier")
    entrants.register(last_year, "Bert Huber")
    elsewhere = empty()
    entrants.register(elsewhere, "Fremder")
    assert entrants.known_names([last_year]) == ["Anna Maier", "Bert Huber"]
    assert entrants.known_names([last_year], "an") == ["Anna Maier"]
    assert entrants.known_names([last_year], "a\x00") == []
    assert entrants.known_names([]) == []


def test_register_a_list(in_app: Flask) -> None:
    tournament = empty()
    entrants.register(tournament, "Anna", "TSV")
    result = entrants.register_many(
        tournament, [("Anna", "TSV"), ("Bert", ""), ("Anna", "SV"), ("X" * 41, "")]
    )
    assert [e.name for e in result.added] == ["Bert", "Anna"]
    assert [name for name, _ in result.skipped] == ["Anna", "X" * 41]
    assert len(tournament.entrants) == 3


# -- lists: pasted, CSV, Excel ------------------------------------------------------------------


def rows(parsed: importing.Parsed) -> list[tuple[str, str]]:
    return [(r.name, r.club) for r in parsed.rows]


def junk(parsed: importing.Parsed) -> list[tuple[int, str]]:
    return [(j.line, str(j.problem)) for j in parsed.junk]


CLUB_LIST = "Name;Verein\nAnna Maier;TSV Musterhausen\nJürgen Weiß;SV Oberdorf\nBärbel Öhler;\n"


def test_pasted_names_with_junk_lines(in_app: Flask) -> None:
    text = (
        "Anna Maier; TSV\n"
        "\n"
        '=HYPERLINK("http://x")\n'
        "Bert\x00Huber\n"
        "12\n"
        "Anna Maier;TSV\n" + "X" * 5000 + "\n"
        "Maier, Anna\n"
        "; nur Verein\n"
        "@SUM(1)\n"
        "Carl;=1+1\n"
        "Dora\tSV Oberdorf\n"
    )
    parsed = importing.from_text(text)
    # the semicolon splits the columns here, so the tab is a space inside the name
    assert rows(parsed) == [("Anna Maier", "TSV"), ("Maier, Anna", ""), ("Dora SV Oberdorf", "")]
    lines = [line for line, _ in junk(parsed)]
    assert lines == [3, 4, 5, 6, 7, 9, 10, 11]
    messages = dict(junk(parsed))
    assert "looks like a formula" in messages[3]
    assert "control characters" in messages[4]
    assert "is a number" in messages[5]
    assert "twice (line 1)" in messages[6]
    assert "more than 40 characters" in messages[7]
    assert "no name" in messages[9]
    assert "formula, not a club" in messages[11]


def test_semicolon_csv_in_utf8_with_bom(in_app: Flask) -> None:
    parsed = importing.from_csv(codecs.BOM_UTF8 + CLUB_LIST.replace("\n", "\r\n").encode())
    assert rows(parsed) == [
        ("Anna Maier", "TSV Musterhausen"),
        ("Jürgen Weiß", "SV Oberdorf"),
        ("Bärbel Öhler", ""),
    ]
    assert parsed.junk == ()


@pytest.mark.parametrize(
    ("encoding", "read_as", "check_first"),
    [
        ("cp1252", "windows-1252", True),
        ("latin-1", "windows-1252", True),
        ("utf-8", "utf-8", False),
        ("utf-16", "utf-16", False),
    ],
)
def test_club_exports_in_their_encodings(
    in_app: Flask, encoding: str, read_as: str, check_first: bool
) -> None:
    parsed = importing.from_csv(CLUB_LIST.encode(encoding))
    assert rows(parsed)[1] == ("Jürgen Weiß", "SV Oberdorf")
    assert parsed.encoding == read_as and parsed.check_first is check_first


def test_comma_csv_and_quoted_cells(in_app: Flask) -> None:
    data = b'Name,Club\nAnna Maier,TSV\n"Huber, Bert",SV\nCarl,\n'
    assert rows(importing.from_csv(data)) == [
        ("Anna Maier", "TSV"),
        ("Huber, Bert", "SV"),
        ("Carl", ""),
    ]


def test_surname_comma_first_name_is_one_name(in_app: Flask) -> None:
    data = b"Maier, Anna\nHuber, Bert\n"
    assert rows(importing.from_csv(data)) == [("Maier, Anna", ""), ("Huber, Bert", "")]


def test_tab_separated(in_app: Flask) -> None:
    assert rows(importing.from_csv(b"Anna\tTSV\nBert\tSV\n")) == [("Anna", "TSV"), ("Bert", "SV")]


def xlsx(*lines: tuple[object, ...], sheets: int = 1) -> bytes:
    book = Workbook()
    sheet = book.active
    for line in lines:
        sheet.append(list(line))
    for n in range(1, sheets):
        book.create_sheet(f"Blatt {n}").append(["Nicht", "diese"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_an_excel_sheet(in_app: Flask) -> None:
    data = xlsx(
        ("Spieler", "Verein", "Geburtstag"),
        ("Anna Maier", "TSV", "1960-01-01"),
        (None, None),
        ("Bert Huber", 1860),
        (42, "x"),
        ("=A2", None),
        ("Carl", 3.0),
        sheets=2,
    )
    parsed = importing.from_xlsx(data)
    assert rows(parsed) == [("Anna Maier", "TSV"), ("Bert Huber", "1860"), ("Carl", "3")]
    # a formula the sheet holds no value of (written by a program, never opened) is empty
    assert [line for line, _ in junk(parsed)] == [5]
    assert importing.from_file("Mitglieder.XLSX", data).rows == parsed.rows


def test_an_excel_sheet_named_csv_is_refused(in_app: Flask) -> None:
    with pytest.raises(RulesError, match="no CSV file"):
        importing.from_file("liste.csv", xlsx(("Anna",)))


@pytest.mark.parametrize(
    ("name", "data", "words"),
    [
        ("liste.xlsx", b"Anna;TSV\nBert\n", "no Excel workbook"),
        ("liste.xlsx", b"PK\x03\x04" + b"\x00" * 200, "cannot be read"),
        ("liste.xls", b"\xd0\xcf\x11\xe0" + b"\x00" * 100, "old Excel workbook"),
        ("liste.xlsx", b"\xd0\xcf\x11\xe0" + b"\x00" * 100, "old Excel workbook"),
        ("liste.pdf", b"%PDF-1.4", "cannot be imported"),
        ("liste.csv", b"%PDF-1.4\n...", "no CSV file"),
        ("liste.csv", b"\x00\x01\x02\x03" * 100, "no text file"),
        ("liste.csv", b"", "empty"),
        ("liste.csv", b"a" * (importing.MAX_BYTES + 1), "larger than"),
    ],
)
def test_files_that_cannot_be_read(in_app: Flask, name: str, data: bytes, words: str) -> None:
    with pytest.raises(RulesError, match=words):
        importing.from_file(name, data)


def test_a_corrupt_workbook(in_app: Flask) -> None:
    data = bytearray(xlsx(("Anna", "TSV"), ("Bert", "SV")))
    data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64
    with pytest.raises(RulesError, match="cannot be read"):
        importing.from_xlsx(bytes(data))
    with pytest.raises(RulesError, match="cannot be read"):
        importing.from_xlsx(xlsx(("Anna",))[:300])


def test_a_packed_bomb_is_refused_before_it_is_opened(in_app: Flask) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/sharedStrings.xml", b"<" + b"a" * (importing.MAX_UNPACKED + 1))
    data = out.getvalue()
    assert len(data) < importing.MAX_BYTES
    with pytest.raises(RulesError, match="unpacks to more than 8 MB"):
        importing.from_xlsx(data)


def test_more_than_1000_lines_imports_nothing(in_app: Flask) -> None:
    text = "\n".join(f"Spieler {i}" for i in range(importing.MAX_LINES + 1))
    with pytest.raises(RulesError, match="more than 1000 lines"):
        importing.from_csv(text.encode())
    assert len(importing.from_text(text.rsplit("\n", 1)[0]).rows) == importing.MAX_LINES


def test_a_long_excel_sheet_is_read_only_so_far(in_app: Flask) -> None:
    data = xlsx(*[(f"Spieler {i}",) for i in range(importing.MAX_LINES + 5)])
    with pytest.raises(RulesError, match="more than 1000 lines"):
        importing.from_xlsx(data)


def test_a_header_row_is_skipped_only_first(in_app: Flask) -> None:
    assert rows(importing.from_text("Name\nAnna\nName\n")) == [("Anna", ""), ("Name", "")]
