"""The same person across evenings (docs/rules.md section 13.1): names that are alike."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher

_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_SOUNDS = (
    ("ay", "ei"),
    ("ey", "ei"),
    ("ai", "ei"),
    ("ph", "f"),
    ("th", "t"),
    ("dt", "t"),
    ("ck", "k"),
    ("tz", "z"),
    ("y", "i"),
)


def name_key(name: str) -> str:
    """A name as it is compared for the same person: case, spaces and dots do not count.

    >>> name_key("  Hans   MAIER ")
    'hans maier'
    """
    return " ".join(name.replace(".", " ").casefold().split())


def _sound(name: str) -> str:
    """A name as it sounds in Swabia: Maier, Meier, Mayer and Meyer alike, ä as ae."""
    text = unicodedata.normalize("NFKD", name_key(name).translate(_UMLAUTS))
    text = "".join(c for c in text if c.isalnum() or c == " ")
    for spelled, said in _SOUNDS:
        text = text.replace(spelled, said)
    text = re.sub(r"(.)\1+", r"\1", text)
    return " ".join(sorted(text.split()))


def alike_names(name: str, names: Sequence[str]) -> list[int]:
    """Indices of ``names`` that may be the same person as ``name`` but are not spelled alike.

    The same :func:`name_key` is the same person (not listed here); a name that
    sounds the same (Schäfer, Schaefer; Maier, Meyer; first and last name
    swapped), has the same last name and a first name that is the other's
    initial (H. Maier), or differs by one letter in a longer name is alike.

    >>> alike_names("Hans Schäfer", ["Hans Schaefer", "Hans Schäfer", "H. Schäfer", "Eva Schäfer"])
    [0, 2]
    >>> alike_names("Meyer Sepp", ["Sepp Maier", "Sepp Mayr", "Josef Maier"])
    [0, 1]
    """
    key, sound = name_key(name), _sound(name)
    parts = key.split()
    found: list[int] = []
    for index, other in enumerate(names):
        other_key = name_key(other)
        if not other_key or other_key == key:
            continue
        other_sound = _sound(other)
        other_parts = other_key.split()
        alike = other_sound == sound
        if not alike and len(parts) > 1 and len(other_parts) > 1:
            same_last = _sound(parts[-1]) == _sound(other_parts[-1])
            first, other_first = parts[0], other_parts[0]
            initial = (len(first) == 1 or len(other_first) == 1) and first[0] == other_first[0]
            alike = same_last and initial
        if not alike and min(len(sound), len(other_sound)) >= 6:
            alike = SequenceMatcher(None, sound, other_sound).ratio() >= 0.9
        if alike:
            found.append(index)
    return found
