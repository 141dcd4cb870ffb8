"""The root session as the checks see it, built in one pass over its events.

Unlike the projection shown to a model, the checks read tool result text
(exit codes, failure output) — inside the plugin, never relayed verbatim. The
builder is fed one event at a time, so a caller that keeps it between reviews
pays only for the events appended since (:meth:`ViewBuilder.extend`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeAlias

import attrs

from hookspecs.values import EventTypes, SessionEvent

from ..event_render import message_of, visible_text
from ..person_messages import Earlier, Said, people_in, user_message
from ..projection_tail import stop_index
from .people import People, last_person_index, protect, protection, unlifted
from .shell import made_directories
from .tools import CallShape, ToolKind, basename, shape_of, write_created

#: a log at least this long, seen first, is fed from the last person message
WINDOW_FROM: Final = 2_000
_EXIT: Final = re.compile(r"(?:exit code:?|exited with code)\s*(-?\d+)", re.IGNORECASE)


#: ``(events, stop) -> the person's messages in events[:stop] and the protection state they leave``
PeopleSource: TypeAlias = Callable[[Sequence[SessionEvent], int], Earlier]


def _people_read(events: Sequence[SessionEvent], stop: int) -> Earlier:
    return protection(people_in(events[:stop]))


@attrs.frozen(kw_only=True)
class Action:
    """A tool call joined with its result (``result_seq`` None: not answered yet)."""

    call_seq: int
    result_seq: int | None
    tool: str
    shape: CallShape
    failed: bool = False
    exit_code: int | None = None
    error_code: str | None = None
    output: str = ""

    @property
    def ran(self) -> bool:
        """It reached the tool (a refusal or an abort before dispatch did not)."""
        return self.result_seq is not None and self.error_code not in _NOT_RUN

    def describe(self) -> str:
        """``pytest -q`` for a shell call, else the tool and its first file."""
        if self.shape.command:
            command = " ".join(self.shape.command.split())
            return command if len(command) <= 80 else command[:79] + "…"
        return f"{self.tool} {self.shape.paths[0]}" if self.shape.paths else self.tool

    def outcome(self) -> str:
        if self.exit_code not in (None, 0):
            return f"exited {self.exit_code}"
        generic = self.error_code in (None, "TOOL_FAILED", "NONZERO_EXIT")  # importers' and the shell's catch-alls
        return "failed" if generic else f"failed ({self.error_code})"


_READ_KINDS: Final = frozenset(
    {
        EventTypes.TOOL_CALL,
        EventTypes.TOOL_RESULT,
        EventTypes.USER_MESSAGE,
        EventTypes.ASSISTANT_MESSAGE,
        EventTypes.COMPACTION_SUMMARY,
    }
)
_NOT_RUN: Final = frozenset({"DENIED", "NOT_APPROVED", "ABORTED_BEFORE_DISPATCH", "UNKNOWN_TOOL", "INVALID_ARGS"})


@attrs.frozen(kw_only=True)
class History:
    """What some checks ask of the whole session through the watermark."""

    actions: tuple[Action, ...]
    #: basename -> seq of the first call that created it (a file, its directory, a ``mkdir``)
    made: Mapping[str, int]
    corpus: str
    corpus_ends: tuple[int, ...]
    corpus_seqs: tuple[int, ...]


class SessionView:
    """Everything through the watermark. ``window`` is the seq of the last real
    user message (-1: none): the claim checks look at what came after it. The
    person's messages and the whole history are read when a check asks."""

    __slots__ = ("window", "answers", "_recent", "_people", "_history")

    def __init__(
        self,
        *,
        window: int,
        answers: tuple[Said, ...],
        recent: tuple[Action, ...],
        people: Callable[[], People],
        history: Callable[[], History],
    ) -> None:
        self.window, self.answers, self._recent = window, answers, recent
        self._people: Callable[[], People] | People = people
        self._history: Callable[[], History] | History = history

    def _people_now(self) -> People:
        if callable(self._people):
            self._people = self._people()
        return self._people

    def history(self) -> History:
        if callable(self._history):
            self._history = self._history()
        return self._history

    @property
    def people(self) -> tuple[Said, ...]:
        return self._people_now()[0]

    @property
    def protected(self) -> tuple[tuple[str, Said], ...]:
        return self._people_now()[1]

    @property
    def actions(self) -> tuple[Action, ...]:
        return self.history().actions

    @property
    def made(self) -> Mapping[str, int]:
        return self.history().made

    def in_window(self) -> tuple[Action, ...]:
        return self._recent

    def answer(self) -> Said | None:
        """The final answer: the turn's last assistant text after its last tool call."""
        if not self.answers or self.answers[-1].seq <= self.window:
            return None
        last = self.answers[-1]
        # the newest action is the window's newest, or older than the window (and the answer)
        if self._recent and self._recent[-1].call_seq > last.seq:
            return None
        return last

    def shown_before(self, needle: str, seq: int) -> bool:
        """Whether tool arguments or output, a user message or a summary before
        ``seq`` contain ``needle``."""
        history = self.history()
        index = bisect_left(history.corpus_seqs, seq)
        return index > 0 and history.corpus.find(needle, 0, history.corpus_ends[index - 1]) >= 0

    def _key(self) -> tuple[Any, ...]:
        return (self.window, self.answer(), self._recent, self._people_now(), self.history())

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, SessionView) else NotImplemented

    __hash__ = None  # type: ignore[assignment]


