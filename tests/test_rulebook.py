"""The rulebook ``docs/rules.md`` and the code's citations of it.

The book has the twelve sections of the specification and two of its own
(13, the tournament; 14, the Stammtisch's year), each a level-2 heading
``## N. Title`` (N = 1 … 14, in order).  The code cites them as "RULES.md
section N" today and will cite "docs/rules.md section N"; both spellings are
accepted here.

How a citation is found (every ``.py`` file under ``scorer/``):

- **Explicit citation**: the book's name — ``RULES.md`` or ``rules.md`` in any
  case, with or without a ``docs/`` prefix — followed by ``section N`` or
  ``sections N, M and K`` (numbers separated by commas, "and", "or" or "&";
  whitespace may include a line break).  A number may be ``N.M``.
- **Follow-up citation**: once a file has cited the book, every later
  ``section N`` / ``sections N, M`` in that file is read as citing the same book
  (a module names "RULES.md section 3" in its docstring and then says
  "section 3.5").  Section references before the first citation, and in files
  that never name the book, are not read.

How a cited number is found in the book:

- ``N`` exists when the book has the heading ``## N.``.
- ``N.M`` exists when the body of section N (up to the next level-2 heading)
  has a heading of level 3 or deeper that starts with ``N.M`` (e.g.
  ``### 3.5 The best melds of a hand``), or a top-level numbered list item
  ``M. …`` at the start of a line.  The book uses the headings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "docs" / "rules.md"
CODE = ROOT / "scorer"
SECTIONS = range(1, 15)

_NUMBER = r"\d+(?:\.\d+)?(?!\.?\d)"
_LIST = rf"{_NUMBER}(?:\s*(?:,|\band\b|\bor\b|&)\s*{_NUMBER})*"
_NAME = re.compile(r"(?:docs/)?rules\.md", re.IGNORECASE)
_CITATION = re.compile(rf"(?:docs/)?rules\.md\s+sections?\s+({_LIST})", re.IGNORECASE)
_MENTION = re.compile(rf"\bsections?\s+({_LIST})", re.IGNORECASE)
_ONE = re.compile(r"\d+(?:\.\d+)?")
_SECTION_HEADING = re.compile(r"^## (\d+)\.(?:\s|$)", re.MULTILINE)


@dataclass(frozen=True)
class Citation:
    path: str
    line: int
    number: str  # "3" or "3.5"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: section {self.number}"


def citations_in(text: str, path: str = "<text>") -> list[Citation]:
    """Every section number ``text`` cites, by the scheme of the module docstring.

    >>> [c.number for c in citations_in("see section 2; RULES.md sections 4, 5 and 8.")]
    ['4', '5', '8']
    >>> [c.number for c in citations_in("docs/rules.md section 3.  Later: section 3.5).")]
    ['3', '3.5']
    """
    first = _NAME.search(text)
    if first is None:
        return []
    found: dict[int, str] = {}  # start of the number list -> the list
    for pattern in (_CITATION, _MENTION):
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


@pytest.fixture(scope="module")
def book() -> str:
    return BOOK.read_text(encoding="utf-8")


def test_the_book_has_its_sections_in_order(book: str) -> None:
    numbers = [int(n) for n in _SECTION_HEADING.findall(book)]
    assert numbers == list(SECTIONS)


def test_every_citation_in_the_code_is_in_the_book(book: str) -> None:
    bodies = book_sections(book)
    cited: list[Citation] = []
    for path in sorted(CODE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        cited.extend(citations_in(text, str(path.relative_to(ROOT))))
    assert cited, "no citation of the rulebook found under scorer/: is the scan broken?"
    missing = [str(c) for c in cited if not has_item(bodies, c.number)]
    assert not missing, "cited but not in docs/rules.md:\n" + "\n".join(missing)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("RULES.md section 7.", ["7"]),
        ("docs/rules.md section 7", ["7"]),
        ("RULES.md sections 1, 2, 6).", ["1", "2", "6"]),
        ("RULES.md sections 5 and 6.", ["5", "6"]),
        ("RULES.md sections 4, 5 and the options of section 8.", ["4", "5", "8"]),
        ("(RULES.md section 3.3)", ["3.3"]),
        ("RULES.md\n    section 12, seed 002", ["12"]),
        ("section 3.1 before any citation", []),
        ("section 2 here, and RULES.md section 9 then section 3.5", ["9", "3.5"]),
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


def test_the_meld_rules_of_section_3_are_numbered(book: str) -> None:
    bodies = book_sections(book)
    for minor in range(1, 9):  # 3.1-3.6 the combination rules, 3.7 check_meld, 3.8 typed totals
        assert has_item(bodies, f"3.{minor}"), f"section 3.{minor}"
