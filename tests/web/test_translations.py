"""The German catalogue is complete, consistent and compiled.

German is the default language: a string missing here would show up in
English on a German table.  Run ``scorer/translations/update.sh`` after adding
UI text, then translate the new entries.
"""

from __future__ import annotations

import re
from io import BytesIO
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "scorer" / "translations" / "de" / "LC_MESSAGES"
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "lazy_gettext": None,
    "_l": None,
    "RulesError": None,
    "CardError": None,
    "MeldError": None,
    "TrickError": None,
    "BidError": None,
}
PLACEHOLDER = re.compile(r"%\((\w+)\)s|\{(\w+)\}")


def catalogue():  # type: ignore[no-untyped-def]
    with (CATALOGUE / "messages.po").open("rb") as handle:
        return read_po(handle, locale="de")


def names(text: str | tuple[str, ...] | list[str]) -> set[str]:
    """The placeholder names of a message (all forms of a plural together)."""
    if isinstance(text, str):
        text = (text,)
    return {a or b for form in text for a, b in PLACEHOLDER.findall(form)}


def key(message_id: str | tuple[str, ...] | list[str]) -> str:
    return message_id if isinstance(message_id, str) else message_id[0]


def value(string: str | tuple[str, ...] | list[str]) -> str | tuple[str, ...]:
    return string if isinstance(string, str) else tuple(string)


def test_every_message_has_a_german_translation() -> None:
    missing = [
        key(m.id)
        for m in catalogue()
        if m.id and (not m.string or m.fuzzy or not all(value(m.string)))
    ]
    assert missing == []


def test_placeholders_are_kept() -> None:
    wrong = [m.id for m in catalogue() if m.id and m.string and names(m.id) != names(m.string)]
    assert wrong == []


def test_compiled_catalogue_matches_the_po_file() -> None:
    with (CATALOGUE / "messages.mo").open("rb") as handle:
        compiled = read_mo(BytesIO(handle.read()))
    po = {key(m.id): value(m.string) for m in catalogue() if m.id}
    mo = {key(m.id): value(m.string) for m in compiled if m.id}
    assert mo == po, "run scorer/translations/update.sh"


def test_every_ui_string_is_in_the_catalogue() -> None:
    method_map = [("scorer/**.py", "python"), ("templates/**.html", "jinja2")]
    found: set[str] = set()
    # like update.sh: only hidden folders are skipped (babel's default also skips
    # folders starting with "_", such as templates/_macros)
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT),
        method_map=method_map,
        keywords=KEYWORDS,
        directory_filter=lambda path: not Path(path).name.startswith("."),
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    known = {key(m.id) for m in catalogue() if m.id}
    assert sorted(found - known) == [], "run scorer/translations/update.sh and translate"
