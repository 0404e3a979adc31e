"""A list of players from pasted text, a CSV file or an Excel sheet: (name, club) pairs.

Clubs keep their members in Excel, or export them as CSV from it — in
Germany with semicolons, in Windows-1252 or UTF-8 with a byte-order mark.  The
first column is the name, an optional second one the club or town; a header
row ("Name", "Spieler" …) is skipped.  A line that is no name (a formula, a
number, control characters, too long, the same player twice) is reported with
its line number and left out; the good lines come through.  A file that cannot
be read at all (not what its name says, binary, a packed bomb, more than
:data:`MAX_LINES` lines) raises :class:`~scorer.rules.RulesError` and nothing
is imported.

The messages are ``RulesError`` templates, so the pages say them in the
user's language (``scorer.words.rules_message``).
"""

from __future__ import annotations

import csv
import io
import re
import warnings
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import PurePosixPath
from typing import Any

from ...rules import RulesError
from ..starting import storable
from . import list_encoding
from .entrants import MAX_CLUB, MAX_NAME

MAX_LINES = 1000
"""The most lines (players) one list brings."""
MAX_BYTES = 1024 * 1024
"""The largest file read (a list of 1,000 names is some 30 kB)."""
MAX_UNPACKED = 8 * 1024 * 1024
"""What an Excel file may unpack to at most (a packed bomb is refused before it is opened)."""
MAX_MEMBERS = 300
MAX_ROWS_READ = 5 * MAX_LINES
"""The most rows of a sheet read, empty ones included (sheets carry formatted empty rows)."""
MAX_LINE = 1000
"""A longer line is no name and no club: not even split into cells."""

HEADER_WORDS = frozenset(
    {
        "name",
        "namen",
        "name, vorname",
        "vorname name",
        "nachname",
        "vorname",
        "spieler",
        "spielerin",
        "spieler/in",
        "spielername",
        "teilnehmer",
        "teilnehmerin",
        "teilnehmer/in",
        "mitglied",
        "player",
        "players",
        "participant",
    }
)
EXCEL_SUFFIXES = (".xlsx", ".xlsm")
TEXT_SUFFIXES = (".csv", ".txt", ".tsv", "")

_FORMULA_START = ("=", "+", "-", "@")
_ZIP = b"PK\x03\x04"
_OLE = b"\xd0\xcf\x11\xe0"  # the old .xls (and .doc)
_SIGNATURES = (b"%PDF", b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"\x1f\x8b", b"Rar!", b"7z\xbc\xaf")
_COMMA_THEN_SPACE = re.compile(r",\s")


@dataclass(frozen=True)
class Row:
    """A player the list brings: the line it stands on, the name and the club (or "")."""

    line: int
    name: str
    club: str


@dataclass(frozen=True)
class Junk:
    """A line left out, and why."""

    line: int
    problem: RulesError


@dataclass(frozen=True)
class Parsed:
    """What a list holds: its players and the lines left out; a text file's ``encoding``
    (``list_encoding``: the names of some are shown before they are stored)."""

    rows: tuple[Row, ...]
    junk: tuple[Junk, ...]
    encoding: str = ""

    @property
    def check_first(self) -> bool:
        """Whether the organiser sees the names before they are stored (a file read as
        Windows-1252: another encoding would read the same way, as garbled names)."""
        return self.encoding in list_encoding.CHECK_FIRST


def as_text(rows: Iterable[Row]) -> str:
    """The players as a list the import reads back to the same players (``Name;Club``).

    What the organiser confirms after seeing the names: the names as read, not the file.

    >>> from_text(as_text([Row(1, "Maier, Anna", "TSV"), Row(2, "Jörg", "")])).rows
    (Row(line=1, name='Maier, Anna', club='TSV'), Row(line=2, name='Jörg', club=''))
    """
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    for row in rows:
        writer.writerow([row.name, row.club])
    return out.getvalue()


# -- cells to rows ---------------------------------------------------------------------


