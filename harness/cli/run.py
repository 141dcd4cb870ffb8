"""``harness run``: one headless prompt, streamed, then drained."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from hookspecs.errors import DshError
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, CancelCause, EventTypes, create_user_message

from ..host import HarnessHost, open_host
from ..llm.routes import parse_route
from ..profiles import ProfileRow
from ..tools.builtin.bash import SANDBOX_MODES
from .common import EXIT_CODES, EXIT_USAGE
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
    return handle, unsubscribe


async def drain(host: HarnessHost, agent: Any) -> None:
    """Wait until the agent is idle *and* no plugin background work is running.

    Background work may wake the agent again (a reviewer's follow-up), so the
    two waits repeat until both hold at once.
    """
    while True:
        await agent.when_idle()
        await host.wait_background_idle()
        await trio.lowlevel.checkpoint()
        if agent.quiescent and not host.background_busy:
            return


async def _interrupts(agent: Any, out: Any) -> None:
    """First Ctrl-C aborts the running turn (a user abort); the second quits."""
    with trio.open_signal_receiver(signal.SIGINT) as signals:
        pressed = 0
        async for _ in signals:
            pressed += 1
            if pressed >= 2:
                raise KeyboardInterrupt
            if agent.cancel(CancelCause(by="user")):
                print("\n(interrupted; press Ctrl-C again to quit)", file=out, flush=True)


async def run_prompt(
    args: argparse.Namespace, rows: tuple[ProfileRow, ...], home: Path, *, out: Any = None
) -> int:
    out = out or sys.stdout
    cwd = workspace(args.cwd)
    options = agent_options(args.model)
    renderer = LiveRenderer(sys.stderr if args.json else out, show_reasoning=args.show_reasoning)
    async with open_host(rows=rows, dsh_home=home, cwd=cwd, headless=True, extra_plugins=[("console", renderer)]) as host:
        handle, unsubscribe = await attach_root(host, args.session, cwd, options, renderer, args.sandbox)
        agent = handle.agent
        start = agent.session.seq
        try:
            async with trio.open_nursery() as nursery:
                if not args.no_signals:
                    nursery.start_soon(_interrupts, agent, sys.stderr)
                if args.prompt.startswith("/"):
                    result = await host.commands.execute(agent, args.prompt)
                    if result is None:
                        raise DshError(f"unknown command {args.prompt.split()[0]!r}; try /help", code="USAGE")
                    print(result.text, file=out if result.kind == "success" else sys.stderr)
                    code = 0 if result.kind == "success" else 1
                else:
                    agent.followup(create_user_message(args.prompt))
                    code = -1
                await drain(host, agent)
                nursery.cancel_scope.cancel()
        finally:
            unsubscribe()
        events = agent.session.events_since(start)
        ends = [e for e in events if e.type == EventTypes.TURN_END]
        if code < 0:
            kind = ends[-1].data["reason"]["kind"] if ends else "completed"
            code = EXIT_CODES.get(kind, 1)
        if args.json:
            final = ""
            for event in events:
                if event.type == EventTypes.ASSISTANT_MESSAGE:
                    final = message_text(event.data.get("message")) or final
            payload = {
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
            json.dump(payload, out, ensure_ascii=False, indent=2)
            out.write("\n")
        await handle.dispose()
        return code


def add_sandbox_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        help="sandbox mode for bash (workspace-write, read-only: bubblewrap, no network); default: unconfined",
    )


def add_run_parser(sub: Any, add_profile_arguments: Any) -> None:
    parser = sub.add_parser("run", help="run one prompt headless and print the transcript")
    add_profile_arguments(parser)
    parser.add_argument("prompt", help="the prompt (or a /command)")
    parser.add_argument("--model", metavar="PROVIDER/MODEL", help="route for the root agent")
    parser.add_argument("--cwd", metavar="DIR", help="workspace the file tools are confined to (default: .)")
    add_sandbox_argument(parser)
    parser.add_argument("--session", metavar="ID", help="continue an existing session")
    parser.add_argument("--json", action="store_true", help="print a JSON transcript instead of streaming text")
    parser.add_argument("--show-reasoning", action="store_true", help="stream reasoning (dimmed)")
    parser.add_argument("--no-signals", action="store_true", help=argparse.SUPPRESS)


__all__ = ["EXIT_USAGE", "add_run_parser", "add_sandbox_argument", "run_prompt"]
