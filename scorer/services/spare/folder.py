"""With no spare at hand: every tournament and series written to a folder, each file complete.

The organiser picks a folder — a USB stick — on the hall's page (or with the
``BACKUP_FOLDER`` setting).  The hall's follower (``python -m scorer.follow``)
then writes, a few seconds after every change, the backup file of each
tournament that changed (a series' evenings: the series' file, with every
evening), the same files "Download backup" gives and "Restore a tournament from
a backup" takes.

Each file is complete at every moment: it is read in one snapshot of the
database, written to a temporary file in the same folder, flushed to the disk
(``fsync``) and only then renamed over the old one (and the folder's entry
flushed too) — a laptop dying mid-write leaves the file before, never half a
file.  A file is written at most every :data:`MIN_GAP` seconds, or as long as
its last write took (a big tournament on a slow stick), so the follower never
spends all its time on one stick.  Each match's part of a file is
kept between writes by its version (``tournaments.backup_loading.Kept``): a
write reads again only the tables that changed (a 200-table tournament: a
fifth of a second instead of seconds).
"""

from __future__ import annotations

import os
import re
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...extensions import db
from ...hall_models import HallState
from ...models import utcnow
from ...rules import RulesError
from ...tournament_models import Series, Tournament
from ..backup_format import dumps
from ..tournaments.backup import export_series, export_tournament
from ..tournaments.backup_loading import Kept
from ..unit import machinery, use_case
from . import role as roles
from .changes import Key, Survey, snapshot

_SPELLED_OUT = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"}
)
MIN_GAP = 2.0
"""Seconds between two writes of one file at least."""
SLOW = 1.0
"""A file is written again at the earliest this many times its last write's time later (the
follower runs at a low priority: what it spends is the phones' spare CPU; on a slow stick
or a busy laptop the writes space out by themselves)."""
MOST_FOLDER = 500
PLACES = ("/media", "/run/media", "/mnt", "/Volumes")
"""Where a USB stick shows up on a laptop (Debian and Ubuntu, Fedora, by hand, macOS)."""


def slug(text: str) -> str:
    """A file name's part that every stick's file system takes (FAT included).

    >>> slug("Herbstturnier im Rößle!")
    'herbstturnier-im-roessle'
    """
    spelled = text.translate(_SPELLED_OUT)
    plain = unicodedata.normalize("NFKD", spelled).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^A-Za-z0-9]+", "-", plain).strip("-").lower()[:50] or "binokel"


def file_name(kind: str, name: str, held_on: str, view_token: str) -> str:
    """The name a tournament's (``turnier``) or a series' (``serie``) file gets."""
    parts = [kind, slug(name), held_on, re.sub(r"[^A-Za-z0-9]", "", view_token)[:6]]
    return "-".join(p for p in parts if p) + ".json"


def write_atomically(path: Path, data: bytes) -> None:
    """``data`` as ``path``: a temporary file beside it, flushed to the disk, renamed over it."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    try:
        folder = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return  # a file system whose folders cannot be opened (the rename is done)
    try:
        os.fsync(folder)
    except OSError:
        pass  # some file systems do not flush a folder; the file itself is on the disk
    finally:
        os.close(folder)


def check_folder(text: str) -> str:
    """A folder the organiser typed, as the follower will use it; RulesError saying what."""
    value = str(text).strip()
    if not value:
        return ""
    if len(value) > MOST_FOLDER or not value.isprintable():
        raise RulesError("a folder's path is at most {most} characters", most=MOST_FOLDER)
    path = Path(value).expanduser()
    if not path.is_absolute():
        raise RulesError("give the whole path of the folder, starting with /")
    if not path.is_dir():
        raise RulesError("there is no folder {path} on this laptop", path=str(path))
    probe = path / f".scorer-probe-{os.getpid()}"
    try:
        write_atomically(probe, b"scorer")
        probe.unlink()
    except OSError:
        raise RulesError("this laptop cannot write to {path}", path=str(path)) from None
    return str(path)


@use_case
def set_folder(text: str) -> str:
    """The organiser's folder for the continuous backup ("" : none, or the setting's)."""
    chosen = check_folder(text)
    state = roles.state_row()
    state.folder = chosen
    state.folder_error = ""
    state.folder_written_at = None
    state.folder_files = 0
    return chosen


def chosen_folder(setting: str) -> str:
    """The folder in use: the organiser's choice, else the ``BACKUP_FOLDER`` setting."""
    row = db.session.get(HallState, roles.ROW)
    return (row.folder if row is not None and row.folder else "") or setting


