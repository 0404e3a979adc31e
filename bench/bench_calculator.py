"""How fast does the meld calculator answer a tap?  Server time per update.

Run from the repository root::

    .venv/bin/python bench/bench_calculator.py          # 200 taps per case
    .venv/bin/python bench/bench_calculator.py 50       # fewer

Every update is a request through the Flask test client, as htmx sends it
(``HX-Request: true``, the fragment comes back), timed from the call to the
complete response body: routing, parsing the form, the rules, rendering.  No
network.  The cases:

- *page, declare*: one more meld on top of six declared ones (check_meld);
- *page, cards*: the twelfth card of a hand (best_meld);
- *page, cards, pressing*: 16 cards whose best melds need all 16, so the best
  12 to keep are searched (1820 ways to press four) — the worst case;
- *hand, declare* / *hand, cards*: the panel in the hand form of a match with
  24 hands on the sheet (the match is loaded and its sheet replayed per tap).

Wall time and the process's CPU time are printed: on a busy machine the wall
time includes waiting for a CPU; the CPU time is what the update costs.
The target is every update under 50 ms on the server.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer import services
from scorer.rules import PRESETS
from tests.builders import form_data, make_app

HX = {"HX-Request": "true"}
SIX = "family H,pair E,pair G,pair S,binokel,four K"
FIFTEEN = "HA H10 HK HO HU EA E10 EK EO EU GO SU GA SA GK"
ELEVEN = "HA H10 HK HO HU EA GA SA GO SU EK"


def timed(label: str, taps: int, tap: Callable[[], Any]) -> None:
    tap()  # the first call builds the rules' tables for this ruleset and trump
    times = []
    cpu = []
    for _ in range(taps):
        start, start_cpu = time.perf_counter(), time.process_time()
        response = tap()
        response.get_data()
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        assert response.status_code == 200, response.status_code
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(
        f"{label:<24} wall: median {statistics.median(times):5.1f} ms  p95 {p95:5.1f} ms  "
        f"max {times[-1]:6.1f} ms   cpu: median {statistics.median(cpu):5.1f} ms"
    )


def main(taps: int) -> None:
    app = make_app(Path(tempfile.mkdtemp()))
    client = app.test_client()

    def page(**params: str) -> Any:
        return client.get("/melds", query_string=params, headers=HX)

    timed("page, declare", taps, lambda: page(trump="H", melds=SIX, add="four A"))
    timed(
        "page, cards",
        taps,
        lambda: page(trump="H", mode="cards", cards=ELEVEN, card="SK:1"),
    )
    timed(
        "page, cards, pressing",
        taps,
        lambda: page(trump="H", mode="cards", declarer="y", cards=FIFTEEN, card="SK:1"),
    )

    with app.app_context():
        match = services.start_match(
            names=["Anna", "Bert", "Carl"], ruleset=PRESETS["standard"].replace(target=100_000)
        )
        token = match.token
    for n in range(24):
        html = client.get(f"/m/{token}").get_data(as_text=True)
        data = form_data(html, "hand-form")
        data.update(
            {
                "declarer": str(n % 3),
                "bid": "200",
                "trump": "H",
                "parties-0-melds": "100",
                "parties-0-tricks": "120",
                "parties-1-tricks": "70",
            }
        )
        assert client.post(f"/m/{token}/hands", data=data).status_code in (302, 303)
    html = client.get(f"/m/{token}").get_data(as_text=True)
    data = form_data(html, "hand-form")
    data.update({"declarer": "0", "bid": "300", "trump": "H"})
    url = f"/m/{token}/calculator?party=0"

    def hand(**fields: str) -> Any:
        return client.post(url, data={**data, **fields}, headers=HX)

    timed(
        "hand, declare",
        taps,
        lambda: hand(**{"calc0-mode": "declare", "calc0-melds": SIX, "calc0-add": "four A"}),
    )
    timed(
        "hand, cards",
        taps,
        lambda: hand(**{"calc0-mode": "cards", "calc0-cards": ELEVEN, "calc0-card": "SK:1"}),
    )
    timed(
        "hand, cards, pressing",
        taps,
        lambda: hand(**{"calc0-mode": "cards", "calc0-cards": FIFTEEN, "calc0-card": "SK:1"}),
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
