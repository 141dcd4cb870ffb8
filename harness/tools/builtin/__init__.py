"""The built-in tools: ``read``, ``grep``, ``glob`` (read-only, confined to the
workspace) and ``write``, ``edit``, ``bash`` (approval required, root agents only).

Every tool treats ``ctx.cwd`` as the workspace root and reports paths relative
to it. The definitions are in :mod:`.catalog`; a tool's module loads at its
first call.
"""

from __future__ import annotations

from hookspecs.values import ToolDefinition

from .catalog import BASH, EDIT, GLOB, GREP, READ, WRITE


def builtin_tools() -> list[ToolDefinition]:
    """A fresh list of the built-in tool definitions (the values are immutable)."""
    return [READ, GREP, GLOB, WRITE, EDIT, BASH]


__all__ = ["builtin_tools"]
