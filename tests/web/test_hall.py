"""The hall: links the phones can reach, and the one-command start's secret key."""

from __future__ import annotations

import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from flask import Flask

from scorer import addresses, hall, network
from scorer.hall import secret_key
from scorer.views.tournaments import links


def test_the_secret_key_is_made_once_and_kept_private(tmp_path: Path) -> None:
    first = secret_key(tmp_path / "instance")
    assert len(first) == 64
    assert secret_key(tmp_path / "instance") == first
    mode = (tmp_path / "instance" / "secret_key").stat().st_mode
    assert stat.S_IMODE(mode) == 0o600


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1:5000", "http://10.42.0.1:5000"),
        ("localhost:5000", "http://10.42.0.1:5000"),
        ("[::1]:5000", "http://10.42.0.1:5000"),
        ("192.168.4.1:5000", "http://192.168.4.1:5000"),
        ("scorer.example.org", "http://scorer.example.org"),
    ],
)
def test_links_carry_an_address_the_phones_reach(
    app: Flask, monkeypatch: pytest.MonkeyPatch, host: str, expected: str
) -> None:
    monkeypatch.setattr(addresses, "lan_address", lambda: "10.42.0.1")
    with app.test_request_context("/", base_url=f"http://{host}"):
        assert links.base_url() == expected


def test_a_set_address_wins(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(addresses, "lan_address", lambda: "10.42.0.1")
    app.config["PUBLIC_URL"] = "http://binokel.local:5000/"
    with app.test_request_context("/", base_url="http://127.0.0.1:5000"):
        assert links.base_url() == "http://binokel.local:5000"
        assert links.external_url(None, "main.home") == "http://binokel.local:5000/"


def test_a_laptop_without_a_network_keeps_its_own_address(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(addresses, "lan_address", lambda: None)
    with app.test_request_context("/", base_url="http://127.0.0.1:5000"):
        assert links.base_url() == "http://127.0.0.1:5000"


def test_this_machine_has_an_address_or_says_none() -> None:
    network.lan_address.cache_clear()
    address = network.lan_address()
    assert address is None or not address.startswith("127.")
    assert all(not a.startswith("127.") for a in network.interface_addresses())


def test_a_process_beside_the_server_is_started_again_when_it_ends_by_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[list[str]] = []
    real = subprocess.Popen

    def ending_at_once(args: list[str], **options: object) -> subprocess.Popen[bytes]:
        started.append(args)
        return real([sys.executable, "-c", "pass"])

    monkeypatch.setattr(hall.subprocess, "Popen", ending_at_once)
    monkeypatch.setattr(hall, "AGAIN_AFTER", 0.0)
    beside = hall.Beside("scorer.worker")
    beside.start()
    try:
        deadline = time.monotonic() + 120
        while len(started) < 3:
            assert time.monotonic() < deadline, "not started again"
            time.sleep(0.01)
    finally:
        beside.stop()
    assert {tuple(args[1:]) for args in started} == {("-m", "scorer.worker")}


def test_a_process_beside_the_server_is_stopped_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = subprocess.Popen
    monkeypatch.setattr(
        hall.subprocess,
        "Popen",
        lambda args, **options: real([sys.executable, "-c", "import time; time.sleep(600)"]),
    )
    beside = hall.Beside("scorer.worker")
    beside.start()
    deadline = time.monotonic() + 120
    while beside.process is None:
        assert time.monotonic() < deadline, "not started"
        time.sleep(0.01)
    beside.stop()
    assert beside.process.returncode is not None  # ended, not left behind
