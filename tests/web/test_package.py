"""scorer installs as a Python application: a built wheel runs from any folder.

The wheel is built from the checkout (``pip wheel``), installed into a folder of
its own and run from another one, with the test environment's dependencies: its
templates, static files and migrations come with it (``pyproject.toml``'s
``[tool.setuptools]``, ``scorer.resources``), the ``scorer`` command serves, migrates and
lists its commands.  The package's metadata is all in ``pyproject.toml``: no
``setup.py``, and its list of packages is every package of ``scorer/``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
MAPPED = {
    "scorer.templates": "templates",
    "scorer.static": "static",
    "scorer.migrations": "migrations",
}


def test_the_metadata_is_in_pyproject_alone() -> None:
    """One file holds the package: every package of scorer/ listed (a new one fails here
    until it is), the three folders mapped into the wheel, no setup.py beside it."""
    assert not (ROOT / "setup.py").exists() and not (ROOT / "setup.cfg").exists()
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    listed = tool["setuptools"]["packages"]
    found = [
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "scorer").rglob("__init__.py")
        if "__pycache__" not in init.parts
    ]
    assert sorted(listed) == sorted([*found, *MAPPED])
    assert tool["setuptools"]["package-dir"] == MAPPED


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The wheel of this checkout, installed into a folder of its own."""
    folder = tmp_path_factory.mktemp("wheel")
    # built from a copy: a build writes into its source folder, and tests run side by side
    source = folder / "source"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "instance", "test-artifacts", "build", "*.egg-info", "__pycache__"
        ),
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = folder.glob("scorer-*.whl")
    site = folder / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    yield site


def run(site: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python`` with the installed scorer first on the path, in ``cwd``."""
    environment = {**os.environ, "PYTHONPATH": str(site), **env}
    environment.pop("TEST_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_wheel_carries_templates_static_files_and_migrations(installed: Path) -> None:
    package = installed / "scorer"
    assert (package / "templates" / "base.html").is_file()
    assert (package / "templates" / "tournaments" / "public" / "_ranking.html").is_file()
    assert (package / "static" / "scorer.css").is_file()
    assert (package / "migrations" / "env.py").is_file()
    assert list((package / "migrations" / "versions").glob("*.py"))


def test_the_installed_app_migrates_and_serves_from_another_folder(
    installed: Path, tmp_path: Path
) -> None:
    database = f"sqlite:///{tmp_path / 'club.sqlite'}"
    upgraded = run(installed, tmp_path, "-m", "scorer.cli", "db", "upgrade", DATABASE_URL=database)
    assert upgraded.returncode == 0, upgraded.stderr[-2000:]
    probe = (
        "import scorer\n"
        "from scorer import create_app\n"
        "app = create_app()\n"
        "client = app.test_client()\n"
        "print(scorer.__file__)\n"
        "print(client.get('/').status_code, client.get('/new').status_code)\n"
        "css = client.get('/static/scorer.css')\n"
        "print(css.status_code, len(css.data) > 1000)\n"
    )
    served = run(installed, tmp_path, "-c", probe, DATABASE_URL=database, SECRET_KEY="k")
    assert served.returncode == 0, served.stderr[-2000:]
    where, pages, css = served.stdout.strip().splitlines()
    assert where.startswith(str(installed))
    assert pages == "200 200"
    assert css == "200 True"


def test_the_scorer_command_lists_what_it_does(installed: Path, tmp_path: Path) -> None:
    listed = run(installed, tmp_path, "-m", "scorer.cli", "--help")
    assert listed.returncode == 0, listed.stderr[-2000:]
    for command in ("serve", "hall", "db", "backup", "tournament", "online"):
        assert f"  {command}" in listed.stdout, command


def _pins(lock: str) -> dict[str, str]:
    """A lock file's pins, by normalised name."""
    text = (ROOT / lock).read_text(encoding="utf-8")
    found = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)", text, re.MULTILINE)
    return {canonicalize_name(name): version for name, version in found}


def test_the_lock_files_hold_every_dependency_at_a_version_it_allows() -> None:
    """requirements.lock pins every dependency of pyproject.toml (what a hall installs),
    requirements-dev.lock those and the dev extra's with the hall's pins unchanged.  A
    dependency added to pyproject.toml without `bash lock.sh` fails here."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    hall, dev = _pins("requirements.lock"), _pins("requirements-dev.lock")
    for lock, pins, wanted in (
        ("requirements.lock", hall, project["dependencies"]),
        ("requirements-dev.lock", dev, project["optional-dependencies"]["dev"]),
    ):
        for line in wanted:
            need = Requirement(line)
            name = canonicalize_name(need.name)
            assert name in pins, f"{need.name} is not in {lock}: run `bash lock.sh`"
            assert need.specifier.contains(pins[name], prereleases=True), (
                f"{lock} pins {need.name} {pins[name]}, pyproject.toml asks {need.specifier}"
            )
    assert {name: dev[name] for name in hall} == hall
