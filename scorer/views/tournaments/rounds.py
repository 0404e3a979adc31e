"""See :mod:`scorer.views.tournaments`."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("t_rounds", __name__)
