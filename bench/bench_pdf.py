"""Time the PDF score sheet: a 60-hand match warm (target: under 1.5 s), long matches, a session.

Builds a throwaway app on a temporary SQLite database, plays 60 varied hands
through ``scorer.services`` and renders ``/m/<token>/sheet.pdf`` with the test
client.  The first render pays for importing WeasyPrint and reading the fonts
(once per process); the figure that counts is the warm render a running server
gives every request — measured with the PDF cache off, so every run renders.

Then, with the cache on (``instance/pdf-cache`` in a temporary folder): the
PDF of a 60-, 200- and 500-hand match (500 is ``backup_format.MAX_HANDS``, the most a
match may hold on import) and the session PDF of the largest session an import
allows (as many 500-hand matches as fit in one upload of ``MAX_CONTENT_LENGTH``),
each rendered once and then asked again (served from the cache).  The long
matches are imported from a backup, which is much faster than playing them.
Run: ``.venv/bin/python bench/bench_pdf.py [runs]``.

``--per-hand`` measures what a sheet costs per hand and per page instead: for
an evening of 100, 500 and 1,000 hands (one session; matches of at most
``MAX_HANDS`` hands, 500) it starts a fresh Python process per size, renders
the session PDF there once cold (the process's first render: WeasyPrint
imported, fonts read, templates compiled) and once warm, and prints seconds
(wall and CPU), pages, seconds per hand and per page, and what each further
hand and page costs between the smallest and the largest evening (warm CPU):
``.venv/bin/python bench/bench_pdf.py --per-hand [hands ...]``.
"""

from __future__ import annotations

import copy
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask import Flask

from scorer import services
from scorer.services import backup_format as backup
from tests.builders import make_app, service_match

NAMES = ["Anna", "Bernd", "Jürgen"]


def pages(data: bytes) -> int:
    with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
        file.write(data)
        file.flush()
        info = subprocess.run(["pdfinfo", file.name], capture_output=True, text=True).stdout
    found = re.search(r"Pages:\s+(\d+)", info)
    return int(found[1]) if found else 0


def session_backup(app: Flask, hands: int, matches: int) -> dict[str, Any]:
    """A backup of one session of ``matches`` matches of ``hands`` hands each."""
    token = service_match(app, NAMES, 30, target=100_000, title="Lange Nacht")
    with app.test_request_context("/"):
        data = services.export_sessions([services.get_match(token).session])
    session = data["sessions"][0]
    session["token"] = session["view_token"] = "new"  # malformed: the import gives new ones
    template = session["matches"][0]
    played = template["hands"]
    session["matches"] = []
    for number in range(1, matches + 1):
        match = copy.deepcopy(template)
        match.update(number=number, token="new", view_token="new")
        match["hands"] = []
        for seq in range(1, hands + 1):
            hand = copy.deepcopy(played[(seq - 1) % len(played)])  # 30 hands: dealers go round
            hand["seq"] = seq
            match["hands"].append(hand)
        session["matches"].append(match)
    return data


