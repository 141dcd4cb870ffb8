"""``harness chat``: an interactive terminal REPL over one root agent.

Usage::

    harness chat --profile P [--session ID] [--model provider/model] [--cwd DIR]

    you> What is this project?        a prompt: the turn streams, then the prompt is back
    you> /help                        a slash command (Tab completes /names on a terminal;
                                      a leading space sends "/..." text as a prompt)
    Allow? [y/N] y                    tools that need approval ask here (y/yes allows once)
    Ctrl-C                            aborts the running turn; at the prompt, stops the
                                      background work (reviews, a report waiting to be
                                      relayed); with none, twice quits
    Ctrl-D                            exits (the session stays on disk; resume with --session)

Answers are rendered as Markdown (see :mod:`harness.cli.markdown`). Background
work (a Shadow review) never holds the prompt: its cards print above the
prompt, which is redrawn with what was typed so far.

Stdin may be a pipe: lines are then read one by one (prompts, then answers to
approval questions, in order), each after the background work the previous one
started has finished (a script cannot see a prompt come back), and end of input
exits.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
from pathlib import Path
from typing import Any, TextIO

import trio

from hookspecs import hookimpl
from hookspecs.values import (
    AgentOptions,
    CancelCause,
    CancelToken,
    EventTypes,
    SessionEvent,
    StreamDelta,
    StreamEnd,
    TextDelta,
    create_user_message,
)

from ..commands import parse_command
from ..host import HarnessHost, open_host
from ..profiles import ProfileRow
from .approver import TerminalApprover
from .background import BackgroundRuns
from .chat_input import LineReader, open_line_source, preserved_terminal
from .common import single_dsh_error
from .markdown import LiveMarkdown
from .parsers import add_chat_parser
from .render import LiveRenderer, Style, display_text, render_events, source_label, visible
from .run import agent_options, attach_root, drain, workspace

RED = "\x1b[31m"
RESET = "\x1b[0m"
#: back to the start of the line, then clear it
ERASE_LINE = "\r\x1b[K"
#: a second Ctrl-C at the prompt within this many seconds quits
DOUBLE_PRESS_SECONDS = 2.0
RESUME_LINES = 6
RESUME_WIDTH = 160
#: what ``/help`` adds in the chat, after every command the profile provides
CHAT_KEYS = """Keys:
  Ctrl-C                       abort the turn; at the prompt, stop background reviews
  Ctrl-D                       exit (resume later with harness chat --session ID)
  Tab                          complete a /command"""


class ChatRenderer(LiveRenderer):
    """The live renderer, aware of the prompt: output that arrives while the
    prompt is on screen starts on a fresh line, and the prompt is redrawn after."""

    def __init__(self, out: TextIO, reader: LineReader) -> None:
        super().__init__(out, show_reasoning=True)
        self.reader = reader
        self._redraw = False
        self.markdown = LiveMarkdown(
            self._write, color=self.style.color, live=self.style.color, size=lambda: shutil.get_terminal_size((100, 24))
        )

    def _write(self, text: str) -> None:
        if self.reader.prompt_visible:
            self.reader.prompt_visible = False
            self._redraw = True
            # a prompt readline draws is redrawn with its input by ``settle``, so
            # erase the line; otherwise what was typed stays on screen: keep it
            source = self.reader.source
            super()._write(ERASE_LINE if source is not None and source.shows_prompt else "\n")
        super()._write(text)

    def line(self, text: str) -> None:
        """Print one whole line (public for the approver and the REPL)."""
        self._line(text)

    def settle(self) -> None:
        """Redraw the prompt if output interrupted it and the output is complete."""
        if self._redraw and not self._mid_line:
            self._redraw = False
            self.reader.reprompt()

    @hookimpl
    def dsh_agent_stream(self, agent: Any, frame: Any) -> None:
        """Answers render as Markdown, a finished block at a time (reasoning
        streams dimmed, as it came)."""
        if agent.id not in self.agent_ids:
            return
        if isinstance(frame, StreamDelta) and isinstance(frame.chunk, TextDelta):
            self._end_reasoning()
            if self._mid_line and not self.markdown.mid_line:
                self._write("\n")
            self.markdown.feed(frame.chunk.text)
            self._mid_line = self.markdown.mid_line
            return
        if isinstance(frame, StreamEnd):
            self._end_reasoning()
            self.markdown.end()
            self._mid_line = False
        super().dsh_agent_stream(agent, frame)

    def _end_reasoning(self) -> None:
        if self._in_reasoning:
            self._in_reasoning = False
            self._write("\n")
            self._mid_line = False

    def _line(self, text: str) -> None:
        if self.markdown.cut():  # a card or a tool call mid-answer: the open block is rendered first
            self._mid_line = False
        super()._line(text)

    @hookimpl
    def dsh_session_event(self, session: Any, event: SessionEvent) -> None:
        data = event.data if isinstance(event.data, dict) else {}
        message = data.get("message")
        if session.id in self.agent_ids and event.type == EventTypes.USER_MESSAGE and source_label(message) != "user":
            # a plugin's delivery (a relayed report): what people are meant to read, as Markdown
            self._line(self.style.bold(f"[{source_label(message)}]"))
            self._write(self.markdown.whole(display_text(message)))
        else:
            if event.type == EventTypes.TURN_END and session.id in self.agent_ids:
                if self.markdown.end():  # an aborted answer's open block; the next answer starts afresh
                    self._mid_line = False
            super().dsh_session_event(session, event)
        if event.type == EventTypes.TURN_END:
            self.settle()

    def client_item(self, item: Any, render_card: Any) -> None:
        super().client_item(item, render_card)
        self.settle()


class Chat:
    """The REPL loop and its Ctrl-C handling for one agent."""

    def __init__(
        self,
        host: HarnessHost,
        agent: Any,
        reader: LineReader,
        renderer: ChatRenderer,
        background: BackgroundRuns,
        *,
        interactive: bool,
    ) -> None:
        self.host = host
        self.agent = agent
        self.reader = reader
        self.renderer = renderer
        self.background = background
        #: a person at a terminal: the prompt returns when the turn ends
        self.interactive = interactive
        self.style = renderer.style
        self.prompt = self.style.dim("you>") + " "
        self._wait_scope: trio.CancelScope | None = None
        self._command_cancel: CancelToken | None = None
        self._last_idle_interrupt = float("-inf")
        self._loop_scope = trio.CancelScope()
        renderer.on_closed = self._loop_scope.cancel  # the terminal went away: leave

    async def run(self) -> None:
        with self._loop_scope:
            while True:
                line = await self.reader.readline(self.prompt)
                if line is None:
                    return
                if not line.strip():
                    continue
                self.background.cancel_starting = False  # that Ctrl-C is over
                if line.startswith("/"):
                    await self._command(line.rstrip())
                else:  # a leading space sends "/..." text to the model
                    self.agent.followup(create_user_message(line.strip()))
                await self._wait()

    async def _command(self, line: str) -> None:
        token = CancelToken()
        self._command_cancel = token
        try:
            result = await self.host.commands.execute(self.agent, line, cancel=token)
        finally:
            self._command_cancel = None
        if result is None:
            parsed = parse_command(line)
            name = "/" + parsed[0] if parsed else line.split()[0]
            self.renderer.line(
                self._error(f"unknown command {name}; type /help for the list (or start with a space to send it)")
            )
        elif result.kind == "success":
            if result.text:
                self.renderer.line(visible(result.text))
            if (parse_command(line) or ("",))[0] == "help":
                self.renderer.line(CHAT_KEYS)
        else:
            self.renderer.line(self._error(result.text or "the command failed"))

    def _error(self, text: str) -> str:
        text = "✗ " + visible(text)
        return f"{RED}{text}{RESET}" if self.style.color else text

    async def _wait(self) -> None:
        """Until the turn the line started has ended; for piped input also until
        plugin background work is done (it may wake the agent again), and Ctrl-C
        then stops waiting for it."""
        with trio.CancelScope() as scope:
            self._wait_scope = scope
            try:
                if self.interactive:
                    await self.agent.when_idle()
                else:
                    await drain(self.host, self.agent)
            finally:
                self._wait_scope = None

    async def interrupts(self, signals: Any, nursery: trio.Nursery) -> None:
        async for _ in signals:
            self.interrupt(nursery)

    def interrupt(self, nursery: trio.Nursery) -> None:
        """Ctrl-C: abort the turn (plugins cancel their reviews for a user abort),
        else the command, else the background runs, else hint (twice quits)."""
        user = CancelCause(by="user")
        if self.agent.cancel(user):
            return  # turn/end records the user abort; the renderer prints it
        if self._command_cancel is not None:
            self._command_cancel.cancel(user)
            return
        if self._wait_scope is not None and not self.agent.quiescent:
            nursery.start_soon(self._abort_when_running)  # a turn is about to start
            return
        if self.background.active or self.host.background_busy:
            # plugins stop what no run token covers: a report waiting to be relayed
            self.agent.cancel_background(user)
        cancelled = self.background.cancel()
        if self._wait_scope is not None:
            self._wait_scope.cancel()  # piped input waited for background work only
        if cancelled:
            self._say(f"(cancelling {cancelled} background run{'s' if cancelled > 1 else ''})")
            return
        if self.host.background_busy and not self.background.cancel_starting:
            # a plugin is still preparing its run (a review being admitted)
            self.background.cancel_starting = True
            nursery.start_soon(self._cancel_starting)
            self._say("(cancelling background work)")
            return
        if self._wait_scope is not None:
            return
        now = trio.current_time()
        if now - self._last_idle_interrupt < DOUBLE_PRESS_SECONDS:
            self._loop_scope.cancel()
            return
        self._last_idle_interrupt = now
        self._say("(Ctrl-C again to quit, or Ctrl-D)")

    def _say(self, text: str) -> None:
        self.renderer.line(self.style.dim(text))
        self.renderer.settle()  # redraws the prompt with what was typed so far

    async def _cancel_starting(self) -> None:
        """Runs the root starts are cancelled until the host's background work is
        done (the next line the person submits ends it too)."""
        try:
            await self.host.wait_background_idle()
        finally:
            self.background.cancel_starting = False

    async def _abort_when_running(self) -> None:
        while not self.agent.quiescent:
            if self.agent.cancel(CancelCause(by="user")):
                return
            await trio.sleep(0.01)


def _route(host: HarnessHost, agent: Any) -> str:
    if agent.options.route:
        return str(agent.options.route)
    model = host.loop_settings().model
    if model:
        return model
    if agent.last_route:
        return f"{agent.last_route[0]}/{agent.last_route[1]}"
    return "(no model configured)"


def _resume_summary(agent: Any, style: Style) -> list[str]:
    lines = []
    for text in list(render_events(agent.session.events, style))[-RESUME_LINES:]:
        first = text.splitlines()[0] if text else ""
        lines.append(first if len(first) <= RESUME_WIDTH else first[: RESUME_WIDTH - 1] + "…")
    return lines


async def run_chat(
    args: argparse.Namespace,
    rows: tuple[ProfileRow, ...],
    home: Path,
    *,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    cwd = workspace(args.cwd)
    options = agent_options(args.model)
    try:
        return await _chat(args, rows, home, cwd, options, stdin, out)
    except BaseExceptionGroup as group:
        # the host's nurseries wrap errors; a lone DshError (an unknown --session)
        # is a usage error for ``main`` to print, not a traceback
        lone = single_dsh_error(group)
        if lone is None:
            raise
        raise lone from None



async def _chat(
    args: argparse.Namespace,
    rows: tuple[ProfileRow, ...],
    home: Path,
    cwd: Path,
    options: AgentOptions,
    stdin: TextIO,
    out: TextIO,
) -> int:
    with preserved_terminal(stdin), trio.open_signal_receiver(signal.SIGINT) as signals:
        # the reader's source is picked once the commands are known (completion);
        # the renderer and approver must exist before the host loads plugins
        reader = LineReader(out)
        renderer = ChatRenderer(out, reader)
        approver = TerminalApprover(reader, renderer.line, renderer.style)
        background = BackgroundRuns()
        plugins = [("console", renderer), ("chat-approver", approver), ("chat-background", background)]
        async with open_host(rows=rows, dsh_home=home, cwd=cwd, headless=False, extra_plugins=plugins) as host:
            reader.source = open_line_source(stdin, out, [c.name for c in host.commands.list()])
            handle, unsubscribe = await attach_root(host, args.session, cwd, options, renderer, args.sandbox)
            agent = handle.agent
            background.root_id = agent.id
            style = renderer.style
            renderer.line(
                style.bold("harness chat")
                + f" · session {agent.id} · model {_route(host, agent)}"
                + style.dim(" · /help for commands, Ctrl-D to exit")
            )
            if args.session:
                renderer.line(style.dim(f"resumed after turn {agent.turn_number}; last lines:"))
                for text in _resume_summary(agent, style):
                    renderer.line("  " + text)
            chat = Chat(host, agent, reader, renderer, background, interactive=stdin.isatty())
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(reader.serve)
                    nursery.start_soon(chat.interrupts, signals, nursery)
                    await chat.run()
                    nursery.cancel_scope.cancel()
            finally:
                unsubscribe()
            if reader.prompt_visible:  # leave the shell's prompt on a fresh line
                reader.prompt_visible = False
                renderer.line("")
            await handle.dispose()
    return 0


__all__ = ["add_chat_parser", "run_chat"]
