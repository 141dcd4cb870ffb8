"""Host compaction with the real loop: pressure and overflow triggers, the
durable trace, the compacted request, /compact from idle, failures, resume and
crash repair. The model is a small programmable adapter that counts tokens
like a real provider (fewer than the host's conservative estimate)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio

from harness.compaction.estimate import RequestEstimator, request_tokens, text_tokens
from harness.compaction.policy import choose_cut
from harness.llm.scripted import AdapterPlugin
from harness.profiles import ProfileRow
from harness.sessions.history import SurfaceFold, derive_messages, derive_surface
from harness.sessions.repair import closing_events
from hookspecs import hookimpl
from hookspecs.errors import LlmError, PluginError
from hookspecs.values import (
    AgentOptions,
    CancelToken,
    EventTypes,
    FinishChunk,
    LlmRequest,
    ModelInfo,
    SessionEvent,
    StreamChunk,
    TextDelta,
    create_user_message,
)
from hookspecs.values.compaction import CompactionResult

from .helpers import poll_until, say, scripted_host

WINDOW = 4_000
ROUTE = AgentOptions(provider="fake", model="m")
EMPTY_SCRIPT = "responses: []\n"


def provider_tokens(request: LlmRequest) -> int:
    """What the fake provider counts: four characters a token, like a real tokenizer."""
    chars = len(request.system) + sum(len(m.text) + 16 for m in request.messages)
    chars += sum(len(t.name) + len(t.description) + len(json.dumps(t.parameters)) for t in request.tools)
    return chars // 4 + (request.max_tokens or 0)


@attrs.define
class FnAdapter:
    """An LLM adapter answering with ``answer(request)``; it rejects requests over
    ``limit`` provider tokens with ``CONTEXT_OVERFLOW``, like a real server."""

    answer: Callable[[LlmRequest], str]
    limit: int = WINDOW
    window: int = WINDOW
    requests: list[LlmRequest] = attrs.field(factory=list)
    gate: trio.Event | None = None  # summaries wait for it when set
    fail_summaries: bool = False

    @property
    def provider(self) -> str:
        return "fake"

    def models(self) -> tuple[ModelInfo, ...]:
        return (ModelInfo(id="m", context_window=self.window),)

    async def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]:
        self.requests.append(request)
        summarising = request.metadata.get("purpose") == "compaction"
        if summarising and self.gate is not None:
            await self.gate.wait()
        if summarising and self.fail_summaries:
            raise LlmError("the model is overloaded", code="OVERLOADED", status=529)
        if provider_tokens(request) > self.limit:
            raise LlmError(
                f"This model's maximum context length is {self.limit} tokens", code="CONTEXT_OVERFLOW", status=400
            )
        await trio.lowlevel.checkpoint()
        yield TextDelta(text=self.answer(request))
        yield FinishChunk(reason="stop")


def answer(request: LlmRequest) -> str:
    if request.metadata.get("purpose") == "compaction":
        return "SUMMARY: the user asked about topics; the agent answered each."
    return "ok " + "x" * 1200  # every answer is long: the history grows fast


def compaction_rows(**config: Any) -> list[ProfileRow]:
    return [ProfileRow(id="compaction", name="compaction", config=config, layer="test")]


async def open_fake(tmp_path: Path, adapter: FnAdapter, *, rows: list[ProfileRow] | None = None, plugins: tuple[Any, ...] = ()) -> Any:
    return scripted_host(tmp_path, EMPTY_SCRIPT, plugins=[("fake-adapter", AdapterPlugin(adapter)), *plugins], rows=rows or [])


async def root(host: Any) -> Any:
    from hookspecs.protocols import CreateAgentOptions

    handle = await host.agents.create(CreateAgentOptions(agent_options=ROUTE))
    return handle.agent


def of_type(agent: Any, kind: str) -> list[SessionEvent]:
    return [e for e in agent.session.events if e.type == kind]


def turn_ends(agent: Any) -> list[str]:
    return [e.data["reason"]["kind"] for e in of_type(agent, EventTypes.TURN_END)]


# --- the estimate and the cut ------------------------------------------------------------


def test_estimate_is_above_a_real_tokenizer_for_english_and_cjk() -> None:
    english = "The quick brown fox jumps over the lazy dog. " * 20
    assert text_tokens(english) >= len(english) / 4
    cjk = "压缩上下文窗口" * 30
    assert text_tokens(cjk) >= len(cjk)  # about one token a character in real tokenizers


def test_the_incremental_estimate_equals_a_fresh_one() -> None:
    from hookspecs.values import ToolSchema

    tools = (ToolSchema(name="read", description="Read a file", parameters={"type": "object"}),)
    estimator = RequestEstimator()
    history = [create_user_message(f"message {n} " * n) for n in range(5)]
    for grown in range(1, 6):
        request = LlmRequest(provider="p", model="m", system="sys", messages=tuple(history[:grown]), tools=tools, max_tokens=7)
        assert estimator.tokens("s", request) == request_tokens(request)
    replaced = LlmRequest(provider="p", model="m", system="sys", messages=(create_user_message("summary"), history[4]), tools=tools)
    assert estimator.tokens("s", replaced) == request_tokens(replaced)  # a compaction replaced the prefix


def test_the_cut_never_separates_a_call_from_its_result() -> None:
    from hookspecs.values import Message, TextBlock, ToolCallBlock, ToolResultBlock

    def msg(role: str, *blocks: Any) -> Message:
        return Message(id=f"m{role}{len(blocks)}", role=role, content=blocks, source={"kind": "x"})

    call = msg("assistant", ToolCallBlock(id="c1", name="read", arguments="{}"))
    result = msg("tool", ToolResultBlock(tool_call_id="c1", content=(TextBlock(text="r"),)))
    messages = [msg("user", TextBlock(text="q")), call, result, msg("assistant", TextBlock(text="a"))]
    # keep budget 0: shadow as much as possible, but never between the call and its result
    assert choose_cut(messages, [10, 10, 10, 10], 0) == 4
    assert choose_cut(messages, [10, 10, 10, 10], 15) == 3
    assert choose_cut(messages, [10, 10, 10, 10], 25) == 3  # 2 would cut between the call and its result
    assert choose_cut(messages, [10, 10, 10, 10], 35) == 1


# --- automatic compaction ---------------------------------------------------------------


async def test_pressure_compacts_before_the_request_and_writes_the_trace(tmp_path: Path) -> None:
    adapter = FnAdapter(answer)
    async with await open_fake(tmp_path, adapter) as (host, _):
        agent = await root(host)
        for number in range(8):
            await say(agent, f"question {number}: tell me about topic {number}")
        assert turn_ends(agent) == ["completed"] * 8
        starts = of_type(agent, EventTypes.COMPACTION_START)
        assert starts, "the history outgrew the window but nothing compacted"
        first = starts[0].data
        assert first["trigger"] == "pressure" and isinstance(first["turn"], int)
        cid = first["compaction_id"]
        types = [e.type for e in agent.session.events if e.seq > starts[0].seq][:3]
        assert types == [EventTypes.COMPACTION_SUMMARY, EventTypes.USER_MESSAGE, EventTypes.COMPACTION_END]
        summary = of_type(agent, EventTypes.COMPACTION_SUMMARY)[0].data
        assert summary["compaction_id"] == cid and summary["summary"].startswith("SUMMARY:")
        assert (summary["provider"], summary["model"]) == ("fake", "m")
        assert summary["shadowed_range"] == [min(summary["shadowed_seqs"]), max(summary["shadowed_seqs"])]
        assert summary["shadowed_token_count"] > 0
        checkpoint = next(e for e in of_type(agent, EventTypes.USER_MESSAGE) if "surface_op" in e.data)
        assert checkpoint.data["message"]["source"] == {"kind": "plugin", "plugin": "compact", "compaction_id": cid}
        assert checkpoint.data["source_event_seqs"] == summary["shadowed_seqs"]
        assert checkpoint.data["surface_op"]["op"] == "replace"
        end = of_type(agent, EventTypes.COMPACTION_END)[0].data
        assert end == {"compaction_id": cid}
        # every request the model got fit the provider's window: no overflow happened
        assert all(provider_tokens(r) <= adapter.limit for r in adapter.requests)
        # the summarising request is bounded too and offers no tools
        summarising = [r for r in adapter.requests if r.metadata.get("purpose") == "compaction"]
        assert summarising and all(not r.tools for r in summarising)
        # the next root request carried the summary instead of the shadowed events
        after = next(
            r for r in adapter.requests[adapter.requests.index(summarising[0]) + 1 :]
            if r.metadata.get("purpose") != "compaction"
        )
        assert "SUMMARY:" in after.messages[0].text
        assert "question 0" not in " ".join(m.text for m in after.messages)
        # the live history is the one a resume derives
        assert agent.history == derive_messages(agent.session.events)
        # and folding the log in pieces gives the same as folding it at once
        events = list(agent.session.events)
        fold = SurfaceFold()
        for cut in range(0, len(events), 7):
            fold.feed(events[cut : cut + 7])
        assert (fold.messages, fold.seqs) == derive_surface(events) and fold.consumed == len(events)


async def test_an_overflow_compacts_and_retries_once(tmp_path: Path) -> None:
    # the threshold never fires (0.95 of a big window) but the provider's real limit is small
    adapter = FnAdapter(answer, limit=2_500, window=100_000)
    async with await open_fake(tmp_path, adapter, rows=compaction_rows(threshold=0.95)) as (host, _):
        agent = await root(host)
        for number in range(8):
            await say(agent, f"question {number}")
        assert turn_ends(agent) == ["completed"] * 8
        starts = [e.data["trigger"] for e in of_type(agent, EventTypes.COMPACTION_START)]
        assert starts and set(starts) == {"context-overflow"}
        rejected = [r for r in adapter.requests if provider_tokens(r) > adapter.limit]
        assert len(rejected) == len(starts)  # one rejection per compaction, then the retry fit


async def test_a_failed_summary_leaves_the_log_consistent_and_the_turn_runs(tmp_path: Path) -> None:
    adapter = FnAdapter(answer, limit=10_000, fail_summaries=True)
    ended: list[CompactionResult] = []

    class Observer:
        @hookimpl
        def dsh_compaction_ended(self, agent: Any, result: CompactionResult) -> None:
            ended.append(result)

    async with await open_fake(tmp_path, adapter, plugins=(("observer", Observer()),)) as (host, _):
        agent = await root(host)
        for number in range(6):
            await say(agent, f"question {number}")
        assert turn_ends(agent) == ["completed"] * 6
        ends = of_type(agent, EventTypes.COMPACTION_END)
        assert ends and all(e.data["error"]["code"] == "summary" for e in ends)
        assert "overloaded" in ends[0].data["error"]["message"]
        assert not [e for e in of_type(agent, EventTypes.USER_MESSAGE) if "surface_op" in e.data]
        assert agent.history == derive_messages(agent.session.events)
        assert len(ended) == len(ends) and not ended[0].compacted and ended[0].error is not None
        assert ended[0].error["code"] == "summary"


async def test_disabled_compaction_ends_in_the_providers_overflow_error(tmp_path: Path) -> None:
    adapter = FnAdapter(answer)
    async with await open_fake(tmp_path, adapter, rows=compaction_rows(enabled=False)) as (host, _):
        agent = await root(host)
        for number in range(10):
            await say(agent, f"question {number}")
        assert not of_type(agent, EventTypes.COMPACTION_START)
        last = of_type(agent, EventTypes.TURN_END)[-1].data["reason"]
        assert last["kind"] == "error" and last["error"]["code"] == "CONTEXT_OVERFLOW"


# --- manual compaction -------------------------------------------------------------------


async def test_compact_command_from_idle(tmp_path: Path) -> None:
    adapter = FnAdapter(answer, limit=100_000, window=100_000)
    async with await open_fake(tmp_path, adapter) as (host, _):
        agent = await root(host)
        for number in range(4):
            await say(agent, f"question {number}")
        result = await host.commands.execute(agent, "/compact")
        assert result is not None and result.kind == "success", result
        assert result.text.startswith("compacted ")
        start = of_type(agent, EventTypes.COMPACTION_START)[0].data
        run = of_type(agent, EventTypes.COMMAND_RUN)[0].data
        assert start["turn"] is None and start["trigger"] == "manual"
        assert start["source_command_id"] == run["command_id"]
        checkpoint = next(e for e in of_type(agent, EventTypes.USER_MESSAGE) if "surface_op" in e.data)
        assert checkpoint.data["message"]["source"]["source_command_id"] == run["command_id"]
        assert agent.history[0].source["plugin"] == "compact"
        await say(agent, "and now?")
        assert "SUMMARY:" in adapter.requests[-1].messages[0].text
        # a second /compact right away has nothing new to shadow but the kept tail
        again = await host.commands.execute(agent, "/compact")
        assert again is not None and again.kind == "success"


async def test_compact_while_running_is_busy_and_input_waits_for_maintenance(tmp_path: Path) -> None:
    adapter = FnAdapter(answer, limit=100_000, window=100_000)
    async with await open_fake(tmp_path, adapter) as (host, _):
        agent = await root(host)
        for number in range(3):
            await say(agent, f"question {number}")
        adapter.gate = trio.Event()
        results: list[Any] = []

        async def compact() -> None:
            results.append(await host.commands.execute(agent, "/compact"))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(compact)
            await poll_until(
                lambda: any(r.metadata.get("purpose") == "compaction" for r in adapter.requests),
                what="the compaction request",
                interval=0,
            )
            turns_before = len(of_type(agent, EventTypes.TURN_START))
            agent.followup(create_user_message("a line typed during /compact"))
            for _ in range(50):
                await trio.lowlevel.checkpoint()
            assert agent.status == "idle" and len(of_type(agent, EventTypes.TURN_START)) == turns_before
            busy = await host.commands.execute(agent, "/compact")
            assert busy is not None and busy.kind == "error" and "(busy)" in busy.text and "\n" not in busy.text
            adapter.gate.set()
        await agent.when_idle()
        assert results[0].kind == "success"
        # the waiting line ran after the compaction settled, against the compacted history
        end_seq = of_type(agent, EventTypes.COMPACTION_END)[0].seq
        assert of_type(agent, EventTypes.TURN_START)[-1].seq > end_seq
        assert "SUMMARY:" in adapter.requests[-1].messages[0].text


async def test_cancelled_compact_records_the_error(tmp_path: Path) -> None:
    adapter = FnAdapter(answer, limit=100_000, window=100_000)
    async with await open_fake(tmp_path, adapter) as (host, _):
        agent = await root(host)
        for number in range(3):
            await say(agent, f"question {number}")
        adapter.gate = trio.Event()
        token = CancelToken()
        outcome: list[Any] = []

        async def compact() -> None:
            outcome.append(await host.commands.execute(agent, "/compact", cancel=token))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(compact)
            await poll_until(
                lambda: any(r.metadata.get("purpose") == "compaction" for r in adapter.requests),
                what="the compaction request",
                interval=0,
            )
            token.cancel("user")
        assert outcome[0].kind == "error" and "(cancelled)" in outcome[0].text
        end = of_type(agent, EventTypes.COMPACTION_END)[0].data
        assert end["error"]["code"] == "cancelled"
        await say(agent, "still works?")
        assert turn_ends(agent)[-1] == "completed"


# --- resume and repair -------------------------------------------------------------------


async def test_resume_carries_the_compacted_view(tmp_path: Path) -> None:
    adapter = FnAdapter(answer)
    async with await open_fake(tmp_path, adapter) as (host, _):
        agent = await root(host)
        for number in range(8):
            await say(agent, f"question {number}")
        assert of_type(agent, EventTypes.COMPACTION_END)
        session_id, live = agent.id, list(agent.history)
    adapter2 = FnAdapter(answer)
    async with await open_fake(tmp_path, adapter2) as (host, _):
        handle = await host.agents.resume(session_id, agent_options=ROUTE)
        resumed = handle.agent
        assert resumed.history == live
        await say(resumed, "after the restart")
        assert turn_ends(resumed)[-1] == "completed"
        assert "SUMMARY:" in adapter2.requests[0].messages[0].text


def _event(seq: int, kind: str, data: dict[str, Any]) -> SessionEvent:
    return SessionEvent(type=kind, seq=seq, time=0.0, data=data)


def test_repair_closes_a_compaction_a_crash_left_open() -> None:
    events = [
        _event(0, EventTypes.COMMAND_RUN, {"command_id": "k", "name": "compact", "source": "user"}),
        _event(1, EventTypes.COMPACTION_START, {"compaction_id": "c1", "turn": None, "trigger": "manual"}),
    ]
    closers = closing_events(events)
    assert closers == [
        (EventTypes.COMPACTION_END, {"compaction_id": "c1", "error": {"code": "INTERRUPTED", "message": closers[0][1]["error"]["message"]}})
    ]
    # once the checkpoint (the commit point) is written, the compaction counts as done
    checkpoint = {
        "message": {"id": "x", "role": "user", "content": [{"type": "text", "text": "s"}],
                    "source": {"kind": "plugin", "plugin": "compact", "compaction_id": "c1"}},
        "surface_op": {"op": "replace", "start": 0, "end": 0},
        "source_event_seqs": [],
    }
    events.append(_event(2, EventTypes.USER_MESSAGE, checkpoint))
    assert closing_events(events) == [(EventTypes.COMPACTION_END, {"compaction_id": "c1", "repaired": True})]
    events.append(_event(3, EventTypes.COMPACTION_END, {"compaction_id": "c1"}))
    assert closing_events(events) == []


async def test_a_crash_mid_compaction_is_repaired_on_resume(tmp_path: Path) -> None:
    adapter = FnAdapter(answer, limit=100_000, window=100_000)
    async with await open_fake(tmp_path, adapter) as (host, _):
        agent = await root(host)
        await say(agent, "question")
        agent.session.append(EventTypes.COMPACTION_START, {"compaction_id": "lost", "turn": None, "trigger": "manual"})
        session_id = agent.id
    async with await open_fake(tmp_path, FnAdapter(answer, limit=100_000, window=100_000)) as (host, _):
        resumed = (await host.agents.resume(session_id, agent_options=ROUTE)).agent
        end = of_type(resumed, EventTypes.COMPACTION_END)[-1].data
        assert end["compaction_id"] == "lost" and end["error"]["code"] == "INTERRUPTED"
        await say(resumed, "go on")
        assert turn_ends(resumed)[-1] == "completed"


# --- engines from plugins ----------------------------------------------------------------


class RecordingEngine:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def compact_if_needed(self, agent: Any, trigger: Any, cancel: Any, *, request: Any = None) -> CompactionResult:
        self.calls.append(trigger)
        return CompactionResult(compacted=False, trigger=trigger, reason="recording only")

    async def compact_now(self, agent: Any, cancel: Any, *, source_command_id: Any = None) -> CompactionResult:
        self.calls.append("manual")
        return CompactionResult(compacted=False, trigger="manual", reason="recording only")


class EnginePlugin:
    def __init__(self, engine: RecordingEngine) -> None:
        self.engine = engine

    @hookimpl
    def dsh_register_compaction_engine(self, register: Any) -> None:
        register(self.engine)


async def test_a_plugin_engine_replaces_the_builtin(tmp_path: Path) -> None:
    engine = RecordingEngine()
    adapter = FnAdapter(answer, limit=100_000, window=100_000)
    async with await open_fake(tmp_path, adapter, plugins=(("engine", EnginePlugin(engine)),)) as (host, _):
        agent = await root(host)
        await say(agent, "hi")
        result = await host.commands.execute(agent, "/compact")
        assert result is not None and result.text == "nothing was compacted: recording only"
        assert engine.calls == ["pressure", "manual"]
        assert host.compaction.engine is engine


async def test_two_plugin_engines_fail_the_start(tmp_path: Path) -> None:
    plugins = (("one", EnginePlugin(RecordingEngine())), ("two", EnginePlugin(RecordingEngine())))
    with pytest.raises(PluginError, match="dsh_register_compaction_engine"):
        async with await open_fake(tmp_path, FnAdapter(answer), plugins=plugins):
            pass


# --- settings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "field"),
    [({"threshold": "high"}, "threshold"), ({"threshold": 0.99}, "threshold"), ({"keep_recent": True}, "keep_recent"),
     ({"summary_max_tokens": 10}, "summary_max_tokens"), ({"enabled": "yes"}, "enabled")],
)
async def test_bad_compaction_settings_fail_the_start_naming_the_field(
    tmp_path: Path, config: dict[str, Any], field: str
) -> None:
    from hookspecs.errors import DshError

    with pytest.raises(DshError) as caught:
        async with await open_fake(tmp_path, FnAdapter(answer), rows=compaction_rows(**config)):
            pass
    assert field in str(caught.value) and "\n" not in str(caught.value)


async def test_integer_shares_are_accepted(tmp_path: Path) -> None:
    async with await open_fake(tmp_path, FnAdapter(answer), rows=compaction_rows(keep_recent=0, threshold=0.5)) as (host, _):
        assert host.compaction_settings().keep_recent == 0
