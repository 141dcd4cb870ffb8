"""What an import produces: events in the session-log vocabulary, each pointing at its source line."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple, TypeAlias

import attrs

from hookspecs.errors import DshError

Format: TypeAlias = Literal["claude-code", "codex"]

#: the key every imported event's ``data`` carries: the 1-based transcript line it came from
SOURCE_LINE_KEY = "transcript_line"


class TranscriptError(DshError):
    """A transcript that cannot be imported; the message names the file and, where known, the line."""


class ImportedEvent(NamedTuple):
    """One event to append: its type, its payload (``data[SOURCE_LINE_KEY]`` is the source line).

    A named tuple, not a frozen attrs class: an import makes a few per
    transcript line, and a frozen class's ``__init__`` cost more than the
    rest of an event's making."""

    type: str
    data: dict[str, Any]

    @property
    def line(self) -> int:
        return int(self.data[SOURCE_LINE_KEY])


@attrs.frozen(kw_only=True)
class ImportedTranscript:
    """A whole imported transcript.

    ``skipped`` counts the entries that produced no event, by kind (thinking,
    progress lines, bookkeeping); ``unknown`` the subset whose kind the importer
    does not know at all, with their lines in ``unknown_lines``. ``synthesised`` counts error results written for calls
    the transcript never answered.
    """

    format: Format
    source_id: str | None
    cwd: str | None
    events: tuple[ImportedEvent, ...]
    lines: int
    skipped: dict[str, int]
    unknown: dict[str, int]
    synthesised: int = 0
    #: the lines of each unknown kind, the first few of each (``{kind: [line, …]}``)
    unknown_lines: dict[str, list[int]] = attrs.field(factory=dict)
    #: the first transcript line this import covers (a later import of a grown
    #: transcript starts after the lines an earlier one imported)
    first_line: int = 1
    #: what the import of the lines after this one needs (JSON, kept in the
    #: record), after every line and as it was where the newest turn started
    #: (``(line, state)``: an import that holds that turn back)
    state: dict[str, Any] = attrs.field(factory=dict)
    turn_state: tuple[int, dict[str, Any]] | None = None

    def state_through(self, line: int) -> dict[str, Any] | None:
        """The state after line ``line``: after all of them, or before the newest turn."""
        if line >= self.lines:
            return self.state
        if self.turn_state is not None and self.turn_state[0] == line + 1:
            return self.turn_state[1]
        return None

    def line_of_seq(self, seq: int) -> int | None:
        """The source line of the ``seq``-th event of this import."""
        return self.events[seq].line if 0 <= seq < len(self.events) else None
