"""The diagnostics package on hand-written homes, without the CLI: the journal
and session readers, the trace builder, health checks and repair, rendering."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hookspecs.fsutil import FILE_MODE, ensure_private_dir
from hookspecs.values import EventTypes
from shadow_mind_plugin.diagnostics.evidence import child_evidence, summarize_event
from shadow_mind_plugin.diagnostics.health import (
    LIFECYCLE_FIELDS,
    check_file,
    check_record,
    health,
)
from shadow_mind_plugin.diagnostics.journals import LIFECYCLE_EVENTS, RUN_FINISHED, Journals
from shadow_mind_plugin.diagnostics.jsonl import read_objects, split_lines
from shadow_mind_plugin.diagnostics.render import HomeRelative, render_health, render_trace
from shadow_mind_plugin.diagnostics.sessions import SessionLogs, relays_in, shadow_label_id
from shadow_mind_plugin.diagnostics.trace import TraceError, run_trace
from shadow_mind_plugin.governance.journal import lifecycle_record
from shadow_mind_plugin.vocabulary import REPORT_SOURCE_KIND

ROOT = "root-session-1"
CHILD = "child-1"
RUN = "run-abc123xyz"


def _lifecycle(event: str, run_id: str = RUN, **extra: Any) -> dict[str, Any]:
    base = {
        "schema_version": 1, "time": "2026-01-01T00:00:00.000Z", "event": event, "run_id": run_id,
        "shadow_id": "default", "root_session_id": ROOT, "captured_through_seq": 4,
        "phase": "running", "stage": "run",
    }
    return {**base, **extra}


def _jsonl(path: Path, records: list[Any], tail: bytes = b"") -> Path:
    ensure_private_dir(path.parent)
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records) + tail)
    os.chmod(path, FILE_MODE)
    return path


def _session(home: Path, session_id: str, events: list[dict[str, Any]], **header: Any) -> None:
    head = {"type": "session", "version": 1, "id": session_id, "created_at": 1_767_225_600_000, **header}
    rows = [{"seq": seq, "time": 1_767_225_600_000 + seq, "data": {}, **event} for seq, event in enumerate(events)]
    _jsonl(home / "sessions" / session_id / "session.jsonl", [head, *rows])


def _relay(run_id: str, child_id: str) -> dict[str, Any]:
    report = {"run_id": run_id, "shadow_id": "default", "child_session_id": child_id, "captured_through_seq": 4,
              "verdict": "challenge", "severity": 0.8, "refs": [1]}
    source = {"kind": REPORT_SOURCE_KIND, "form": "relay", "reports": [report]}
    return {"type": EventTypes.USER_MESSAGE, "data": {"message": {"role": "user", "content": [], "source": source}}}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A root with one relayed run, its Shadow child and a debug journal."""
    home = tmp_path / "home"
    _jsonl(home / "shadow-minds" / "logs" / "default.jsonl", [
        _lifecycle("run-admitted", stage="prepare"),
        _lifecycle("child-started", child_session_id=CHILD, stage="start"),
        {"event": "quality-metadata", "time": "t1", "run_id": RUN, "route": "scripted/shadow-model",
         "tools": {"calls": 2, "by_name": {"read": 1, "structured_output": 1}, "invalid_args": 1,
                   "invalid_args_by_tool": {"read": 1}}},
        _lifecycle(RUN_FINISHED, child_session_id=CHILD, phase="report", stage="relay", relayed=True),
    ])
    _jsonl(home / "shadow-minds" / "value-loop.jsonl", [
        {"time": "t2", "root_session_id": ROOT, "shadow_id": "default", "run_id": RUN,
         "classification": "challenge_adopted", "relayed_at_seq": 2, "refs": [1], "observed_through_seq": 5},
    ])
    _session(home, ROOT, [
        {"type": EventTypes.TURN_START, "data": {"turn": 0}},
        {"type": EventTypes.TOOL_CALL, "data": {"call_id": "c0", "name": "read", "arguments": "{}"}},
        _relay(RUN, CHILD),
    ])
    _session(home, CHILD, [
        {"type": EventTypes.SUBAGENT_DESCRIPTOR, "data": {"provider": "shadow-mind", "label": "shadow:default", "mode": "one-shot"}},
        {"type": EventTypes.USER_MESSAGE, "data": {"message": {"content": [{"type": "text", "text": "PROMPT-TEXT"}]}}},
        {"type": EventTypes.TOOL_CALL, "data": {"call_id": "c1", "name": "read", "arguments": "SECRET-ARGUMENTS"}},
        {"type": EventTypes.TOOL_RESULT, "data": {"call_id": "c1", "name": "read", "error": {"code": "INVALID_ARGS"}}},
        {"type": EventTypes.ASSISTANT_CHUNK, "data": {"chunk": {"type": "text-delta"}}},
        {"type": EventTypes.ASSISTANT_MESSAGE, "data": {"stop": "tool-calls", "message": {"content": [
            {"type": "text", "text": "HEAD-TEXT"}, {"type": "tool-call", "name": "structured_output"}]}}},
        {"type": EventTypes.TURN_END, "data": {"turn": 0, "reason": {"kind": "completed"}}},
    ], parent_session=ROOT, delegation_depth=1, origin="subagent")
    return home


