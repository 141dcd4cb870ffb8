"""The ``structured_output`` tool attached to one child scope."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hookspecs import hookimpl
from hookspecs.protocols import AgentScope, ToolRunContext
from hookspecs.values import PromptSection, ToolDefinition, ToolExecution, ToolResult

STRUCTURED_OUTPUT_TOOL = "structured_output"

DEFAULT_DESCRIPTION = (
    "Submit your final result. Call this exactly once, when your answer is complete; "
    "the arguments must match this tool's parameter schema."
)
DEFAULT_INSTRUCTION = (
    "When your answer is complete you MUST submit it by calling the `structured_output` tool "
    "with arguments matching its schema. A plain text answer does not count as your result."
)


class StructuredCaptureImpl:
    """Implements :class:`hookspecs.protocols.StructuredCapture`.

    A valid call is *staged* by the tool body and *committed* only when the
    host's authoritative ``dsh_tool_result`` for that call is a success — a
    call that a later hook turned into an error never becomes the result.
    """

    def __init__(self) -> None:
        self._staged: dict[str, Any] = {}
        self._captured = False
        self._value: Any = None
        self.valid_calls = 0

    @property
    def captured(self) -> bool:
        return self._captured

    @property
    def value(self) -> Any:
        return self._value

    @property
    def settled(self) -> bool:
        return self._captured or bool(self._staged)

    async def execute(self, args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
        # the pipeline ran the schema and the caller's check (``check_arguments``)
        self._staged[ctx.call_id] = args
        self.valid_calls += 1
        ctx.conclude_turn()
        return ToolResult.text("Structured output recorded.", value={"recorded": True})

    def guard(self, execution: ToolExecution) -> str | None:
        if self.settled:
            return f"structured output already recorded: the run is complete, so `{execution.name}` is not executed"
        return None

    @hookimpl
    def dsh_tool_result(self, execution: ToolExecution, result: ToolResult) -> None:
        if execution.name != STRUCTURED_OUTPUT_TOOL:
            return
        value = self._staged.pop(execution.call_id, _MISSING)
        if value is _MISSING or result.is_error or self._captured:
            return
        self._captured = True
        self._value = value


_MISSING = object()


def attach_structured_output(
    scope: AgentScope,
    schema: Mapping[str, Any],
    *,
    validate: Callable[[Any], Sequence[str]] | None = None,
    description: str | None = None,
    instruction: str | None = None,
) -> StructuredCaptureImpl:
    capture = StructuredCaptureImpl()
    scope.tools.register(
        ToolDefinition(
            name=STRUCTURED_OUTPUT_TOOL,
            description=description or DEFAULT_DESCRIPTION,
            parameters=dict(schema),
            execute=capture.execute,
            check_arguments=validate,
        )
    )
    scope.tools.guard(capture.guard)
    scope.add_plugin(capture, name="structured-output")
    scope.system_prompt.section(
        PromptSection(name="tool:structured_output", text=instruction or DEFAULT_INSTRUCTION, order=190)
    )
    return capture
