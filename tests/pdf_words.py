"""The words of a PDF with their boxes, as poppler's ``pdftotext -bbox`` finds them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

Box = tuple[int, float, float, float, float, str]
"""A word: its page (from 0), left, top, right, bottom (in the unit asked), its text."""

POINT = 1.0
MM = 72 / 25.4
"""Points in a millimetre: ``unit=MM`` gives the boxes in mm from the page's corner."""

_WORD = re.compile(r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<')


def pdf_words(data: bytes, tmp_path: Path, unit: float = POINT) -> list[Box]:
    """Every word of the PDF ``data`` with its page and box (in points, or ``unit``)."""
    path = tmp_path / "words.pdf"
    path.write_bytes(data)
    html = subprocess.run(
        ["pdftotext", "-bbox", str(path), "-"], capture_output=True, check=True, text=True
    ).stdout
    found: list[Box] = []
    for page, body in enumerate(html.split("<page ")[1:]):
        for x0, y0, x1, y1, word in _WORD.findall(body):
            left, top, right, bottom = (float(v) / unit for v in (x0, y0, x1, y1))
            found.append((page, left, top, right, bottom, word))
    return found
