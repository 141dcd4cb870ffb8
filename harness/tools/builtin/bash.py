"""``bash``: run a shell command in the workspace, with a timeout and cancellation.

The command runs as ``/bin/sh -c`` in its own session (process group), so a
timeout or an abort kills everything it started, not just the shell. stdout and
stderr are merged in the order they were written, and only the head and tail of
a flood of output are kept.

Confinement follows the session's sandbox mode (the last ``sandbox/mode`` event
in the agent's log; ``harness run|chat --sandbox MODE`` writes one, children
inherit their parent's):

* no mode, or ``danger-full-access``: **not confined**. The shell runs with the
  host user's rights: it can read any file the user can, write outside the
  workspace and use the network. Only approval stands in its way.
* ``workspace-write``: under bubblewrap (``bwrap``): the whole file system is
  mounted read-only except the workspace (writable) and a private empty
  ``/tmp``; no network (``--unshare-net``: only a loopback of its own), its
  own PID and IPC namespaces, killed with the host.
* ``read-only``: the same, with the workspace read-only too.
* anything else: refused (``SANDBOX_UNAVAILABLE``), never run unconfined.

When bwrap is missing, or cannot create namespaces here (unprivileged user
namespaces disabled, a container without the rights), the call fails with
``SANDBOX_UNAVAILABLE`` and a one-line reason; the command is not run.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import weakref
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import attrs
import trio

from hookspecs.errors import ToolError
from hookspecs.protocols import ToolRunContext
from hookspecs.scrub import scrub_text
from hookspecs.values import TextBlock, ToolFailure, ToolResult
from hookspecs.values.cancel import CancelToken

from ...sessions.latest import LatestSandboxMode
from ..sandbox_modes import SANDBOX_MODES, UNCONFINED, WORKSPACE_WRITE
from ..workspace import workspace_root
from . import catalog
from ._files import os_reason
from .catalog import DEFAULT_TIMEOUT
from .shell_env import shell_environment

MAX_OUTPUT_CHARS = 30_000
#: After the shell exits, how long background children may keep the output pipe
#: open before we stop reading (they are left running).
DRAIN_GRACE_SECONDS = 0.5
SHELL = "/bin/sh"

#: Namespaces and mounts every sandboxed command gets (the workspace is added).
_ISOLATION = (
    "--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent",
    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
)  # fmt: skip
PROBE_SECONDS = 10.0
#: bwrap path -> why it cannot start here ("" when it can); probed once per process
_probed: dict[str, str] = {}


@attrs.define
class _Capture:
    """Keeps the first and last ``limit / 2`` bytes of the output; counts the rest."""

    limit: int = MAX_OUTPUT_CHARS
    head: bytearray = attrs.field(factory=bytearray)
    tail: bytearray = attrs.field(factory=bytearray)
    dropped: int = 0
    closed: trio.Event = attrs.field(factory=trio.Event)

    def add(self, chunk: bytes | bytearray) -> None:
        half = self.limit // 2
        room = half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            excess = len(self.tail) - (self.limit - half)
            if excess > 0:
                self.dropped += excess
                del self.tail[:excess]

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if self.dropped:
            return f"{head}\n\n… [output truncated: {self.dropped} bytes omitted] …\n\n{tail}"
        return head + tail

    async def pump(
        self, stream: trio.abc.ReceiveStream, *, task_status: Any = trio.TASK_STATUS_IGNORED
    ) -> None:
        try:
            with trio.CancelScope() as scope:
                task_status.started(scope)
                async with stream:
                    async for chunk in stream:
                        self.add(chunk)
        finally:
            self.closed.set()


@attrs.frozen
class _Outcome:
    output: str
    truncated: bool
    exit_code: int | None  # None: killed by us (timeout or cancellation)
    timed_out: bool
    cancelled: bool


async def _kill_group(process: trio.Process) -> None:
    """``deliver_cancel`` for ``run_process``: SIGKILL the whole process group at once."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# the deadline is part of the result (``timed_out`` with the output so far), not only a cancellation
