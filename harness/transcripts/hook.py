"""``harness shadow hook claude-code|codex``: the Stop-hook bridge.

Claude Code (``Stop`` / ``SubagentStop``) and Codex (``Stop``, behind the
``codex_hooks`` feature) run a command hook with a JSON object on stdin
(``session_id``, ``transcript_path``, ``cwd``, ``stop_hook_active``). The
bridge appends the transcript's new lines to its imported session, where the
plugin admits a review or not by its own rules (:mod:`.governed`), and
answers on stdout in the hooks' shared output format: a report is
``{"decision": "block", "reason": <finding>}`` (the agent continues with the
finding as its next input); anything else is ``{}`` (the agent stops).

A per-session state file (``$DSH_HOME/imports/hooks/<agent>-<session>.json``,
0600, written atomically) maps the agent's session to its imported session
(:class:`.record.ImportRecord`) and remembers the transcript it last saw.
Loops are cut twice: ``stop_hook_active`` (the agent is already continuing
because of a stop hook) never reviews, and a transcript that has not changed
since the last call is not looked at again.
``--timeout`` bounds the hook's whole run from process start, the import
included (:mod:`.bound`), so the answer comes inside the agent's own hook
timeout; the review gets what is left, less a margin to record its outcome.

The exit status is always 0. Claude Code treats exit 2 as "block the stop"
and feeds stderr to the model, so a misconfigured hook must never exit 2: a
finding goes back as the ``block`` answer on stdout, and every failure (bad
arguments, bad stdin, an unreadable transcript, an internal error) answers
``{}`` (the agent stops as usual) with exactly one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from harness.cli.profile_args import add_profile_arguments, dsh_home, load_profile
from hookspecs.errors import DshError

from . import quiet
from .args import positive_seconds
from .bound import PROG, run_bounded, since_process_start, timeout_of
from .seen import Seen, unchanged
from .statefile import load_json, save_json

if TYPE_CHECKING:
    from .model import Format
    from .reader import TranscriptSource
    from .record import ImportRecord
    from .review import ReviewOutcome

AGENTS: dict[str, Format] = {"claude-code": "claude-code", "codex": "codex"}
STATE_DIR = "imports/hooks"
MAX_INPUT = 1024 * 1024
#: well inside Claude Code's default 60 s command-hook timeout
DEFAULT_TIMEOUT = 50.0
#: kept back from the review's bound to dispose of the host and record the outcome
MARGIN = 5.0
#: a reason handed back to the agent is bounded
MAX_REASON = 8000
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


#: every exit: a finding is the ``block`` answer on stdout, never exit 2
EXIT_OK = 0
#: the string fields a path or a key is taken from; anything else is ignored
_STRING_FIELDS = ("session_id", "transcript_path", "agent_transcript_path", "agent_id", "cwd")


class HookInputError(DshError):
    """The hook's stdin is not what the agent sends."""


class HookUsageError(DshError):
    """The hook's command line is wrong (an unknown agent, a bad ``--timeout``)."""


class _Parser(argparse.ArgumentParser):
    """Raises instead of printing the usage and exiting 2: exit 2 blocks the stop."""

    def error(self, message: str) -> NoReturn:
        raise HookUsageError(f"{message} (usage: {PROG} claude-code|codex [--profile P] [--timeout S])")


def hook_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Review a Claude Code or Codex transcript from the agent's Stop hook (JSON on stdin and stdout).",
    )
    parser.add_argument("agent", choices=sorted(AGENTS), help="the agent whose Stop hook runs this")
    add_profile_arguments(parser)
    parser.add_argument(
        "--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT, metavar="S", help="bound on the review"
    )
    return parser


