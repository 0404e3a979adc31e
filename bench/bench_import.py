"""Time the web import of the largest backup it accepts, into a fresh SQLite database.

The file is one session of ``MAX_SESSION_HANDS`` (1,000) hands: two matches of
``MAX_HANDS`` (500) hands, generated as ``bench_pdf.py`` does (the 30 varied hands
of a played match, exported and repeated; compact JSON as the export writes it).
Every run gets an app on a new, empty SQLite file (``synchronous=FULL`` as in
production, CSRF on); the page ``/import`` is read for its CSRF token and the
file is posted to it as a browser's multipart upload, encoded beforehand, so the
figure is the request alone: upload parsed, JSON checked, every row inserted,
committed, redirect.  Then the same for a file of ``MAX_FILE_HANDS`` (2,000)
hands — two such sessions — when it fits into one upload of ``MAX_CONTENT_LENGTH``.

Run: ``.venv/bin/python bench/bench_import.py [runs]`` (default 3; about half a minute).
"""

from __future__ import annotations

import copy
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_pdf import compact, session_backup
from sqlalchemy import func, select
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from scorer.extensions import db
from scorer.models import Hand
from scorer.services import backup_format as backup
from tests.builders import csrf_token_from, make_app


def import_once(raw: bytes, hands: int) -> tuple[float, float]:
    """Wall and CPU seconds of one POST /import of ``raw`` into a fresh database."""
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp), SQLITE_SYNCHRONOUS="FULL", WTF_CSRF_ENABLED=True)
        client = app.test_client()
        page = client.get("/import")
        assert page.status_code == 200, page.status_code
        file = FileStorage(io.BytesIO(raw), "scorer-backup.json", content_type="application/json")
        boundary, body = encode_multipart({"csrf_token": csrf_token_from(page.text), "file": file})
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.post(
            "/import",
            data=body,
            content_type=f"multipart/form-data; boundary={boundary}",
        )
        wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        assert response.status_code in (302, 303), (response.status_code, response.text[:500])
        with app.app_context():
            stored = db.session.execute(select(func.count()).select_from(Hand)).scalar_one()
            db.engine.dispose()
        assert stored == hands, (stored, hands)
    return wall, cpu


def measure(label: str, data: dict[str, Any], runs: int) -> None:
    raw = compact(data)
    hands = sum(len(m["hands"]) for s in data["sessions"] for m in s["matches"])
    times = [import_once(raw, hands) for _ in range(runs)]
    walls, cpus = [t[0] for t in times], [t[1] for t in times]
    print(
        f"{label}: {hands} hands, {len(raw) / 2**20:.2f} MiB: "
        f"median {statistics.median(walls):.2f} s "
        f"(min {min(walls):.2f} s, max {max(walls):.2f} s), "
        f"CPU median {statistics.median(cpus):.2f} s over {runs} runs",
        flush=True,
    )


def main(runs: int = 3) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        maker = make_app(Path(tmp))
        matches = backup.MAX_SESSION_HANDS // backup.MAX_HANDS
        largest = session_backup(maker, backup.MAX_HANDS, matches)
        limit = maker.config["MAX_CONTENT_LENGTH"]
        with maker.app_context():
            db.engine.dispose()
    print(
        f"limits: {backup.MAX_HANDS} hands a match, {backup.MAX_SESSION_HANDS} a session, "
        f"{backup.MAX_FILE_HANDS} a file, {limit / 2**20:g} MiB an upload"
    )
    measure(f"one session, {matches} matches × {backup.MAX_HANDS} hands", largest, runs)
    sessions = backup.MAX_FILE_HANDS // backup.MAX_SESSION_HANDS
    whole = copy.deepcopy(largest)
    whole["sessions"] = [copy.deepcopy(largest["sessions"][0]) for _ in range(sessions)]
    if len(compact(whole)) + 4096 <= limit:  # the multipart envelope
        measure(f"{sessions} such sessions (the most hands a file may hold)", whole, runs)
    else:
        print(f"{sessions} such sessions: larger than one upload, not measured")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
