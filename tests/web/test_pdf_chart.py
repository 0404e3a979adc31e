"""The score chart on the PDF sheet: the label at each line's end is whole on paper, a loss
with its brackets too (issue 34 §7: "Jürgen (−350" was cut at the drawing's edge).

pdftotext reads a label whole even where the drawing clips it, so the page is rendered
to PNG (pdftoppm) as well and the label's ink is looked for up to its closing bracket.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from PIL import Image

from scorer.services import HandInput
from tests.builders import service_match
from tests.pdf_words import pdf_words

A4_WIDTH = 595.28
MARGIN = 12 / 25.4 * 72  # the @page side margin, in points
DPI = 200


def hands_ending_at(loss: int) -> list[HandInput]:
    """Jürgen goes off at ``loss`` and takes no trick after: he ends at −``loss``."""
    gone = HandInput(
        declarer=2, bid=loss, trump="H", outcome="gone_off", melds=[0, 0, 0], tricks=[None] * 3
    )
    made = HandInput(declarer=0, bid=150, trump="E", melds=[100, 0, 0], tricks=[130, 120, 0])
    return [gone, made, made]


def ink_right_edge(png: Path, box: tuple[float, float, float, float]) -> float:
    """The rightmost drawn pixel (in points) in the band of ``box`` (left, top, right,
    bottom in points), searched up to a little beyond its right end."""
    scale = DPI / 72
    image = Image.open(png).convert("L")
    left, top, right, bottom = (round(v * scale) for v in box)
    band = image.crop((left, top, min(image.width, right + round(6 * scale)), bottom))
    width, height = band.size
    pixels = band.load()
    assert pixels is not None
    for x in range(width - 1, -1, -1):
        if any(pixels[x, y] < 160 for y in range(height)):
            return (left + x + 1) / scale
    return left / scale


@pytest.mark.parametrize(("lang", "loss"), [("de", 350), ("de", 1350), ("en", 350)])
def test_a_loss_at_the_end_of_a_line_is_labelled_whole_on_paper(
    app: Flask, client: FlaskClient, tmp_path: Path, lang: str, loss: int
) -> None:
    token = service_match(app, ["Anna", "Bernd", "Jürgen"], hands_ending_at(loss))
    data = client.get(f"/m/{token}/sheet.pdf?lang={lang}").data
    words = pdf_words(data, tmp_path)
    heading = "Verlauf" if lang == "de" else "Score"
    chart_top = next(w[2] for w in words if w[5] == heading)
    written = f"(−{loss:,})"
    if lang == "de":
        written = written.replace(",", ".")
    label = [w for w in words if w[5] == written and w[2] > chart_top]
    assert label, (written, [w[5] for w in words if w[2] > chart_top])
    page, left, top, right, bottom, _ = label[0]
    name = next(w for w in words if w[5] == "Jürgen" and abs(w[2] - top) < 1)
    assert name[3] < left  # "Jürgen (−…)" on one line
    assert right <= A4_WIDTH - MARGIN  # inside the page's text
    # drawn to its end: the closing bracket's ink, not cut at the drawing's edge
    path = tmp_path / "sheet.pdf"
    path.write_bytes(data)
    subprocess.run(
        [
            "pdftoppm",
            "-png",
            "-r",
            str(DPI),
            "-f",
            str(page + 1),
            "-l",
            str(page + 1),
            "-singlefile",
            str(path),
            str(tmp_path / "page"),
        ],
        check=True,
    )
    edge = ink_right_edge(tmp_path / "page.png", (left, top, right, bottom))
    assert edge >= right - 1.5, (written, edge, right)
