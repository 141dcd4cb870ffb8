"""The Stop hook's whole run, bounded by ``--timeout`` from process start.

The agent waits for its Stop hook, and kills it at its own timeout (Claude
Code: 60 s) with the finding lost and an error shown. So ``--timeout`` bounds
everything the hook does, the interpreter's start and the imports included,
not only the review (a 200 MB one-line transcript once made the hook run
~60 s with the default bound of 50).

The work runs in a forked child and the parent only waits. A cancel scope or
an alarm signal cannot do this: both act between bytecodes, and one long C
call (``json.loads`` of a huge line, a regex over it) holds the interpreter
until it returns. The child is killed at the bound and the parent answers
``{}`` (the agent stops) with one line on stderr. The child hands its answer
to the parent through a pipe rather than writing stdout itself, so a child
killed mid-answer never leaves half a JSON document on stdout.

A killed child may leave what it was writing unfinished; every file the hook
writes is replaced atomically, and a first imported session cut short stays
without a mapping, as a killed hook always left it (docs/foreign-agents.md).
"""

from __future__ import annotations

import json
import math
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

#: the prefix of the one stderr line a failure writes (the hook's too)
PROG = "harness shadow hook"
#: what the child's answer may hold: a reason is bounded well below this
_MAX_ANSWER = 1 << 20


def timeout_of(argv: Sequence[str], *, default: float) -> float:
    """``--timeout`` read from the raw arguments, before anything is parsed or
    imported; a bad value keeps ``default`` (the parser reports it later)."""
    text: str | None = None
    for index, arg in enumerate(argv):
        if arg == "--timeout" and index + 1 < len(argv):
            text = argv[index + 1]
        elif arg.startswith("--timeout="):
            text = arg.partition("=")[2]
    try:
        value = float(text) if text is not None else default
    except ValueError:
        return default
    return value if math.isfinite(value) and value > 0 else default


def since_process_start() -> float:
    """Seconds since this process started (0 when the system does not say):
    the interpreter's start and every import count against the bound."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            # the fields after the command name, which may hold spaces and parentheses
            fields = handle.read().rpartition(b")")[2].split()
        with open("/proc/uptime", "rb") as handle:
            uptime = float(handle.read().split()[0])
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0
    return max(0.0, uptime - started)


def run_bounded(work: Callable[[], dict[str, Any]], *, seconds: float) -> dict[str, Any]:
    """``work()``'s answer if it comes within ``seconds``, else ``{}`` with one stderr line."""
    if seconds <= 0:
        return _timed_out()
    if not hasattr(os, "fork"):
        return work()  # no fork here: only the review's own bound applies
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: do the work, hand the answer over, never return
        os.close(read_end)
        _child(work, write_end)
    os.close(write_end)
    try:
        raw = _collect(read_end, pid, time.monotonic() + seconds)
    finally:
        os.close(read_end)
    if raw is None:
        return _timed_out()
    try:
        answer = json.loads(raw)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        _fail("internal error: the hook ended without an answer")
        return {}
    return answer


def _child(work: Callable[[], dict[str, Any]], write_end: int) -> None:
    status = 0
    try:
        payload = json.dumps(work(), ensure_ascii=False).encode("utf-8")
        view = memoryview(payload)
        while view:
            view = view[os.write(write_end, view) :]
    except BaseException:  # the work reports its own failures; this is the last resort
        status = 1
    finally:
        sys.stderr.flush()
        os._exit(status)  # never the parent's atexit handlers or buffered stdout


def _collect(fd: int, pid: int, deadline: float) -> bytes | None:
    """The child's whole answer, or None once ``deadline`` passed (the child is killed)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        ready = select.select([fd], [], [], left)[0] if left > 0 else []
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        chunk = os.read(fd, 65536)
        if not chunk:  # the child closed its end: it answered, or died trying
            os.waitpid(pid, 0)
            return b"".join(chunks)
        size += len(chunk)
        if size <= _MAX_ANSWER:
            chunks.append(chunk)


def _timed_out() -> dict[str, Any]:
    _fail("--timeout ran out (the interpreter's start included): the agent stops without a review")
    return {}


def _fail(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)
