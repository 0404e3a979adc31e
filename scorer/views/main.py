"""Home (recent sessions and matches, resume where you left off), the language switch,
and what makes the app installable: the web-app manifest and the service worker.

The service worker (``static/sw.js``, served from ``/sw.js`` so that its scope is the
whole app; registered by ``static/app.js``, no inline script):

- Static files (``/static/…``, fingerprinted with ``?v=``) come from its cache first.
- When it is activated it keeps ``/offline/de`` and ``/offline/en`` (:func:`offline`, the
  app's own page in each language, with its stylesheet): a page this phone never
  loaded, asked for without a connection, gets the one in the phone's language — never
  the copy of another page (the start page neither), whatever the phone keeps.
- Pages (navigations, GET only) come from the network first; a copy of the last 12
  pages this phone loaded is kept and shown when the network fails, marked as an
  offline copy (``data-offline-copy``: ``static/app.js`` shows a note and makes its
  forms inert, so the copy is read-only).  The copy turns back into the live page by
  itself: when the phone says it is online again, and every 15 s while it says so all
  along (poor reception), it asks its own address (HEAD) and reloads once that answers.
  htmx requests, polls, downloads and every POST go to the network and are never
  kept.  A first visit comes before the worker controls the page: the page hands it
  its own markup and file addresses (the files come from the browser's HTTP cache), so
  even that page is not asked for twice.

Pages are sent ``private, no-store`` (``scorer.web``): no HTTP cache and no proxy keeps
them, and that stays so.  The Cache API is not an HTTP cache and does not read
``Cache-Control``: it holds what the worker itself puts there, on this phone, in this
browser profile, under the page's own secret address.  Nothing of it is sent anywhere
or readable by another device or site; only pages the phone itself loaded are kept, and
only the last few.  Whoever holds the phone could read them anyway (the browser's
history has the same links).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from flask import (
    Blueprint,
    abort,
    current_app,
    jsonify,
    make_response,
    redirect,
    request,
    session,
    url_for,
)
from flask_babel import force_locale, get_locale, gettext
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
from ..assets import minified, static_url
from ..web import render, same_site_path

bp = Blueprint("main", __name__)


@bp.get("/")
def home() -> WerkzeugResponse:
    return render("main/home.html", recent=services.recent_sessions(session.get("recent", [])))


@bp.get("/language/<lang>")
def language(lang: str) -> WerkzeugResponse:
    """Switch the language and go back where the user was (the choice is remembered)."""
    # only a path of this site: anything else (another host, however disguised) goes home
    target = same_site_path(request.args.get("next")) or url_for("main.home")
    response = redirect(target)
    if lang in ("de", "en"):
        response.set_cookie("lang", lang, max_age=60 * 60 * 24 * 365, samesite="Lax", httponly=True)
    return response


@bp.get("/offline/<lang>")
def offline(lang: str) -> WerkzeugResponse:
    """The page the service worker shows for a page this phone has not loaded yet, when
    there is no connection: fetched once per language as the worker is activated (or
    with the next page loaded online), without cookies, so it says nothing of anyone's
    matches."""
    if lang not in current_app.config["LANGUAGES"]:
        abort(404)
    with force_locale(lang):
        return render("main/offline.html")


@bp.get("/manifest.webmanifest")
def manifest() -> WerkzeugResponse:
    """The web-app manifest: name, colours and icons, so a phone can install the app."""
    home = url_for("main.home")
    data = {
        "name": gettext("Binokel score sheet"),
        "short_name": "scorer",
        "description": gettext(
            "The Schreiber's companion: enter every hand, the app checks and adds up."
        ),
        "lang": str(get_locale()),
        "id": home,
        "start_url": home,
        "scope": home,
        "display": "standalone",
        "orientation": "portrait",
        "background_color": "#fbf8f1",
        "theme_color": "#1f4d3a",
        "icons": [
            {"src": static_url("icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static_url("icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {
                "src": static_url("icon-maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
            {"src": static_url("icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    response = jsonify(data)
    response.mimetype = "application/manifest+json"
    # its words follow the language (the cookie): asked again, never shared
    response.cache_control.private = True
    response.cache_control.no_cache = True
    response.vary.add("Cookie")
    return response


@bp.get("/sw.js")
def service_worker() -> WerkzeugResponse:
    """``static/sw.js`` from the root, so that its scope is the whole app.

    Always asked again (``no-cache``): a new version of the file reaches the phones at
    their next visit.  Its cache names carry the file's content hash.
    """
    folder = current_app.static_folder or ""
    script = (minified(Path(folder, "sw.js")) or b"").decode()
    version = hashlib.sha256(script.encode()).hexdigest()[:12]
    response = make_response(script.replace('VERSION="dev"', f'VERSION="{version}"', 1))
    response.mimetype = "text/javascript"
    response.headers["Service-Worker-Allowed"] = url_for("main.home")
    response.cache_control.no_cache = True
    response.cache_control.private = True
    return response
