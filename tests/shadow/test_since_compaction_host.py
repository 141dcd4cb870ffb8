"""``capture: since-compaction`` against the real host: after ``/compact`` the
reviewer is shown the host's own summary and what followed the boundary —
no hand-written compaction events."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import attrs
import trio

from hookspecs import hookimpl
from hookspecs.values import (
    CancelToken,
    EventTypes,
    FinishChunk,
    LlmRequest,
    ModelInfo,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    create_user_message,
)

from .helpers import new_root, settle, shadow_host, write_definition

SEQ = re.compile(r"\[seq=(\d+) ")


@attrs.define
class Model:
    """Root: answers; summaries: a fixed text; reviewer: silent. Records reviewer prompts."""

    prompts: list[str] = attrs.field(factory=list)
    summaries: int = 0

    @property
    def provider(self) -> str:
        return "fake"

    def models(self) -> tuple[ModelInfo, ...]:
        return (ModelInfo(id="m", context_window=100_000),)

    async def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]:
        await trio.lowlevel.checkpoint()
        if any(tool.name == "structured_output" for tool in request.tools):
            self.prompts.append(request.messages[0].text)
            yield ToolCallDelta(index=0, id=f"c{len(self.prompts)}", name="structured_output")
            yield ToolCallDelta(index=0, arguments='{"status": "silent", "content": ""}')
            yield FinishChunk(reason="tool-calls")
            return
        if request.metadata.get("purpose") == "compaction":
            self.summaries += 1
            text = "HOST SUMMARY: three questions about the release were answered."
            yield TextDelta(text=text if self.summaries == 1 else f"HOST SUMMARY {self.summaries}: the release and more.")
        elif request.messages[-1].role == "user":
            yield ToolCallDelta(index=0, id=f"r{len(request.messages)}", name="read")
            yield ToolCallDelta(index=0, arguments='{"path": "notes.txt"}')
            yield FinishChunk(reason="tool-calls")
            return
        else:
            yield TextDelta(text="the notes say staging")
        yield FinishChunk(reason="stop")


class ModelPlugin:
    def __init__(self, model: Model) -> None:
        self.model = model

    @hookimpl
    def dsh_register_llm_adapters(self, register: Any) -> None:
        register(self.model)


async def test_since_compaction_shows_the_host_summary_and_the_rest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, extra="capture: since-compaction\ncontext: minimal\n")
    model = Model()
    async with shadow_host(tmp_path, "responses: []\n", home=home, plugins=[("model", ModelPlugin(model))]) as (host, _, _):
        root = await new_root(host, "m", provider="fake")
        for number in range(3):
            root.followup(create_user_message(f"old question {number}"))
            await settle(host, root)
        result = await host.commands.execute(root, "/compact")
        assert result is not None and result.kind == "success", result
        root.followup(create_user_message("new question after the compaction"))
        await settle(host, root)

        events = root.session.events
        boundary = next(e.seq for e in events if e.type == EventTypes.COMPACTION_END)
        summary = next(e.seq for e in events if e.type == EventTypes.COMPACTION_SUMMARY)
        before, after = model.prompts[2], model.prompts[-1]
        assert "old question 0" in before and "compaction summary" not in before
        assert f"[seq={summary} compaction summary]\nHOST SUMMARY:" in after
        assert "old question" not in after and "new question after the compaction" in after
        shown = {int(seq) for seq in SEQ.findall(after)}
        assert {seq for seq in shown if seq < boundary} == {summary}


async def test_after_two_compactions_only_the_newest_summary_is_shown(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, extra="capture: since-compaction\ncontext: minimal\n")
    model = Model()
    async with shadow_host(tmp_path, "responses: []\n", home=home, plugins=[("model", ModelPlugin(model))]) as (host, _, _):
        root = await new_root(host, "m", provider="fake")
        for round_ in range(2):
            for number in range(3):
                root.followup(create_user_message(f"round {round_} question {number}"))
                await settle(host, root)
            result = await host.commands.execute(root, "/compact")
            assert result is not None and result.kind == "success", result
        root.followup(create_user_message("the newest question"))
        await settle(host, root)

        events = root.session.events
        summaries = [e.seq for e in events if e.type == EventTypes.COMPACTION_SUMMARY]
        assert len(summaries) == 2
        last = model.prompts[-1]
        assert f"[seq={summaries[1]} compaction summary]\nHOST SUMMARY 2:" in last
        assert "HOST SUMMARY:" not in last and f"[seq={summaries[0]} " not in last
        assert "the newest question" in last and "round " not in last
