"""Blueprint 'sessions' (being built)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("sessions", __name__)
