"""Rendered PDFs kept on disk, their keys, and the render slots shared by all worker processes.

A long sheet is expensive (a second or more of CPU for a long match), so a
rendered PDF is kept as a file under the instance folder, keyed by everything
it shows, and served from there until the match changes (:func:`cached_pdf`);
and a render runs in one of the work slots it shares with the backup imports
(:mod:`scorer.slots`): a request that finds every slot taken for
``WORK_SLOT_WAIT`` seconds gets a 503 with ``Retry-After`` instead of tying up
one more worker.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import current_app
from flask_babel import get_locale

from ..models import GameSession, Match
from ..slots import Busy, folder, work_slot

log = logging.getLogger(__name__)


PdfBusy = Busy
"""Every work slot stayed taken for the whole wait (:class:`scorer.slots.Busy`)."""


@functools.lru_cache(maxsize=8)
def _code_fingerprint(template_folder: str) -> str:
    """A hash of what turns data into the PDF: templates, scorer.pdf's modules, translations.

    An upgrade that changes the sheet's look or words must not serve PDFs of
    the old one; read once per process.
    """
    templates = Path(template_folder)
    sources = sorted((templates / "pdf").glob("*.html"))
    sources += [
        templates / "sessions" / "_settlement.html",
        templates / "sessions" / "_stake_text.html",
    ]
    package = Path(__file__).parent  # scorer/pdf: every module of the sheet
    sources += sorted((package.parent / "translations").glob("*/LC_MESSAGES/*.mo"))
    sources += sorted(package.glob("*.py"))
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes() if path.is_file() else b"")
    return digest.hexdigest()


def _match_key(match: Match) -> list[Any]:
    return [
        match.token,
        match.version,
        match.updated_at,
        match.number,
        match.created_at,
        match.first_dealer,
        match.ruleset,
        [(seat.name, seat.party) for seat in match.seats],
        match.session.title,
    ]


def match_key(match: Match) -> str:
    """The cache key of a match's PDF: the match as of its version, the language, the code."""
    return _digest(["match", _match_key(match)])


def session_key(row: GameSession) -> str:
    """The cache key of a session's PDF: the session, the versions of all its matches, …"""
    head = [row.token, row.title, row.created_at, row.updated_at, row.stake_cents, row.stake_basis]
    return _digest(["session", head, [_match_key(m) for m in row.matches]])


def _digest(parts: list[Any]) -> str:
    parts += [str(get_locale()), _code_fingerprint(str(current_app.template_folder or ""))]
    text = json.dumps(parts, default=str, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _read_cached(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
        os.utime(path)  # recently used: pruned last
    except OSError:
        return None
    return data if data.startswith(b"%PDF") else None


def _store(folder: Path, path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a reader sees all of it or no file), then prune."""
    config = current_app.config
    if len(data) > config["PDF_CACHE_BYTES"]:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".pdf")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        _prune(folder, config["PDF_CACHE_FILES"], config["PDF_CACHE_BYTES"])
    except OSError:
        log.warning("could not keep a PDF in %s", folder, exc_info=True)


def _prune(folder: Path, max_files: int, max_bytes: int) -> None:
    """Drop the least recently used PDFs beyond ``max_files`` files or ``max_bytes`` bytes."""
    entries = []
    for path in folder.glob("*.pdf"):
        try:
            stat = path.stat()
        except OSError:
            continue  # another worker pruned it
        if path.name.startswith(".tmp-"):
            if stat.st_mtime < time.time() - 3600:  # left by a killed worker
                path.unlink(missing_ok=True)
            continue
        entries.append((stat.st_mtime, stat.st_size, path))
    for path in folder.glob("*.making"):
        try:
            if path.stat().st_mtime < time.time() - 3600:  # its holder was killed
                path.unlink(missing_ok=True)
        except OSError:
            continue
    entries.sort(reverse=True)
    size = 0
    for count, (_mtime, bytes_, path) in enumerate(entries, 1):
        size += bytes_
        if count > max_files or size > max_bytes:
            path.unlink(missing_ok=True)


def _where() -> Path:
    return folder("PDF_CACHE_DIR", "pdf-cache")


def read(key: str) -> bytes | None:
    """The kept PDF of ``key``, or None (not made, pruned, or the cache is off)."""
    if not current_app.config["PDF_CACHE"]:
        return None
    return _read_cached(_where() / f"{key}.pdf")


def keep(key: str, data: bytes) -> None:
    """Keep ``data`` as the PDF of ``key`` (nothing when the cache is off)."""
    if current_app.config["PDF_CACHE"]:
        where = _where()
        _store(where, where / f"{key}.pdf", data)


def cached_pdf(key: str, render: Callable[[], bytes]) -> bytes:
    """The PDF of ``key`` from the cache, else ``render()``'d in a slot and kept.

    Raises :class:`PdfBusy` when it had to be rendered and no slot came free.
    """
    data = read(key)
    if data is not None:
        return data
    with work_slot():
        # the same PDF may have been made while this request waited for the slot
        data = read(key)
        if data is None:
            data = render()
            keep(key, data)
    return data
