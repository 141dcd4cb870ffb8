"""The ``evolution-review`` row config: fields, defaults, bounds, and the runtime clamp.

Keys are the reference's camelCase names (attrs ``alias``). Out-of-range values
are refused when the profile loads, naming the field. YAML lets ``.nan`` and
``.inf`` through as numbers; bounds cannot judge them, so the validators pass
them and :func:`clamp` swaps each for its default with one warning (the
reference's ``clampReviewConfig``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final, Literal

import attrs
from attrs import validators as v

from hookspecs.values import settings_key

MAX_TIMEOUT_MS: Final = 4_294_967_295

_Validator = Callable[[Any, "attrs.Attribute[Any]", Any], Any]


def _invalid(text: str) -> TypeError:
    # the host's config formatter shows a TypeError starting with "expected "
    # verbatim (a ValueError would be reduced to "invalid value")
    return TypeError(f"expected {text}")


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _number(lo: float, hi: float | None = None, *, why_lo: str = "") -> _Validator:
    def check(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
        key = settings_key(attribute)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _invalid(f"{key} to be a number")
        if isinstance(value, float) and not math.isfinite(value):
            return  # clamp() replaces it with the default, with a warning
        if value < lo:
            raise _invalid(f"{key} to be >= {_fmt(lo)}{why_lo}, got {_fmt(value)}")
        if hi is not None and value > hi:
            raise _invalid(f"{key} to be <= {_fmt(hi)}, got {_fmt(value)}")

    return check


def _optional_number(lo: float) -> _Validator:
    check = _number(lo)

    def optional(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if value is not None:
            check(instance, attribute, value)

    return optional


def _boolean(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, bool):
        raise _invalid(f"{settings_key(attribute)} to be true or false")


def _strings(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, tuple) or not all(isinstance(item, str) for item in value):
        raise _invalid(f"{settings_key(attribute)} to be a list of strings")


def _optional_text(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise _invalid(f"{settings_key(attribute)} to be a non-empty string when set")


def _text(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, str):
        raise _invalid(f"{settings_key(attribute)} to be a string")


def _removed(replacement: str) -> _Validator:
    def check(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if value is not None:
            raise _invalid(f"no {settings_key(attribute)}: it was removed (nothing read it); use {replacement}")

    return check


def _as_tuple(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


def _about(text: str) -> dict[str, str]:
    return {"description": text}


_ZERO_TIMEOUT: Final = " (0 would abort every review at once)"
_ZERO_DEPTH: Final = " (0 would reject every review spawn)"


@attrs.frozen(kw_only=True)
class ReviewConfig:
    """The plugin's config (profile row ``evolution-review``); read at host start."""

    review_enabled: bool = attrs.field(alias="reviewEnabled", default=True, validator=_boolean, metadata=_about("Master switch."))
    review_mode: Literal["subagent", "inject"] = attrs.field(alias="reviewMode", default="subagent", validator=v.in_(("subagent", "inject")), metadata=_about("subagent: a one-shot child returns a plan; inject: the review prompt goes to the root."))
    review_memory_interval: float | None = attrs.field(alias="reviewMemoryInterval", default=None, validator=_optional_number(1), metadata=_about("Activity units between memory reviews (default 10)."))
    review_skill_interval: float | None = attrs.field(alias="reviewSkillInterval", default=None, validator=_optional_number(1), metadata=_about("Activity units between skill reviews (default 10)."))
    memory_interval: float | None = attrs.field(alias="memoryInterval", default=None, validator=_optional_number(1), metadata=_about("Deprecated alias of reviewMemoryInterval (read, never written)."))
    skill_interval: float | None = attrs.field(alias="skillInterval", default=None, validator=_optional_number(1), metadata=_about("Deprecated alias of reviewSkillInterval (read, never written)."))
    review_tool_allow: tuple[str, ...] = attrs.field(alias="reviewToolAllow", default=("skill",), converter=_as_tuple, validator=_strings, metadata=_about("Tools the review child may use."))
    review_timeout_ms: float = attrs.field(alias="reviewTimeoutMs", default=120_000, validator=_number(1, MAX_TIMEOUT_MS, why_lo=_ZERO_TIMEOUT), metadata=_about("Bound on each review run, in milliseconds."))
    review_context_messages: float = attrs.field(alias="reviewContextMessages", default=60, validator=_number(1), metadata=_about("Last N user/assistant messages given to the child."))
    review_message_chars: float = attrs.field(alias="reviewMessageChars", default=2000, validator=_number(1), metadata=_about("Per-message truncation in the review request."))
    review_max_depth: float = attrs.field(alias="reviewMaxDepth", default=1, validator=_number(1, why_lo=_ZERO_DEPTH), metadata=_about("Absolute delegation-depth cap of the review child."))
    review_provider: str | None = attrs.field(alias="reviewProvider", default=None, validator=_optional_text, metadata=_about("Provider of the review child; omitted: the deployment default route."))
    skill_review_trigger: Literal["cadence", "completion", "both"] = attrs.field(alias="skillReviewTrigger", default="cadence", validator=v.in_(("cadence", "completion", "both")), metadata=_about("Gates only the completion channel; cadence is always on."))
    skill_review_completion_min_tool_calls: float = attrs.field(alias="skillReviewCompletionMinToolCalls", default=20, validator=_number(1), metadata=_about("Cumulative tool calls before the completion review may run."))
    review_wake_inject: bool = attrs.field(alias="reviewWakeInject", default=True, validator=_boolean, metadata=_about("Deliver with followup (wakes the agent) instead of inject."))
    root: str = attrs.field(alias="root", default="", validator=_text, metadata=_about("Skill-tree root; empty: $DSH_HOME/skills."))
    skills_root: str = attrs.field(alias="skillsRoot", default="", validator=_text, metadata=_about("Deprecated alias of root."))
    execution_timeout_ms: float | None = attrs.field(alias="executionTimeoutMs", default=None, validator=_removed("reviewTimeoutMs"), metadata=_about("Removed; use reviewTimeoutMs."))
    # --- the policy (the reference's evolutionPolicy snapshot) ---
    memory_review_model: str | None = attrs.field(alias="memoryReviewModel", default=None, validator=_optional_text, metadata=_about("Model of memory reviews; omitted: the parent's model."))
    skill_review_model: str | None = attrs.field(alias="skillReviewModel", default=None, validator=_optional_text, metadata=_about("Model of skill and combined reviews; omitted: the parent's model."))
    substantive_min_tool_calls: float = attrs.field(alias="substantiveMinToolCalls", default=3, validator=_number(1), metadata=_about("A turn with this many tool calls is substantive."))
    substantive_min_user_chars: float = attrs.field(alias="substantiveMinUserChars", default=200, validator=_number(1), metadata=_about("... or this many real user characters."))
    substantive_min_agent_chars: float = attrs.field(alias="substantiveMinAgentChars", default=500, validator=_number(1), metadata=_about("... or this many assistant characters."))
    max_ops_per_plan: float = attrs.field(alias="maxOpsPerPlan", default=32, validator=_number(1), metadata=_about("Operations a plan may carry; more refuses the plan."))
    protected_skill_names: tuple[str, ...] = attrs.field(alias="protectedSkillNames", default=(), converter=_as_tuple, validator=_strings, metadata=_about("Skills no review and no tool call may change."))
    memory_chars: float = attrs.field(alias="memoryChars", default=2200, validator=_number(1), metadata=_about("Size cap of the memory notes."))
    user_chars: float = attrs.field(alias="userChars", default=1375, validator=_number(1), metadata=_about("Size cap of the user notes."))
    skill_content_chars: float = attrs.field(alias="skillContentChars", default=100_000, validator=_number(1), metadata=_about("Size cap of one SKILL.md."))


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
