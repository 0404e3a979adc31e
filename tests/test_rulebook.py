"""The rulebook ``docs/rules.md``, and every citation of it and of any other document.

The book has the twelve sections of the specification and two of its own
(13, the tournament, with its subsections 13.1 …; 14, the Stammtisch's year), each
a level-2 heading ``## N. Title`` (N = 1 … 14, in order).  The code cites them as
"docs/rules.md section N".

Where citations are read: every ``.py`` file under ``scorer/``, ``tests/`` and
``bench/`` (explicit citations and follow-ups, below), and the Markdown files and
templates of the repository (explicit citations only: prose says "section" of
many things).

- **Explicit citation**: the book's name — ``docs/rules.md`` (or ``rules.md``),
  in any case, maybe in backticks — followed by ``section N`` or
  ``sections N, M and K`` (numbers separated by commas, "and", "or" or "&";
  whitespace may include a line break).  A number may be ``N.M``.
- **Follow-up citation** (Python files): once a file has cited the book, every
  later ``section N`` / ``sections N, M`` in that file is read as citing the same
  book (a module names "docs/rules.md section 3" in its docstring and then says
  "section 3.5").  Section references before the first citation, and in files
  that never name the book, are not read.

How a cited number is found in the book:

- ``N`` exists when the book has the heading ``## N.``.
- ``N.M`` exists when the body of section N (up to the next level-2 heading)
  has a heading of level 3 or deeper that starts with ``N.M`` (e.g.
  ``### 3.5 The best melds of a hand``), or a top-level numbered list item
  ``M. …`` at the start of a line.  The book uses the headings.

A document is cited wherever a file names ``something.md``; it must be in the
repository (from the top, or from the citing file's folder or one above it):
a spec that lives elsewhere, or has left, is no citation (the tournament's first
spec, ``TOURNAMENT.md``, was never in the repository; its contract is section 13).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "docs" / "rules.md"
CODE = [ROOT / "scorer", ROOT / "tests", ROOT / "bench"]
SECTIONS = range(1, 15)
SKIPPED = {".venv", "node_modules", "vendor", "__pycache__", "instance", "build"}

_NUMBER = r"\d+(?:\.\d+)?(?!\.?\d)"
_LIST = rf"{_NUMBER}(?:\s*(?:,|\band\b|\bor\b|&)\s*{_NUMBER})*"
_NAME = re.compile(r"(?:docs/)?rules\.md", re.IGNORECASE)
_CITATION = re.compile(rf"(?:docs/)?rules\.md`?\s+sections?\s+({_LIST})", re.IGNORECASE)
_MENTION = re.compile(rf"\bsections?\s+({_LIST})", re.IGNORECASE)
_ONE = re.compile(r"\d+(?:\.\d+)?")
_SECTION_HEADING = re.compile(r"^## (\d+)\.(?:\s|$)", re.MULTILINE)
# a document named in a file: a path of letters, digits, dots, dashes and slashes ending in .md
_DOCUMENT = re.compile(r"(?<![\w./-])([\w./-]*\w\.md)\b")


@dataclass(frozen=True)
class Citation:
    path: str
    line: int
    number: str  # "3" or "3.5"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: section {self.number}"


def citations_in(text: str, path: str = "<text>", *, follow_ups: bool = True) -> list[Citation]:
    """Every section number ``text`` cites, by the scheme of the module docstring.

    >>> [c.number for c in citations_in("see section 2; docs/rules.md sections 4, 5 and 8.")]
    ['4', '5', '8']
    >>> [c.number for c in citations_in("docs/rules.md section 3.  Later: section 3.5).")]
    ['3', '3.5']
    >>> [c.number for c in citations_in("`docs/rules.md` section 13; section 2", follow_ups=False)]
    ['13']
    """
    first = _NAME.search(text)
    if first is None:
        return []
    found: dict[int, str] = {}  # start of the number list -> the list
    for pattern in (_CITATION, _MENTION) if follow_ups else (_CITATION,):
        for match in pattern.finditer(text, first.start()):
            found.setdefault(match.start(1), match.group(1))
    result = []
    for start, numbers in sorted(found.items()):
        line = text.count("\n", 0, start) + 1
        result.extend(Citation(path, line, n) for n in _ONE.findall(numbers))
    return result


def book_sections(text: str) -> dict[int, str]:
    """The body of every ``## N.`` section of the book, by N."""
    heads = list(_SECTION_HEADING.finditer(text))
    bodies: dict[int, str] = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        rest = text[head.end() : end]
        following = re.search(r"^## ", rest, re.MULTILINE)  # a level-2 heading without a number
        bodies[int(head.group(1))] = rest[: following.start()] if following else rest
    return bodies


def has_item(bodies: dict[int, str], number: str) -> bool:
    """Whether the book has section ``number`` (``"3"``) or its sub-item (``"3.5"``)."""
    major, _, minor = number.partition(".")
    body = bodies.get(int(major))
    if body is None:
        return False
    if not minor:
        return True
    heading = re.compile(rf"^#{{3,}}\s+{major}\.{minor}(?![\d])", re.MULTILINE)
    item = re.compile(rf"^{minor}\.\s", re.MULTILINE)
    return bool(heading.search(body) or item.search(body))


def documents_in(text: str) -> list[tuple[int, str]]:
    """Every ``*.md`` a text names, with its line.

    >>> documents_in("see TOURNAMENT.md section 5 and `bench/README.md`'s table")
    [(1, 'TOURNAMENT.md'), (1, 'bench/README.md')]
    >>> documents_in("file.mdx, notes.md.bak, e.md")
    [(1, 'e.md')]
    """
    return [
        (text.count("\n", 0, match.start()) + 1, match.group(1))
        for match in _DOCUMENT.finditer(text)
        if not text.startswith(".", match.end())
    ]


