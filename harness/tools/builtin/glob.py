"""``glob``: list workspace files whose path matches a glob pattern."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import attrs
import trio

from hookspecs.errors import ToolArgsError
from hookspecs.protocols import ToolRunContext
from hookspecs.values import ToolResult

from ..workspace import relative_path, resolve_in_workspace, workspace_root
from . import catalog
from ._walk import compile_segments, expand_braces, is_literal, split_pattern, walk_files
from .catalog import MAX_FILES


@attrs.frozen
class _Query:
    """One brace alternative: a directory to walk and the pattern below it."""

    start: Path
    segments: list[str]

    @property
    def include_hidden(self) -> bool:
        # Naming a hidden directory or file (".github/**") opts into hidden entries.
        return any(s.startswith(".") for s in self.segments)


def _plan(base: Path, root: Path, pattern: str) -> list[_Query]:
    queries: list[_Query] = []
    for alternative in expand_braces(pattern):
        segments = split_pattern(alternative)
        # Leading literal directories narrow the walk ("src/**/*.py" walks src only).
        literal = 0
        while literal < len(segments) - 1 and is_literal(segments[literal]):
            literal += 1
        start = base
        if literal:
            # The literal part may cross a symlink: confine it like a path argument
            # (named relative to the workspace so no host path leaks into errors).
            shown = "/".join([relative_path(root, base), *segments[:literal]])
            start = resolve_in_workspace(root, shown, argument="pattern")
        queries.append(_Query(start=start, segments=segments[literal:]))
    return queries


def _match(queries: list[_Query], root: Path, stop: threading.Event) -> list[str]:
    found: set[str] = set()
    for query in queries:
        if not query.start.is_dir():
            continue
        regex = compile_segments(query.segments)
        for path in walk_files(query.start, root, include_hidden=query.include_hidden, stop=stop):
            if regex.fullmatch(relative_path(query.start, path)):
                found.add(relative_path(root, path))
    return sorted(found)


async def execute(args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
    root = workspace_root(ctx.cwd)
    base = resolve_in_workspace(root, args.get("path", "."), must_exist=True)
    if not base.is_dir():
        raise ToolArgsError(f"path {relative_path(root, base)!r} is not a directory")
    queries = _plan(base, root, args["pattern"])

    stop = threading.Event()
    try:
        files = await trio.to_thread.run_sync(_match, queries, root, stop, abandon_on_cancel=True)
    finally:
        stop.set()

    shown = files[:MAX_FILES]
    truncated = len(files) > MAX_FILES
    if not files:
        text = "no files matched"
    else:
        text = "\n".join(shown)
        if truncated:
            text += f"\n\n[showing the first {MAX_FILES} of {len(files)} files; narrow the pattern or path]"
    return ToolResult.text(text, value={"files": shown, "total": len(files), "truncated": truncated})


#: the definition offered to models (:mod:`.catalog`); its ``execute`` calls this module's
TOOL = catalog.GLOB
