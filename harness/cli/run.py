"""``harness run``: one headless prompt, streamed, then drained."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import trio

from hookspecs.errors import DshError
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, CancelCause, CancelToken, EventTypes, create_user_message

from ..host import HarnessHost, open_host
from ..host import drain as drain  # its home was here: still importable from here
from ..llm.routes import parse_route
from ..profiles import ProfileRow
from .common import EXIT_BROKEN_PIPE, EXIT_CODES, EXIT_INTERRUPTED, EXIT_USAGE, discard_output, resume_collection
from .parsers import add_run_parser, add_sandbox_argument
from .render import LiveRenderer, message_text


def workspace(cwd: str | None) -> Path:
    """The ``--cwd`` directory, resolved (default: the current directory).

    Sync on purpose: it runs once before the host starts, when nothing else
    could be blocked."""
    path = Path(cwd).resolve() if cwd else Path.cwd()
    if not path.is_dir():
        raise DshError(f"--cwd {cwd!r} is not a directory", code="USAGE")
    return path


def agent_options(model: str | None) -> AgentOptions:
    if not model:
        return AgentOptions()
    try:
        provider, name = parse_route(model, where="--model")
    except ValueError as exc:
        raise DshError(str(exc), code="USAGE") from None
    return AgentOptions(provider=provider, model=name)


async def attach_root(
    host: HarnessHost,
    session_id: str | None,
    cwd: Path,
    options: AgentOptions,
    renderer: LiveRenderer,
    sandbox: str | None = None,
) -> tuple[Any, Callable[[], None]]:
    """Resume ``session_id`` (or create a root in ``cwd``), record ``sandbox``
    as its sandbox mode, show it through ``renderer`` and forward the client's
    cards and notices; returns the handle and the unsubscriber for the client feed."""
    if session_id:
        handle = await host.agents.resume(session_id, agent_options=options)
    else:
        handle = await host.agents.create(CreateAgentOptions(cwd=str(cwd), agent_options=options))
    if sandbox:
        handle.agent.session.append(EventTypes.SANDBOX_MODE, {"mode": sandbox, "source": "cli"})
    renderer.watch(handle.agent.id)
    unsubscribe = host.client.subscribe(lambda item: renderer.client_item(item, host.client.render))
    resume_collection()  # start-up is over: the host, its plugins and the root are built
    return handle, unsubscribe


class Halt:
    """Why ``harness run`` stops before its drain ends, and the one way to stop it.

    The first Ctrl-C or a stdout whose reader went away aborts the running turn
    (a user abort, so plugins cancel their work for it too), cancels a running
    command and stops waiting for background work; the root's disposal then
    cancels what is left, shielded and bounded."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.why: str | None = None
        self.command = CancelToken()
        self.scope = trio.CancelScope()

    def __call__(self, why: str) -> None:
        if self.why is not None:
            return
        self.why = why
        user = CancelCause(by="user")
        self.agent.cancel(user)
        self.command.cancel(user)
        self.scope.cancel()

    async def on_interrupts(self, signals: Any) -> None:
        async for _ in signals:
            self("interrupted")  # later presses change nothing: cleanup is bounded


async def run_prompt(
    args: argparse.Namespace, rows: tuple[ProfileRow, ...], home: Path, *, out: Any = None
) -> int:
    out = out or sys.stdout
    cwd = workspace(args.cwd)
    options = agent_options(args.model)
    # Ctrl-C is ours from the start to the end of cleanup: never a KeyboardInterrupt
    receiver = nullcontext(None) if args.no_signals else trio.open_signal_receiver(signal.SIGINT)
    with receiver as signals:
        return await _run(args, rows, home, cwd, options, out, signals)


async def _run(
    args: argparse.Namespace,
    rows: tuple[ProfileRow, ...],
    home: Path,
    cwd: Path,
    options: AgentOptions,
    out: Any,
    signals: Any,
) -> int:
    renderer = LiveRenderer(sys.stderr if args.json else out, show_reasoning=args.show_reasoning)
    async with open_host(rows=rows, dsh_home=home, cwd=cwd, headless=True, extra_plugins=[("console", renderer)]) as host:
        handle, unsubscribe = await attach_root(host, args.session, cwd, options, renderer, args.sandbox)
        agent = handle.agent
        start = agent.session.seq
        halt = Halt(agent)
        if not args.json:
            renderer.on_closed = lambda: halt("broken-pipe")
        code = -1
        try:
            async with trio.open_nursery() as nursery:
                if signals is not None:
                    nursery.start_soon(halt.on_interrupts, signals)
                with halt.scope:
                    code = await _send(host, agent, args.prompt, out, halt.command)
                    await drain(host, agent)
                nursery.cancel_scope.cancel()
        finally:
            unsubscribe()
        events = agent.session.events_since(start)
        ends = [e for e in events if e.type == EventTypes.TURN_END]
        if code < 0:
            kind = ends[-1].data["reason"]["kind"] if ends else "completed"
            code = EXIT_CODES.get(kind, 1)
        if halt.why == "interrupted":
            code = EXIT_INTERRUPTED
            print("harness: interrupted", file=sys.stderr, flush=True)
        if args.json and halt.why is None:
            if not _write_json(out, _transcript(agent, events, ends, code)):
                halt.why = "broken-pipe"
        if halt.why == "broken-pipe":
            code = EXIT_BROKEN_PIPE
        await handle.dispose()
        return code


async def _send(host: HarnessHost, agent: Any, prompt: str, out: Any, cancel: CancelToken) -> int:
    """Run a /command (its exit code) or queue the prompt for a turn (-1)."""
    if not prompt.startswith("/"):
        agent.followup(create_user_message(prompt))
        return -1
    result = await host.commands.execute(agent, prompt, cancel=cancel)
    if result is None:
        raise DshError(f"unknown command {prompt.split()[0]!r}; try /help", code="USAGE")
    stream = out if result.kind == "success" else sys.stderr
    try:
        print(result.text, file=stream, flush=True)
    except BrokenPipeError:
        discard_output(stream)
    return 0 if result.kind == "success" else 1


def _transcript(agent: Any, events: Any, ends: Any, code: int) -> dict[str, Any]:
    final = ""
    for event in events:
        if event.type == EventTypes.ASSISTANT_MESSAGE:
            final = message_text(event.data.get("message")) or final
    return {
        "session_id": agent.id,
        "exit_code": code,
        "turns": [e.data for e in ends],
        "final_text": final,
        "events": [
            {"seq": e.seq, "type": e.type, "time": e.time, "data": e.data}
            for e in events
            if e.type != EventTypes.ASSISTANT_CHUNK
        ],
    }


def _write_json(out: Any, payload: dict[str, Any]) -> bool:
    """Print the JSON transcript; False when the reader went away."""
    try:
        json.dump(payload, out, ensure_ascii=False, indent=2)
        out.write("\n")
        out.flush()
    except BrokenPipeError:
        discard_output(out)
        return False
    return True


__all__ = ["EXIT_USAGE", "add_run_parser", "add_sandbox_argument", "run_prompt"]