def compact(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def largest_session(app: Flask) -> tuple[dict[str, Any], int]:
    """The session of most 500-hand matches an import takes: its hand limit, one upload."""
    limit = app.config["MAX_CONTENT_LENGTH"] - 4096  # the multipart envelope
    limit = min(limit, getattr(backup, "MAX_SESSION_BYTES", limit))
    one = len(compact(session_backup(app, backup.MAX_HANDS, 1)))
    most = getattr(backup, "MAX_SESSION_HANDS", backup.MAX_HANDS * backup.MAX_MATCHES)
    count = max(1, min(backup.MAX_MATCHES, most // backup.MAX_HANDS, limit // one))
    data = session_backup(app, backup.MAX_HANDS, count)
    while len(compact(data)) > limit and count > 1:
        count -= 1
        data = session_backup(app, backup.MAX_HANDS, count)
    return data, len(compact(data))


def imported(app: Flask, data: dict[str, Any]) -> str:
    with app.test_request_context("/"):
        return str(services.import_backup(compact(data))[0].token)


def timed(client: Any, url: str) -> tuple[float, float, bytes]:
    start, start_cpu = time.perf_counter(), time.process_time()
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return time.perf_counter() - start, time.process_time() - start_cpu, response.data


def evening(hands: int) -> None:
    """One process, one session of ``hands`` hands: its PDF rendered cold and then warm."""
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(
            Path(tmp),
            PDF_CACHE=False,
            PDF_SLOT_DIR=str(Path(tmp) / "pdf-slots"),
            PDF_SLOT_WAIT=600,
        )
        matches = -(-hands // backup.MAX_HANDS)
        data = session_backup(app, hands // matches, matches)
        session = imported(app, data)
        client = app.test_client()
        url = f"/s/{session}/sheets.pdf?lang=de"
        cold, cold_cpu, pdf = timed(client, url)
        warm, warm_cpu, _ = timed(client, url)
        print(
            json.dumps(
                {
                    "hands": hands,
                    "matches": matches,
                    "pages": pages(pdf),
                    "kib": len(pdf) // 1024,
                    "cold": cold,
                    "cold_cpu": cold_cpu,
                    "warm": warm,
                    "warm_cpu": warm_cpu,
                }
            )
        )


def per_hand(sizes: tuple[int, ...] = (100, 500, 1000)) -> list[dict[str, Any]]:
    """:func:`evening` for each size in a fresh process; the figures, also printed."""
    results = []
    print("session PDF; cold: the process's first render, warm: the same PDF again; wall (CPU)")
    print(
        "hands  pages  cold             warm             per hand, cold   warm     per page, warm"
    )
    for hands in sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--evening", str(hands)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        row = json.loads(out.strip().splitlines()[-1])
        results.append(row)
        print(
            f"{hands:5}  {row['pages']:5}  {row['cold']:5.2f} s ({row['cold_cpu']:4.2f})  "
            f"{row['warm']:5.2f} s ({row['warm_cpu']:4.2f})  "
            f"{row['cold'] / hands * 1000:6.2f} ms  {row['warm'] / hands * 1000:6.2f} ms  "
            f"{row['warm'] / row['pages'] * 1000:5.0f} ms"
        )
    if len(results) > 1 and results[-1]["hands"] > results[0]["hands"]:
        first, last = results[0], results[-1]
        hands = last["hands"] - first["hands"]
        pages_ = last["pages"] - first["pages"]
        cpu = last["warm_cpu"] - first["warm_cpu"]
        print(
            f"each further hand ({first['hands']} → {last['hands']}, warm CPU): "
            f"{cpu / hands * 1000:.2f} ms; each further page: {cpu / pages_ * 1000:.0f} ms"
        )
    return results


def main(runs: int = 10) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(
            Path(tmp),
            PDF_CACHE=False,
            PDF_CACHE_DIR=str(Path(tmp) / "pdf-cache"),
            PDF_SLOT_DIR=str(Path(tmp) / "pdf-slots"),
            PDF_SLOT_WAIT=600,
        )
        token = service_match(app, NAMES, 60, target=100_000, title="Stammtisch Öhringen")
        client = app.test_client()
        start = time.perf_counter()
        first = client.get(f"/m/{token}/sheet.pdf?lang=de")
        cold = time.perf_counter() - start
        assert first.status_code == 200
        times = []
        cpu = []
        for _ in range(runs):
            start, start_cpu = time.perf_counter(), time.process_time()
            response = client.get(f"/m/{token}/sheet.pdf?lang=de")
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            assert response.status_code == 200
        print(f"60 hands, {len(first.data) // 1024} KiB")
        print(f"first render (cold process): {cold:.2f} s")
        print(
            f"warm: median {statistics.median(times):.2f} s, "
            f"min {min(times):.2f} s, max {max(times):.2f} s over {runs} runs"
        )
        # CPU time of this process: what the render costs without other load on the machine
        print(f"warm CPU time: median {statistics.median(cpu):.2f} s, max {max(cpu):.2f} s")

        app.config["PDF_CACHE"] = True
        print("with the PDF cache (first: rendered; again: the same PDF asked again):")
        for hands in (60, 200, backup.MAX_HANDS):
            session = imported(app, session_backup(app, hands, 1))
            with app.app_context():
                match = services.get_session(session).matches[0].token
            url = f"/m/{match}/sheet.pdf?lang=de"
            wall, used, data = timed(client, url)
            again, _, same = timed(client, url)
            assert same == data
            print(
                f"  match of {hands} hands, {pages(data)} pages, {len(data) // 1024} KiB: "
                f"first {wall:.2f} s (CPU {used:.2f} s), again {again * 1000:.0f} ms"
            )
        largest, size = largest_session(app)
        count = len(largest["sessions"][0]["matches"])
        session = imported(app, largest)
        url = f"/s/{session}/sheets.pdf?lang=de"
        wall, used, pdf = timed(client, url)
        again, _, same = timed(client, url)
        assert same == pdf
        print(
            f"  session of {count} matches × {backup.MAX_HANDS} hands (backup {size / 2**20:.2f} "
            f"MiB, the most an import takes), {pages(pdf)} pages: first {wall:.2f} s "
            f"(CPU {used:.2f} s), again {again * 1000:.0f} ms"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--evening"]:
        evening(int(sys.argv[2]))
    elif sys.argv[1:2] == ["--per-hand"]:
        per_hand(tuple(int(n) for n in sys.argv[2:]) or (100, 500, 1000))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
