"""Home (recent sessions and matches, resume where you left off) and the language switch."""

from __future__ import annotations

from flask import Blueprint, redirect, request, session, url_for
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import services
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
