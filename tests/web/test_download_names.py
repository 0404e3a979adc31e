"""Every download is named in the reader's language (issue 34 §7: "binokel-rößle-match-1.csv",
"round-1-cards" in German): the score sheet, a session's files, the tournament's printouts,
exports and backups, the series' files.  The names are read from ``Content-Disposition`` as
a browser does (``filename*`` over ``filename``)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.http import parse_options_header

from scorer import services
from scorer.extensions import db
from scorer.services.tournaments import series
from tests.builders import service_match, session_token_of
from tests.tournament_builders import signed_and_paper_round

ENGLISH = re.compile(
    r"\b(match|round|cards|slips|table|ranking|backup|tournament|series|certificates|"
    r"prizes|prize|list|provisional)\b"
)


@pytest.fixture
def quick_pdfs(monkeypatch: pytest.MonkeyPatch) -> None:
    """PDFs made in no time: these tests read the names, not the paper."""
    stub = b"%PDF-1.4 stand-in\n%%EOF\n"
    monkeypatch.setattr("scorer.pdf.layout.render_pdf", lambda html: stub)
    monkeypatch.setattr("scorer.pdf.tournament._render", lambda html: stub)


def evening(app: Flask) -> dict[str, Any]:
    with app.app_context():
        tournament, _ = signed_and_paper_round()
        cup = series.create_series(tournament)
        cup.name = "Binokel-Cup"  # (however a new series is named)
        db.session.commit()
        found = {"t": tournament.token, "p": tournament.view_token, "cup": cup.token}
        db.session.remove()
    token = service_match(app, ["Anna", "Bert", "Carl"], 2, title="Stammtisch im Rößle")
    return {**found, "m": token, "s": session_token_of(app, token)}


def name_of(client: FlaskClient, path: str, lang: str) -> str:
    response = client.get(f"{path}?lang={lang}" if "?" not in path else f"{path}&lang={lang}")
    assert response.status_code == 200, (path, response.status_code)
    _, options = parse_options_header(response.headers["Content-Disposition"])
    return str(options["filename"])


# (address, its German name, its English name); {t} etc. are the evening's links
DOWNLOADS = [
    ("/m/{m}/sheet.csv", "binokel-stammtisch-im-rößle-partie-1.csv",
     "binokel-stammtisch-im-rößle-match-1.csv"),
    ("/m/{m}/sheet.pdf", "binokel-stammtisch-im-rößle-partie-1.pdf",
     "binokel-stammtisch-im-rößle-match-1.pdf"),
    ("/s/{s}/backup.json", "sicherung-stammtisch-im-rößle-{day}.json",
     "backup-stammtisch-im-rößle-{day}.json"),
    ("/s/{s}/sheets.pdf", "binokel-stammtisch-im-rößle-{day}.pdf",
     "binokel-stammtisch-im-rößle-{day}.pdf"),
    ("/backup.json", "scorer-sicherung.json", "scorer-backup.json"),
    ("/t/{t}/rounds/1/cards.pdf", "binokel-herbstturnier-runde-1-tischkarten.pdf",
     "binokel-herbstturnier-round-1-table-cards.pdf"),
    ("/t/{t}/cards.pdf", "binokel-herbstturnier-tischkarten.pdf",
     "binokel-herbstturnier-table-cards.pdf"),
    ("/t/{t}/rounds/1/slips.pdf", "binokel-herbstturnier-runde-1-zettel.pdf",
     "binokel-herbstturnier-round-1-paper-slips.pdf"),
    ("/t/{t}/rounds/1/slips.pdf?table=2", "binokel-herbstturnier-runde-1-tisch-2-zettel.pdf",
     "binokel-herbstturnier-round-1-table-2-paper-slips.pdf"),
    ("/t/{t}/ranking.pdf", "binokel-herbstturnier-rangliste.pdf",
     "binokel-herbstturnier-ranking.pdf"),
    ("/t/{t}/ranking.pdf?round=1", "binokel-herbstturnier-rangliste-nach-runde-1.pdf",
     "binokel-herbstturnier-ranking-after-round-1.pdf"),
    ("/t/{t}/certificates.pdf", "binokel-herbstturnier-urkunden.pdf",
     "binokel-herbstturnier-certificates.pdf"),
    ("/t/{t}/prizes.pdf", "binokel-herbstturnier-preisliste.pdf",
     "binokel-herbstturnier-prize-list.pdf"),
    ("/t/{t}/ranking.csv", "rangliste-herbstturnier-vorläufig.csv",
     "ranking-herbstturnier-provisional.csv"),
    ("/p/{p}/ranking.xlsx", "rangliste-herbstturnier-vorläufig.xlsx",
     "ranking-herbstturnier-provisional.xlsx"),
    ("/t/{t}/backup.json", "turnier-herbstturnier.json", "tournament-herbstturnier.json"),
    ("/cup/{cup}/backup.json", "serie-binokel-cup.json", "series-binokel-cup.json"),
    ("/cup/{cup}/ranking.pdf", "binokel-binokel-cup-gesamtwertung.pdf",
     "binokel-binokel-cup-series-ranking.pdf"),
]  # fmt: skip


@pytest.mark.usefixtures("quick_pdfs")
def test_every_download_is_named_in_the_readers_language(app: Flask, client: FlaskClient) -> None:
    links = evening(app)
    with app.app_context():
        day = services.get_session(links["s"]).created_at.date().isoformat()
    client.get(f"/m/{links['m']}")  # the device's sessions: this one (/backup.json)
    for path, german, english in DOWNLOADS:
        address = path.format(**links)
        got_de = name_of(client, address, "de")
        assert got_de == german.format(day=day), address
        assert not ENGLISH.search(got_de.replace("binokel", "")), got_de
        assert name_of(client, address, "en") == english.format(day=day), address
