"""The scripted LLM adapter and its plugin."""

from __future__ import annotations

import json
import textwrap
from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from pathlib import Path
from typing import Any

import attrs
import pluggy
import pytest
import trio
import trio.testing

import hookspecs.llm
from harness.llm import LlmService, ScriptedAdapter, ScriptedLlmConfig, ScriptedLlmPlugin, ScriptError
from hookspecs import PROJECT_NAME
from hookspecs.errors import DshError, LlmError, PluginError
from hookspecs.protocols import LlmAdapter
from hookspecs.values.cancel import Cancelled, CancelToken
from hookspecs.values.llm import (
    FinishChunk,
    LlmRequest,
    ModelInfo,
    ReasoningDelta,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    ToolSchema,
    UsageChunk,
)
from hookspecs.values.messages import Message, TextBlock, create_user_message, new_message_id
from hookspecs.values.wire import make_converter, structure

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scripts" / "hello.yml"


# --- helpers ----------------------------------------------------------------------------


def adapter(script: str, **kwargs: Any) -> ScriptedAdapter:
    return ScriptedAdapter.from_text(textwrap.dedent(script), source="test.yml", **kwargs)


def tool(name: str) -> ToolSchema:
    return ToolSchema(name=name, description=name, parameters={"type": "object"})


def req(
    user: str | Sequence[str] = "hello",
    *,
    model: str = "m",
    depth: int | None = 0,
    system: str = "You are helpful.",
    tools: Sequence[str] = (),
) -> LlmRequest:
    texts = [user] if isinstance(user, str) else list(user)
    messages = [create_user_message(text) for text in texts]
    # An assistant message after the users must not hide the last user text.
    messages.append(Message(id=new_message_id(), role="assistant", content=(TextBlock(text="ok"),)))
    return LlmRequest(
        provider="scripted",
        model=model,
        system=system,
        messages=tuple(messages),
        tools=tuple(tool(name) for name in tools),
        metadata={} if depth is None else {"delegation_depth": depth},
    )


async def collect(stream: AsyncIterator[StreamChunk]) -> list[StreamChunk]:
    async with aclosing(stream) as chunks:  # type: ignore[type-var]
        return [chunk async for chunk in chunks]


async def text_of(a: ScriptedAdapter, request: LlmRequest) -> str:
    chunks = await collect(a.stream(request, CancelToken()))
    return "".join(c.text for c in chunks if isinstance(c, TextDelta))


def assemble_tool_calls(chunks: Sequence[StreamChunk]) -> dict[int, dict[str, Any]]:
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        if isinstance(chunk, ToolCallDelta):
            call = calls.setdefault(chunk.index, {"id": None, "name": None, "arguments": "", "parts": 0})
            call["id"] = call["id"] or chunk.id
            call["name"] = call["name"] or chunk.name
            call["arguments"] += chunk.arguments
            call["parts"] += 1
    return calls


# --- protocol and basics ------------------------------------------------------------------


def test_adapter_satisfies_protocol_and_lists_models() -> None:
    a = adapter(
        """
        models:
          - id: root-model
            context_window: 128000
            reasoning_efforts: [low, high]
            default_effort: high
        responses: []
        """,
        provider="mock",
    )
    assert isinstance(a, LlmAdapter)
    assert a.provider == "mock"
    assert a.models() == (
        ModelInfo(id="root-model", context_window=128000, reasoning_efforts=("low", "high"), default_effort="high"),
    )


async def test_requests_are_recorded_in_order_even_when_unanswered() -> None:
    a = adapter("responses: [{reply: {text: one}}]")
    first, second = req("a"), req("b")
    await collect(a.stream(first, CancelToken()))
    with pytest.raises(LlmError):
        await collect(a.stream(second, CancelToken()))
    assert a.requests == [first, second]


# --- matching -----------------------------------------------------------------------------


async def test_responses_are_consumed_in_file_order() -> None:
    a = adapter(
        """
        responses:
          - reply: {text: first}
          - reply: {text: second}
        """
    )
    assert a.unused() == [0, 1]
    assert await text_of(a, req()) == "first"
    assert await text_of(a, req()) == "second"
    assert a.unused() == []


async def test_match_model() -> None:
    a = adapter(
        """
        responses:
          - {match: {model: big}, reply: {text: big}}
          - {match: {model: small}, reply: {text: small}}
        """
    )
    assert await text_of(a, req(model="small")) == "small"
    assert await text_of(a, req(model="big")) == "big"


