"""A file the browser downloads: its name in every language's letters, and the response.

The score sheet, the tournament's exports and backups, the series' files: every view
that answers with a file names it with :func:`file_name` and sends it with
:func:`download`.  The words of a name are the reader's (gettext at the call: German
``partie``, ``runde-1-tischkarten``, ``zettel``, ``sicherung``); only the game's name
``binokel`` and the app's ``scorer`` are the same in every language.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote

from flask import Response

# German letters the way a German writes them without: Rößle → Roessle
_SPELLED_OUT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue",
                              "ß": "ss"})  # fmt: skip


def file_name(*parts: object, ext: str) -> str:
    """A download name that keeps every language's letters: ``binokel-rößle-partie-2.pdf``
    (:func:`download` sends an ASCII spelling of it beside, for old browsers)."""
    text = "-".join(str(p) for p in parts if str(p))
    text = re.sub(r"[\W_]+", "-", text).strip("-").lower()[:60].strip("-") or "binokel"
    return f"{text}.{ext}"


def ascii_name(name: str) -> str:
    """The same name in ASCII: umlauts spelled out, accents dropped.

    >>> ascii_name("binokel-rößle-partie-1.csv"), ascii_name("binokel-café-ü.pdf")
    ('binokel-roessle-partie-1.csv', 'binokel-cafe-ue.pdf')
    >>> ascii_name("ранг.csv")
    'binokel.csv'
    """
    stem, _, ext = name.rpartition(".")
    plain = unicodedata.normalize("NFKD", stem.translate(_SPELLED_OUT))
    plain = plain.encode("ascii", "ignore").decode("ascii")
    plain = re.sub(r"[^A-Za-z0-9]+", "-", plain).strip("-") or "binokel"
    return f"{plain}.{ext}"


def download(data: bytes, mimetype: str, name: str, *, inline: bool = False) -> Response:
    """Bytes as a file response that caches are told not to keep.

    The name goes as ``filename`` in ASCII and, where it has other letters, as
    ``filename*`` in UTF-8 too (RFC 6266 / RFC 5987), which every current browser takes.
    """
    # content_type as given: with mimetype= Werkzeug adds a second "charset=utf-8"
    response = Response(data, content_type=mimetype)
    kind = "inline" if inline else "attachment"
    fallback = ascii_name(name)
    disposition = f'{kind}; filename="{fallback}"'
    if fallback != name:
        disposition += f"; filename*=UTF-8''{quote(name, safe='')}"
    response.headers["Content-Disposition"] = disposition
    response.headers["Cache-Control"] = "no-store"
    return response
