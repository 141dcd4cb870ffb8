"""The ``shadow-mind-runtime`` settings namespace: fields, bounds, heal and check.

Attribute names keep the reference's camelCase keys because they are the
user-facing settings keys (``settings.yaml``, ``/shadow config``, the
``update_shadow_config`` tool). Per-field bounds are attrs validators and
reject a bad value outright. Cross-field rules have two faces:

* :func:`check` lists the problems of a value; the host rejects a *write*
  (``/shadow config``, tools, forms) that breaks them, with these messages.
* :func:`heal` repairs a value nobody validated on the way in (a hand-edited
  document, a profile row) the way the reference does ("heal, never throw"),
  with one plain-words note per repair.

``heal`` always produces a value ``check`` accepts.
"""

from __future__ import annotations

import math
from typing import Any, Final, Literal

import attrs
from attrs import validators as v

from hookspecs.values import SettingsSpec

from .routes import is_route, js_trim
from .vocabulary import SETTINGS_NAMESPACE

DEFAULT_REASONING_EFFORT_LADDER: Final = ("low", "medium", "high")


# --- per-field validators -----------------------------------------------------------------------


def _number(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    # bool is an int to Python but never a number setting
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{attribute.name} must be a number")


def _finite_number(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    _number(instance, attribute, value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{attribute.name} must be a finite number")


def _integer(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{attribute.name} must be an integer")


def _boolean(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{attribute.name} must be true or false")


def _string_tuple(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, tuple) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"{attribute.name} must be a list of strings")


def _optional_string(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{attribute.name} must be a string")


def _as_tuple(value: object) -> object:
    # lists from Python callers become tuples so the value stays immutable and hashable
    return tuple(value) if isinstance(value, list) else value


def _seconds(default: float, description: str) -> Any:
    return attrs.field(default=default, validator=[_finite_number, v.ge(0.001)], metadata={"description": description})


def _count(default: int, minimum: int, description: str) -> Any:
    return attrs.field(default=default, validator=[_integer, v.ge(minimum)], metadata={"description": description})


def _fraction(default: float, description: str) -> Any:
    return attrs.field(
        default=default, validator=[_finite_number, v.ge(0), v.le(1)], metadata={"description": description}
    )


def _optional_budget(description: str) -> Any:
    return attrs.field(default=None, validator=v.optional([_integer, v.ge(1)]), metadata={"description": description})


@attrs.frozen(kw_only=True)
class ShadowMindSettings:
    """Live settings of the Shadow Mind runtime (namespace ``shadow-mind-runtime``)."""

    defaultShadowTimeoutSeconds: float = _seconds(
        600.0, "Run deadline in seconds for a Shadow whose definition sets no timeout_seconds."
    )
    headlessDrainTimeoutSeconds: float = _seconds(
        120.0, "Headless runs only: how long an idle root waits for Shadow work to finish before it is cancelled."
    )
    resultBatchWindowMs: float = attrs.field(
        default=400.0,
        validator=[_finite_number, v.ge(0)],
        metadata={"description": "Milliseconds the first accepted report waits so later ones are relayed with it."},
    )
    argumentDisclosure: Literal["redacted", "full"] = attrs.field(
        default="redacted",
        validator=v.in_(("redacted", "full")),
        metadata={"description": "Whether tool-call arguments appear in the trajectory a Shadow reviews."},
    )
    randomSeed: float | None = attrs.field(
        default=None,
        validator=v.optional(_number),
        metadata={"description": "Seed for reproducible activation rolls; unset uses the system random generator."},
    )
    maxPromptChars: int = _count(
        0, 0, "Upper bound on a Shadow prompt in characters; older trajectory is trimmed to fit. 0: no bound besides the model's context window."
    )
    maxReportChars: int = _count(
        0, 0, "Reports longer than this are cut and end with an ellipsis. 0: no limit."
    )
    valueLoopEnabled: bool = attrs.field(
        default=True,
        validator=_boolean,
        metadata={"description": "Track whether the root agent adopts, rejects or ignores Shadow challenges."},
    )
    valueLoopWindowTurns: int = _count(
        2, 1, "Completed root turns after a relay before an unanswered challenge counts as ignored."
    )
    reviewWindowSize: int = _count(
        8, 2, "Accepted reports kept per Shadow for stagnation checks; at least the largest stagnation window."
    )
    spinningRepeatCount: int = _count(3, 2, "Identical reports in a row that count as spinning.")
    oscillationPeriods: int = _count(2, 2, "Alternations between two verdicts on the same refs that count as oscillation.")
    noDriftRepeatCount: int = _count(3, 2, "Confirmations of the same refs in a row that count as no drift.")
    diminishingWindowSize: int = _count(5, 2, "Recent reports examined for diminishing novelty.")
    diminishingNoveltyThreshold: float = _fraction(
        0.4, "Share of distinct reports in the diminishing window below which novelty counts as diminishing."
    )
    stagnationCooldownSeconds: float = attrs.field(
        default=300.0,
        validator=[_finite_number, v.ge(0)],
        metadata={"description": "Seconds a Shadow pauses after stagnation (or a degenerate-output kill) is detected."},
    )
    stagnationEscalationEnabled: bool = attrs.field(
        default=False,
        validator=_boolean,
        metadata={"description": "On oscillation, try the next reasoning effort of the ladder instead of a cooldown."},
    )
    reasoningEffortLadder: tuple[str, ...] = attrs.field(
        default=DEFAULT_REASONING_EFFORT_LADDER,
        converter=_as_tuple,
        validator=_string_tuple,
        metadata={"description": "Reasoning efforts in escalation order, lowest first."},
    )
    sessionShadowSoftBudgetChars: int | None = _optional_budget(
        "Shadow spend (prompt + report characters since the last user message) from which frugalShadowModel is used."
    )
    sessionShadowHardBudgetChars: int | None = _optional_budget(
        "Shadow spend from which no new automatic Shadow run starts until the next user message."
    )
    frugalShadowModel: str | None = attrs.field(
        default=None,
        validator=_optional_string,
        metadata={"description": "provider/model route used once the soft budget is reached."},
    )
    staleReportDecay: float = _fraction(
        0.0, "When a report repeats one already in the review window, its Shadow's probability is multiplied by 1 - decay."
    )
    collapsedByDefault: bool = attrs.field(
        default=True,
        validator=_boolean,
        metadata={"description": "Clients show new Shadow report cards collapsed."},
    )


# --- cross-field rules --------------------------------------------------------------------------

_WINDOW_FIELDS: Final = ("spinningRepeatCount", "oscillationPeriods", "noDriftRepeatCount", "diminishingWindowSize")


def _windows(settings: ShadowMindSettings) -> dict[str, int]:
    """Entries each stagnation detector needs in the review window."""
    return {
        "spinningRepeatCount": settings.spinningRepeatCount,
        "oscillationPeriods": settings.oscillationPeriods * 2,  # two verdicts per period
        "noDriftRepeatCount": settings.noDriftRepeatCount,
        "diminishingWindowSize": settings.diminishingWindowSize,
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
    if settings.frugalShadowModel is None:
        return None
    trimmed = js_trim(settings.frugalShadowModel)
    return trimmed if is_route(trimmed) else None


def check(settings: ShadowMindSettings) -> list[str]:
    """Cross-field problems, each saying what to change. Empty when consistent.

    Surrounding whitespace (ladder entries, frugal route) is not a problem:
    :func:`heal` trims it.
    """
    problems: list[str] = []
    largest, why = _largest_window(settings)
    if settings.reviewWindowSize < largest:
        problems.append(
            f"reviewWindowSize ({settings.reviewWindowSize}) must cover every stagnation window, "
            f"but the largest needs {largest} ({why}): raise reviewWindowSize to at least {largest} "
            "or lower that window"
        )
    kept, duplicates, blanks = _clean_ladder(settings.reasoningEffortLadder)
    if not settings.reasoningEffortLadder:
        problems.append("reasoningEffortLadder is empty: list at least one reasoning effort, e.g. low, medium, high")
    elif not kept:
        problems.append("reasoningEffortLadder has only blank entries: list at least one reasoning effort, e.g. low, medium, high")
    elif blanks:
        problems.append("reasoningEffortLadder has blank entries: remove them")
    if duplicates:
        listed = ", ".join(repr(entry) for entry in duplicates)
        problems.append(f"reasoningEffortLadder lists {listed} more than once: keep each reasoning effort once")
    soft, hard = settings.sessionShadowSoftBudgetChars, settings.sessionShadowHardBudgetChars
    frugal_set = settings.frugalShadowModel is not None
    frugal = _frugal_route(settings)
    if frugal_set and frugal is None:
        problems.append(
            f"frugalShadowModel {settings.frugalShadowModel!r} must use provider/model "
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
    changes: dict[str, Any] = {}

    largest, why = _largest_window(settings)
    if settings.reviewWindowSize < largest:
        changes["reviewWindowSize"] = largest
        notes.append(
            f"reviewWindowSize raised from {settings.reviewWindowSize} to {largest} so the review window "
            f"covers the largest stagnation window ({why})"
        )

    ladder = settings.reasoningEffortLadder
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
    if settings.frugalShadowModel is not None and frugal is None:
        notes.append(f"frugalShadowModel {settings.frugalShadowModel!r} dropped: it is not a provider/model route")
    soft, hard = settings.sessionShadowSoftBudgetChars, settings.sessionShadowHardBudgetChars

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
    if frugal is not None and frugal != settings.frugalShadowModel:
        notes.append(f"frugalShadowModel trimmed to {frugal!r} (surrounding whitespace removed)")

    for name, value in (
        ("sessionShadowSoftBudgetChars", soft),
        ("sessionShadowHardBudgetChars", hard),
        ("frugalShadowModel", frugal),
    ):
        if value != getattr(settings, name):
            changes[name] = value
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
