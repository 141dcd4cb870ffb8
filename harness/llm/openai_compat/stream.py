"""Chat-completion chunks (parsed SSE payloads) -> host stream chunks.

One :class:`DeltaAssembler` per HTTP attempt. It maps ``choices[0].delta``
(``content``, ``reasoning_content`` / ``reasoning``, ``tool_calls``), keeps the
last ``usage`` and ``finish_reason``, and decides how the stream ended.

Adjacent deltas of one network block are merged (text with text, reasoning
with reasoning, argument fragments of the same tool call): they arrived
together, so merging adds no latency, and it saves the host one log event per
provider token.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from hookspecs.errors import LlmError
from hookspecs.values.llm import (
    FinishChunk,
    FinishReason,
    ReasoningDelta,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    UsageChunk,
)

from .failures import clean_id
from .sse import Payload

log = logging.getLogger(__name__)

#: Finish reasons that end a generation normally (OpenAI's documented set,
#: which DeepSeek, OpenRouter and vLLM share).
FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",  # the legacy name of the same thing
    "length": "max-tokens",
}


@attrs.frozen(kw_only=True)
class FinishFailure:
    """A finish reason that means the text is not an answer: an ``LlmError``."""

    code: str
    retryable: bool
    meaning: str


#: Finish reasons that end a generation abnormally. Cut-off or withheld text
#: must never complete a turn, so each becomes an error with its own code.
FINISH_FAILURES: dict[str, FinishFailure] = {
    # OpenAI, DeepSeek, OpenRouter: output withheld by the provider's filter.
    "content_filter": FinishFailure(
        code="CONTENT_FILTERED", retryable=False, meaning="the provider's content filter stopped the answer"
    ),
    # DeepSeek: "interrupted due to insufficient resource of the inference
    # system", the condition DeepSeek's 503 tells clients to retry.
    "insufficient_system_resource": FinishFailure(
        code="GENERATION_INTERRUPTED", retryable=True, meaning="the provider ran out of inference resources"
    ),
    # OpenRouter (normalised upstream failure) and vLLM (engine error).
    "error": FinishFailure(code="GENERATION_FAILED", retryable=False, meaning="the provider failed mid-answer"),
    # vLLM: the engine aborted the request (shutdown, scale-down, abort call).
    "abort": FinishFailure(code="GENERATION_INTERRUPTED", retryable=False, meaning="the provider aborted the answer"),
}
_DONE = b"[DONE]"
_DONE_MARK = object()
_RAW_DECODE = json.JSONDecoder().raw_decode
_EXCERPT = 120  # characters of a bad line quoted in an error


class DeltaAssembler:
    """Maps payloads of one response; raises ``LlmError`` for protocol faults.

    ``clean`` scrubs provider text (credentials, paths, the API key) before it
    can reach an error message.
    """

    def __init__(self, provider: str, *, request_id: str | None, clean: Callable[[str], str]) -> None:
        self.provider = provider
        self.request_id = request_id
        self.done = False  # [DONE] seen
        self.finish: FinishReason | None = None
        self.finish_raw: str | None = None
        self.usage: UsageChunk | None = None
        self._clean = clean
        self._ids_sent: set[int] = set()
        self._names_sent: set[int] = set()

    # --- payloads -------------------------------------------------------------------

    def accept(self, payloads: Sequence[Payload]) -> list[StreamChunk]:
        """Content chunks for ``payloads`` (merged where adjacent)."""
        runs = _Runs()
        for line, data in payloads:
            if self.done:
                break  # nothing after [DONE] counts
            obj = self._parse(line, data)
            if obj is _DONE_MARK:
                self.done = True
                break
            if not isinstance(obj, dict):
                raise self._malformed(line, "expected a JSON object", data)
            self._accept_object(line, obj, data, runs)
        return runs.finish()

    def _parse(self, line: int, data: bytes) -> Any:
        # Fast path: str + raw_decode skips json.loads' per-call encoding
        # detection (a third of the parse cost on token-sized events) and still
        # insists that the value spans the whole payload.
        try:
            text = data.decode("utf-8")
            obj, end = _RAW_DECODE(text)
            if end == len(text):
                return obj
        except ValueError:
            pass
        if data.strip() == _DONE:
            return _DONE_MARK
        try:
            return json.loads(data)  # leading/trailing whitespace, or a real error
        except ValueError as exc:
            problem = f"invalid JSON ({exc.msg})" if isinstance(exc, json.JSONDecodeError) else "invalid UTF-8"
            raise self._malformed(line, problem, data) from None

    def _accept_object(self, line: int, obj: dict[str, Any], data: bytes, runs: _Runs) -> None:
        error = obj.get("error")
        if error:
            raise self._stream_error(error)
        if self.request_id is None:
            self.request_id = clean_id(obj.get("id"), self._clean)
        usage = obj.get("usage")
        if isinstance(usage, dict):
            self.usage = usage_chunk(usage)
        choices = obj.get("choices")
        if not choices:
            return
        if not isinstance(choices, list):
            raise self._malformed(line, "'choices' is not a list", data)
        for choice in choices:
            if not isinstance(choice, dict):
                raise self._malformed(line, "a choice is not an object", data)
            if choice.get("index", 0) != 0:
                continue  # only the first choice is a conversation turn
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self._accept_delta(line, delta, data, runs)
            reason = choice.get("finish_reason")
            if isinstance(reason, str) and reason:
                self._set_finish(reason)

    def _accept_delta(self, line: int, delta: dict[str, Any], data: bytes, runs: _Runs) -> None:
        reasoning = delta.get("reasoning_content")
        if reasoning is None:
            reasoning = delta.get("reasoning")  # OpenRouter / vLLM spelling
        if isinstance(reasoning, str) and reasoning:
            runs.reasoning(reasoning)
        content = delta.get("content")
        if isinstance(content, str) and content:
            runs.text(content)
        calls = delta.get("tool_calls")
        if calls:
            if not isinstance(calls, list):
                raise self._malformed(line, "'tool_calls' is not a list", data)
            for position, call in enumerate(calls):
                if not isinstance(call, dict):
                    raise self._malformed(line, "a tool call is not an object", data)
                self._accept_call(position, call, runs)

    def _accept_call(self, position: int, call: dict[str, Any], runs: _Runs) -> None:
        index = call.get("index")
        if type(index) is not int:
            index = position  # some servers omit index when sending whole calls
        function = call.get("function")
        if not isinstance(function, dict):
            function = {}
        # The contract wants id and name once, on the first part; servers that
        # repeat them on every fragment would otherwise confuse assembly.
        call_id = call.get("id")
        if isinstance(call_id, str) and call_id and index not in self._ids_sent:
            self._ids_sent.add(index)
        else:
            call_id = None
        name = function.get("name")
        if isinstance(name, str) and name and index not in self._names_sent:
            self._names_sent.add(index)
        else:
            name = None
        arguments = function.get("arguments")
        runs.tool(index, call_id, name, arguments if isinstance(arguments, str) else "")

    def _set_finish(self, raw: str) -> None:
        self.finish_raw = raw
        if raw in FINISH_FAILURES:
            self.finish = None
            return  # end() raises: the text so far is not an answer
        mapped = FINISH_REASONS.get(raw)
        if mapped is None:
            # Provider text: cleaned like any other before it reaches a log.
            log.warning("%s: unknown finish_reason %r reported as 'stop'", self.provider, self._clean(raw)[:80])
            mapped = "stop"
        self.finish = mapped

    # --- end of body ------------------------------------------------------------------

    def end(self) -> list[StreamChunk]:
        """Usage and finish chunks once the body ended cleanly.

        A body that ends with neither a ``finish_reason`` nor ``[DONE]`` was cut
        short: ``LlmError`` ``STREAM_TRUNCATED``. ``[DONE]`` without a finish
        reason is reported as ``stop``. A finish reason in
        :data:`FINISH_FAILURES` is that entry's ``LlmError``.
        """
        failure = FINISH_FAILURES.get(self.finish_raw or "")
        if failure is not None:
            raise LlmError(
                f"{self.provider}: {failure.meaning} (finish_reason {self.finish_raw!r})",
                code=failure.code,
                request_id=self.request_id,
                retryable=failure.retryable,
            )
        if self.finish is None:
            if not self.done:
                raise LlmError(
                    f"{self.provider}: the response stream ended without a finish reason or [DONE]",
                    code="STREAM_TRUNCATED",
                    request_id=self.request_id,
                    retryable=True,
                )
            log.warning("%s: stream ended with [DONE] but no finish_reason; reported as 'stop'", self.provider)
            self.finish = "stop"
        tail: list[StreamChunk] = [] if self.usage is None else [self.usage]
        tail.append(FinishChunk(reason=self.finish))
        return tail

    # --- errors -----------------------------------------------------------------------

    def _malformed(self, line: int, problem: str, data: bytes) -> LlmError:
        excerpt = self._clean(data[: _EXCERPT * 4].decode("utf-8", "replace"))[:_EXCERPT]
        return LlmError(
            f"{self.provider}: malformed stream event at line {line}: {problem}: {excerpt!r}",
            code="MALFORMED_STREAM",
            request_id=self.request_id,
        )

    def _stream_error(self, error: Any) -> LlmError:
        message = error.get("message") if isinstance(error, dict) else error
        text = self._clean(str(message)) if message else "unspecified error"
        return LlmError(
            f"{self.provider}: the provider reported an error mid-stream: {text}",
            code="PROVIDER_ERROR",
            request_id=self.request_id,
        )


def usage_chunk(usage: dict[str, Any]) -> UsageChunk:
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return UsageChunk(
        input_tokens=_count(usage.get("prompt_tokens")),
        output_tokens=_count(usage.get("completion_tokens")),
        reasoning_tokens=_count(reasoning),
    )


def _count(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


class _Runs:
    """Collects deltas, merging a run of the same kind into one chunk."""

    __slots__ = ("_out", "_kind", "_parts", "_index", "_id", "_name")

    def __init__(self) -> None:
        self._out: list[StreamChunk] = []
        self._kind = ""
        self._parts: list[str] = []
        self._index = -1
        self._id: str | None = None
        self._name: str | None = None

    def text(self, text: str) -> None:
        if self._kind != "text":
            self._flush()
            self._kind = "text"
        self._parts.append(text)

    def reasoning(self, text: str) -> None:
        if self._kind != "reasoning":
            self._flush()
            self._kind = "reasoning"
        self._parts.append(text)

    def tool(self, index: int, call_id: str | None, name: str | None, arguments: str) -> None:
        if call_id is None and name is None and not arguments:
            return  # an empty fragment adds nothing
        if self._kind == "tool" and self._index == index and call_id is None and name is None:
            self._parts.append(arguments)
            return
        self._flush()
        self._kind, self._index, self._id, self._name = "tool", index, call_id, name
        self._parts.append(arguments)

    def finish(self) -> list[StreamChunk]:
        self._flush()
        return self._out

    def _flush(self) -> None:
        if not self._kind:
            return
        joined = "".join(self._parts)
        if self._kind == "text":
            self._out.append(TextDelta(text=joined))
        elif self._kind == "reasoning":
            self._out.append(ReasoningDelta(text=joined))
        else:
            self._out.append(ToolCallDelta(index=self._index, id=self._id, name=self._name, arguments=joined))
        self._kind = ""
        self._parts = []
