"""The ``shadow-mind-runtime`` settings namespace: fields, bounds, heal and check.

Attributes are snake_case; each field's attrs ``alias`` is the reference's
camelCase key (``max_report_chars`` is ``maxReportChars``), and that key is
what people and models see: ``settings.yaml``, profile rows, ``/shadow config``,
the ``update_shadow_config`` and ``get_shadow_config`` tools, and every message
that names a field. The alias is also the keyword ``ShadowMindSettings(...)``
and ``attrs.evolve`` take; :func:`hookspecs.values.settings_key` maps a field to
its key. Per-field bounds are attrs validators and reject a bad value outright.
Cross-field rules have two faces:

* :func:`check` lists the problems of a value; the host rejects a *write*
  (``/shadow config``, tools, forms) that breaks them, with these messages.
* :func:`heal` repairs a value nobody validated on the way in (a hand-edited
  document, a profile row) the way the reference does ("heal, never throw"),
  with one plain-words note per repair.

``heal`` always produces a value ``check`` accepts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final, Literal

import attrs
from attrs import validators as v

from hookspecs.values import SettingsSpec, settings_key

from .routes import is_route, js_trim
from .vocabulary import SETTINGS_NAMESPACE

DEFAULT_REASONING_EFFORT_LADDER: Final = ("low", "medium", "high")


# --- per-field validators -----------------------------------------------------------------------
#
# Messages name the field by its key. attrs hands a validator the field's
# Attribute, whose ``name`` is the Python attribute; whoever validates a value
# from people or models (the host, for every layer; ``preview_settings`` in
# management.py) renames it to the key first, so the stock ``v.ge`` and friends
# say ``'maxReportChars' must be >= 0``. The ones here name the key either way.

_Validator = Callable[[Any, "attrs.Attribute[Any]", Any], Any]


def _number(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    # bool is an int to Python but never a number setting
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{settings_key(attribute)} must be a number")


def _finite_number(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    _number(instance, attribute, value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{settings_key(attribute)} must be a finite number")


def _integer(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{settings_key(attribute)} must be an integer")


def _boolean(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{settings_key(attribute)} must be true or false")


def _string_tuple(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, tuple) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"{settings_key(attribute)} must be a list of strings")


def _optional_string(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{settings_key(attribute)} must be a string")


def _as_tuple(value: object) -> object:
    # lists from Python callers become tuples so the value stays immutable and hashable
    return tuple(value) if isinstance(value, list) else value


# Bounds stay stock attrs validators: the host reads them into the JSON Schema
# forms see (minimum, maximum). Each field spells ``attrs.field(alias=...)``
# out so type checkers know the keyword ``ShadowMindSettings(...)`` takes.


def _seconds() -> list[_Validator]:
    return [_finite_number, v.ge(0.001)]


def _non_negative() -> list[_Validator]:
    return [_finite_number, v.ge(0)]


def _count(minimum: int) -> list[_Validator]:
    return [_integer, v.ge(minimum)]


def _fraction() -> list[_Validator]:
    return [_finite_number, v.ge(0), v.le(1)]


def _optional_budget() -> _Validator:
    return v.optional([_integer, v.ge(1)])


def _about(description: str) -> dict[str, str]:
    return {"description": description}


@attrs.frozen(kw_only=True)
class ShadowMindSettings:
    """Live settings of the Shadow Mind runtime (namespace ``shadow-mind-runtime``).

    One field a line: the attribute, its key (``alias``; module docstring), default,
    bounds and the description forms show."""

    default_shadow_timeout_seconds: float = attrs.field(alias="defaultShadowTimeoutSeconds", default=600.0, validator=_seconds(), metadata=_about("Run deadline in seconds for a Shadow whose definition sets no timeout_seconds."))
    headless_drain_timeout_seconds: float = attrs.field(alias="headlessDrainTimeoutSeconds", default=120.0, validator=_seconds(), metadata=_about("Headless runs only: how long an idle root waits for Shadow work to finish before it is cancelled."))
    result_batch_window_ms: float = attrs.field(alias="resultBatchWindowMs", default=400.0, validator=_non_negative(), metadata=_about("Milliseconds the first accepted report waits so later ones are relayed with it."))
    argument_disclosure: Literal["redacted", "full"] = attrs.field(alias="argumentDisclosure", default="redacted", validator=v.in_(("redacted", "full")), metadata=_about("Whether tool-call arguments appear in the trajectory a Shadow reviews."))
    random_seed: float | None = attrs.field(alias="randomSeed", default=None, validator=v.optional(_number), metadata=_about("Seed for reproducible activation rolls; unset uses the system random generator."))
    max_prompt_chars: int = attrs.field(alias="maxPromptChars", default=0, validator=_count(0), metadata=_about("Upper bound on a Shadow prompt in characters; the oldest trajectory entries are left out to fit. 0: no bound besides the reviewer model's context window."))
    max_report_chars: int = attrs.field(alias="maxReportChars", default=0, validator=_count(0), metadata=_about("Reports longer than this are cut and end with an ellipsis. 0: no limit."))
    value_loop_enabled: bool = attrs.field(alias="valueLoopEnabled", default=True, validator=_boolean, metadata=_about("Track whether the root agent adopts, rejects or ignores Shadow challenges."))
    value_loop_window_turns: int = attrs.field(alias="valueLoopWindowTurns", default=2, validator=_count(1), metadata=_about("Completed root turns after a relay before an unanswered challenge counts as ignored."))
    review_window_size: int = attrs.field(alias="reviewWindowSize", default=8, validator=_count(2), metadata=_about("Accepted reports kept per Shadow for stagnation checks; at least the largest stagnation window."))
    spinning_repeat_count: int = attrs.field(alias="spinningRepeatCount", default=3, validator=_count(2), metadata=_about("Identical reports in a row that count as spinning."))
    oscillation_periods: int = attrs.field(alias="oscillationPeriods", default=2, validator=_count(2), metadata=_about("Alternations between two verdicts on the same refs that count as oscillation."))
    no_drift_repeat_count: int = attrs.field(alias="noDriftRepeatCount", default=3, validator=_count(2), metadata=_about("Confirmations of the same refs in a row that count as no drift."))
    diminishing_window_size: int = attrs.field(alias="diminishingWindowSize", default=5, validator=_count(2), metadata=_about("Recent reports examined for diminishing novelty."))
    diminishing_novelty_threshold: float = attrs.field(alias="diminishingNoveltyThreshold", default=0.4, validator=_fraction(), metadata=_about("Share of distinct reports in the diminishing window below which novelty counts as diminishing."))
    stagnation_cooldown_seconds: float = attrs.field(alias="stagnationCooldownSeconds", default=300.0, validator=_non_negative(), metadata=_about("Seconds a Shadow pauses after stagnation (or a degenerate-output kill) is detected."))
    stagnation_escalation_enabled: bool = attrs.field(alias="stagnationEscalationEnabled", default=False, validator=_boolean, metadata=_about("On oscillation, try the next reasoning effort of the ladder instead of a cooldown."))
    reasoning_effort_ladder: tuple[str, ...] = attrs.field(alias="reasoningEffortLadder", default=DEFAULT_REASONING_EFFORT_LADDER, converter=_as_tuple, validator=_string_tuple, metadata=_about("Reasoning efforts in escalation order, lowest first."))
    session_shadow_soft_budget_chars: int | None = attrs.field(alias="sessionShadowSoftBudgetChars", default=None, validator=_optional_budget(), metadata=_about("Shadow spend (prompt + report characters since the last user message) from which frugalShadowModel is used."))
    session_shadow_hard_budget_chars: int | None = attrs.field(alias="sessionShadowHardBudgetChars", default=None, validator=_optional_budget(), metadata=_about("Shadow spend from which no new automatic Shadow run starts until the next user message."))
    frugal_shadow_model: str | None = attrs.field(alias="frugalShadowModel", default=None, validator=_optional_string, metadata=_about("provider/model route used once the soft budget is reached."))
    stale_report_decay: float = attrs.field(alias="staleReportDecay", default=0.0, validator=_fraction(), metadata=_about("When a report repeats one already in the review window, its Shadow's probability is multiplied by 1 - decay."))
    collapsed_by_default: bool = attrs.field(alias="collapsedByDefault", default=True, validator=_boolean, metadata=_about("Clients show new Shadow report cards collapsed."))
    max_relay_cycles_per_user_message: int = attrs.field(alias="maxRelayCyclesPerUserMessage", default=3, validator=_count(0), metadata=_about("Relays that may reach the root between two real user messages; from then on automatic reviews are skipped (RELAY_BOUND_REACHED) until the next user message. 0: no bound."))
    management_tools: bool = attrs.field(alias="managementTools", default=False, validator=_boolean, metadata=_about("Offer the model-facing management tools (list_shadows, update_default_shadow, get_shadow_config, update_shadow_config) to root agents. Off: every root request stays without them; people use /shadow."))


# --- cross-field rules --------------------------------------------------------------------------

_WINDOW_FIELDS: Final = ("spinningRepeatCount", "oscillationPeriods", "noDriftRepeatCount", "diminishingWindowSize")


def _windows(settings: ShadowMindSettings) -> dict[str, int]:
    """Entries each stagnation detector needs in the review window, by key (messages name them)."""
    return {
        "spinningRepeatCount": settings.spinning_repeat_count,
        "oscillationPeriods": settings.oscillation_periods * 2,  # two verdicts per period
        "noDriftRepeatCount": settings.no_drift_repeat_count,
        "diminishingWindowSize": settings.diminishing_window_size,
    }


def _largest_window(settings: ShadowMindSettings) -> tuple[int, str]:
    windows = _windows(settings)
    largest = max(windows.values())
    names = [name for name in _WINDOW_FIELDS if windows[name] == largest]
    why = " and ".join(
        f"2 × oscillationPeriods = {largest}" if name == "oscillationPeriods" else f"{name} = {largest}"
        for name in names
    )
    return largest, why


def _clean_ladder(ladder: tuple[str, ...]) -> tuple[tuple[str, ...], list[str], list[str]]:
    """(trimmed unique non-blank entries, duplicates, one marker per blank entry)."""
    kept: list[str] = []
    duplicates: list[str] = []
    blanks: list[str] = []
    for raw in ladder:
        entry = js_trim(raw)
        if not entry:
            blanks.append(raw)
        elif entry in kept:
            if entry not in duplicates:
                duplicates.append(entry)
        else:
            kept.append(entry)
    return tuple(kept), duplicates, blanks


def _frugal_route(settings: ShadowMindSettings) -> str | None:
    """The trimmed frugal route when it is a valid route."""
    if settings.frugal_shadow_model is None:
        return None
    trimmed = js_trim(settings.frugal_shadow_model)
    return trimmed if is_route(trimmed) else None


def check(settings: ShadowMindSettings) -> list[str]:
    """Cross-field problems, each saying what to change. Empty when consistent.

    Surrounding whitespace (ladder entries, frugal route) is not a problem:
    :func:`heal` trims it.
    """
    problems: list[str] = []
    largest, why = _largest_window(settings)
    if settings.review_window_size < largest:
        problems.append(
            f"reviewWindowSize ({settings.review_window_size}) must cover every stagnation window, "
            f"but the largest needs {largest} ({why}): raise reviewWindowSize to at least {largest} "
            "or lower that window"
        )
    kept, duplicates, blanks = _clean_ladder(settings.reasoning_effort_ladder)
    if not settings.reasoning_effort_ladder:
        problems.append("reasoningEffortLadder is empty: list at least one reasoning effort, e.g. low, medium, high")
    elif not kept:
        problems.append("reasoningEffortLadder has only blank entries: list at least one reasoning effort, e.g. low, medium, high")
    elif blanks:
        problems.append("reasoningEffortLadder has blank entries: remove them")
    if duplicates:
        listed = ", ".join(repr(entry) for entry in duplicates)
        problems.append(f"reasoningEffortLadder lists {listed} more than once: keep each reasoning effort once")
    soft, hard = settings.session_shadow_soft_budget_chars, settings.session_shadow_hard_budget_chars
    frugal_set = settings.frugal_shadow_model is not None
    frugal = _frugal_route(settings)
    if frugal_set and frugal is None:
        problems.append(
            f"frugalShadowModel {settings.frugal_shadow_model!r} must use provider/model "
            "(for example deepseek/deepseek-chat): fix the route or unset it"
        )
    if soft is not None and hard is None:
        problems.append(
            "sessionShadowSoftBudgetChars needs sessionShadowHardBudgetChars: set a hard budget above the soft one, "
            "or unset the soft budget"
        )
    if soft is not None and not frugal_set:
        problems.append(
            "sessionShadowSoftBudgetChars needs frugalShadowModel: set the provider/model route to use once the "
            "soft budget is reached, or unset the soft budget"
        )
    if frugal_set and soft is None:
        problems.append(
            "frugalShadowModel needs sessionShadowSoftBudgetChars: set the soft budget from which it is used, "
            "or unset frugalShadowModel"
        )
    if soft is not None and hard is not None and soft >= hard:
        problems.append(
            f"sessionShadowSoftBudgetChars ({soft}) must be less than sessionShadowHardBudgetChars ({hard}): "
            "lower the soft budget or raise the hard one"
        )
    return problems


def heal(settings: ShadowMindSettings) -> tuple[ShadowMindSettings, list[str]]:
    """Repair cross-field inconsistencies the way the reference does; never raises.

    Order matters and follows the reference: review window, ladder, frugal
    route syntax, then the budget-tier combinations.
    """
    notes: list[str] = []
    changes: dict[str, Any] = {}  # by key: attrs.evolve takes the aliases

    largest, why = _largest_window(settings)
    if settings.review_window_size < largest:
        changes["reviewWindowSize"] = largest
        notes.append(
            f"reviewWindowSize raised from {settings.review_window_size} to {largest} so the review window "
            f"covers the largest stagnation window ({why})"
        )

    ladder = settings.reasoning_effort_ladder
    kept, duplicates, blanks = _clean_ladder(ladder)
    if not kept:
        changes["reasoningEffortLadder"] = DEFAULT_REASONING_EFFORT_LADDER
        notes.append(
            "reasoningEffortLadder had no usable entries, so the default low, medium, high is used"
        )
    elif kept != ladder:
        changes["reasoningEffortLadder"] = kept
        fixes = []
        if any(js_trim(raw) != raw and js_trim(raw) for raw in ladder):
            fixes.append("surrounding whitespace trimmed")
        if blanks:
            fixes.append("blank entries removed")
        if duplicates:
            fixes.append("repeated " + ", ".join(repr(entry) for entry in duplicates) + " removed")
        notes.append(f"reasoningEffortLadder cleaned up ({'; '.join(fixes)}): now {', '.join(kept)}")

    frugal = _frugal_route(settings)
    if settings.frugal_shadow_model is not None and frugal is None:
        notes.append(f"frugalShadowModel {settings.frugal_shadow_model!r} dropped: it is not a provider/model route")
    soft, hard = settings.session_shadow_soft_budget_chars, settings.session_shadow_hard_budget_chars

    if soft is not None and (hard is None or frugal is None):
        missing = " and ".join(
            name
            for name, value in (("sessionShadowHardBudgetChars", hard), ("a valid frugalShadowModel", frugal))
            if value is None
        )
        notes.append(
            f"sessionShadowSoftBudgetChars ({soft}) dropped: the soft budget needs {missing}"
        )
        soft = None
    if frugal is not None and soft is None:
        notes.append(
            f"frugalShadowModel ({frugal}) dropped: it is only used from sessionShadowSoftBudgetChars on, which is not set"
        )
        frugal = None
    if soft is not None and hard is not None and soft >= hard:
        notes.append(
            f"sessionShadowSoftBudgetChars ({soft}), sessionShadowHardBudgetChars ({hard}) and frugalShadowModel "
            "dropped: the soft budget must be less than the hard budget"
        )
        soft = hard = frugal = None
    if frugal is not None and frugal != settings.frugal_shadow_model:
        notes.append(f"frugalShadowModel trimmed to {frugal!r} (surrounding whitespace removed)")

    for key, value, current in (
        ("sessionShadowSoftBudgetChars", soft, settings.session_shadow_soft_budget_chars),
        ("sessionShadowHardBudgetChars", hard, settings.session_shadow_hard_budget_chars),
        ("frugalShadowModel", frugal, settings.frugal_shadow_model),
    ):
        if value != current:
            changes[key] = value
    if not changes:
        return settings, notes
    return attrs.evolve(settings, **changes), notes


SETTINGS_SPEC: Final = SettingsSpec(
    namespace=SETTINGS_NAMESPACE,
    schema=ShadowMindSettings,
    title="Shadow Mind",
    description=(
        "Background reviewers (Shadows) of the root agent: timeouts, prompt and report bounds, "
        "stagnation detection and the per-session budget tiers."
    ),
    check=check,
    heal=heal,
    applies="live",
)
