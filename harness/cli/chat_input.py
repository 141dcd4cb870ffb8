"""Terminal input for ``harness chat``: one reader shared by the prompt and approvals.

Exactly one blocking read of stdin is outstanding at a time, in a worker thread.
Consumers (the REPL prompt, an approval question) ask :class:`LineReader` for a
line; the reader task starts a read on demand (so a prompt is only shown when
someone is asking) and hands the line to the asker over a trio memory channel.
A thread blocked in a read cannot be interrupted, so a consumer that is
cancelled while waiting (an approval whose turn was aborted) leaves the read
running: the next consumer adopts it, and a line that completes while nobody
waits is dropped, because it answered a question that is gone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Protocol, TextIO

import attrs
import trio

_ESCAPE = re.compile(r"(\x1b\[[0-9;]*m)")


class LineSource(Protocol):
    """A blocking line source, called in a worker thread."""

    #: True when ``read`` shows the prompt itself (readline does).
    shows_prompt: bool
    #: True when nothing else echoes what was read (piped input).
    echo_input: bool
    #: for a source that shows its prompt: called (in the reading thread) once
    #: the prompt is on screen
    on_prompt_shown: Callable[[], None] | None

    def read(self, prompt: str) -> str | None:
        """One line without its newline; None at end of input."""

    def forget_last(self) -> None:
        """Drop the last line from the editing history (approval answers)."""

    def pending_text(self) -> str:
        """What the user has typed so far in the running read (for redrawing)."""


class FdLineSource:
    """Lines from a raw file descriptor (pipes, or a terminal without readline).

    ``os.read`` holds no Python-level lock, so a read abandoned at exit cannot
    wedge interpreter shutdown the way a blocked ``sys.stdin.readline`` can.
    """

    shows_prompt = False

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self.on_prompt_shown: Callable[[], None] | None = None  # never called: no prompt of its own
        # piped input is not echoed by a terminal: echo it so the transcript reads well
        self.echo_input = not os.isatty(fd)
        self._buffer = b""
        self._eof = False

    def read(self, prompt: str) -> str | None:
        while b"\n" not in self._buffer and not self._eof:
            chunk = os.read(self._fd, 4096)
            if not chunk:
                self._eof = True
            self._buffer += chunk
        if b"\n" in self._buffer:
            line, _, self._buffer = self._buffer.partition(b"\n")
        elif self._buffer:
            line, self._buffer = self._buffer, b""
        else:
            return None
        return line.decode("utf-8", errors="replace").rstrip("\r")

    def forget_last(self) -> None:
        pass

    def pending_text(self) -> str:
        return ""


class ReadlineSource:
    """``input()`` with GNU readline (or libedit): line editing, history, completion."""

    shows_prompt = True
    echo_input = False

    def __init__(self, readline: ModuleType) -> None:
        self._rl = readline
        self.on_prompt_shown: Callable[[], None] | None = None
        # readline calls this after it has drawn the prompt, before it reads
        readline.set_pre_input_hook(self._prompt_shown)

    def _prompt_shown(self) -> None:
        if self.on_prompt_shown is not None:
            self.on_prompt_shown()

    def read(self, prompt: str) -> str | None:
        # readline needs escape sequences bracketed to compute the prompt width
        try:
            return input(_ESCAPE.sub("\x01\\1\x02", prompt))
        except EOFError:
            return None

    def forget_last(self) -> None:
        length = self._rl.get_current_history_length()
        if length > 0:
            self._rl.remove_history_item(length - 1)

    def pending_text(self) -> str:
        try:
            return str(self._rl.get_line_buffer())
        except Exception:  # a read-only peek; never worth failing over
            return ""


def import_readline() -> ModuleType | None:
    try:
        import readline
    except ImportError:
        return None
    return readline


def install_completer(readline: ModuleType, names: Sequence[str]) -> None:
    """Tab-complete ``/command`` names at the start of the line."""
    words = sorted("/" + name for name in names)

    def complete(text: str, state: int) -> str | None:
        if readline.get_begidx() != 0 or not text.startswith("/"):
            return None
        matches = [word + " " for word in words if word.startswith(text)]
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n")  # the default delimiters include "/"
    if "libedit" in (readline.__doc__ or ""):
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")


def open_line_source(stdin: TextIO, stdout: TextIO, commands: Sequence[str]) -> LineSource:
    """readline when both ends are a terminal and it imports; raw fd reads otherwise."""
    if stdin.isatty() and stdout.isatty():
        readline = import_readline()
        if readline is not None:
            install_completer(readline, commands)
            return ReadlineSource(readline)
    return FdLineSource(stdin.fileno())


@contextmanager
def preserved_terminal(stream: TextIO) -> Iterator[None]:
    """Restore the terminal modes on exit: a read abandoned mid-way leaves
    readline's raw mode behind otherwise."""
    try:
        import termios

        fd = stream.fileno()
        saved = termios.tcgetattr(fd) if os.isatty(fd) else None
    except (ImportError, OSError, ValueError):
        saved = None
    try:
        yield
    finally:
        if saved is not None:
            try:
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
            except OSError:
                pass


