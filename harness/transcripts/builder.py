"""Turns a foreign transcript's entries into well-formed turns of the session log.

The format parsers call :class:`EventBuilder` with one entry at a time; it
opens and closes turns and steps, answers every call exactly once (an error
result for a call the transcript never answered, as crash repair does) and
cleans every text it records: control characters made visible, paths under
the accepted workspace written relative, credentials scrubbed, sizes bounded.
Other paths are kept as they are: they are the person's own, and the reviewer
needs them to follow what the agent did.
"""

from __future__ import annotations

import json
import json.encoder
import re
import secrets
from collections import Counter
from collections.abc import Callable
from itertools import count
from typing import Any

from hookspecs.scrub import scrub_visible
from hookspecs.values import EventTypes

from ..sessions.history import HISTORY_TYPES
from .model import SOURCE_LINE_KEY, ImportedEvent

#: characters kept of one text block, one argument text or one result
TEXT_LIMIT = 20_000
#: characters kept of an error result's first line (its ``error.message``)
ERROR_LIMIT = 200
#: what may not come right before a path rewritten relative: another path or
#: URL character (``https://h/w/p/x`` and ``/x/w/p/y`` are not under ``/w/p``)
_PATH_BEFORE = r"(?<![\w.~/:@%+-])"
UNANSWERED_CODE = "RESULT_NOT_RECORDED"
#: how many lines of one unknown kind are kept (the count is kept whole)
MAX_UNKNOWN_LINES = 20
#: the newest call ids an import remembers for the next one (a repeated id is
#: not a new call); an id repeated from further back is imported again
MAX_REMEMBERED_CALLS = 1000
UNANSWERED_TEXT = "The transcript records no result for this tool call; the call may have had effects."


