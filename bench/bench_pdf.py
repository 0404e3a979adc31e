"""Time the PDF score sheet of a 60-hand match (target: under 1.5 s).

Builds a throwaway app on a temporary SQLite database, plays 60 varied hands
through ``scorer.services`` and renders ``/m/<token>/sheet.pdf`` with the test
client.  The first render pays for importing WeasyPrint and reading the fonts
(once per process); the figure that counts is the warm render a running server
gives every request.  Run: ``.venv/bin/python bench/bench_pdf.py [runs]``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.builders import make_app, service_match


def main(runs: int = 10) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp))
        token = service_match(
            app, ["Anna", "Bernd", "Jürgen"], 60, target=100_000, title="Stammtisch Öhringen"
        )
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


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
