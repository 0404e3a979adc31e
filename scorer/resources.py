"""Where the app's templates, static files and migrations are: in the package, or beside it.

In a checkout (and an editable install) they sit at the top of the repository;
a built wheel carries them inside the package (``setup.py``), so an installed
scorer (``pipx install``, a wheel) finds them from any folder.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent


def folder(name: str) -> Path:
    """The folder ``name`` (``templates``, ``static``, ``migrations``) of this scorer."""
    inside = PACKAGE / name
    return inside if inside.is_dir() else CHECKOUT / name
