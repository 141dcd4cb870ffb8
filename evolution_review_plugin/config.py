"""The ``evolution-review`` row config: fields, defaults, bounds, and the runtime clamp.

Keys are the reference's camelCase names; each field is one
:func:`hookspecs.values.setting` declaration (key, default, bounds, description),
and the live overrides (``live.py``) are declared from these. Out-of-range
values are refused when the profile loads, naming the field. YAML lets ``.nan``
and ``.inf`` through as numbers; bounds cannot judge them, so the numbers here
are not ``finite`` and :func:`clamp` swaps each for its default with one warning (the
reference's ``clampReviewConfig``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final, Literal

import attrs

from hookspecs.values import Settings, setting, settings_key

MAX_TIMEOUT_MS: Final = 4_294_967_295

_ZERO_TIMEOUT: Final = "0 would abort every review at once"
_ZERO_DEPTH: Final = "0 would reject every review spawn"


class ReviewConfig(Settings):
    """The plugin's config (profile row ``evolution-review``); read at host start."""

    review_enabled: bool = setting(alias="reviewEnabled", default=True, description="Master switch.")
    review_mode: Literal["subagent", "inject"] = setting(alias="reviewMode", default="subagent", description="subagent: a one-shot child returns a plan; inject: the review prompt goes to the root.")
    review_memory_interval: float | None = setting(alias="reviewMemoryInterval", default=None, minimum=1, finite=False, description="Activity units between memory reviews (default 10).")
    review_skill_interval: float | None = setting(alias="reviewSkillInterval", default=None, minimum=1, finite=False, description="Activity units between skill reviews (default 10).")
    memory_interval: float | None = setting(alias="memoryInterval", default=None, minimum=1, finite=False, description="Deprecated alias of reviewMemoryInterval (read, never written).")
    skill_interval: float | None = setting(alias="skillInterval", default=None, minimum=1, finite=False, description="Deprecated alias of reviewSkillInterval (read, never written).")
    review_tool_allow: tuple[str, ...] = setting(alias="reviewToolAllow", default=("skill",), description="Tools the review child may use.")
    review_timeout_ms: float = setting(alias="reviewTimeoutMs", default=120_000, minimum=1, maximum=MAX_TIMEOUT_MS, why_minimum=_ZERO_TIMEOUT, finite=False, description="Bound on each review run, in milliseconds.")
    review_context_messages: float = setting(alias="reviewContextMessages", default=60, minimum=1, finite=False, description="Last N user/assistant messages given to the child.")
    review_message_chars: float = setting(alias="reviewMessageChars", default=2000, minimum=1, finite=False, description="Per-message truncation in the review request.")
    review_max_depth: float = setting(alias="reviewMaxDepth", default=1, minimum=1, why_minimum=_ZERO_DEPTH, finite=False, description="Absolute delegation-depth cap of the review child.")
    review_provider: str | None = setting(alias="reviewProvider", default=None, non_empty=True, description="Provider of the review child; omitted: the deployment default route.")
    skill_review_trigger: Literal["cadence", "completion", "both"] = setting(alias="skillReviewTrigger", default="cadence", description="Gates only the completion channel; cadence is always on.")
    skill_review_completion_min_tool_calls: float = setting(alias="skillReviewCompletionMinToolCalls", default=20, minimum=1, finite=False, description="Cumulative tool calls before the completion review may run.")
    review_wake_inject: bool = setting(alias="reviewWakeInject", default=True, description="Deliver with followup (wakes the agent) instead of inject.")
    root: str = setting(alias="root", default="", description="Skill-tree root; empty: $DSH_HOME/skills.")
    skills_root: str = setting(alias="skillsRoot", default="", description="Deprecated alias of root.")
    execution_timeout_ms: float | None = setting(alias="executionTimeoutMs", default=None, removed="nothing read it; use reviewTimeoutMs", description="Removed; use reviewTimeoutMs.")
    # --- the policy (the reference's evolutionPolicy snapshot) ---
    memory_review_model: str | None = setting(alias="memoryReviewModel", default=None, non_empty=True, description="Model of memory reviews; omitted: the parent's model.")
    skill_review_model: str | None = setting(alias="skillReviewModel", default=None, non_empty=True, description="Model of skill and combined reviews; omitted: the parent's model.")
    substantive_min_tool_calls: float = setting(alias="substantiveMinToolCalls", default=3, minimum=1, finite=False, description="A turn with this many tool calls is substantive.")
    substantive_min_user_chars: float = setting(alias="substantiveMinUserChars", default=200, minimum=1, finite=False, description="... or this many real user characters.")
    substantive_min_agent_chars: float = setting(alias="substantiveMinAgentChars", default=500, minimum=1, finite=False, description="... or this many assistant characters.")
    max_ops_per_plan: float = setting(alias="maxOpsPerPlan", default=32, minimum=1, finite=False, description="Operations a plan may carry; more refuses the plan.")
    protected_skill_names: tuple[str, ...] = setting(alias="protectedSkillNames", default=(), description="Skills no review and no tool call may change.")
    memory_chars: float = setting(alias="memoryChars", default=2200, minimum=1, finite=False, description="Size cap of the memory notes.")
    user_chars: float = setting(alias="userChars", default=1375, minimum=1, finite=False, description="Size cap of the user notes.")
    skill_content_chars: float = setting(alias="skillContentChars", default=100_000, minimum=1, finite=False, description="Size cap of one SKILL.md.")