# --- the vocabulary the diagnostics share with the writers ------------------------------------


def test_required_lifecycle_fields_are_the_lifecycle_record_fields_that_always_have_a_value() -> None:
    view = SimpleNamespace(
        run_id="r", shadow_id="s", child_session_id=None, captured_through_seq=0, phase="running", stage="prepare",
        reason_code=None, cancellation_source=None, provider_stop_reason=None, error=None, relayed=None, check=None, leads=None, trigger_check=None,
    )
    record = lifecycle_record(SimpleNamespace(view=view, owner=SimpleNamespace(root_id="root")), "run-admitted", "t")  # type: ignore[arg-type]
    assert set(LIFECYCLE_FIELDS) == {key for key, value in record.items() if value is not None}
    assert RUN_FINISHED in LIFECYCLE_EVENTS


# --- readers ------------------------------------------------------------------------------------


def test_jsonl_lines_and_tolerant_objects(tmp_path: Path) -> None:
    assert list(split_lines(b"a\nb")) == [(1, b"a", True), (2, b"b", False)]
    assert list(split_lines(b"a\n")) == [(1, b"a", True)]
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n\n[1]\n{"b": NaN}\n{"c"\x00: 1}\n\xff\n{"d": 2}')
    assert read_objects(path) == ([(1, {"a": 1}), (7, {"d": 2})], 4)
    assert read_objects(tmp_path / "missing.jsonl") == ([], 0)


def test_journals_index_runs_by_id_child_and_root(home: Path) -> None:
    journals = Journals.load(home)
    assert journals.run_ids() == [RUN]
    assert [entry.record["event"] for entry in journals.for_run(RUN)][0] == "run-admitted"
    assert journals.for_run(RUN)[0].file == "shadow-minds/logs/default.jsonl"
    assert journals.run_for_child(CHILD) == RUN and journals.run_for_child("nope") is None
    assert journals.runs_for_root(ROOT) == [RUN]
    assert len(journals.value_loop) == 1 and journals.skipped == {}


def test_session_logs_read_headers_descriptors_and_relays(home: Path) -> None:
    sessions = SessionLogs(home)
    assert sessions.ids() == [CHILD, ROOT]
    assert sessions.is_child(CHILD) and not sessions.is_child(ROOT)
    assert sessions.shadow_children(ROOT) == [CHILD]
    assert sessions.label(CHILD) == "shadow:default" and shadow_label_id("shadow:default") == "default"
    assert shadow_label_id("other") is None and shadow_label_id(None) is None
    assert sessions.path("../etc") is None and not sessions.exists("nope")
    (relay,) = relays_in(sessions.events(ROOT)[0])
    assert relay["run_id"] == RUN and relay["seq"] == 2 and relay["form"] == "relay" and relay["refs"] == [1]


def test_child_evidence_counts_without_arguments_or_text(home: Path) -> None:
    child = child_evidence(SessionLogs(home), CHILD, last_events=15, show_text=False)
    assert child["tool_errors"] == {"INVALID_ARGS": 1} and child["invalid_args_by_tool"] == {"read": 1}
    assert child["prompt_chars"] == len("PROMPT-TEXT") and child["chunks_omitted"] == 1
    assert child["turn_ends"] == [{"seq": 6, "turn": 0, "kind": "completed"}]
    assert len(child["last_events"]) == 6  # the chunk is left out
    text = json.dumps(child)
    assert "SECRET-ARGUMENTS" not in text and "PROMPT-TEXT" not in text and "HEAD-TEXT" not in text
    message = {"seq": 5, "type": EventTypes.ASSISTANT_MESSAGE, "data": {"message": {"content": [{"type": "text", "text": "HEAD-TEXT"}]}}}
    assert summarize_event(message, show_text=True) == '#5 assistant/message text 9 chars "HEAD-TEXT"'
    assert summarize_event({"seq": 9, "type": "x/y", "data": {"b": 1, "a": 2}}, show_text=False) == "#9 x/y (a, b)"


# --- the trace builder --------------------------------------------------------------------------


