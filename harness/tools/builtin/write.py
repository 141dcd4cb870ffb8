"""``write``: create or overwrite a workspace file, atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookspecs import fsutil
from hookspecs.errors import ToolArgsError, ToolError
from hookspecs.protocols import ToolRunContext
from hookspecs.values import ToolResult

from ..workspace import relative_path, resolve_in_workspace, workspace_root
from . import catalog
from ._files import os_reason


def _write(path: Path, shown: str, data: bytes) -> bool:
    if path.is_dir():
        raise ToolArgsError(f"path {shown!r} is a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return fsutil.write_atomic(path, data, mode=fsutil.KEEP_MODE)
    except (FileExistsError, NotADirectoryError):
        raise ToolArgsError(f"path {shown!r}: a parent of it is a file, not a directory") from None
    except OSError as exc:
        raise ToolError(f"cannot write {shown!r}: {os_reason(exc)}") from None


async def execute(args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
    root = workspace_root(ctx.cwd)
    path = resolve_in_workspace(root, args["path"])
    shown = relative_path(root, path)
    if path == root:
        raise ToolArgsError(f"path {args['path']!r} is the workspace directory itself")
    try:
        data = args["content"].encode("utf-8")
    except UnicodeEncodeError:
        raise ToolArgsError("content: contains a lone surrogate, which is not valid UTF-8") from None
    created = _write(path, shown, data)
    return ToolResult.text(
        f"wrote {len(data)} bytes to {shown}",
        value={"path": shown, "bytes": len(data), "created": created},
    )


#: the definition offered to models (:mod:`.catalog`); its ``execute`` calls this module's
TOOL = catalog.WRITE
