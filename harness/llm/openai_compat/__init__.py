"""The ``openai-compatible`` LLM adapter: DeepSeek, OpenAI and friends over
the chat-completions streaming API.

Profile row::

    - id: deepseek
      name: openai-compatible
      config:
        provider: deepseek                    # the route's provider half
        base_url: https://api.deepseek.com/v1 # POST {base_url}/chat/completions
        api_key_env: DEEPSEEK_API_KEY         # the variable's NAME; omit for keyless local servers
        models:                               # ModelInfo fields; empty = any model id routes
          - id: deepseek-chat
            name: DeepSeek Chat
            context_window: 128000
            max_output_tokens: 8192
            reasoning_efforts: [off, low, high, max]
            default_effort: high
        request_timeout_seconds: 300          # whole call, retries and backoff included
        connect_timeout_seconds: 30
        max_retries: 3                        # retries, so at most 4 attempts
        retry_base_seconds: 1.0
        retry_max_seconds: 30                 # caps backoff and Retry-After
        extra_headers: {}                     # never Authorization
        reasoning_effort_param: reasoning_effort   # or "none": never send an effort

The config is validated strictly (unknown keys, wrong types and bad values are
``ProfileError`` naming the field). The key itself never sits in config: it is
read from ``api_key_env`` on every request (``LlmError`` ``MISSING_API_KEY``
naming the variable when unset) and only ever leaves the process as the
``Authorization: Bearer`` header.

Request (see :mod:`.wire`): system prompt, user/assistant/tool messages, tools
(omitted when none), ``max_tokens`` and ``temperature`` when set, ``stream:
true`` with ``stream_options.include_usage``; ``request.metadata`` is never
sent. Reasoning effort: the request's, else the model's ``default_effort``; an
effort the model does not list is ``INVALID_REASONING_EFFORT``. It is sent as
``reasoning_effort`` except ``off``, which sends nothing (the provider's
non-reasoning default; choose a non-reasoning model id where the provider
needs one), and except with ``reasoning_effort_param: none``. Earlier
reasoning is not sent back, except as ``reasoning_content`` on this
provider's own tool-calling assistant messages of the current turn (after the
last user message), where DeepSeek's thinking mode requires it.

Stream (see :mod:`.sse`, :mod:`.stream`): ``delta.content`` -> ``TextDelta``,
``delta.reasoning_content`` (or ``reasoning``) -> ``ReasoningDelta``,
``delta.tool_calls[]`` -> ``ToolCallDelta`` by ``index`` (id and name once, on
the first fragment carrying them), then ``UsageChunk`` (prompt, completion and
reasoning tokens) and ``FinishChunk`` (``stop``, ``tool_calls`` /
``function_call`` -> ``tool-calls``, ``length`` -> ``max-tokens``). A finish
reason that says the text is not an answer ends the stream with an
``LlmError`` instead, after the partial text (so the turn ends as an error,
never ``completed``): ``content_filter`` (OpenAI, DeepSeek, OpenRouter) ->
``CONTENT_FILTERED``; DeepSeek's ``insufficient_system_resource`` ->
``GENERATION_INTERRUPTED``, retryable; vLLM's ``abort`` ->
``GENERATION_INTERRUPTED``; ``error`` (OpenRouter, vLLM) ->
``GENERATION_FAILED``. Any other finish reason -> ``stop`` with a logged
warning. Deltas that arrive in one network block are merged into one chunk per
run.

Errors are ``LlmError`` with a stable code, the HTTP ``status``, the
``request_id`` (``x-request-id`` or the body's ``id`` / ``error.id``, scrubbed like every provider text) and ``retry_after``;
provider text is scrubbed (``hookspecs.scrub``) and the key removed:

* ``RATE_LIMITED`` (429), ``SERVER_ERROR`` (5xx), ``CONNECTION_ERROR``:
  retried before any content chunk was yielded, with jittered exponential
  backoff or the provider's ``Retry-After`` (seconds or HTTP date) capped at
  ``retry_max_seconds``; a ``RetryNotice(attempt, delay_seconds, code,
  status)`` precedes each retry (``attempt`` counts retries from 1). The
  final error says how many attempts were made.
* ``STREAM_INTERRUPTED`` (connection lost mid-body), ``STREAM_TRUNCATED``
  (body ended with neither a finish reason nor ``[DONE]``) and
  ``GENERATION_INTERRUPTED`` from ``insufficient_system_resource``: retried
  like the above only when nothing was yielded yet.
* ``BAD_REQUEST``, ``AUTH_FAILED``, ``PAYMENT_REQUIRED``, ``FORBIDDEN``,
  ``NOT_FOUND``, ``REQUEST_TOO_LARGE``, ``HTTP_ERROR``, ``CONTEXT_OVERFLOW``
  (a context-length complaint), ``MALFORMED_STREAM`` (bad JSON; the message
  names the line), ``PROVIDER_ERROR`` (an error object mid-stream),
  ``CONTENT_FILTERED``, ``GENERATION_FAILED``, ``GENERATION_INTERRUPTED``
  from ``abort``,
  ``UNEXPECTED_RESPONSE``, ``INVALID_REASONING_EFFORT``: not retried.
* ``TIMEOUT``: ``request_timeout_seconds`` bounds the whole call, retries and
  backoff included; a retry whose delay would pass the deadline is not made
  (the last failure is raised instead).

Cancellation: a cancelled ``CancelToken`` stops the stream promptly, even in
the middle of a network read, with :class:`hookspecs.values.cancel.Cancelled`;
cancelling the caller's trio scope propagates ``trio.Cancelled`` unchanged.
The deadline and the token are applied per await (:mod:`.guard`) because a
cancel scope must not span the generator's ``yield``. The HTTP response is
always closed, shielded, so the connection is released.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import ModelSpec, OpenAICompatibleConfig, parse_config
from .plugin import OpenAICompatiblePlugin

if TYPE_CHECKING:
    from .adapter import OpenAICompatibleAdapter


__all__ = [
    "ModelSpec",
    "OpenAICompatibleAdapter",
    "OpenAICompatibleConfig",
    "OpenAICompatiblePlugin",
    "parse_config",
]


def __getattr__(name: str) -> Any:
    # the adapter (and its HTTP client) loads when named: the plugin itself builds it at the first request
    if name == "OpenAICompatibleAdapter":
        from .adapter import OpenAICompatibleAdapter

        return OpenAICompatibleAdapter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
