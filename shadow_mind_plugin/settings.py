"""The ``shadow-mind-runtime`` settings namespace: fields, bounds, heal and check.

Attributes are snake_case; each field's attrs ``alias`` is the reference's
camelCase key (``max_report_chars`` is ``maxReportChars``), and that key is
what people and models see: ``settings.yaml``, profile rows, ``/shadow config``,
the ``update_shadow_config`` and ``get_shadow_config`` tools, and every message
that names a field. The alias is also the keyword ``ShadowMindSettings(...)``
and ``evolve_settings`` take; :func:`hookspecs.values.settings_key` maps a field to
its key. Each field is one :func:`hookspecs.values.setting` declaration (key,
default, bounds, description), from which the host derives its check, its
message and the JSON Schema forms read; a value out of bounds is refused outright.
Cross-field rules have two faces:

* :func:`check` lists the problems of a value; the host rejects a *write*
  (``/shadow config``, tools, forms) that breaks them, with these messages.
* :func:`heal` repairs a value nobody validated on the way in (a hand-edited
  document, a profile row) the way the reference does ("heal, never throw"),
  with one plain-words note per repair.

``heal`` always produces a value ``check`` accepts.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from hookspecs.values import Settings, SettingsSpec, evolve_settings, setting

from .routes import is_route, js_trim
from .vocabulary import SETTINGS_NAMESPACE

DEFAULT_REASONING_EFFORT_LADDER: Final = ("low", "medium", "high")


class ShadowMindSettings(Settings):
    """Live settings of the Shadow Mind runtime (namespace ``shadow-mind-runtime``).

    One field a line: the attribute, its key (``alias``; module docstring), default,
    bounds and the description forms show (:func:`hookspecs.values.setting`)."""

    default_shadow_timeout_seconds: float = setting(alias="defaultShadowTimeoutSeconds", default=600.0, minimum=0.001, description="Run deadline in seconds for a Shadow whose definition sets no timeout_seconds.")
    headless_drain_timeout_seconds: float = setting(alias="headlessDrainTimeoutSeconds", default=120.0, minimum=0.001, description="Headless runs only: how long an idle root waits for Shadow work to finish before it is cancelled.")
    result_batch_window_ms: float = setting(alias="resultBatchWindowMs", default=400.0, minimum=0, description="Milliseconds the first accepted report waits so later ones are relayed with it.")
    argument_disclosure: Literal["redacted", "full"] = setting(alias="argumentDisclosure", default="redacted", description="Whether tool-call arguments appear in the trajectory a Shadow reviews.")
    random_seed: float | None = setting(alias="randomSeed", default=None, finite=False, unbounded="any number seeds the generator", description="Seed for reproducible activation rolls; unset uses the system random generator.")
    max_prompt_chars: int = setting(alias="maxPromptChars", default=0, minimum=0, description="Upper bound on a Shadow prompt in characters; the oldest trajectory entries are left out to fit. 0: no bound besides the reviewer model's context window.")
    max_report_chars: int = setting(alias="maxReportChars", default=0, minimum=0, description="Reports longer than this are cut and end with an ellipsis. 0: no limit.")
    value_loop_enabled: bool = setting(alias="valueLoopEnabled", default=True, description="Track whether the root agent adopts, rejects or ignores Shadow challenges.")
    value_loop_window_turns: int = setting(alias="valueLoopWindowTurns", default=2, minimum=1, description="Completed root turns after a relay before an unanswered challenge counts as ignored.")
    review_window_size: int = setting(alias="reviewWindowSize", default=8, minimum=2, description="Accepted reports kept per Shadow for stagnation checks; at least the largest stagnation window.")
    spinning_repeat_count: int = setting(alias="spinningRepeatCount", default=3, minimum=2, description="Identical reports in a row that count as spinning.")
    oscillation_periods: int = setting(alias="oscillationPeriods", default=2, minimum=2, description="Alternations between two verdicts on the same refs that count as oscillation.")
    no_drift_repeat_count: int = setting(alias="noDriftRepeatCount", default=3, minimum=2, description="Confirmations of the same refs in a row that count as no drift.")
    diminishing_window_size: int = setting(alias="diminishingWindowSize", default=5, minimum=2, description="Recent reports examined for diminishing novelty.")
    diminishing_novelty_threshold: float = setting(alias="diminishingNoveltyThreshold", default=0.4, minimum=0, maximum=1, description="Share of distinct reports in the diminishing window below which novelty counts as diminishing.")
    stagnation_cooldown_seconds: float = setting(alias="stagnationCooldownSeconds", default=300.0, minimum=0, description="Seconds a Shadow pauses after stagnation (or a degenerate-output kill) is detected.")
    stagnation_escalation_enabled: bool = setting(alias="stagnationEscalationEnabled", default=False, description="On oscillation, try the next reasoning effort of the ladder instead of a cooldown.")
    reasoning_effort_ladder: tuple[str, ...] = setting(alias="reasoningEffortLadder", default=DEFAULT_REASONING_EFFORT_LADDER, description="Reasoning efforts in escalation order, lowest first.")
    session_shadow_soft_budget_chars: int | None = setting(alias="sessionShadowSoftBudgetChars", default=None, minimum=1, description="Shadow spend (prompt + report characters since the last user message) from which frugalShadowModel is used.")
    session_shadow_hard_budget_chars: int | None = setting(alias="sessionShadowHardBudgetChars", default=None, minimum=1, description="Shadow spend from which no new automatic Shadow run starts until the next user message.")
    frugal_shadow_model: str | None = setting(alias="frugalShadowModel", default=None, description="provider/model route used once the soft budget is reached.")
    stale_report_decay: float = setting(alias="staleReportDecay", default=0.0, minimum=0, maximum=1, description="When a report repeats one already in the review window, its Shadow's probability is multiplied by 1 - decay.")
    collapsed_by_default: bool = setting(alias="collapsedByDefault", default=True, description="Clients show new Shadow report cards collapsed.")
    max_relay_cycles_per_user_message: int = setting(alias="maxRelayCyclesPerUserMessage", default=3, minimum=0, description="Relays that may reach the root between two real user messages; from then on automatic reviews are skipped (RELAY_BOUND_REACHED) until the next user message. 0: no bound.")
    management_tools: bool = setting(alias="managementTools", default=False, description="Offer the model-facing management tools (list_shadows, update_default_shadow, get_shadow_config, update_shadow_config) to root agents. Off: every root request stays without them; people use /shadow.")


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
    changes: dict[str, Any] = {}  # by key: evolve takes the aliases

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
    return evolve_settings(settings, changes), notes


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