class EventBuilder:
    """Accumulates events; :meth:`finish` closes what is still open."""

    def __init__(self, *, source: dict[str, Any], after_line: int = 0, workspace: str | None = None) -> None:
        #: paths under the accepted workspace are written relative; never the
        #: transcript's recorded cwd, which whoever wrote the file chose
        self._under_workspace = under_workspace(workspace)
        #: what every path the rewrite touches contains: most texts hold none,
        #: and a substring search costs far less than the pattern's scan
        self._workspace_prefix = (workspace or "").rstrip("/") + "/"
        #: lines up to here were imported before: they are replayed (so call ids,
        #: the model and the turn structure are known) but emit nothing
        self.after_line = after_line
        self.source = source  # the assistant messages' source (kind "model", provider, model)
        self.events: list[ImportedEvent] = []
        self.skipped: Counter[str] = Counter()
        self.unknown: Counter[str] = Counter()
        #: the lines of each unknown kind (the first :data:`MAX_UNKNOWN_LINES`), so a person can find them
        self.unknown_lines: dict[str, list[int]] = {}
        #: the line being fed, and whether it is one an earlier import wrote
        #: (both set by the reader before each entry)
        self.line = 0
        self.replaying = False
        self.synthesised = 0
        self._turn = 0
        self._step: int | None = None
        self._step_has_calls = False
        self._pending: dict[str, str] = {}  # call id -> tool name, in call order
        self._calls: dict[str, None] = {}  # every call id recorded, oldest first: a repeated one is not a new call
        self._compactions = 0
        #: where the newest turn started: ``(line, calls so far, source, compactions)``
        #: (calls are only ever added, so their count says which they were)
        self._turn_start: tuple[int, int, dict[str, Any], int] | None = None
        # Message ids: 32 hex digits as new_message_id's, counted up from a
        # random start (one draw per import, not a uuid4 per message).
        self._ids = count(secrets.randbits(127))

    # --- cleaning -----------------------------------------------------------------

    def clean(self, text: str) -> str:
        if self.replaying:
            return text  # dropped unwritten (:meth:`_emit`): not worth the scrubbing regexes
        if self._under_workspace is not None and self._workspace_prefix in text:
            text = self._under_workspace.sub("", text)
        text = scrub_visible(text)
        return text if len(text) <= TEXT_LIMIT else bound(text, TEXT_LIMIT)  # (:func:`bound` inline: most fit)

    # --- entries ------------------------------------------------------------------

    def skip(self, kind: str, *, unknown: bool = False) -> None:
        (self.unknown if unknown else self.skipped)[kind] += 1
        lines = self.unknown_lines.setdefault(kind, []) if unknown else None
        if lines is not None and len(lines) < MAX_UNKNOWN_LINES:
            lines.append(self.line)

    def user(self, text: str, line: int, *, source: dict[str, Any] | None = None) -> None:
        """A user-role message (the person's unless ``source`` says otherwise): it starts a new turn."""
        self._close_turn(line)
        self._turn += 1
        self._emit(EventTypes.TURN_START, {"turn": self._turn}, line)
        self._open_step(line)
        content = [text_block(self.clean(text))]
        message = self._message("user", content, dict(source) if source is not None else {"kind": "user"})
        self._emit(EventTypes.USER_MESSAGE, {"turn": self._turn, "step": self._step or 0, "message": message}, line)

    def assistant(self, texts: list[str], calls: list[tuple[str, str, str]], line: int) -> None:
        """An assistant message: visible texts and ``(call id, name, argument text)`` calls."""
        if self._step is None:  # an assistant entry before any user message
            self._turn += 1
            self._emit(EventTypes.TURN_START, {"turn": self._turn}, line)
            self._open_step(line)
        elif self._step_has_calls:
            self._emit(EventTypes.STEP_END, self._where(), line)
            self._step += 1
            self._open_step(line)
        clean = self.clean
        blocks = [{"text": clean(t), "type": "text"} for t in texts if t and not t.isspace()]  # (t.strip(): a copy)
        made: list[tuple[str, str, str]] = []
        for cid, name, args in calls:
            if cid in self._calls:
                self.skip("repeated tool call id")
            else:
                made.append((cid, name, clean(args)))
                blocks.append({"id": cid, "name": name, "arguments": made[-1][2], "type": "tool-call"})
        if not blocks:
            self.skip("empty assistant message")
            return
        message = self._message("assistant", blocks, dict(self.source))
        turn, step = self._turn, self._step or 0
        self._emit(EventTypes.ASSISTANT_MESSAGE, {"turn": turn, "step": step, "message": message}, line)
        for cid, name, args in made:
            self._pending[cid] = name
            self._calls[cid] = None
            self._step_has_calls = True
            call = {"turn": turn, "step": step, "call_id": cid, "name": name, "arguments": args}
            self._emit(EventTypes.TOOL_CALL, call, line)

    def tool_result(self, call_id: str, text: str, is_error: bool, line: int) -> None:
        name = self._pending.pop(call_id, None)
        if name is None:
            self.skip("tool result without a call")
            return
        self._result(call_id, name, self.clean(text), is_error, line)

    def compaction(self, summary: str, line: int) -> None:
        """A host compaction: its summary stands in for every history event so far."""
        self._close_turn(line)
        self._compactions += 1
        cid = f"import-{self._compactions}"
        shadowed = [seq for seq, event in enumerate(self.events) if event.type in HISTORY_TYPES]
        self._emit(EventTypes.COMPACTION_START, {"compaction_id": cid, "turn": self._turn}, line)
        summary_data = {"compaction_id": cid, "summary": self.clean(summary), "shadowed_seqs": shadowed}
        self._emit(EventTypes.COMPACTION_SUMMARY, summary_data, line)
        self._emit(EventTypes.COMPACTION_END, {"compaction_id": cid}, line)

    def continue_after(self, turns_before: int) -> None:
        """The first line after ``after_line`` is next: the earlier import closed
        its last turn there, so close it here too (silently), number the next
        turn after the ``turns_before`` turns the session already holds, and
        count skips from here on."""
        self._close_turn(self.after_line)
        self._turn = turns_before
        self.skipped.clear()
        self.unknown.clear()
        self.unknown_lines.clear()
        self.synthesised = 0

    def state(self) -> dict[str, Any]:
        """What an import of the lines after this point needs (JSON): the
        model of the assistant messages, the compactions so far and the newest
        call ids. The turn count is the session's own (it may hold turns the
        host added)."""
        return self._state(len(self._calls), self.source, self._compactions)

    def turn_start_line(self) -> int | None:
        """The line the newest turn started on (None: no turn yet)."""
        return self._turn_start[0] if self._turn_start is not None else None

    def state_before(self, line: int) -> dict[str, Any]:
        """:meth:`state` as it was before line ``line``, which starts the newest
        turn (an import that holds that turn back), or after every line."""
        if self._turn_start is not None and self._turn_start[0] == line:
            return self._state(*self._turn_start[1:])
        return self.state()

    def _state(self, calls: int, source: dict[str, Any], compactions: int) -> dict[str, Any]:
        ids = list(self._calls)[max(0, calls - MAX_REMEMBERED_CALLS) : calls]
        return {"source": dict(source), "compactions": compactions, "calls": ids}

    def restore(self, state: dict[str, Any], *, turns_before: int) -> None:
        """Go on from an earlier import's :meth:`state` (nothing is replayed)."""
        source, calls, compactions = state.get("source"), state.get("calls"), state.get("compactions")
        if isinstance(source, dict) and all(isinstance(v, str) for v in source.values()):
            self.source = dict(source)
        if isinstance(calls, list):
            self._calls = {str(c): None for c in calls if isinstance(c, str)}
        if type(compactions) is int and compactions >= 0:
            self._compactions = compactions
        self._turn = turns_before

    def finish(self, line: int) -> list[ImportedEvent]:
        self._close_turn(line)
        return self.events

    # --- structure ------------------------------------------------------------------

    def _where(self) -> dict[str, int]:
        return {"turn": self._turn, "step": self._step or 0}

    def _emit(self, etype: str, data: dict[str, Any], line: int) -> None:
        """Record an event; ``data`` is the caller's fresh dict, completed in place."""
        if etype == EventTypes.TURN_START:
            self._turn_start = (line, len(self._calls), dict(self.source), self._compactions)
        if line <= self.after_line:
            return  # replayed: the earlier import wrote it
        data[SOURCE_LINE_KEY] = line
        self.events.append(_new_event(ImportedEvent, (etype, data)))

    def _message(self, role: str, content: list[dict[str, Any]], source: dict[str, Any]) -> dict[str, Any]:
        """A message's JSON, as ``message_to_json`` writes it (built directly: the
        attrs value and its cattrs round trip cost more than the rest of a line)."""
        return {"id": f"{next(self._ids) & _ID_MASK:032x}", "role": role, "content": content, "source": source}

    def _open_step(self, line: int) -> None:
        self._step = self._step or 0
        self._step_has_calls = False
        self._emit(EventTypes.STEP_START, self._where(), line)

    def _result(self, call_id: str, name: str, text: str, is_error: bool, line: int, code: str | None = None) -> None:
        block = {"tool_call_id": call_id, "content": [text_block(text)], "is_error": is_error, "type": "tool-result"}
        source = {"kind": "tool", "call_id": call_id}
        message = {"id": f"result-{call_id}", "role": "tool", "content": [block], "source": source}
        data: dict[str, Any] = {"turn": self._turn, "step": self._step or 0, "call_id": call_id, "name": name}
        data["message"] = message
        if is_error:
            data["error"] = {
                "code": code or "TOOL_FAILED",
                "message": bound(first_line(text) if text else name, ERROR_LIMIT),  # text is clean already
            }
        self._emit(EventTypes.TOOL_RESULT, data, line)

    def _close_turn(self, line: int) -> None:
        if self._step is None:
            return
        for call_id, name in list(self._pending.items()):
            self._result(call_id, name, UNANSWERED_TEXT, True, line, code=UNANSWERED_CODE)
            self.synthesised += 1
        self._pending.clear()
        self._emit(EventTypes.STEP_END, self._where(), line)
        self._emit(EventTypes.TURN_END, {"turn": self._turn, "reason": {"kind": "completed"}}, line)
        self._step = None


