"""A PDF being made is claimed once: across processes, never left behind.

:mod:`scorer.pdf.making` is what keeps a second web worker, a second tap or the
job queue's worker from making the same PDF again.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from scorer.pdf import making

KEY = "f" * 64
HOLD = """
import fcntl, sys
with open(sys.argv[1], "a+b") as handle:
    fcntl.flock(handle, fcntl.LOCK_EX)
    print("held", flush=True)
    sys.stdin.read()
"""


@pytest.fixture
def app_config(tmp_path: Path) -> dict[str, Any]:
    return {"PDF_CACHE_DIR": str(tmp_path / "pdf-cache")}


def test_a_claim_is_held_until_it_is_let_go(app: Flask) -> None:
    with app.app_context():
        first = making.claim(KEY, 12.0)
        assert first is not None
        assert making.claim(KEY, 1.0) is None  # another worker, another tap
        found = making.under_way(KEY)
        assert found is not None and found.seconds == 12.0
        assert 11 <= found.left() <= 12 and found.left(found.started + 60) == 1
        first.release()
        assert not first.path.exists()  # done: the file goes, the PDF is in the cache
        assert making.under_way(KEY) is None
        again = making.claim(KEY, 1.0)
        assert again is not None
        again.release()


def test_a_claim_in_another_process_holds_and_dies_with_it(app: Flask) -> None:
    with app.app_context():
        first = making.claim(KEY, 1.0)
        assert first is not None
        first.release()
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(first.path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "held\n"
            assert making.claim(KEY, 1.0) is None
        finally:
            holder.kill()  # killed before it let go: the kernel frees the lock
            holder.wait()
            assert holder.stdin is not None and holder.stdout is not None
            holder.stdin.close()
            holder.stdout.close()
        left_behind = making.claim(KEY, 1.0)  # the file is still there: it claims nothing
        assert left_behind is not None
        left_behind.release()
