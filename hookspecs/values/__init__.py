"""The attrs values that cross the host/plugin boundary."""

from .agents import (
    AgentOptions,
    AgentStatus,
    CancelCause,
    Enter,
    InboxChange,
    InboxTarget,
    LlmCallConfig,
    PreStepDecision,
    PromptAssembly,
    PromptSection,
    Reject,
    StreamDelta,
    StreamEnd,
    StreamFrame,
    StreamStart,
)
from .cancel import CancelToken, Cancelled
from .client import Card, CardRenderer, ClientContribution, Notice, SettingsTab
from .commands import CommandDefinition, CommandInvocation, CommandResult
from .events import SESSION_FORMAT_VERSION, EventTypes, SessionEvent, SessionHeader, TurnEndKinds, turn_end_kind
from .json import JSON, check_json, dumps_compact, loads_strict
from .llm import (
    FinishChunk,
    LlmRequest,
    ModelInfo,
    ReasoningDelta,
    RetryNotice,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    ToolSchema,
    UsageChunk,
    chunk_to_json,
)
from .messages import (
    ContentBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    blocks_from_json,
    blocks_to_json,
    create_user_message,
    message_from_json,
    message_to_json,
)
from .settings import SettingsDescriptor, SettingsOp, SettingsSpec
from .subagents import Capabilities, DelegatedPolicy, StopReasons, SubagentRequest, SubagentResult
from .tools import (
    Allow,
    ApprovalOutcome,
    ApprovalRequest,
    Ask,
    Deny,
    PreExecuteDecision,
    ToolDefinition,
    ToolExecution,
    ToolFailure,
    ToolFilter,
    ToolResult,
)

__all__ = [name for name in dir() if not name.startswith("_")]