async def test_match_depth_with_missing_metadata_as_root() -> None:
    a = adapter(
        """
        responses:
          - {match: {depth: 1}, reply: {text: child}}
          - {match: {depth: 0}, reply: {text: root}}
          - {match: {depth: 0}, reply: {text: root again}}
        """
    )
    assert await text_of(a, req(depth=0)) == "root"
    assert await text_of(a, req(depth=1)) == "child"
    assert await text_of(a, req(depth=None)) == "root again"


async def test_match_last_user_contains_looks_at_the_last_user_message_only() -> None:
    a = adapter(
        """
        responses:
          - {match: {last_user_contains: review}, reply: {text: reviewed}}
          - reply: {text: fallback}
        """
    )
    # "review" is in an earlier user message, not the last one: the first response is skipped.
    assert await text_of(a, req(["please review", "thanks"])) == "fallback"
    assert await text_of(a, req(["x", "now review it"])) == "reviewed"


async def test_match_system_contains() -> None:
    a = adapter(
        """
        responses:
          - {match: {system_contains: Shadow}, reply: {text: shadow}}
          - reply: {text: main}
        """
    )
    assert await text_of(a, req(system="You are the main agent.")) == "main"
    assert await text_of(a, req(system="You are Shadow Mind.")) == "shadow"


async def test_match_has_tools_and_no_tools() -> None:
    a = adapter(
        """
        responses:
          - {match: {has_tools: [read, write]}, reply: {text: both}}
          - {match: {no_tools: true}, reply: {text: none}}
          - {match: {no_tools: false}, reply: {text: some}}
        """
    )
    assert await text_of(a, req(tools=["read"])) == "some"
    assert await text_of(a, req(tools=[])) == "none"
    assert await text_of(a, req(tools=["write", "read", "grep"])) == "both"


async def test_all_match_keys_must_hold() -> None:
    a = adapter(
        """
        responses:
          - match: {model: m, depth: 0, last_user_contains: go, system_contains: Boss, has_tools: [read]}
            reply: {text: all}
        """
    )
    with pytest.raises(LlmError):
        await collect(a.stream(req("go", system="Boss", tools=[]), CancelToken()))
    assert await text_of(a, req("go", system="Boss", tools=["read"])) == "all"


async def test_repeat_answers_any_number_of_requests_but_keeps_order() -> None:
    a = adapter(
        """
        responses:
          - {match: {depth: 0}, reply: {text: once}}
          - {repeat: true, reply: {text: always}}
        """
    )
    assert await text_of(a, req(depth=0)) == "once"
    for _ in range(3):
        assert await text_of(a, req(depth=0)) == "always"
    assert a.unused() == []


async def test_exhaustion_message_describes_request_and_misses() -> None:
    a = adapter(
        """
        responses:
          - {match: {depth: 0}, reply: {text: root}}
          - {match: {depth: 0}, reply: {text: root2}}
          - {match: {system_contains: Shadow}, reply: {text: shadow}}
        """
    )
    await collect(a.stream(req(), CancelToken()))
    with pytest.raises(LlmError) as err:
        await collect(a.stream(req("please review the plan", model="rev", depth=1, tools=["read"]), CancelToken()))
    message = err.value.message
    assert err.value.code == "SCRIPT_EXHAUSTED"
    assert "test.yml" in message and "request #2" in message
    assert "model 'rev'" in message and "depth 1" in message and "tools [read]" in message
    assert "'please review the plan'" in message
    assert "responses[1]: depth is 1, wants 0" in message
    assert "responses[2]: system prompt lacks 'Shadow'" in message
    assert "responses[0]" not in message  # already used


async def test_exhaustion_when_everything_is_used_and_long_text_is_trimmed() -> None:
    a = adapter("responses: [{reply: {text: x}}]")
    await collect(a.stream(req(), CancelToken()))
    with pytest.raises(LlmError) as err:
        await collect(a.stream(req("word " * 100), CancelToken()))
    assert "all 1 responses were used" in err.value.message
    assert "…" in err.value.message and len(err.value.message) < 400


async def test_concurrent_streams_never_share_a_one_shot_response() -> None:
    a = adapter(
        """
        responses:
          - reply: {text: a}
          - reply: {text: b}
        """
    )
    results: list[str] = []

    async def one() -> None:
        results.append(await text_of(a, req()))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(one)
        nursery.start_soon(one)
    assert sorted(results) == ["a", "b"]


