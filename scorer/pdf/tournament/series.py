"""The series ranking on paper (Binokel-Cup): a line per person, points per evening, total.

Rendered like the tournament's printouts (WeasyPrint, the DejaVu faces, only
our static files fetched: :func:`scorer.pdf.layout.render_pdf`) from the plain
:class:`~scorer.services.tournaments.series.SeriesStandings`; the evenings that
do not count for a person are printed in brackets.  A4, landscape beyond six
evenings.
"""

from __future__ import annotations

from typing import Any

from flask_babel import gettext, ngettext

from . import render_document, shortened

FOLDER = "tournaments/series"
TEMPLATE = "ranking_pdf.html"
TEMPLATE_PATH = f"{FOLDER}/{TEMPLATE}"
"""Below the app's template folder (the PDF cache's key holds its digest)."""
PORTRAIT_EVENINGS = 6
"""Up to this many evenings the ranking fits A4 portrait; more turn the page."""


def counting_text(standing: Any) -> str:
    """How the evenings count, in words ("the best 4 evenings count")."""
    if standing.counting == "best":
        return str(
            ngettext("The best evening counts.", "The best %(num)s evenings count.", standing.best)
        )
    if standing.counting == "every":
        return str(gettext("Only players of every evening are ranked."))
    return str(gettext("All evenings count."))


def series_ranking(standing: Any) -> bytes:
    """The series ranking (``SeriesStandings``) as PDF bytes."""
    title = f"{shortened(standing.name, 44)} · {gettext('Series ranking')}"
    return render_document(
        TEMPLATE,
        folder=FOLDER,
        title=title,
        standing=standing,
        counting=counting_text(standing),
        landscape=len(standing.held) > PORTRAIT_EVENINGS,
    )
