"""``read``: a text file's lines, numbered, one window at a time."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs
import trio

from hookspecs.errors import ToolArgsError, ToolError
from hookspecs.protocols import ToolRunContext
from hookspecs.values import ToolResult

from ..workspace import relative_path, resolve_in_workspace, workspace_root
from . import catalog
from ._files import SNIFF_BYTES, hard_link_refusal, looks_binary, os_reason, require_regular_file, single_link
from .catalog import DEFAULT_LIMIT

#: Longer lines (minified files) are cut so one line cannot flood the context.
MAX_LINE_CHARS = 2000


@attrs.frozen
class _Window:
    lines: list[str]
    total: int


def _read_window(path: Path, shown: str, first: int, limit: int) -> _Window:
    """Stream the file so huge files cost only the window kept, and count every line."""
    lines: list[str] = []
    total = 0
    try:
        with path.open("rb") as handle:
            st = os.fstat(handle.fileno())  # the file opened, not the one checked before
            if not single_link(st):
                raise ToolArgsError(hard_link_refusal(shown, st))
            if looks_binary(handle.read(SNIFF_BYTES)):
                raise ToolArgsError(f"path {shown!r} is a binary file; read only shows text files")
            handle.seek(0)
            for raw in handle:
                total += 1
                if b"\x00" in raw:
                    raise ToolArgsError(f"path {shown!r} is a binary file; read only shows text files")
                if first <= total < first + limit:
                    text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                    if len(text) > MAX_LINE_CHARS:
                        text = text[:MAX_LINE_CHARS] + f" … [line cut at {MAX_LINE_CHARS} characters]"
                    lines.append(text)
    except OSError as exc:
        raise ToolError(f"cannot read {shown!r}: {os_reason(exc)}") from None
    return _Window(lines=lines, total=total)


async def execute(args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
    root = workspace_root(ctx.cwd)
    path = resolve_in_workspace(root, args["path"], must_exist=True)
    shown = relative_path(root, path)
    require_regular_file(path, shown)
    first = args.get("offset", 1)
    limit = args.get("limit", DEFAULT_LIMIT)

    window = await trio.to_thread.run_sync(_read_window, path, shown, first, limit)
    if window.total and first > window.total:
        raise ToolArgsError(f"offset: {first} is past the end of {shown!r}, which has {window.total} lines")

    last = first + len(window.lines) - 1
    truncated = last < window.total
    body = "\n".join(f"{first + i:>6}\t{line}" for i, line in enumerate(window.lines))
    if window.total == 0:
        body = f"({shown} is empty)"
    elif truncated:
        body += (
            f"\n\n[showing lines {first}-{last} of {window.total}; "
            f"read again with offset={last + 1} to continue]"
        )
    value = {"path": shown, "lines": len(window.lines), "total_lines": window.total, "truncated": truncated}
    return ToolResult.text(body, value=value)


#: the definition offered to models (:mod:`.catalog`); its ``execute`` calls this module's
TOOL = catalog.READ
