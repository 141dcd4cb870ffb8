"""Journal integrity and file modes under ``shadow-minds/``, and their repair.

A check names every damaged line (corrupt JSON, NUL bytes, torn last lines,
records missing the fields a trace needs) and every file or directory whose mode
is not the private one; a repair rewrites damaged journals atomically, keeping
the valid lines, and fixes the modes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, Literal

import attrs

from hookspecs.fsutil import DIR_MODE, FILE_MODE, write_atomic

from ..definitions.errors import DefinitionError
from ..definitions.files import read_home_file
from ..definitions.parse import parse_definition
from ..definitions.registry import DEFINITION_SUFFIX, LOG_DIR, ROOT_DIR
from .journals import LIFECYCLE_EVENTS, SCHEMA_VERSION, debug_journal_paths, value_loop_path
from .jsonl import NUL, parse_line, split_lines

JournalKind = Literal["debug", "value-loop"]

#: The fields of ``governance.journal.lifecycle_record`` that always have a value
#: (the journal leaves out fields without one).
LIFECYCLE_FIELDS: Final = (
    "schema_version",
    "time",
    "event",
    "run_id",
    "shadow_id",
    "root_session_id",
    "captured_through_seq",
    "phase",
    "stage",
)
#: Every other debug record (quality metadata, discarded bodies) has at least these.
DEBUG_RECORD_FIELDS: Final = ("time", "event", "run_id")
#: A value-loop record (written by ``runtime.value``; documented in docs/shadow-mind.md).
VALUE_LOOP_FIELDS: Final = (
    "time",
    "root_session_id",
    "shadow_id",
    "run_id",
    "classification",
    "relayed_at_seq",
    "refs",
    "observed_through_seq",
)
TORN_VALID: Final = "torn last line: no trailing newline"


@attrs.frozen(kw_only=True)
class LineCheck:
    line: int
    raw: bytes
    terminated: bool
    problem: str | None = None

    @property
    def keep(self) -> bool:
        """Valid content survives a repair (an unterminated valid line gets its newline)."""
        return self.problem is None or self.problem.startswith(TORN_VALID)


@attrs.define(eq=False, kw_only=True)
class FileCheck:
    """What one journal check found (and, after a repair, what it did)."""

    #: relative to the home
    path: str
    kind: JournalKind
    size: int = 0
    lines: list[LineCheck] = attrs.field(factory=list)
    mode: int | None = None
    problems: list[str] = attrs.field(factory=list)
    repaired: dict[str, Any] | None = None

    @property
    def line_problems(self) -> list[LineCheck]:
        return [line for line in self.lines if line.problem]

    @property
    def readable(self) -> bool:
        return self.mode is not None and not any(p.startswith(("not a regular", "cannot")) for p in self.problems)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "size": self.size,
            "lines": len(self.lines),
            "valid_lines": sum(1 for line in self.lines if line.problem is None),
            "mode": f"{self.mode:04o}" if self.mode is not None else None,
            "problems": [*self.problems, *(f"line {line.line}: {line.problem}" for line in self.line_problems)],
            "repaired": self.repaired,
        }


def check_record(record: Any, kind: JournalKind) -> str | None:
    """What is wrong with one parsed journal record, or None."""
    if not isinstance(record, dict):
        return f"not a JSON object ({type(record).__name__})"
    if kind == "value-loop":
        required: Sequence[str] = VALUE_LOOP_FIELDS
    elif record.get("event") in LIFECYCLE_EVENTS:
        required = LIFECYCLE_FIELDS
    else:
        required = DEBUG_RECORD_FIELDS
    missing = [name for name in required if name not in record]
    if missing:
        return "missing field(s): " + ", ".join(missing)
    if "schema_version" in record and record["schema_version"] != SCHEMA_VERSION:
        return f"unsupported schema_version {record['schema_version']!r}"
    if kind == "debug" and not isinstance(record.get("event"), str):
        return "field 'event' is not a string"
    return None


def check_line(lineno: int, raw: bytes, terminated: bool, kind: JournalKind) -> LineCheck:
    problem: str | None
    if NUL in raw:
        problem = f"NUL byte(s) ({raw.count(NUL)})"
    elif not raw.strip():
        problem = "blank line"
    else:
        try:
            value = parse_line(raw)
        except UnicodeDecodeError:
            problem = "not UTF-8"
        except ValueError:
            problem = "torn last line: truncated JSON" if not terminated else "invalid JSON"
        else:
            problem = check_record(value, kind)
            if problem is None and not terminated:
                problem = f"{TORN_VALID} (the record itself is valid)"
    return LineCheck(line=lineno, raw=raw, terminated=terminated, problem=problem)


def check_file(home: Path, path: Path, kind: JournalKind) -> FileCheck:
    check = FileCheck(path=path.relative_to(home).as_posix(), kind=kind)
    try:
        info = path.lstat()
    except OSError as exc:
        check.problems.append(f"cannot stat ({type(exc).__name__})")
        return check
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        check.problems.append("not a regular file (a symlink or special file); not read")
        return check
    check.size = info.st_size
    check.mode = stat.S_IMODE(info.st_mode)
    if check.mode != FILE_MODE:
        check.problems.append(f"mode {check.mode:04o}, expected {FILE_MODE:04o}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        check.problems.append(f"cannot read ({type(exc).__name__})")
        return check
    check.lines.extend(check_line(lineno, raw, terminated, kind) for lineno, raw, terminated in split_lines(data))
    return check


def check_dir(home: Path, path: Path) -> dict[str, Any]:
    rel = path.relative_to(home).as_posix() + "/"
    try:
        info = path.lstat()
    except OSError:
        return {"path": rel, "mode": None, "problem": "missing"}
    mode = stat.S_IMODE(info.st_mode)
    problem = None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        problem = "not a directory"
    elif mode != DIR_MODE:
        problem = f"mode {mode:04o}, expected {DIR_MODE:04o}"
    return {"path": rel, "mode": f"{mode:04o}", "problem": problem}


def list_definitions(home: Path, scrub: Callable[[str], str]) -> list[dict[str, Any]]:
    """Every definition file with its id and ``debug`` flag, or why it is invalid."""
    rows: list[dict[str, Any]] = []
    for path in sorted((home / ROOT_DIR).glob(f"*{DEFINITION_SUFFIX}")):
        rel = path.relative_to(home).as_posix()
        try:
            # a FIFO or /dev/zero among the definitions is a row's error, not a hang
            definition = parse_definition(read_home_file(path).decode("utf-8"), path)
        except (OSError, UnicodeDecodeError, DefinitionError) as exc:
            rows.append({"path": rel, "id": path.stem, "debug": None, "error": scrub(str(exc))})
            continue
        rows.append({"path": rel, "id": definition.id, "debug": definition.debug, "enabled": definition.enabled})
    return rows


def repair_file(home: Path, check: FileCheck) -> None:
    """Rewrite the journal with its valid lines (0600, atomically), or only fix its mode."""
    path = home / check.path
    kept = [line for line in check.lines if line.keep]
    dropped = len(check.lines) - len(kept)
    needs_rewrite = dropped or any(not line.terminated for line in kept)
    if needs_rewrite:
        write_atomic(path, b"".join(line.raw + b"\n" for line in kept), mode=FILE_MODE)
    elif check.mode is not None and check.mode != FILE_MODE:
        os.chmod(path, FILE_MODE)
    check.repaired = {"kept": len(kept), "dropped": dropped, "rewritten": bool(needs_rewrite)}


def _repair(home: Path, dirs: list[dict[str, Any]], files: list[FileCheck]) -> list[FileCheck]:
    """Fix what can be fixed; the files checked again, with what was repaired."""
    for entry in dirs:
        if entry["problem"] and entry["problem"].startswith("mode"):
            os.chmod(home / entry["path"], DIR_MODE)
            entry["problem"] = None
            entry["repaired"] = True
    repaired = {}
    for check in files:
        if check.readable and (check.problems or check.line_problems):
            repair_file(home, check)
            repaired[check.path] = check.repaired
    verified = [check_file(home, home / check.path, check.kind) for check in files]
    for check in verified:
        check.repaired = repaired.get(check.path)
    return verified


def health(home: Path, *, repair: bool, scrub: Callable[[str], str]) -> dict[str, Any]:
    """The health document of ``home`` (``scrub`` cleans definition errors)."""
    shadow_root = home / ROOT_DIR
    result: dict[str, Any] = {"home_exists": home.is_dir(), "shadow_dir": shadow_root.is_dir()}
    if not shadow_root.is_dir():
        result.update(definitions=[], dirs=[], files=[], problems=0, healthy=True)
        return result
    dirs = [check_dir(home, shadow_root)]
    if (shadow_root / LOG_DIR).exists():
        dirs.append(check_dir(home, shadow_root / LOG_DIR))
    files = [check_file(home, path, "debug") for path in debug_journal_paths(home)]
    value_loop = value_loop_path(home)
    if value_loop.exists() or value_loop.is_symlink():
        files.append(check_file(home, value_loop, "value-loop"))
    if repair:
        files = _repair(home, dirs, files)
    definitions = list_definitions(home, scrub)
    problems = sum(len(check.to_json()["problems"]) for check in files) + sum(1 for d in dirs if d["problem"])
    result.update(
        definitions=definitions,
        dirs=dirs,
        files=[check.to_json() for check in files],
        problems=problems,
        healthy=problems == 0,
    )
    return result
