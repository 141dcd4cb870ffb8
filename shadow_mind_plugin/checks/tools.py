"""Tool shapes: what a call did, whatever host or agent wrote it.

The host's own tools (``bash``, ``read``, ``grep``, ``glob``, ``write``,
``edit``), Claude Code's (``Bash``, ``Read``, ``Grep``, ``Glob``, ``LS``,
``Write``, ``Edit``, ``MultiEdit``, ``NotebookEdit``) and Codex's (``shell``,
``exec_command``, ``local_shell``, ``apply_patch``) all reduce to one
:class:`ToolKind`, the shell command they ran and the files they targeted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final

import attrs

from hookspecs.scrub import ABSOLUTE_PATH


class ToolKind(StrEnum):
    SHELL = "shell"
    READ = "read"
    SEARCH = "search"
    LIST = "list"
    EDIT = "edit"
    WRITE = "write"
    PATCH = "patch"
    OTHER = "other"


#: kinds that change files (the mutation checks look at these)
MUTATIONS: Final = frozenset({ToolKind.EDIT, ToolKind.WRITE, ToolKind.PATCH})
#: kinds that only look (their errors are exploration, not unfinished work)
LOOKS: Final = frozenset({ToolKind.READ, ToolKind.SEARCH, ToolKind.LIST})

_KINDS: Final[Mapping[str, ToolKind]] = {
    "bash": ToolKind.SHELL,
    "shell": ToolKind.SHELL,
    "shell_command": ToolKind.SHELL,
    "exec_command": ToolKind.SHELL,
    "local_shell": ToolKind.SHELL,
    "container.exec": ToolKind.SHELL,
    "read": ToolKind.READ,
    "read_file": ToolKind.READ,
    "notebookread": ToolKind.READ,
    "grep": ToolKind.SEARCH,
    "search": ToolKind.SEARCH,
    "glob": ToolKind.LIST,
    "ls": ToolKind.LIST,
    "list_dir": ToolKind.LIST,
    "edit": ToolKind.EDIT,
    "multiedit": ToolKind.EDIT,
    "notebookedit": ToolKind.EDIT,
    "write": ToolKind.WRITE,
    "apply_patch": ToolKind.PATCH,
}
#: an importer scrubs absolute paths in argument text to a bare marker, which is
#: no longer JSON where the path was a whole value; quoted back, the rest parses
_BARE_MARKER: Final = re.compile(r"([:\[,]\s*)(" + re.escape(ABSOLUTE_PATH) + ")")
_PATH_KEYS: Final = ("path", "file_path", "notebook_path", "filePath")
_PATCH_LINE: Final = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.MULTILINE)
#: Claude Code's Write result for a new file vs an overwrite
_CREATED: Final = re.compile(r"^File created successfully", re.IGNORECASE)
_UPDATED: Final = re.compile(r"^The file .* has been (updated|overwritten)", re.IGNORECASE)


@attrs.frozen(kw_only=True)
class CallShape:
    """What one call was: its kind, the shell command (or ""), the files it
    targeted and, for a mutation, which of them it created (a new file is not
    an overwrite)."""

    kind: ToolKind
    command: str = ""
    paths: tuple[str, ...] = ()
    created: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    #: a write known to have replaced an existing file (the host's ``write`` does not say)
    overwrote: bool = False

    def changed_existing(self) -> tuple[str, ...]:
        """Files this call changed that existed before: edits, patch updates, overwrites."""
        if self.kind is ToolKind.EDIT or (self.kind is ToolKind.WRITE and self.overwrote):
            return self.paths
        if self.kind is ToolKind.PATCH:
            return tuple(p for p in self.paths if p not in self.created and p not in self.deleted)
        return ()


def parse_arguments(raw: Any) -> Mapping[str, Any]:
    """The argument object; text that is not a JSON object gives ``{}``."""
    if isinstance(raw, Mapping):
        return raw
    if not isinstance(raw, str) or not raw:
        return {}
    for text in (raw, _BARE_MARKER.sub(r'\1"\2"', raw)):
        try:
            value = json.loads(text)
        except ValueError:
            continue
        return value if isinstance(value, Mapping) else {}
    return {}


def shape_of(name: str, raw_arguments: Any) -> CallShape:
    args = parse_arguments(raw_arguments)
    kind = _KINDS.get(name.casefold(), ToolKind.OTHER)
    if kind is ToolKind.SHELL:
        command = _command(args)
        if command.startswith("apply_patch"):  # Codex's older shape: the patch as a shell argument
            return _patch(command)
        return CallShape(kind=kind, command=command)
    if kind is ToolKind.PATCH:
        text = args.get("input") or args.get("patch") or (raw_arguments if isinstance(raw_arguments, str) else "")
        return _patch(text if isinstance(text, str) else "")
    path = next((args[key] for key in _PATH_KEYS if isinstance(args.get(key), str) and args[key]), None)
    return CallShape(kind=kind, paths=(normal_path(path),) if path else ())


def _command(args: Mapping[str, Any]) -> str:
    raw = args.get("command", args.get("cmd"))
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list) and all(isinstance(part, str) for part in raw):
        # ["bash", "-lc", "pytest -q"] runs its last word; a plain argv is the command itself
        if len(raw) >= 3 and raw[-2] in ("-c", "-lc", "-ic"):
            return raw[-1]
        return " ".join(raw)
    return ""


def _patch(text: str) -> CallShape:
    paths: list[str] = []
    created: list[str] = []
    deleted: list[str] = []
    for match in _PATCH_LINE.finditer(text):
        action, path, moved = match.group(1), match.group(2), match.group(3)
        target = normal_path(path or moved)
        paths.append(target)
        if action == "Add" or moved:
            created.append(target)
        elif action == "Delete":
            deleted.append(target)
    return CallShape(kind=ToolKind.PATCH, paths=tuple(paths), created=tuple(created), deleted=tuple(deleted))


def write_created(output: str) -> bool | None:
    """Whether a write made a new file: Claude Code says so; the host's ``write``
    does not (None: unknown, so it is never taken for an overwrite)."""
    if _CREATED.match(output):
        return True
    if _UPDATED.match(output):
        return False
    return None


def normal_path(path: str) -> str:
    path = path.strip().strip("`'\"")
    while path.startswith("./"):
        path = path[2:]
    return path


def basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def same_file(a: str, b: str) -> bool:
    """``src/app.py`` and ``app.py`` (or an absolute form) name the same file:
    equal, or one ends with the other at a ``/``."""
    a, b = normal_path(a), normal_path(b)
    if not a or not b:
        return False
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)