def in_repository(name: str, citing: Path) -> bool:
    """Whether the document ``name`` is in the repository: from the top, or from the
    citing file's folder or one above it (``RESULTS.md`` in ``bench/`` is bench's)."""
    folder = citing.parent
    while True:
        if (folder / name).is_file():
            return True
        if folder == ROOT or ROOT not in folder.parents:
            return (ROOT / name).is_file()
        folder = folder.parent


def _files(roots: list[Path], patterns: tuple[str, ...]) -> list[Path]:
    found = []
    for root in roots:
        for pattern in patterns:
            found.extend(
                p for p in root.rglob(pattern) if not SKIPPED & set(p.relative_to(ROOT).parts)
            )
    return sorted(set(found))


def code_files() -> list[Path]:
    return _files(CODE, ("*.py",))


def prose_files() -> list[Path]:
    """The Markdown files and the templates: explicit citations only."""
    return [
        *_files([ROOT], ("*.md",)),
        *_files([ROOT / "templates", ROOT / "scorer"], ("*.html",)),
    ]


@pytest.fixture(scope="module")
def book() -> str:
    return BOOK.read_text(encoding="utf-8")


def test_the_book_has_its_sections_in_order(book: str) -> None:
    numbers = [int(n) for n in _SECTION_HEADING.findall(book)]
    assert numbers == list(SECTIONS)


def test_every_citation_is_in_the_book(book: str) -> None:
    bodies = book_sections(book)
    cited: list[Citation] = []
    for path in code_files():
        text = path.read_text(encoding="utf-8")
        cited.extend(citations_in(text, str(path.relative_to(ROOT))))
    assert len({c.path for c in cited}) > 20, "few citations found: is the scan broken?"
    for path in prose_files():
        text = path.read_text(encoding="utf-8")
        cited.extend(citations_in(text, str(path.relative_to(ROOT)), follow_ups=False))
    missing = [str(c) for c in cited if not has_item(bodies, c.number)]
    assert not missing, "cited but not in docs/rules.md:\n" + "\n".join(missing)


def test_the_tournament_is_cited_by_its_subsections(book: str) -> None:
    """Section 13's subsections (the series, the evening, the links, the public pages,
    paper, the contract, the figures) are there, and the code cites them."""
    bodies = book_sections(book)
    for minor in range(1, 8):
        assert has_item(bodies, f"13.{minor}"), f"section 13.{minor}"
    cited = {
        c.number
        for path in code_files()
        for c in citations_in(path.read_text(encoding="utf-8"), str(path))
    }
    assert {"13", "13.1", "13.3", "13.4", "13.5", "13.6"} <= cited


def test_every_document_cited_is_in_the_repository() -> None:
    missing = []
    for path in [*code_files(), *prose_files()]:
        if path == Path(__file__).resolve():
            continue  # its examples name documents that are not there, on purpose
        for line, name in documents_in(path.read_text(encoding="utf-8")):
            if not in_repository(name, path):
                missing.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not missing, "documents cited but not in the repository:\n" + "\n".join(missing)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("docs/rules.md section 7.", ["7"]),
        ("`docs/rules.md` section 7", ["7"]),
        ("docs/rules.md sections 1, 2, 6).", ["1", "2", "6"]),
        ("docs/rules.md sections 5 and 6.", ["5", "6"]),
        ("docs/rules.md sections 4, 5 and the options of section 8.", ["4", "5", "8"]),
        ("(docs/rules.md section 3.3)", ["3.3"]),
        ("docs/rules.md\n    section 12, seed 002", ["12"]),
        ("docs/rules.md sections 13 and 13.6", ["13", "13.6"]),
        ("section 3.1 before any citation", []),
        ("section 2 here, and docs/rules.md section 9 then section 3.5", ["9", "3.5"]),
        ("nothing cited: section 4", []),
    ],
)
def test_citations_are_read_by_the_scheme(text: str, expected: list[str]) -> None:
    assert [c.number for c in citations_in(text)] == expected


def test_sub_items_are_headings_or_numbered_items() -> None:
    bodies = book_sections(
        "## 3. Melds\n\n### 3.2 Once\n\ntext 4 items\n\n1. first\n   2. nested\n"
        "## 4. Bidding\n\n### 3.7 misplaced\n"
    )
    assert has_item(bodies, "3") and has_item(bodies, "3.2") and has_item(bodies, "3.1")
    assert not has_item(bodies, "3.20")
    assert not has_item(bodies, "3.7")  # under section 4, not 3
    assert not has_item(bodies, "3.4")  # "4 items" is no numbered item
    assert not has_item(bodies, "3.29")
    assert not has_item(bodies, "5")


def test_a_missing_document_or_section_is_found(tmp_path: Path) -> None:
    """What the two checks catch: a spec that is not in the repository, and a
    section the book does not have (as the code once cited TOURNAMENT.md 1.9)."""
    assert documents_in("see TOURNAMENT.md section 5") == [(1, "TOURNAMENT.md")]
    assert not in_repository("TOURNAMENT.md", ROOT / "scorer" / "hall.py")
    assert in_repository("RESULTS.md", ROOT / "bench" / "run.py")  # bench's own
    assert in_repository("docs/rules.md", ROOT / "scorer" / "rules" / "cards.py")
    bodies = book_sections(BOOK.read_text(encoding="utf-8"))
    assert not has_item(bodies, "13.9") and not has_item(bodies, "15")


def test_the_meld_rules_of_section_3_are_numbered(book: str) -> None:
    bodies = book_sections(book)
    for minor in range(1, 9):  # 3.1-3.6 the combination rules, 3.7 check_meld, 3.8 typed totals
        assert has_item(bodies, f"3.{minor}"), f"section 3.{minor}"
