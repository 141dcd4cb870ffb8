"""``{{seq:LABEL}}`` placeholders in scripted replies.

A scripted reviewer must cite sequence numbers it cannot know when the script
is written. ``{{seq:tool call}}`` becomes the number N of the last
``[seq=N tool call`` line in the newest user message that has one (a projected
trajectory). Inside tool-call arguments a quoted placeholder (``"{{seq:...}}"``)
becomes a bare integer, so ``refs: ["{{seq:tool call}}"]`` yields ``[12]``.
An unresolved placeholder is left as written.
"""

from __future__ import annotations

import re

import attrs

from hookspecs.values.llm import LlmRequest
from hookspecs.values.messages import TextBlock

from .script import Reply

_PLACEHOLDER = re.compile(r"\{\{seq:([^}]+)\}\}")
_QUOTED = re.compile(r"\"\{\{seq:([^}]+)\}\}\"")


def _user_texts(request: LlmRequest) -> list[str]:
    """User message texts, newest first."""
    out = []
    for message in reversed(request.messages):
        if message.role == "user":
            out.append("\n".join(b.text for b in message.content if isinstance(b, TextBlock)))
    return out


def _lookup(texts: list[str], label: str) -> str | None:
    pattern = re.compile(r"\[seq=(\d+) " + re.escape(label.strip()))
    for text in texts:
        found = pattern.findall(text)
        if found:
            return found[-1]
    return None


def resolve(reply: Reply, request: LlmRequest) -> Reply:
    """``reply`` with its placeholders resolved against ``request``."""
    if "{{seq:" not in reply.text and not any("{{seq:" in c.arguments for c in reply.tool_calls):
        return reply
    texts = _user_texts(request)

    def number(match: re.Match[str]) -> str:
        value = _lookup(texts, match.group(1))
        return value if value is not None else match.group(0)

    calls = tuple(
        attrs.evolve(call, arguments=_PLACEHOLDER.sub(number, _QUOTED.sub(number, call.arguments)))
        for call in reply.tool_calls
    )
    return attrs.evolve(reply, text=_PLACEHOLDER.sub(number, reply.text), tool_calls=calls)
