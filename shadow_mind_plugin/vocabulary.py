"""Shadow Mind's contract vocabulary: ids, enum values and reason codes.

These strings are contracts (they appear in provenance, status, journals and
tests); never rename them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

#: The settings namespace, equal to the runtime's profile row id.
SETTINGS_NAMESPACE: Final = "shadow-mind-runtime"
RUNTIME_ROW_ID: Final = "shadow-mind-runtime"
TOOLS_ROW_ID: Final = "tool-shadow-mind"
#: The reserved subagent provider name.
PROVIDER_NAME: Final = "shadow-mind"
DEFAULT_SHADOW_ID: Final = "default"
DEFAULT_SHADOW_TOOLS: Final = ("read", "grep", "glob")
DEFAULT_ACTIVATION_PROBABILITY: Final = 0.7
#: The user/message source kind of a relay.
REPORT_SOURCE_KIND: Final = "shadow-report"
#: A Shadow child session's descriptor label is this prefix plus the definition id.
CHILD_LABEL_PREFIX: Final = "shadow:"
#: A run id may be given as a unique prefix of at least this many characters.
RUN_ID_MIN_PREFIX: Final = 6
#: Debug-journal events besides the lifecycle ones (``runtime.journal.LIFECYCLE_EVENTS``).
QUALITY_METADATA_EVENT: Final = "quality-metadata"
BODY_DISCARDED_EVENT: Final = "non-report-body-discarded"
#: The ``status`` of a ``quality-metadata`` record about stagnation.
STAGNATION_STATUS: Final = "stagnation"
STRUCTURED_OUTPUT_TOOL: Final = "structured_output"
#: The kind of a review card (the client view and the governance stage both name it).
CARD_KIND: Final = "shadow-mind-review"


class Verdict(StrEnum):
    CHALLENGE = "challenge"
    GAP = "gap"
    CONFIRM = "confirm"
    UNCERTAIN = "uncertain"


class OutputStatus(StrEnum):
    REPORT = "report"
    SILENT = "silent"
    NOT_RELEVANT = "not_relevant"


class Phase(StrEnum):
    RUNNING = "running"
    REPORT = "report"
    SILENT = "silent"
    NOT_RELEVANT = "not_relevant"
    ABORTED = "aborted"
    FAILED = "failed"


class Stage(StrEnum):
    PREPARE = "prepare"
    START = "start"
    RUN = "run"
    DISPOSE = "dispose"
    VALIDATE = "validate"
    RELAY = "relay"


class CancellationSource(StrEnum):
    USER_INPUT = "user-input"
    USER_COMMAND = "user-command"
    ROOT_LIFECYCLE = "root-lifecycle"
    PLUGIN_LIFECYCLE = "plugin-lifecycle"
    TIMEOUT = "timeout"
    HEADLESS = "headless"
    PROVIDER = "provider"
    RUNTIME = "runtime"


class ReasonCode(StrEnum):
    # cancellations
    USER_MESSAGE_RECEIVED = "USER_MESSAGE_RECEIVED"
    USER_TURN_ABORTED = "USER_TURN_ABORTED"
    #: the user stopped the root's background work (``dsh_agent_background_cancel``)
    USER_CANCELLED = "USER_CANCELLED"
    SHADOW_PAUSED = "SHADOW_PAUSED"
    ROOT_DISPOSED = "ROOT_DISPOSED"
    PLUGIN_DISPOSED = "PLUGIN_DISPOSED"
    SHADOW_TIMEOUT = "SHADOW_TIMEOUT"
    HEADLESS_DRAIN_TIMEOUT = "HEADLESS_DRAIN_TIMEOUT"
    HEADLESS_MAINTENANCE_ABORTED = "HEADLESS_MAINTENANCE_ABORTED"
    STALE_EPOCH = "STALE_EPOCH"
    PROVIDER_ABORTED = "PROVIDER_ABORTED"
    #: the host dropped a queued relay from the root's inbox (a cancel cleared it)
    RELAY_DISCARDED = "RELAY_DISCARDED"
    # skips
    #: a review was not started: relay-driven cycles reached ``maxRelayCyclesPerUserMessage``
    RELAY_BOUND_REACHED = "RELAY_BOUND_REACHED"
    #: a review was not started: the root's resolved model matches no ``active_for_models`` entry
    MODEL_NOT_ACTIVE = "MODEL_NOT_ACTIVE"
    # declines: an eligible turn that started no review, recorded on its (hidden) card
    #: the session's review budget is used up (``exhausted`` tier)
    BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"
    #: the ``default`` Shadow has ``enabled: false``
    SHADOW_DISABLED = "SHADOW_DISABLED"
    #: the ``default`` Shadow is cooling down after an outcome that set a cooldown
    COOLDOWN_ACTIVE = "COOLDOWN_ACTIVE"
    #: the activation roll (probability × decay) said no this time
    NOT_ROLLED = "NOT_ROLLED"
    #: ``review_on_check: only`` and no evidence check fired on the turn
    NO_CHECK_FIRED = "NO_CHECK_FIRED"
    # failures
    SCHEDULING_FAILED = "SCHEDULING_FAILED"
    TRAJECTORY_BUILD_FAILED = "TRAJECTORY_BUILD_FAILED"
    MODEL_SELECTION_INVALID = "MODEL_SELECTION_INVALID"
    SUBAGENT_START_FAILED = "SUBAGENT_START_FAILED"
    SUBAGENT_RESULT_FAILED = "SUBAGENT_RESULT_FAILED"
    SUBAGENT_DISPOSE_FAILED = "SUBAGENT_DISPOSE_FAILED"
    PROVIDER_ERROR = "PROVIDER_ERROR"
    PROVIDER_MAX_TOKENS = "PROVIDER_MAX_TOKENS"
    PROVIDER_REFUSAL = "PROVIDER_REFUSAL"
    PROVIDER_STOPPED = "PROVIDER_STOPPED"
    STRUCTURED_OUTPUT_MISSING = "STRUCTURED_OUTPUT_MISSING"
    DEGENERATE_OUTPUT = "DEGENERATE_OUTPUT"
    INVALID_STRUCTURED_OUTPUT = "INVALID_STRUCTURED_OUTPUT"
    INVALID_REPORT = "INVALID_REPORT"
    REPORT_DELIVERY_FAILED = "REPORT_DELIVERY_FAILED"
    UNKNOWN_FAILURE = "UNKNOWN_FAILURE"


#: Cancellation reason codes (everything else is a failure code).
CANCELLATION_CODES: Final = frozenset(
    {
        ReasonCode.USER_MESSAGE_RECEIVED,
        ReasonCode.USER_TURN_ABORTED,
        ReasonCode.USER_CANCELLED,
        ReasonCode.SHADOW_PAUSED,
        ReasonCode.ROOT_DISPOSED,
        ReasonCode.PLUGIN_DISPOSED,
        ReasonCode.SHADOW_TIMEOUT,
        ReasonCode.HEADLESS_DRAIN_TIMEOUT,
        ReasonCode.HEADLESS_MAINTENANCE_ABORTED,
        ReasonCode.STALE_EPOCH,
        ReasonCode.PROVIDER_ABORTED,
        ReasonCode.RELAY_DISCARDED,
    }
)


class Independence(StrEnum):
    INDEPENDENT = "independent"
    UNVERIFIED = "unverified"
    UNAVAILABLE = "unavailable"
    SAME_VENDOR = "same_vendor"


class StagnationPattern(StrEnum):
    SPINNING = "spinning"
    OSCILLATION = "oscillation"
    NO_DRIFT = "no-drift"
    DIMINISHING = "diminishing"


class BudgetTier(StrEnum):
    STANDARD = "standard"
    FRUGAL = "frugal"
    EXHAUSTED = "exhausted"


class ValueClassification(StrEnum):
    ADOPTED = "challenge_adopted"
    REJECTED = "challenge_rejected"
    IGNORED = "ignored"


#: Extension stop reasons the shadow-mind provider may return.
STOP_NO_STRUCTURED_OUTPUT: Final = "no-structured-output"
STOP_DEGENERATE_OUTPUT: Final = "degenerate-output"
