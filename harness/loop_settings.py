"""The ``agent-loop`` settings namespace: the host's own knobs."""

from __future__ import annotations

from hookspecs.values import Settings, SettingsSpec, setting

AGENT_LOOP_NAMESPACE = "agent-loop"


#: a provider/model route: the provider before the first slash, no whitespace anywhere
ROUTE_PATTERN = r"[^/\s]+/\S+"


class AgentLoopSettings(Settings):
    """The host's own knobs, one :func:`hookspecs.values.setting` a line."""

    model: str | None = setting(alias="model", default=None, pattern=ROUTE_PATTERN, shape="a provider/model route", description="Default route for root agents (provider/model).")
    reasoning_effort: str | None = setting(alias="reasoning_effort", default=None, description="Default reasoning effort.")
    max_tokens: int | None = setting(alias="max_tokens", default=None, minimum=1, description="Output token limit per request.")
    max_parallel_tool_calls: int = setting(alias="max_parallel_tool_calls", default=10, minimum=1, maximum=64, description="Concurrency-safe tool calls run at once.")
    max_steps_per_turn: int = setting(alias="max_steps_per_turn", default=64, minimum=1, maximum=10_000, description="Model calls one turn may make before it ends with an error.")
    bash_pass_env: tuple[str, ...] = setting(alias="bash_pass_env", default=(), description="Environment variables bash receives besides its allowlist (PATH, HOME, LANG, LC_*, TERM, TMPDIR, USER, LOGNAME, SHELL, TZ); exact names. A provider's api_key_env is never passed.")
    persona: str | None = setting(alias="persona", default=None, description="Replaces the default persona section of the system prompt.")


AGENT_LOOP_SETTINGS = SettingsSpec(
    namespace=AGENT_LOOP_NAMESPACE,
    schema=AgentLoopSettings,
    title="Agent loop",
    description="Model route and limits of the reference host's agent loop.",
    applies="live",
)
