"""System prompt sections and per-request assembly."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from hookspecs.values import PromptAssembly, PromptSection

if TYPE_CHECKING:
    from ..tools.registry import ToolRegistry
    from .agent import LoopAgent

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

    def assemble(self, agent: LoopAgent, tools: ToolRegistry) -> PromptAssembly:
        """Global sections, shadowed by the agent's scoped ones, plus the runtime
        environment; runtime-context sections dropped when the scope suppresses them."""
        merged = dict(self._sections)
        merged[ENVIRONMENT_SECTION] = PromptSection(
            name=ENVIRONMENT_SECTION,
            text=f"Working directory: {agent.cwd}",
            order=900,
            kind="runtime-context",
        )
        scoped = agent.scope.system_prompt
        merged.update(scoped.sections)
        sections = tuple(
            s for s in merged.values() if not (scoped.suppresses_runtime_context and s.kind == "runtime-context")
        )
        return PromptAssembly(sections=sections, tools=tuple(t.schema for t in tools.visible(agent)))
