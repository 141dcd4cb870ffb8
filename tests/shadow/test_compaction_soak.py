"""Soak: a long root session over real loopback HTTP with a small window.

An OpenAI-compatible server on loopback answers like a real model: it counts a
request's tokens (about four characters each), rejects one over its 8k window
with a context-length error, calls a tool on every new user message, answers
after the result, writes summaries when asked, and reviews as a Shadow that
sometimes cites a seq it was never shown. The root runs ``TURNS`` tool turns
with Shadow Mind at probability 1 and ``capture: since-compaction``, restarting
the host half way. The default suite runs enough turns for several compactions
on each side of the restart; ``bench/compaction_soak.py`` runs the long form.

Checked: no request overflowed (root, summaries, reviewers), the host compacted
automatically and every compaction succeeded, every admitted review settled
exactly once, relays carry only refs their reviewer was shown, each reviewer
prompt starts at the latest compaction boundary (plus summaries), and the
resumed session has the same history it had before the restart.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.host import open_host
from harness.profiles import ProfileRow
from harness.sessions.history import derive_messages
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, EventTypes, create_user_message
from shadow_mind_plugin.plugin import runtime_for

from ..harness.openai import shapes
from ..harness.openai.server import Reply, ScriptedServer
from .helpers import settle, shadow_rows, write_definition

#: 60 turns compact about five times; bench/compaction_soak.py raises it (200 and more)
TURNS = int(os.environ.get("SHADOW_SOAK_TURNS", "60"))
WINDOW = 8_192
NOTES = ("The deploy target is staging. " * 50).strip()  # ~1.5k characters per tool result
ANSWER = "I read notes.txt: the deploy target is staging, so the release goes there. " * 8
SEQ = re.compile(r"\[seq=(\d+) ")
LABEL = re.compile(r"review-(\d+)")


def server_tokens(body: dict[str, Any], raw: bytes) -> int:
    """What the server bills: four bytes of request JSON a token, plus the output reserve."""
    return len(raw) // 4 + int(body.get("max_tokens") or body.get("max_completion_tokens") or 0)


class ModelServer(ScriptedServer):
    """Answers each request from its content (see the module docs)."""

    def __init__(self) -> None:
        super().__init__()
        self.rejected: list[tuple[str, int]] = []  # (kind, tokens)
        self.kinds: Counter[str] = Counter()
        self.reviews: dict[str, tuple[int, frozenset[int]]] = {}  # prompt -> (label, rendered seqs)
        self.prompts: list[frozenset[int]] = []  # rendered seqs of every reviewer prompt
        self.corrections = 0  # reviewer attempts after the contract refused an unseen ref

    def _take(self) -> Reply:
        received = self.requests[-1]
        body = received.json()
        messages = body["messages"]
        tools = [tool["function"]["name"] for tool in body.get("tools", [])]
        system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
        kind = "review" if "structured_output" in tools else "summary" if "working memory" in system else "root"
        self.kinds[kind] += 1
        tokens = server_tokens(body, received.body)
        if tokens > WINDOW:
            self.rejected.append((kind, tokens))
            message = f"This model's maximum context length is {WINDOW} tokens. However, you requested {tokens} tokens."
            return Reply.error(400, {"error": {"message": message, "type": "invalid_request_error", "code": "context_length_exceeded"}})
        if kind == "summary":
            return Reply.sse(shapes.text_stream(["The user runs release tasks; ", "each time the agent read notes.txt: target is staging."]))
        if kind == "review":
            return self._review(messages)
        last = messages[-1]
        if last["role"] == "tool":
            return Reply.sse(shapes.text_stream([ANSWER[:200], ANSWER[200:]]))
        call_id = f"call_{len(self.requests)}"
        return Reply.sse(_tool_call(call_id, "read", '{"path": "notes.txt"}'))

    def _review(self, messages: list[dict[str, Any]]) -> Reply:
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        prompt = prompt if isinstance(prompt, str) else json.dumps(prompt)
        retry = messages[-1]["role"] == "tool"
        if prompt not in self.reviews:
            rendered = frozenset(int(seq) for seq in SEQ.findall(prompt))
            self.reviews[prompt] = (len(self.reviews), rendered)
            self.prompts.append(rendered)
        label, rendered = self.reviews[prompt]
        self.corrections += retry
        if label % 6 != 5 or not rendered:
            arguments: dict[str, Any] = {"status": "silent", "content": ""}
        else:
            refs = [max(rendered)]
            unseen = next(seq for seq in range(1, max(rendered) + 2) if seq not in rendered)
            if not retry and unseen < refs[0]:
                refs.insert(0, unseen)  # a seq it was never shown: the contract must refuse it
            arguments = {
                "status": "report",
                "verdict": "challenge",
                "severity": 0.6,
                "refs": refs,
                "content": f"review-{label}: confirm the target against notes.txt before releasing.",
            }
        return Reply.sse(_tool_call(f"call_review_{len(self.requests)}", "structured_output", json.dumps(arguments)))


def _tool_call(call_id: str, name: str, arguments: str) -> list[bytes]:
    half = len(arguments) // 2
    return shapes.events(
        [
            shapes.chunk(role="assistant", content=""),
            shapes.chunk(tool_calls=[shapes.call(0, id=call_id, name=name, arguments=arguments[:half])]),
            shapes.chunk(tool_calls=[shapes.call(0, arguments=arguments[half:])]),
            shapes.chunk(content="", finish="tool_calls", usage=shapes.usage(100, 20)),
        ]
    )


def soak_rows(base_url: str) -> list[ProfileRow]:
    model = {
        "provider": "deepseek",
        "base_url": base_url,
        "retry_base_seconds": 0,
        "request_timeout_seconds": 30,
        "models": [{"id": "deepseek-chat", "context_window": WINDOW}],
    }
    return [
        ProfileRow(id="deepseek", name="openai-compatible", config=model, layer="test"),
        ProfileRow(id="agent-loop", name="agent-loop", config={"model": "deepseek/deepseek-chat"}, layer="test"),
        *shadow_rows({"resultBatchWindowMs": 0}),
    ]


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("no_proxy")
async def test_a_long_session_compacts_reviews_and_resumes(tmp_path: Path, nursery: trio.Nursery) -> None:
    server = ModelServer()
    await server.start(nursery)
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text(NOTES + "\n")
    write_definition(home, name="Release Shadow", extra="capture: since-compaction\ncontext: minimal\n")
    admitted: dict[str, Any] = {}
    settled: Counter[str] = Counter()
    root_id: str | None = None
    history_at_close: list[Any] = []
    events: list[Any] = []
    for segment, turns in enumerate((TURNS // 2, TURNS - TURNS // 2)):
        async with open_host(
            rows=soak_rows(server.base_url), dsh_home=home, cwd=work, headless=True, environ={},
            logger=logging.getLogger("soak"),
        ) as host:
            runtime = runtime_for(host)
            assert runtime is not None
            runtime.governance.admit_listeners.append(lambda entry: admitted.__setitem__(entry.view.run_id, entry))
            runtime.governance.settle_listeners.append(lambda entry: settled.update([entry.view.run_id]))
            if root_id is None:
                root = (await host.agents.create(CreateAgentOptions(agent_options=AgentOptions()))).agent
                root_id = root.id
            else:
                root = (await host.agents.resume(root_id)).agent
                # the session resumes with the compacted view it had before the restart
                assert root.history == history_at_close
            for number in range(turns):
                root.followup(create_user_message(f"task {segment}-{number}: release the build"))
                await settle(host, root)
            events = list(root.session.events)
            history_at_close = list(root.history)
            assert history_at_close == derive_messages(events)

    # no request overflowed the window: the root's, the summaries' and the reviewers'
    assert [kind for kind, _ in server.rejected if kind != "review"] == []
    # every reviewer prompt within its window -- bounding the reviewer prompt by the
    # reviewer's window is issue 9's "reviewer prompts that fit" (another branch)
    assert [kind for kind, _ in server.rejected if kind == "review"] == []
    ends = [e.data["reason"]["kind"] for e in events if e.type == EventTypes.TURN_END]
    assert len(ends) >= TURNS and set(ends) == {"completed"}, Counter(ends)

    compactions = [e for e in events if e.type == EventTypes.COMPACTION_END]
    assert len(compactions) >= TURNS // 20, "the window is small: the host must compact regularly"
    assert all("error" not in e.data for e in compactions)
    # only the root compacts: a reviewer's prompt is never summarised away
    assert server.kinds["summary"] == len(compactions)
    starts = [e.data for e in events if e.type == EventTypes.COMPACTION_START]
    assert {s["trigger"] for s in starts} == {"pressure"} and all(isinstance(s["turn"], int) for s in starts)

    # every admitted review settled exactly once (both hosts)
    assert len(admitted) >= TURNS
    assert {run_id: settled[run_id] for run_id in admitted if settled[run_id] != 1} == {}

    # relays carry refs only to seqs their reviewer was shown
    by_label = {label: rendered for label, rendered in server.reviews.values()}
    relays = [
        e.data["message"] for e in events
        if e.type == EventTypes.USER_MESSAGE and e.data["message"]["source"].get("kind") == "shadow-report"
    ]
    assert relays, "some reviews report"
    assert server.corrections >= 1, "a cited unseen seq was refused and corrected"
    for message in relays:
        text = message["content"][0]["text"]
        (label,) = {int(found) for found in LABEL.findall(text)}
        for report in message["source"]["reports"]:
            assert report["refs"] and set(report["refs"]) <= by_label[label]

    # since-compaction: each prompt shows summaries plus what followed the newest boundary it covers
    boundaries = [e.seq for e in compactions]
    summaries = {e.seq for e in events if e.type == EventTypes.COMPACTION_SUMMARY}
    compacted_prompts = 0
    for rendered in server.prompts:
        covered = [b for b in boundaries if b <= max(rendered, default=-1)]
        if not covered:
            continue
        compacted_prompts += 1
        assert {seq for seq in rendered if seq < covered[-1]} <= summaries
        assert rendered & summaries
    assert compacted_prompts >= TURNS // 2
