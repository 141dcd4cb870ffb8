"""Markdown in ``harness chat``: a model's answer rendered for the terminal with rich.

Only the chat imports this module (``harness run`` prints the text as it came,
for scripts and pipes), so rich loads only when a person chats.

The text comes from a model, so :func:`~harness.cli.render.visible` makes every
control character in it printable *before* rich sees it: an escape sequence in
the answer is shown as ``^[[31m``, never obeyed. The only sequences written are
rich's own styling. Links are written as text with their address beside it,
not as terminal hyperlinks, so a label cannot hide where a link goes.

A streamed answer is rendered one finished block at a time: a block ends at a
blank line outside a code fence, and the rest when the stream ends. On a
terminal (:class:`LiveMarkdown`) the open block shows as plain text while it
is written and is replaced by its rendering once finished, so a person reads
the answer as it arrives; elsewhere only finished blocks are written.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.markdown import Heading, Markdown

from .render import visible

#: trailing padding rich adds up to the width (kept: the styling after it)
_PADDING = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$", re.M)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


class _LeftHeading(Heading):
    """Headings flush left, as in the rest of the chat (rich centres them)."""

    def __rich_console__(self, console: Any, options: Any) -> Any:
        self.text.justify = "left"
        yield self.text


class _ChatMarkdown(Markdown):
    elements = {**Markdown.elements, "heading_open": _LeftHeading}


def render_markdown(text: str, *, color: bool, width: int) -> str:
    """``text`` (untrusted Markdown) as terminal text, ending in a newline."""
    console = Console(
        file=io.StringIO(),
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        width=max(20, width),
        highlight=False,
        emoji=False,
        markup=False,
    )
    console.print(_ChatMarkdown(visible(text), code_theme="ansi_dark", hyperlinks=False))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    return _PADDING.sub(r"\1", str(out))


class MarkdownStream:
    """Collects one streamed answer and renders each finished block."""

    def __init__(self, *, color: bool, width: Callable[[], int]) -> None:
        self._color = color
        self._width = width
        self._pending = ""
        self._blocks = 0  # blocks rendered for this answer: the next is set off by a blank line

    def feed(self, text: str) -> str:
        """The rendering of the blocks ``text`` finished ('' while a block is open)."""
        self._pending += text
        ends = _block_ends(self._pending)
        if not ends:
            return ""
        # one block at a time, so the result does not depend on how the stream was cut
        blocks = [self._pending[start:end] for start, end in zip([0, *ends], ends, strict=False)]
        self._pending = self._pending[ends[-1] :]
        return "".join(self._render(block) for block in blocks)

    @property
    def pending(self) -> str:
        """The text of the block still open."""
        return self._pending

    def cut(self) -> str:
        """The rendering of the open block as it stands (other output comes between)."""
        rest, self._pending = self._pending, ""
        return self._render(rest)

    def flush(self) -> str:
        """The rendering of what is left; the next answer starts afresh."""
        out = self.cut()
        self._blocks = 0
        return out

    def whole(self, text: str) -> str:
        """A complete text (a relayed report), apart from the streamed answer."""
        return render_markdown(text, color=self._color, width=self._width()) if text.strip() else ""

    def _render(self, text: str) -> str:
        if not text.strip():
            return ""
        out = render_markdown(text, color=self._color, width=self._width())
        out = ("\n" if self._blocks else "") + out.strip("\n") + "\n"
        self._blocks += 1
        return out


class LiveMarkdown:
    """One streamed answer written through ``write``; see the module docstring."""

    def __init__(
        self, write: Callable[[str], None], *, color: bool, live: bool, size: Callable[[], tuple[int, int]]
    ) -> None:
        self._write = write
        self._live = live
        self._size = size
        self._stream = MarkdownStream(color=color, width=lambda: size()[0])
        self._raw = ""  # the open block as shown so far (live only)

    @property
    def mid_line(self) -> bool:
        return bool(self._raw) and not self._raw.endswith("\n")

    def feed(self, text: str) -> None:
        rendered = self._stream.feed(text)
        if rendered:
            self._replace(rendered)
            self._show(self._stream.pending)
        else:
            self._show(text)

    def cut(self) -> bool:
        """Render the open block now (something else is about to be printed);
        True when there was one, and the cursor is now at a line's start."""
        if not (self._raw or self._stream.pending):
            return False
        self._replace(self._stream.cut())
        return True

    def end(self) -> bool:
        """The answer is over: render what is left (True when there was some)."""
        left = bool(self._raw or self._stream.pending)
        self._replace(self._stream.flush())
        return left

    def whole(self, text: str) -> str:
        return self._stream.whole(text)

    def _show(self, text: str) -> None:
        if self._live and text:
            self._raw += text
            self._write(visible(text))

    def _replace(self, rendered: str) -> None:
        """Erase the plain text of the block, then write its rendering."""
        raw, self._raw = self._raw, ""
        if raw:
            width, height = self._size()
            rows = sum(max(1, math.ceil(cell_len(line.expandtabs()) / width)) for line in visible(raw).split("\n"))
            if rows >= height:  # partly scrolled away: it cannot be erased, so it stays as written
                self._write("" if raw.endswith("\n") else "\n")
                return
            self._write("\r" + (f"\x1b[{rows - 1}A" if rows > 1 else "") + "\x1b[J")
        self._write(rendered)


def _block_ends(text: str) -> list[int]:
    """Where each finished block of ``text`` ends: after a blank line outside
    a code fence."""
    fence: str | None = None
    ends: list[int] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        offset += len(line)
        if not line.endswith("\n"):
            break  # the line is still being written
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)[0] * 3
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None and not line.strip():
            ends.append(offset)
    return ends


__all__ = ["LiveMarkdown", "MarkdownStream", "render_markdown"]