_ID_MASK = (1 << 128) - 1
#: ``ImportedEvent(etype, data)`` without the named tuple's Python-level ``__new__``
_new_event = tuple.__new__
#: what ``str.splitlines`` ends a line at
_LINE_END = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def first_line(text: str) -> str:
    """``text.splitlines()[0]`` of a non-empty text, without splitting all of a long output."""
    end = _LINE_END.search(text)
    return text if end is None else text[: end.start()]


def text_block(text: str) -> dict[str, Any]:
    """A text block's JSON, as ``block_to_json`` writes it."""
    return {"text": text, "type": "text"}


def under_workspace(workspace: str | None) -> re.Pattern[str] | None:
    """The prefix ``<workspace>/`` where it starts a path, or None (nothing is rewritten).

    Whole path prefixes only, at path boundaries: a workspace that is the root
    or one short segment can never eat slashes out of URLs, fractions or prose."""
    root = (workspace or "").rstrip("/")
    if not root.startswith("/"):
        return None  # no workspace, or the root itself: nothing is "under" it in a useful sense
    return re.compile(_PATH_BEFORE + re.escape(root) + "/")


def bound(text: str, limit: int) -> str:
    """At most ``limit`` characters, the last one ``…`` when text was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def type_of(entry: Any) -> str | None:
    """An entry's or block's ``type`` when it is a string: transcripts are
    foreign JSON, where a ``type`` may be any value (a list is not hashable)."""
    kind = entry.get("type") if isinstance(entry, dict) else None
    return kind if isinstance(kind, str) else None


def argument_text(value: Any) -> str:
    """A tool call's arguments as raw JSON text (text that is already a string is kept)."""
    if isinstance(value, str):
        return value
    return _ENCODE(value) if _C_ENCODE is None else "".join(_C_ENCODE(value, 0))


#: ``json.dumps(value, ensure_ascii=False)`` without a new encoder per call
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode
#: the C encoder ``_ENCODE`` makes anew for every call, made once: no
#: circular-reference markers (parsed JSON has no cycles), the same separators
#: and the same refusal of a non-JSON value (``default``)
_MAKE_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODE: Callable[[Any, int], Any] | None = (
    None
    if _MAKE_C_ENCODER is None
    else _MAKE_C_ENCODER(
        None, json.JSONEncoder().default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True
    )
)
#: the scanner ``json.loads`` ends in
SCAN_JSON: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def loads(text: str) -> Any:
    """``json.loads(text)``, without its two white-space matches when ``text``
    is one JSON value with nothing around it (a tool's output often is)."""
    try:
        value, end = SCAN_JSON(text, 0)
    except StopIteration:
        return json.loads(text)  # white space first, or the error json.loads names
    return value if end == len(text) else json.loads(text)
