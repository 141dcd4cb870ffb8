"""The built-in tools: ``read``, ``grep``, ``glob`` (read-only, confined to the
workspace) and ``write``, ``edit``, ``bash`` (approval required, root agents only).

Every tool treats ``ctx.cwd`` as the workspace root and reports paths relative
to it.
"""

from __future__ import annotations

from hookspecs.values import ToolDefinition

from . import bash, edit, glob, grep, read, write


def builtin_tools() -> list[ToolDefinition]:
    """A fresh list of the built-in tool definitions (the values are immutable)."""
    return [read.TOOL, grep.TOOL, glob.TOOL, write.TOOL, edit.TOOL, bash.TOOL]


__all__ = ["builtin_tools"]
