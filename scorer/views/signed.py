"""What the routes another instance calls share (a hall's pushes to its hosted copy or its
spare, a spare pairing with its hall): JSON answers no cache keeps, numbers from headers.

Those routes carry no form and no cookie: a signature with a shared key is their proof
(``services.online.signing``), checked by the service they call.
"""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request


def answer(status: int, **values: Any) -> Response:
    """A JSON answer with ``status``, kept by no cache."""
    response = jsonify(values)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response


def header_number(name: str) -> int | None:
    """A whole number the request carries in the header ``name`` (at most 12 digits)."""
    raw = request.headers.get(name, "")
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 12 else None
