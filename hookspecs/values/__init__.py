"""The attrs values that cross the host/plugin boundary.

Every name is imported from here; each lives in one submodule, by subject.
Names load on first use (PEP 562): ``import hookspecs.values`` alone loads no
submodule, and a process that never builds a card's view model or a settings
form (a headless run) never creates those classes.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..lazy import load_name

if TYPE_CHECKING:
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
    from .cancel import Cancelled, CancelToken
    from .client import Card, CardRenderer, ClientContribution, Notice, SettingsTab, Stylesheet
    from .client_views import (
        CardAction,
        CardSection,
        CardView,
        FieldErrors,
        FieldHint,
        FormField,
        FormOption,
        FormPreset,
        SettingsForm,
        field_named,
    )
    from .commands import CommandDefinition, CommandInvocation, CommandResult
    from .events import SESSION_FORMAT_VERSION, EventTypes, SessionEvent, SessionHeader, TurnEndKinds, turn_end_kind
    from .json import JSON, check_json, decode_strict, dumps_compact, loads_strict
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
    from .setting_fields import (
        SettingField,
        Settings,
        evolve_settings,
        override_of,
        setting,
        setting_fields,
        setting_of,
    )
    from .settings import SettingsDescriptor, SettingsOp, SettingsSpec, settings_key
    from .subagents import Capabilities, DelegatedPolicy, StopReasons, StoredPrompt, SubagentRequest, SubagentResult
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

#: submodule -> the names it gives this package (``tests/test_contract_lazy.py``
#: keeps it equal to ``__all__``, the imports above and the submodules' public names)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "agents": (
        "AgentOptions",
        "AgentStatus",
        "CancelCause",
        "Enter",
        "InboxChange",
        "InboxTarget",
        "LlmCallConfig",
        "PreStepDecision",
        "PromptAssembly",
        "PromptSection",
        "Reject",
        "StreamDelta",
        "StreamEnd",
        "StreamFrame",
        "StreamStart",
    ),
    "cancel": ("Cancelled", "CancelToken"),
    "client": ("Card", "CardRenderer", "ClientContribution", "Notice", "SettingsTab", "Stylesheet"),
    "client_views": (
        "CardAction",
        "CardSection",
        "CardView",
        "FieldErrors",
        "FieldHint",
        "FormField",
        "FormOption",
        "FormPreset",
        "SettingsForm",
        "field_named",
    ),
    "commands": ("CommandDefinition", "CommandInvocation", "CommandResult"),
    "events": (
        "SESSION_FORMAT_VERSION",
        "EventTypes",
        "SessionEvent",
        "SessionHeader",
        "TurnEndKinds",
        "turn_end_kind",
    ),
    "json": ("JSON", "check_json", "decode_strict", "dumps_compact", "loads_strict"),
    "llm": (
        "FinishChunk",
        "LlmRequest",
        "ModelInfo",
        "ReasoningDelta",
        "RetryNotice",
        "StreamChunk",
        "TextDelta",
        "ToolCallDelta",
        "ToolSchema",
        "UsageChunk",
        "chunk_to_json",
    ),
    "messages": (
        "ContentBlock",
        "ImageBlock",
        "Message",
        "ReasoningBlock",
        "TextBlock",
        "ToolCallBlock",
        "ToolResultBlock",
        "blocks_from_json",
        "blocks_to_json",
        "create_user_message",
        "message_from_json",
        "message_to_json",
    ),
    "setting_fields": (
        "SettingField",
        "Settings",
        "evolve_settings",
        "override_of",
        "setting",
        "setting_fields",
        "setting_of",
    ),
    "settings": ("SettingsDescriptor", "SettingsOp", "SettingsSpec", "settings_key"),
    "subagents": (
        "Capabilities",
        "DelegatedPolicy",
        "StopReasons",
        "StoredPrompt",
        "SubagentRequest",
        "SubagentResult",
    ),
    "tools": (
        "Allow",
        "ApprovalOutcome",
        "ApprovalRequest",
        "Ask",
        "Deny",
        "PreExecuteDecision",
        "ToolDefinition",
        "ToolExecution",
        "ToolFailure",
        "ToolFilter",
        "ToolResult",
    ),
}
_HOMES: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = load_name(__name__, f".{module}", name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Values(ModuleType):
    """This package's module type. The function ``setting_fields`` shares its
    submodule's name: loading the submodule sets it on the package, which would
    hide the function, so that assignment is not kept (the name resolves to the
    function, as when every submodule was imported here eagerly)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if not (name in _HOMES and isinstance(value, ModuleType)):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Values


#: Written out so type checkers see the re-exports; ``import *`` brings no submodules.
__all__ = [
    "AgentOptions",
    "AgentStatus",
    "CancelCause",
    "Enter",
    "InboxChange",
    "InboxTarget",
    "LlmCallConfig",
    "PreStepDecision",
    "PromptAssembly",
    "PromptSection",
    "Reject",
    "StreamDelta",
    "StreamEnd",
    "StreamFrame",
    "StreamStart",
    "CancelToken",
    "Cancelled",
    "Card",
    "CardAction",
    "CardRenderer",
    "CardSection",
    "CardView",
    "ClientContribution",
    "FieldErrors",
    "FieldHint",
    "FormField",
    "FormOption",
    "FormPreset",
    "Notice",
    "field_named",
    "SettingsForm",
    "SettingsTab",
    "Stylesheet",
    "CommandDefinition",
    "CommandInvocation",
    "CommandResult",
    "SESSION_FORMAT_VERSION",
    "EventTypes",
    "SessionEvent",
    "SessionHeader",
    "TurnEndKinds",
    "turn_end_kind",
    "JSON",
    "check_json",
    "decode_strict",
    "dumps_compact",
    "loads_strict",
    "FinishChunk",
    "LlmRequest",
    "ModelInfo",
    "ReasoningDelta",
    "RetryNotice",
    "StreamChunk",
    "TextDelta",
    "ToolCallDelta",
    "ToolSchema",
    "UsageChunk",
    "chunk_to_json",
    "ContentBlock",
    "ImageBlock",
    "Message",
    "ReasoningBlock",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "blocks_from_json",
    "blocks_to_json",
    "create_user_message",
    "message_from_json",
    "message_to_json",
    "SettingsDescriptor",
    "SettingsOp",
    "SettingsSpec",
    "settings_key",
    "SettingField",
    "evolve_settings",
    "override_of",
    "setting",
    "setting_fields",
    "setting_of",
    "Settings",
    "Capabilities",
    "DelegatedPolicy",
    "StopReasons",
    "StoredPrompt",
    "SubagentRequest",
    "SubagentResult",
    "Allow",
    "ApprovalOutcome",
    "ApprovalRequest",
    "Ask",
    "Deny",
    "PreExecuteDecision",
    "ToolDefinition",
    "ToolExecution",
    "ToolFailure",
    "ToolFilter",
    "ToolResult",
]
