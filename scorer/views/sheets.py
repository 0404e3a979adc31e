"""Blueprint 'sheets' (being built)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("sheets", __name__)
