"""Static files: fingerprinted URLs that browsers keep for a year, and compressed responses.

``static_url("scorer.css")`` is ``/static/scorer.css?v=<hash of the content>``:
a phone keeps such a file for a year without asking again (``immutable``),
and a new version of the file gets a new URL.  A static URL without the
current hash (an old page, a hand-typed address) is served with the usual
revalidation instead.  Responses are compressed (zstd, brotli or gzip, as the
client accepts) by Flask-Compress.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

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
        # read the file here (closed with the response): Flask-Compress would otherwise
        # wrap the open file in a generator that never closes it
        response.direct_passthrough = False
        response.get_data()
    filename = (request.view_args or {}).get("filename", "")
    version = request.args.get("v")
    if version and version == _fingerprint(filename):
        response.cache_control.public = True
        response.cache_control.max_age = YEAR
        response.cache_control.immutable = True
        response.cache_control.no_cache = None
    return response


def init_app(app: Flask) -> None:
    """Compression, the ``static_url`` template helper and the static files' cache headers."""
    # small answers (a 304, a redirect) are not worth compressing
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)
    compress.init_app(app)
    app.after_request(_cache_static)
    app.jinja_env.globals["static_url"] = static_url
