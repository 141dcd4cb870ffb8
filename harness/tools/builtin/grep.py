"""``grep``: search file contents with a regular expression, in linear time.

Patterns run on RE2 (``google-re2``), which never backtracks: the time a
search takes grows with the text, never exponentially with the pattern, so no
pattern (``(a+)+$`` on a line of ``a``s) can block the host. RE2 accepts
Python's syntax except backreferences (``\\1``) and lookaround (``(?=``,
``(?<!``...); those are refused with a tool error naming the problem.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any

import attrs
import re2  # type: ignore[import-untyped]
import trio

from hookspecs.errors import ToolArgsError
from hookspecs.protocols import ToolRunContext
from hookspecs.values import ToolResult

from ..workspace import relative_path, resolve_in_workspace, workspace_root
from . import catalog
from ._files import SNIFF_BYTES, looks_binary, single_link
from ._walk import compile_segments, expand_braces, split_pattern, walk_files
from .catalog import DEFAULT_MAX_RESULTS

MAX_LINE_CHARS = 500
#: Bigger files are skipped: they are almost always data, logs or build output.
MAX_FILE_BYTES = 8 * 1024 * 1024


@attrs.frozen
class _NameFilter:
    """The ``glob`` argument: against the file name, or the path below ``base`` when
    it contains a slash."""

    patterns: tuple[re.Pattern[str], ...]
    whole_path: bool

    @classmethod
    def parse(cls, glob: str) -> _NameFilter:
        expanded = expand_braces(glob, argument="glob")
        whole = any("/" in g for g in expanded)
        return cls(tuple(compile_segments(split_pattern(g, argument="glob")) for g in expanded), whole)

    def matches(self, base: Path, path: Path) -> bool:
        subject = relative_path(base, path) if self.whole_path else path.name
        return any(p.fullmatch(subject) for p in self.patterns)


@attrs.frozen
class _Found:
    lines: list[str]
    files: int
    truncated: bool


def compile_pattern(pattern: str, *, ignore_case: bool) -> Any:
    """``pattern`` compiled for RE2, or ``ToolArgsError`` with a one-line reason."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ToolArgsError(f"pattern: invalid regular expression: {exc}") from None
    options = re2.Options()
    options.log_errors = False  # RE2 would print its own complaint on stderr
    options.case_sensitive = not ignore_case
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        reason = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
        raise ToolArgsError(
            f"pattern: not supported by the linear-time engine (RE2): {' '.join(reason.split())}"
            " (backreferences and lookaround are unavailable)"
        ) from None


def _search(
    regex: Any,
    base: Path,
    root: Path,
    names: _NameFilter | None,
    max_results: int,
    stop: threading.Event,
) -> _Found:
    found: list[str] = []
    files = 0
    # Sorting up front makes the first max_results matches the right ones.
    paths = sorted(walk_files(base, root, stop=stop), key=lambda p: relative_path(root, p))
    for path in paths:
        if stop.is_set():
            break
        if names is not None and path != base and not names.matches(base, path):
            continue
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            with path.open("rb") as handle:
                if not single_link(os.fstat(handle.fileno())):
                    continue  # another link may be outside the workspace
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError:
            continue
        if looks_binary(data[:SNIFF_BYTES]):
            continue
        lines = data.decode("utf-8", errors="replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # the newline ending the last line starts no new line
        shown = relative_path(root, path)
        hit = False
        for number, line in enumerate(lines, start=1):
            line = line.rstrip("\r")
            if regex.search(line) is None:
                continue
            if len(found) == max_results:
                return _Found(found, files, truncated=True)
            if not hit:
                hit, files = True, files + 1
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + " …"
            found.append(f"{shown}:{number}:{line}")
    return _Found(found, files, truncated=False)


async def execute(args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
    regex = compile_pattern(args["pattern"], ignore_case=args.get("ignore_case", False))
    names = _NameFilter.parse(args["glob"]) if "glob" in args else None
    root = workspace_root(ctx.cwd)
    base = resolve_in_workspace(root, args.get("path", "."), must_exist=True)
    max_results = args.get("max_results", DEFAULT_MAX_RESULTS)

    stop = threading.Event()
    try:
        # Abandon on cancel: a big tree must not hold up an aborted turn; ``stop``
        # tells the orphaned thread to quit early.
        found = await trio.to_thread.run_sync(
            _search, regex, base, root, names, max_results, stop, abandon_on_cancel=True
        )
    finally:
        stop.set()

    if not found.lines:
        text = "no matches"
    else:
        text = "\n".join(found.lines)
        if found.truncated:
            text += (
                f"\n\n[stopped after {max_results} matches; narrow the pattern, path or glob, "
                "or raise max_results]"
            )
    value = {"matches": len(found.lines), "files": found.files, "truncated": found.truncated}
    return ToolResult.text(text, value=value)


#: the definition offered to models (:mod:`.catalog`); its ``execute`` calls this module's
TOOL = catalog.GREP
