"""Settings from the environment: every key as ``SCORER_<KEY>`` (Flask's ``from_prefixed_env``),
the variables a deployer knew before (``DATABASE_URL`` …) still read, and the README's
table listing every key (README "Configuration", ``scorer/config.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scorer import create_app
from scorer.config import Config, from_environment

ROOT = Path(__file__).resolve().parents[2]
BARE = {"TESTING": True}


@pytest.fixture(autouse=True)
def no_settings_of_the_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sets what it means: nothing of the machine's environment leaks in."""
    import os

    for name in list(os.environ):
        if name.startswith("SCORER_") or name in ("DATABASE_URL", "SECRET_KEY", "TRUSTED_HOSTS"):
            monkeypatch.delenv(name)


def environment(monkeypatch: pytest.MonkeyPatch, **settings: str) -> None:
    """``SCORER_<key>=value`` for each setting (a ``__`` in a key as it is written)."""
    for key, value in settings.items():
        monkeypatch.setenv(f"SCORER_{key}", value)


def test_any_setting_comes_from_the_environment_with_the_prefix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    environment(
        monkeypatch,
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'a.sqlite'}",
        WORK_SLOTS="2",
        WORK_SLOT_WAIT="0.5",
        PDF_AHEAD="false",
        LIMIT_PDF="30 per minute",
        PDF_CACHE_DIR=str(tmp_path / "pdfs"),
        SECRET_KEY="123456",  # digits, and still the text given
        TOURNAMENT_FRESH="3",  # a key read where it is used
    )
    monkeypatch.setenv("SCORER_UPLOAD_LIMITS__online.push", "8388608")
    app = create_app(BARE)
    settings = app.config
    assert settings["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'a.sqlite'}"
    assert (settings["WORK_SLOTS"], settings["WORK_SLOT_WAIT"]) == (2, 0.5)
    assert settings["PDF_AHEAD"] is False
    assert settings["LIMIT_PDF"] == "30 per minute"
    assert settings["PDF_CACHE_DIR"] == str(tmp_path / "pdfs")
    assert settings["UPLOAD_LIMITS"] == {
        "t_backup.restore": 16 * 1024 * 1024,
        "st_backup.restore": 16 * 1024 * 1024,
        "hall.push": 64 * 1024 * 1024,
        "online.push": 8388608,
    }
    assert settings["SECRET_KEY"] == "123456"
    assert settings["TOURNAMENT_FRESH"] == 3


def test_the_unprefixed_variables_still_work_and_the_prefix_wins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'old.sqlite'}")
    monkeypatch.setenv("SECRET_KEY", "from-the-old-variable")
    monkeypatch.setenv("TRUSTED_HOSTS", "old.example")
    app = create_app(BARE)
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'old.sqlite'}"
    assert app.config["SECRET_KEY"] == "from-the-old-variable"
    assert app.config["TRUSTED_HOSTS"] == ["old.example"]
    monkeypatch.setenv("SCORER_SQLALCHEMY_DATABASE_URI", f"sqlite:///{tmp_path / 'new.sqlite'}")
    monkeypatch.setenv("SCORER_TRUSTED_HOSTS", "scorer.example.org, localhost")
    app = create_app(BARE)
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'new.sqlite'}"
    assert app.config["TRUSTED_HOSTS"] == ["scorer.example.org", "localhost"]


def test_a_prefixed_setting_changes_what_the_app_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Set from the environment, the settings act: the hosts answered, the largest request."""
    environment(
        monkeypatch,
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'b.sqlite'}",
        TRUSTED_HOSTS='["scorer.example.org"]',
        MAX_CONTENT_LENGTH="1000",
        WTF_CSRF_ENABLED="false",
    )
    app = create_app(BARE)
    client = app.test_client()
    assert client.get("/", base_url="http://evil.example").status_code == 400
    body = b"--x\r\nContent-Disposition: form-data; name=file; filename=b.json\r\n\r\n"
    body += b" " * 5000 + b"\r\n--x--\r\n"
    response = client.post(
        "/import",
        data=body,
        content_type="multipart/form-data; boundary=x",
        base_url="http://scorer.example.org",
    )
    assert response.status_code == 413  # 5 kB over the 1,000 bytes set


def test_the_readme_lists_every_setting() -> None:
    """One table in the README, every key in it: Config's, the environment's, and those
    read where they are used with their own default."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Configuration") : readme.index("## Production")]
    listed = set(re.findall(r"`([A-Z][A-Z_]+)`", section))
    keys = {key for key in vars(Config) if key.isupper()}
    keys |= set(from_environment("instance"))
    keys |= {"TOURNAMENT_FRESH", "TOURNAMENT_POLL_KEEP", "PUBLIC_PAGE_ROWS", "PDF_FONT_DIR"}
    assert keys - listed == set()
    # and every key of the code that reads one with a default of its own is among them
    code = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "scorer").rglob("*.py"))
    read = set(re.findall(r"config\.get\(\s*\"([A-Z][A-Z_]+)\"", code))
    assert read - listed - {"WTF_I18N_ENABLED"} == set()
