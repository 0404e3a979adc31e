"""The year sheet of a Stammtisch as a PDF: ranking, the chart, the evenings, money, records.

Rendered like the score sheet (WeasyPrint with the DejaVu faces, a URL fetcher
that reads only our static files: :func:`scorer.pdf.layout.render_pdf`) from
``templates/stammtisch/pdf/year.html`` and the plain values the view hands over
(this package knows no row of the group: the match's PDF room imports nothing of
it).  The page is rendered to HTML first — cheap — and the PDF is kept in the
disk cache under the digest of that HTML (:func:`scorer.pdf.cache.cached_pdf`):
everything the PDF shows is in its key, and nothing else, so a saved hand that
changes the year makes a new one and a page view that changes nothing does not.
A4 portrait, the table heads repeated, page numbers.
"""

from __future__ import annotations

import hashlib
from typing import Any

from flask import render_template

from ..cache import cached_pdf
from ..layout import css_string, page_numbers, render_pdf
from ..resources import font_urls

TEMPLATE = "stammtisch/pdf/year.html"


def year_html(title: str, **context: Any) -> str:
    """The year sheet as the HTML WeasyPrint renders."""
    return render_template(
        TEMPLATE,
        fonts=font_urls(),
        page_numbers=page_numbers(),
        title=title,
        css_title=css_string(title),
        **context,
    )


def year_pdf(title: str, **context: Any) -> bytes:
    """The year sheet as PDF bytes, from the cache when its HTML has been rendered before
    (raises :class:`scorer.pdf.PdfBusy` when it must be rendered and no slot is free)."""
    html = year_html(title, **context)
    key = hashlib.sha256(("stammtisch-year\n" + html).encode()).hexdigest()
    return cached_pdf(key, lambda: render_pdf(html))
