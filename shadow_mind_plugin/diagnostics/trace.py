"""Explaining one run, every run of a root session or a Shadow child session,
from the debug journals, the relay provenance in the root log, the value-loop
journal and the child session."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final, Literal

import attrs

from hookspecs.values import EventTypes

from ..definitions.errors import HoldoutKeyError
from ..definitions.registry import DEFINITION_SUFFIX, ROOT_DIR
from ..governance.holdout import redact_value
from ..vocabulary import BODY_DISCARDED_EVENT, QUALITY_METADATA_EVENT, RUN_ID_MIN_PREFIX, STAGNATION_STATUS
from .evidence import child_evidence, pick
from .holdout_view import literals_or_refusal
from .journals import JOURNALS_TEXT, LIFECYCLE_EVENTS, RUN_FINISHED, JournalRecord, Journals
from .sessions import SESSIONS_DIR, SessionLogs, is_session_id, iso_ms, relays_in, shadow_label_id

TargetKind = Literal["run", "root", "child"]

#: What a timeline row shows of a lifecycle record.
TIMELINE_FIELDS: Final = (
    "time", "event", "phase", "stage", "reason_code", "cancellation_source",
    "provider_stop_reason", "error", "relayed", "captured_through_seq",
    # the evidence checks' part: a checks-only review's check, the check that started the run, a model's leads
    "check", "trigger_check", "leads",
)
QUALITY_FIELDS: Final = (
    "time", "route", "reasoning_effort", "budget_tier", "independence", "prompt_chars", "timeout_seconds",
    "capture", "context", "think_first", "tool_names", "stop_reason", "error", "deliberation_chars", "tools",
)
STAGNATION_FIELDS: Final = ("time", "patterns", "action", "cooldown_until", "reasoning_effort", "trigger")
DISCARDED_FIELDS: Final = ("time", "status", "discarded_body_chars", "discarded_body_hash")
VALUE_LOOP_SHOWN: Final = ("time", "classification", "relayed_at_seq", "refs", "observed_through_seq")


class TraceError(Exception):
    """A user-facing failure: what was not found and how to get it."""


@attrs.frozen(kw_only=True)
class TraceContext:
    """What one trace reads, and how much of the child it shows."""

    home: Path
    sessions: SessionLogs
    journals: Journals
    #: last child events to summarize
    events: int
    show_text: bool
    #: holdout literals: redacted from events as read and from the whole result
    holdout: tuple[str, ...] = ()

    @classmethod
    def open(cls, home: Path, *, events: int, show_text: bool) -> TraceContext:
        if not home.is_dir():
            raise TraceError(
                "the DSH home does not exist: pass --home or set $DSH_HOME to the directory holding sessions/ and shadow-minds/"
            )
        try:
            holdout = literals_or_refusal(home, show_text=show_text)
        except HoldoutKeyError as exc:
            raise TraceError(f"--show-text needs a readable holdout key sidecar to hide its literals: {exc}") from None
        return cls(
            home=home,
            sessions=SessionLogs(home, holdout=holdout),
            journals=Journals.load(home),
            events=events,
            show_text=show_text,
            holdout=holdout,
        )


def _first(values: Iterable[Any]) -> Any:
    for value in values:
        if value is not None:
            return value
    return None


def _session_kind(ctx: TraceContext, session_id: str) -> TargetKind:
    return "child" if ctx.sessions.is_child(session_id) else "root"


def _relayed_run_ids(ctx: TraceContext, query: str) -> dict[str, str]:
    """Run ids matching ``query`` in the relay provenance of root logs (debug
    off: nothing else knows them), with their root session."""
    roots: dict[str, str] = {}
    for session_id in ctx.sessions.ids():
        if ctx.sessions.is_child(session_id) or not ctx.sessions.contains(session_id, query):
            continue
        for relay in relays_in(ctx.sessions.events(session_id)[0]):
            run_id = relay.get("run_id")
            if isinstance(run_id, str) and (
                run_id == query or (len(query) >= RUN_ID_MIN_PREFIX and run_id.startswith(query))
            ):
                roots[run_id] = session_id
    return roots


def resolve_query(ctx: TraceContext, query: str) -> tuple[TargetKind, str, str | None]:
    """``("run" | "root" | "child", id, root session id if known)`` for a run id
    (or a unique prefix) or a session id."""
    if not is_session_id(query):
        raise TraceError(f"'{query}' is neither a run id nor a session id (ids are letters, digits, '_', '.', '-')")
    if ctx.sessions.exists(query):
        return _session_kind(ctx, query), query, None
    run_ids = ctx.journals.run_ids()
    if query in run_ids:
        return "run", query, None
    candidates: dict[str, TargetKind] = {}
    roots: dict[str, str] = {}
    if len(query) >= RUN_ID_MIN_PREFIX:
        for run_id in run_ids:
            if run_id.startswith(query):
                candidates[run_id] = "run"
        for session_id in ctx.sessions.ids():
            if session_id.startswith(query):
                candidates[session_id] = _session_kind(ctx, session_id)
    if not candidates:
        roots = _relayed_run_ids(ctx, query)
        candidates = dict.fromkeys(roots, "run")
    if len(candidates) == 1:
        ((found, kind),) = candidates.items()
        return kind, found, roots.get(found)
    if candidates:
        listed = ", ".join(f"{name} ({kind})" for name, kind in sorted(candidates.items())[:10])
        raise TraceError(f"'{query}' is ambiguous: it starts {len(candidates)} ids: {listed}; give more characters")
    hint = f" (a prefix needs at least {RUN_ID_MIN_PREFIX} characters)" if len(query) < RUN_ID_MIN_PREFIX else ""
    raise TraceError(
        f"nothing named '{query}' found{hint}: no run id in {JOURNALS_TEXT}, "
        f"no session {SESSIONS_DIR}/{query}/, and no relayed Shadow report with that run id. "
        "Run ids are journaled when a definition has `debug: true` and appear in relay provenance; "
        "`harness sessions list` lists session ids, `harness shadow trace <root session>` lists its runs"
    )


@attrs.define(eq=False)
class _JournalSections:
    """One run's debug records, sorted by what they are."""

    timeline: list[dict[str, Any]] = attrs.field(factory=list)
    quality: dict[str, Any] | None = None
    stagnation: list[dict[str, Any]] = attrs.field(factory=list)
    discarded: list[dict[str, Any]] = attrs.field(factory=list)
    other: list[dict[str, Any]] = attrs.field(factory=list)

    @classmethod
    def of(cls, entries: Iterable[JournalRecord]) -> _JournalSections:
        sections = cls()
        for entry in entries:
            record = entry.record
            event = record.get("event")
            if event in LIFECYCLE_EVENTS:
                row = {key: record.get(key) for key in TIMELINE_FIELDS}
                sections.timeline.append(row | {"journal": f"{entry.file}:{entry.line}"})
            elif event == QUALITY_METADATA_EVENT and record.get("status") == STAGNATION_STATUS:
                sections.stagnation.append(pick(record, STAGNATION_FIELDS))
            elif event == QUALITY_METADATA_EVENT:
                sections.quality = pick(record, QUALITY_FIELDS)
            elif event == BODY_DISCARDED_EVENT:
                sections.discarded.append(pick(record, DISCARDED_FIELDS))
            else:
                sections.other.append(pick(record, ("time", "event")))
        return sections


