"""Blueprint 'melds' (being built)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("melds", __name__)
