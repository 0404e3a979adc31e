"""The tournament's paper at 200 tables (issues 22, 28): how long each printout takes to render.

Run from the top of the checkout::

    .venv/bin/python bench/bench_tournament_pdf.py            # 200 tables, 3 runs each
    .venv/bin/python bench/bench_tournament_pdf.py --tables 20 --runs 5
    .venv/bin/python bench/bench_tournament_pdf.py --only round-cards,slips

It builds, in a SQLite file of a temporary folder, a tournament of
``3 × tables`` players with 3 rounds of 12 deals played at every table and
closed (``bench/tournament_db.played_night``, through ``scorer.services``),
sets money prizes (40/25/15/10/10 %) and a joke prize, then renders in
process, one at a time, without the PDF cache: one round's table cards and its
paper slips (what is made ahead after a draw: ``tables`` cards, ``tables``
pages), the table cards of every round (``3 × tables`` cards), the final ranking
(``3 × tables`` players over 3 rounds) and the prize list.  Each is
rendered ``--runs`` times; the first run of the cards also makes the QR codes
(later runs find them made: a table's link stays the same all evening).  It
prints CPU and wall seconds per run, the pages, the size and the machine's
load average.  Nothing here is part of the test suite.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("round-cards", "slips", "cards", "ranking", "prizes")
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help=f"some of: {','.join(KINDS)} (default: all)")
    args = parser.parse_args()

    import tournament_db as tdb
    from pypdf import PdfReader

    from scorer import create_app
    from scorer.extensions import db
    from scorer.pdf import tournament as printouts
    from scorer.services.tournaments import money, paper, published, setup
    from scorer.views.tournaments import links
    from scorer.words import percent

    folder = Path(tempfile.mkdtemp(prefix="bench-paper-"))
    url = f"sqlite:///{folder / 'paper.sqlite'}"
    config = {
        "SQLALCHEMY_DATABASE_URI": url,
        "SECRET_KEY": "bench",
        "PUBLIC_URL": "http://192.168.4.1:5000",
    }
    app = create_app(config)
    with app.app_context():
        db.create_all()
    made = time.perf_counter()
    chosen = [k.strip() for k in args.only.split(",") if k.strip()] or list(KINDS)
    if set(chosen) <= {"round-cards", "slips"}:  # one round's paper: round 1 drawn is enough
        view_token = tdb.build_night(url, args.tables).view_token
        played = "round 1 drawn"
    else:
        view_token = tdb.played_night(url, args.tables, rounds_=3)
        played = "3 rounds of 12 deals played and closed"
    print(
        f"{3 * args.tables} players, {args.tables} tables, {played} (SQLite): "
        f"{time.perf_counter() - made:.0f} s"
    )
    app = create_app(config)
    with app.test_request_context("/?lang=de"):
        tournament = setup.get_tournament_for_view(view_token)
        if "prizes" in chosen:
            shares = tuple(Decimal(s) for s in ("0.40", "0.25", "0.15", "0.10", "0.10"))
            prizes_set = money.PrizeSettings(shares=shares, joke="Ein Kartenspiel")
            money.update_prizes(tournament, prizes_set)

        def round_cards() -> bytes:
            found = paper.cards(tournament, [tournament.round_rows[0]])
            urls = {
                c.table_id: links.external_url(tournament, "matches.show", token=c.token)
                for c in found
            }
            return printouts.table_cards(paper.heading(tournament), found, urls)

        def cards() -> bytes:
            found = paper.cards(tournament, list(tournament.round_rows))
            urls = {
                c.table_id: links.external_url(tournament, "matches.show", token=c.token)
                for c in found
            }
            return printouts.table_cards(paper.heading(tournament), found, urls)

        def slips() -> bytes:
            row = tournament.round_rows[0]
            return printouts.paper_slips(paper.heading(tournament), paper.slips(tournament, row))

        def ranking() -> bytes:
            return printouts.ranking_document(paper.ranking_after(tournament))

        def prizes() -> bytes:
            plist = money.prize_list(tournament, published.fresh_standings(tournament.id))
            words = [percent(int(s * money.HUNDRED_PERCENT)) for s in plist.shares]
            return printouts.prize_list(paper.heading(tournament), plist, words)

        every = {
            "round-cards": (f"table cards, one round ({args.tables} cards)", round_cards),
            "slips": (f"paper slips, one round ({args.tables} tables)", slips),
            "cards": (f"table cards, every round ({3 * args.tables} cards)", cards),
            "ranking": (f"final ranking ({3 * args.tables} players, 3 rounds)", ranking),
            "prizes": ("prize list", prizes),
        }
        for name, build in (every[key] for key in chosen):
            cpu, wall = [], []
            data = b""
            for _ in range(args.runs):
                c0, w0 = time.process_time(), time.perf_counter()
                data = build()
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
                db.session.expire_all()
            pages = len(PdfReader(io.BytesIO(data)).pages)
            runs = ", ".join(f"{c:.2f}" for c in cpu)
            print(
                f"{name}: {pages} pages, {len(data) / 1024:.0f} KiB; CPU s per run {runs} "
                f"(median {statistics.median(cpu):.2f}); "
                f"wall median {statistics.median(wall):.2f} s"
            )
    print(
        f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
