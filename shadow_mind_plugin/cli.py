"""Debug Shadow Mind runs from the journals and session logs (trace, health).

``harness shadow trace RUN|SESSION`` explains one run (or every run of a root
session) from the debug journals (``shadow-minds/logs/*.jsonl``, written when a
definition has ``debug: true``), the relay provenance in the root log, the
value-loop journal and the child session. ``harness shadow health`` checks the
journals' integrity and file modes and can repair them.

Output is metadata only: never prompt text, tool arguments, tool results or
report bodies (assistant text heads only with ``--show-text``), and never
absolute paths: files are named relative to the DSH home.

Reads files only: it needs no running host. Imports the standard library,
:mod:`hookspecs` and this package's vocabulary (definitions are parsed lazily,
for ``health``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import stat
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hookspecs.fsutil import write_atomic

from .governance.journal import LIFECYCLE_EVENTS
from .vocabulary import REPORT_SOURCE_KIND

ROOT_DIR = "shadow-minds"
LOG_DIR = "logs"
VALUE_LOOP_FILE = "value-loop.jsonl"
SESSIONS_DIR = "sessions"
SESSION_FILE = "session.jsonl"
CHILD_LABEL_PREFIX = "shadow:"
JOURNAL_SCHEMA_VERSION = 1
LIFECYCLE_FIELDS = (
    "schema_version",
    "time",
    "event",
    "run_id",
    "shadow_id",
    "root_session_id",
    "captured_through_seq",
    "phase",
    "stage",
)
DEBUG_RECORD_FIELDS = ("time", "event", "run_id")
VALUE_LOOP_FIELDS = (
    "time",
    "root_session_id",
    "shadow_id",
    "run_id",
    "classification",
    "relayed_at_seq",
    "refs",
    "observed_through_seq",
)
FILE_MODE = 0o600
DIR_MODE = 0o700
MIN_PREFIX = 6
NUL = b"\0"
TEXT_HEAD = 120
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])/[^\s/\"'`]+(?:/[^\s/\"'`]*)*|\b[A-Za-z]:\\[^\s\"'`]+")

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2


class CliError(Exception):
    """A user-facing failure: what was not found and how to get it."""


# --- shared helpers -------------------------------------------------------------------


def resolve_home(raw: str | None) -> Path:
    if raw:
        return Path(raw).expanduser()
    env = os.environ.get("DSH_HOME")
    return Path(env).expanduser() if env else Path.home() / ".dsh"


class Scrubber:
    """Rewrites absolute paths: the home's prefix is dropped, others become ``<path>``."""

    def __init__(self, home: Path) -> None:
        prefixes = {str(home), str(home.absolute())}
        try:
            prefixes.add(str(home.resolve()))
        except OSError:
            pass
        # a home at the file-system root has no prefix worth removing
        self._prefixes = sorted((p for p in prefixes if Path(p) != Path(p).parent), key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for prefix in self._prefixes:
            text = text.replace(prefix + os.sep, "").replace(prefix, "$DSH_HOME")
        return _ABSOLUTE_PATH.sub("<path>", text)


def iso_ms(epoch_ms: Any) -> str:
    if not isinstance(epoch_ms, (int, float)) or isinstance(epoch_ms, bool):
        return "?"
    try:
        moment = datetime.fromtimestamp(epoch_ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return "?"
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def head(text: str, limit: int = TEXT_HEAD) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def parse_json_line(raw: bytes) -> Any:
    """One JSON value; raises ValueError (incl. NaN/Infinity, bad UTF-8)."""
    return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)


def read_jsonl_objects(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The JSON object lines of ``path`` (1-based line numbers) and how many
    lines were skipped as damaged. A missing file reads as empty."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], 0
    records: list[tuple[int, dict[str, Any]]] = []
    skipped = 0
    for lineno, raw, _terminated in split_lines(data):
        if not raw.strip():
            continue
        try:
            value = parse_json_line(raw) if NUL not in raw else None
        except ValueError:
            value = None
        if isinstance(value, dict):
            records.append((lineno, value))
        else:
            skipped += 1
    return records, skipped


def split_lines(data: bytes) -> Iterator[tuple[int, bytes, bool]]:
    """``(lineno, line without newline, terminated)``; the last line is
    unterminated when the data does not end with a newline."""
    if not data:
        return
    parts = data.split(b"\n")
    last = parts.pop()
    for index, part in enumerate(parts, start=1):
        yield index, part, True
    if last:
        yield len(parts) + 1, last, False


# --- sessions -------------------------------------------------------------------------


class SessionStore:
    """Read-only, tolerant access to ``sessions/<id>/session.jsonl``."""

    def __init__(self, home: Path) -> None:
        self.root = home / SESSIONS_DIR
        self._headers: dict[str, dict[str, Any] | None] = {}
        self._events: dict[str, tuple[list[dict[str, Any]], int]] = {}

    def path(self, session_id: str) -> Path | None:
        if not _SESSION_ID.match(session_id) or ".." in session_id:
            return None
        candidate = self.root / session_id / SESSION_FILE
        return candidate if candidate.is_file() else None

    def exists(self, session_id: str) -> bool:
        return self.path(session_id) is not None

    def ids(self) -> list[str]:
        try:
            entries = sorted(self.root.iterdir())
        except OSError:
            return []
        return [entry.name for entry in entries if (entry / SESSION_FILE).is_file() and _SESSION_ID.match(entry.name)]

    def header(self, session_id: str) -> dict[str, Any] | None:
        if session_id not in self._headers:
            header = None
            path = self.path(session_id)
            if path is not None:
                try:
                    with path.open("rb") as handle:
                        first = handle.readline()
                    value = parse_json_line(first)
                    if isinstance(value, dict) and value.get("type") == "session":
                        header = value
                except (OSError, ValueError):
                    header = None
            self._headers[session_id] = header
        return self._headers[session_id]

    def events(self, session_id: str) -> tuple[list[dict[str, Any]], int]:
        """The event lines (header left out) and the number of damaged lines skipped."""
        if session_id not in self._events:
            path = self.path(session_id)
            records, skipped = read_jsonl_objects(path) if path else ([], 0)
            events = [record for _, record in records if record.get("type") != "session"]
            self._events[session_id] = (events, skipped)
        return self._events[session_id]

    def contains(self, session_id: str, needle: str) -> bool:
        path = self.path(session_id)
        if path is None:
            return False
        try:
            return needle.encode("utf-8") in path.read_bytes()
        except OSError:
            return False

    def descriptor(self, session_id: str) -> dict[str, Any] | None:
        events, _ = self.events(session_id)
        for event in events:
            if event.get("type") == "subagent/descriptor" and isinstance(event.get("data"), dict):
                return event["data"]
        return None

    def is_child(self, session_id: str) -> bool:
        header = self.header(session_id) or {}
        return bool(header.get("parent_session")) or (_is_int(header.get("delegation_depth")) and header["delegation_depth"] > 0)

    def shadow_children(self, root_id: str) -> list[str]:
        """Child sessions of ``root_id`` started by the Shadow provider, oldest first."""
        found = []
        for session_id in self.ids():
            header = self.header(session_id)
            if not header or header.get("parent_session") != root_id:
                continue
            label = (self.descriptor(session_id) or {}).get("label")
            if isinstance(label, str) and label.startswith(CHILD_LABEL_PREFIX):
                created = header.get("created_at")
                found.append((created if isinstance(created, (int, float)) else 0, session_id))
        return [session_id for _, session_id in sorted(found)]


def relays_in(events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per report in the relay ``user/message`` events: provenance only."""
    rows = []
    for event in events:
        if event.get("type") != "user/message":
            continue
        data = event.get("data")
        message = data.get("message") if isinstance(data, dict) else None
        source = message.get("source") if isinstance(message, dict) else None
        if not isinstance(source, dict) or source.get("kind") != REPORT_SOURCE_KIND:
            continue
        reports = source.get("reports")
        for report in reports if isinstance(reports, list) else []:
            if not isinstance(report, dict):
                continue
            rows.append(
                {
                    "seq": event.get("seq"),
                    "time": iso_ms(event.get("time")),
                    "form": source.get("form"),
                    **{
                        key: report.get(key)
                        for key in ("run_id", "shadow_id", "child_session_id", "captured_through_seq", "verdict", "severity", "refs")
                    },
                }
            )
    return rows


# --- journals -------------------------------------------------------------------------


@dataclass
class JournalRecord:
    file: str  # relative to the home
    line: int
    record: dict[str, Any]


@dataclass
class Journals:
    debug: list[JournalRecord] = field(default_factory=list)
    value_loop: list[JournalRecord] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    @classmethod
    def load(cls, home: Path) -> Journals:
        journals = cls()
        shadow_root = home / ROOT_DIR
        for path in sorted((shadow_root / LOG_DIR).glob("*.jsonl")):
            journals._read(home, path, journals.debug)
        journals._read(home, shadow_root / VALUE_LOOP_FILE, journals.value_loop)
        return journals

    def _read(self, home: Path, path: Path, into: list[JournalRecord]) -> None:
        name = path.relative_to(home).as_posix()
        records, skipped = read_jsonl_objects(path)
        into.extend(JournalRecord(name, line, record) for line, record in records)
        if skipped:
            self.skipped[name] = skipped

    def run_ids(self) -> list[str]:
        seen: dict[str, None] = {}
        for entry in [*self.debug, *self.value_loop]:
            run_id = entry.record.get("run_id")
            if isinstance(run_id, str):
                seen[run_id] = None
        return list(seen)

    def for_run(self, run_id: str) -> list[JournalRecord]:
        return [entry for entry in self.debug if entry.record.get("run_id") == run_id]

    def run_for_child(self, child_id: str) -> str | None:
        for entry in self.debug:
            if entry.record.get("child_session_id") == child_id and isinstance(entry.record.get("run_id"), str):
                return entry.record["run_id"]
        return None

    def runs_for_root(self, root_id: str) -> list[str]:
        seen: dict[str, None] = {}
        for entry in [*self.debug, *self.value_loop]:
            if entry.record.get("root_session_id") == root_id and isinstance(entry.record.get("run_id"), str):
                seen[entry.record["run_id"]] = None
        return list(seen)


# --- trace ----------------------------------------------------------------------------


@dataclass
class Context:
    home: Path
    sessions: SessionStore
    journals: Journals
    events: int
    show_text: bool


def resolve_query(ctx: Context, query: str) -> tuple[str, str, str | None]:
    """``("run" | "root" | "child", id, root session id if known)`` for a run id
    (or a unique prefix) or a session id."""
    if not _SESSION_ID.match(query) or ".." in query:
        raise CliError(f"'{query}' is neither a run id nor a session id (ids are letters, digits, '_', '.', '-')")
    if ctx.sessions.exists(query):
        return ("child" if ctx.sessions.is_child(query) else "root", query, None)
    run_ids = ctx.journals.run_ids()
    if query in run_ids:
        return "run", query, None
    candidates: dict[str, str] = {}
    roots: dict[str, str] = {}
    if len(query) >= MIN_PREFIX:
        for run_id in run_ids:
            if run_id.startswith(query):
                candidates[run_id] = "run"
        for session_id in ctx.sessions.ids():
            if session_id.startswith(query):
                candidates[session_id] = "child" if ctx.sessions.is_child(session_id) else "root"
    if not candidates:
        # debug off: a run id is still in the relay provenance of its root
        for session_id in ctx.sessions.ids():
            if ctx.sessions.is_child(session_id) or not ctx.sessions.contains(session_id, query):
                continue
            for relay in relays_in(ctx.sessions.events(session_id)[0]):
                run_id = relay.get("run_id")
                if isinstance(run_id, str) and (run_id == query or (len(query) >= MIN_PREFIX and run_id.startswith(query))):
                    candidates[run_id] = "run"
                    roots[run_id] = session_id
    if len(candidates) == 1:
        ((found, kind),) = candidates.items()
        return kind, found, roots.get(found)
    if candidates:
        listed = ", ".join(f"{name} ({kind})" for name, kind in sorted(candidates.items())[:10])
        raise CliError(f"'{query}' is ambiguous: it starts {len(candidates)} ids: {listed}; give more characters")
    hint = f" (a prefix needs at least {MIN_PREFIX} characters)" if len(query) < MIN_PREFIX else ""
    raise CliError(
        f"nothing named '{query}' found{hint}: no run id in {ROOT_DIR}/{LOG_DIR}/*.jsonl or {ROOT_DIR}/{VALUE_LOOP_FILE}, "
        f"no session {SESSIONS_DIR}/{query}/, and no relayed Shadow report with that run id. "
        "Run ids are journaled when a definition has `debug: true` and appear in relay provenance; "
        "`harness sessions list` lists session ids, `harness shadow trace <root session>` lists its runs"
    )


def _first(values: Iterable[Any]) -> Any:
    for value in values:
        if value is not None:
            return value
    return None


def build_run(ctx: Context, *, run_id: str | None = None, child_id: str | None = None, root_id: str | None = None) -> dict[str, Any]:
    """Everything known about one run, from the journals, the root log and the child log."""
    if run_id is None and child_id is not None:
        run_id = ctx.journals.run_for_child(child_id)
    entries = ctx.journals.for_run(run_id) if run_id else []
    records = [entry.record for entry in entries]
    child_id = child_id or _first(r.get("child_session_id") for r in records)
    root_id = root_id or _first(r.get("root_session_id") for r in records)
    if root_id is None and child_id is not None:
        root_id = (ctx.sessions.header(child_id) or {}).get("parent_session")
    relays: list[dict[str, Any]] = []
    if root_id and ctx.sessions.exists(root_id):
        for relay in relays_in(ctx.sessions.events(root_id)[0]):
            if (run_id and relay.get("run_id") == run_id) or (child_id and relay.get("child_session_id") == child_id):
                relays.append(relay)
    run_id = run_id or _first(r.get("run_id") for r in relays)
    if run_id and not entries:  # found through the relay: the journal may still know it
        entries = ctx.journals.for_run(run_id)
        records = [entry.record for entry in entries]
    child_id = child_id or _first(r.get("child_session_id") for r in [*records, *relays])
    descriptor = ctx.sessions.descriptor(child_id) if child_id and ctx.sessions.exists(child_id) else None
    label = (descriptor or {}).get("label")
    label_id = label[len(CHILD_LABEL_PREFIX) :] if isinstance(label, str) and label.startswith(CHILD_LABEL_PREFIX) else None
    shadow_id = _first([*(r.get("shadow_id") for r in [*records, *relays]), label_id])
    value_loop = [
        entry.record for entry in ctx.journals.value_loop if run_id and entry.record.get("run_id") == run_id
    ]
    shadow_id = shadow_id or _first(r.get("shadow_id") for r in value_loop)
    root_id = root_id or _first(r.get("root_session_id") for r in value_loop)

    timeline, quality, stagnation, discarded, other = [], None, [], [], []
    for entry in entries:
        record = entry.record
        event = record.get("event")
        if event in LIFECYCLE_EVENTS:
            timeline.append({key: record.get(key) for key in (
                "time", "event", "phase", "stage", "reason_code", "cancellation_source",
                "provider_stop_reason", "error", "relayed", "captured_through_seq",
            )} | {"journal": f"{entry.file}:{entry.line}"})
        elif event == "quality-metadata" and record.get("status") == "stagnation":
            stagnation.append(_pick(record, ("time", "patterns", "action", "cooldown_until", "reasoning_effort", "trigger")))
        elif event == "quality-metadata":
            quality = _pick(record, (
                "time", "route", "reasoning_effort", "budget_tier", "independence", "prompt_chars", "timeout_seconds",
                "capture", "context", "think_first", "tool_names", "stop_reason", "error", "deliberation_chars", "tools",
            ))
        elif event == "non-report-body-discarded":
            discarded.append(_pick(record, ("time", "status", "discardedBodyChars", "discardedBodyHash")))
        else:
            other.append(_pick(record, ("time", "event")))
    finished = next((t for t in reversed(timeline) if t["event"] == "run-finished"), None)
    last = timeline[-1] if timeline else None
    captured = _first([*(r.get("captured_through_seq") for r in [*records, *relays])])

    notes = []
    if not entries:
        where = f"{ROOT_DIR}/{shadow_id}.md" if shadow_id else f"the Shadow definition in {ROOT_DIR}/"
        notes.append(
            f"no debug journal records for this run: lifecycle diagnostics (timeline, phases, reason codes, quality "
            f"metadata) need `debug: true` in the frontmatter of {where}; explained from the session logs only"
        )
    child = None
    if child_id:
        if ctx.sessions.exists(child_id):
            child = child_evidence(ctx, child_id)
        else:
            notes.append(f"child session {SESSIONS_DIR}/{child_id}/ was not found (deleted, or another DSH home)")
    else:
        notes.append("the child session is unknown: the run never started a child, or nothing recorded its id")
    if root_id and not ctx.sessions.exists(root_id):
        notes.append(f"root session {SESSIONS_DIR}/{root_id}/ was not found; relays cannot be shown")
    for name, count in ctx.journals.skipped.items():
        notes.append(f"{count} damaged line(s) in {name} were skipped; run `harness shadow health`")

    return {
        "run_id": run_id,
        "shadow_id": shadow_id,
        "root_session_id": root_id,
        "child_session_id": child_id,
        "captured_through_seq": captured,
        "journal": bool(entries),
        "journal_files": sorted({entry.file for entry in entries}),
        "outcome": {
            "phase": (finished or last or {}).get("phase"),
            "stage": (finished or last or {}).get("stage"),
            "reason_code": (finished or last or {}).get("reason_code"),
            "relayed": bool(relays) or bool((finished or {}).get("relayed")),
        },
        "timeline": timeline,
        "quality": quality,
        "stagnation": stagnation,
        "discarded_bodies": discarded,
        "other_records": other,
        "relays": relays,
        "value_loop": [_pick(r, ("time", "classification", "relayed_at_seq", "refs", "observed_through_seq")) for r in value_loop],
        "child": child,
        "notes": notes,
    }


def _pick(record: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    return {key: record[key] for key in keys if record.get(key) is not None}


def child_evidence(ctx: Context, session_id: str) -> dict[str, Any]:
    header = ctx.sessions.header(session_id) or {}
    events, skipped = ctx.sessions.events(session_id)
    counts = Counter(str(event.get("type")) for event in events)
    calls: dict[str, dict[str, Any]] = {}
    routes, turn_ends, stops = [], [], []
    error_codes: Counter[str] = Counter()
    invalid_args: Counter[str] = Counter()
    prompt_chars = None
    text_chars = 0
    retries = 0
    for event in events:
        kind = event.get("type")
        data = event.get("data") if isinstance(event.get("data"), dict) else {}
        if kind == "tool/call":
            call_id = str(data.get("call_id"))
            calls[call_id] = {"seq": event.get("seq"), "name": data.get("name"), "result": "pending"}
        elif kind == "tool/result":
            call_id = str(data.get("call_id"))
            row = calls.setdefault(call_id, {"seq": event.get("seq"), "name": data.get("name")})
            error = data.get("error")
            code = error.get("code") if isinstance(error, dict) else None
            row["result"] = str(code) if code else "ok"
            if code:
                error_codes[str(code)] += 1
                if code == "INVALID_ARGS":
                    invalid_args[str(data.get("name"))] += 1
        elif kind == "request/context":
            routes.append(_pick({"seq": event.get("seq"), **data}, ("seq", "provider", "model", "reasoning_effort")))
        elif kind == "turn/end":
            turn_ends.append({"seq": event.get("seq"), "turn": data.get("turn"), **_turn_end_reason(data.get("reason"), ctx)})
        elif kind == "assistant/message":
            if data.get("stop"):
                stops.append(data["stop"])
            text_chars += sum(len(text) for text in _texts(data.get("message")))
        elif kind == "user/message" and prompt_chars is None:
            prompt_chars = sum(len(text) for text in _texts(data.get("message")))
        elif kind == "llm/retry":
            retries += 1
    descriptor = ctx.sessions.descriptor(session_id)
    shown = [event for event in events if event.get("type") != "assistant/chunk"]
    last = shown[-ctx.events :] if ctx.events > 0 else []
    return {
        "session_id": session_id,
        "header": {
            "created": iso_ms(header.get("created_at")),
            "delegation_depth": header.get("delegation_depth"),
            "parent_session": header.get("parent_session"),
            "origin": header.get("origin"),
        },
        "descriptor": _pick(descriptor or {}, ("provider", "label", "mode")) or None,
        "events": len(events),
        "damaged_lines": skipped,
        "counts": dict(sorted(counts.items())),
        "prompt_chars": prompt_chars,
        "assistant_text_chars": text_chars,
        "stops": stops,
        "routes": routes,
        "tool_calls": list(calls.values()),
        "tool_errors": dict(sorted(error_codes.items())),
        "invalid_args": sum(invalid_args.values()),
        "invalid_args_by_tool": dict(sorted(invalid_args.items())),
        "retries": retries,
        "turn_ends": turn_ends,
        "last_events": [summarize_event(event, ctx) for event in last],
        "chunks_omitted": counts.get("assistant/chunk", 0),
    }


def _texts(message: Any) -> list[str]:
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return []
    return [
        block["text"]
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ]


def _turn_end_reason(reason: Any, ctx: Context) -> dict[str, Any]:
    if not isinstance(reason, dict):
        return {"kind": None}
    out: dict[str, Any] = {"kind": reason.get("kind")}
    if reason.get("by"):
        out["by"] = reason["by"]
    if isinstance(reason.get("reason"), str) and reason["reason"]:
        out["reason"] = head(reason["reason"])
    error = reason.get("error")
    if isinstance(error, dict):
        out["error_code"] = error.get("code")
        if ctx.show_text and isinstance(error.get("message"), str):  # may quote request text
            out["error"] = head(error["message"])
    return out


def summarize_event(event: Mapping[str, Any], ctx: Context) -> str:
    """One line per event; never tool arguments, tool output or prompt text."""
    kind = str(event.get("type"))
    data = event.get("data") if isinstance(event.get("data"), dict) else {}
    seq = event.get("seq")
    prefix = f"#{seq} {kind}"
    if kind in ("turn/start",):
        return f"{prefix} turn {data.get('turn')}"
    if kind in ("step/start", "step/end"):
        return f"{prefix} turn {data.get('turn')} step {data.get('step')}"
    if kind == "user/message":
        message = data.get("message") if isinstance(data.get("message"), dict) else {}
        source = message.get("source") if isinstance(message.get("source"), dict) else {}
        chars = sum(len(text) for text in _texts(message))
        return f"{prefix} from {source.get('kind', '?')}, {chars} chars"
    if kind == "assistant/message":
        message = data.get("message") if isinstance(data.get("message"), dict) else {}
        texts = _texts(message)
        content = message.get("content") if isinstance(message.get("content"), list) else []
        tools = [b.get("name") for b in content if isinstance(b, dict) and b.get("type") == "tool-call"]
        reasoning = sum(1 for b in content if isinstance(b, dict) and b.get("type") == "reasoning")
        parts = [f"text {sum(len(t) for t in texts)} chars"]
        if reasoning:
            parts.append("reasoning")
        if tools:
            parts.append("calls " + ", ".join(str(name) for name in tools))
        if data.get("stop"):
            parts.append(f"stop={data['stop']}")
        if data.get("interrupted"):
            parts.append("interrupted")
        line = f"{prefix} " + ", ".join(parts)
        if ctx.show_text and texts:
            line += f' "{head(" ".join(texts))}"'
        return line
    if kind == "tool/call":
        arguments = data.get("arguments")
        size = len(arguments) if isinstance(arguments, str) else 0
        return f"{prefix} {data.get('name')} ({data.get('call_id')}, arguments {size} chars)"
    if kind == "tool/result":
        error = data.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        return f"{prefix} {data.get('name')} ({data.get('call_id')}) → {code or 'ok'}"
    if kind == "request/context":
        effort = f" effort {data['reasoning_effort']}" if data.get("reasoning_effort") else ""
        return f"{prefix} {data.get('provider')}/{data.get('model')}{effort}"
    if kind == "turn/end":
        reason = _turn_end_reason(data.get("reason"), ctx)
        extra = "".join(f" {key}={value}" for key, value in reason.items() if key != "kind")
        return f"{prefix} turn {data.get('turn')} {reason.get('kind')}{extra}"
    if kind == "llm/retry":
        return f"{prefix} attempt {data.get('attempt')} code {data.get('code')}"
    if kind == "subagent/descriptor":
        return f"{prefix} {data.get('provider')} label {data.get('label')}"
    if kind in ("approval/policy", "sandbox/mode"):
        return f"{prefix} {data.get('policy') or data.get('mode')} ({data.get('source')})"
    if kind == "assistant/chunk":
        chunk = data.get("chunk") if isinstance(data.get("chunk"), dict) else {}
        return f"{prefix} {chunk.get('type')}"
    keys = ", ".join(sorted(str(k) for k in data)) if data else ""
    return f"{prefix}" + (f" ({keys})" if keys else "")


def trace(ctx: Context, query: str) -> dict[str, Any]:
    kind, ident, root_id = resolve_query(ctx, query)
    if kind == "run":
        return {"kind": "run", "query": query, "runs": [build_run(ctx, run_id=ident, root_id=root_id)]}
    if kind == "child":
        header = ctx.sessions.header(ident) or {}
        label = (ctx.sessions.descriptor(ident) or {}).get("label")
        run = build_run(ctx, child_id=ident, root_id=header.get("parent_session"))
        if not (isinstance(label, str) and label.startswith(CHILD_LABEL_PREFIX)):
            run["notes"].insert(0, f"session {ident} is a child session but not a Shadow child (label {label!r})")
        return {"kind": "child", "query": query, "runs": [run]}
    return {"kind": "root", "query": query, "root": root_summary(ctx, ident), "runs": root_runs(ctx, ident)}


def root_summary(ctx: Context, root_id: str) -> dict[str, Any]:
    header = ctx.sessions.header(root_id) or {}
    events, skipped = ctx.sessions.events(root_id)
    types = Counter(event.get("type") for event in events)
    relays = relays_in(events)
    return {
        "session_id": root_id,
        "created": iso_ms(header.get("created_at")),
        "events": len(events),
        "damaged_lines": skipped,
        "turns": types.get("turn/start", 0),
        "relay_messages": len({relay["seq"] for relay in relays}),
        "relayed_reports": len(relays),
    }


def root_runs(ctx: Context, root_id: str) -> list[dict[str, Any]]:
    run_ids: dict[str, None] = dict.fromkeys(ctx.journals.runs_for_root(root_id))
    for relay in relays_in(ctx.sessions.events(root_id)[0]):
        if isinstance(relay.get("run_id"), str):
            run_ids[relay["run_id"]] = None
    runs = [build_run(ctx, run_id=run_id, root_id=root_id) for run_id in run_ids]
    known_children = {run["child_session_id"] for run in runs if run["child_session_id"]}
    for child_id in ctx.sessions.shadow_children(root_id):
        if child_id not in known_children:
            runs.append(build_run(ctx, child_id=child_id, root_id=root_id))
    return runs


# --- trace rendering ------------------------------------------------------------------


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    return str(value)


def render_trace(result: Mapping[str, Any]) -> str:
    lines: list[str] = []
    if result["kind"] == "root":
        root = result["root"]
        lines.append(f"Root session {root['session_id']}")
        lines.append(
            f"  created {root['created']} · {root['events']} events · {root['turns']} turns · "
            f"{root['relayed_reports']} relayed report(s) in {root['relay_messages']} relay message(s)"
        )
        runs = result["runs"]
        if not runs:
            lines.append(
                "  no Shadow runs found: no journal records for this root, no relays in its log and no child "
                f"session labelled '{CHILD_LABEL_PREFIX}…' (is the shadow-mind-runtime plugin in the profile?)"
            )
        else:
            lines.append(f"  {len(runs)} Shadow run(s):")
            for run in runs:
                outcome = run["outcome"]
                classes = ", ".join(v.get("classification", "?") for v in run["value_loop"]) or "-"
                lines.append(
                    f"    {run['run_id'] or '(run id unknown)'}  shadow {_fmt(run['shadow_id'])}  "
                    f"phase {_fmt(outcome['phase'])}  relayed {_fmt(outcome['relayed'])}  value loop {classes}"
                )
        lines.append("")
    for index, run in enumerate(result["runs"]):
        if index:
            lines.append("")
        lines.extend(render_run(run))
    return "\n".join(lines).rstrip("\n") + "\n"


def render_run(run: Mapping[str, Any]) -> list[str]:
    out = [f"Run {run['run_id'] or '(run id unknown)'}  shadow {_fmt(run['shadow_id'])}"]
    out.append(f"  root session   {_fmt(run['root_session_id'])}")
    out.append(f"  child session  {_fmt(run['child_session_id'])}")
    out.append(f"  captured through seq {_fmt(run['captured_through_seq'])}")
    outcome = run["outcome"]
    if outcome["phase"]:
        reason = f", reason {outcome['reason_code']}" if outcome["reason_code"] else ""
        out.append(f"  outcome: {outcome['phase']} at stage {_fmt(outcome['stage'])}{reason}, relayed {_fmt(outcome['relayed'])}")
    elif run["relays"]:
        out.append("  outcome: report, relayed yes")
    for note in run["notes"]:
        out.append(f"  note: {note}")

    if run["journal"]:
        out.append(f"Timeline ({', '.join(run['journal_files'])})")
        for item in run["timeline"]:
            details = [f"{_fmt(item['phase'])}/{_fmt(item['stage'])}"]
            for key, label in (
                ("reason_code", "reason"),
                ("cancellation_source", "cancelled by"),
                ("provider_stop_reason", "stop"),
                ("error", "error"),
            ):
                if item.get(key):
                    details.append(f"{label} {item[key]}")
            if item.get("relayed"):
                details.append("relayed")
            out.append(f"  {_fmt(item['time'])}  {item['event']:<27} {'  '.join(details)}")
        for item in run["stagnation"]:
            extra = item.get("cooldown_until") or item.get("reasoning_effort")
            trigger = f" (trigger {item['trigger']})" if item.get("trigger") else ""
            out.append(
                f"  {_fmt(item.get('time'))}  {'stagnation':<27} patterns {_fmt(item.get('patterns'))} → "
                f"{_fmt(item.get('action'))} {_fmt(extra)}{trigger}"
            )
        for item in run["discarded_bodies"]:
            out.append(
                f"  {_fmt(item.get('time'))}  {'non-report-body-discarded':<27} status {_fmt(item.get('status'))}, "
                f"{_fmt(item.get('discardedBodyChars'))} chars discarded"
            )
        for item in run["other_records"]:
            out.append(f"  {_fmt(item.get('time'))}  {item.get('event')}")
    quality = run["quality"]
    if quality:
        tools = quality.get("tools") or {}
        by_name = ", ".join(f"{name}×{count}" for name, count in sorted((tools.get("by_name") or {}).items())) or "none"
        invalid = ", ".join(f"{name}×{count}" for name, count in sorted((tools.get("invalid_args_by_tool") or {}).items()))
        out.append("Quality metadata")
        out.append(
            f"  route {_fmt(quality.get('route'))} · reasoning effort {_fmt(quality.get('reasoning_effort'))} · "
            f"budget tier {_fmt(quality.get('budget_tier'))} · independence {_fmt(quality.get('independence'))}"
        )
        out.append(
            f"  prompt {_fmt(quality.get('prompt_chars'))} chars · timeout {_fmt(quality.get('timeout_seconds'))}s · "
            f"capture {_fmt(quality.get('capture'))} · context {_fmt(quality.get('context'))} · "
            f"think first {_fmt(quality.get('think_first'))}"
        )
        out.append(f"  tools offered {_fmt(quality.get('tool_names'))}")
        out.append(
            f"  stop reason {_fmt(quality.get('stop_reason'))} · error {_fmt(quality.get('error'))} · "
            f"deliberation {_fmt(quality.get('deliberation_chars'))} chars"
        )
        out.append(
            f"  tool calls {_fmt(tools.get('calls', 0))} ({by_name}) · INVALID_ARGS {_fmt(tools.get('invalid_args', 0))}"
            + (f" ({invalid})" if invalid else "")
        )
    if run["relays"]:
        out.append("Relays (root session)")
        for relay in run["relays"]:
            out.append(
                f"  seq {relay['seq']} {relay['time']} ({_fmt(relay.get('form'))}): verdict {_fmt(relay.get('verdict'))}, "
                f"severity {_fmt(relay.get('severity'))}, refs {_fmt(relay.get('refs'))}, "
                f"captured through {_fmt(relay.get('captured_through_seq'))}"
            )
    if run["value_loop"]:
        out.append("Value loop")
        for item in run["value_loop"]:
            out.append(
                f"  {_fmt(item.get('time'))}  {_fmt(item.get('classification'))} (relayed at seq "
                f"{_fmt(item.get('relayed_at_seq'))}, refs {_fmt(item.get('refs'))}, observed through seq "
                f"{_fmt(item.get('observed_through_seq'))})"
            )
    child = run["child"]
    if child:
        out.extend(render_child(child))
    return out


def render_child(child: Mapping[str, Any]) -> list[str]:
    header = child["header"]
    out = [f"Child session {child['session_id']}"]
    out.append(
        f"  created {header['created']} · depth {_fmt(header['delegation_depth'])} · parent "
        f"{_fmt(header['parent_session'])} · origin {_fmt(header['origin'])}"
    )
    descriptor = child["descriptor"] or {}
    out.append(
        f"  descriptor: provider {_fmt(descriptor.get('provider'))}, label {_fmt(descriptor.get('label'))}, "
        f"mode {_fmt(descriptor.get('mode'))}"
    )
    counts = ", ".join(f"{name} {count}" for name, count in child["counts"].items())
    out.append(f"  events {child['events']}: {counts}")
    if child["damaged_lines"]:
        out.append(f"  damaged lines skipped: {child['damaged_lines']}")
    out.append(
        f"  prompt {_fmt(child['prompt_chars'])} chars · assistant text {child['assistant_text_chars']} chars · "
        f"stops {_fmt(child['stops'])} · retries {child['retries']}"
    )
    routes = "; ".join(
        f"seq {r.get('seq')} {r.get('provider')}/{r.get('model')}"
        + (f" effort {r['reasoning_effort']}" if r.get("reasoning_effort") else "")
        for r in child["routes"]
    )
    out.append(f"  request routes: {routes or 'none'}")
    if child["tool_calls"]:
        out.append("  tool calls:")
        for call in child["tool_calls"]:
            out.append(f"    seq {call.get('seq')} {call.get('name')} → {call.get('result')}")
    else:
        out.append("  tool calls: none")
    errors = ", ".join(f"{code} {count}" for code, count in child["tool_errors"].items()) or "none"
    out.append(f"  tool errors: {errors}")
    invalid = ", ".join(f"{name} {count}" for name, count in child["invalid_args_by_tool"].items())
    out.append(f"  INVALID_ARGS: {child['invalid_args']}" + (f" ({invalid})" if invalid else ""))
    ends = "; ".join(
        f"seq {end['seq']} turn {end['turn']} {end['kind']}"
        + "".join(f" {key}={value}" for key, value in end.items() if key not in ("seq", "turn", "kind"))
        for end in child["turn_ends"]
    )
    out.append(f"  turn end: {ends or 'none (the turn never ended: crashed or still running)'}")
    if child["last_events"]:
        omitted = f", {child['chunks_omitted']} assistant/chunk events omitted" if child["chunks_omitted"] else ""
        out.append(f"  last {len(child['last_events'])} events{omitted}:")
        out.extend(f"    {line}" for line in child["last_events"])
    return out


# --- health ---------------------------------------------------------------------------


@dataclass
class LineCheck:
    line: int
    raw: bytes
    terminated: bool
    problem: str | None = None

    @property
    def keep(self) -> bool:
        """Valid content survives a repair (an unterminated valid line gets its newline)."""
        return self.problem is None or self.problem.startswith("torn last line: no trailing newline")


@dataclass
class FileCheck:
    path: str
    kind: str  # "debug" | "value-loop"
    size: int = 0
    lines: list[LineCheck] = field(default_factory=list)
    mode: int | None = None
    problems: list[str] = field(default_factory=list)
    repaired: dict[str, Any] | None = None

    @property
    def line_problems(self) -> list[LineCheck]:
        return [line for line in self.lines if line.problem]

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "size": self.size,
            "lines": len(self.lines),
            "valid_lines": sum(1 for line in self.lines if line.problem is None),
            "mode": f"{self.mode:04o}" if self.mode is not None else None,
            "problems": [*self.problems, *(f"line {line.line}: {line.problem}" for line in self.line_problems)],
            "repaired": self.repaired,
        }


def check_record(record: Any, kind: str) -> str | None:
    if not isinstance(record, dict):
        return f"not a JSON object ({type(record).__name__})"
    if kind == "value-loop":
        required: Sequence[str] = VALUE_LOOP_FIELDS
    elif record.get("event") in LIFECYCLE_EVENTS:
        required = LIFECYCLE_FIELDS
    else:
        required = DEBUG_RECORD_FIELDS
    missing = [name for name in required if name not in record]
    if missing:
        return "missing field(s): " + ", ".join(missing)
    if "schema_version" in record and record["schema_version"] != JOURNAL_SCHEMA_VERSION:
        return f"unsupported schema_version {record['schema_version']!r}"
    if kind == "debug" and not isinstance(record.get("event"), str):
        return "field 'event' is not a string"
    return None


def check_file(home: Path, path: Path, kind: str) -> FileCheck:
    check = FileCheck(path=path.relative_to(home).as_posix(), kind=kind)
    try:
        info = path.lstat()
    except OSError as exc:
        check.problems.append(f"cannot stat ({type(exc).__name__})")
        return check
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        check.problems.append("not a regular file (a symlink or special file); not read")
        return check
    check.size = info.st_size
    check.mode = stat.S_IMODE(info.st_mode)
    if check.mode != FILE_MODE:
        check.problems.append(f"mode {check.mode:04o}, expected {FILE_MODE:04o}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        check.problems.append(f"cannot read ({type(exc).__name__})")
        return check
    for lineno, raw, terminated in split_lines(data):
        line = LineCheck(lineno, raw, terminated)
        if NUL in raw:
            line.problem = f"NUL byte(s) ({raw.count(NUL)})"
        elif not raw.strip():
            line.problem = "blank line"
        else:
            try:
                value = parse_json_line(raw)
            except UnicodeDecodeError:
                line.problem = "not UTF-8"
            except ValueError:
                line.problem = "torn last line: truncated JSON" if not terminated else "invalid JSON"
            else:
                line.problem = check_record(value, kind)
                if line.problem is None and not terminated:
                    line.problem = "torn last line: no trailing newline (the record itself is valid)"
        check.lines.append(line)
    return check


def check_dir(home: Path, path: Path) -> dict[str, Any]:
    rel = path.relative_to(home).as_posix() + "/"
    try:
        info = path.lstat()
    except OSError:
        return {"path": rel, "mode": None, "problem": "missing"}
    mode = stat.S_IMODE(info.st_mode)
    problem = None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        problem = "not a directory"
    elif mode != DIR_MODE:
        problem = f"mode {mode:04o}, expected {DIR_MODE:04o}"
    return {"path": rel, "mode": f"{mode:04o}", "problem": problem}


def list_definitions(home: Path, scrub: Scrubber) -> list[dict[str, Any]]:
    from .definitions.errors import DefinitionError
    from .definitions.parse import parse_definition

    rows = []
    for path in sorted((home / ROOT_DIR).glob("*.md")):
        rel = path.relative_to(home).as_posix()
        try:
            definition = parse_definition(path.read_text(encoding="utf-8"), path)
        except (OSError, UnicodeDecodeError, DefinitionError) as exc:
            rows.append({"path": rel, "id": path.stem, "debug": None, "error": scrub(str(exc))})
            continue
        rows.append({"path": rel, "id": definition.id, "debug": definition.debug, "enabled": definition.enabled})
    return rows


def repair_file(home: Path, check: FileCheck) -> None:
    path = home / check.path
    kept = [line for line in check.lines if line.keep]
    dropped = len(check.lines) - len(kept)
    needs_rewrite = dropped or any(not line.terminated for line in kept)
    if needs_rewrite:
        write_atomic(path, b"".join(line.raw + b"\n" for line in kept), mode=FILE_MODE)
    elif check.mode is not None and check.mode != FILE_MODE:
        os.chmod(path, FILE_MODE)
    check.repaired = {"kept": len(kept), "dropped": dropped, "rewritten": bool(needs_rewrite)}


def health(home: Path, *, repair: bool, scrub: Scrubber) -> dict[str, Any]:
    shadow_root = home / ROOT_DIR
    result: dict[str, Any] = {"home_exists": home.is_dir(), "shadow_dir": shadow_root.is_dir()}
    if not shadow_root.is_dir():
        result.update(definitions=[], dirs=[], files=[], problems=0, healthy=True)
        return result
    dirs = [check_dir(home, shadow_root)]
    if (home / ROOT_DIR / LOG_DIR).exists():
        dirs.append(check_dir(home, shadow_root / LOG_DIR))
    files = [check_file(home, path, "debug") for path in sorted((shadow_root / LOG_DIR).glob("*.jsonl"))]
    if (shadow_root / VALUE_LOOP_FILE).exists() or (shadow_root / VALUE_LOOP_FILE).is_symlink():
        files.append(check_file(home, shadow_root / VALUE_LOOP_FILE, "value-loop"))
    if repair:
        for entry in dirs:
            if entry["problem"] and entry["problem"].startswith("mode"):
                os.chmod(home / entry["path"], DIR_MODE)
                entry["problem"] = None
                entry["repaired"] = True
        repaired = {}
        for check in files:
            unreadable = check.mode is None or any(p.startswith(("not a regular", "cannot")) for p in check.problems)
            if not unreadable and (check.problems or check.line_problems):
                repair_file(home, check)
                repaired[check.path] = check.repaired
        files = [check_file(home, home / check.path, check.kind) for check in files]  # verify the result
        for check in files:
            check.repaired = repaired.get(check.path)
    definitions = list_definitions(home, scrub)
    problems = sum(len(check.to_json()["problems"]) for check in files) + sum(1 for d in dirs if d["problem"])
    result.update(
        definitions=definitions,
        dirs=dirs,
        files=[check.to_json() for check in files],
        problems=problems,
        healthy=problems == 0,
    )
    return result


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


def render_health(result: Mapping[str, Any], *, repair: bool) -> str:
    if not result["home_exists"]:
        return "The DSH home does not exist (set --home or $DSH_HOME); nothing to check.\n"
    if not result["shadow_dir"]:
        return f"No {ROOT_DIR}/ directory in the DSH home: Shadow Mind has not run here; nothing to check.\n"
    out = ["Definitions"]
    for row in result["definitions"]:
        if row.get("error"):
            out.append(f"  {row['path']}  invalid: {row['error']}")
        else:
            out.append(f"  {row['path']}  id {row['id']}  debug {_fmt(row['debug'])}  enabled {_fmt(row.get('enabled'))}")
    if not result["definitions"]:
        out.append("  none")
    debug_on = [row["id"] for row in result["definitions"] if row.get("debug")]
    out.append(
        "  debug journals on for: " + (", ".join(debug_on) if debug_on else "none (set `debug: true` in a definition's frontmatter)")
    )
    out.append("Directories")
    for entry in result["dirs"]:
        status = entry["problem"] or ("ok (mode fixed)" if entry.get("repaired") else "ok")
        out.append(f"  {entry['path']}  mode {_fmt(entry['mode'])}  {status}")
    out.append("Journals")
    if not result["files"]:
        out.append(f"  none (no {ROOT_DIR}/{LOG_DIR}/*.jsonl or {ROOT_DIR}/{VALUE_LOOP_FILE} yet)")
    for item in result["files"]:
        status = "ok" if not item["problems"] else f"{len(item['problems'])} problem(s)"
        out.append(
            f"  {item['path']}  {_size(item['size'])}  {item['lines']} line(s), {item['valid_lines']} valid  "
            f"mode {_fmt(item['mode'])}  {status}"
        )
        for problem in item["problems"]:
            out.append(f"    {problem}")
        repaired = item.get("repaired")
        if repaired:
            action = "rewritten atomically" if repaired["rewritten"] else "mode fixed"
            out.append(f"    repaired: {action}; kept {repaired['kept']} line(s), dropped {repaired['dropped']}")
    if result["healthy"]:
        out.append("Healthy." if not repair else "Healthy after repair.")
    else:
        out.append(f"{result['problems']} problem(s) found.")
        if not repair:
            out.append(
                "Run `harness shadow health --repair` to rewrite damaged journals (dropping corrupt, NUL and torn "
                "lines, keeping valid ones) and fix file and directory modes."
            )
    return "\n".join(out) + "\n"


# --- entry ----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="harness shadow", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    trace_parser = sub.add_parser("trace", help="explain a run, a root session's runs or a Shadow child session")
    trace_parser.add_argument("target", metavar="RUN|SESSION", help=f"a run id (or a unique prefix of at least {MIN_PREFIX} characters), a root session id or a child session id")
    trace_parser.add_argument("--home", help="the DSH home (default $DSH_HOME, else ~/.dsh)")
    trace_parser.add_argument("--events", type=_count, default=15, metavar="N", help="last child events to show (default 15)")
    trace_parser.add_argument("--show-text", action="store_true", help="show assistant text heads (120 characters)")
    trace_parser.add_argument("--json", action="store_true", help="one JSON document")
    health_parser = sub.add_parser("health", help="check (and repair) journal integrity and file modes")
    health_parser.add_argument("--home", help="the DSH home (default $DSH_HOME, else ~/.dsh)")
    health_parser.add_argument("--repair", action="store_true", help="rewrite damaged journals atomically and fix modes")
    health_parser.add_argument("--json", action="store_true", help="one JSON document")
    return parser


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("expected 0 or more")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else EXIT_USAGE
    home = resolve_home(args.home)
    scrub = Scrubber(home)
    try:
        if args.action == "trace":
            if not home.is_dir():
                raise CliError("the DSH home does not exist: pass --home or set $DSH_HOME to the directory holding sessions/ and shadow-minds/")
            ctx = Context(home, SessionStore(home), Journals.load(home), args.events, args.show_text)
            result = trace(ctx, args.target)
            text = json.dumps(result, ensure_ascii=False, indent=2) + "\n" if args.json else render_trace(result)
            sys.stdout.write(scrub(text))
            return EXIT_OK
        result = health(home, repair=args.repair, scrub=scrub)
        text = json.dumps(result, ensure_ascii=False, indent=2) + "\n" if args.json else render_health(result, repair=args.repair)
        sys.stdout.write(scrub(text))
        return EXIT_OK if result["healthy"] else EXIT_PROBLEMS
    except CliError as exc:
        print(f"harness shadow: {scrub(str(exc))}", file=sys.stderr)
        return EXIT_PROBLEMS
    except OSError as exc:
        print(f"harness shadow: {type(exc).__name__}: {scrub(str(exc))}", file=sys.stderr)
        return EXIT_PROBLEMS