async def run_shell(
    command: str,
    cwd: str,
    timeout: float,  # noqa: ASYNC109
    cancel: CancelToken,
    *,
    argv: list[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> _Outcome:
    """Run ``command`` (through ``argv``, a sandbox launcher ending in
    ``sh -c command``, when given) with ``env`` (default: the host's own);
    killed (with its whole process group) on timeout or when ``cancel`` fires.
    Raises :class:`ToolError` when the shell cannot start."""
    capture = _Capture()
    completed: int | None = None
    start_error: OSError | None = None
    with trio.CancelScope() as aborted:
        unbind = cancel.bind(aborted)
        try:
            with trio.move_on_after(timeout) as deadline:
                async with trio.open_nursery() as nursery:
                    try:
                        process: trio.Process = await nursery.start(
                            partial(
                                trio.run_process,
                                argv or [SHELL, "-c", command],
                                cwd=cwd,
                                env=env,
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                check=False,
                                start_new_session=True,
                                deliver_cancel=_kill_group,
                            )
                        )
                    except OSError as exc:
                        # Raised after the nursery closes: raising inside it would
                        # wrap the error in an exception group.
                        start_error = exc
                    else:
                        assert process.stdout is not None
                        pump = await nursery.start(capture.pump, process.stdout)
                        completed = await process.wait()
                        with trio.move_on_after(DRAIN_GRACE_SECONDS):
                            await capture.closed.wait()
                        pump.cancel()
        finally:
            unbind()
    if start_error is not None:
        raise ToolError(f"cannot start {SHELL}: {os_reason(start_error)}")
    return _Outcome(
        output=capture.text(),
        truncated=capture.dropped > 0,
        exit_code=completed,
        timed_out=completed is None and deadline.cancelled_caught,
        cancelled=completed is None and (aborted.cancelled_caught or cancel.cancelled),
    )


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"exit code {code} (killed by signal {signal.Signals(-code).name})"
        except ValueError:
            pass
    return f"exit code {code}"


def _result(outcome: _Outcome, timeout: float) -> ToolResult:
    output = outcome.output if outcome.output else "(no output)"
    value = {
        "exit_code": outcome.exit_code,
        "timed_out": outcome.timed_out,
        "cancelled": outcome.cancelled,
        "truncated": outcome.truncated,
    }
    if outcome.exit_code is None:
        if outcome.timed_out:
            message = f"command timed out after {timeout:g} seconds and was killed"
            failure = ToolFailure(code="TIMEOUT", message=message)
        else:
            failure = ToolFailure(code="ABORTED", message="command was cancelled and killed")
        text = f"{failure.message}\n{output}"
        return ToolResult(is_error=True, content=(TextBlock(text=text),), value=value, error=failure)
    text = f"{_describe_exit(outcome.exit_code)}\n{output}"
    if outcome.exit_code != 0:
        message = f"command failed with {_describe_exit(outcome.exit_code)}"
        failure = ToolFailure(code="NONZERO_EXIT", message=message)
        return ToolResult(is_error=True, content=(TextBlock(text=text),), value=value, error=failure)
    return ToolResult.text(text, value=value)


_SANDBOX = LatestSandboxMode()


def sandbox_mode(agent: Any) -> str | None:
    """The last ``sandbox/mode`` in ``agent``'s log, or None."""
    session = getattr(agent, "session", None)
    return _SANDBOX.of(session) if getattr(session, "events", None) is not None else None


def _unavailable(mode: str, why: str) -> ToolError:
    return ToolError(f"sandbox mode {mode!r}: {why}; the command was not run", code="SANDBOX_UNAVAILABLE")


async def _probe(bwrap: str) -> str:
    """Why ``bwrap`` cannot start a sandbox here ("" when it can); cached."""
    if bwrap not in _probed:
        reason = ""
        with trio.move_on_after(PROBE_SECONDS) as waited:
            try:
                done = await trio.run_process(
                    [bwrap, *_ISOLATION, "--", SHELL, "-c", "true"],
                    stdin=subprocess.DEVNULL,
                    capture_stdout=True,
                    capture_stderr=True,
                    check=False,
                )
            except OSError as exc:
                reason = os_reason(exc)
            else:
                if done.returncode != 0:
                    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
                    reason = lines[0] if lines else f"bwrap exited with code {done.returncode}"
        if waited.cancelled_caught:
            reason = f"bwrap did not start within {PROBE_SECONDS:g}s"
        _probed[bwrap] = " ".join(scrub_text(reason, limit=200).split())
    return _probed[bwrap]


async def sandbox_argv(mode: str | None, command: str, cwd: Path) -> list[str] | None:
    """The bwrap command line for ``mode`` (None: unconfined); ``ToolError``
    ``SANDBOX_UNAVAILABLE`` when the sandbox cannot be had."""
    if mode is None or mode == UNCONFINED:
        return None
    if mode not in SANDBOX_MODES:
        known = ", ".join(SANDBOX_MODES)
        raise _unavailable(mode, f"unknown sandbox mode {mode!r} (bash knows {known})")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise _unavailable(mode, "needs bubblewrap (bwrap), which is not installed (Debian: apt-get install bubblewrap)")
    reason = await _probe(bwrap)
    if reason:
        raise _unavailable(mode, f"the sandbox cannot start here: {reason} (are unprivileged user namespaces enabled?)")
    root = str(workspace_root(cwd))
    if not await trio.Path(root).is_dir():
        raise _unavailable(mode, "the workspace is not a directory")
    bind = "--bind" if mode == WORKSPACE_WRITE else "--ro-bind"
    return [bwrap, *_ISOLATION, bind, root, root, "--chdir", root, "--", SHELL, "-c", command]


#: runtime -> the protected names it has already warned about (once each, not per call)
_warned: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def _environment(runtime: Any) -> dict[str, str]:
    """The shell's environment (see :mod:`.shell_env`) under ``runtime``'s settings and profile."""
    if runtime is None:
        return shell_environment(os.environ)
    protected: frozenset[str] = runtime.protected_env
    passed = runtime.loop_settings().bash_pass_env
    warned = _warned.setdefault(runtime, set())
    for name in sorted(set(passed) & protected - warned):
        warned.add(name)
        runtime.logger.warning(
            "agent-loop.bash_pass_env: %s is ignored: a provider's api_key_env names it, and bash never gets that key",
            name,
        )
    return shell_environment(os.environ, passed, protected=protected)


async def execute(args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
    timeout = args.get("timeout_seconds", DEFAULT_TIMEOUT)
    argv = await sandbox_argv(sandbox_mode(ctx.agent), args["command"], Path(ctx.cwd))
    env = _environment(getattr(ctx.agent, "runtime", None))
    outcome = await run_shell(args["command"], str(ctx.cwd), timeout, ctx.cancel, argv=argv, env=env)
    return _result(outcome, timeout)


#: the definition offered to models (:mod:`.catalog`); its ``execute`` calls this module's
TOOL = catalog.BASH