def _cell_text(value: Any) -> str | None:
    """A cell as text; None for what no name is (a number, a date, a truth value)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return " ".join(value.split())
    return None


def _club_text(value: Any) -> str:
    if isinstance(value, bool | date | datetime | time):
        return ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 10**9:
        return str(int(value))
    text = _cell_text(value)
    return text or ""


def _name_problem(line: int, raw: Any, name: str | None) -> RulesError | None:
    if name is None:
        return RulesError("line {line}: '{value}' is not a name", line=line, value=str(raw)[:20])
    if not name:
        return RulesError("line {line}: no name in the first column", line=line)
    if not storable(name):
        return RulesError("line {line}: the name holds control characters", line=line)
    if name.startswith(_FORMULA_START):
        return RulesError(
            "line {line}: '{value}' looks like a formula, not a name", line=line, value=name[:20]
        )
    if len(name) > MAX_NAME:
        return RulesError(
            "line {line}: the name has more than {most} characters", line=line, most=MAX_NAME
        )
    if name.replace(" ", "").isdecimal():
        return RulesError("line {line}: '{value}' is a number, not a name", line=line, value=name)
    return None


def _club_problem(line: int, club: str) -> RulesError | None:
    if not storable(club):
        return RulesError("line {line}: the club holds control characters", line=line)
    if club.startswith(_FORMULA_START):
        return RulesError(
            "line {line}: '{value}' looks like a formula, not a club", line=line, value=club[:20]
        )
    if len(club) > MAX_CLUB:
        return RulesError(
            "line {line}: the club has more than {most} characters", line=line, most=MAX_CLUB
        )
    return None


def _blank(cells: tuple[Any, ...]) -> bool:
    return all(c is None or (isinstance(c, str) and not c.strip()) for c in cells)


def rows_of(records: Iterable[tuple[int, tuple[Any, ...]]]) -> Parsed:
    """The players of ``records`` (line number, cells): first cell the name, second the club.

    Empty lines are passed over; a first line that names the columns is skipped.
    """
    rows: list[Row] = []
    junk: list[Junk] = []
    seen: dict[tuple[str, str], int] = {}
    first = True
    lines = 0
    for line, cells in records:
        if _blank(cells):
            continue
        lines += 1
        if lines > MAX_LINES:
            raise RulesError(
                "the list has more than {most} lines: nothing was imported. A tournament "
                "list has one player per line; split a longer one",
                most=MAX_LINES,
            )
        raw = cells[0] if cells else None
        name = _cell_text(raw)
        if first:
            first = False
            if name is not None and name.casefold().rstrip(":") in HEADER_WORDS:
                continue
        problem = _name_problem(line, raw, name)
        club = _club_text(cells[1]) if len(cells) > 1 else ""
        if problem is None:
            problem = _club_problem(line, club)
        if problem is None and name is not None:
            key = (name.casefold(), club.casefold())
            if key in seen:
                problem = RulesError(
                    "line {line}: {name} is in the list twice (line {first})",
                    line=line,
                    name=name,
                    first=seen[key],
                )
            else:
                seen[key] = line
                rows.append(Row(line, name, club))
                continue
        if problem is not None:
            junk.append(Junk(line, problem))
    return Parsed(tuple(rows), tuple(junk))


# -- text: pasted, or a CSV file ----------------------------------------------------------


def _delimiter(lines: list[str]) -> str | None:
    """How the columns are split: semicolon, tab, or a comma that is no "Maier, Anna"."""
    sample = [ln for ln in lines if ln.strip()][:50]
    if any(";" in ln for ln in sample):
        return ";"
    if any("\t" in ln for ln in sample):
        return "\t"
    with_comma = [ln for ln in sample if "," in ln]
    if not with_comma:
        return None
    # "Maier, Anna" (surname, first name) has a space after its comma; a CSV export does not
    spaced = sum(1 for ln in with_comma if _COMMA_THEN_SPACE.search(ln))
    return "," if spaced * 2 < len(with_comma) else None


def _records(text: str) -> Iterator[tuple[int, tuple[Any, ...]]]:
    lines = text.splitlines()
    delimiter = _delimiter(lines)
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE:
            # no name and no club is this long: reported as a name too long, never split
            yield number, (line[: MAX_NAME + 1],)
            continue
        if delimiter is None:
            yield number, (line,)
            continue
        cells = next(csv.reader([line], delimiter=delimiter), [])
        yield number, tuple(cells)


def from_text(text: str) -> Parsed:
    """The players of pasted text: one per line, ``Name; Verein`` allowed."""
    if len(text) > MAX_BYTES:
        raise RulesError(
            "the list is larger than {size} kB: nothing was imported", size=MAX_BYTES // 1024
        )
    return rows_of(_records(text.lstrip("\ufeff")))


def from_csv(data: bytes) -> Parsed:
    """The players of a CSV file (semicolons, commas or tabs; UTF-8, UTF-16 or Windows-1252:
    ``list_encoding``, whose ``encoding`` it keeps)."""
    _size(data)
    if data.startswith(_ZIP) or data.startswith(_OLE) or data.startswith(_SIGNATURES):
        raise RulesError(
            "the file is no CSV file: save the list as CSV or as an Excel workbook (.xlsx)"
        )
    decoded = list_encoding.decode(data)
    parsed = rows_of(_records(decoded.text))
    return Parsed(parsed.rows, parsed.junk, decoded.encoding)


# -- an Excel workbook -----------------------------------------------------------------------


def _size(data: bytes) -> None:
    if len(data) > MAX_BYTES:
        raise RulesError(
            "the file is larger than {size} kB: nothing was imported", size=MAX_BYTES // 1024
        )
    if not data.strip():
        raise RulesError("the file is empty")


def _check_packing(data: bytes) -> None:
    """Refuse a workbook that would unpack to more than :data:`MAX_UNPACKED` (a zip bomb).

    The sizes are the archive's own word; reading a member stops at its stated
    size and fails its checksum if it lied, so the sum holds.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        raise _unreadable() from error
    if len(members) > MAX_MEMBERS or sum(m.file_size for m in members) > MAX_UNPACKED:
        raise RulesError(
            "the workbook unpacks to more than {size} MB: nothing was imported. Copy the "
            "names into a new workbook, or save them as CSV",
            size=MAX_UNPACKED // (1024 * 1024),
        )


