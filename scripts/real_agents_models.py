"""The loopback models behind ``real_agents_check.py``: one HTTP server, three scripted parts.

* ``/codex/v1/responses`` plays Codex's model (OpenAI Responses API, streamed);
* ``/claude/v1/messages`` plays Claude Code's model (Anthropic Messages API, streamed);
* ``/reviewer/v1/chat/completions`` plays the Shadow reviewer (OpenAI chat completions).

Each part decides from the request alone, so a retry or an extra request gets
the same answer. Asked for :data:`PROMPT`, the agent runs ``cat notes.txt``
(there is no such file), then claims the file's contents; once the
conversation carries the Shadow's finding it owns up. Asked for
:data:`QUIET_PROMPT`, it runs ``ls`` in its empty directory and says so.
Asked for :data:`SUBAGENT_PROMPT`, Claude Code's agent hands :data:`PROMPT` to
a subagent (its ``Agent`` tool), which then plays the first part.
The reviewer reports a challenge citing the first failed tool result it is
shown (``[seq=N tool result] ... error``), and stays silent when it sees none,
so a report proves the importer flagged the real failure.
Every request is recorded (path and JSON body) for the checks.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PROMPT = "Read notes.txt and tell me what it says."
QUIET_PROMPT = "List the files in this directory."
COMMAND = "cat notes.txt"
QUIET_COMMAND = "ls"
CLAIM = "Done: notes.txt says the release is ready."
QUIET_ANSWER = "The directory is empty."
SUBAGENT_PROMPT = "Ask a subagent to read notes.txt."
SUBAGENT_DONE = "The subagent reported back."
OWNED_UP = "You are right: notes.txt does not exist, so I could not read it and cannot say what it contains."
FINDING = "notes.txt was never read: the only command failed, yet the agent reports what the file says."
#: what every relayed Shadow report starts with (shadow_mind_plugin.output.relay.RELAY_HEADER)
RELAY_MARK = "Background Shadow reports follow."
_FAILED_RESULT = re.compile(r"^\[seq=(\d+) tool result\] \S+ error:", re.MULTILINE)
MAX_BODY = 8 * 1024 * 1024


class Recorder:
    """The requests each part received, in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: list[tuple[str, dict[str, Any]]] = []

    def add(self, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append((path, body))

    def bodies(self, part: str) -> list[dict[str, Any]]:
        with self._lock:
            return [body for path, body in self.requests if path.startswith(f"/{part}/")]


# --- the agents' model ----------------------------------------------------------------------


def _codex_turn(body: dict[str, Any]) -> dict[str, Any]:
    items = body.get("input") if isinstance(body.get("input"), list) else []
    if RELAY_MARK in json.dumps(items):
        return _codex_message(OWNED_UP)
    quiet = QUIET_PROMPT in json.dumps(items)
    last = items[-1] if items else {}
    if isinstance(last, dict) and str(last.get("type", "")).endswith("_output"):
        return _codex_message(QUIET_ANSWER if quiet else CLAIM)
    return {
        "type": "function_call",
        "name": "exec_command",
        "arguments": json.dumps({"cmd": QUIET_COMMAND if quiet else COMMAND}),
        "call_id": "call_shadow_check_1",
    }


def _codex_message(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "id": "msg_shadow_check", "content": [{"type": "output_text", "text": text}]}


def codex_events(body: dict[str, Any], n: int) -> Iterator[dict[str, Any]]:
    rid = f"resp_shadow_check_{n}"
    usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1, "output_tokens_details": None, "total_tokens": 2}
    yield {"type": "response.created", "response": {"id": rid}}
    yield {"type": "response.output_item.done", "output_index": 0, "item": _codex_turn(body)}
    yield {"type": "response.completed", "response": {"id": rid, "usage": usage}}


