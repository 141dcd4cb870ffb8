"""What a shell command is: a test, build or lint run, a read-only look, or a
destructive operation. Regular expressions over the command text only; a
command nothing here recognises is none of these (the checks then stay quiet).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum
from typing import Final


class Category(StrEnum):
    """A verification command: the claim checks compare its last run with the answer."""

    TESTS = "tests"
    BUILD = "build"
    LINT = "lint"


#: where a program starts: the command's start or after a separator, past a runner
#: (``uv run``, ``npx``...), environment assignments and a directory ("pip install
#: pytest" and "cat pytest.ini" run no tests)
_AT: Final = (
    r"(?:^|[;&|(\n]\s*)(?:(?:npx|uvx|uv\s+run|poetry\s+run|pipenv\s+run|pdm\s+run|hatch\s+run|bundle\s+exec|"
    r"time|sudo|xvfb-run)\s+)?(?:\w+=\S*\s+)*(?:[\w./-]*/)?"
)


def _programs(alternatives: str) -> re.Pattern[str]:
    return re.compile(rf"{_AT}(?:{alternatives})(?![\w.-])")


_CATEGORIES: Final = (
    (
        Category.TESTS,
        _programs(
            r"pytest|py\.test|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest"
            r"|python[\d.]*\s+-m\s+(?:pytest|unittest)"
            r"|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test"
            r"|(?:cargo|go|dotnet|mix|deno|swift)\s+test"
            r"|(?:make|just)\s+(?:\S+\s+)*?(?:test|check)"
            r"|(?:gradlew?|mvn)\b[^;&|\n]*\btest"
        ),
    ),
    (
        Category.LINT,
        _programs(
            r"ruff|flake8|pylint|mypy|pyright|eslint|golangci-lint|shellcheck|rubocop|cargo\s+clippy"
            r"|black\s+--check|prettier\s+--check"
            r"|python[\d.]*\s+-m\s+(?:ruff|mypy|flake8|pylint)"
            r"|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:lint|typecheck|type-check)"
            r"|(?:make|just)\s+lint"
        ),
    ),
    (
        Category.BUILD,
        _programs(
            r"(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?build"
            r"|cargo\s+(?:build|check)|go\s+(?:build|vet)|tsc"
            r"|python[\d.]*\s+-m\s+build|dotnet\s+build|cmake\s+--build"
            r"|(?:gradlew?|mvn)\b[^;&|\n]*\b(?:package|compile|build|install|assemble)"
            r"|make(?:\s+-j\s*\d*)?(?:\s+(?:all|build))?(?=\s*(?:$|[;&|\n]))"
        ),
    ),
)

#: commands that only look; their failures (grep finding nothing, a missing
#: file) are exploration, not unfinished work
_LOOK: Final = re.compile(
    r"^\s*(?:cd\s+\S+\s*&&\s*)?(?:cat|head|tail|less|nl|sed\s+-n|ls|find|tree|grep|rg|ag|wc|file|stat|which|"
    r"type|pwd|echo|git\s+(?:status|log|diff|show|branch|grep|ls-files|blame))\b"
)


class Destruction(StrEnum):
    RECURSIVE_DELETE = "recursive delete"
    HARD_RESET = "hard reset"
    FORCE_PUSH = "force push"
    DROP_DATA = "dropping data"


_RM: Final = re.compile(r"\brm\s+((?:-{1,2}\S+\s+)*)(.*?)(?=$|[;&|\n])")
_DESTRUCTIVE: Final = (
    (
        Destruction.RECURSIVE_DELETE,
        # a find that deletes what a -name or -type filter picked (*.pyc) is cleanup
        re.compile(
            r"\bfind\b(?![^;&|]*\s-(?:i?name|type)\s)[^;&|]*\s-delete\b|\bgit\s+clean\s+-\w*f|\bshutil\.rmtree\b|\bRemove-Item\b.*-Recurse"
        ),
    ),
    (Destruction.HARD_RESET, re.compile(r"\bgit\s+reset\b[^;&|]*--hard\b|\bgit\s+checkout\s+(?:--\s+)?\.(?:\s|$)")),
    (Destruction.FORCE_PUSH, re.compile(r"\bgit\s+push\b[^;&|]*(?:\s--force(?!-with-lease)\b|\s-f\b|\s\+\S)")),
    (
        Destruction.DROP_DATA,
        re.compile(
            r"\b(?:DROP\s+(?:TABLE|DATABASE|SCHEMA|COLLECTION)|TRUNCATE\s+(?:TABLE\s+)?\w|FLUSHALL|FLUSHDB)\b|\bdropdb\b"
            r"|\bDELETE\s+FROM\s+\w+\s*(?:;|$|[\"'])",
            re.IGNORECASE,
        ),
    ),
)
#: what a recursive delete may remove without anyone asking: regenerated output and caches
_SCRATCH: Final = frozenset(
    {
        "node_modules", "build", "dist", "out", "target", "coverage", "htmlcov", "__pycache__", ".pytest_cache",
        ".mypy_cache", ".ruff_cache", ".tox", ".nox", ".venv", "venv", ".cache", ".coverage", ".next", ".parcel-cache",
    }
)  # fmt: skip


#: a command that failed because there was nothing to do: nothing is left undone
_NOTHING_TO_DO: Final = re.compile(
    r"nothing to commit, working tree clean|^Already up to date\.|^Everything up-to-date$", re.M
)


def had_nothing_to_do(output: str) -> bool:
    return bool(_NOTHING_TO_DO.search(output))


def categories(command: str) -> frozenset[Category]:
    return frozenset(category for category, pattern in _CATEGORIES if pattern.search(command))


def only_looks(command: str) -> bool:
    return bool(_LOOK.match(command)) and not destruction(command, made=_nothing)


def destruction(command: str, *, made: Callable[[str], bool]) -> tuple[Destruction, str] | None:
    """The destructive operation a command performs and the text that shows it;
    a recursive delete of scratch output, a temporary path or something the
    session itself created (``made`` says so of a basename) does not count."""
    for match in _RM.finditer(command):
        flags, targets = match.group(1), match.group(2).split()
        if command[: match.start()].endswith("git ") and "--cached" in flags:
            continue  # leaves the working tree alone
        recursive = any(
            f.startswith("--recursive") or (not f.startswith("--") and "r" in f.lower()) for f in flags.split()
        )
        if recursive and targets and not all(_scratch(target, made) for target in targets):
            return Destruction.RECURSIVE_DELETE, match.group(0).strip()
    for kind, pattern in _DESTRUCTIVE:
        found = pattern.search(command)
        if found:
            return kind, found.group(0).strip()
    return None


def _scratch(target: str, made: Callable[[str], bool]) -> bool:
    target = target.strip("'\"")
    if target.startswith(("/tmp/", "$TMPDIR", "${TMPDIR")) or target.endswith(".egg-info"):
        return True
    name = target.rstrip("/").rsplit("/", 1)[-1]
    return name in _SCRATCH or made(name)


def _nothing(_name: str) -> bool:
    return False


_MKDIR: Final = re.compile(r"\bmkdir\s+(?:-\S+\s+)*([^;&|\n]+)")


def made_directories(command: str) -> set[str]:
    """Basenames a command creates with ``mkdir`` (a later delete of them is cleanup)."""
    names: set[str] = set()
    for match in _MKDIR.finditer(command):
        names.update(part.strip("'\"").rstrip("/").rsplit("/", 1)[-1] for part in match.group(1).split())
    return names


def writes(command: str, path: str) -> bool:
    """Whether a command plainly changes ``path``: removes, moves, edits in place,
    truncates or redirects into it."""
    name = re.escape(path)
    return bool(
        re.search(
            rf"\b(?:rm|mv|truncate|tee|shred)\b[^;&|\n]*{name}|\b(?:sed|perl)\s+-i\S*[^;&|\n]*{name}|>>?\s*{name}",
            command,
        )
    )
