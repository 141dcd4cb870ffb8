"""Every section reference (``§N``) resolves to a numbered section of the document it cites.

A reference names its document: ``docs/shadow-mind.md §7``, a Markdown link
(``[shadow-mind.md §7](shadow-mind.md)``, ``[shadow-mind.md](shadow-mind.md) §3``),
or, inside a doc, nothing (the doc itself). ``§N`` must be a ``## N.`` heading of
that document, ``§N.M`` a ``### N.M`` heading, and a quoted title right after it
(``§7 "Value loop"``) a heading or a bold lead-in (``**Title.**``) inside that
section. Source code must name the document: a bare ``§12`` there once pointed
at notes outside this repository.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

ROOT = Path(__file__).resolve().parents[1]
CODE_DIRS = (
    "hookspecs",
    "harness",
    "shadow_mind_plugin",
    "evolution_review_plugin",
    "tests",
    "bench",
    "scripts",
    "examples",
)
#: the lead's history (it quotes what older code said) and this file's examples
SKIPPED = {"CHANGELOG.md", "test_doc_sections.py"}

_REF = re.compile(r"§(\d+(?:\.\d+)?)")
_DOC_NAME = re.compile(r"([A-Za-z0-9_./-]+\.md)\b")
_LINK_AFTER = re.compile(r"^[^\]\n]*\]\(([^)#\s]+\.md)")
_TITLE_AFTER = re.compile(r'^,?\s*"([^"]+)"')
_HEADING = re.compile(r"^(#{2,4})\s+(.*?)\s*$")
_BOLD_LEAD = re.compile(r"^\*\*([^*]+?)\.?\*\*")


@attrs.frozen
class Ref:
    where: str
    line: int
    section: str
    doc: Path | None
    title: str | None


def _files() -> Iterator[Path]:
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").glob("*.md"))
    for top in CODE_DIRS:
        base = ROOT / top
        if base.is_dir():
            yield from sorted(p for p in base.rglob("*") if p.suffix in (".py", ".md") and ".venv" not in p.parts)


def _resolve(name: str, source: Path) -> Path:
    """A cited document: relative to the citing doc, else to the repository or docs/."""
    for base in (source.parent, ROOT, ROOT / "docs"):
        candidate = (base / name).resolve()
        if candidate.is_file():
            return candidate
    return ROOT / name


def references(text: str, source: Path) -> list[Ref]:
    refs = []
    for number, line in enumerate(text.splitlines(), start=1):
        for match in _REF.finditer(line):
            after = line[match.end() :]
            link = _LINK_AFTER.match(after)
            named = _DOC_NAME.findall(line[: match.start()])
            if link:
                doc: Path | None = _resolve(link.group(1), source)
            elif named:
                doc = _resolve(named[-1], source)
            elif source.suffix == ".md":
                doc = source
            else:
                doc = None
            title = _TITLE_AFTER.match(after)
            refs.append(Ref(source.relative_to(ROOT).as_posix(), number, match.group(1), doc, title and title.group(1)))
    return refs


def sections(doc: Path) -> dict[str, set[str]]:
    """Section number → the headings and bold lead-ins inside it."""
    found: dict[str, set[str]] = {}
    current: list[str] = []
    fenced = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = _HEADING.match(line)
        if heading:
            numbered = re.match(r"^(\d+(?:\.\d+)?)\.?\s+(.*)$", heading.group(2))
            if numbered and len(heading.group(1)) == 2:
                current = [numbered.group(1)]
                found.setdefault(current[0], set()).add(numbered.group(2))
                continue
            if numbered and len(heading.group(1)) == 3 and "." in numbered.group(1):
                current = current[:1] + [numbered.group(1)]
                found.setdefault(numbered.group(1), set()).add(numbered.group(2))
                continue
            if len(heading.group(1)) == 2:
                current = []
            for key in current:
                found[key].add(heading.group(2).strip("`"))
            continue
        bold = _BOLD_LEAD.match(line)
        if bold:
            for key in current:
                found[key].add(bold.group(1))
    return found


def problems(ref: Ref) -> str | None:
    if ref.doc is None:
        return f"§{ref.section} names no document: write e.g. docs/shadow-mind.md §{ref.section}"
    if not ref.doc.is_file():
        return f"§{ref.section} cites {ref.doc.relative_to(ROOT)}, which does not exist"
    known = sections(ref.doc)
    shown = ref.doc.relative_to(ROOT)
    if ref.section not in known:
        return f"§{ref.section}: {shown} has sections {', '.join(sorted(known, key=_order)) or 'none'}"
    if ref.title is not None and ref.title not in known[ref.section]:
        return f'§{ref.section} "{ref.title}": no such heading in section {ref.section} of {shown}'
    return None


def _order(section: str) -> tuple[int, ...]:
    return tuple(int(part) for part in section.split("."))


ALL_REFS = [
    ref for path in _files() if path.name not in SKIPPED for ref in references(path.read_text(encoding="utf-8"), path)
]


def test_references_are_found() -> None:
    # guards the check below against scanning nothing
    assert len(ALL_REFS) >= 20
    assert any(ref.where.endswith(".py") for ref in ALL_REFS)


def test_every_section_reference_resolves() -> None:
    bad = [f"{ref.where}:{ref.line}: {problem}" for ref in ALL_REFS if (problem := problems(ref))]
    assert not bad, "section references that resolve to no section:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    ("line", "source", "expected"),
    [
        ('"""Value loop (§19)."""', "harness/x.py", "§19 names no document"),
        ('"""Value loop (docs/shadow-mind.md §19)."""', "harness/x.py", "docs/shadow-mind.md has sections"),
        ('"""Value loop (docs/shadow-mind.md §7 "Value loop")."""', "harness/x.py", None),
        ('"""(docs/shadow-mind.md §7 "Valu loop")."""', "harness/x.py", "no such heading in section 7"),
        ("see §7 and §9.", "docs/shadow-mind.md", None),
        ("(§7](shadow-mind.md))", "docs/security.md", None),
        ("[shadow-mind.md](shadow-mind.md) §3", "docs/foreign-agents.md", None),
        ('docs/shadow-mind.md §5, "Leads for a model reviewer"', "docs/evaluation.md", None),
    ],
)
def test_resolution_rules(line: str, source: str, expected: str | None) -> None:
    found = [problems(ref) for ref in references(line, ROOT / source)]
    assert found
    if expected is None:
        assert found == [None] * len(found)
    else:
        assert any(problem is not None and expected in problem for problem in found), found
