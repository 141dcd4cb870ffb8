"""Which directory the reviewer of an imported transcript may read.

A transcript is foreign data: whoever wrote the file chose its recorded
``cwd``, so it never decides what the reviewer's file tools reach. The
workspace comes from the person instead: ``harness shadow review --cwd DIR``
(default: the directory the command runs in) or the ``cwd`` the agent puts in
its Stop hook's input. It is accepted only when, with symlinks followed, it is
an existing directory that is not the filesystem root, not the person's home
directory nor a directory holding it, and neither inside ``$DSH_HOME`` nor
holding it (the sessions, journals and state of every other project live
there). Otherwise the review runs with no file tools at all
(:class:`NoFileTools`) and says why.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import attrs

from harness.cli.render import visible
from harness.tools.builtin import builtin_tools
from hookspecs import hookimpl
from hookspecs.values import PromptAssembly
from hookspecs.values.tools import Deny, PreExecuteDecision

#: the host's tools that touch the file system (read, grep, glob, write, edit, bash)
FILE_TOOLS = frozenset(tool.name for tool in builtin_tools())
NO_FILE_TOOLS = "reviewed without file tools"


@attrs.frozen(kw_only=True)
class Workspace:
    """``path``: the accepted directory (resolved), or None; then ``refused`` says why."""

    path: Path | None
    refused: str | None = None

    @property
    def note(self) -> str | None:
        """The one line a review without file tools prints (None when it has them)."""
        return None if self.path is not None else f"{NO_FILE_TOOLS}: {self.refused}"

    def to_json(self) -> dict[str, str | None]:
        return {"path": str(self.path) if self.path is not None else None, "refused": self.refused}


#: what a caller that names no workspace gets: no file tools (fail closed)
NO_WORKSPACE = Workspace(path=None, refused="no workspace (none was given)")


def refused(asked: str, why: str) -> Workspace:
    return Workspace(path=None, refused=f"workspace {visible(asked)} refused ({why})")


def choose_workspace(asked: str | None, *, dsh_home: Path, missing: str, relative_ok: bool) -> Workspace:
    """Check the directory the person named (``asked``; None: ``missing`` says why there is none).

    ``relative_ok``: a relative ``--cwd`` means the current directory's; a hook
    input's ``cwd`` must be absolute (the agent always sends one)."""
    if not asked:
        return Workspace(path=None, refused=f"no workspace ({missing})")
    if "\x00" in asked:
        return refused(asked, "not a path")
    if not relative_ok and not os.path.isabs(asked):
        return refused(asked, "not an absolute path")
    try:
        path = Path(asked).resolve(strict=True)  # symlinks followed: judged by where they lead
    except (OSError, RuntimeError):
        return refused(asked, "no such directory")
    if not path.is_dir():
        return refused(asked, "not a directory")
    why = _too_wide(path, dsh_home)
    return refused(asked, why) if why else Workspace(path=path)


def _too_wide(path: Path, dsh_home: Path) -> str | None:
    """Why the reviewer may not read everything under ``path``, or None."""
    if path == Path(path.anchor):
        return "the filesystem root"
    try:
        home = Path.home().resolve()
    except (OSError, RuntimeError):  # no HOME and no passwd entry: nothing to compare with
        home = None
    if home is not None and path == home:
        return "your home directory"
    if home is not None and home.is_relative_to(path):
        return "it holds your home directory"
    state = dsh_home.resolve()
    if path.is_relative_to(state):
        return f"inside DSH_HOME {visible(str(state))}"
    if state.is_relative_to(path):
        return f"it holds DSH_HOME {visible(str(state))}"
    return None


class NoFileTools:
    """Loaded into a review's host when no workspace was accepted: the reviewer is
    offered no file tool, and a call to one anyway (a model may name a tool it
    was not offered) is refused before it runs. The host's cwd is an empty
    private directory as well, so even a tool that slipped through sees nothing."""

    @hookimpl
    async def dsh_system_prompt_assemble(
        self, agent: Any, assembly: PromptAssembly, call_next: Callable[..., Awaitable[PromptAssembly]]
    ) -> PromptAssembly:
        chosen = await call_next(assembly=assembly)
        return attrs.evolve(chosen, tools=tuple(t for t in chosen.tools if t.name not in FILE_TOOLS))

    @hookimpl
    async def dsh_tool_pre_execute(
        self, execution: Any, tool: Any, call_next: Callable[..., Awaitable[PreExecuteDecision]]
    ) -> PreExecuteDecision:
        if tool.name in FILE_TOOLS:
            return Deny(reason=f"{NO_FILE_TOOLS}: no workspace was accepted for this review")
        return await call_next()