def sticks() -> list[str]:
    """The folders where USB sticks are mounted on this laptop now (the page offers them)."""
    found = []
    for place in PLACES:
        base = Path(place)
        try:
            layers = [base, *[p for p in base.iterdir() if p.is_dir()]]
        except OSError:
            continue
        for layer in layers:
            try:
                for mounted in sorted(layer.iterdir()):
                    if mounted.is_dir() and os.path.ismount(mounted):
                        found.append(str(mounted))
            except OSError:
                continue
    return sorted(set(found))[:10]


@machinery
def _note(*, files: int = 0, error: str = "") -> None:
    state = roles.state_row()
    state.folder_error = error[:300]
    if not error:
        state.folder_written_at, state.folder_files = utcnow(), files


@dataclass
class Folder:
    """The follower's writing of the folder: what each file holds, when it was written."""

    survey: Survey = field(default_factory=Survey)
    kept: Kept = field(default_factory=Kept)
    written: dict[str, str] = field(default_factory=dict)
    when: dict[str, float] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)
    folder: str = ""

    def round(self, setting: str = "") -> int:
        """Write the files whose tournament changed (due ones); how many were written."""
        folder = chosen_folder(setting)
        state = roles.current()
        db.session.rollback()
        if not folder or not state.is_hall:
            return 0
        if folder != self.folder:
            self.folder, self.written = folder, {}
        path = Path(folder)
        if not path.is_dir():
            _note(error=f"no folder {folder}")
            return 0
        made: list[tuple[str, str, str, bytes, float]] = []
        now = time.monotonic()
        with snapshot() as connection:
            self.survey.look(connection)
            for keys in self.survey.groups():
                name, state_of = self._due(keys, now)
                started = time.monotonic()
                if name is not None and (data := _export(keys, self.kept)) is not None:
                    made.append((name, state_of, *data, time.monotonic() - started))
        written = 0
        for name, state_of, file, document, exporting in made:
            started = time.monotonic()
            try:
                write_atomically(path / file, document)
            except OSError as error:
                _note(error=f"{file}: {error.strerror or error}")
                return written
            # what a write of this file costs: reading it out and writing it
            self.cost[name] = exporting + time.monotonic() - started
            self.written[name], self.when[name] = state_of, time.monotonic()
            written += 1
        if written:
            _note(files=len(self.written))
        return written

    def _due(self, keys: list[Key], now: float) -> tuple[str | None, str]:
        name = f"{keys[0][0]}{keys[0][1]}"
        state_of = "|".join(f"{k[0]}{k[1]}:{self.survey.fingerprints.get(k, '')}" for k in keys)
        if self.written.get(name) == state_of:
            return None, state_of
        gap = max(MIN_GAP, SLOW * self.cost.get(name, 0.0))
        if now - self.when.get(name, -gap) < gap:
            return None, state_of
        return name, state_of


def _export(keys: list[Key], kept: Kept) -> tuple[str, bytes] | None:
    """A group's file: its name and its bytes (a series' with every evening); the matches
    exported before are ``kept`` (only those that changed are read again)."""
    kind, unit_id = keys[0]
    if kind == "s":
        series = db.session.get(Series, unit_id)
        if series is None:
            return None
        data: dict[str, Any] = export_series(series, kept)
        name = file_name("serie", series.name, "", series.view_token)
    else:
        tournament = db.session.get(Tournament, unit_id)
        if tournament is None:
            return None
        data = export_tournament(tournament, kept)
        name = file_name("turnier", tournament.name, tournament.held_on, tournament.view_token)
    return name, dumps(data).encode("utf-8")
