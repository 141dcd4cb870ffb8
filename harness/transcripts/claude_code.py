"""Claude Code's per-session JSONL (``~/.claude/projects/<project>/<session>.jsonl``).

Each line is one entry: ``user`` and ``assistant`` entries carry an Anthropic
``message`` (content a string or a list of ``text`` / ``thinking`` /
``tool_use`` / ``tool_result`` / ``image`` blocks); a ``user`` entry with
``isCompactSummary`` holds the summary that replaced the context after a
compaction. Everything else (``progress``, ``system``, ``file-history-snapshot``,
``queue-operation``, ``attachment``, ``last-prompt``, ``mode``, old-format
``summary`` titles) produces no event. An ``isMeta`` user entry is Claude Code's own note,
dropped, except a Stop hook's answer ("Stop hook feedback:" and the hook's
reason), which is kept as a user message whose source is the hook. In a
subagent's transcript (``isSidechain`` entries) the text user entries are the
delegating agent's prompt: source ``delegation``, not the person's.
"""

from __future__ import annotations

import re
from typing import Any

from hookspecs.scrub import scrub_text

from .builder import EventBuilder, argument_text, type_of

#: entry types that are bookkeeping for Claude Code itself, not conversation
BOOKKEEPING = frozenset(
    {"progress", "system", "file-history-snapshot", "queue-operation", "summary", "attachment", "last-prompt", "mode"}
)
#: how Claude Code records a blocking Stop / SubagentStop hook's reason (seen in 2.1.197)
_HOOK_FEEDBACK = re.compile(r"\A(\w+) hook feedback:\n")


def source_of(entries: list[tuple[int, dict[str, Any]]]) -> tuple[str | None, str | None]:
    """``(session id, working directory)`` from the first entries that name them."""
    session = next((e["sessionId"] for _, e in entries if isinstance(e.get("sessionId"), str)), None)
    cwd = next((e["cwd"] for _, e in entries if isinstance(e.get("cwd"), str)), None)
    return session, cwd


def feed(builder: EventBuilder, line: int, entry: dict[str, Any]) -> None:
    kind = entry.get("type")  # (type_of, inline: an entry is a dict)
    if not isinstance(kind, str):
        kind = None
    message = entry.get("message")
    if kind in BOOKKEEPING:
        subtype = entry.get("subtype")
        builder.skip(f"{kind}:{subtype}" if isinstance(subtype, str) else str(kind))
    elif kind == "user" and isinstance(message, dict):
        _user(builder, line, entry, message.get("content"))
    elif kind == "assistant" and isinstance(message, dict):
        _assistant(builder, line, message)
    else:
        builder.skip(str(kind) if isinstance(kind, str) else "entry without a type", unknown=True)


def _user(builder: EventBuilder, line: int, entry: dict[str, Any], content: Any) -> None:
    if entry.get("isCompactSummary"):
        builder.compaction(_text_of(content), line)
        return
    if entry.get("isMeta"):
        feedback = _HOOK_FEEDBACK.match(content) if isinstance(content, str) else None
        if feedback is None:
            builder.skip("user:meta")
        else:
            hook = {"kind": "hook", "agent": "claude-code", "event": feedback.group(1)}
            builder.user(content[feedback.end() :], line, source=hook)
        return
    source = _delegation(entry)
    if isinstance(content, str):
        builder.user(content, line, source=source)
        return
    texts: list[str] = []
    for block in content if isinstance(content, list) else ():
        btype = type_of(block)
        if btype == "tool_result":
            call_id = block.get("tool_use_id")
            if isinstance(call_id, str):
                builder.tool_result(call_id, _text_of(block.get("content")), block.get("is_error") is True, line)
            else:
                builder.skip("tool_result without an id", unknown=True)
        elif btype == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        else:
            builder.skip(f"user block:{btype}", unknown=btype != "image")
    if texts:
        builder.user("\n".join(texts), line, source=source)


def _delegation(entry: dict[str, Any]) -> dict[str, Any] | None:
    """A subagent transcript's (``isSidechain``) text entries are the delegating
    agent's prompt, not the person's (None: the person's)."""
    if entry.get("isSidechain") is not True:
        return None
    source: dict[str, Any] = {"kind": "delegation", "agent": "claude-code"}
    if isinstance(entry.get("agentId"), str):
        source["agent_id"] = scrub_text(entry["agentId"], limit=64)
    return source


def _assistant(builder: EventBuilder, line: int, message: dict[str, Any]) -> None:
    model = message.get("model")
    if isinstance(model, str) and model != "<synthetic>":
        builder.source = {"kind": "model", "provider": "anthropic", "model": model}
    texts: list[str] = []
    calls: list[tuple[str, str, str]] = []
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    for block in blocks if isinstance(blocks, list) else ():
        btype = type_of(block)
        if btype == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif btype == "tool_use" and isinstance(block.get("id"), str):
            calls.append((block["id"], str(block.get("name") or "unknown-tool"), argument_text(block.get("input", {}))))
        elif btype in ("thinking", "redacted_thinking"):
            builder.skip("thinking")
        else:
            builder.skip(f"assistant block:{btype}", unknown=True)
    if texts or calls:
        builder.assistant(texts, calls, line)


def _text_of(content: Any) -> str:
    """A result's or summary's content as text; images become a placeholder."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "image":
            parts.append("[image omitted]")
    return "\n".join(parts)