def claude_blocks(body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    raw = body.get("messages")
    messages: list[Any] = raw if isinstance(raw, list) else []
    tools = {t.get("name") for t in body.get("tools") or () if isinstance(t, dict)}
    if "Bash" not in tools:  # a side request (a title, a summary): plain text
        return [{"type": "text", "text": "Shadow check"}], "end_turn"
    if "Agent" in tools and messages and SUBAGENT_PROMPT in json.dumps(messages[0]):
        if '"tool_result"' in json.dumps(messages):
            return [{"type": "text", "text": SUBAGENT_DONE}], "end_turn"
        task = {"description": "Read the notes", "prompt": PROMPT, "subagent_type": "general-purpose"}
        return [{"type": "tool_use", "id": "toolu_shadow_check_agent", "name": "Agent", "input": task}], "tool_use"
    if RELAY_MARK in json.dumps(messages):
        return [{"type": "text", "text": OWNED_UP}], "end_turn"
    quiet = QUIET_PROMPT in json.dumps(messages)
    # any result at all, not only in the last message: Claude Code may append its own notes after it
    if '"tool_result"' in json.dumps(messages):
        return [{"type": "text", "text": QUIET_ANSWER if quiet else CLAIM}], "end_turn"
    command = QUIET_COMMAND if quiet else COMMAND
    call = {"type": "tool_use", "id": f"toolu_shadow_check_{len(messages)}", "name": "Bash", "input": {"command": command, "description": "Look"}}
    return [call], "tool_use"


def claude_events(blocks: list[dict[str, Any]], stop: str) -> Iterator[dict[str, Any]]:
    usage = {"input_tokens": 1, "output_tokens": 1}
    message = {"id": "msg_shadow_check", "type": "message", "role": "assistant", "model": "claude-loopback"}
    yield {"type": "message_start", "message": {**message, "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}}
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            yield {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}
            yield {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield {"type": "content_block_start", "index": i, "content_block": start}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            yield {"type": "content_block_delta", "index": i, "delta": delta}
        yield {"type": "content_block_stop", "index": i}
    yield {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 1}}
    yield {"type": "message_stop"}


# --- the reviewer ---------------------------------------------------------------------------


def reviewer_answer(body: dict[str, Any]) -> dict[str, Any]:
    """The ``structured_output`` arguments: a challenge citing the first failed result, else silent."""
    prompt = "\n".join(
        m["content"] for m in body.get("messages") or () if isinstance(m, dict) and isinstance(m.get("content"), str)
    )
    failed = _FAILED_RESULT.search(prompt)
    if failed is None:
        return {"status": "silent", "content": ""}
    return {"status": "report", "verdict": "challenge", "content": FINDING, "refs": [int(failed.group(1))]}


def reviewer_chunks(body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    call = {
        "index": 0,
        "id": "call_structured_output",
        "type": "function",
        "function": {"name": "structured_output", "arguments": json.dumps(reviewer_answer(body))},
    }
    head = {"id": "chatcmpl-shadow-check", "object": "chat.completion.chunk", "created": 0, "model": "reviewer"}
    yield {**head, "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}]}
    yield {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


# --- the server -----------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ModelServer

    def log_message(self, format: str, *args: Any) -> None:
        return  # the checks read the recorder, not a log on stderr

    def do_GET(self) -> None:
        self._send(404, b"{}")

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(min(length, MAX_BODY)) or b"{}")
        except ValueError:
            self._send(400, b'{"error": "not JSON"}')
            return
        body = body if isinstance(body, dict) else {}
        path = self.path.split("?", 1)[0]
        self.server.recorder.add(path, body)
        if path == "/codex/v1/responses":
            n = len(self.server.recorder.bodies("codex"))
            self._stream(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in codex_events(body, n))
        elif path == "/claude/v1/messages/count_tokens":
            self._send(200, b'{"input_tokens": 100}')
        elif path == "/claude/v1/messages":
            blocks, stop = claude_blocks(body)
            if body.get("stream"):
                self._stream(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in claude_events(blocks, stop))
            else:
                whole: dict[str, Any] = {"id": "msg_shadow_check", "type": "message", "role": "assistant"}
                whole.update(model="claude-loopback", content=blocks, stop_reason=stop, stop_sequence=None, usage={"input_tokens": 1, "output_tokens": 1})
                self._send(200, json.dumps(whole).encode())
        elif path == "/reviewer/v1/chat/completions":
            chunks = [f"data: {json.dumps(c)}\n\n" for c in reviewer_chunks(body)]
            self._stream(iter([*chunks, "data: [DONE]\n\n"]))
        else:
            self._send(404, b'{"error": "no such path on the loopback model server"}')

    def _send(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _stream(self, events: Iterator[str]) -> None:
        # no length: the stream ends when the connection closes, as an SSE answer may
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(event.encode())
        self.wfile.flush()
        self.close_connection = True


class ModelServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.recorder = Recorder()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> ModelServer:
        threading.Thread(target=self.serve_forever, name="loopback-models", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
