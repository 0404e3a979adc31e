"""Where the app's templates, static files and migrations are: in the package, or beside it.

In a checkout (and an editable install) they sit at the top of the repository;
a built wheel carries them inside the package (``pyproject.toml``'s
``[tool.setuptools]``), so an installed
scorer (``pipx install``, a wheel) finds them from any folder.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent


def folder(name: str) -> Path:
    """The folder ``name`` (``templates``, ``static``, ``migrations``) of this scorer."""
    inside = PACKAGE / name
    return inside if inside.is_dir() else CHECKOUT / name


def _release() -> str:
    try:
        return metadata.version("scorer")
    except metadata.PackageNotFoundError:  # a checkout that was never installed
        return "0"


RELEASE = _release()
"""This scorer's release (pyproject.toml's version): a backup records the release that wrote it."""


def release_key(release: str) -> tuple[int, ...]:
    """A release as numbers to compare ("0.10.1" after "0.9"); anything else is release 0.

    >>> release_key("0.2.0") > release_key("0.1.9"), release_key("junk")
    (True, (0,))
    """
    if not isinstance(release, str) or not re.fullmatch(r"[0-9]{1,6}(\.[0-9]{1,6}){0,4}", release):
        return (0,)
    return tuple(int(part) for part in release.split("."))