def build_run(
    ctx: TraceContext, *, run_id: str | None = None, child_id: str | None = None, root_id: str | None = None
) -> dict[str, Any]:
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
    label_id = shadow_label_id(ctx.sessions.label(child_id)) if child_id and ctx.sessions.exists(child_id) else None
    shadow_id = _first([*(r.get("shadow_id") for r in [*records, *relays]), label_id])
    value_loop = [entry.record for entry in ctx.journals.value_loop if run_id and entry.record.get("run_id") == run_id]
    shadow_id = shadow_id or _first(r.get("shadow_id") for r in value_loop)
    root_id = root_id or _first(r.get("root_session_id") for r in value_loop)

    sections = _JournalSections.of(entries)
    finished = next((t for t in reversed(sections.timeline) if t["event"] == RUN_FINISHED), None)
    last = sections.timeline[-1] if sections.timeline else None
    captured = _first([*(r.get("captured_through_seq") for r in [*records, *relays])])
    notes, child = _notes_and_child(ctx, bool(entries), shadow_id, child_id, root_id)
    ending = finished or last or {}
    return {
        "run_id": run_id,
        "shadow_id": shadow_id,
        "root_session_id": root_id,
        "child_session_id": child_id,
        "captured_through_seq": captured,
        "journal": bool(entries),
        "journal_files": sorted({entry.file for entry in entries}),
        "outcome": {
            "phase": ending.get("phase"),
            "stage": ending.get("stage"),
            "reason_code": ending.get("reason_code"),
            "relayed": bool(relays) or bool((finished or {}).get("relayed")),
        },
        "timeline": sections.timeline,
        "quality": sections.quality,
        "stagnation": sections.stagnation,
        "discarded_bodies": sections.discarded,
        "other_records": sections.other,
        "relays": relays,
        "value_loop": [pick(r, VALUE_LOOP_SHOWN) for r in value_loop],
        "child": child,
        "notes": notes,
    }


