"""What models are offered of the built-in tools: each one's name, description,
parameters and flags, apart from the code that runs it.

The host registers every built-in tool at start-up, and a root agent's first
request lists them all, but most runs call few of them (or none): so a
definition's ``execute`` imports its tool's module (:mod:`.read`, :mod:`.bash`,
...) at the first call, and a run that calls no tool never loads them. The
limits a description or a schema states are defined here, with it; each tool's
module imports them from here.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from hookspecs.values import ToolDefinition

if TYPE_CHECKING:
    from hookspecs.protocols import ToolRunContext
    from hookspecs.values.tools import ToolExecute, ToolOutput


def _calls(module: str) -> ToolExecute:
    """The ``execute`` of the tool module ``module``, imported at the first call."""

    async def execute(args: dict[str, Any], ctx: ToolRunContext) -> ToolOutput:
        tool = import_module(f"{__package__}.{module}")
        output: ToolOutput = await tool.execute(args, ctx)
        return output

    execute.__qualname__ = f"{module}.execute"
    return execute


# --- read -----------------------------------------------------------------------------

DEFAULT_LIMIT = 2000
MAX_LIMIT = 10_000

_READ_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "minLength": 1,
            "description": "File to read, relative to the workspace root (or absolute, inside it).",
        },
        "offset": {
            "type": "integer",
            "minimum": 1,
            "description": "1-based line number to start at. Use it to continue a truncated read.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LIMIT,
            "default": DEFAULT_LIMIT,
            "description": f"Maximum number of lines to return (default {DEFAULT_LIMIT}).",
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}

READ = ToolDefinition(
    name="read",
    description=(
        "Read a text file from the workspace. Returns its lines numbered from 1 "
        "(`     1\\tfirst line`). Long files are returned in windows: pass offset "
        "and limit to page through them. Directories and binary files are refused."
    ),
    parameters=_READ_PARAMETERS,
    execute=_calls("read"),
    concurrency_safe=True,
    read_only=True,
)


# --- grep -----------------------------------------------------------------------------

DEFAULT_MAX_RESULTS = 200
MAX_RESULTS = 5000

_GREP_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "minLength": 1,
            "description": (
                "Regular expression searched for in each line (Python/RE2 syntax, re.search semantics; "
                "no backreferences or lookaround)."
            ),
        },
        "path": {
            "type": "string",
            "minLength": 1,
            "default": ".",
            "description": "Directory to search recursively, or a single file (default: the workspace root).",
        },
        "glob": {
            "type": "string",
            "minLength": 1,
            "description": (
                "Only search files whose name matches this glob, e.g. \"*.py\" or \"*.{ts,tsx}\". "
                "A glob containing '/' is matched against the path below `path`, e.g. \"src/**/*.py\"."
            ),
        },
        "ignore_case": {"type": "boolean", "default": False, "description": "Match case-insensitively."},
        "max_results": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "default": DEFAULT_MAX_RESULTS,
            "description": f"Stop after this many matching lines (default {DEFAULT_MAX_RESULTS}).",
        },
    },
    "required": ["pattern"],
    "additionalProperties": False,
}

GREP = ToolDefinition(
    name="grep",
    description=(
        "Search file contents in the workspace with a regular expression (RE2: linear time, "
        "no backreferences or lookaround). "
        "Prints matching lines as `path:line:text`, sorted by path then line. "
        "Hidden directories (like .git) and binary files are skipped."
    ),
    parameters=_GREP_PARAMETERS,
    execute=_calls("grep"),
    concurrency_safe=True,
    read_only=True,
)


# --- glob -----------------------------------------------------------------------------

MAX_FILES = 1000

_GLOB_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "minLength": 1,
            "description": (
                "Glob relative to `path`: `*` and `?` match within one path segment, `**` matches any "
                "number of directories, `{a,b}` alternatives. E.g. \"**/*.py\", \"src/*.{ts,tsx}\"."
            ),
        },
        "path": {
            "type": "string",
            "minLength": 1,
            "default": ".",
            "description": "Directory to search from (default: the workspace root).",
        },
    },
    "required": ["pattern"],
    "additionalProperties": False,
}

GLOB = ToolDefinition(
    name="glob",
    description=(
        "Find files in the workspace by path pattern, e.g. \"**/*.py\". Returns matching "
        f"file paths relative to the workspace root, sorted, one per line (at most {MAX_FILES}). "
        "Hidden directories are skipped unless the pattern names them."
    ),
    parameters=_GLOB_PARAMETERS,
    execute=_calls("glob"),
    concurrency_safe=True,
    read_only=True,
)


# --- write ----------------------------------------------------------------------------

_WRITE_PARAMETERS: dict[str, Any] = {
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

WRITE = ToolDefinition(
    name="write",
    description=(
        "Create a file or replace its whole content. Prefer `edit` for changing part of an "
        "existing file. Parent directories are created as needed."
    ),
    parameters=_WRITE_PARAMETERS,
    execute=_calls("write"),
    requires_approval=True,
    root_only=True,
)


# --- edit -----------------------------------------------------------------------------

_EDIT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "minLength": 1,
            "description": "File to edit, relative to the workspace root.",
        },
        "old_text": {
            "type": "string",
            "minLength": 1,
            "description": (
                "Exact text to replace, including whitespace and indentation. It must occur exactly "
                "once unless replace_all is true; include surrounding lines to make it unique."
            ),
        },
        "new_text": {"type": "string", "description": "Replacement text."},
        "replace_all": {
            "type": "boolean",
            "default": False,
            "description": "Replace every occurrence instead of requiring exactly one.",
        },
    },
    "required": ["path", "old_text", "new_text"],
    "additionalProperties": False,
}

EDIT = ToolDefinition(
    name="edit",
    description=(
        "Replace exact text in an existing file. old_text must match the file exactly "
        "(read the file first) and occur once, unless replace_all is true."
    ),
    parameters=_EDIT_PARAMETERS,
    execute=_calls("edit"),
    requires_approval=True,
    root_only=True,
)


# --- bash -----------------------------------------------------------------------------

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600

_BASH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "minLength": 1,
            "description": "Shell command, run with /bin/sh -c in the workspace root. stdin is empty.",
        },
        "timeout_seconds": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": MAX_TIMEOUT,
            "default": DEFAULT_TIMEOUT,
            "description": (
                f"Kill the command after this many seconds (default {DEFAULT_TIMEOUT}, max {MAX_TIMEOUT})."
            ),
        },
    },
    "required": ["command"],
    "additionalProperties": False,
}

BASH = ToolDefinition(
    name="bash",
    description=(
        "Run a shell command (/bin/sh -c) in the workspace root and return its exit code and "
        "combined stdout/stderr (long output keeps its start and end). Non-interactive: stdin is "
        f"empty. Killed after timeout_seconds (default {DEFAULT_TIMEOUT}). Under the session's sandbox mode "
        "(workspace-write, read-only) it runs without network and can write only inside the workspace (or nowhere)."
    ),
    parameters=_BASH_PARAMETERS,
    execute=_calls("bash"),
    requires_approval=True,
    root_only=True,
)
