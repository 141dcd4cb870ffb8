"""System prompt sections and per-request assembly."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from hookspecs.values import PromptAssembly, PromptSection, ToolDefinition

if TYPE_CHECKING:
    from .scope import ScopedPromptImpl

#: The default persona; agent scopes (a subagent's persona) shadow it by name.
PERSONA_SECTION = "deployment:persona"
ENVIRONMENT_SECTION = "runtime:environment"

DEFAULT_PERSONA = (
    "You are a careful software agent working in a user's workspace. Use the available "
    "tools to inspect before you conclude, keep changes minimal, and say plainly what you "
    "verified and what you did not."
)


class SystemPromptRegistry:
    """Global sections; implements :class:`hookspecs.protocols.SystemPromptRegistry`."""

    def __init__(self) -> None:
        self._sections: dict[str, PromptSection] = {
            PERSONA_SECTION: PromptSection(name=PERSONA_SECTION, text=DEFAULT_PERSONA, order=0)
        }

    def section(self, section: PromptSection) -> Callable[[], None]:
        previous = self._sections.get(section.name)
        self._sections[section.name] = section

        def dispose() -> None:
            if self._sections.get(section.name) is section:
                if previous is not None:
                    self._sections[section.name] = previous
                else:
                    del self._sections[section.name]

        return dispose

    def assemble(self, *, cwd: Path, scoped: ScopedPromptImpl, tools: Iterable[ToolDefinition]) -> PromptAssembly:
        """Global sections, shadowed by the agent's scoped ones (``scoped``), plus the
        runtime environment (``cwd``); runtime-context sections dropped when the scope
        suppresses them. ``tools`` are the ones visible to the agent."""
        merged = dict(self._sections)
        merged[ENVIRONMENT_SECTION] = PromptSection(
            name=ENVIRONMENT_SECTION,
            text=f"Working directory: {cwd}",
            order=900,
            kind="runtime-context",
        )
        merged.update(scoped.sections)
        sections = tuple(
            s for s in merged.values() if not (scoped.suppresses_runtime_context and s.kind == "runtime-context")
        )
        return PromptAssembly(sections=sections, tools=tuple(t.schema for t in tools))