# --- stream shape ---------------------------------------------------------------------------


async def test_stream_order_and_chunking() -> None:
    a = adapter(
        """
        responses:
          - reply:
              reasoning: "think hard now"
              text: "Hello, scripted world!"
              tool_calls:
                - {name: read, arguments: {path: README.md}}
              usage: {input_tokens: 10, output_tokens: 5}
        """,
        chunk_size=5,
    )
    chunks = await collect(a.stream(req(), CancelToken()))
    kinds = [type(c).__name__ for c in chunks]
    assert kinds == (
        ["ReasoningDelta"] * 3 + ["TextDelta"] * 5 + ["ToolCallDelta"] * kinds.count("ToolCallDelta") + ["UsageChunk", "FinishChunk"]
    )
    assert kinds.count("ToolCallDelta") >= 2
    assert [c.text for c in chunks if isinstance(c, ReasoningDelta)] == ["think", " hard", " now"]
    texts = [c.text for c in chunks if isinstance(c, TextDelta)]
    assert texts == ["Hello", ", scr", "ipted", " worl", "d!"]
    assert all(len(t) <= 5 for t in texts)
    assert chunks[-2] == UsageChunk(input_tokens=10, output_tokens=5)
    assert chunks[-1] == FinishChunk(reason="tool-calls")


async def test_tool_call_fragments_reassemble_to_the_original_json() -> None:
    arguments = {"path": "src/app.py", "lines": [1, 20], "opts": {"ünïcode": True, "n": None}}
    a = adapter(
        f"""
        responses:
          - reply:
              tool_calls:
                - {{name: read, arguments: {json.dumps(arguments)}, id: my-id}}
                - {{name: ls}}
                - {{name: write, arguments: '{{"path": "x", "content": '}}
        """,
        chunk_size=8,
    )
    chunks = await collect(a.stream(req(), CancelToken()))
    deltas = [c for c in chunks if isinstance(c, ToolCallDelta)]
    # Only the first fragment of each call names it.
    firsts = [d for d in deltas if d.name is not None]
    assert [(d.index, d.id, d.name) for d in firsts] == [(0, "my-id", "read"), (1, "call-1-1", "ls"), (2, "call-1-2", "write")]
    assert all(d.id is None for d in deltas if d.name is None)
    calls = assemble_tool_calls(chunks)
    assert json.loads(calls[0]["arguments"]) == arguments
    assert calls[1]["arguments"] == "{}"
    assert calls[2]["arguments"] == '{"path": "x", "content": '  # verbatim, invalid on purpose
    assert all(call["parts"] >= 2 for call in calls.values())
    # The index order is monotonic: call 1 starts only after call 0 is complete.
    assert [d.index for d in deltas] == sorted(d.index for d in deltas)


async def test_short_arguments_still_split_in_two_with_a_large_chunk_size() -> None:
    a = adapter("responses: [{reply: {tool_calls: [{name: t, arguments: {a: 1}}]}}]", chunk_size=1000)
    chunks = await collect(a.stream(req(), CancelToken()))
    deltas = [c for c in chunks if isinstance(c, ToolCallDelta)]
    assert len(deltas) == 2 and "".join(d.arguments for d in deltas) == '{"a":1}'


async def test_default_call_ids_number_the_request() -> None:
    a = adapter("responses: [{repeat: true, reply: {tool_calls: [{name: t}]}}]")
    await collect(a.stream(req(), CancelToken()))
    chunks = await collect(a.stream(req(), CancelToken()))
    assert assemble_tool_calls(chunks)[0]["id"] == "call-2-0"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("{text: hi}", "stop"),
        ("{}", "stop"),
        ("{tool_calls: [{name: t}]}", "tool-calls"),
        ("{text: cut, finish: max-tokens}", "max-tokens"),
        ("{text: no, finish: content-filter}", "content-filter"),
        ("{tool_calls: [{name: t}], finish: stop}", "stop"),
    ],
)
async def test_finish_reasons(reply: str, reason: str) -> None:
    a = adapter(f"responses: [{{reply: {reply}}}]")
    chunks = await collect(a.stream(req(), CancelToken()))
    assert chunks[-1] == FinishChunk(reason=reason)  # type: ignore[arg-type]
    assert sum(isinstance(c, FinishChunk) for c in chunks) == 1


