"""The ``agent-loop`` settings namespace: the host's own knobs."""

from __future__ import annotations

import attrs

from hookspecs.values import SettingsSpec

AGENT_LOOP_NAMESPACE = "agent-loop"


def _route(instance: object, attribute: attrs.Attribute[str | None], value: str | None) -> None:
    if value is None:
        return
    provider, sep, model = value.partition("/")
    if not sep or not provider or not model or any(c.isspace() for c in value):
        raise ValueError(f"{attribute.name} must use provider/model (got {value!r})")


@attrs.frozen(kw_only=True)
class AgentLoopSettings:
    model: str | None = attrs.field(
        default=None, validator=_route, metadata={"description": "Default route for root agents (provider/model)."}
    )
    reasoning_effort: str | None = attrs.field(default=None, metadata={"description": "Default reasoning effort."})
    max_tokens: int | None = attrs.field(
        default=None,
        validator=attrs.validators.optional(attrs.validators.ge(1)),
        metadata={"description": "Output token limit per request."},
    )
    max_parallel_tool_calls: int = attrs.field(
        default=10,
        validator=[attrs.validators.ge(1), attrs.validators.le(64)],
        metadata={"description": "Concurrency-safe tool calls run at once."},
    )
    max_steps_per_turn: int = attrs.field(
        default=64,
        validator=[attrs.validators.ge(1), attrs.validators.le(10_000)],
        metadata={"description": "Model calls one turn may make before it ends with an error."},
    )
    bash_pass_env: tuple[str, ...] = attrs.field(
        default=(),
        metadata={
            "description": (
                "Environment variables bash receives besides its allowlist (PATH, HOME, LANG, LC_*, TERM, "
                "TMPDIR, USER, LOGNAME, SHELL, TZ); exact names. A provider's api_key_env is never passed."
            )
        },
    )
    persona: str | None = attrs.field(
        default=None, metadata={"description": "Replaces the default persona section of the system prompt."}
    )


AGENT_LOOP_SETTINGS = SettingsSpec(
    namespace=AGENT_LOOP_NAMESPACE,
    schema=AgentLoopSettings,
    title="Agent loop",
    description="Model route and limits of the reference host's agent loop.",
    applies="live",
)
