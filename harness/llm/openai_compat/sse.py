"""Server-sent events: bytes in, ``(line_number, data)`` payloads out.

Follows the SSE framing rules that matter for chat completions: lines end in
``\\n`` or ``\\r\\n``; ``:`` starts a comment (keep-alives); ``data:`` lines
accumulate until a blank line dispatches them joined by ``\\n``; other fields
(``event``, ``id``, ``retry``) are ignored. A lone ``\\r`` line ending is not
supported (no chat API uses it). ``line_number`` is 1-based and points at the
event's first ``data:`` line, for error messages.
"""

from __future__ import annotations

#: Refuse a single line longer than this: a broken server must not grow memory forever.
MAX_LINE_BYTES = 16 * 1024 * 1024

Payload = tuple[int, bytes]


class LineTooLong(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(f"line {line} exceeds {MAX_LINE_BYTES} bytes")
        self.line = line


class SseDecoder:
    """Incremental decoder; feed network blocks, then :meth:`close` at end of body."""

    __slots__ = ("_tail", "_line", "_data", "_data_line")

    def __init__(self) -> None:
        self._tail = b""
        self._line = 0  # lines completed so far
        self._data: list[bytes] = []
        self._data_line = 0

    @property
    def line(self) -> int:
        return self._line

    def feed(self, block: bytes) -> list[Payload]:
        if self._tail:
            block = self._tail + block
        lines = block.split(b"\n")
        self._tail = lines.pop()
        if len(self._tail) > MAX_LINE_BYTES:
            raise LineTooLong(self._line + len(lines) + 1)
        out: list[Payload] = []
        # Inlined rather than calling _take per line: this loop runs for every
        # line of every stream, and the common line is "data: {...}" or "".
        number = self._line
        data = self._data
        for line in lines:
            number += 1
            if line.startswith(b"data: "):
                if not data:
                    self._data_line = number
                data.append(line[6:-1] if line.endswith(b"\r") else line[6:])
            elif not line or line == b"\r":
                if data:
                    out.append((self._data_line, data[0] if len(data) == 1 else b"\n".join(data)))
                    data.clear()
            else:
                self._take(line, number)
        self._line = number
        return out

    def close(self) -> list[Payload]:
        """Payloads still pending at end of body (an unterminated last event counts)."""
        if self._tail:
            tail, self._tail = self._tail, b""
            self._line += 1
            self._take(tail, self._line)
        if not self._data:
            return []
        data = self._data[0] if len(self._data) == 1 else b"\n".join(self._data)
        self._data.clear()
        return [(self._data_line, data)]

    def _take(self, line: bytes, number: int) -> None:
        """Line ``number`` by the general rule; :meth:`feed` inlines the common
        cases ("data: ..." and blank lines), :meth:`close` dispatches after a
        final unterminated line."""
        if line.endswith(b"\r"):
            line = line[:-1]
        if line.startswith(b"data:"):
            value = line[5:]
            if value.startswith(b" "):
                value = value[1:]
            if not self._data:
                self._data_line = number
            self._data.append(value)
        # comments (":...") and other fields (event, id, retry) carry nothing a chat stream needs
