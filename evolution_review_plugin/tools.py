"""The model-facing ``skill`` and ``memory`` tools.

``skill`` lists, reads, writes and patches skills. A write or patch of an
existing skill needs a ``read`` of it by the same agent first (the agent must
see what it replaces); a child agent (a reviewer) may only list and read — its
changes travel in its plan. While a review prompt delivered to the root is
being worked on (:class:`~.pinned.ReviewMarks`), writes to pinned skills are
refused. Approval for writes in interactive sessions is asked by the plugin's
``dsh_tool_pre_execute`` link (:func:`needs_approval`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from hookspecs.errors import ToolArgsError
from hookspecs.stores import MemoryOp
from hookspecs.values import ToolDefinition, ToolResult

from .pinned import ReviewMarks, is_pinned, pinned_refusal
from .sweep import Alive, always_alive, sweep
from .vocabulary import SKILL_TOOL

if TYPE_CHECKING:
    from hookspecs.protocols import ToolRunContext
    from hookspecs.stores import MemoryStore, SkillLibrary

MEMORY_TOOL = "memory"
WRITE_ACTIONS = frozenset({"write", "patch"})


@attrs.define(eq=False)
class ReadLedger:
    """Which skills each agent has read (by agent id); dropped with the agent."""

    alive: Alive = always_alive
    _reads: dict[str, set[str]] = attrs.field(factory=dict)

    def note(self, agent_id: str, name: str) -> None:
        if agent_id not in self._reads:
            sweep(self._reads, self.alive)
        self._reads.setdefault(agent_id, set()).add(name)

    def has_read(self, agent_id: str, name: str) -> bool:
        return name in self._reads.get(agent_id, ())

    def forget(self, agent_id: str) -> None:
        self._reads.pop(agent_id, None)

    def __len__(self) -> int:
        return len(self._reads)


def needs_approval(name: str, arguments: Any) -> bool:
    return name == SKILL_TOOL and isinstance(arguments, Mapping) and arguments.get("action") in WRITE_ACTIONS


def remembers(name: str, arguments: Any) -> bool:
    """A ``memory`` call: every action changes what later prompts carry."""
    return name == MEMORY_TOOL and isinstance(arguments, Mapping)


def _text(args: Mapping[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value:
        raise ToolArgsError(f"{key} is required for action {args.get('action')!r}")
    return value


def _marks(library: SkillLibrary, name: str, protected: bool) -> str:
    """`` (protected)`` / `` (pinned)`` after a listed name: what a review may not change."""
    return (" (protected)" if protected else "") + (" (pinned)" if is_pinned(library, name) else "")


def skill_tool(library: Callable[[], SkillLibrary], ledger: ReadLedger, marks: ReviewMarks) -> ToolDefinition:
    async def execute(args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
        lib = library()
        action = args["action"]
        agent = ctx.agent
        if action == "list":
            skills = lib.list()
            lines = [f"- {s.name}{_marks(lib, s.name, s.protected)}: {s.description}" for s in skills]
            return ToolResult.text("\n".join(lines) if lines else "No skills yet.", value=[s.name for s in skills])
        name = _text(args, "name")
        if action == "read":
            content = lib.read(name)
            ledger.note(agent.id, name)
            return ToolResult.text(content)
        if not agent.is_root:
            raise ToolArgsError("a reviewer cannot change skills itself; put the change in your plan")
        if marks.active(agent.id) and is_pinned(lib, name):
            raise ToolArgsError(f"{pinned_refusal(name)}; leave it as it is")
        if lib.exists(name) and not ledger.has_read(agent.id, name):
            raise ToolArgsError(f"read skill {name!r} before changing it (action 'read')")
        if action == "write":
            lib.write(name, _text(args, "content"), origin="tool")
        else:
            lib.patch(name, _text(args, "old"), str(args.get("new", "")), origin="tool")
        ledger.note(agent.id, name)  # it now knows the current text
        return ToolResult.text(f"Skill {name!r} saved.")

    return ToolDefinition(
        name=SKILL_TOOL,
        description=(
            "Your skill library: reusable procedures as Markdown. `list` the skills, `read` one, `write` a new one "
            "(or replace one you have read), `patch` one you have read (replace `old`, a passage that occurs once, "
            "with `new`)."
        ),
        parameters={
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["list", "read", "write", "patch"]},
                "name": {"type": "string", "description": "kebab-case skill name"},
                "content": {"type": "string", "description": "write: the whole SKILL.md"},
                "old": {"type": "string", "description": "patch: the passage to replace"},
                "new": {"type": "string", "description": "patch: its replacement"},
            },
            "required": ["action"],
            "additionalProperties": False,
        },
        execute=execute,
    )


def memory_tool(store: Callable[[], MemoryStore]) -> ToolDefinition:
    async def execute(args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
        op = MemoryOp(
            action=args["action"], target=args["target"], text=args.get("text", ""), old_text=args.get("old_text", "")
        )
        outcome = store().apply_batch([op])[0]
        if not outcome.applied:
            raise ToolArgsError(outcome.reason)
        return ToolResult.text(f"Memory ({op.target}) updated; it is loaded at the start of the next session.")

    return ToolDefinition(
        name=MEMORY_TOOL,
        description=(
            "Durable notes loaded into your instructions at the start of every later session. `target` memory: "
            "facts about the work and environment; user: the person's preferences. `add` a short note, `replace` "
            "or `remove` one by quoting `old_text` exactly."
        ),
        parameters={
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["add", "replace", "remove"]},
                "target": {"type": "string", "enum": ["memory", "user"]},
                "text": {"type": "string"},
                "old_text": {"type": "string"},
            },
            "required": ["action", "target"],
            "additionalProperties": False,
        },
        execute=execute,
        root_only=True,
    )
