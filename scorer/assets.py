"""Static files: fingerprinted URLs that browsers keep for a year, and compressed responses.

``static_url("scorer.css")`` is ``/static/scorer.css?v=<hash of the content>``:
a phone keeps such a file for a year without asking again (``immutable``),
and a new version of the file gets a new URL.  A static URL without the
current hash (an old page, a hand-typed address) is served with the usual
revalidation instead.  Scripts and style sheets are served minified (rjsmin,
rcssmin: the comments stay in the repository, not on the wire) and, to a client
that takes brotli, compressed once at brotli's best (kept per file and version:
a first visit on a slow line is what it is for).  Other responses are compressed
(zstd, brotli or gzip, as the client accepts) by Flask-Compress at its quick
default levels.  Static files carry no page headers (CSP, frame and referrer
rules are for documents); ``nosniff`` stays.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import brotli
import rcssmin
import rjsmin
from flask import Flask, Response, current_app, request, url_for

from .extensions import compress

YEAR = 365 * 24 * 60 * 60

# (path, modification time) -> content hash; files are read once per process and version
_hashes: dict[tuple[str, int], str] = {}


def _fingerprint(filename: str) -> str | None:
    folder = current_app.static_folder
    if folder is None:
        return None
    path = Path(folder, filename)
    try:
        key = (str(path), path.stat().st_mtime_ns)
    except OSError:
        return None
    digest = _hashes.get(key)
    if digest is None:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        _hashes[key] = digest
    return digest


# (path, modification time) -> the file minified
_minified: dict[tuple[str, int], bytes] = {}
# (path, modification time) -> the file minified and compressed with brotli's best
_packed: dict[tuple[str, int], bytes] = {}
PAGE_HEADERS = ("Content-Security-Policy", "Referrer-Policy", "X-Frame-Options")
_MINIFIERS = {".js": rjsmin.jsmin, ".css": rcssmin.cssmin}


def minified(path: Path) -> bytes | None:
    """A script or style sheet without comments and spare blanks (``None``: another file)."""
    minify = _MINIFIERS.get(path.suffix)
    if minify is None:
        return None
    try:
        key = (str(path), path.stat().st_mtime_ns)
    except OSError:
        return None
    text = _minified.get(key)
    if text is None:
        source = path.read_text(encoding="utf-8")
        text = (source if path.name.endswith(".min.js") else minify(source)).encode()
        _minified[key] = text
    return text


def static_url(filename: str) -> str:
    """The URL of a static file with its content hash (cached for a year by the browser)."""
    digest = _fingerprint(filename)
    if digest is None:
        return url_for("static", filename=filename)
    return url_for("static", filename=filename, v=digest)


def _cache_static(response: Response) -> Response:
    if request.endpoint != "static" or response.status_code not in (200, 304):
        return response
    if response.status_code == 200 and response.direct_passthrough:
        # read the file here and close it at once: Flask-Compress would otherwise wrap the
        # open file in a generator that never closes it, and left to the response's end it
        # stays open when the browser drops the connection first (a ResourceWarning)
        response.direct_passthrough = False
        close = getattr(response.response, "close", None)
        response.get_data()
        if close is not None:
            close()
    filename = (request.view_args or {}).get("filename", "")
    path = Path(current_app.static_folder or "", filename)
    if path.suffix in _MINIFIERS:
        for name in PAGE_HEADERS:
            response.headers.pop(name, None)
        response.headers.pop("Content-Disposition", None)
    if response.status_code == 200 and not response.headers.get("Content-Range"):
        small = minified(path)
        if small is not None:
            response.set_data(small)
            if request.accept_encodings["br"] > 0:
                _send_packed(response, path, small)
    version = request.args.get("v")
    if version and version == _fingerprint(filename):
        response.cache_control.public = True
        response.cache_control.max_age = YEAR
        response.cache_control.immutable = True
        response.cache_control.no_cache = None
    return response


def _send_packed(response: Response, path: Path, small: bytes) -> None:
    """The minified file as brotli at quality 11, compressed once per version."""
    key = (str(path), path.stat().st_mtime_ns)
    packed = _packed.get(key)
    if packed is None:
        packed = brotli.compress(small, quality=11)
        _packed[key] = packed
    response.set_data(packed)
    response.headers["Content-Encoding"] = "br"  # Flask-Compress leaves it as it is
    response.vary.add("Accept-Encoding")
    etag, weak = response.get_etag()
    if etag:
        response.set_etag(f"{etag}:br", weak=bool(weak))


def init_app(app: Flask) -> None:
    """Compression, the ``static_url`` template helper and the static files' cache headers."""
    # small answers (a 304, a redirect) are not worth compressing
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)
    compress.init_app(app)
    app.after_request(_cache_static)
    app.jinja_env.globals["static_url"] = static_url
