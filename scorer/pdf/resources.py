"""What a sheet may read: our static files and the DejaVu fonts, nothing else.

Fonts are embedded: DejaVu Sans, read from the system's font directory
(``PDF_FONT_DIR``, default ``/usr/share/fonts/truetype/dejavu``).  The URL
fetcher reads only our own static files and those font files — a sheet never
touches the network, whatever a player's name says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from flask import current_app

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONT_FILES = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSansCondensed.ttf",
    "DejaVuSansCondensed-Bold.ttf",
    "DejaVuSansMono.ttf",  # the hands' lines (scorer.pdf.grid)
)


class FetchRefused(ValueError):
    """A URL outside our static files (WeasyPrint logs it and leaves the resource out)."""


def allowed_files() -> list[Path]:
    """The font files a sheet may read (``PDF_FONT_DIR``), besides our static folder."""
    font_dir = Path(current_app.config.get("PDF_FONT_DIR", FONT_DIR))
    return [font_dir / name for name in FONT_FILES]


def font_file(name: str) -> Path:
    """The path of one of :data:`FONT_FILES`."""
    return allowed_files()[FONT_FILES.index(name)]


def font_urls() -> dict[str, str]:
    """The font file URLs for ``@font-face``: regular, bold, their condensed cuts, mono."""
    regular, bold, condensed, condensed_bold, mono = allowed_files()
    return {
        "regular": regular.as_uri(),
        "bold": bold.as_uri(),
        "condensed": condensed.as_uri(),
        "condensed_bold": condensed_bold.as_uri(),
        "mono": mono.as_uri(),
    }


def fetch_file(url: str) -> tuple[bytes, str | None]:
    """The bytes and type of a file of our static folder or one of the sheet's fonts.

    Everything else is refused with :class:`FetchRefused` (other schemes,
    other files, paths that climb out of the static folder).
    """
    parsed = urlparse(url)
    if parsed.scheme != "file":
        raise FetchRefused(f"the PDF reads no {parsed.scheme!r} URLs: {url}")
    path = Path(unquote(parsed.path)).resolve()
    static = Path(current_app.static_folder or "").resolve()
    allowed = path.is_file() and (
        path.is_relative_to(static) or path in [p.resolve() for p in allowed_files()]
    )
    if not allowed:
        raise FetchRefused(f"the PDF reads only our static files, not {url}")
    mime = "font/ttf" if path.suffix == ".ttf" else None
    return path.read_bytes(), mime


def url_fetcher() -> Any:
    """A WeasyPrint URL fetcher that reads only through :func:`fetch_file`."""
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class StaticOnly(URLFetcher):
        def fetch(self, url: str, headers: Any = None) -> Any:
            body, mime = fetch_file(url)
            return URLFetcherResponse(url, body, {"Content-Type": mime} if mime else None)

    return StaticOnly(allowed_protocols=("file",))
