"""The live knobs: settings a person may change while the host runs.

The reference's parameter registry tiers the plugin's knobs. The *live* ones
(:data:`LIVE_KEYS`) are a settings namespace of their own,
``evolution-review-live``, holding overrides of the profile row: a field that
is unset (``null``) keeps the row's value, so the row stays the deployment's
start value and ``settings.yaml`` holds only what a person changed. The
controller reads :meth:`LiveSettings.knobs` at every turn end, so a change
takes effect at the next turn boundary.

The *deployment-owned* ones (:data:`DEPLOYMENT_KEYS`) are read once at start
from the row and are refused live, with a message saying so. The deprecated
interval aliases are still read from the row but never written.

(A namespace of its own, not the row id: the row config also holds the
deployment-owned knobs and YAML's ``.nan``, which the settings document cannot
hold.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

import attrs

from hookspecs.errors import SettingsError
from hookspecs.values import Settings, SettingsOp, SettingsSpec, override_of, setting_fields, settings_key

from .config import ReviewConfig

if TYPE_CHECKING:
    from hookspecs.protocols import SettingsService

    from .config import Effective

LIVE_NAMESPACE: Final = "evolution-review-live"

#: deployment-owned: read at start from the profile row, never changed live
DEPLOYMENT_KEYS: Final = (
    "reviewProvider", "reviewTimeoutMs", "reviewContextMessages", "reviewMessageChars", "reviewMaxDepth",
    "reviewToolAllow",
)  # fmt: skip
#: deprecated aliases: read from the row, refused as writes
DEPRECATED_KEYS: Final = {"memoryInterval": "reviewMemoryInterval", "skillInterval": "reviewSkillInterval"}


#: the row's descriptions: a live knob has the row field's key, description and bounds
_ROW: Final = setting_fields(ReviewConfig)


class LiveReviewSettings(Settings):
    """Overrides of the row's live knobs; ``None`` keeps the row's value."""

    review_enabled: bool | None = override_of(_ROW["review_enabled"])
    review_mode: Literal["subagent", "inject"] | None = override_of(_ROW["review_mode"])
    review_memory_interval: int | None = override_of(_ROW["review_memory_interval"])
    review_skill_interval: int | None = override_of(_ROW["review_skill_interval"])
    skill_review_trigger: Literal["cadence", "completion", "both"] | None = override_of(_ROW["skill_review_trigger"])
    skill_review_completion_min_tool_calls: int | None = override_of(_ROW["skill_review_completion_min_tool_calls"])
    review_wake_inject: bool | None = override_of(_ROW["review_wake_inject"])


#: the live knobs, by key, in the reference's order
LIVE_KEYS: Final = tuple(settings_key(field) for field in attrs.fields(LiveReviewSettings))

LIVE_SPEC: Final = SettingsSpec(
    namespace=LIVE_NAMESPACE,
    schema=LiveReviewSettings,
    title="Self-improvement review",
    description="Live overrides of the evolution-review row; an unset field keeps the row's value.",
    applies="live",
)


@attrs.frozen(kw_only=True)
class Knobs:
    """The live knobs in force for one turn boundary, by the attribute names of
    :class:`LiveReviewSettings` (an override replaces the attribute of its name)."""

    review_enabled: bool
    review_mode: Literal["subagent", "inject"]
    review_memory_interval: int
    review_skill_interval: int
    skill_review_trigger: Literal["cadence", "completion", "both"]
    skill_review_completion_min_tool_calls: int
    review_wake_inject: bool

    def by_key(self) -> dict[str, Any]:
        """``{live key: value}``, the keys people and documents use."""
        return {settings_key(f): getattr(self, f.name) for f in attrs.fields(LiveReviewSettings)}


def row_knobs(settings: Effective) -> Knobs:
    """The knobs as the profile row (clamped) sets them."""
    config = settings.config
    return Knobs(
        review_enabled=config.review_enabled,
        review_mode=config.review_mode,
        review_memory_interval=settings.memory_interval,
        review_skill_interval=settings.skill_interval,
        skill_review_trigger=config.skill_review_trigger,
        skill_review_completion_min_tool_calls=settings.completion_min_tool_calls,
        review_wake_inject=config.review_wake_inject,
    )


def merged(row: Knobs, live: LiveReviewSettings) -> Knobs:
    """``row`` with every set override of ``live`` applied."""
    changes = {
        field.name: getattr(live, field.name)
        for field in attrs.fields(LiveReviewSettings)
        if getattr(live, field.name) is not None
    }
    return attrs.evolve(row, **changes)


class LiveSettings:
    """The knobs in force (row < live overrides) and the one way to change them."""

    def __init__(self, settings: Effective, service: SettingsService | None) -> None:
        self.row = row_knobs(settings)
        self.deployment = {key: _row_value(settings, key) for key in DEPLOYMENT_KEYS}
        self.service = service

    def overrides(self) -> LiveReviewSettings:
        if self.service is None:
            return LiveReviewSettings()
        try:
            value = self.service.get(LIVE_NAMESPACE)
        except SettingsError:
            return LiveReviewSettings()  # a host without the namespace: the row alone
        return value if isinstance(value, LiveReviewSettings) else LiveReviewSettings()

    def knobs(self) -> Knobs:
        return merged(self.row, self.overrides())

    def sources(self) -> dict[str, str]:
        """``{live key: "profile" | "settings"}``: where each value in force comes from."""
        live = self.overrides()
        return {
            settings_key(field): "settings" if getattr(live, field.name) is not None else "profile"
            for field in attrs.fields(LiveReviewSettings)
        }

    def problems(self) -> tuple[str, ...]:
        """What the settings document holds for the namespace that is ignored
        (a hand-edited unknown or invalid field), as the host reports it."""
        if self.service is None:
            return ()
        for descriptor in self.service.describe():
            if descriptor.namespace == LIVE_NAMESPACE:
                return descriptor.problems
        return ()

    def refusal(self, key: str) -> str | None:
        """Why ``key`` cannot be changed live, or None when it can."""
        if key in LIVE_KEYS:
            return None
        if key in DEPLOYMENT_KEYS:
            return (
                f"{key} is deployment-owned: it is read once at start from the evolution-review profile row; "
                "change it there and restart"
            )
        if key in DEPRECATED_KEYS:
            return f"{key} is deprecated and read-only; set {DEPRECATED_KEYS[key]} instead"
        return f"unknown setting {key!r}; the live settings are {', '.join(LIVE_KEYS)}"

    async def change(self, values: Mapping[str, Any]) -> Knobs:
        """Set (or, with None, unset) live knobs; refuses the whole change, naming
        the field, when one key is not live or one value is invalid (nothing is
        written then and the old values stay)."""
        for key in values:
            why = self.refusal(key)
            if why is not None:
                raise SettingsError(why)
        if self.service is None:
            raise SettingsError("this host has no settings service; the live settings cannot change")
        ops = [SettingsOp.unset(key) if value is None else SettingsOp.set(key, value) for key, value in values.items()]
        await self.service.mutate(LIVE_NAMESPACE, ops)
        return self.knobs()


def _row_value(settings: Effective, key: str) -> Any:
    config = settings.config
    for field in attrs.fields(type(config)):
        if settings_key(field) == key:
            value = getattr(config, field.name)
            if isinstance(value, float) and value.is_integer():
                return int(value)  # YAML's 5000 may arrive as 5000.0
            return list(value) if isinstance(value, tuple) else value
    raise KeyError(key)