async def test_empty_reply_streams_only_the_finish() -> None:
    a = adapter("responses: [{reply: {}}]")
    assert await collect(a.stream(req(), CancelToken())) == [FinishChunk(reason="stop")]


# --- errors, delays, hangs, cancellation -----------------------------------------------------


async def test_error_after_n_chunks() -> None:
    a = adapter(
        """
        responses:
          - reply:
              text: abcdefgh
              error: {message: overloaded, code: OVERLOADED, status: 529, retryable: true, retry_after: 2.5, after_chunks: 3}
        """,
        chunk_size=2,
    )
    seen: list[StreamChunk] = []
    with pytest.raises(LlmError) as err:
        async with aclosing(a.stream(req(), CancelToken())) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                seen.append(chunk)
    assert seen == [TextDelta(text="ab"), TextDelta(text="cd"), TextDelta(text="ef")]
    e = err.value
    assert (e.message, e.code, e.status, e.retryable, e.retry_after) == ("overloaded", "OVERLOADED", 529, True, 2.5)


async def test_error_defaults_before_any_chunk() -> None:
    a = adapter("responses: [{reply: {text: hi, error: {message: boom}}}]")
    with pytest.raises(LlmError) as err:
        await collect(a.stream(req(), CancelToken()))
    assert err.value.code == "LLM_ERROR" and err.value.status is None and not err.value.retryable


async def test_error_after_more_chunks_than_content_never_finishes() -> None:
    a = adapter("responses: [{reply: {text: hi, error: {message: boom, after_chunks: 99}}}]")
    seen: list[StreamChunk] = []
    with pytest.raises(LlmError):
        async with aclosing(a.stream(req(), CancelToken())) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                seen.append(chunk)
    assert seen == [TextDelta(text="hi")]


async def test_delay_uses_trio_time(autojump_clock: trio.testing.MockClock) -> None:
    a = adapter("responses: [{repeat: true, reply: {text: late, delay_seconds: 30}}]")
    start = trio.current_time()
    assert await text_of(a, req()) == "late"
    assert trio.current_time() - start == pytest.approx(30)
    # A timeout shorter than the delay cancels before any chunk arrives.
    got: list[StreamChunk] = []
    with trio.move_on_after(10) as scope:
        async with aclosing(a.stream(req(), CancelToken())) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                got.append(chunk)
    assert scope.cancelled_caught and got == []


async def test_hang_is_ended_by_a_cancel_scope(autojump_clock: trio.testing.MockClock) -> None:
    a = adapter("responses: [{reply: {text: partial, hang: true}}]")
    got: list[StreamChunk] = []
    with trio.move_on_after(3600) as scope:
        async with aclosing(a.stream(req(), CancelToken())) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                got.append(chunk)
    assert scope.cancelled_caught
    assert got == [TextDelta(text="partial")]  # content streamed, never a finish


async def test_hang_is_ended_by_the_cancel_token(autojump_clock: trio.testing.MockClock) -> None:
    a = adapter("responses: [{reply: {hang: true}}]")
    token = CancelToken()
    outcome: list[BaseException] = []

    async def consume() -> None:
        try:
            await collect(a.stream(req(), token))
        except Cancelled as exc:
            outcome.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(consume)
        await trio.testing.wait_all_tasks_blocked()  # the stream hangs: nothing else can run
        token.cancel("user-abort")
    assert len(outcome) == 1 and outcome[0].reason == "user-abort"  # type: ignore[attr-defined]


async def test_delay_is_cut_short_by_the_cancel_token(autojump_clock: trio.testing.MockClock) -> None:
    a = adapter("responses: [{reply: {text: x, delay_seconds: 100}}]")
    token = CancelToken()
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_cancel_later, token, 2)
        with pytest.raises(Cancelled):
            await collect(a.stream(req(), token))
    assert trio.current_time() - start == pytest.approx(2)


async def _cancel_later(token: CancelToken, seconds: float) -> None:
    await trio.sleep(seconds)
    token.cancel("timeout")


async def test_cancelled_token_stops_yielding_between_chunks() -> None:
    a = adapter("responses: [{reply: {text: abcdefgh}}]", chunk_size=2)
    token = CancelToken()
    got: list[StreamChunk] = []
    with pytest.raises(Cancelled):
        async with aclosing(a.stream(req(), token)) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                got.append(chunk)
                token.cancel("stop")
    assert got == [TextDelta(text="ab")]


