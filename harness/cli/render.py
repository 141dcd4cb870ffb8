"""Rendering a session for people: live (streamed) and after the fact.

Everything shown comes from models, tools and plugins, so none of it may drive
the terminal: :func:`visible` (:mod:`hookspecs.scrub`'s) turns control characters (ESC, BEL, a lone CR,
C1 controls, bidirectional overrides) into printable stand-ins (``^[``,
``^G``, ``^M``, ``<U+009B>``) before anything is written, keeping newlines and
tabs. Only this module's own styling emits escape sequences.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from hookspecs import hookimpl
from hookspecs.scrub import scrub_secrets
from hookspecs.scrub import visible as visible  # re-exported: the CLI's and web's renderers use it from here
from hookspecs.values import (
    Card,
    EventTypes,
    Notice,
    ReasoningDelta,
    SessionEvent,
    StreamDelta,
    StreamEnd,
    TextDelta,
)

from .common import discard_output

DIM = "\x1b[2m"
BOLD = "\x1b[1m"
RESET = "\x1b[0m"
ARG_PREVIEW = 80


class Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def dim(self, text: str) -> str:
        text = visible(text)
        return f"{DIM}{text}{RESET}" if self.color else text

    def bold(self, text: str) -> str:
        text = visible(text)
        return f"{BOLD}{text}{RESET}" if self.color else text


def message_text(message: Any) -> str:
    if not isinstance(message, dict):
        return ""
    parts = []
    for block in message.get("content", []):
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict) and block.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


def tool_call_line(data: dict[str, Any]) -> str:
    args = str(data.get("arguments", ""))
    try:
        parsed = json.loads(args) if args.strip() else {}
        if isinstance(parsed, dict):
            args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in parsed.items())
    except ValueError:
        pass
    # scrubbed before the cut, so no part of a key is left at the edge; the
    # session log already scrubbed live events, not those of older logs
    args = scrub_secrets(args)
    if len(args) > ARG_PREVIEW:
        args = args[: ARG_PREVIEW - 1] + "…"
    return f"⚙ {data.get('name')}({args})"


def tool_result_line(data: dict[str, Any]) -> str:
    error = data.get("error")
    if isinstance(error, dict):
        return scrub_secrets(f"  ↳ {data.get('name')} failed [{error.get('code')}]: {error.get('message', '')}")[:240]
    content = data.get("message", {}).get("content", [])
    text = ""
    if content and isinstance(content[0], dict):
        text = message_text({"content": content[0].get("content", [])})
    lines = [line for line in text.splitlines() if line.strip()]
    return f"  ↳ {data.get('name')}: {len(lines)} lines, {len(text)} chars"


def display_text(message: Any) -> str:
    """What people are shown of a plugin's delivery: its source's ``display``
    Markdown when it has one (a relayed report without the preamble written
    for the agent), else the message text."""
    source = message.get("source") if isinstance(message, dict) else None
    display = source.get("display") if isinstance(source, dict) else None
    return display if isinstance(display, str) and display.strip() else message_text(message)


def source_label(message: Any) -> str:
    source = message.get("source", {}) if isinstance(message, dict) else {}
    return str(source.get("kind", "user"))


def turn_end_line(data: dict[str, Any]) -> str:
    reason = data.get("reason", {})
    kind = reason.get("kind")
    if kind == "error":
        err = reason.get("error", {})
        return f"✗ turn {data.get('turn')} failed [{err.get('code')}]: {err.get('message')}"
    if kind == "aborted":
        return f"✗ turn {data.get('turn')} aborted by {reason.get('by')}"
    if kind == "completed":
        return ""
    return f"• turn {data.get('turn')} ended: {kind}"


def render_events(events: Iterable[SessionEvent], style: Style) -> Iterable[str]:
    """A readable transcript of a stored session."""
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        if event.type == EventTypes.USER_MESSAGE:
            label = source_label(data.get("message"))
            header = "you" if label == "user" else label
            yield style.bold(f"[{event.seq}] {header}:") + " " + visible(message_text(data.get("message")))
        elif event.type == EventTypes.ASSISTANT_MESSAGE:
            text = message_text(data.get("message"))
            if text:
                yield style.bold(f"[{event.seq}] assistant:") + " " + visible(text)
        elif event.type == EventTypes.TOOL_CALL:
            yield style.dim(f"[{event.seq}] " + tool_call_line(data))
        elif event.type == EventTypes.TOOL_RESULT:
            yield style.dim(f"[{event.seq}]" + tool_result_line(data))
        elif event.type == EventTypes.TURN_END:
            line = turn_end_line(data)
            if line:
                yield visible(f"[{event.seq}] {line}")
        elif event.type == EventTypes.COMMAND_DONE:
            yield style.dim(f"[{event.seq}] /command {data.get('kind')}: {data.get('text', '')}")


class LiveRenderer:
    """A plugin that prints one agent's run as it happens."""

    def __init__(self, out: TextIO | None = None, *, color: bool | None = None, show_reasoning: bool = False) -> None:
        self.out = out or sys.stdout
        #: True once the reader of ``out`` went away; nothing more is written
        self.closed = False
        #: called once when that happens (the command stops its run)
        self.on_closed: Callable[[], None] | None = None
        self.style = Style(self.out.isatty() if color is None else color)
        self.show_reasoning = show_reasoning
        self.agent_ids: set[str] = set()
        self._mid_line = False
        self._in_reasoning = False
        self._cards: dict[tuple[str, str], str] = {}

    def watch(self, agent_id: str) -> None:
        self.agent_ids.add(agent_id)

    def _write(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            # ``harness run … | head -1``: the reader is gone, which is no error
            self.closed = True
            discard_output(self.out)
            if self.on_closed is not None:
                self.on_closed()

    def _line(self, text: str) -> None:
        if self._mid_line:
            self._write("\n")
            self._mid_line = False
        self._write(text + "\n")

    @hookimpl
    def dsh_agent_stream(self, agent: Any, frame: Any) -> None:
        if agent.id not in self.agent_ids:
            return
        if isinstance(frame, StreamDelta):
            chunk = frame.chunk
            if isinstance(chunk, TextDelta):
                if self._in_reasoning:
                    self._write("\n")
                    self._in_reasoning = False
                self._write(visible(chunk.text))
                self._mid_line = not chunk.text.endswith("\n")
            elif isinstance(chunk, ReasoningDelta) and self.show_reasoning:
                self._in_reasoning = True
                self._write(self.style.dim(chunk.text))
                self._mid_line = True
        elif isinstance(frame, StreamEnd) and self._mid_line:
            self._write("\n")
            self._mid_line = False
            self._in_reasoning = False

    @hookimpl
    def dsh_session_event(self, session: Any, event: SessionEvent) -> None:
        if session.id not in self.agent_ids:
            return
        data = event.data if isinstance(event.data, dict) else {}
        if event.type == EventTypes.TOOL_CALL:
            self._line(self.style.dim(tool_call_line(data)))
        elif event.type == EventTypes.TOOL_RESULT:
            self._line(self.style.dim(tool_result_line(data)))
        elif event.type == EventTypes.USER_MESSAGE:
            label = source_label(data.get("message"))
            if label != "user":
                self._line(self.style.bold(f"[{label}]") + "\n" + visible(message_text(data.get("message"))))
        elif event.type == EventTypes.TURN_END:
            line = turn_end_line(data)
            if line:
                self._line(visible(line))
        elif event.type == EventTypes.LLM_RETRY:
            self._line(self.style.dim(f"… retrying the model request ({data.get('code')}, attempt {data.get('attempt')})"))

    def client_item(self, item: Card | Notice, render_card: Any) -> None:
        if isinstance(item, Notice):
            if item.session_id is None or item.session_id in self.agent_ids:
                self._line(self.style.dim(f"[{item.level}] {item.text}"))
        elif item.session_id in self.agent_ids and item.visibility == "visible":
            text = render_card(item)
            key = (item.session_id, item.key)
            if text and self._cards.get(key) != text:
                self._cards[key] = text
                self._line(self.style.dim(text))
