"""scorer.rules is pure Python: it imports only the standard library and itself."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import scorer.rules

RULES = Path(scorer.rules.__file__).parent
FORBIDDEN = ("flask", "flask_", "sqlalchemy", "wtforms", "jinja2", "werkzeug", "babel", "scorer.")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_rules_modules_import_only_the_standard_library() -> None:
    stdlib = sys.stdlib_module_names
    for path in sorted(RULES.rglob("*.py")):  # melds/ and tournament/ too
        for name in imported_modules(path):
            top = name.split(".")[0]
            assert top in stdlib or top == "__future__", f"{path.name} imports {name}"
            assert not name.startswith(FORBIDDEN), f"{path.name} imports {name}"


def test_importing_rules_loads_no_web_or_database_library() -> None:
    code = (
        "import sys, scorer.rules; "
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('flask', 'sqlalchemy', 'wtforms', 'jinja2', 'werkzeug', 'flask_babel')]; "
        "print(','.join(bad))"
    )
    # scorer/__init__.py imports Flask; scorer.rules must not need it, so load it
    # by path as a top-level package in a clean interpreter
    out = subprocess.run(
        [sys.executable, "-c", code.replace("scorer.rules", "rules")],
        cwd=RULES.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == ""