async def test_a_pre_cancelled_token_yields_nothing() -> None:
    a = adapter("responses: [{reply: {text: hi}}]")
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        await collect(a.stream(req(), token))


async def test_a_cancel_scope_lands_between_chunks() -> None:
    a = adapter("responses: [{reply: {text: abcdefgh}}]", chunk_size=2)
    got: list[StreamChunk] = []
    with trio.CancelScope() as scope:
        async with aclosing(a.stream(req(), CancelToken())) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                got.append(chunk)
                scope.cancel()
    assert got == [TextDelta(text="ab")]


# --- script validation -------------------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "script.yml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load_error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ScriptError) as err:
        ScriptedAdapter.from_file(path)
    assert err.value.code == "SCRIPT_INVALID"
    assert isinstance(err.value, PluginError)
    message = err.value.message
    assert message.startswith(f"{path}: "), message
    return message


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="ghost.yml: script file not found"):
        ScriptedAdapter.from_file(tmp_path / "ghost.yml")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("responses: [\n  - reply: {}\n", "invalid YAML"),
        ("responses: []\nresponses: []\n", 'duplicate key "responses"'),
        ("responses:\n\t- reply: {}\n", "line 2"),
        ("x: !!python/object:os.system 1\n", "invalid YAML"),
    ],
)
def test_malformed_yaml(tmp_path: Path, text: str, expected: str) -> None:
    assert expected in load_error(tmp_path, text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "expected a mapping with 'responses', got null"),
        ("- a\n", "expected a mapping with 'responses', got a list"),
        ("models: []\n", "required field missing @ $.responses"),
        ("responses: []\nextra: 1\n", "unknown field(s): extra @ $"),
        ("responses: [{reply: {txt: hi}}]", "unknown field(s): txt @ $.responses[0].reply"),
        ("responses: [{reply: {}, match: {modle: m}}]", "unknown field(s): modle @ $.responses[0].match"),
        ("responses: [{match: {}}]", "required field missing @ $.responses[0].reply"),
        ("responses: [{reply: {text: 1}}]", "expected a string, got the number 1 @ $.responses[0].reply.text"),
        ("responses: [{reply: {}, repeat: 'yes'}]", "expected true or false, got the string 'yes' @ $.responses[0].repeat"),
        ("responses: [{reply: {}, match: {depth: '0'}}]", "expected an integer, got the string '0' @ $.responses[0].match.depth"),
        ("responses: [{reply: {}, match: {has_tools: read}}]", "expected a list, got the string 'read' @ $.responses[0].match.has_tools"),
        ("responses: [{reply: {}, match: null}]", "expected a mapping, got null @ $.responses[0].match"),
        ("responses: {a: 1}", "expected a list, got a mapping @ $.responses"),
        ("responses: [{reply: {finish: done}}]", "expected one of stop, tool-calls, max-tokens, content-filter, got the string 'done' @ $.responses[0].reply.finish"),
        ("responses: [{reply: {tool_calls: [{arguments: {}}]}}]", "required field missing @ $.responses[0].reply.tool_calls[0].name"),
        ("responses: [{reply: {tool_calls: [{name: t, arguments: 3}]}}]", "expected a mapping or a string, got the number 3 @ $.responses[0].reply.tool_calls[0].arguments"),
        ("responses: [{reply: {tool_calls: [{name: t, arguments: {x: .nan}}]}}]", "@ $.responses[0].reply.tool_calls[0].arguments"),
        ("responses: [{reply: {tool_calls: [{name: t, arguments: {1: x}}]}}]", "is not a string) @ $.responses[0].reply.tool_calls[0].arguments"),
        ("responses: [{reply: {usage: {input_tokens: x}}}]", "expected an integer, got the string 'x' @ $.responses[0].reply.usage.input_tokens"),
        ("responses: [{reply: {error: {code: X}}}]", "required field missing @ $.responses[0].reply.error.message"),
        ("responses: [{reply: {delay_seconds: soon}}]", "expected a number, got the string 'soon' @ $.responses[0].reply.delay_seconds"),
        ("models: [{name: x}]\nresponses: []", "required field missing @ $.models[0].id"),
        ("models: [{id: a}, {id: a}]\nresponses: []", "duplicate model id 'a' @ $.models[1].id"),
        ("models: [{id: a, default_effort: max}]\nresponses: []", "default_effort must be one of reasoning_efforts @ $.models[0].default_effort"),
        ("responses: [{reply: {}, match: {no_tools: true, has_tools: [a]}}]", "no_tools: true contradicts has_tools @ $.responses[0].match"),
        ("responses: [{reply: {delay_seconds: -1}}]", "delay_seconds must be >= 0 @ $.responses[0].reply.delay_seconds"),
        ("responses: [{reply: {hang: true, error: {message: m}}}]", "hang cannot be combined with error @ $.responses[0].reply"),
        ("responses: [{reply: {error: {message: m, after_chunks: -2}}}]", "after_chunks must be >= 0 @ $.responses[0].reply.error.after_chunks"),
        ("responses: [{reply: {tool_calls: [{name: ''}]}}]", "tool name must not be empty @ $.responses[0].reply.tool_calls[0].name"),
        ("responses: [{reply: {tool_calls: [{name: a, id: x}, {name: b, id: x}]}}]", "tool call ids must be unique @ $.responses[0].reply.tool_calls"),
    ],
)
def test_invalid_scripts_name_file_and_field(tmp_path: Path, text: str, expected: str) -> None:
    message = load_error(tmp_path, text)
    assert expected in message, message


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    message = load_error(tmp_path, "responses: [{reply: {text: 1}}, {reply: {reasoning: 2}}]")
    assert "$.responses[0].reply.text" in message and "$.responses[1].reply.reasoning" in message


