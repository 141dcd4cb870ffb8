"""``docs/architecture.md`` describes the tree that exists (like ``test_docs.py``
keeps ``docs/hooks.md`` in step with the hook specifications).

* Its module tables (one per ``### `package/` `` heading under "Modules and what
  they own") name every module of ``shadow_mind_plugin``, every top-level module
  and subpackage of ``harness``, and the contract's and the second plugin's
  packages; every path a row names exists.
* Every path the review trace names exists, and none is named twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE_MD = ROOT / "docs" / "architecture.md"

_HEADING = re.compile(r"^(#{2,3})\s+(.*?)\s*$")
_PACKAGE_HEADING = re.compile(r"^`([a-z_]+/)`$")
_CODE = re.compile(r"`([^`\s]+)`")
_PATH_LIKE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_/]*(\.py|/)$")
TRACE_ROOTS = ("harness/", "shadow_mind_plugin/", "hookspecs/", "evolution_review_plugin/")


def _strip_fences(text: str) -> list[str]:
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return out


def _section(lines: list[str], title: str) -> list[str]:
    """The lines under the level-2 heading ``title``, up to the next level-2 heading."""
    body: list[str] | None = None
    for line in lines:
        match = _HEADING.match(line)
        if match and len(match.group(1)) == 2:
            if body is not None:
                return body
            if match.group(2) == title:
                body = []
            continue
        if body is not None:
            body.append(line)
    assert body is not None, f"docs/architecture.md has no section {title!r}"
    return body


def table_rows(text: str) -> dict[str, list[str]]:
    """Package (``shadow_mind_plugin/``, ...) → the repo-relative paths its table rows name.

    Rows under ``### Other packages`` name packages relative to the repository."""
    rows: dict[str, list[str]] = {}
    package: str | None = None
    for line in _section(_strip_fences(text), "Modules and what they own"):
        heading = _HEADING.match(line)
        if heading:
            named = _PACKAGE_HEADING.match(heading.group(2))
            package = named.group(1) if named else ("" if heading.group(2) == "Other packages" else None)
            continue
        if package is None or not line.startswith("|"):
            continue
        first = line.strip("|").split("|")[0]
        names = [name for name in _CODE.findall(first) if _PATH_LIKE.match(name)]
        rows.setdefault(package, []).extend(package + name for name in names)
    return rows


def trace_paths(text: str) -> list[str]:
    """Every path the review trace names, in order, repo-relative (a bare
    ``trigger/budget.py`` is a module of ``shadow_mind_plugin``)."""
    paths: list[str] = []
    in_steps = False
    for line in _section(_strip_fences(text), "One review from turn end to relay"):
        in_steps = in_steps or bool(re.match(r"^\d+\.\s", line))  # the prose before step 1 is no step
        if not in_steps:
            continue
        for name in _CODE.findall(line):
            if _PATH_LIKE.match(name):
                paths.append(name if name.startswith(TRACE_ROOTS) else f"shadow_mind_plugin/{name}")
    return paths


def _exists(relative: str) -> bool:
    path = ROOT / relative
    return path.is_dir() if relative.endswith("/") else path.is_file()


def expected_entries() -> set[str]:
    """What the tables must name, repo-relative."""
    found = set()
    for path in (ROOT / "shadow_mind_plugin").rglob("*.py"):
        if path.name == "__init__.py" and path.parent.name != "shadow_mind_plugin":
            continue  # a subpackage's ``__init__`` is its package, covered by its modules
        found.add(path.relative_to(ROOT).as_posix())
    found.add("shadow_mind_plugin/starters/")  # a data package: its files are no modules
    harness = ROOT / "harness"
    for path in harness.iterdir():
        if path.suffix == ".py":
            found.add(path.relative_to(ROOT).as_posix())
        elif path.is_dir() and (path / "__init__.py").is_file():
            found.add(path.relative_to(ROOT).as_posix() + "/")
    for package in ("hookspecs", "evolution_review_plugin"):
        for init in (ROOT / package).rglob("__init__.py"):
            found.add(init.parent.relative_to(ROOT).as_posix() + "/")
    return found


def covered(named: Iterable[str]) -> set[str]:
    """Everything the rows account for: a ``starters/`` row covers its ``__init__``."""
    out = set(named)
    for name in list(out):
        if name.endswith("/") and name.startswith("shadow_mind_plugin/"):
            out.add(name + "__init__.py")
    return out


@pytest.fixture(scope="module")
def doc() -> str:
    return ARCHITECTURE_MD.read_text(encoding="utf-8")


def test_the_tables_are_found(doc: str) -> None:
    # guards the checks below against passing on a table the parser no longer sees
    rows = table_rows(doc)
    assert set(rows) == {"shadow_mind_plugin/", "harness/", ""}
    assert len(rows["shadow_mind_plugin/"]) > 80 and "harness/host.py" in rows["harness/"]


def test_every_module_has_a_row(doc: str) -> None:
    named = covered(path for paths in table_rows(doc).values() for path in paths)
    missing = sorted(expected_entries() - named)
    assert not missing, "docs/architecture.md (Modules and what they own) has no row for:\n" + "\n".join(missing)


def test_every_row_names_something_that_exists(doc: str) -> None:
    rows = [path for paths in table_rows(doc).values() for path in paths]
    gone = sorted(p for p in rows if not _exists(p))
    assert not gone, "docs/architecture.md names modules that do not exist:\n" + "\n".join(gone)
    twice = sorted({p for p in rows if rows.count(p) > 1})
    assert not twice, f"docs/architecture.md lists these in more than one row: {twice}"


def test_the_trace_opens_each_file_once(doc: str) -> None:
    steps = trace_paths(doc)
    assert len(steps) >= 30, "the review trace in docs/architecture.md lost its paths"
    assert steps[0] == "harness/agents/agent.py", steps
    gone = [p for p in steps if not _exists(p)]
    assert not gone, f"the review trace names files that do not exist: {gone}"
    twice = sorted({p for p in steps if steps.count(p) > 1})
    assert not twice, f"the review trace names these files more than once: {twice}"


def test_a_missing_row_is_caught() -> None:
    text = "## Modules and what they own\n\n### `shadow_mind_plugin/`\n\n| module | owns |\n|---|---|\n| `plugin.py` | x |\n"
    rows = table_rows(text)
    assert rows == {"shadow_mind_plugin/": ["shadow_mind_plugin/plugin.py"]}
    assert "shadow_mind_plugin/contract.py" in expected_entries() - covered(rows["shadow_mind_plugin/"])