def test_trace_builds_one_document_for_a_run_its_root_and_its_child(home: Path) -> None:
    by_run = run_trace(home, RUN, events=15, show_text=False)
    (run,) = by_run["runs"]
    assert by_run["kind"] == "run"
    assert (run["run_id"], run["shadow_id"], run["root_session_id"], run["child_session_id"]) == (RUN, "default", ROOT, CHILD)
    assert run["outcome"] == {"phase": "report", "stage": "relay", "reason_code": None, "relayed": True}
    assert [t["event"] for t in run["timeline"]] == ["run-admitted", "child-started", RUN_FINISHED]
    assert run["quality"]["route"] == "scripted/shadow-model"
    assert run["value_loop"][0]["classification"] == "challenge_adopted" and len(run["relays"]) == 1
    assert run["notes"] == []
    by_root = run_trace(home, ROOT, events=15, show_text=False)
    assert by_root["kind"] == "root" and by_root["root"]["turns"] == 1 and by_root["root"]["relayed_reports"] == 1
    assert [r["run_id"] for r in by_root["runs"]] == [RUN]
    by_child = run_trace(home, CHILD, events=15, show_text=False)
    assert by_child["kind"] == "child" and by_child["runs"][0]["run_id"] == RUN
    assert run_trace(home, RUN[:6], events=15, show_text=False)["runs"][0]["run_id"] == RUN
    text = render_trace(by_root)
    assert text.startswith(f"Root session {ROOT}") and f"Run {RUN}  shadow default" in text


def test_trace_without_a_journal_finds_the_run_in_the_relay(home: Path) -> None:
    (home / "shadow-minds" / "logs" / "default.jsonl").unlink()
    (home / "shadow-minds" / "value-loop.jsonl").unlink()
    (run,) = run_trace(home, RUN, events=0, show_text=False)["runs"]
    assert run["run_id"] == RUN and run["journal"] is False and run["child"]["last_events"] == []
    assert "need `debug: true` in the frontmatter of shadow-minds/default.md" in run["notes"][0]
    assert run["outcome"]["relayed"] is True


def test_trace_errors(home: Path, tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="neither a run id nor a session id"):
        run_trace(home, "../etc", events=15, show_text=False)
    with pytest.raises(TraceError, match="at least 6 characters"):
        run_trace(home, "run", events=15, show_text=False)
    with pytest.raises(TraceError, match="DSH home does not exist"):
        run_trace(tmp_path / "nope", RUN, events=15, show_text=False)


# --- health -------------------------------------------------------------------------------------


def test_check_record_names_what_is_missing() -> None:
    assert check_record(_lifecycle("run-admitted"), "debug") is None
    lifecycle = _lifecycle("run-admitted")
    del lifecycle["stage"]
    assert check_record(lifecycle, "debug") == "missing field(s): stage"
    assert check_record({"time": "t", "event": "quality-metadata", "run_id": "r"}, "debug") is None
    assert check_record({**_lifecycle("run-admitted"), "schema_version": 2}, "debug") == "unsupported schema_version 2"
    assert check_record({"time": "t", "event": 3, "run_id": "r"}, "debug") == "field 'event' is not a string"
    assert check_record([1], "value-loop") == "not a JSON object (list)"


def test_health_checks_and_repairs(home: Path) -> None:
    log = home / "shadow-minds" / "logs" / "default.jsonl"
    valid = log.read_bytes()
    log.write_bytes(valid + b'{"oops\n\x00\n' + json.dumps(_lifecycle("run-admitted")).encode())
    os.chmod(log, 0o644)
    check = check_file(home, log, "debug")
    assert [f"{line.line}: {line.problem}" for line in check.line_problems] == [
        "5: invalid JSON",
        "6: NUL byte(s) (1)",
        "7: torn last line: no trailing newline (the record itself is valid)",
    ]
    scrub = HomeRelative(home)
    before = health(home, repair=False, scrub=scrub)
    assert not before["healthy"] and before["problems"] == 4
    assert "Run `harness shadow health --repair`" in render_health(before, repair=False)
    after = health(home, repair=True, scrub=scrub)
    assert after["healthy"], after
    (item,) = [f for f in after["files"] if f["kind"] == "debug"]
    assert item["repaired"] == {"kept": 5, "dropped": 2, "rewritten": True}
    assert log.read_bytes() == valid + json.dumps(_lifecycle("run-admitted")).encode() + b"\n"
    assert stat.S_IMODE(log.stat().st_mode) == FILE_MODE
    assert render_health(after, repair=True).endswith("Healthy after repair.\n")


def test_home_relative_names_files_relative_to_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    relative = HomeRelative(home)
    assert relative(f"cannot read {home}/shadow-minds/x.jsonl") == "cannot read shadow-minds/x.jsonl"
    assert relative(f"home {home}") == "home $DSH_HOME"
    assert relative("at /srv/secret/place and C:\\x\\y") == "at <path> and <path>"
    assert relative("shadow-minds/logs/default.jsonl") == "shadow-minds/logs/default.jsonl"
