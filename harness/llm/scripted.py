"""A deterministic LLM provider driven by a YAML script, for tests and demos.

Profile row::

    {id: llm, name: scripted-llm, config: {script: scripts/x.yml, provider: scripted}}

Config: ``script`` (path; in a profile or patch file a relative path is
resolved against that file's directory, ``~`` is expanded), ``provider``
(default ``scripted``) and ``chunk_size`` (characters per streamed text or
reasoning delta, default 16). The script is loaded and validated when the
plugin is constructed; errors name the file and the field path.

Script format::

    models:                      # optional; ModelInfo fields. Empty: any model id routes.
      - id: root-model
        name: Root model
        context_window: 128000
        max_output_tokens: 8192
        reasoning_efforts: [low, high]
        default_effort: high
    responses:                   # required; tried in file order
      - match:                   # every given key must hold; omitted keys match anything
          model: root-model
          depth: 0               # request.metadata["delegation_depth"] (missing = 0)
          last_user_contains: review   # substring of the last user-role message text
          system_contains: Shadow      # substring of the system prompt
          has_tools: [read]      # all of these tool names are offered
          no_tools: true         # true: no tools offered; false: at least one offered
        repeat: false            # true: may answer any number of requests
        reply:
          reasoning: "..."       # ReasoningDelta chunks, first
          text: "..."            # TextDelta chunks, chunk_size characters each
          tool_calls:            # ToolCallDelta chunks; arguments arrive in 2+ fragments
            - name: read
              arguments: {path: README.md}  # mapping (sent as JSON) or raw string (sent verbatim)
              id: call-1         # default: call-<request number>-<index>
          finish: stop           # stop | tool-calls | max-tokens | content-filter;
                                 # default tool-calls when tool_calls are given, else stop
          usage: {input_tokens: 10, output_tokens: 5, reasoning_tokens: 0}
          error:                 # raise LlmError after streaming after_chunks content chunks
            message: overloaded
            code: OVERLOADED     # default LLM_ERROR
            status: 529
            retryable: true
            retry_after: 2.5
            after_chunks: 0
          delay_seconds: 0       # wait before the first chunk (trio time: MockClock-friendly)
          hang: false            # stream the content, then never finish until cancelled

Each request takes the first response, in file order, that is unused (or has
``repeat: true``) and whose ``match`` holds. When none does the stream raises
``LlmError`` ``SCRIPT_EXHAUSTED`` describing the request and why each unused
response did not match. Chunk order: reasoning, text, tool calls (the first
fragment of each carries ``index``, ``id`` and ``name``), usage, finish. A
cancelled ``CancelToken`` stops the stream with
:class:`hookspecs.values.cancel.Cancelled`; trio cancel scopes land at the
checkpoint before every chunk.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import attrs

from hookspecs import hookimpl
from hookspecs.errors import LlmError
from hookspecs.markers import CONFIG_PATH
from hookspecs.protocols import LlmAdapter
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import LlmRequest, ModelInfo, StreamChunk

from .matching import RequestFacts, mismatch
from .placeholders import resolve as resolve_placeholders
from .playback import play
from .routes import provider_name_problem
from .script import Response, Script, load_script, parse_script_text

_LISTED_MISSES = 5  # unused responses explained in an exhaustion message


def _check_provider(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    problem = provider_name_problem(value)
    if problem is not None:
        raise ValueError(f"{attribute.name} {problem}")


@attrs.frozen(kw_only=True)
class ScriptedLlmConfig:
    """The ``config`` of a ``scripted-llm`` profile row."""

    #: a profile's relative path names a file beside the profile (see hookspecs.markers.CONFIG_PATH)
    script: str = attrs.field(metadata={CONFIG_PATH: True})
    provider: str = attrs.field(default="scripted", validator=_check_provider)
    chunk_size: int = attrs.field(default=16, validator=attrs.validators.ge(1))


class ScriptedAdapter:
    """An :class:`~hookspecs.protocols.LlmAdapter` that replays a :class:`Script`.

    ``requests`` records every request received, in order (including those the
    script could not answer).
    """

    def __init__(self, script: Script, *, provider: str = "scripted", chunk_size: int = 16) -> None:
        problem = provider_name_problem(provider)
        if problem is not None:
            raise ValueError(f"provider {problem}")
        if chunk_size < 1:
            raise ValueError("chunk_size must be >= 1")
        self._script = script
        self._provider = provider
        self._chunk_size = chunk_size
        self._used = [False] * len(script.responses)
        self.requests: list[LlmRequest] = []

    @classmethod
    def from_file(cls, path: str | Path, *, provider: str = "scripted", chunk_size: int = 16) -> ScriptedAdapter:
        return cls(load_script(path), provider=provider, chunk_size=chunk_size)

    @classmethod
    def from_text(
        cls, text: str, *, provider: str = "scripted", chunk_size: int = 16, source: str = "<script>"
    ) -> ScriptedAdapter:
        return cls(parse_script_text(text, source=source), provider=provider, chunk_size=chunk_size)

    @property
    def provider(self) -> str:
        return self._provider

    @property
    def script(self) -> Script:
        return self._script

    def models(self) -> tuple[ModelInfo, ...]:
        return self._script.models

    def unused(self) -> list[int]:
        """Indexes of one-shot responses not consumed yet (handy in assertions)."""
        return [i for i, r in enumerate(self._script.responses) if not r.repeat and not self._used[i]]

    async def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]:
        self.requests.append(request)
        number = len(self.requests)
        response = self._take(request, number)
        call_ids = [call.id or f"call-{number}-{i}" for i, call in enumerate(response.reply.tool_calls)]
        reply = resolve_placeholders(response.reply, request)
        async for chunk in play(reply, cancel, chunk_size=self._chunk_size, call_ids=call_ids):
            yield chunk

    def _take(self, request: LlmRequest, number: int) -> Response:
        # Synchronous: concurrent streams cannot claim the same response.
        facts = RequestFacts.of(request)
        misses: list[str] = []
        for i, response in enumerate(self._script.responses):
            if self._used[i] and not response.repeat:
                continue
            reason = mismatch(response.match, facts)
            if reason is None:
                self._used[i] = True
                return response
            misses.append(f"responses[{i}]: {reason}")
        raise LlmError(self._exhausted_message(facts, number, misses), code="SCRIPT_EXHAUSTED")

    def _exhausted_message(self, facts: RequestFacts, number: int, misses: list[str]) -> str:
        head = f"script {self._script.source}: no response matches request #{number} ({facts.summary()})"
        if not misses:
            return f"{head}; all {len(self._script.responses)} responses were used"
        listed = "; ".join(misses[:_LISTED_MISSES])
        more = f"; and {len(misses) - _LISTED_MISSES} more" if len(misses) > _LISTED_MISSES else ""
        return f"{head}; unused responses: {listed}{more}"


class ScriptedLlmPlugin:
    """The ``scripted-llm`` plugin: registers one :class:`ScriptedAdapter`."""

    config_schema = ScriptedLlmConfig

    def __init__(self, config: ScriptedLlmConfig) -> None:
        self.config = config
        self.adapter = ScriptedAdapter.from_file(config.script, provider=config.provider, chunk_size=config.chunk_size)

    @hookimpl
    def dsh_register_llm_adapters(self, register: Callable[[LlmAdapter], None]) -> None:
        register(self.adapter)


class AdapterPlugin:
    """Registers one adapter object built in code (tests, benchmarks and the
    ``dsh`` pytest plugin build adapters from inline scripts)."""

    def __init__(self, adapter: LlmAdapter) -> None:
        self.adapter = adapter

    @hookimpl
    def dsh_register_llm_adapters(self, register: Callable[[LlmAdapter], None]) -> None:
        register(self.adapter)
