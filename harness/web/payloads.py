"""What the page receives: session events, cards and sessions as plain JSON.

Everything here comes from models, tools and plugins, so every string is
scrubbed (no credentials, no absolute paths), has its control characters made
visible and is bounded. The page inserts text with ``textContent`` only; the
one HTML it inserts is rendered here from Markdown with raw HTML disabled (so
``<script>`` in a report arrives as text) by one renderer, ``markdown_html``:
card bodies, assistant messages and plugin deliveries such as relayed reports
(``html`` next to their ``text``). A person's own message is never HTML.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt

from hookspecs.scrub import scrub_text
from hookspecs.values import Card, CardSection, CardView, EventTypes, SessionEvent

from ..cli.render import message_text, source_label, tool_call_line, tool_result_line, turn_end_line, visible

TEXT_LIMIT = 20_000
LINE_LIMIT = 400
TITLE_LIMIT = 80
#: ``html: False`` escapes raw HTML; the default link validator drops javascript:/data: URLs
_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def clean(text: Any, limit: int = TEXT_LIMIT) -> str:
    out = visible(scrub_text(str(text), limit=limit))
    # a made-visible control character is longer than itself: bound what is sent
    return out if len(out) <= limit else out[: max(limit - 1, 0)] + "…"


def session_title(events: Sequence[SessionEvent]) -> str:
    """A session's title as the listing gives it: the head of its first prompt."""
    for event in events:
        if event.type == EventTypes.USER_MESSAGE:
            data = event.data if isinstance(event.data, dict) else {}
            return " ".join(message_text(data.get("message")).split())[:TITLE_LIMIT]
    return ""


def session_label(session_id: str, title: str) -> str:
    """How the page names a session, as its sidebar does: the title (person or
    model text, so escaped and bounded) and a short id."""
    return f"{clean(title, TITLE_LIMIT) or '(untitled)'} · {clean(session_id[:8], 8)}"


def markdown_html(text: str) -> str:
    """Sanitized HTML for a Markdown body: raw HTML is escaped, unsafe links dropped."""
    return _MARKDOWN.render(clean(text))


def shown_text(message: Any) -> str | None:
    """The Markdown a plugin asked people to be shown instead of a message's text
    (its source's ``display``, such as a relayed report without the preamble
    written for the agent); None for a person's own message."""
    source = message.get("source") if isinstance(message, dict) else None
    if not isinstance(source, dict) or source.get("kind", "user") == "user":
        return None
    display = source.get("display")
    return display if isinstance(display, str) and display.strip() else message_text(message)


def event_payload(event: SessionEvent) -> dict[str, Any] | None:
    """The page's view of one durable event, or None for events it does not show."""
    data = event.data if isinstance(event.data, dict) else {}
    out: dict[str, Any] = {"seq": event.seq, "type": event.type, "time": event.time}
    if event.type == EventTypes.USER_MESSAGE:
        out["source"] = clean(source_label(data.get("message")), 60)
        display = shown_text(data.get("message"))
        if display is None:  # a person's words: shown as typed
            out["text"] = clean(message_text(data.get("message")))
        else:  # a plugin's delivery (a relayed report): its person-facing Markdown
            out["text"] = clean(display)
            out["html"] = markdown_html(display)
    elif event.type == EventTypes.ASSISTANT_MESSAGE:
        out["text"] = clean(message_text(data.get("message")))
        out["html"] = markdown_html(out["text"])
    elif event.type == EventTypes.TOOL_CALL:
        out["call_id"] = clean(data.get("call_id", ""), 120)
        out["text"] = clean(tool_call_line(data), LINE_LIMIT)
    elif event.type == EventTypes.TOOL_RESULT:
        out["call_id"] = clean(data.get("call_id", ""), 120)
        out["text"] = clean(tool_result_line(data).strip(), LINE_LIMIT)
        out["error"] = isinstance(data.get("error"), dict)
    elif event.type == EventTypes.TURN_END:
        out["turn"] = data.get("turn")
        out["text"] = clean(turn_end_line(data), LINE_LIMIT)
    elif event.type == EventTypes.TURN_START:
        out["turn"] = data.get("turn")
    elif event.type == EventTypes.COMMAND_DONE:
        out["kind"] = clean(data.get("kind", ""), 20)
        out["text"] = clean(data.get("text", ""))
    elif event.type == EventTypes.COMMAND_RUN:
        out["text"] = clean(f"/{data.get('name', '')} {str(data.get('input') or '').strip()}".strip(), LINE_LIMIT)
    else:
        return None
    return out


def section_payload(section: CardSection) -> dict[str, Any]:
    return {
        "heading": clean(section.heading, LINE_LIMIT),
        "phase": clean(section.phase, 40),
        "phase_label": clean(section.phase_label, 80),
        "body_html": markdown_html(section.body) if section.body else "",
        "busy": section.busy,
        "started_at": clean(section.started_at, 40) if section.started_at else None,
        "refs": [r for r in section.refs if isinstance(r, int)],
        "meta": [[clean(k, 80), clean(v, LINE_LIMIT)] for k, v in section.meta],
        "details": [[clean(k, 80), clean(v, LINE_LIMIT)] for k, v in section.details],
        "child_session": clean(section.child_session, 120) if section.child_session else None,
        "actions": [_action(a) for a in section.actions],
    }


def _action(action: Any) -> dict[str, Any]:
    return {"label": clean(action.label, 80), "command": clean(action.command, LINE_LIMIT), "enabled": action.enabled}


def card_payload(card: Card, view: CardView) -> dict[str, Any]:
    return {
        "key": clean(card.key, 200),
        "kind": clean(card.kind, 120),
        "anchor_seq": card.anchor_seq,
        "visibility": card.visibility,
        "title": clean(view.title, LINE_LIMIT),
        "banner": clean(view.banner, 2000),
        "sections": [section_payload(s) for s in view.sections],
        "actions": [_action(a) for a in view.actions],
        "collapsible": view.collapsible,
        "collapsed_by_default": view.collapsed_by_default,
    }


def arguments_preview(arguments: Any) -> str:
    """An approval's arguments, bounded and scrubbed."""
    try:
        text = json.dumps(arguments, ensure_ascii=False, indent=1, default=str)
    except (TypeError, ValueError):
        text = str(arguments)
    return clean(text, 2000)