def _notes_and_child(
    ctx: TraceContext, journaled: bool, shadow_id: Any, child_id: Any, root_id: Any
) -> tuple[list[str], dict[str, Any] | None]:
    """What is missing and why, and the child's evidence when its log exists."""
    notes = []
    if not journaled:
        where = f"{ROOT_DIR}/{shadow_id}{DEFINITION_SUFFIX}" if shadow_id else f"the reviewer definition in {ROOT_DIR}/"
        notes.append(
            f"no debug journal records for this run: lifecycle diagnostics (timeline, phases, reason codes, quality "
            f"metadata) need `debug: true` in the frontmatter of {where}; explained from the session logs only"
        )
    child = None
    if child_id:
        if ctx.sessions.exists(child_id):
            child = child_evidence(ctx.sessions, child_id, last_events=ctx.events, show_text=ctx.show_text)
        else:
            notes.append(f"child session {SESSIONS_DIR}/{child_id}/ was not found (deleted, or another DSH home)")
    else:
        notes.append("the child session is unknown: the run never started a child, or nothing recorded its id")
    if root_id and not ctx.sessions.exists(root_id):
        notes.append(f"root session {SESSIONS_DIR}/{root_id}/ was not found; relays cannot be shown")
    for name, count in ctx.journals.skipped.items():
        notes.append(f"{count} damaged line(s) in {name} were skipped; run `harness shadow health`")
    return notes, child


def trace(ctx: TraceContext, query: str) -> dict[str, Any]:
    """The trace document for ``query``: a run id (or unique prefix), a root or a child session id."""
    kind, ident, root_id = resolve_query(ctx, query)
    if kind == "run":
        return {"kind": "run", "query": query, "runs": [build_run(ctx, run_id=ident, root_id=root_id)]}
    if kind == "child":
        header = ctx.sessions.header(ident) or {}
        label = ctx.sessions.label(ident)
        run = build_run(ctx, child_id=ident, root_id=header.get("parent_session"))
        if shadow_label_id(label) is None:
            run["notes"].insert(0, f"session {ident} is a child session but not a reviewer's (label {label!r})")
        return {"kind": "child", "query": query, "runs": [run]}
    return {"kind": "root", "query": query, "root": root_summary(ctx, ident), "runs": root_runs(ctx, ident)}


def root_summary(ctx: TraceContext, root_id: str) -> dict[str, Any]:
    header = ctx.sessions.header(root_id) or {}
    events, skipped = ctx.sessions.events(root_id)
    types = Counter(event.get("type") for event in events)
    relays = relays_in(events)
    return {
        "session_id": root_id,
        "created": iso_ms(header.get("created_at")),
        "events": len(events),
        "damaged_lines": skipped,
        "turns": types.get(EventTypes.TURN_START, 0),
        "relay_messages": len({relay["seq"] for relay in relays}),
        "relayed_reports": len(relays),
    }


def root_runs(ctx: TraceContext, root_id: str) -> list[dict[str, Any]]:
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


def run_trace(home: Path, query: str, *, events: int, show_text: bool) -> dict[str, Any]:
    """Open the home and trace ``query``; raises :class:`TraceError`."""
    ctx = TraceContext.open(home, events=events, show_text=show_text)
    return redact_value(trace(ctx, query), ctx.holdout)