class ViewBuilder:
    """Feeds events in order; :meth:`view` is a snapshot of what was fed.

    :meth:`extend` with the same growing log feeds only the new events; a
    different log, or a lower watermark, starts over (as the projector does).
    A log of ``window_from`` events or more seen first is fed from the last
    person message on; what came before is read when a view's check asks:
    the person's messages alone (``people``: the window tally's, else read), or everything
    (the builder then feeds the whole log, as if it had from the start)."""

    def __init__(self, *, window_from: int = WINDOW_FROM, people: PeopleSource | None = None) -> None:
        self.window_from = window_from
        #: the person's messages before a skipped log's window: remembered (:mod:`..window_tally`), else read
        self._people_source = people or _people_read
        self._reset()

    def _reset(self) -> None:
        self._last: SessionEvent | None = None
        self._watermark = -1
        self._actions: list[Action] = []
        self._pending: dict[str, int] = {}
        self._people: list[Said] = []
        self._answers: list[Said] = []
        self._window = -1
        self._protected: dict[str, tuple[bool, Said]] = {}
        self._made: dict[str, int] = {}
        self._parts: list[str] = []
        self._ends: list[int] = []
        self._seqs: list[int] = []
        self._size = 0
        self._joined = ""
        self._joined_count = 0
        self.consumed = 0
        self._events: Sequence[SessionEvent] = ()
        #: events[:skipped] were not fed, and the person's messages among them when read
        self.skipped = 0
        self._earlier: tuple[int, Earlier] | None = None

    def extend(self, events: Sequence[SessionEvent], watermark: int) -> None:
        """Feed the events after those already fed, through ``watermark``."""
        if watermark < self._watermark or not self._continues(events):
            self._reset()
        self._watermark = watermark
        self._events = events
        start = self.consumed
        # seqs ascend: the stop searched from the end, then one slice (a session's
        # events are a view whose item lookup is Python code)
        stop = stop_index(events, watermark, start)
        if stop == start:
            return
        if start == 0 and stop >= self.window_from:
            start = self.skipped = last_person_index(events, stop)
        feed = self.feed
        for event in events[start:stop]:
            if event.type in _READ_KINDS:
                feed(event)
        self.consumed = stop
        self._last = events[stop - 1]

    def _continues(self, events: Sequence[SessionEvent]) -> bool:
        if self.consumed == 0:
            return True
        if len(events) < self.consumed:
            return False
        previous = events[self.consumed - 1]
        return previous is self._last or previous == self._last

    def feed(self, event: SessionEvent) -> None:
        kind = event.type
        if kind not in _READ_KINDS:
            return  # most events (streamed chunks, step markers) say nothing here: one set lookup
        data = event.data if isinstance(event.data, dict) else {}
        if kind == EventTypes.TOOL_CALL:
            self._call(event.seq, data)
        elif kind == EventTypes.TOOL_RESULT:
            self._result(event.seq, data)
        elif kind == EventTypes.USER_MESSAGE:
            text, said = user_message(event.seq, data)
            if said is not None:
                self._people.append(said)
                self._window = event.seq
                protect(self._protected, said)
            self._note(event.seq, text)
        elif kind == EventTypes.ASSISTANT_MESSAGE:
            text = visible_text(message_of(data).get("content"))
            if text:
                self._answers.append(Said(seq=event.seq, text=text))
        elif kind == EventTypes.COMPACTION_SUMMARY:
            summary = data.get("summary")
            self._note(event.seq, summary if isinstance(summary, str) else visible_text(summary))

    def view(self) -> SessionView:
        start = bisect_left(self._actions, self._window + 1, key=lambda a: a.call_seq)
        recent, answers = tuple(self._actions[start:]), tuple(self._answers[-1:])
        if not self.skipped:
            history = self._history()
            said = (tuple(self._people), unlifted(self._protected))
            return SessionView(
                window=self._window, answers=answers, recent=recent, people=lambda: said, history=lambda: history
            )
        own, consumed, events, watermark = tuple(self._people), self.consumed, self._events, self._watermark
        skipped = self.skipped

        def people_then() -> People:
            if self._earlier is None or self._earlier[0] != skipped:
                self._earlier = (skipped, self._people_source(events, skipped))
            said_before, protected_before = self._earlier[1]
            protected = dict(protected_before)  # lifted targets too: their place in the order stays
            for said in own:
                protect(protected, said)
            return said_before + own, unlifted(protected)

        def history_then() -> History:
            if self.consumed != consumed or self._events is not events:  # fed more since: this view's own
                return view_of(events, watermark).history()
            self._feed_skipped()
            return self._history()

        return SessionView(
            window=self._window, answers=answers, recent=recent, people=people_then, history=history_then
        )

    def _history(self) -> History:
        if self._joined_count != len(self._parts):
            self._joined += "".join(self._parts[self._joined_count :])
            self._joined_count = len(self._parts)
        return History(
            actions=tuple(self._actions),
            made=dict(self._made),
            corpus=self._joined,
            corpus_ends=tuple(self._ends),
            corpus_seqs=tuple(self._seqs),
        )

    def _feed_skipped(self) -> None:
        """Feed the whole log through what was fed: the state of a builder that never skipped."""
        events, consumed, watermark, last = self._events, self.consumed, self._watermark, self._last
        self._reset()
        feed = self.feed
        for event in events[:consumed]:
            feed(event)
        self._events, self.consumed, self._watermark, self._last = events, consumed, watermark, last

    def _make(self, seq: int, shape: CallShape) -> None:
        names = {basename(p.rstrip("/").rsplit("/", 1)[0]) for p in shape.paths if "/" in p}
        names.update(basename(p) for p in shape.created)
        if shape.kind is ToolKind.WRITE:
            names.update(basename(p) for p in shape.paths)  # the host's write may have created it
        names.update(made_directories(shape.command))
        for name in names:
            self._made.setdefault(name, seq)

    def _note(self, seq: int, text: str) -> None:
        if text:
            self._parts.append(text + "\n")
            self._size += len(text) + 1
            self._ends.append(self._size)
            self._seqs.append(seq)

    def _call(self, seq: int, data: Mapping[str, Any]) -> None:
        name = data.get("name") if isinstance(data.get("name"), str) else ""
        call_id = data.get("call_id")
        arguments = data.get("arguments")
        shape = shape_of(str(name), arguments)
        if isinstance(call_id, str):
            self._pending[call_id] = len(self._actions)
        self._actions.append(Action(call_seq=seq, result_seq=None, tool=str(name), shape=shape))
        self._make(seq, shape)
        self._note(seq, arguments if isinstance(arguments, str) else "")

    def _result(self, seq: int, data: Mapping[str, Any]) -> None:
        call_id = data.get("call_id")
        index = self._pending.pop(call_id, None) if isinstance(call_id, str) else None
        output = _output_text(data)
        self._note(seq, output)
        if index is None:
            return
        action = self._actions[index]
        error = data.get("error")
        code = error.get("code") if isinstance(error, Mapping) and isinstance(error.get("code"), str) else None
        found = _EXIT.search(output, 0, 300) if action.shape.kind is ToolKind.SHELL else None
        exit_code = int(found.group(1)) if found else None
        blocks = message_of(data).get("content")
        first = blocks[0] if isinstance(blocks, list) and blocks and isinstance(blocks[0], Mapping) else {}
        failed = error is not None or first.get("is_error") is True or exit_code not in (None, 0)
        shape = action.shape
        if shape.kind is ToolKind.WRITE and shape.paths and not failed:
            created = write_created(output)
            if created is not None:
                shape = attrs.evolve(shape, created=shape.paths if created else (), overwrote=not created)
                self._make(action.call_seq, shape)
        self._actions[index] = attrs.evolve(
            action, result_seq=seq, failed=failed, exit_code=exit_code, error_code=code, output=output, shape=shape
        )


def _output_text(data: Mapping[str, Any]) -> str:
    blocks = message_of(data).get("content")
    if not isinstance(blocks, list):
        return ""
    first = blocks[0] if blocks and isinstance(blocks[0], Mapping) else {}
    inner = first.get("content") if first.get("type") == "tool-result" else blocks
    parts = (
        [b["text"] for b in inner if isinstance(b, Mapping) and isinstance(b.get("text"), str)]
        if isinstance(inner, list)
        else []
    )
    return "\n".join(parts)


def view_of(events: Sequence[SessionEvent], watermark: int) -> SessionView:
    builder = ViewBuilder()
    builder.extend(events, watermark)
    return builder.view()
