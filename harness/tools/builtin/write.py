"""``write``: create or overwrite a workspace file, atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookspecs import fsutil
from hookspecs.errors import ToolArgsError, ToolError
from hookspecs.protocols import ToolRunContext
from hookspecs.values import ToolDefinition, ToolResult

from ..workspace import relative_path, resolve_in_workspace, workspace_root
from ._files import os_reason

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "minLength": 1,
            "description": "File to write, relative to the workspace root; missing parent directories are created.",
        },
        "content": {"type": "string", "description": "The complete new content of the file (UTF-8)."},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}


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


TOOL = ToolDefinition(
    name="write",
    description=(
        "Create a file or replace its whole content. Prefer `edit` for changing part of an "
        "existing file. Parent directories are created as needed."
    ),
    parameters=PARAMETERS,
    execute=execute,
    requires_approval=True,
    root_only=True,
)