def read_hook_input(raw: bytes) -> dict[str, Any]:
    """The hook's stdin as a JSON object; anything else is a :class:`HookInputError`."""
    if len(raw) > MAX_INPUT:
        raise HookInputError(f"stdin: the hook input is larger than {MAX_INPUT} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        # RecursionError: JSON nested deeper than the parser's stack ([[[[…]]]])
        raise HookInputError("stdin: the hook input is not a JSON object") from None
    if not isinstance(data, dict):
        raise HookInputError("stdin: the hook input is not a JSON object")
    for key in _STRING_FIELDS:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise HookInputError(f"stdin: field '{key}' must be a string")
        if isinstance(value, str) and "\x00" in value:
            raise HookInputError(f"stdin: field '{key}' holds a NUL character")
    if not isinstance(data.get("session_id"), str) or not data["session_id"]:
        raise HookInputError("stdin: field 'session_id' is missing")
    return data


def transcript_of(hook: dict[str, Any]) -> str | None:
    """A subagent's own transcript on ``SubagentStop`` when the agent names it, else the session's."""
    own = hook.get("agent_transcript_path")
    if hook.get("hook_event_name") == "SubagentStop" and isinstance(own, str) and own:
        return own
    path = hook.get("transcript_path")
    return path if isinstance(path, str) and path else None


def state_key(hook: dict[str, Any]) -> str:
    """One state file per session, and per subagent within it."""
    agent_id = hook.get("agent_id")
    return f"{hook['session_id']}-{agent_id}" if isinstance(agent_id, str) and agent_id else str(hook["session_id"])


def state_path(home: Path, agent: str, session_id: str) -> Path:
    safe = _UNSAFE.sub("-", session_id).strip("-.")[:100] or "session"
    return home / STATE_DIR / f"{agent}-{safe}.json"


def load_state(path: Path) -> dict[str, Any]:
    value = load_json(path)  # no state yet, or a damaged file: start over (it is rewritten whole)
    return value if isinstance(value, dict) else {}


def save_state(path: Path, state: dict[str, Any]) -> None:
    save_json(path, state)


def feedback(outcome: ReviewOutcome) -> str:
    """The finding as the agent reads it: the report, then its refs as transcript lines."""
    lines = [outcome.report or ""]
    cited = [f"transcript line {r['transcript_line']}" for r in outcome.refs if r.get("transcript_line")]
    if cited:
        lines.append("Evidence: " + ", ".join(cited) + ".")
    from hookspecs.scrub import scrub_text

    return scrub_text("\n".join(lines).strip(), limit=MAX_REASON)


def decide(
    args: argparse.Namespace, hook: dict[str, Any], home: Path, *, deadline: float | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(answer for stdout, changes to the state file)``; the review ends
    :data:`MARGIN` before ``deadline`` (monotonic), so its outcome is recorded
    before the whole run's bound would cut the hook off."""
    if hook.get("stop_hook_active") is True:
        return {}, {"last_skip": "stop_hook_active"}
    path = transcript_of(hook)
    if not path:
        return {}, {"last_skip": "no_transcript"}
    where = state_path(home, args.agent, state_key(hook))
    state = load_state(where)
    if unchanged(Path(path), Seen.from_state(state)):  # reads at most the last window, parses nothing
        return {}, {"last_skip": "unchanged"}
    patches = list(args.patch or [])
    settled = quiet.still_quiet(state.get("quiet"), home, args.profile, patches)
    if settled is not None:
        # the plugin said no review for any turn, and nothing it read has changed (:mod:`.quiet`)
        seen_now = Seen.of_path(Path(path))
        return {}, {"last_skip": "quiet", "last_reason_code": settled, **(seen_now.to_state() if seen_now else {})}
    # the importers, the host and the plugins load only now that there is something to decide;
    # the collector rests while they are built (resumed once the root is attached, as for `run`)
    from harness.cli.common import pause_collection, resume_collection

    pause_collection()
    try:
        from .governed import review_governed
        from .lag import drop_flushed, lagged_note, with_last_message
        from .record import ImportRecord
        from .review import run_trio
        from .workspace import choose_workspace

        inputs = quiet.snapshot(home, args.profile, patches)
        record = ImportRecord.from_json(state.get("import"))
        read = read_new(Path(path), record, home)
        seen = Seen.of_source(read).to_state()
        fmt = AGENTS[args.agent]
        # the transcript may lag the Stop: its final message comes from the input (:mod:`.lag`)
        flushed = drop_flushed(read, state.get("lagged_message"), fmt, imported_through=record.lines if record else None)
        source = with_last_message(flushed, hook.get("last_assistant_message"), fmt)
        composed = load_profile(args, home)
        rows = composed.rows if composed else ()
        # the agent's own cwd for this session, never the one the transcript records
        workspace = choose_workspace(
            hook.get("cwd"), dsh_home=home, missing="the hook input names no cwd", relative_ok=False
        )

        def keep(record: ImportRecord | None) -> None:
            # saved at once: the session already holds what the record says, even
            # if the review after it fails
            save_state(where, {**load_state(where), "import": record.to_json() if record is not None else None})

        outcome = run_trio(
            lambda: review_governed(
                source,
                home=home,
                rows=rows,
                record=record,
                keep=keep,
                workspace=workspace,
                format=fmt,
                bound_seconds=review_bound(args.timeout, deadline),
            )
        )
    finally:
        resume_collection(freeze=False)  # a no-op when the review resumed it
    note: dict[str, Any] = {
        **seen,
        "last_skip": None,
        "last_outcome": outcome.phase,
        "last_reason_code": outcome.reason_code or outcome.run.get("reason_code"),
        "last_review_session": outcome.session_id,
        "restarted": outcome.restarted,
        "imported_lines": [outcome.transcript.first_line, outcome.transcript.lines],
        # where the skipped entries of an unknown kind are, so a person can find them
        "unknown_lines": outcome.transcript.unknown_lines,
        "workspace": workspace.to_json(),
        # kept so the next Stop does not import the message again once it is flushed
        "lagged_message": lagged_note(flushed, source) if outcome.session_id else None,
        "quiet": quiet.memo(outcome.reason_code or "", inputs) if outcome.prechecked else None,
    }
    if outcome.phase == "report":
        return {"decision": "block", "reason": feedback(outcome)}, note
    return {}, note


def read_new(path: Path, record: ImportRecord | None, home: Path) -> TranscriptSource:
    """What the Stop imports: only the lines appended since the recorded import
    when its session goes on (:func:`.reader.read_appended`), else the whole file."""
    from .reader import read_appended, read_source
    from .record import transcript_key
    from .session import continuation

    if record is not None and record.appendable and record.path == transcript_key(path):
        assert record.head_sha256 is not None and record.tail_sha256 is not None
        appended = read_appended(
            path, size=record.size, lines=record.lines, head_sha256=record.head_sha256, tail_sha256=record.tail_sha256
        )
        if appended is not None and continuation(record, appended, home).session_id is not None:
            return appended
    return read_source(path)


def review_bound(timeout: float, deadline: float | None) -> float:
    """What is left for the review: the whole run's bound, less what the start
    and the import used and :data:`MARGIN` to settle and record the outcome."""
    if deadline is None:
        return timeout
    return max(0.01, deadline - time.monotonic() - min(MARGIN, timeout / 10))


def hook_main(argv: Sequence[str]) -> int:
    """Always exit 0: the answer (``{}`` after any failure) on stdout, a failure as one line on stderr."""
    # the very first thing: the bound counts from process start (:mod:`.bound`)
    deadline = time.monotonic() + timeout_of(argv, default=DEFAULT_TIMEOUT) - since_process_start()
    answer = run_bounded(lambda: answer_hook(argv, deadline), seconds=deadline - time.monotonic())
    sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return EXIT_OK


def answer_hook(argv: Sequence[str], deadline: float | None = None) -> dict[str, Any]:
    """The answer for stdout; a failure is written as one stderr line and answered ``{}``."""
    try:
        return run_hook(argv, deadline)
    except DshError as exc:
        _fail(str(exc))
    except Exception as exc:
        _fail(f"internal error: {type(exc).__name__}: {exc}")
    return {}


def run_hook(argv: Sequence[str], deadline: float | None = None) -> dict[str, Any]:
    """Parse, read stdin (bounded by bytes read), decide and record; the answer for stdout."""
    args = hook_parser().parse_args(list(argv))
    home = dsh_home()
    hook = read_hook_input(sys.stdin.buffer.read(MAX_INPUT + 1))
    answer, note = decide(args, hook, home, deadline=deadline)
    path = state_path(home, args.agent, state_key(hook))
    save_state(path, {**load_state(path), **note, "session_id": hook["session_id"]})
    return answer


def _fail(message: str) -> None:
    from hookspecs.scrub import scrub_text, visible  # only on failure: the detector compiles on first use

    # one line, whatever the message holds (a path with a newline, a multi-line OS error)
    line = " ".join(visible(scrub_text(message, limit=2000)).split())
    print(f"{PROG}: {line}", file=sys.stderr)