# --- the plugin ----------------------------------------------------------------------------------


def test_config_schema_defaults_and_validation() -> None:
    conv = make_converter()
    config = structure(conv, {"script": "x.yml"}, ScriptedLlmConfig, where="config")
    assert config == ScriptedLlmConfig(script="x.yml", provider="scripted", chunk_size=16)
    assert attrs.has(ScriptedLlmPlugin.config_schema)
    for bad in ({"script": "x", "chunk_size": 0}, {"script": "x", "provider": "a/b"}, {}, {"script": "x", "extra": 1}):
        with pytest.raises(DshError):
            structure(conv, bad, ScriptedLlmConfig, where="config")


def test_plugin_resolves_relative_script_against_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "responses: [{reply: {text: hi}}]", name="rel.yml")
    monkeypatch.chdir(tmp_path)
    plugin = ScriptedLlmPlugin(ScriptedLlmConfig(script="rel.yml", provider="mock", chunk_size=4))
    assert plugin.adapter.provider == "mock"
    assert plugin.adapter.script.source == str(tmp_path / "rel.yml")


def test_plugin_construction_fails_on_a_bad_script(tmp_path: Path) -> None:
    path = write(tmp_path, "responses: [{reply: {text: 1}}]")
    with pytest.raises(ScriptError, match=r"\$\.responses\[0\]\.reply\.text"):
        ScriptedLlmPlugin(ScriptedLlmConfig(script=str(path)))


async def test_plugin_registers_through_pluggy_and_plays_the_example() -> None:
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs.llm)
    plugin = ScriptedLlmPlugin(ScriptedLlmConfig(script=str(EXAMPLE)))
    pm.register(plugin)
    try:
        service = LlmService()
        pm.hook.dsh_register_llm_adapters(register=service.register_adapter)
        assert service.providers() == ["scripted"]
        provider, model = service.resolve("scripted/hello-model")

        def request(*messages: Message) -> LlmRequest:
            return LlmRequest(
                provider=provider,
                model=model,
                system="You are helpful.",
                messages=messages,
                tools=(tool("read"),),
                metadata={"delegation_depth": 0},
            )

        user = create_user_message("Summarize the README")
        first = await collect(service.stream(request(user), CancelToken()))
        calls = assemble_tool_calls(first)
        assert calls[0]["name"] == "read" and json.loads(calls[0]["arguments"]) == {"path": "README.md"}
        assert first[-1] == FinishChunk(reason="tool-calls")
        second = await collect(service.stream(request(user), CancelToken()))
        assert "README.md" in "".join(c.text for c in second if isinstance(c, TextDelta))
        assert second[-1] == FinishChunk(reason="stop")
        assert plugin.adapter.unused() == []
    finally:
        pm.unregister(plugin)
