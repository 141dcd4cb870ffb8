"""What ``default.md`` starts as when it does not exist yet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..vocabulary import DEFAULT_ACTIVATION_PROBABILITY, DEFAULT_SHADOW_ID
from .model import ShadowDefinition

DEFAULT_NAME: Final = "Shadow"

#: The built-in duty prompt of a freshly created default Shadow.
DEFAULT_PROMPT: Final = "\n".join(
    [
        "Audit the root agent's most recent turn against what the user asked for and against the trajectory shown below.",
        "",
        "Check, in this order:",
        "",
        "1. Requirements: was an explicit user requirement, constraint or acceptance criterion left out or only partly met?",
        "2. Consistency: does a conclusion disagree with what tool results, file contents, test output or recorded errors actually show?",
        "3. Harm: did the changes bring in a functional bug, a security weakness, a risk of data loss, a concurrency hazard or breakage on a particular platform?",
        "4. Verification: did the root declare the work done without running the checks the task called for?",
        "5. Loops: did the root retry a failing action unchanged, without new inputs and without dealing with the cause?",
        "",
        "Rules:",
        "",
        "- Raise only issues that the rendered trajectory directly supports and that deserve the user's attention.",
        "- Leave out style preferences, naming opinions and general advice.",
        "- Do not speculate about hidden reasoning, redacted arguments or tool output that was left out.",
        "- Each report names the problem, cites the evidence, explains the impact and proposes a fix.",
        "- Put in `refs` only sequence numbers that appear in the trajectory you were shown.",
        "- Answer `report` with a verdict (challenge, gap, confirm or uncertain) when there is something actionable, "
        "`silent` when the review found nothing actionable, and `not_relevant` when this turn is not something to review.",
    ]
)


def builtin_default() -> ShadowDefinition:
    """The default reviewer definition used when no definition file exists at all."""
    return ShadowDefinition(
        id=DEFAULT_SHADOW_ID,
        name=DEFAULT_NAME,
        enabled=True,
        debug=False,
        activation_probability=DEFAULT_ACTIVATION_PROBABILITY,
        capture="full",
        context="standard",
        think_first=False,
        holdout=False,
        prompt=DEFAULT_PROMPT,
    )


def seed_from_legacy(legacy: ShadowDefinition) -> ShadowDefinition:
    """A default reviewer definition that keeps a legacy definition's duty prompt.

    Copied: name, enabled, debug, route, effort, tools, capture, context,
    think-first and prompt. Reset on purpose: the probability converges to the
    product default, model filters and holdout start clear (the sidecar names
    keys per id, so the legacy id's keys would not apply), and the timeout falls
    back to the global setting instead of a possibly stale per-file value.
    """
    return ShadowDefinition(
        id=DEFAULT_SHADOW_ID,
        name=legacy.name,
        enabled=legacy.enabled,
        debug=legacy.debug,
        activation_probability=DEFAULT_ACTIVATION_PROBABILITY,
        active_for_models=(),
        run_with_model=legacy.run_with_model,
        reasoning_effort=legacy.reasoning_effort,
        timeout_seconds=None,
        tools=legacy.tools,
        capture=legacy.capture,
        context=legacy.context,
        think_first=legacy.think_first,
        holdout=False,
        prompt=legacy.prompt,
    )


def default_seed(legacy: Sequence[ShadowDefinition]) -> ShadowDefinition:
    """Seed from the first legacy definition (file-name order), else built in."""
    return seed_from_legacy(legacy[0]) if legacy else builtin_default()
