"""Which characters a players' list file holds: its encoding, read or refused, never guessed.

A club's CSV comes as UTF-8 (with or without a byte-order mark), as UTF-16 with
one, or — saved by an older Excel "CSV (Trennzeichen-getrennt)" — as Windows-1252.
A file that is neither cannot be told from Windows-1252 by its bytes alone: a
Shift-JIS list reads as Windows-1252 without an error, as garbled names.  So:

- UTF-8 and UTF-16 (with its mark) are read as they are;
- a file that is UTF-8 but for some bytes (damaged, or two encodings mixed) is
  refused, naming the first line that cannot be read;
- any other file is read as Windows-1252 when it can be, and the players page shows
  the names it found, saying so, before anything is stored (``CHECK_FIRST``); a name
  with characters no name has (``‚ ¾ ˜``: :func:`garbled`) is marked there;
- a file Windows-1252 cannot read either is refused.

The messages are ``RulesError`` templates (the pages say them in the user's language).
"""

from __future__ import annotations

import codecs
import unicodedata
from dataclasses import dataclass

from ...rules import RulesError

UTF8 = "utf-8"
UTF16 = "utf-16"
WINDOWS_1252 = "windows-1252"

CHECK_FIRST = frozenset({WINDOWS_1252})
"""The encodings whose names the organiser sees before they are stored."""

# what a name holds besides letters and their marks: spaces, hyphens, apostrophes, dots
_IN_NAMES = frozenset(" -'.’,()/&")


@dataclass(frozen=True)
class Decoded:
    """A list file's text and the encoding it was read in."""

    text: str
    encoding: str


def decode(data: bytes) -> Decoded:
    """The text of a list file, and the encoding it was read in; RulesError when neither
    UTF-8, UTF-16 (with its mark) nor Windows-1252 reads it.

    >>> decode("Jörg Müller".encode()).encoding, decode("Jörg Müller".encode("cp1252")).text
    ('utf-8', 'Jörg Müller')
    >>> decode("Jörg\\nMüller".encode() + b"\\xff").encoding  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.rules.errors.RulesError: line 2 of the file is not UTF-8 ...
    """
    if data.startswith(codecs.BOM_UTF8):
        return Decoded(_strict(data, "utf-8-sig"), UTF8)
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return Decoded(_strict(data, "utf-16"), UTF16)
    if data.count(b"\x00") * 100 > len(data):
        raise RulesError(
            "the file is no text file: save the list as CSV (UTF-8) or as an Excel workbook (.xlsx)"
        )
    try:
        return Decoded(data.decode("utf-8"), UTF8)
    except UnicodeDecodeError as error:
        if _mostly_utf8(data):
            raise RulesError(
                "line {line} of the file is not UTF-8 although the rest is (a damaged file, "
                "or two encodings mixed): correct that line, or save the list again as CSV "
                "UTF-8",
                line=data[: error.start].count(b"\n") + 1,
            ) from None
    try:
        return Decoded(data.decode("cp1252"), WINDOWS_1252)
    except UnicodeDecodeError:
        raise RulesError(
            "the file's characters are neither UTF-8 nor Windows-1252 (perhaps another "
            "script's encoding, such as Shift-JIS): save the list as CSV UTF-8 and try again"
        ) from None


def _mostly_utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 but for some bytes: at least as many characters beyond
    ASCII read as UTF-8 as bytes that cannot be.  (Another encoding makes a UTF-8
    character now and then by chance — a Shift-JIS name among a dozen unreadable bytes —
    but never more of them than it makes unreadable bytes.)"""
    read = data.decode("utf-8", errors="replace")
    unreadable = read.count("\ufffd")
    characters = sum(1 for c in read if not c.isascii()) - unreadable
    return characters >= unreadable


def _strict(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise RulesError(
            "the file's characters cannot be read: save it as CSV UTF-8 and try again"
        ) from None


def garbled(name: str) -> bool:
    """Whether ``name`` holds a character no name has: a sign, a symbol, a fraction, a
    typographic mark — what another encoding read as Windows-1252 turns into.

    >>> garbled("Jörg Müller-Šimek"), garbled("O'Brien, Anna"), garbled("ŽR“c‘¾˜Y")
    (False, False, True)
    """
    for character in name:
        if character in _IN_NAMES:
            continue
        if unicodedata.category(character)[0] not in "LM":
            return True
    return False
