"""Subagent requests and results, and the capability vocabulary."""

from __future__ import annotations

from typing import Any, Final

import attrs

from .agents import AgentOptions
from .cancel import CancelToken
from .live import Agent
from .messages import ContentBlock
from .tools import ToolFilter


class Capabilities:
    """Capability flag names. The map is open: providers may declare more, and
    every key of :attr:`SubagentRequest.extensions` must be declared ``True`` by
    the provider or the start fails with ``UNSUPPORTED_CAPABILITY``."""

    OUTPUT_SCHEMA: Final = "output_schema"
    DEPTH_LIMIT: Final = "depth_limit"
    TOOL_FILTER: Final = "tool_filter"
    PERSONA: Final = "persona"
    AGENT_OPTIONS: Final = "agent_options"
    MODEL_SELECTION: Final = "model_selection"
    CONTEXT_INHERITANCE: Final = "context_inheritance"
    THINK_FIRST: Final = "think_first"


class StopReasons:
    """Core stop reasons; providers may declare extra ones."""

    COMPLETED: Final = "completed"
    ABORTED: Final = "aborted"
    ERROR: Final = "error"
    MAX_TOKENS: Final = "max-tokens"
    REFUSAL: Final = "refusal"

    CORE: Final[frozenset[str]] = frozenset({COMPLETED, ABORTED, ERROR, MAX_TOKENS, REFUSAL})
    #: extension: a child asked for structured output completed without it
    NO_STRUCTURED_OUTPUT: Final = "no-structured-output"


@attrs.frozen(kw_only=True)
class StoredPrompt:
    """What a child's log keeps in place of a large prompt whose text can be
    rebuilt from elsewhere (e.g. a projection of the parent's own log).

    :param content: the child's first ``user/message`` content as stored (say,
        the prompt's instructions verbatim and one line naming the reference).
    :param reference: JSON; caller-defined keys that say how to rebuild the
        omitted text. The host stores it verbatim as the message source's
        ``stored_prompt``.
    """

    content: tuple[ContentBlock, ...]
    reference: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class SubagentRequest:
    """What a caller asks of a provider.

    :param cancel: required; the only way to stop the child before and after it
        is published. Cancelling it never skips ``dispose()``.
    :param max_depth: absolute cap on the child's delegation depth (0 refuses
        every spawn).
    :param output_schema: a JSON-Schema object (supported subset); the child gets a
        ``structured_output`` tool with these parameters.
    :param extensions: provider-specific fields; each key is also a capability
        name (``model_selection``, ``context_inheritance``, ``think_first``...).
    :param stored_prompt: when set, the child's log holds this form of the
        first message while the live request still sends ``prompt`` in full; a
        host that cannot split the two may ignore it and store ``prompt``.
    """

    label: str
    prompt: tuple[ContentBlock, ...]
    parent: Agent = attrs.field(eq=False, repr=False)
    cancel: CancelToken = attrs.field(eq=False, repr=False)
    agent_options: AgentOptions | None = None
    output_schema: dict[str, Any] | None = None
    max_depth: int | None = None
    tool_filter: ToolFilter | None = None
    persona: str | None = None
    extensions: dict[str, Any] = attrs.field(factory=dict)
    stored_prompt: StoredPrompt | None = None


@attrs.frozen(kw_only=True)
class SubagentResult:
    """How a child ended. Never raised: a failed child is a result with a stop
    reason and a ``diagnostic`` (at most 4096 characters)."""

    stop_reason: str
    output: tuple[ContentBlock, ...] = ()
    structured: Any = None
    diagnostic: str | None = None


@attrs.frozen(kw_only=True)
class DelegatedPolicy:
    """What a child inherits from its parent, captured before any await.

    ``approval_policy`` is always ``never`` for delegated children: nobody is
    asked on a child's behalf, so its approval requests are rejected.
    ``sandbox_mode`` is the parent's explicit sandbox override, if any.
    """

    approval_policy: str = "never"
    sandbox_mode: str | None = None
