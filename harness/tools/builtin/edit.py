"""``edit``: replace an exact piece of text in a workspace file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from hookspecs import fsutil
from hookspecs.errors import ToolArgsError, ToolError
from hookspecs.protocols import ToolRunContext
from hookspecs.values import ToolResult

from ..workspace import relative_path, resolve_in_workspace, workspace_root
from . import catalog
from ._files import SNIFF_BYTES, looks_binary, os_reason, require_regular_file

# surrogateescape round-trips bytes that are not UTF-8, so an edit never
# corrupts the parts of a file it does not touch.
_ENCODING = {"encoding": "utf-8", "errors": "surrogateescape"}


@attrs.frozen
class _Edit:
    path: Path
    shown: str
    old: str
    new: str
    replace_all: bool


def _apply(edit: _Edit) -> int:
    try:
        data = edit.path.read_bytes()
    except OSError as exc:
        raise ToolError(f"cannot read {edit.shown!r}: {os_reason(exc)}") from None
    if looks_binary(data[:SNIFF_BYTES]):
        raise ToolArgsError(f"path {edit.shown!r} is a binary file; edit only changes text files")
    text = data.decode(**_ENCODING)
    count = text.count(edit.old)
    if count == 0:
        raise ToolArgsError(
            f"old_text: not found in {edit.shown!r} (found 0 times; it must match exactly, "
            "including whitespace and indentation)"
        )
    if count > 1 and not edit.replace_all:
        raise ToolArgsError(
            f"old_text: found {count} times in {edit.shown!r}; it must occur exactly once. "
            "Include more surrounding text to make it unique, or set replace_all to true"
        )
    updated = text.replace(edit.old, edit.new)
    try:
        payload = updated.encode(**_ENCODING)
    except UnicodeEncodeError:
        raise ToolArgsError("new_text: contains a lone surrogate, which is not valid UTF-8") from None
    try:
        fsutil.write_atomic(edit.path, payload, mode=fsutil.KEEP_MODE)
    except OSError as exc:
        raise ToolError(f"cannot write {edit.shown!r}: {os_reason(exc)}") from None
    return count


async def execute(args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
    root = workspace_root(ctx.cwd)
    path = resolve_in_workspace(root, args["path"], must_exist=True)
    shown = relative_path(root, path)
    require_regular_file(path, shown)
    if args["old_text"] == args["new_text"]:
        raise ToolArgsError("new_text: is identical to old_text, so the edit would change nothing")
    count = _apply(
        _Edit(
            path=path,
            shown=shown,
            old=args["old_text"],
            new=args["new_text"],
            replace_all=args.get("replace_all", False),
        )
    )
    noun = "occurrence" if count == 1 else "occurrences"
    value = {"path": shown, "replacements": count}
    return ToolResult.text(f"replaced {count} {noun} in {shown}", value=value)


#: the definition offered to models (:mod:`.catalog`); its ``execute`` calls this module's
TOOL = catalog.EDIT
