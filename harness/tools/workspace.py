"""Workspace confinement: file tools only touch paths under the agent's cwd.

Paths are resolved with symlinks followed (``realpath``) and compared with the
realpath of the workspace, so ``../x``, ``/etc/passwd`` and a link pointing out
of the tree are all refused. Messages echo only what the model sent and
workspace-relative paths, never where a path really leads on the host.

There is an unavoidable window between the check and the use (a process could
swap a directory for a symlink); tools that need more must sandbox the process.
Hard links are not visible here at all (a second name of an outside file is a
plain file inside): the file tools refuse files with more than one link when
they open them (``builtin/_files.py``). ``bash`` is not confined by this module;
see ``builtin/bash.py`` for its sandbox modes.
"""

from __future__ import annotations

import os
from pathlib import Path

from hookspecs.errors import ToolArgsError


def workspace_root(cwd: Path | str) -> Path:
    """The workspace as it really is on disk (symlinks resolved)."""
    return Path(os.path.realpath(cwd))


def is_inside(root: Path, path: Path) -> bool:
    """True when ``path`` is ``root`` or below it (both already realpaths)."""
    return path == root or path.is_relative_to(root)


def resolve_in_workspace(
    cwd: Path | str,
    path: str,
    *,
    argument: str = "path",
    must_exist: bool = False,
) -> Path:
    """Resolve ``path`` (relative to ``cwd``, or absolute) to a real path inside the
    workspace, or raise :class:`ToolArgsError` naming ``argument``."""
    if not path:
        raise ToolArgsError(f"{argument}: must not be empty")
    if "\x00" in path:
        raise ToolArgsError(f"{argument}: must not contain NUL characters")
    root = workspace_root(cwd)
    # ``root / path`` keeps an absolute ``path`` as is; realpath follows every link,
    # including a dangling one whose target would be outside.
    resolved = Path(os.path.realpath(root / path))
    if not is_inside(root, resolved):
        raise ToolArgsError(f"{argument} {path!r} is outside the workspace")
    if must_exist and not resolved.exists():
        raise ToolArgsError(f"{argument} {path!r} does not exist")
    return resolved


def relative_path(root: Path, path: Path | str) -> str:
    """``path`` relative to ``root`` with forward slashes; ``.`` for the root itself."""
    rel = os.path.relpath(path, root)
    return Path(rel).as_posix()