@attrs.frozen(kw_only=True)
class Effective:
    """The config after :func:`clamp`: whole numbers, no NaN or infinity."""

    config: ReviewConfig
    memory_interval: int
    skill_interval: int
    review_timeout_s: float
    review_context_messages: int
    review_message_chars: int
    review_max_depth: int
    completion_min_tool_calls: int
    min_tool_calls: int
    min_user_chars: int
    min_agent_chars: int
    max_ops_per_plan: int
    memory_chars: int
    user_chars: int
    skill_content_chars: int
    skills_root: str


#: an interval's default when neither its key nor its deprecated alias is set
DEFAULT_INTERVAL: Final = 10
#: (key, deprecated alias) of the two intervals
_INTERVALS: Final = (("review_memory_interval", "memory_interval"), ("review_skill_interval", "skill_interval"))
_NUMERIC: Final = (
    "review_timeout_ms", "review_context_messages", "review_message_chars",
    "review_max_depth", "skill_review_completion_min_tool_calls", "substantive_min_tool_calls",
    "substantive_min_user_chars", "substantive_min_agent_chars", "max_ops_per_plan", "memory_chars", "user_chars",
    "skill_content_chars",
)  # fmt: skip


def clamp(config: ReviewConfig, warn: Callable[[str], None]) -> Effective:
    """Replace non-finite numbers by their defaults (one warning naming them all)."""
    fields = {f.name: f for f in attrs.fields(ReviewConfig)}
    values: dict[str, float] = {}
    replaced: list[str] = []
    deprecated: list[str] = []
    for name in _NUMERIC:
        value = getattr(config, name)
        if not math.isfinite(value):
            replaced.append(f"{settings_key(fields[name])}={value}")
            value = fields[name].default
        values[name] = value
    for name, alias in _INTERVALS:
        chosen = name if getattr(config, name) is not None else alias
        value = getattr(config, chosen)
        if value is None:
            value = DEFAULT_INTERVAL
        elif not math.isfinite(value):
            replaced.append(f"{settings_key(fields[chosen])}={value}")
            value = DEFAULT_INTERVAL
        values[name] = value
        if chosen == alias and getattr(config, alias) is not None:
            deprecated.append(f"{settings_key(fields[alias])} is deprecated; use {settings_key(fields[name])}")
    if replaced:
        warn(f"evolution-review: {', '.join(replaced)} is not a finite number; using the default")
    for text in deprecated:
        warn(f"evolution-review: {text}")
    root = config.root or config.skills_root
    if config.skills_root and not config.root:
        warn("evolution-review: skillsRoot is deprecated; use root")

    def whole(name: str) -> int:
        return max(1, int(values[name]))

    return Effective(
        config=config,
        memory_interval=whole("review_memory_interval"),
        skill_interval=whole("review_skill_interval"),
        review_timeout_s=values["review_timeout_ms"] / 1000.0,
        review_context_messages=whole("review_context_messages"),
        review_message_chars=whole("review_message_chars"),
        review_max_depth=whole("review_max_depth"),
        completion_min_tool_calls=whole("skill_review_completion_min_tool_calls"),
        min_tool_calls=whole("substantive_min_tool_calls"),
        min_user_chars=whole("substantive_min_user_chars"),
        min_agent_chars=whole("substantive_min_agent_chars"),
        max_ops_per_plan=whole("max_ops_per_plan"),
        memory_chars=whole("memory_chars"),
        user_chars=whole("user_chars"),
        skill_content_chars=whole("skill_content_chars"),
        skills_root=root,
    )