@attrs.define(eq=False)
class _Waiter:
    """One consumer waiting for a line; the line arrives on its own channel."""

    prompt: str
    history: bool
    send: trio.MemorySendChannel[str | None]
    receive: trio.MemoryReceiveChannel[str | None]


class LineReader:
    """The single owner of stdin; see the module docstring.

    Waiters form a stack: the newest asker (an approval question raised while
    the prompt waits) gets the next line, then the older one is asked again.
    """

    def __init__(self, out: TextIO, source: LineSource | None = None) -> None:
        #: may be set after construction, before :meth:`serve` starts
        self.source = source
        self._out = out
        self._waiters: list[_Waiter] = []
        self._wakeup = trio.Event()
        self._reading = False
        self.eof = False
        #: True while a prompt is on screen and nothing has been printed after it.
        self.prompt_visible = False

    async def serve(self) -> None:
        """The reader task: run until end of input (or cancelled at exit)."""
        source = self.source
        if source is None:
            raise RuntimeError("LineReader.serve needs a source")
        while True:
            while not self._waiters:
                self._wakeup = trio.Event()
                await self._wakeup.wait()
            prompt = self._waiters[-1].prompt
            if source.shows_prompt:
                # visible only once drawn: output before that needs no redraw (the
                # prompt follows it), and a redraw would show the prompt twice
                source.on_prompt_shown = self._prompt_shown
            else:
                self._write(prompt)
                self.prompt_visible = True
            self._reading = True
            try:
                line = await trio.to_thread.run_sync(source.read, prompt, abandon_on_cancel=True)
            finally:
                self._reading = False
            # after Enter the cursor is on a fresh line; at end of input it is not
            self.prompt_visible = line is None
            if line is not None and source.echo_input:
                self._write(line + "\n")
            if line is None:
                self.eof = True
                for waiter in self._waiters:
                    waiter.send.send_nowait(None)
                self._waiters.clear()
                return
            if not self._waiters:
                continue  # nobody waits: the question it answered is gone
            waiter = self._waiters.pop()
            if not waiter.history:
                source.forget_last()
            waiter.send.send_nowait(line)

    async def readline(self, prompt: str, *, history: bool = True) -> str | None:
        """Show ``prompt`` and wait for one line; None at end of input."""
        if self.eof:
            return None
        send, receive = trio.open_memory_channel[str | None](1)
        waiter = _Waiter(prompt=prompt, history=history, send=send, receive=receive)
        self._waiters.append(waiter)
        self._wakeup.set()
        if self._reading:
            self._show(prompt)  # adopt the read in progress, under our prompt
        try:
            return await receive.receive()
        finally:
            if waiter in self._waiters:  # cancelled before an answer came
                was_top = self._waiters[-1] is waiter
                self._waiters.remove(waiter)
                if was_top and self._waiters and self._reading:
                    self._show(self._waiters[-1].prompt)

    def _prompt_shown(self) -> None:
        self.prompt_visible = True  # from the reading thread: a plain flag store

    @property
    def waiting(self) -> bool:
        """Someone is waiting for a line."""
        return bool(self._waiters)

    def reprompt(self) -> None:
        """Show the current prompt again after other output interrupted it."""
        if self._waiters and self._reading:
            self._show(self._waiters[-1].prompt)

    def _show(self, prompt: str) -> None:
        pending = self.source.pending_text() if self.source is not None else ""
        self._write(prompt + pending)
        self.prompt_visible = True

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()