def _unreadable() -> RulesError:
    return RulesError(
        "the workbook cannot be read (damaged, or protected by a password): save it again "
        "in Excel as .xlsx, or as CSV"
    )


def _sheet_rows(data: bytes) -> list[tuple[int, tuple[Any, ...]]]:
    from openpyxl import load_workbook  # only the import page needs it

    records: list[tuple[int, tuple[Any, ...]]] = []
    # a broken or hostile workbook can fail anywhere inside the parser: every failure
    # means the same to the organiser (it cannot be read), and nothing is imported
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl warns about styles it does not know
            book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
            try:
                sheets = book.worksheets
                if not sheets:
                    return records
                cells = sheets[0].iter_rows(max_row=MAX_ROWS_READ, max_col=2, values_only=True)
                for number, row in enumerate(cells, start=1):
                    records.append((number, tuple(row)))
            finally:
                book.close()
    except RulesError:
        raise
    except Exception as error:
        raise _unreadable() from error
    return records


def from_xlsx(data: bytes) -> Parsed:
    """The players of an Excel workbook's first sheet: column A the name, B the club."""
    _size(data)
    if data.startswith(_OLE):
        raise RulesError(
            "the file is an old Excel workbook (.xls): save it in Excel as .xlsx or as CSV"
        )
    if not data.startswith(_ZIP):
        raise RulesError("the file is no Excel workbook (.xlsx): save the list as .xlsx or as CSV")
    _check_packing(data)
    return rows_of(_sheet_rows(data))


def from_file(filename: str, data: bytes) -> Parsed:
    """The players of an uploaded file, read as what its name says it is.

    ``.xlsx`` is read as an Excel workbook, ``.csv``, ``.txt`` (or no suffix) as
    text; anything else is refused with what to do.  A file that is not what
    its name says is refused too, and nothing is imported.
    """
    suffix = PurePosixPath(str(filename).replace("\\", "/")).suffix.lower()
    if suffix in EXCEL_SUFFIXES:
        return from_xlsx(data)
    if suffix == ".xls":
        raise RulesError(
            "the file is an old Excel workbook (.xls): save it in Excel as .xlsx or as CSV"
        )
    if suffix in TEXT_SUFFIXES:
        return from_csv(data)
    raise RulesError(
        "'{suffix}' files cannot be imported: a CSV file or an Excel workbook (.xlsx)",
        suffix=suffix[:12],
    )
