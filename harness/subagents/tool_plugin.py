"""``tool-subagent``: a model-facing tool that delegates to one provider.

Foreground only: the call starts a child, waits for its result and always
disposes it, whatever happens (timeout, cancellation, provider failure).
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hookspecs import hookimpl
from hookspecs.errors import SubagentError, ToolError
from hookspecs.values import (
    StopReasons,
    SubagentRequest,
    TextBlock,
    ToolDefinition,
    ToolFilter,
    ToolResult,
)

from ..cleanup import shielded_cleanup

if TYPE_CHECKING:
    from hookspecs.protocols import Host, ToolRunContext


@attrs.frozen(kw_only=True)
class SubagentToolConfig:
    provider: str = "spawn"
    tool_name: str = "subagent"
    max_depth: int = attrs.field(default=3, validator=attrs.validators.ge(0))
    persona: str | None = None
    tool_allow: tuple[str, ...] | None = None
    timeout_seconds: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )


PARAMETERS = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string", "minLength": 1, "description": "The complete task for the subagent."},
        "label": {"type": "string", "description": "A short label for logs."},
    },
    "required": ["prompt"],
    "additionalProperties": False,
}


class SubagentToolPlugin:
    config_schema = SubagentToolConfig

    def __init__(self, config: SubagentToolConfig | None = None) -> None:
        self.config = config or SubagentToolConfig()
        self.host: Host | None = None

    @hookimpl
    def dsh_plugin_setup(self, host: Host) -> None:
        self.host = host

    @hookimpl
    def dsh_register_tools(self, register: Any) -> None:
        register(
            ToolDefinition(
                name=self.config.tool_name,
                description=(
                    "Delegate a self-contained task to a fresh subagent and wait for its answer. "
                    "The subagent sees only the prompt you give it."
                ),
                parameters=PARAMETERS,
                execute=self._execute,
            )
        )

    async def _execute(self, args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
        assert self.host is not None, "the plugin was not set up"
        config = self.config
        token = ctx.cancel.child()
        request = SubagentRequest(
            label=str(args.get("label") or config.tool_name),
            prompt=(TextBlock(text=args["prompt"]),),
            parent=ctx.agent,
            cancel=token,
            max_depth=config.max_depth,
            tool_filter=ToolFilter.of(config.tool_allow) if config.tool_allow is not None else None,
            persona=config.persona,
        )
        try:
            run = await self.host.subagents.start(config.provider, request)
        except SubagentError as exc:
            raise ToolError(exc.message, code=exc.code) from None
        try:
            with trio.move_on_after(config.timeout_seconds or math.inf) as scope:
                result = await run.result()
            if scope.cancelled_caught:
                token.cancel("timeout")
                return ToolResult.failure("SUBAGENT_TIMEOUT", f"the subagent did not finish within {config.timeout_seconds:g}s")
        finally:
            with shielded_cleanup():
                await run.dispose()
        if result.stop_reason != StopReasons.COMPLETED:
            detail = f": {result.diagnostic}" if result.diagnostic else ""
            return ToolResult.failure(
                "SUBAGENT_" + result.stop_reason.upper().replace("-", "_"),
                f"the subagent stopped ({result.stop_reason}){detail}",
            )
        if result.structured is not None:
            text = json.dumps(result.structured, ensure_ascii=False, indent=2)
        else:
            text = "\n".join(b.text for b in result.output if isinstance(b, TextBlock)) or "(no answer)"
        return ToolResult.text(text, value={"session": run.id, "stop_reason": result.stop_reason})
